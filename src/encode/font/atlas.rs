//! The atlas image and its KTX2 file.
//!
//! Glyph fields are copied into one RGBA8 image at their packed positions
//! (everything else stays 0, "far outside"). The file keeps the full mip
//! chain: each level is box-filtered straight from level 0 by
//! [`mip_levels`] in linear mode (distances average linearly), so text drawn
//! much smaller than the atlas size is sampled from a level of matching
//! resolution instead of aliasing. Glyphs are separated by empty texels and
//! every cell ends in `spread` texels of fading field, so the first few
//! levels do not blend glyphs together; the smallest levels do, which only
//! matters for text a few pixels tall.
//!
//! SDF atlases are `R8_UNORM`, MSDF atlases `R8G8B8A8_UNORM`, both linear and
//! without swizzle; levels are Zstandard-supercompressed at the texture
//! `zstd_level` (0 stores them as is).

use super::pack::Packing;
use super::raster::GlyphField;
use crate::config::FontMode;
use crate::encode::image::Rgba8Image;
use crate::encode::mips::{mip_level_count, mip_levels};
use crate::encode::texture::{TextureMode, write_supercompressed};
use crate::format::ktx2::{Ktx2Image, TexelFormat};

/// Copies every field to its packed position in a `packing`-sized image.
/// `fields` and `packing.positions` are parallel.
pub fn compose(fields: &[&GlyphField], packing: &Packing) -> Rgba8Image {
    let width = packing.width as usize;
    let mut pixels = vec![0; width * packing.height as usize * 4];
    for (field, &(x, y)) in fields.iter().zip(&packing.positions) {
        let row_bytes = field.cell.width as usize * 4;
        for (row, texels) in field.texels.chunks_exact(row_bytes).enumerate() {
            let start = ((y as usize + row) * width + x as usize) * 4;
            pixels[start..start + row_bytes].copy_from_slice(texels);
        }
    }
    Rgba8Image {
        width: packing.width,
        height: packing.height,
        pixels,
    }
}

/// The atlas as a complete KTX2 file with its full mip chain.
pub fn atlas_ktx2(image: &Rgba8Image, mode: FontMode, zstd_level: i32) -> std::io::Result<Vec<u8>> {
    let count = mip_level_count(image.width, image.height);
    let chain = mip_levels(image, TextureMode::Linear, 0..count);
    let (format, levels): (TexelFormat, Vec<Vec<u8>>) = match mode {
        FontMode::Sdf => (
            TexelFormat::R8Unorm,
            chain
                .iter()
                .map(|level| red_channel(&level.pixels))
                .collect(),
        ),
        FontMode::Msdf => (
            TexelFormat::Rgba8 { srgb: false },
            chain.into_iter().map(|level| level.pixels).collect(),
        ),
    };
    let layout = atlas_layout(format, image.width, image.height);
    write_supercompressed(layout, &levels, zstd_level).map_err(|(_, e)| e)
}

/// The KTX2 layout of a font atlas: one 2D image of `format`, its levels
/// still to be filled in.
pub fn atlas_layout(format: TexelFormat, width: u32, height: u32) -> Ktx2Image<'static> {
    Ktx2Image {
        format,
        width,
        height,
        depth: 0,
        layers: 0,
        faces: 1,
        supercompression: 0,
        swizzle: None,
        levels: &[],
    }
}

/// The first byte of every RGBA texel.
fn red_channel(rgba: &[u8]) -> Vec<u8> {
    rgba.iter().step_by(4).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::font::outline::Cell;

    fn field(width: u32, height: u32, value: u8) -> GlyphField {
        GlyphField {
            cell: Cell {
                left: 0,
                bottom: 0,
                width,
                height,
            },
            texels: vec![value; (width * height * 4) as usize],
        }
    }

    #[test]
    fn fields_land_at_their_positions() {
        let (a, b) = (field(2, 2, 200), field(1, 3, 100));
        let packing = Packing {
            width: 4,
            height: 4,
            positions: vec![(0, 0), (3, 1)],
        };
        let image = compose(&[&a, &b], &packing);
        let red: Vec<u8> = red_channel(&image.pixels);
        #[rustfmt::skip]
        assert_eq!(red, [
            200, 200, 0, 0,
            200, 200, 0, 100,
            0, 0, 0, 100,
            0, 0, 0, 100,
        ]);
    }

    #[test]
    fn the_sdf_atlas_is_r8_with_a_full_chain_and_the_khronos_dfd() {
        let image = compose(
            &[&field(3, 2, 255)],
            &Packing {
                width: 8,
                height: 4,
                positions: vec![(1, 1)],
            },
        );
        let file = atlas_ktx2(&image, FontMode::Sdf, 3).unwrap();
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        let header = reader.header();
        assert_eq!(header.format, Some(::ktx2::Format::R8_UNORM));
        assert_eq!((header.pixel_width, header.pixel_height), (8, 4));
        assert_eq!(header.level_count, 4);
        let level0 = reader.levels().next().unwrap();
        let texels = zstd::bulk::decompress(level0.data, 32).unwrap();
        assert_eq!(texels, red_channel(&image.pixels));
        let (basic, _) = ::ktx2::dfd::Basic::from_format(::ktx2::Format::R8_UNORM).unwrap();
        let expected = ::ktx2::dfd::Block::Basic(basic).to_vec();
        let view = crate::format::ktx2::parse(&file).unwrap();
        assert_eq!(&view.dfd()[4..], expected.as_slice());
        assert_eq!(
            view.transfer_function(),
            Some(crate::format::ktx2::DFD_TRANSFER_LINEAR)
        );
    }

    #[test]
    fn the_msdf_atlas_is_rgba8_unorm() {
        let image = compose(
            &[&field(2, 2, 90)],
            &Packing {
                width: 4,
                height: 4,
                positions: vec![(0, 0)],
            },
        );
        let file = atlas_ktx2(&image, FontMode::Msdf, 0).unwrap();
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        assert_eq!(reader.header().format, Some(::ktx2::Format::R8G8B8A8_UNORM));
        assert_eq!(reader.header().supercompression_scheme, None);
        assert_eq!(
            reader.levels().next().unwrap().data,
            image.pixels.as_slice()
        );
    }
}
