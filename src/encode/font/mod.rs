//! The font encoder: a TrueType or OpenType file in, an `.hfont` and its
//! distance-field atlas KTX2 out.
//!
//! One module per step:
//!
//! 1. [`face`]: parse the font (ttf-parser) and select the glyphs of the
//!    charset, `.notdef` first; [`coverage`] resolves `charset: font` and
//!    refuses, or warns about, a charset that misses what the font covers;
//! 2. [`outline`] and [`raster`]: each glyph outline becomes a distance field
//!    (`fdsm`) in a cell of whole texels;
//! 3. [`pack`]: the cells are shelf-packed into one atlas;
//! 4. [`atlas`]: the atlas image and its KTX2 file (mips, Zstandard);
//! 5. [`kerning`]: pairs from the `kern` table and GPOS;
//! 6. this module: metrics in em units and the `.hfont` itself.
//!
//! Everything runs on the calling thread, in a fixed order, so two runs give
//! the same bytes. ttf-parser and `fdsm` are trusted not to read out of
//! bounds but not to be free of panics on hostile files, so the whole
//! encode runs under `catch_unwind` and a panic becomes [`FontError::Crashed`].

pub mod atlas;
pub mod bmfont;
pub mod coverage;
pub mod face;
pub mod kerning;
pub mod outline;
pub mod pack;
pub mod raster;

use std::panic::{AssertUnwindSafe, catch_unwind};

use bytemuck::Zeroable;
use ttf_parser::Face;

use self::face::{LineMetrics, SelectedGlyph, StructureError, check_structure, select_glyphs};
use self::kerning::kerning_pairs;
use self::raster::{CellTooLarge, FieldOptions, GlyphField, glyph_field};
use crate::config::{Charset, FontMode};
use crate::format::error::FormatError;
use crate::format::hfont::{self, FLAG_MSDF, FontData, GpuGlyph, KerningPair};

pub use crate::encode::limits::MAX_ATLAS_SIDE;

/// How to compile a font.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontOptions {
    /// The codepoints to compile.
    pub charset: Charset,
    /// Atlas texels per em.
    pub px_per_em: u32,
    /// Field texels on each side of an outline.
    pub spread: u32,
    /// One-channel or multi-channel field.
    pub mode: FontMode,
    /// Zstandard level of the atlas levels; 0 stores them as is.
    pub zstd_level: i32,
}

/// The two files of a compiled font.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledFont {
    /// The `.hfont` bytes.
    pub hfont: Vec<u8>,
    /// The atlas KTX2 bytes.
    pub atlas: Vec<u8>,
    /// What the user should know about the charset, one line each.
    pub warnings: Vec<String>,
}

/// Why a font could not be compiled. Messages never name the file; the
/// caller adds the path.
#[derive(Debug, thiserror::Error)]
pub enum FontError {
    /// ttf-parser refused the file.
    #[error("not a TrueType or OpenType font: {0}")]
    Parse(ttf_parser::FaceParsingError),
    /// The file is truncated or has no outlines.
    #[error(transparent)]
    Structure(#[from] StructureError),
    /// The font maps none of the charset's codepoints.
    #[error("the font has none of the charset's codepoints ({charset}); {advice}")]
    NoGlyphs {
        /// The charset in its canonical form.
        charset: Charset,
        /// What the font covers and how to set `charset` for it.
        advice: String,
    },
    /// One glyph is absurdly large at this `px_per_em`.
    #[error(transparent)]
    CellTooLarge(#[from] CellTooLarge),
    /// The glyphs do not fit the largest atlas.
    #[error(
        "the glyphs need a {width}x{height} atlas, more than {MAX_ATLAS_SIDE} on a side; \
         lower px_per_em or shrink the charset"
    )]
    AtlasTooLarge {
        /// Width the packer asked for.
        width: u32,
        /// Height the packer asked for.
        height: u32,
    },
    /// The `.hfont` writer's own check refused the result.
    #[error("the compiled font is invalid")]
    Format(#[source] FormatError),
    /// Zstandard failed on an atlas level.
    #[error("Zstandard compression of the atlas failed")]
    Compress(#[source] std::io::Error),
    /// ttf-parser or `fdsm` panicked.
    #[error(
        "the font parser or the distance-field generator failed on this file (it is probably damaged)"
    )]
    Crashed,
}

/// Compiles a font file; `atlas_tex` is the manifest id of the atlas.
pub fn compile_font(
    source: &[u8],
    options: &FontOptions,
    atlas_tex: u64,
) -> Result<CompiledFont, FontError> {
    catch_unwind(AssertUnwindSafe(|| compile(source, options, atlas_tex)))
        .unwrap_or(Err(FontError::Crashed))
}

