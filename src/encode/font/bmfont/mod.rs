//! AngelCode BMFont bitmap fonts: a `.fnt` file (text, XML or binary
//! version 3) and its page images in, an `.hfont` with [`FLAG_BITMAP`] and
//! its atlas KTX2 out.
//!
//! 1. [`parse`] tells the encoding from the first bytes (`BMF` is binary,
//!    `<` XML, anything else text) and reads it with [`binary`], [`xml`] or
//!    [`text`] into the shared [`model`] ([`records`] is what text and XML
//!    share);
//! 2. the pages are read beside the `.fnt` and decoded like any image;
//! 3. [`atlas`] cuts each glyph out of its page and packs them into one
//!    lossless atlas;
//! 4. this module converts texels to em units and writes the `.hfont`.
//!
//! **Units.** One em is `|info size|` texels: drawn at `|size|` pixels per
//! em, one atlas texel covers one screen pixel, which is what pixel fonts
//! need. The header's `ascent` is `base / |size|` and `descent` is
//! `-(lineHeight - base) / |size|`, so the line advance is `lineHeight`
//! texels; a glyph's quad is its rect placed at `xoffset`, `yoffset` below
//! the line's top, and its advance `xadvance`. Kerning amounts convert the
//! same way.

pub mod atlas;
pub mod binary;
pub mod model;
pub mod records;
pub mod text;
pub mod xml;

use std::path::{Component, Path, PathBuf};

use bytemuck::Zeroable;

use self::atlas::{AtlasKind, Cell, Source};
use self::model::{BmError, BmFont, Glyph, Kerning, Page};
use crate::encode::image::{Rgba8Image, decode_image};
use crate::encode::limits::MAX_ATLAS_SIDE;
use crate::format::hfont::{self, FLAG_BITMAP, FLAG_MSDF, FontData, GpuGlyph, KerningPair};

/// The two files of a compiled bitmap font and what the encoder read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledBitmapFont {
    /// The `.hfont` bytes.
    pub hfont: Vec<u8>,
    /// The atlas KTX2 bytes.
    pub atlas: Vec<u8>,
    /// Whether the atlas is sRGB colour (else linear coverage).
    pub colour: bool,
    /// Every page image read, for the depfile.
    pub pages: Vec<PathBuf>,
    /// What the user should know, one line each.
    pub warnings: Vec<String>,
}

/// Reads a `.fnt` in any of its encodings.
pub fn parse(bytes: &[u8]) -> Result<BmFont, BmError> {
    if bytes.starts_with(binary::SIGNATURE) {
        return binary::parse(bytes);
    }
    let start = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if start.trim_ascii_start().starts_with(b"<") {
        xml::parse(bytes)
    } else {
        text::parse(bytes)
    }
}

/// Compiles the `.fnt` at `path` whose bytes are `source`; `atlas_tex` is
/// the manifest id of the atlas.
pub fn compile_bitmap_font(
    path: &Path,
    source: &[u8],
    zstd_level: i32,
    atlas_tex: u64,
) -> Result<CompiledBitmapFont, BmError> {
    let font = parse(source)?;
    let folder = path.parent().unwrap_or(Path::new(""));
    let pages = font
        .pages
        .iter()
        .enumerate()
        .map(|(index, page)| page_path(folder, index, page))
        .collect::<Result<Vec<_>, _>>()?;
    let images = font
        .pages
        .iter()
        .zip(&pages)
        .enumerate()
        .map(|(index, (page, file))| load_page(index, page, file, font.metrics.scale))
        .collect::<Result<Vec<_>, _>>()?;
    let drawn: Vec<&Glyph> = font.glyphs.iter().filter(|g| !is_blank(g)).collect();
    let cells = drawn
        .iter()
        .map(|g| atlas::cut(g, &images[g.page as usize], Source::of(g, &font.metrics)))
        .collect::<Result<Vec<Cell>, _>>()?;
    let packing = atlas::pack_cells(&cells, MAX_ATLAS_SIDE).map_err(|(width, height)| {
        BmError::whole(format!(
            "the glyphs need a {width}x{height} atlas, more than {MAX_ATLAS_SIDE} on a side"
        ))
    })?;
    let kind = atlas::kind_of(&cells);
    let texels = atlas::compose(&cells, &packing, kind);
    let atlas = atlas::atlas_ktx2(texels, &packing, kind, zstd_level)
        .map_err(|e| BmError::whole(format!("Zstandard compression of the atlas failed: {e}")))?;
    let size = (packing.width, packing.height);
    let placed: Vec<(u32, (u32, u32))> = drawn
        .iter()
        .zip(&packing.positions)
        .map(|(g, &at)| (g.id, at))
        .collect();
    let (data, warnings) = font_data(&font, &placed, size, kind, atlas_tex);
    let hfont = hfont::write_hfont(&data)
        .map_err(|e| BmError::whole(format!("the compiled font is invalid: {e}")))?;
    Ok(CompiledBitmapFont {
        hfont,
        atlas,
        colour: kind == AtlasKind::Colour,
        pages,
        warnings,
    })
}

