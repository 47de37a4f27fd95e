//! `assetc-link check`: is this output folder (and its pack) consistent?
//!
//! It reads only the output folder, never the build folder, so it works as a CI
//! gate on any tree. The rules:
//! * `assets.hman` is a valid manifest;
//! * every entry's file exists and its id follows its kind's rule;
//! * every texture and LUT is a structurally valid KTX2 file, and every mesh,
//!   material table, animation and font passes its format's validator, and
//!   every shader is SPIR-V that naga parses and validates;
//! * the files of one mesh source agree: the `.hmat` has exactly one row per
//!   material slot of its `.hmesh`, every texture a row names is a texture in
//!   the manifest, and every joint a `.hanim` animates exists in the
//!   `.hmesh` skeleton (which must exist);
//! * every `.hfont`'s atlas id is a texture in the manifest whose level 0 is
//!   the size the font declares;
//! * every `.hatlas` sprite table is valid and its pages are a texture array
//!   of the page size and count it states ([`super::check_atlases`]);
//! * every `.hsnd` sound record is valid and its sound decodes to the rate,
//!   channels, frames and loop it states ([`super::check_sounds`]);
//! * every other file in the folder is listed (else it is an orphan that no
//!   job produced);
//! * with `--pack`: the pack is valid, holds exactly the listed files plus the
//!   manifest, byte for byte as in the folder, each tagged with its kind.
//!
//! The id files `assets.h` and `assets.rs` that `assetc-link ids` writes to
//! the folder's top are not orphans. Given the build's fragments
//! ([`check_with`]), the check also compares every file with the hash its
//! encoder recorded and every embedded file with its source
//! ([`Recorded`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use walkdir::WalkDir;

use super::check_atlases::{self, Tables, TextureShape};
use super::check_sounds::{self, Records};
use super::ids::{C_HEADER_FILE, RUST_MODULE_FILE};
use super::problem::Problem;
use super::recorded::Recorded;
use crate::format::hman::MANIFEST_FILE;
use crate::format::kind::{AssetKind, PackKind};
use crate::format::{hanim, hatlas, hfont, hman, hmat, hmesh, hpack, hsnd, ktx2};
use crate::fsutil;

/// Totals of a successful check.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Manifest entries.
    pub entries: usize,
    /// Pack entries, when a pack was checked.
    pub pack_entries: Option<usize>,
}

/// Checks `root` (and `pack`, if given). Returns every problem found.
pub fn check(root: &Path, pack: Option<&Path>) -> Result<Summary, Vec<Problem>> {
    check_with(root, pack, None)
}

/// Checks `root` (and `pack`), and with `recorded`, every file against what
/// the build recorded. Returns every problem found.
pub fn check_with(
    root: &Path,
    pack: Option<&Path>,
    recorded: Option<&Recorded>,
) -> Result<Summary, Vec<Problem>> {
    let mut problems = Vec::new();
    if let Some(recorded) = recorded {
        problems.extend(recorded.load_problems.iter().cloned());
    }
    if let Some(recorded) = recorded.filter(|_| build_unfinished(root)) {
        let listed = check_unfinished(root, recorded, &mut problems);
        report_orphans(root, &listed, Some(recorded), &mut problems);
        problems.sort();
        return Err(problems);
    }
    let manifest_path = root.join(MANIFEST_FILE);
    let manifest_bytes = read_or_report(&manifest_path, &mut problems);
    let listed = manifest_bytes
        .as_deref()
        .map(|b| check_manifest(root, &manifest_path, b, recorded, &mut problems))
        .unwrap_or_default();
    report_orphans(root, &listed, recorded, &mut problems);
    let pack_entries = pack.and_then(|p| check_pack(root, p, &listed, recorded, &mut problems));
    if problems.is_empty() {
        Ok(Summary {
            entries: listed.len(),
            pack_entries,
        })
    } else {
        problems.sort();
        Err(problems)
    }
}

fn problem(problems: &mut Vec<Problem>, path: impl Into<String>, what: impl Into<String>) {
    problems.push(Problem {
        path: path.into(),
        what: what.into(),
    });
}

fn read_or_report(path: &Path, problems: &mut Vec<Problem>) -> Option<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| {
            problem(
                problems,
                path.display().to_string(),
                format!("cannot read: {e}"),
            )
        })
        .ok()
}

/// Whether the build of `root` stopped before its link: the manifest is
/// missing (a strict build deletes it, and its packs, when an encoder
/// fails). Only meaningful when the build's fragments are known.
pub fn build_unfinished(root: &Path) -> bool {
    !root.join(MANIFEST_FILE).exists()
}

