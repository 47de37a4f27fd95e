//! The glyph bitmaps cut out of their pages and packed into one atlas.
//!
//! `.hfont` names no page per glyph, so every glyph's rect is cut from its
//! page and re-packed with the TrueType fonts' shelf packer
//! ([`super::super::pack`]): any number of pages becomes one texture, the
//! atlas holds only used texels, and glyphs that a packed font keeps in
//! different channels of one spot come apart. (Stacking whole pages would
//! keep neither the channels apart nor the unused space out.)
//!
//! The atlas is **coverage** (`R8_UNORM`) when every glyph is one channel
//! of its page (a packed font, `chnl` 1/2/4/8), or all channels of a page
//! whose colour channels are constant and whose alpha holds the glyph
//! (`common` `redChnl`/`greenChnl`/`blueChnl` 4, "one"). Otherwise it is
//! **colour** (`R8G8B8A8_SRGB`, straight alpha): glyphs copied as they are,
//! and one-channel glyphs as white with that channel in alpha. Either way
//! it is one lossless level, Zstandard-supercompressed: bitmap glyphs are
//! pixel art, which block compression and mip filtering would blur.

use super::super::atlas::atlas_layout;
use super::super::pack::{self, Packing};
use super::model::{BmError, ChannelContent, Channels, Glyph, Metrics};
use crate::encode::image::Rgba8Image;
use crate::encode::texture::write_supercompressed;
use crate::format::ktx2::TexelFormat;

/// The texel layout of a bitmap atlas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtlasKind {
    /// One coverage channel.
    Coverage,
    /// sRGB colour with straight alpha.
    Colour,
}

/// Where a glyph's texels come from in its page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// One channel (0 red … 3 alpha) is the glyph's coverage.
    Channel(usize),
    /// All four channels are the glyph's colour and alpha.
    Rgba,
}

impl Source {
    /// Where `glyph`'s texels are, given what the font's channels hold.
    pub fn of(glyph: &Glyph, metrics: &Metrics) -> Self {
        match glyph.channels {
            Channels::One(channel) => Source::Channel(channel),
            Channels::All if alpha_only(metrics) => Source::Channel(3),
            Channels::All => Source::Rgba,
        }
    }
}

/// Whether the pages keep the glyphs in alpha under constant white colour.
fn alpha_only(metrics: &Metrics) -> bool {
    let [r, g, b, a] = metrics.contents;
    [r, g, b].iter().all(|&c| c == ChannelContent::One) && a == ChannelContent::Glyph
}

/// One glyph's texels, cut from its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Where its texels came from.
    pub source: Source,
    /// `width * height` RGBA texels, row by row; a one-channel glyph holds
    /// its channel in every sample.
    pub texels: Vec<u8>,
}

/// Cuts `glyph`'s rect out of `page`, refusing a rect that leaves it.
pub fn cut(glyph: &Glyph, page: &Rgba8Image, source: Source) -> Result<Cell, BmError> {
    let right = u64::from(glyph.x) + u64::from(glyph.width);
    let bottom = u64::from(glyph.y) + u64::from(glyph.height);
    if right > u64::from(page.width) || bottom > u64::from(page.height) {
        return Err(BmError::at(
            glyph.place,
            format!(
                "char id={}: its rect {}x{} at ({}, {}) reaches ({right}, {bottom}), outside page {} ({}x{})",
                glyph.id,
                glyph.width,
                glyph.height,
                glyph.x,
                glyph.y,
                glyph.page,
                page.width,
                page.height
            ),
        ));
    }
    let mut texels = Vec::with_capacity(glyph.width as usize * glyph.height as usize * 4);
    for row in glyph.y..glyph.y + glyph.height {
        let start = (row as usize * page.width as usize + glyph.x as usize) * 4;
        let line = &page.pixels[start..start + glyph.width as usize * 4];
        match source {
            Source::Rgba => texels.extend_from_slice(line),
            Source::Channel(channel) => {
                for texel in line.chunks_exact(4) {
                    texels.extend_from_slice(&[texel[channel]; 4]);
                }
            }
        }
    }
    Ok(Cell {
        width: glyph.width,
        height: glyph.height,
        source,
        texels,
    })
}

/// The atlas kind the cells need.
pub fn kind_of(cells: &[Cell]) -> AtlasKind {
    if cells.iter().all(|c| matches!(c.source, Source::Channel(_))) {
        AtlasKind::Coverage
    } else {
        AtlasKind::Colour
    }
}

/// Packs the cells; `Err` with the size asked for when a side passes `max`.
pub fn pack_cells(cells: &[Cell], max: u32) -> Result<Packing, (u32, u32)> {
    let sizes: Vec<(u32, u32)> = cells.iter().map(|c| (c.width, c.height)).collect();
    let packing = pack::pack(&sizes);
    if packing.width > max || packing.height > max {
        return Err((packing.width, packing.height));
    }
    Ok(packing)
}

