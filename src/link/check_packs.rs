//! `assetc-link check` for named packs: is each `<output>.<name>.hpack`
//! consistent with the output folder?
//!
//! A named pack holds a subset of the folder plus its own `assets.hman`. The
//! rules, each reported as `<pack>: <path>: what`:
//! * the pack is a valid `.hpack` and holds a valid `assets.hman`;
//! * every entry of that manifest is also in the folder's `assets.hman`, with
//!   the same id, kind and colour space (the pack's manifest is a subset);
//! * every file the pack's manifest lists is in the pack, and every other
//!   file of the pack is listed (nothing unregistered rides along);
//! * every file is byte for byte the folder's file, tagged with the pack kind
//!   its extension gives.
//!
//! The folder's own problems (a missing or invalid `assets.hman`) are the
//! folder check's to report; here a folder manifest that cannot be read only
//! skips the subset rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::check::{pack_entry_disk_fault, pack_kind_fault};
use super::problem::Problem;
use crate::format::hman::MANIFEST_FILE;
use crate::format::hman::{self, ManifestEntry};
use crate::format::hpack::{self, Pack};
use crate::fsutil::shown;

/// The result of checking one named pack that parsed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NamedPackSummary {
    /// The pack file, as given.
    pub pack: String,
    /// Its entries, its own `assets.hman` included.
    pub entries: usize,
    /// Entries of its own manifest.
    pub manifest_entries: usize,
}

/// Checks every pack in `packs` against the folder `root`. Returns a summary
/// per pack and every problem found (empty when all is well).
pub fn check_named_packs(root: &Path, packs: &[PathBuf]) -> (Vec<NamedPackSummary>, Vec<Problem>) {
    let folder = folder_manifest(root);
    let mut summaries = Vec::new();
    let mut problems = Vec::new();
    for pack in packs {
        let mut checker = PackChecker {
            root,
            name: shown(pack),
            problems: &mut problems,
        };
        if let Some(summary) = checker.check(pack, folder.as_ref()) {
            summaries.push(summary);
        }
    }
    (summaries, problems)
}

/// The folder manifest's entries by path, or `None` when it cannot be read.
fn folder_manifest(root: &Path) -> Option<BTreeMap<String, ManifestEntry>> {
    let bytes = std::fs::read(root.join(MANIFEST_FILE)).ok()?;
    let manifest = hman::parse(&bytes).ok()?;
    Some(
        manifest
            .iter()
            .map(|e| (e.path.to_owned(), e.to_entry()))
            .collect(),
    )
}

/// Checks one pack, collecting problems under its name.
struct PackChecker<'a> {
    root: &'a Path,
    name: String,
    problems: &'a mut Vec<Problem>,
}

