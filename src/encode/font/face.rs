//! Reading a font file: the face, its vertical metrics, and which of its
//! glyphs a charset selects.
//!
//! ttf-parser treats a table it cannot read as absent, so a truncated file
//! could quietly lose its outlines. [`check_structure`] refuses a file whose
//! table directory points past its end and a face without glyph outlines.

use ttf_parser::{Face, GlyphId};

use crate::config::Charset;
use crate::format::hfont::NOTDEF;

/// Why a face that ttf-parser accepted is still unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StructureError {
    /// A table directory entry runs past the end of the file.
    #[error(
        "the '{tag}' table ({length} bytes at offset {offset}) runs past the end of the \
         {file_len}-byte file; the file is truncated"
    )]
    Truncated {
        /// The table's tag.
        tag: String,
        /// Where the directory says it starts.
        offset: u32,
        /// Its length.
        length: u32,
        /// The file's length.
        file_len: usize,
    },
    /// No `glyf` or `CFF ` table: nothing to draw distance fields of (`CFF2`,
    /// used only by variable fonts, is not read).
    #[error("the font has no TrueType or CFF outlines (a bitmap-only or colour font?)")]
    NoOutlines,
}

/// Checks that every table lies inside the file and that the face has
/// outlines.
pub fn check_structure(face: &Face) -> Result<(), StructureError> {
    let raw = face.raw_face();
    for record in raw.table_records {
        let end = u64::from(record.offset) + u64::from(record.length);
        if end > raw.data.len() as u64 {
            return Err(StructureError::Truncated {
                tag: record.tag.to_string(),
                offset: record.offset,
                length: record.length,
                file_len: raw.data.len(),
            });
        }
    }
    let tables = face.tables();
    if tables.glyf.is_none() && tables.cff.is_none() {
        return Err(StructureError::NoOutlines);
    }
    Ok(())
}

/// One glyph to compile: the codepoint it is stored under and the font's
/// glyph for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectedGlyph {
    /// The codepoint, or [`NOTDEF`] for the font's `.notdef` glyph.
    pub codepoint: u32,
    /// The font's glyph id.
    pub id: GlyphId,
}

/// The line metrics of a face in font units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineMetrics {
    /// Font units per em.
    pub units_per_em: u16,
    /// Above the baseline (positive).
    pub ascent: i16,
    /// Below the baseline (normally negative).
    pub descent: i16,
    /// Extra space between lines.
    pub line_gap: i16,
}

impl LineMetrics {
    /// The metrics ttf-parser reports: `hhea`, or `OS/2` typographic metrics
    /// when the font sets `USE_TYPO_METRICS`.
    pub fn of(face: &Face) -> Self {
        Self {
            units_per_em: face.units_per_em(),
            ascent: face.ascender(),
            descent: face.descender(),
            line_gap: face.line_gap(),
        }
    }

    /// Font units to em.
    pub fn em(&self, units: f32) -> f32 {
        units / f32::from(self.units_per_em)
    }
}

/// The glyphs a charset selects from `face`: the `.notdef` glyph (id 0) as
/// codepoint 0 first, then every codepoint of the charset the font maps to a
/// real glyph, ascending. Codepoints the font lacks are skipped.
pub fn select_glyphs(face: &Face, charset: &Charset) -> Vec<SelectedGlyph> {
    let notdef = SelectedGlyph {
        codepoint: NOTDEF,
        id: GlyphId(0),
    };
    let mapped = charset.chars().filter_map(|c| {
        face.glyph_index(c)
            .filter(|id| id.0 != 0)
            .map(|id| SelectedGlyph {
                codepoint: u32::from(c),
                id,
            })
    });
    std::iter::once(notdef)
        .chain(mapped.filter(|glyph| glyph.codepoint != NOTDEF))
        .collect()
}