/// The atlas texels, one byte per texel for [`AtlasKind::Coverage`], four
/// for [`AtlasKind::Colour`]; empty texels are 0.
pub fn compose(cells: &[Cell], packing: &Packing, kind: AtlasKind) -> Vec<u8> {
    let bytes = match kind {
        AtlasKind::Coverage => 1,
        AtlasKind::Colour => 4,
    };
    let width = packing.width as usize;
    let mut atlas = vec![0; width * packing.height as usize * bytes];
    for (cell, &(x, y)) in cells.iter().zip(&packing.positions) {
        for (row, texels) in cell
            .texels
            .chunks_exact(cell.width as usize * 4)
            .enumerate()
        {
            let start = ((y as usize + row) * width + x as usize) * bytes;
            let target = &mut atlas[start..start + cell.width as usize * bytes];
            for (out, texel) in target.chunks_exact_mut(bytes).zip(texels.chunks_exact(4)) {
                out.copy_from_slice(&stored(texel, cell.source, kind)[..bytes]);
            }
        }
    }
    atlas
}

/// One texel as the atlas stores it (its first byte for coverage).
fn stored(texel: &[u8], source: Source, kind: AtlasKind) -> [u8; 4] {
    match (kind, source) {
        (AtlasKind::Colour, Source::Channel(_)) => [255, 255, 255, texel[0]],
        _ => [texel[0], texel[1], texel[2], texel[3]],
    }
}

/// The atlas as a one-level KTX2 file.
pub fn atlas_ktx2(
    texels: Vec<u8>,
    packing: &Packing,
    kind: AtlasKind,
    zstd_level: i32,
) -> std::io::Result<Vec<u8>> {
    let format = match kind {
        AtlasKind::Coverage => TexelFormat::R8Unorm,
        AtlasKind::Colour => TexelFormat::Rgba8 { srgb: true },
    };
    let layout = atlas_layout(format, packing.width, packing.height);
    write_supercompressed(layout, &[texels], zstd_level).map_err(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::font::bmfont::model::Place;

    fn page() -> Rgba8Image {
        // 4x2, texel (x, y) = [10x+y, 100+x, 200+y, 50+x+y].
        let mut pixels = Vec::new();
        for y in 0..2u8 {
            for x in 0..4u8 {
                pixels.extend_from_slice(&[10 * x + y, 100 + x, 200 + y, 50 + x + y]);
            }
        }
        Rgba8Image {
            width: 4,
            height: 2,
            pixels,
        }
    }

    fn glyph(x: u32, width: u32, height: u32) -> Glyph {
        Glyph {
            id: 65,
            x,
            y: 0,
            width,
            height,
            xoffset: 0,
            yoffset: 0,
            xadvance: 0,
            page: 0,
            channels: Channels::All,
            place: Place::Line(4),
        }
    }

    #[test]
    fn cuts_rgba_and_single_channels() {
        let rgba = cut(&glyph(1, 2, 1), &page(), Source::Rgba).unwrap();
        assert_eq!(rgba.texels, [10, 101, 200, 51, 20, 102, 200, 52]);
        let blue = cut(&glyph(2, 1, 2), &page(), Source::Channel(2)).unwrap();
        assert_eq!(blue.texels, [200, 200, 200, 200, 201, 201, 201, 201]);
    }

    #[test]
    fn refuses_a_rect_outside_the_page() {
        let err = cut(&glyph(3, 2, 1), &page(), Source::Rgba).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 4: char id=65: its rect 2x1 at (3, 0) reaches (5, 1), outside page 0 (4x2)"
        );
        assert!(cut(&glyph(0, 1, 3), &page(), Source::Rgba).is_err());
        assert!(cut(&glyph(u32::MAX, 1, 1), &page(), Source::Rgba).is_err());
    }

    #[test]
    fn alpha_only_pages_and_packed_glyphs_make_coverage() {
        let mut metrics = Metrics {
            size: 8,
            line_height: 8,
            base: 6,
            scale: (4, 2),
            packed: false,
            contents: [ChannelContent::Glyph; 4],
            size_place: Place::Line(1),
        };
        let all = glyph(0, 1, 1);
        assert_eq!(Source::of(&all, &metrics), Source::Rgba);
        metrics.contents = [
            ChannelContent::One,
            ChannelContent::One,
            ChannelContent::One,
            ChannelContent::Glyph,
        ];
        assert_eq!(Source::of(&all, &metrics), Source::Channel(3));
        let packed = Glyph {
            channels: Channels::One(1),
            ..all
        };
        assert_eq!(Source::of(&packed, &metrics), Source::Channel(1));
    }

    #[test]
    fn composes_coverage_and_colour_atlases() {
        let red = cut(&glyph(1, 1, 2), &page(), Source::Channel(0)).unwrap();
        let rgba = cut(&glyph(0, 1, 1), &page(), Source::Rgba).unwrap();
        assert_eq!(kind_of(std::slice::from_ref(&red)), AtlasKind::Coverage);
        let cells = [red, rgba];
        assert_eq!(kind_of(&cells), AtlasKind::Colour);
        let packing = Packing {
            width: 2,
            height: 2,
            positions: vec![(0, 0), (1, 0)],
        };
        let colour = compose(&cells, &packing, AtlasKind::Colour);
        #[rustfmt::skip]
        assert_eq!(colour, [
            255, 255, 255, 10,  0, 100, 200, 50,
            255, 255, 255, 11,  0, 0, 0, 0,
        ]);
        let coverage = compose(&cells[..1], &packing, AtlasKind::Coverage);
        assert_eq!(coverage, [10, 0, 11, 0]);
        assert_eq!(pack_cells(&cells, 64).unwrap().width, 64);
        assert_eq!(pack_cells(&cells, 32).map(|p| p.width), Err((64, 4)));
    }
}