/// Whether a glyph has no texels (a space).
fn is_blank(glyph: &Glyph) -> bool {
    glyph.width == 0 || glyph.height == 0
}

/// Where page `index` is: its name below the `.fnt`'s folder, which it may
/// not leave.
fn page_path(folder: &Path, index: usize, page: &Page) -> Result<PathBuf, BmError> {
    let name = Path::new(&page.file);
    let inside = !page.file.is_empty()
        && name
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(BmError::at(
            page.place,
            format!(
                "page {index} file \"{}\" must be a relative path below the font's folder",
                page.file
            ),
        ));
    }
    Ok(folder.join(name))
}

/// Reads and decodes page `index`, which must be `scale` texels.
fn load_page(
    index: usize,
    page: &Page,
    file: &Path,
    scale: (u32, u32),
) -> Result<Rgba8Image, BmError> {
    let fail = |what: String| {
        BmError::at(
            page.place,
            format!("page {index} \"{}\": {what}", page.file),
        )
    };
    let bytes =
        std::fs::read(file).map_err(|e| fail(format!("cannot read {}: {e}", file.display())))?;
    let image = decode_image(&bytes).map_err(|e| fail(e.to_string()))?;
    if (image.width, image.height) != scale {
        return Err(fail(format!(
            "the image is {}x{}, but common scaleW/scaleH say {}x{}",
            image.width, image.height, scale.0, scale.1
        )));
    }
    Ok(image)
}

/// The `.hfont` content, and a warning for kerning pairs dropped because
/// they name glyphs the font lacks. `placed` gives each drawn glyph's atlas
/// position, in glyph order.
fn font_data(
    font: &BmFont,
    placed: &[(u32, (u32, u32))],
    atlas: (u32, u32),
    kind: AtlasKind,
    atlas_tex: u64,
) -> (FontData, Vec<String>) {
    let metrics = &font.metrics;
    let em = metrics.size.unsigned_abs() as f32;
    let texels = |value: i64| value as f32 / em;
    let base = i64::from(metrics.base);
    let mut positions = placed.iter().peekable();
    let mut glyphs: Vec<GpuGlyph> = Vec::with_capacity(font.glyphs.len() + 1);
    if font.glyphs.first().is_none_or(|g| g.id != hfont::NOTDEF) {
        glyphs.push(GpuGlyph::zeroed());
    }
    for glyph in &font.glyphs {
        let mut row = GpuGlyph {
            codepoint: glyph.id,
            advance: texels(i64::from(glyph.xadvance)),
            ..GpuGlyph::zeroed()
        };
        if let Some(&(_, (x, y))) = positions.next_if(|(id, _)| *id == glyph.id) {
            let left = i64::from(glyph.xoffset);
            let top = base - i64::from(glyph.yoffset);
            row.plane_left = texels(left);
            row.plane_right = texels(left + i64::from(glyph.width));
            row.plane_top = texels(top);
            row.plane_bottom = texels(top - i64::from(glyph.height));
            let (w, h) = (atlas.0 as f32, atlas.1 as f32);
            row.uv_left = x as f32 / w;
            row.uv_top = y as f32 / h;
            row.uv_right = (x + glyph.width) as f32 / w;
            row.uv_bottom = (y + glyph.height) as f32 / h;
        }
        glyphs.push(row);
    }
    let present = |id: u32| font.glyphs.binary_search_by_key(&id, |g| g.id).is_ok();
    let (kept, dropped): (Vec<&Kerning>, Vec<&Kerning>) = font
        .kerning
        .iter()
        .filter(|k| k.amount != 0)
        .partition(|k| present(k.first) && present(k.second));
    let kerning = kept
        .iter()
        .map(|k| KerningPair {
            left: k.first,
            right: k.second,
            advance: texels(i64::from(k.amount)),
        })
        .collect();
    let warnings = dropped
        .first()
        .map(|k| {
            format!(
                "{} kerning pair(s) name glyphs the font lacks and were left out (the first at {})",
                dropped.len(),
                k.place
            )
        })
        .into_iter()
        .collect();
    let data = FontData {
        atlas_tex,
        ascent: texels(base),
        descent: -texels(i64::from(metrics.line_height) - base),
        line_gap: 0.0,
        distance_range: 0.0,
        edge_value: 0.0,
        atlas_width: atlas.0 as u16,
        atlas_height: atlas.1 as u16,
        flags: match kind {
            AtlasKind::Coverage => FLAG_BITMAP,
            AtlasKind::Colour => FLAG_BITMAP | FLAG_MSDF,
        },
        glyphs,
        kerning,
    };
    (data, warnings)
}

#[cfg(test)]
mod test_writer;
#[cfg(test)]
mod tests;