/// Checks what a build that stopped early produced: one problem says the
/// build did not finish and names the edges without a fragment (failed, or
/// never run); every file the built fragments register is checked against
/// its format and recorded hash. The cross-file rules wait for a whole
/// build. Returns the runtime paths registered.
fn check_unfinished(
    root: &Path,
    recorded: &Recorded,
    problems: &mut Vec<Problem>,
) -> BTreeSet<String> {
    problem(
        problems,
        MANIFEST_FILE,
        unfinished_message(recorded.unfinished()),
    );
    let mut refs = CrossRefs::default();
    let mut listed = BTreeSet::new();
    for entry in recorded.built_entries() {
        match std::fs::read(root.join(&entry.path)) {
            Ok(file) => {
                recorded.check_output(&entry.path, &file, problems);
                check_entry_file(&entry.path, &file, entry.kind, &mut refs, problems);
            }
            Err(_) => problem(
                problems,
                &entry.path,
                "its fragment lists it but it is missing",
            ),
        }
        listed.insert(entry.path.clone());
    }
    listed
}

/// How many edges a list shows by name in a message.
const NAMES_SHOWN: usize = 10;

/// The problem of an unfinished build, naming up to [`NAMES_SHOWN`] of the
/// edges whose fragment is missing (by fragment path, as the list has it).
fn unfinished_message(missing: &[String]) -> String {
    let mut what = String::from("missing: the build did not finish");
    if !missing.is_empty() {
        let names: Vec<&str> = missing
            .iter()
            .take(NAMES_SHOWN)
            .map(|f| edge_name(f))
            .collect();
        let more = missing.len().saturating_sub(NAMES_SHOWN);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        what += &format!(
            "; {} edges failed or never ran: {}{tail}",
            missing.len(),
            names.join(", ")
        );
    }
    what + "; run ninja to see the errors, and check again once it succeeds"
}

/// The edge a fragment path belongs to: `<build>/frag/<edge>.frag` gives
/// `<edge>` (the source, or `<source>.tex_<i>` for a mesh's image).
fn edge_name(fragment: &str) -> &str {
    let name = fragment
        .rsplit_once("frag/")
        .map_or(fragment, |(_, name)| name);
    name.strip_suffix(".frag").unwrap_or(name)
}

/// Validates the manifest and its entries; returns the listed runtime paths.
fn check_manifest(
    root: &Path,
    path: &Path,
    bytes: &[u8],
    recorded: Option<&Recorded>,
    problems: &mut Vec<Problem>,
) -> BTreeSet<String> {
    let manifest = match hman::parse(bytes) {
        Ok(m) => m,
        Err(e) => {
            problem(problems, path.display().to_string(), e.to_string());
            return BTreeSet::new();
        }
    };
    let mut listed = BTreeSet::new();
    let mut meshes = CrossRefs::default();
    for entry in manifest.iter() {
        let expected = entry.kind.id_for_path(entry.path);
        if entry.hash != expected {
            problem(
                problems,
                entry.path,
                format!(
                    "manifest id {:#018x} does not follow the {} rule (expected {expected:#018x})",
                    entry.hash,
                    entry.kind.name()
                ),
            );
        }
        if entry.kind == AssetKind::Texture {
            meshes.textures.insert(entry.hash);
        }
        meshes.paths.insert(entry.hash, entry.path.to_owned());
        let Ok(file) = std::fs::read(root.join(entry.path)) else {
            problem(problems, entry.path, "listed in the manifest but missing");
            listed.insert(entry.path.to_string());
            continue;
        };
        if let Some(recorded) = recorded {
            recorded.check_output(entry.path, &file, problems);
        }
        check_entry_file(entry.path, &file, entry.kind, &mut meshes, problems);
        listed.insert(entry.path.to_string());
    }
    meshes.cross_check(problems);
    check_sounds::check_sounds(root, &meshes.sounds, &meshes.paths, problems);
    check_atlases::check_atlases(
        &meshes.atlases,
        &meshes.paths,
        &meshes.texture_shapes,
        problems,
    );
    listed
}

