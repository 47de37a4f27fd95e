//! `assetc info`: per-file figures for an output folder, then totals.
//!
//! Read-only: nothing is compiled or written. The text form is for people;
//! `--json` prints an [`InfoReport`] (schema `assetc-info/1`, documented in
//! `docs/inspect.md`). Files that claim one of our formats but do not parse
//! are listed with their error and make the command exit non-zero.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use walkdir::WalkDir;

use super::human_bytes;
use super::stats::{self, AtlasStats, Details, FileReport, SoundStats};
use crate::format::hman;
use crate::format::hman::MANIFEST_FILE;
use crate::format::kind::AssetKind;
use crate::fsutil::{self, FileError};

/// The JSON schema name and version of [`InfoReport`].
pub const INFO_SCHEMA: &str = "assetc-info/1";

/// Everything `assetc info` found.
#[derive(Debug, Clone, Serialize)]
pub struct InfoReport {
    /// Always [`INFO_SCHEMA`].
    pub schema: &'static str,
    /// The folder inspected, as given.
    pub root: String,
    /// Every file below it, sorted by path.
    pub files: Vec<FileReport>,
    /// Sums over `files`.
    pub totals: Totals,
}

/// Sums over every file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Files.
    pub files: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// Files that failed to parse.
    pub invalid: u64,
    /// Files and bytes per `type`.
    pub by_type: BTreeMap<&'static str, TypeTotals>,
    /// Mesh vertices.
    pub vertices: u64,
    /// Mesh triangles (full resolution).
    pub triangles: u64,
    /// Meshlets.
    pub meshlets: u64,
    /// Submeshes.
    pub submeshes: u64,
    /// Material rows.
    pub material_rows: u64,
    /// Manifest entries.
    pub manifest_entries: u64,
    /// Animation clips.
    pub clips: u64,
    /// Animation channels.
    pub channels: u64,
    /// Texels over every texture's mip chain, faces and layers.
    pub texels: u64,
    /// Font glyphs.
    pub glyphs: u64,
}

/// Files and bytes of one type.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct TypeTotals {
    /// Files.
    pub files: u64,
    /// Bytes on disk.
    pub bytes: u64,
}

/// Why `info` could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum InfoError {
    /// The folder does not exist or is not a folder.
    #[error("{}: not a folder (build first, or pass -o)", .0.display())]
    NotAFolder(std::path::PathBuf),
    /// A file or folder could not be read.
    #[error(transparent)]
    File(#[from] FileError),
    /// The walk failed.
    #[error("{}: cannot list: {source}", path.display())]
    Walk {
        /// Where.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: walkdir::Error,
    },
}

/// Inspects every file below `root`.
pub fn inspect(root: &Path) -> Result<InfoReport, InfoError> {
    if !root.is_dir() {
        return Err(InfoError::NotAFolder(root.to_owned()));
    }
    let kinds = listed_kinds(root);
    let mut files = Vec::new();
    for entry in WalkDir::new(root).sort_by_file_name() {
        let entry = entry.map_err(|source| InfoError::Walk {
            path: source.path().unwrap_or(root).to_owned(),
            source,
        })?;
        if entry.file_type().is_file() {
            let bytes = fsutil::read(entry.path())?;
            let rel = fsutil::slash_relative(root, entry.path())
                .unwrap_or_else(|| entry.path().display().to_string());
            let listed = kinds.get(&rel).copied();
            files.push(stats::analyse(&rel, &bytes, listed));
        }
    }
    let totals = totals(&files);
    Ok(InfoReport {
        schema: INFO_SCHEMA,
        root: root.display().to_string(),
        files,
        totals,
    })
}

/// The kind the root's manifest gives each path; empty when there is no
/// readable manifest (the manifest itself is then reported as invalid).
fn listed_kinds(root: &Path) -> HashMap<String, AssetKind> {
    let Ok(bytes) = std::fs::read(root.join(MANIFEST_FILE)) else {
        return HashMap::new();
    };
    hman::parse(&bytes)
        .map(|manifest| {
            manifest
                .iter()
                .map(|entry| (entry.path.to_owned(), entry.kind))
                .collect()
        })
        .unwrap_or_default()
}

/// The `type` name of a report, as in the JSON.
pub fn type_name(details: &Details) -> &'static str {
    match details {
        Details::Mesh(_) => "mesh",
        Details::Material(_) => "material",
        Details::Manifest(_) => "manifest",
        Details::Animation(_) => "animation",
        Details::Texture(_) => "texture",
        Details::Font(_) => "font",
        Details::Pack(_) => "pack",
        Details::Sound(_) => "sound",
        Details::Atlas(_) => "atlas",
        Details::Shader(_) => "shader",
        Details::Embed => "embed",
        Details::Other => "other",
        Details::Invalid { .. } => "invalid",
    }
}

