//! `assetc pack info`: what a `.hpack` holds and where its bytes go.
//!
//! The report has the layout breakdown (header, TOC, payload and alignment
//! padding bytes, which add up to the file size), the entries and bytes per
//! pack kind, and every entry with its kind, size and offset in path order.
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
    /// Entry payloads.
    pub payload: u64,
    /// Zero bytes that keep payloads 16-byte aligned.
    pub padding: u64,
}

/// Entries and payload bytes of one kind.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct KindTotals {
    /// Entries.
    pub entries: u64,
    /// Payload bytes.
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

/// Reads and breaks down the pack at `path`.
pub fn inspect(path: &Path) -> Result<PackReport, PackInfoError> {
    let bytes = fsutil::read(path)?;
    let pack = hpack::parse(&bytes).map_err(|source| PackInfoError::Invalid {
        path: path.to_owned(),
        source,
    })?;
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