fn check_entry_file(
    path: &str,
    bytes: &[u8],
    kind: AssetKind,
    meshes: &mut CrossRefs,
    problems: &mut Vec<Problem>,
) {
    if kind == AssetKind::Shader {
        if let Err(what) = crate::encode::shader::validate_spirv(bytes) {
            problem(problems, path, what);
        }
        return;
    }
    let (format, result) = match kind {
        AssetKind::Texture | AssetKind::Lut => (
            "KTX2",
            ktx2::parse(bytes).map(|view| meshes.record_texture(path, view.header())),
        ),
        AssetKind::Mesh => (
            ".hmesh",
            hmesh::read_hmesh(bytes).map(|mesh| meshes.record_mesh(path, &mesh)),
        ),
        AssetKind::Material => (
            ".hmat",
            hmat::read_hmat(bytes).map(|rows| meshes.record_materials(path, &rows)),
        ),
        AssetKind::Animation => (
            ".hanim",
            hanim::read_hanim(bytes).map(|clips| meshes.record_animation(path, &clips)),
        ),
        AssetKind::Font => (
            ".hfont",
            hfont::read_hfont(bytes).map(|font| meshes.record_font(path, &font)),
        ),
        AssetKind::Embed if path.ends_with(SOUND_RECORD_SUFFIX) => (
            ".hsnd",
            hsnd::read_hsnd(bytes).map(|record| {
                meshes.sounds.insert(path.to_owned(), record);
            }),
        ),
        AssetKind::Embed if path.ends_with(ATLAS_TABLE_SUFFIX) => (
            ".hatlas",
            hatlas::read_hatlas(bytes).map(|table| {
                meshes.atlases.insert(path.to_owned(), table);
            }),
        ),
        AssetKind::Shader | AssetKind::Embed => ("", Ok(())),
    };
    if let Err(e) = result {
        problem(problems, path, format!("invalid {format}: {e}"));
    }
}

/// What the cross-file rules need: the files of mesh sources keyed by their
/// shared stem (`models/chair` for `models/chair.hmesh`), fonts and the
/// textures they and materials refer to.
#[derive(Debug, Default)]
struct CrossRefs {
    /// Per `.hmesh`: material slots and skeleton joints.
    meshes: BTreeMap<String, (u32, usize)>,
    /// Per `.hmat`: its row count and every non-zero texture ref with its row.
    materials: BTreeMap<String, (usize, Vec<(usize, u64)>)>,
    /// Per `.hanim`: the largest joint index a channel animates.
    animations: BTreeMap<String, Option<u32>>,
    /// The ids of every texture in the manifest.
    textures: HashSet<u64>,
    /// Level-0 size and array layers of every texture that parsed, by
    /// runtime path.
    texture_shapes: HashMap<String, TextureShape>,
    /// Per `.hfont`: its atlas id and the atlas size it declares.
    fonts: BTreeMap<String, (u64, u16, u16)>,
    /// Runtime path of every manifest id.
    paths: HashMap<u64, String>,
    /// Every `.hsnd` sound record that parsed.
    sounds: Records,
    /// Every `.hatlas` sprite table that parsed.
    atlases: Tables,
}

/// The extension of the embedded files that are sound records.
const SOUND_RECORD_SUFFIX: &str = ".hsnd";

/// The extension of the embedded files that are sprite tables.
const ATLAS_TABLE_SUFFIX: &str = ".hatlas";

impl CrossRefs {
    fn record_mesh(&mut self, path: &str, mesh: &hmesh::MeshData) {
        let shape = (mesh.materials.len() as u32, mesh.skeleton.len());
        self.meshes.insert(stem(path).to_string(), shape);
    }

    fn record_materials(&mut self, path: &str, rows: &[hmat::GpuMaterial]) {
        let refs = rows
            .iter()
            .enumerate()
            .flat_map(|(i, row)| {
                row.texture_refs()
                    .into_iter()
                    .filter(|&id| id != 0)
                    .map(move |id| (i, id))
            })
            .collect();
        self.materials
            .insert(stem(path).to_string(), (rows.len(), refs));
    }

    fn record_texture(&mut self, path: &str, header: &ktx2::Ktx2Header) {
        let shape = (
            header.pixel_width,
            header.pixel_height.max(1),
            header.layer_count.max(1),
        );
        self.texture_shapes.insert(path.to_owned(), shape);
    }

    fn record_font(&mut self, path: &str, font: &hfont::FontData) {
        let atlas = (font.atlas_tex, font.atlas_width, font.atlas_height);
        self.fonts.insert(path.to_owned(), atlas);
    }

    fn record_animation(&mut self, path: &str, clips: &[hanim::AnimClip]) {
        self.animations
            .insert(stem(path).to_string(), hanim::max_joint(clips));
    }

