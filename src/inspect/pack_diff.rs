//! `assetc pack diff OLD NEW`: what changed between two packs, and what an
//! update from one to the other would have to ship.
//!
//! Both packs are read once and fully validated. Entries are compared by
//! path, kind and bytes ([`patch::compare`]): the report lists the added,
//! removed and changed ones (with both sizes), counts the unchanged ones, and
//! sums the payload a patch pack would hold (added plus changed entries,
//! which is what `assetc pack patch` writes).
//!
//! It also figures what a content-addressed chunk patcher (one that cuts
//! files into fixed-size chunks and ships each chunk the client does not
//! already hold, as Steam's depots do) would ship: NEW is cut into chunks at
//! every multiple of the chunk size (the last one shorter), OLD likewise, and
//! a chunk of NEW is shipped unless some chunk of OLD, anywhere in the file,
//! has the same length and BLAKE3 hash. `--json` prints a [`DiffReport`]
//! (schema `assetc-pack-diff/1`).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::human_bytes;
use super::pack_info::{PackInfoError, parse_named};
use crate::format::hpack::{Pack, PackEntry};
use crate::format::patch::{self, PackComparison};
use crate::fsutil;

/// The JSON schema name and version of [`DiffReport`].
pub const PACK_DIFF_SCHEMA: &str = "assetc-pack-diff/1";

/// The chunk sizes the patcher figures are given for: 64 KiB and 1 MiB.
pub const CHUNK_SIZES: [u64; 2] = [64 << 10, 1 << 20];

/// Everything `assetc pack diff` reports.
#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    /// Always [`PACK_DIFF_SCHEMA`].
    pub schema: &'static str,
    /// The old pack.
    pub old: PackSide,
    /// The new pack.
    pub new: PackSide,
    /// Entries only the new pack holds, by path.
    pub added: Vec<EntrySize>,
    /// Entries only the old pack holds, by path.
    pub removed: Vec<EntrySize>,
    /// Paths both hold with other bytes (or kind), by path.
    pub changed: Vec<ChangedSize>,
    /// Entries both hold alike.
    pub unchanged: Totals,
    /// Payload bytes of the added and changed entries: what a patch pack
    /// holds besides its list of removed paths.
    pub patch_bytes: u64,
    /// The chunk patcher's figures, one per size of [`CHUNK_SIZES`].
    pub chunks: Vec<ChunkFigures>,
}

/// One of the two packs compared.
#[derive(Debug, Clone, Serialize)]
pub struct PackSide {
    /// The file, as given.
    pub pack: String,
    /// Its entries.
    pub entries: u64,
    /// Its size.
    pub bytes: u64,
}

/// An entry only one pack holds.
#[derive(Debug, Clone, Serialize)]
pub struct EntrySize {
    /// Path relative to the output root.
    pub path: String,
    /// The pack kind name.
    pub kind: &'static str,
    /// Payload bytes.
    pub size: u64,
}

/// An entry both packs hold, with other bytes or kind.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedSize {
    /// Path relative to the output root.
    pub path: String,
    /// The new pack's kind name.
    pub kind: &'static str,
    /// Payload bytes in the old pack.
    pub old_size: u64,
    /// Payload bytes in the new pack.
    pub new_size: u64,
}

/// Entries and their payload bytes.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Totals {
    /// Entries.
    pub entries: u64,
    /// Their sizes summed.
    pub bytes: u64,
}

/// What a chunk patcher of one chunk size would ship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ChunkFigures {
    /// The chunk size in bytes.
    pub chunk_size: u64,
    /// Chunks the new pack is cut into.
    pub chunks: u64,
    /// Those no chunk of the old pack matches.
    pub shipped: u64,
    /// Their bytes.
    pub shipped_bytes: u64,
}

/// Reads, validates and compares the packs at `old` and `new`.
pub fn diff(old: &Path, new: &Path) -> Result<DiffReport, PackInfoError> {
    let old_bytes = fsutil::read(old)?;
    let new_bytes = fsutil::read(new)?;
    let old_pack = parse_named(old, &old_bytes)?;
    let new_pack = parse_named(new, &new_bytes)?;
    let comparison = patch::compare(&old_pack, &new_pack);
    let mut report = entry_report(&comparison, side(old, &old_pack), side(new, &new_pack));
    report.chunks = CHUNK_SIZES
        .iter()
        .map(|&size| chunk_figures(&old_bytes, &new_bytes, size))
        .collect();
    Ok(report)
}

/// The facts of one pack the report starts with.
fn side(path: &Path, pack: &Pack<'_>) -> PackSide {
    PackSide {
        pack: path.display().to_string(),
        entries: pack.len() as u64,
        bytes: pack.file_bytes(),
    }
}

/// The report of the entries, without chunk figures.
fn entry_report(comparison: &PackComparison<'_, '_>, old: PackSide, new: PackSide) -> DiffReport {
    let added: Vec<EntrySize> = comparison.added.iter().map(entry_size).collect();
    let changed: Vec<ChangedSize> = comparison
        .changed
        .iter()
        .map(|changed| ChangedSize {
            path: changed.new.path.to_owned(),
            kind: changed.new.kind.name(),
            old_size: changed.old.size,
            new_size: changed.new.size,
        })
        .collect();
    let patch_bytes = added.iter().map(|entry| entry.size).sum::<u64>()
        + changed.iter().map(|entry| entry.new_size).sum::<u64>();
    DiffReport {
        schema: PACK_DIFF_SCHEMA,
        old,
        new,
        added,
        removed: comparison.removed.iter().map(entry_size).collect(),
        changed,
        unchanged: Totals {
            entries: comparison.unchanged.len() as u64,
            bytes: comparison.unchanged.iter().map(|entry| entry.size).sum(),
        },
        patch_bytes,
        chunks: Vec::new(),
    }
}