impl PackChecker<'_> {
    fn report(&mut self, path: &str, what: impl Into<String>) {
        let path = if path.is_empty() {
            self.name.clone()
        } else {
            format!("{}: {path}", self.name)
        };
        self.problems.push(Problem {
            path,
            what: what.into(),
        });
    }

    fn check(
        &mut self,
        pack_path: &Path,
        folder: Option<&BTreeMap<String, ManifestEntry>>,
    ) -> Option<NamedPackSummary> {
        let bytes = match std::fs::read(pack_path) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.report("", format!("cannot read: {e}"));
                return None;
            }
        };
        let pack = match hpack::parse(&bytes) {
            Ok(pack) => pack,
            Err(e) => {
                self.report("", e.to_string());
                return None;
            }
        };
        let listed = self.own_manifest(&pack, folder)?;
        self.check_files(&pack, &listed);
        Some(NamedPackSummary {
            pack: self.name.clone(),
            entries: pack.len(),
            manifest_entries: listed.len(),
        })
    }

    /// Reads the pack's `assets.hman`, checks it against the folder's, and
    /// returns the paths it lists.
    fn own_manifest(
        &mut self,
        pack: &Pack<'_>,
        folder: Option<&BTreeMap<String, ManifestEntry>>,
    ) -> Option<BTreeSet<String>> {
        let Some(entry) = pack.find(MANIFEST_FILE) else {
            self.report(MANIFEST_FILE, "missing from the pack");
            return None;
        };
        let manifest = match hman::parse(pack.data(&entry)) {
            Ok(manifest) => manifest,
            Err(e) => {
                self.report(MANIFEST_FILE, format!("invalid manifest: {e}"));
                return None;
            }
        };
        let mut listed = BTreeSet::new();
        for own in manifest.iter() {
            let own_entry = own.to_entry();
            match folder.map(|f| f.get(own.path)) {
                Some(None) => self.report(own.path, "in the pack's manifest but not the folder's"),
                Some(Some(global)) if *global != own_entry => self.report(
                    own.path,
                    "its entry differs from the folder manifest's (id, kind or colour space)",
                ),
                _ => {}
            }
            listed.insert(own.path.to_owned());
        }
        Some(listed)
    }

    /// Every listed file is in the pack and every packed file is listed and
    /// identical to the folder's.
    fn check_files(&mut self, pack: &Pack<'_>, listed: &BTreeSet<String>) {
        for path in listed.iter().filter(|p| pack.find(p).is_none()) {
            self.report(
                path,
                "listed in the pack's manifest but missing from the pack",
            );
        }
        for entry in pack.iter().filter(|e| e.path != MANIFEST_FILE) {
            if !listed.contains(entry.path) {
                self.report(entry.path, "in the pack but not in its manifest");
            }
            let faults = [
                pack_kind_fault(&entry),
                pack_entry_disk_fault(self.root, pack, &entry),
            ];
            for fault in faults.into_iter().flatten() {
                self.report(entry.path, fault);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hman::write_manifest;
    use crate::format::hpack::{PackItem, write_pack};
    use crate::format::kind::{AssetKind, ColorSpace, PackKind};

    fn entry(path: &str) -> ManifestEntry {
        ManifestEntry {
            hash: AssetKind::Embed.id_for_path(path),
            kind: AssetKind::Embed,
            colorspace: ColorSpace::Linear,
            path: path.into(),
        }
    }

    fn item<'a>(path: &'a str, data: &'a [u8]) -> PackItem<'a> {
        PackItem {
            path,
            kind: PackKind::from_path(path),
            data,
        }
    }

    #[test]
    fn a_subset_pack_passes_and_every_fault_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.bin"), b"a").unwrap();
        std::fs::write(root.join("b.bin"), b"b").unwrap();
        let global = write_manifest(&[entry("a.bin"), entry("b.bin")]).unwrap();
        std::fs::write(root.join(MANIFEST_FILE), &global).unwrap();

        let own = write_manifest(&[entry("a.bin")]).unwrap();
        let good = dir.path().join("out.good.hpack");
        let bytes = write_pack(&[item("a.bin", b"a"), item(MANIFEST_FILE, &own)]).unwrap();
        std::fs::write(&good, bytes).unwrap();
        let (summaries, problems) = check_named_packs(&root, &[good]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(summaries[0].entries, 2);
        assert_eq!(summaries[0].manifest_entries, 1);

        let own = write_manifest(&[entry("a.bin"), entry("c.bin")]).unwrap();
        let bad = dir.path().join("out.bad.hpack");
        let items = [
            item("a.bin", b"changed"),
            item("b.bin", b"b"),
            item(MANIFEST_FILE, &own),
        ];
        std::fs::write(&bad, write_pack(&items).unwrap()).unwrap();
        let (_, problems) = check_named_packs(&root, std::slice::from_ref(&bad));
        let name = bad.display().to_string();
        let found: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                format!("{name}: c.bin: in the pack's manifest but not the folder's"),
                format!("{name}: c.bin: listed in the pack's manifest but missing from the pack"),
                format!("{name}: a.bin: differs from the file in the output folder"),
                format!("{name}: b.bin: in the pack but not in its manifest"),
            ]
        );
    }
}
