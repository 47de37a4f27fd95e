//! Configure's side of laying packs out over the packs already shipped
//! (`pack_base:` in `assetc.yml`, `--pack-base` on the command line).
//!
//! The base is a `.hpack` file or a folder:
//! - a **file** is the base of the single pack (`pack: true`), and a build
//!   without the single pack refuses it, since nothing would use it;
//! - a **folder** holds the shipped packs under the names this build gives
//!   them (`desktop.hpack`, `desktop.level1.hpack`): each pack found there is
//!   the base of the pack of the same name, and a pack without one is laid
//!   out fresh, with a warning.
//!
//! Each pack edge with a base gets `--base FILE --max-waste F` and the base as
//! an implicit input, so shipping a new base re-lays the packs out.

use std::path::{Path, PathBuf};

use super::ConfigureError;
use super::paths::root_relative;
use crate::shell;

/// The base of every pack the build writes, root-relative.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackBases {
    /// The single pack's base.
    pub single: Option<String>,
    /// Each named pack's base, parallel to the plan's named packs.
    pub named: Vec<Option<String>>,
    /// `pack_max_waste`.
    pub max_waste: f64,
}

/// Resolves `base` (absolute) for the single pack `single` and the `named`
/// packs (their root-relative files; `single` only when the build writes
/// it). Returns the bases and a warning per pack a base folder has no file
/// for.
pub fn resolve(
    base: Option<&Path>,
    root: &Path,
    single: Option<&str>,
    named: &[&str],
    max_waste: f64,
) -> Result<(PackBases, Vec<String>), ConfigureError> {
    let mut bases = PackBases {
        named: vec![None; named.len()],
        max_waste,
        ..PackBases::default()
    };
    let Some(base) = base else {
        return Ok((bases, Vec::new()));
    };
    if base.is_file() {
        if single.is_none() {
            return Err(refused(
                base,
                "is a file, so it is the base of the single pack, but this build writes none (`pack: true` or --pack writes it; a folder of packs is the base of named packs)",
            ));
        }
        bases.single = Some(root_relative(root, base)?);
        return Ok((bases, Vec::new()));
    }
    if !base.is_dir() {
        return Err(refused(
            base,
            "no such file or folder (pack_base / --pack-base)",
        ));
    }
    let mut warnings = Vec::new();
    let mut find = |pack: &str| -> Result<Option<String>, ConfigureError> {
        let name = Path::new(pack).file_name().unwrap_or_default();
        let shipped: PathBuf = base.join(name);
        if shipped.is_file() {
            return root_relative(root, &shipped).map(Some);
        }
        warnings.push(format!(
            "{}: no shipped {} in it, so that pack is laid out fresh",
            base.display(),
            name.to_string_lossy()
        ));
        Ok(None)
    };
    bases.single = single.map(&mut find).transpose()?.flatten();
    for (slot, pack) in bases.named.iter_mut().zip(named) {
        *slot = find(pack)?;
    }
    Ok((bases, warnings))
}

impl PackBases {
    /// The variables of a pack edge whose base is `base`, if any, having
    /// added the base to the edge's `implicit` inputs.
    pub fn edge_vars<'a>(
        &self,
        base: Option<&'a str>,
        implicit: &mut Vec<&'a str>,
    ) -> Vec<(&'static str, String)> {
        let Some(base) = base else {
            return Vec::new();
        };
        implicit.push(base);
        vec![("pack_base", self.edge_args(base))]
    }

    /// The `pack_base` variable of an edge whose base is `base`.
    fn edge_args(&self, base: &str) -> String {
        shell::shell_join(&[
            "--base".to_string(),
            base.to_string(),
            "--max-waste".to_string(),
            self.max_waste.to_string(),
        ])
    }
}

/// The error for an unusable base.
fn refused(base: &Path, what: &str) -> ConfigureError {
    ConfigureError::PackBase {
        path: base.to_owned(),
        what: what.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_each_pack_the_shipped_file_of_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let shipped = dir.path().join("shipped");
        std::fs::create_dir(&shipped).unwrap();
        std::fs::write(shipped.join("out.level1.hpack"), b"").unwrap();
        let packs = ["out.level1.hpack", "out.later.hpack"];
        let (bases, warnings) =
            resolve(Some(&shipped), dir.path(), Some("out.hpack"), &packs, 0.5).unwrap();
        assert_eq!(bases.single, None);
        assert_eq!(
            bases.named,
            [Some("shipped/out.level1.hpack".to_string()), None]
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("out.hpack"), "{warnings:?}");
    }

    #[test]
    fn a_file_is_the_single_packs_base_and_needs_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("v1.hpack");
        std::fs::write(&file, b"").unwrap();
        let (bases, _) = resolve(Some(&file), dir.path(), Some("out.hpack"), &[], 0.25).unwrap();
        assert_eq!(bases.single.as_deref(), Some("v1.hpack"));
        assert_eq!(
            bases.edge_args("v1.hpack"),
            "--base v1.hpack --max-waste 0.25"
        );
        let error = resolve(Some(&file), dir.path(), None, &[], 0.25).unwrap_err();
        assert!(error.to_string().contains("v1.hpack: is a file"), "{error}");
        let missing = dir.path().join("nope");
        let error = resolve(Some(&missing), dir.path(), None, &[], 0.25).unwrap_err();
        assert!(error.to_string().contains("no such file"), "{error}");
    }
}
