//! Kerning pairs from the legacy `kern` table and from GPOS pair adjustment.
//!
//! For every ordered pair of selected glyphs (the `.notdef` glyph left out)
//! the adjustment of the first glyph's advance is looked up in both sources:
//!
//! * `kern`: every horizontal subtable that is neither cross-stream nor
//!   variable (formats 0, 2 and 3), values added up;
//! * GPOS: the lookups of every feature tagged `kern` (their union, each
//!   lookup once, in lookup-list order), pair adjustment subtables only
//!   (lookup type 2, formats 1 and 2; extension lookups are unwrapped by
//!   ttf-parser). Inside one lookup the first subtable that applies to the
//!   pair decides, as a shaper does: a format 1 subtable applies when it
//!   lists the pair, a format 2 subtable whenever it covers the first glyph
//!   (its class 0 row holds the "no kerning" default). The first glyph's
//!   horizontal advance adjustment (`xAdvance`) of each lookup is added up;
//!   device tables (hinting deltas) are ignored.
//!
//! When both sources give a pair a non-zero value, GPOS wins: fonts that
//! carry both usually keep the `kern` table for old software, and GPOS is
//! what modern shapers apply. Pairs whose final value is zero are dropped.

use ttf_parser::gpos::{PairAdjustment, PositioningSubtable};
use ttf_parser::opentype_layout::LayoutTable;
use ttf_parser::{Face, GlyphId, Tag};

use super::face::SelectedGlyph;
use crate::format::hfont::NOTDEF;

/// A kerning pair in font units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitPair {
    /// Codepoint of the first glyph.
    pub left: u32,
    /// Codepoint of the glyph after it.
    pub right: u32,
    /// Font units added to the first glyph's advance.
    pub units: i32,
}

/// Every non-zero pair among `glyphs` (assumed sorted by codepoint), sorted
/// by `(left, right)`.
pub fn kerning_pairs(face: &Face, glyphs: &[SelectedGlyph]) -> Vec<UnitPair> {
    let legacy = LegacyKerning::of(face);
    let gpos = GposKerning::of(face);
    let real: Vec<&SelectedGlyph> = glyphs.iter().filter(|g| g.codepoint != NOTDEF).collect();
    let mut pairs = Vec::new();
    for left in &real {
        for right in &real {
            let units = match gpos.adjustment(left.id, right.id) {
                0 => legacy.adjustment(left.id, right.id),
                value => value,
            };
            if units != 0 {
                pairs.push(UnitPair {
                    left: left.codepoint,
                    right: right.codepoint,
                    units,
                });
            }
        }
    }
    pairs
}

/// The usable subtables of a `kern` table.
struct LegacyKerning<'a> {
    subtables: Vec<ttf_parser::kern::Subtable<'a>>,
}

impl<'a> LegacyKerning<'a> {
    fn of(face: &Face<'a>) -> Self {
        let subtables = face
            .tables()
            .kern
            .map(|table| {
                table
                    .subtables
                    .into_iter()
                    .filter(|s| s.horizontal && !s.variable && !s.has_cross_stream)
                    .filter(|s| !s.has_state_machine)
                    .collect()
            })
            .unwrap_or_default();
        Self { subtables }
    }

    fn adjustment(&self, left: GlyphId, right: GlyphId) -> i32 {
        self.subtables
            .iter()
            .filter_map(|s| s.glyphs_kerning(left, right))
            .map(i32::from)
            .sum()
    }
}

/// The pair adjustment subtables of the GPOS `kern` lookups, one list per
/// lookup.
struct GposKerning<'a> {
    lookups: Vec<Vec<PairAdjustment<'a>>>,
}

impl<'a> GposKerning<'a> {
    fn of(face: &Face<'a>) -> Self {
        let lookups = face
            .tables()
            .gpos
            .map(|table| kern_lookups(&table))
            .unwrap_or_default();
        Self { lookups }
    }

    fn adjustment(&self, left: GlyphId, right: GlyphId) -> i32 {
        self.lookups
            .iter()
            .filter_map(|subtables| {
                subtables
                    .iter()
                    .find_map(|subtable| pair_advance(subtable, left, right))
            })
            .sum()
    }
}

/// The pair adjustment subtables of every lookup a `kern` feature uses.
fn kern_lookups<'a>(table: &LayoutTable<'a>) -> Vec<Vec<PairAdjustment<'a>>> {
    let kern = Tag::from_bytes(b"kern");
    let mut indices: Vec<u16> = table
        .features
        .into_iter()
        .filter(|feature| feature.tag == kern)
        .flat_map(|feature| feature.lookup_indices)
        .collect();
    indices.sort_unstable();
    indices.dedup();
    indices
        .into_iter()
        .filter_map(|index| table.lookups.get(index))
        .map(|lookup| {
            lookup
                .subtables
                .into_iter::<PositioningSubtable>()
                .filter_map(|subtable| match subtable {
                    PositioningSubtable::Pair(pair) => Some(pair),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// The first glyph's advance adjustment if `subtable` applies to the pair.
fn pair_advance(subtable: &PairAdjustment, left: GlyphId, right: GlyphId) -> Option<i32> {
    match subtable {
        PairAdjustment::Format1 { coverage, sets } => {
            let set = sets.get(coverage.get(left)?)?;
            let (first, _) = set.get(right)?;
            Some(i32::from(first.x_advance))
        }
        PairAdjustment::Format2 {
            coverage,
            classes,
            matrix,
        } => {
            coverage.get(left)?;
            let (first, _) = matrix.get((classes.0.get(left), classes.1.get(right)))?;
            Some(i32::from(first.x_advance))
        }
    }
}
