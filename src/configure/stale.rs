//! Deleting the outputs of sources that no longer exist.
//!
//! Configure records every file the graph produces in `<build-dir>/outputs.list`.
//! On the next run, whatever the old list names and the new one does not belongs
//! to a deleted (or renamed, or reclassified) source: it is removed, and so are
//! folders left empty by the removal, as long as they lie inside the output or
//! build folder. Files assetc never produced are never touched.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fsutil::{self, FileError};

/// Name of the record kept in the build folder.
const RECORD: &str = "outputs.list";

/// Removes outputs that the previous run produced and this one does not, then
/// records `outputs` (root-relative). `prune_within` bounds folder clean-up.
/// Returns the removed files.
pub fn remove_stale(
    root: &Path,
    build_dir: &Path,
    prune_within: &[&Path],
    outputs: &[String],
) -> Result<Vec<PathBuf>, FileError> {
    let record = build_dir.join(RECORD);
    let previous = fs::read_to_string(&record).unwrap_or_default();
    let current: HashSet<&str> = outputs.iter().map(String::as_str).collect();
    let mut removed = Vec::new();
    for old in previous
        .lines()
        .filter(|l| !l.is_empty() && !current.contains(l))
    {
        let path = root.join(old);
        if path.is_file() {
            fsutil::remove_if_exists(&path).map_err(|source| FileError::Write {
                path: path.clone(),
                source,
            })?;
            prune_empty_parents(&path, prune_within);
            removed.push(path);
        }
    }
    let mut text = outputs.join("\n");
    text.push('\n');
    fsutil::write_output(&record, text.as_bytes())?;
    Ok(removed)
}

/// Removes empty folders above `file` while they lie strictly inside one of
/// the `within` folders.
fn prune_empty_parents(file: &Path, within: &[&Path]) {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let inside = within.iter().any(|w| d.starts_with(w) && d != *w);
        if !inside || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_only_what_the_previous_run_produced() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let build = r.join(".assetc");
        let out = r.join("out");
        fs::create_dir_all(out.join("deep/er")).unwrap();
        fs::write(out.join("deep/er/a.ktx2"), b"a").unwrap();
        fs::write(out.join("b.ktx2"), b"b").unwrap();
        fs::write(out.join("user.txt"), b"mine").unwrap();
        let within = [out.as_path(), build.as_path()];
        let first = vec!["out/deep/er/a.ktx2".to_string(), "out/b.ktx2".to_string()];
        assert!(remove_stale(r, &build, &within, &first).unwrap().is_empty());

        let second = vec!["out/b.ktx2".to_string()];
        let removed = remove_stale(r, &build, &within, &second).unwrap();
        assert_eq!(removed, vec![out.join("deep/er/a.ktx2")]);
        assert!(!out.join("deep").exists(), "empty folders are pruned");
        assert!(out.join("b.ktx2").exists());
        assert!(
            out.join("user.txt").exists(),
            "files assetc never made stay"
        );
    }
}