/// Sums over `files`, as `assetc info` reports them.
pub fn totals(files: &[FileReport]) -> Totals {
    let mut t = Totals::default();
    for file in files {
        t.files += 1;
        t.bytes += file.bytes;
        let by_type = t.by_type.entry(type_name(&file.details)).or_default();
        by_type.files += 1;
        by_type.bytes += file.bytes;
        match &file.details {
            Details::Mesh(m) => {
                t.vertices += m.vertices;
                t.triangles += m.triangles;
                t.meshlets += m.meshlets;
                t.submeshes += m.submeshes;
            }
            Details::Material(m) => t.material_rows += m.rows,
            Details::Manifest(m) => t.manifest_entries += m.entries,
            Details::Animation(a) => {
                t.clips += a.clips.len() as u64;
                t.channels += a.channels;
            }
            Details::Texture(x) => t.texels = t.texels.saturating_add(x.texels),
            Details::Font(f) => t.glyphs += f.glyphs,
            Details::Invalid { .. } => t.invalid += 1,
            Details::Pack(_)
            | Details::Sound(_)
            | Details::Atlas(_)
            | Details::Shader(_)
            | Details::Embed
            | Details::Other => {}
        }
    }
    t
}

/// The report as aligned text: one line per file, then the totals.
pub fn render_text(report: &InfoReport) -> String {
    let t = &report.totals;
    let mut out = format!(
        "{}: {} files, {}\n",
        report.root,
        t.files,
        human_bytes(t.bytes)
    );
    let width = report.files.iter().map(|f| f.path.len()).max().unwrap_or(0);
    for file in &report.files {
        let line = format!(
            "  {:<width$}  {:<9}  {:>9}  {}",
            file.path,
            type_name(&file.details),
            human_bytes(file.bytes),
            describe(&file.details)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out.push_str("totals:\n");
    for (name, by_type) in &t.by_type {
        let line = format!(
            "  {:<9}  {:<9}  {:>9}  {}",
            name,
            count(by_type.files, "file", "files"),
            human_bytes(by_type.bytes),
            type_totals(name, t)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// One file's figures on one line.
fn describe(details: &Details) -> String {
    match details {
        Details::Mesh(m) => {
            let mut line = format!(
                "{}, {} (u{}), {}, {}, {}",
                count(m.vertices, "vertex", "vertices"),
                count(m.triangles, "triangle", "triangles"),
                m.index_bits,
                count(m.meshlets, "meshlet", "meshlets"),
                count(m.submeshes, "submesh", "submeshes"),
                count(m.materials, "material", "materials"),
            );
            if m.lods > 0 {
                let tris: Vec<String> = m.lod_triangles.iter().map(u64::to_string).collect();
                let _ = write!(line, ", {} LODs ({} triangles)", m.lods, tris.join("/"));
            }
            if m.joints > 0 {
                let _ = write!(line, ", skinned ({} joints)", m.joints);
            }
            let size = |axis: usize| m.bounds.max[axis] - m.bounds.min[axis];
            let _ = write!(
                line,
                ", box {:.2} x {:.2} x {:.2}, radius {:.2}",
                size(0),
                size(1),
                size(2),
                m.bounds.radius
            );
            line
        }
        Details::Material(m) => {
            let used: Vec<String> = m
                .slots
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(slot, n)| format!("{slot} {n}"))
                .collect();
            let modes: Vec<String> = m
                .alpha_modes
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(mode, n)| format!("{mode} {n}"))
                .collect();
            format!(
                "{}; textures: {}; alpha: {}; double-sided {}",
                count(m.rows, "row", "rows"),
                list_or_none(&used),
                list_or_none(&modes),
                m.double_sided
            )
        }
        Details::Manifest(m) => {
            let kinds: Vec<String> = m
                .kinds
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            let spaces: Vec<String> = m
                .color_spaces
                .iter()
                .map(|(space, n)| format!("{space} {n}"))
                .collect();
            format!(
                "{} entries: {}; {}",
                m.entries,
                list_or_none(&kinds),
                spaces.join(", ")
            )
        }
        Details::Animation(a) => {
            let names: Vec<&str> = a.clips.iter().map(|c| c.name.as_str()).collect();
            format!(
                "{} [{}], {}, {}, up to {:.2} s",
                count(a.clips.len() as u64, "clip", "clips"),
                names.join(", "),
                count(a.channels, "channel", "channels"),
                count(a.keys, "key", "keys"),
                a.duration
            )
        }
        Details::Texture(x) => {
            let mut dims = format!("{}x{}", x.width, x.height);
            if x.depth > 1 {
                let _ = write!(dims, "x{}", x.depth);
            }
            let block = match (&x.block, x.bits_per_texel) {
                (Some(block), Some(bits)) => format!(" ({block} blocks, {bits:.2} bpp)"),
                _ => String::new(),
            };
            let mut line = format!(
                "{dims} {}{block}, {}, supercompression {}, transfer {}",
                x.format,
                count(u64::from(x.mips), "mip", "mips"),
                x.supercompression,
                x.transfer
            );
            if x.faces > 1 {
                let _ = write!(line, ", {} faces", x.faces);
            }
            if x.layers > 1 {
                let _ = write!(line, ", {} layers", x.layers);
            }
            if let Some(sh) = &x.irradiance_sh {
                let [r, g, b] = sh[0].map(|c| c * 0.282_095);
                let _ = write!(line, ", irradiance SH (mean {r:.3} {g:.3} {b:.3})");
            }
            if let Some(sampler) = &x.sampler {
                let _ = write!(line, ", {sampler} filter");
            }
            if let Some(choice) = &x.choice {
                let _ = write!(line, " [{choice}]");
            }
            line
        }
        Details::Font(f) => format!(
            "{}, {}, atlas {} ({}x{} {}), line {:.3} em",
            count(f.glyphs, "glyph", "glyphs"),
            count(f.kerning_pairs, "kerning pair", "kerning pairs"),
            f.atlas,
            f.atlas_width,
            f.atlas_height,
            match (f.bitmap, f.msdf) {
                (false, false) => "SDF",
                (false, true) => "MSDF",
                (true, false) => "bitmap",
                (true, true) => "RGBA bitmap",
            },
            f.line_advance
        ),
        Details::Pack(p) => format!(
            "{}, {} of payload",
            count(p.entries, "entry", "entries"),
            human_bytes(p.payload)
        ),
        Details::Sound(s) => describe_sound(s),
        Details::Atlas(a) => describe_atlas(a),
        Details::Shader(s) => format!("SPIR-V {}, {}", s.spirv, s.entry_points.join(", ")),
        Details::Embed | Details::Other => String::new(),
        Details::Invalid { format, error } => format!("not a valid {format} file: {error}"),
    }
}

/// A sound record on one line: codec, rate, channels, length, loop, loudness.
fn describe_sound(s: &SoundStats) -> String {
    let mut line = format!(
        "{}, {} Hz, {}, {:.3} s",
        s.codec,
        s.rate,
        count(u64::from(s.channels), "channel", "channels"),
        s.seconds
    );
    if let Some([start, end]) = s.loop_frames {
        let _ = write!(line, ", loop {start}..{end}");
    }
    if let (Some(lufs), Some(peak)) = (s.loudness, s.true_peak) {
        let _ = write!(line, ", {lufs:.1} LUFS, {peak:.1} dBTP");
    }
    let _ = write!(line, ", sound {}", s.sound);
    line
}

/// A sprite table on one line: sprites, pages, packing, the texture.
fn describe_atlas(a: &AtlasStats) -> String {
    let mut line = format!(
        "{}, {} of {}x{}, {:.1}% packed",
        count(
            a.sprites,
            if a.animation { "frame" } else { "sprite" },
            if a.animation { "frames" } else { "sprites" }
        ),
        count(u64::from(a.pages), "page", "pages"),
        a.page_width,
        a.page_height,
        a.efficiency * 100.0
    );
    if a.rotated > 0 {
        let _ = write!(line, ", {} turned", a.rotated);
    }
    if a.nearest {
        line.push_str(", nearest filter");
    }
    let _ = write!(line, ", pages {}", a.atlas_tex);
    line
}

fn type_totals(name: &str, t: &Totals) -> String {
    match name {
        "mesh" => format!(
            "{} vertices, {} triangles, {} meshlets, {} submeshes",
            t.vertices, t.triangles, t.meshlets, t.submeshes
        ),
        "material" => format!("{} rows", t.material_rows),
        "manifest" => format!("{} entries", t.manifest_entries),
        "animation" => format!(
            "{}, {}",
            count(t.clips, "clip", "clips"),
            count(t.channels, "channel", "channels")
        ),
        "texture" => format!("{} texels", t.texels),
        "font" => count(t.glyphs, "glyph", "glyphs"),
        _ => String::new(),
    }
}

/// `n` with the noun in the right number: `1 mip`, `6 mips`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