    /// Applies the cross-file rules, reporting against the dependent file.
    fn cross_check(&self, problems: &mut Vec<Problem>) {
        self.check_materials(problems);
        self.check_meshes(problems);
        self.check_animations(problems);
        self.check_fonts(problems);
    }

    /// A font's atlas is a texture in the manifest, of the size it declares.
    fn check_fonts(&self, problems: &mut Vec<Problem>) {
        for (path, &(atlas, width, height)) in &self.fonts {
            let declared = (u32::from(width), u32::from(height));
            let atlas_path = self
                .paths
                .get(&atlas)
                .filter(|_| self.textures.contains(&atlas));
            let size = |p: &String| self.texture_shapes.get(p).map(|&(w, h, _)| (w, h));
            match atlas_path.map(|p| (p, size(p))) {
                None => problem(
                    problems,
                    path,
                    format!("its atlas {atlas:#018x} is not a texture in the manifest"),
                ),
                Some((atlas_path, Some(actual))) if actual != declared => problem(
                    problems,
                    path,
                    format!(
                        "declares a {}x{} atlas but {atlas_path} is {}x{}",
                        declared.0, declared.1, actual.0, actual.1
                    ),
                ),
                Some(_) => {}
            }
        }
    }

    fn check_materials(&self, problems: &mut Vec<Problem>) {
        for (stem, (rows, refs)) in &self.materials {
            let path = format!("{stem}.hmat");
            match self.meshes.get(stem) {
                Some(&(slots, _)) if slots as usize != *rows => problem(
                    problems,
                    &path,
                    format!("has {rows} rows but {stem}.hmesh has {slots} material slots"),
                ),
                Some(_) => {}
                None => problem(problems, &path, format!("no {stem}.hmesh in the manifest")),
            }
            for (row, id) in refs.iter().filter(|(_, id)| !self.textures.contains(id)) {
                problem(
                    problems,
                    &path,
                    format!(
                        "row {row} refers to texture {id:#018x}, which the manifest does not list"
                    ),
                );
            }
        }
    }

    fn check_meshes(&self, problems: &mut Vec<Problem>) {
        for (stem, &(slots, _)) in &self.meshes {
            if slots > 0 && !self.materials.contains_key(stem) {
                problem(
                    problems,
                    format!("{stem}.hmesh"),
                    format!("has {slots} material slots but no {stem}.hmat in the manifest"),
                );
            }
        }
    }

    fn check_animations(&self, problems: &mut Vec<Problem>) {
        for (stem, max_joint) in &self.animations {
            let path = format!("{stem}.hanim");
            let joints = self.meshes.get(stem).map(|&(_, joints)| joints);
            match (joints, max_joint) {
                (None, _) => problem(problems, &path, format!("no {stem}.hmesh in the manifest")),
                (Some(0), _) => problem(
                    problems,
                    &path,
                    format!("{stem}.hmesh has no skeleton for its channels to animate"),
                ),
                (Some(joints), Some(joint)) if *joint as usize >= joints => problem(
                    problems,
                    &path,
                    format!("animates joint {joint} but {stem}.hmesh has {joints} joints"),
                ),
                _ => {}
            }
        }
    }
}

/// A runtime path without its extension.
fn stem(path: &str) -> &str {
    fsutil::without_extension(path)
}

/// Files at the top of the output folder that are not assets: the manifest
/// and the id files.
const LINK_FILES: [&str; 3] = [MANIFEST_FILE, C_HEADER_FILE, RUST_MODULE_FILE];

/// Reports files below `root` that the manifest does not list, other than
/// those left out with a failed source (which `recorded` reports).
fn report_orphans(
    root: &Path,
    listed: &BTreeSet<String>,
    recorded: Option<&Recorded>,
    problems: &mut Vec<Problem>,
) {
    for entry in WalkDir::new(root).sort_by_file_name().into_iter().flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = runtime_name(root, entry.path());
        let left_out = recorded.is_some_and(|r| r.left_out(&rel));
        if !LINK_FILES.contains(&rel.as_str()) && !listed.contains(&rel) && !left_out {
            problem(problems, rel, "orphan: no job produced this file");
        }
    }
}

fn runtime_name(root: &Path, path: &Path) -> String {
    fsutil::slash_relative(root, path).unwrap_or_else(|| path.display().to_string())
}