fn compile(
    source: &[u8],
    options: &FontOptions,
    atlas_tex: u64,
) -> Result<CompiledFont, FontError> {
    let face = Face::parse(source, 0).map_err(FontError::Parse)?;
    check_structure(&face)?;
    let (glyphs, warnings) = charset_glyphs(&face, &options.charset)?;
    let field_options = FieldOptions {
        px_per_em: options.px_per_em,
        spread: options.spread,
        mode: options.mode,
    };
    // Each glyph's field depends on that glyph alone: they run on lent
    // threads, and the first error in charset order is the one reported.
    let fields = crate::jobserver::map(&glyphs, |glyph| {
        glyph_field(&face, glyph.id, &field_options)
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    let drawn: Vec<&GlyphField> = fields.iter().flatten().collect();
    let sizes: Vec<(u32, u32)> = drawn
        .iter()
        .map(|f| (f.cell.width, f.cell.height))
        .collect();
    let packing = pack::pack(&sizes);
    if packing.width > MAX_ATLAS_SIDE || packing.height > MAX_ATLAS_SIDE {
        return Err(FontError::AtlasTooLarge {
            width: packing.width,
            height: packing.height,
        });
    }
    let image = atlas::compose(&drawn, &packing);
    let atlas =
        atlas::atlas_ktx2(&image, options.mode, options.zstd_level).map_err(FontError::Compress)?;
    let metrics = LineMetrics::of(&face);
    let mut positions = packing.positions.iter();
    let gpu_glyphs: Vec<GpuGlyph> = glyphs
        .iter()
        .zip(&fields)
        .map(|(glyph, field)| {
            let placed = field
                .as_ref()
                .and_then(|field| positions.next().map(|position| (field, position)));
            gpu_glyph(&face, glyph, placed, &packing, options.px_per_em)
        })
        .collect();
    let kerning = kerning_pairs(&face, &glyphs)
        .into_iter()
        .map(|pair| KerningPair {
            left: pair.left,
            right: pair.right,
            advance: metrics.em(pair.units as f32),
        })
        .collect();
    let font = FontData {
        atlas_tex,
        ascent: metrics.em(f32::from(metrics.ascent)),
        descent: metrics.em(f32::from(metrics.descent)),
        line_gap: metrics.em(f32::from(metrics.line_gap)),
        distance_range: 2.0 * options.spread as f32,
        edge_value: 0.5,
        atlas_width: packing.width as u16,
        atlas_height: packing.height as u16,
        flags: match options.mode {
            FontMode::Sdf => 0,
            FontMode::Msdf => FLAG_MSDF,
        },
        glyphs: gpu_glyphs,
        kerning,
    };
    let hfont = hfont::write_hfont(&font).map_err(FontError::Format)?;
    Ok(CompiledFont {
        hfont,
        atlas,
        warnings,
    })
}

/// The glyphs `charset` selects (`font` resolved to the font's coverage),
/// and the warnings about it; an error naming what the font covers when it
/// selects none.
fn charset_glyphs(
    face: &Face,
    charset: &Charset,
) -> Result<(Vec<SelectedGlyph>, Vec<String>), FontError> {
    let covered = coverage::bmp_coverage(face);
    let no_glyphs = || FontError::NoGlyphs {
        charset: charset.clone(),
        advice: coverage::no_glyph_advice(&covered, charset),
    };
    let mut warnings = Vec::new();
    let resolved = if charset.is_font() {
        let (resolved, warning) = coverage::font_charset(&covered).ok_or_else(no_glyphs)?;
        warnings.extend(warning);
        resolved
    } else {
        charset.clone()
    };
    let glyphs = select_glyphs(face, &resolved);
    if glyphs.len() < 2 {
        return Err(no_glyphs());
    }
    warnings.extend(coverage::thin_charset_warning(
        &covered,
        charset,
        glyphs.len() - 1,
    ));
    Ok((glyphs, warnings))
}

/// One glyph row: its advance, and for a drawn glyph its quad (the whole
/// cell, in em around the pen) and the cell's rect in the atlas.
fn gpu_glyph(
    face: &Face,
    glyph: &SelectedGlyph,
    placed: Option<(&GlyphField, &(u32, u32))>,
    packing: &pack::Packing,
    px_per_em: u32,
) -> GpuGlyph {
    let advance = face.glyph_hor_advance(glyph.id).unwrap_or(0);
    let mut row = GpuGlyph {
        codepoint: glyph.codepoint,
        advance: f32::from(advance) / f32::from(face.units_per_em()),
        ..GpuGlyph::zeroed()
    };
    if let Some((field, &(x, y))) = placed {
        let cell = &field.cell;
        let em = |texels: i64| texels as f32 / px_per_em as f32;
        row.plane_left = em(i64::from(cell.left));
        row.plane_bottom = em(i64::from(cell.bottom));
        row.plane_right = em(i64::from(cell.left) + i64::from(cell.width));
        row.plane_top = em(i64::from(cell.bottom) + i64::from(cell.height));
        let (width, height) = (packing.width as f32, packing.height as f32);
        row.uv_left = x as f32 / width;
        row.uv_top = y as f32 / height;
        row.uv_right = (x + cell.width) as f32 / width;
        row.uv_bottom = (y + cell.height) as f32 / height;
    }
    row
}

#[cfg(test)]
pub mod test_font;
#[cfg(test)]
mod tests;
