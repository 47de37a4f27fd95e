//! `assetc pack info`: what a `.hpack` holds and where its bytes go.
//!
//! The report has the layout breakdown (header, TOC, payload and alignment
//! padding bytes, which add up to the file size), the entries whose payload
//! another entry with identical bytes stores, the entries and bytes per pack
//! kind, and every entry with its kind, size and offset in path order.
//! `--json` prints a [`PackReport`] (schema `assetc-pack-info/1`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::human_bytes;
use crate::format::error::FormatError;
use crate::format::hpack;
use crate::format::kind::PackKind;
use crate::fsutil::{self, FileError};

/// The JSON schema name and version of [`PackReport`].
pub const PACK_INFO_SCHEMA: &str = "assetc-pack-info/1";

/// Everything `assetc pack info` reports.
#[derive(Debug, Clone, Serialize)]
pub struct PackReport {
    /// Always [`PACK_INFO_SCHEMA`].
    pub schema: &'static str,
    /// The pack, as given.
    pub pack: String,
    /// The format version in the header.
    pub version: u32,
    /// Where the file's bytes go.
    pub layout: Layout,
    /// Entries stored once for several paths.
    pub shared: Shared,
    /// Entries and bytes per pack kind name (every kind listed).
    pub kinds: BTreeMap<&'static str, KindTotals>,
    /// Every entry, sorted by path.
    pub entries: Vec<EntryReport>,
}

/// The file split into its parts; the four parts add up to `file`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Layout {
    /// The whole file.
    pub file: u64,
    /// The fixed header.
    pub header: u64,
    /// The table of contents.
    pub toc: u64,
    /// Entry payloads, a payload several entries share counted once.
    pub payload: u64,
    /// Zero bytes that keep payloads 16-byte aligned.
    pub padding: u64,
}

/// Entries that point at a payload an entry with identical bytes placed.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Shared {
    /// Such entries.
    pub entries: u64,
    /// Their bytes, stored only once: the sum of every entry's size less
    /// `payload`.
    pub bytes: u64,
}

/// Entries and payload bytes of one kind.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct KindTotals {
    /// Entries.
    pub entries: u64,
    /// Their sizes summed (a shared payload counted for each entry).
    pub bytes: u64,
}

/// One TOC entry.
#[derive(Debug, Clone, Serialize)]
pub struct EntryReport {
    /// Path relative to the output root.
    pub path: String,
    /// The pack kind name.
    pub kind: &'static str,
    /// Payload bytes.
    pub size: u64,
    /// Payload offset from the start of the pack.
    pub offset: u64,
}

/// Why `pack info` failed.
#[derive(Debug, thiserror::Error)]
pub enum PackInfoError {
    /// The pack could not be read.
    #[error(transparent)]
    File(#[from] FileError),
    /// The pack is not a valid `.hpack`.
    #[error("{}: not a valid .hpack", path.display())]
    Invalid {
        /// The pack.
        path: std::path::PathBuf,
        /// The reader's error, with byte offset and field.
        #[source]
        source: FormatError,
    },
}

/// Parses and fully validates `bytes`, the pack read from `path`; an
/// invalid pack is an error naming the file.
pub fn parse_named<'a>(path: &Path, bytes: &'a [u8]) -> Result<hpack::Pack<'a>, PackInfoError> {
    hpack::parse(bytes).map_err(|source| PackInfoError::Invalid {
        path: path.to_owned(),
        source,
    })
}

/// Reads and breaks down the pack at `path`.
pub fn inspect(path: &Path) -> Result<PackReport, PackInfoError> {
    let bytes = fsutil::read(path)?;
    let pack = parse_named(path, &bytes)?;
    let mut kinds: BTreeMap<&'static str, KindTotals> = PackKind::ALL
        .map(|kind| (kind.name(), KindTotals::default()))
        .into();
    let entries = pack
        .iter()
        .map(|entry| {
            let totals = kinds.entry(entry.kind.name()).or_default();
            totals.entries += 1;
            totals.bytes += entry.size;
            EntryReport {
                path: entry.path.to_owned(),
                kind: entry.kind.name(),
                size: entry.size,
                offset: entry.offset,
            }
        })
        .collect();
    Ok(PackReport {
        schema: PACK_INFO_SCHEMA,
        pack: path.display().to_string(),
        version: pack.header().version,
        layout: Layout {
            file: pack.file_bytes(),
            header: pack.header_bytes(),
            toc: pack.toc_bytes(),
            payload: pack.payload_bytes(),
            padding: pack.padding_bytes(),
        },
        shared: Shared {
            entries: pack.shared_entries() as u64,
            bytes: pack.entry_bytes() - pack.payload_bytes(),
        },
        kinds,
        entries,
    })
}

/// The report as text: layout, kinds, then one line per entry.
pub fn render_text(report: &PackReport) -> String {
    let l = &report.layout;
    let mut out = format!(
        "{}: HPAK v{}, {} entries, {}\n",
        report.pack,
        report.version,
        report.entries.len(),
        human_bytes(l.file)
    );
    let _ = writeln!(
        out,
        "layout: header {} B, toc {} B, payload {} B, padding {} B",
        l.header, l.toc, l.payload, l.padding
    );
    if report.shared.entries > 0 {
        let _ = writeln!(
            out,
            "shared: {} entries reuse an identical entry's payload, {} B not stored again",
            report.shared.entries, report.shared.bytes
        );
    }
    out.push_str("kinds:\n");
    for (kind, totals) in report.kinds.iter().filter(|(_, t)| t.entries > 0) {
        let _ = writeln!(
            out,
            "  {kind:<9}  {:>5}  {:>9}",
            totals.entries,
            human_bytes(totals.bytes)
        );
    }
    out.push_str("entries:\n");
    let width = report
        .entries
        .iter()
        .map(|e| e.path.len())
        .max()
        .unwrap_or(0);
    for entry in &report.entries {
        let _ = writeln!(
            out,
            "  {:<9}  {:<width$}  {:>9}  @{}",
            entry.kind,
            entry.path,
            human_bytes(entry.size),
            entry.offset
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hpack::{PackItem, write_pack};

    fn item<'a>(path: &'a str, data: &'a [u8]) -> PackItem<'a> {
        PackItem::new(path, data)
    }

    #[test]
    fn a_shared_payload_is_counted_once_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.hpack");
        let texture: &[u8] = &[9; 100];
        let items = [
            item("a/tex_0.ktx2", texture),
            item("b/tex_0.ktx2", texture),
            item("c/tex_0.ktx2", texture),
            item("d.bin", b"d"),
        ];
        std::fs::write(&path, write_pack(&items).unwrap()).unwrap();
        let report = inspect(&path).unwrap();
        assert_eq!((report.shared.entries, report.shared.bytes), (2, 200));
        let l = report.layout;
        assert_eq!(l.payload, 101);
        assert_eq!(l.header + l.toc + l.payload + l.padding, l.file);
        assert_eq!(report.kinds["texture"].bytes, 300);
        assert!(
            render_text(&report).contains(
                "shared: 2 entries reuse an identical entry's payload, 200 B not stored again\n"
            ),
            "{}",
            render_text(&report)
        );
    }

    #[test]
    fn a_pack_without_sharing_prints_no_shared_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.hpack");
        let items = [item("a.bin", b"a"), item("b.bin", b"b")];
        std::fs::write(&path, write_pack(&items).unwrap()).unwrap();
        let report = inspect(&path).unwrap();
        assert_eq!((report.shared.entries, report.shared.bytes), (0, 0));
        assert!(!render_text(&report).contains("shared:"));
    }
}