/// Validates the pack against the folder; returns its entry count.
fn check_pack(
    root: &Path,
    pack_path: &Path,
    listed: &BTreeSet<String>,
    recorded: Option<&Recorded>,
    problems: &mut Vec<Problem>,
) -> Option<usize> {
    let name = pack_path.display().to_string();
    let bytes = read_or_report(pack_path, problems)?;
    let pack = match hpack::parse(&bytes) {
        Ok(p) => p,
        Err(e) => {
            problem(problems, name, e.to_string());
            return None;
        }
    };
    for entry in pack.iter() {
        let where_ = format!("{name}: {}", entry.path);
        if let Some(fault) = pack_kind_fault(&entry) {
            problem(problems, where_.clone(), fault);
        }
        if let Some(recorded) = recorded {
            recorded.check_pack_entry(&name, entry.path, pack.data(&entry), problems);
        }
        if let Some(fault) = pack_entry_disk_fault(root, &pack, &entry) {
            problem(problems, where_, fault);
        }
    }
    let expected = listed.iter().map(String::as_str).chain([MANIFEST_FILE]);
    for path in expected.filter(|p| pack.find(p).is_none()) {
        problem(problems, format!("{name}: {path}"), "missing from the pack");
    }
    Some(pack.len())
}

/// What is wrong with a pack entry's kind byte, if anything: it must be the
/// kind its extension gives.
pub(super) fn pack_kind_fault(entry: &hpack::PackEntry<'_>) -> Option<&'static str> {
    (entry.kind != PackKind::from_path(entry.path))
        .then_some("pack kind does not match the extension")
}

/// What is wrong with a pack entry against the output folder `root`, if
/// anything: the folder's file of that path must hold the same bytes.
pub(super) fn pack_entry_disk_fault(
    root: &Path,
    pack: &hpack::Pack<'_>,
    entry: &hpack::PackEntry<'_>,
) -> Option<&'static str> {
    match std::fs::read(root.join(entry.path)) {
        Ok(disk) if disk == pack.data(entry) => None,
        Ok(_) => Some("differs from the file in the output folder"),
        Err(_) => Some("in the pack but not in the output folder"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems_of(files: &CrossRefs) -> Vec<String> {
        let mut problems = Vec::new();
        files.cross_check(&mut problems);
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn cross_file_rules_name_the_dependent_file() {
        let mut files = CrossRefs::default();
        files.meshes.insert("m/a".into(), (2, 3));
        files.materials.insert("m/a".into(), (2, vec![(1, 0xabc)]));
        files.animations.insert("m/a".into(), Some(2));
        assert_eq!(
            problems_of(&files),
            [
                "m/a.hmat: row 1 refers to texture 0x0000000000000abc, which the manifest does not list"
            ]
        );
        files.textures.insert(0xabc);
        assert!(problems_of(&files).is_empty());

        files.animations.insert("m/a".into(), Some(3));
        files.meshes.insert("m/b".into(), (1, 0));
        files.animations.insert("m/c".into(), None);
        assert_eq!(
            problems_of(&files),
            [
                "m/b.hmesh: has 1 material slots but no m/b.hmat in the manifest",
                "m/a.hanim: animates joint 3 but m/a.hmesh has 3 joints",
                "m/c.hanim: no m/c.hmesh in the manifest",
            ]
        );

        files.animations.insert("m/b".into(), None);
        files.materials.insert("m/b".into(), (1, vec![]));
        files.animations.remove("m/a");
        files.animations.remove("m/c");
        assert_eq!(
            problems_of(&files),
            ["m/b.hanim: m/b.hmesh has no skeleton for its channels to animate"]
        );
    }

    #[test]
    fn a_font_atlas_must_be_a_listed_texture_of_the_declared_size() {
        let mut files = CrossRefs::default();
        files
            .fonts
            .insert("ui/inter.hfont".into(), (0x51, 256, 128));
        assert_eq!(
            problems_of(&files),
            ["ui/inter.hfont: its atlas 0x0000000000000051 is not a texture in the manifest"]
        );
        files.textures.insert(0x51);
        files.paths.insert(0x51, "ui/inter.ktx2".into());
        files
            .texture_shapes
            .insert("ui/inter.ktx2".into(), (256, 64, 1));
        assert_eq!(
            problems_of(&files),
            ["ui/inter.hfont: declares a 256x128 atlas but ui/inter.ktx2 is 256x64"]
        );
        files
            .texture_shapes
            .insert("ui/inter.ktx2".into(), (256, 128, 1));
        assert!(problems_of(&files).is_empty());
    }

    #[test]
    fn stems_drop_only_the_last_extension() {
        assert_eq!(stem("models/chair.hmesh"), "models/chair");
        assert_eq!(stem("a.b/c"), "a.b/c");
    }
}