/// The report line of an added or removed entry.
fn entry_size(entry: &PackEntry<'_>) -> EntrySize {
    EntrySize {
        path: entry.path.to_owned(),
        kind: entry.kind.name(),
        size: entry.size,
    }
}

/// The chunks of `new`, cut every `chunk_size` bytes, that no chunk of `old`
/// cut the same way matches by length and BLAKE3 hash.
fn chunk_figures(old: &[u8], new: &[u8], chunk_size: u64) -> ChunkFigures {
    let size = usize::try_from(chunk_size).unwrap_or(usize::MAX);
    let held: HashSet<(usize, blake3::Hash)> = old
        .chunks(size)
        .map(|chunk| (chunk.len(), blake3::hash(chunk)))
        .collect();
    let mut figures = ChunkFigures {
        chunk_size,
        chunks: 0,
        shipped: 0,
        shipped_bytes: 0,
    };
    for chunk in new.chunks(size) {
        figures.chunks += 1;
        if !held.contains(&(chunk.len(), blake3::hash(chunk))) {
            figures.shipped += 1;
            figures.shipped_bytes += chunk.len() as u64;
        }
    }
    figures
}

/// The report as text: the two packs, a line per category, the patch and
/// chunk figures, then the entries of each category.
pub fn render_text(report: &DiffReport) -> String {
    let mut out = format!("{} -> {}\n", report.old.pack, report.new.pack);
    let sum = |entries: &[EntrySize]| entries.iter().map(|e| e.size).sum::<u64>();
    let changed_old: u64 = report.changed.iter().map(|e| e.old_size).sum();
    let changed_new: u64 = report.changed.iter().map(|e| e.new_size).sum();
    let rows = [
        ("old", report.old.entries, report.old.bytes, String::new()),
        ("new", report.new.entries, report.new.bytes, String::new()),
        (
            "added",
            report.added.len() as u64,
            sum(&report.added),
            String::new(),
        ),
        (
            "removed",
            report.removed.len() as u64,
            sum(&report.removed),
            String::new(),
        ),
        (
            "changed",
            report.changed.len() as u64,
            changed_new,
            format!(" (was {})", human_bytes(changed_old)),
        ),
        (
            "unchanged",
            report.unchanged.entries,
            report.unchanged.bytes,
            String::new(),
        ),
    ];
    out.push_str("             entries      bytes\n");
    for (name, entries, bytes, note) in rows {
        let _ = writeln!(
            out,
            "  {name:<9}  {entries:>7}  {:>9}{note}",
            human_bytes(bytes)
        );
    }
    let _ = writeln!(
        out,
        "patch payload (added + changed): {} ({} B)",
        human_bytes(report.patch_bytes),
        report.patch_bytes
    );
    for figures in &report.chunks {
        let _ = writeln!(
            out,
            "chunks of {}: {} of {} shipped, {} ({} B)",
            human_bytes(figures.chunk_size),
            figures.shipped,
            figures.chunks,
            human_bytes(figures.shipped_bytes),
            figures.shipped_bytes
        );
    }
    render_entries(&mut out, report);
    out
}

/// The entry lists, each under its category's name, empty ones left out.
fn render_entries(out: &mut String, report: &DiffReport) {
    let width = report
        .added
        .iter()
        .chain(&report.removed)
        .map(|e| e.path.len())
        .chain(report.changed.iter().map(|e| e.path.len()))
        .max()
        .unwrap_or(0);
    for (title, entries) in [("added", &report.added), ("removed", &report.removed)] {
        if !entries.is_empty() {
            let _ = writeln!(out, "{title}:");
        }
        for entry in entries {
            let _ = writeln!(
                out,
                "  {:<9}  {:<width$}  {} B",
                entry.kind, entry.path, entry.size
            );
        }
    }
    if !report.changed.is_empty() {
        out.push_str("changed:\n");
    }
    for entry in &report.changed {
        let _ = writeln!(
            out,
            "  {:<9}  {:<width$}  {} B -> {} B",
            entry.kind, entry.path, entry.old_size, entry.new_size
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len` pseudo-random bytes from `seed` (BLAKE3's extendable output).
    fn noise(len: usize, seed: u8) -> Vec<u8> {
        let mut bytes = vec![0; len];
        blake3::Hasher::new()
            .update(&[seed])
            .finalize_xof()
            .fill(&mut bytes);
        bytes
    }

    #[test]
    fn a_chunk_is_shipped_unless_the_old_file_holds_it_anywhere() {
        let a = noise(100, 1);
        let b = noise(100, 2);
        let c = noise(100, 3);
        let old = [a.clone(), b.clone()].concat();
        // [b, a, c, a[..40]]: b and a are held (in another place), c is not,
        // and the short tail matches no chunk of the old file.
        let new = [b, a.clone(), c, a[..40].to_vec()].concat();
        let figures = chunk_figures(&old, &new, 100);
        assert_eq!(
            figures,
            ChunkFigures {
                chunk_size: 100,
                chunks: 4,
                shipped: 2,
                shipped_bytes: 140
            }
        );
        // A short last chunk matches a short last chunk of the same bytes.
        let figures = chunk_figures(&[old.clone(), a[..40].to_vec()].concat(), &new, 100);
        assert_eq!((figures.shipped, figures.shipped_bytes), (1, 100));
        assert_eq!(chunk_figures(&old, &[], 100).chunks, 0);
    }

    #[test]
    fn identical_files_ship_nothing() {
        let file = noise(1000, 9);
        let figures = chunk_figures(&file, &file, 64);
        assert_eq!(
            (figures.chunks, figures.shipped, figures.shipped_bytes),
            (16, 0, 0)
        );
    }
}
