//! Deleting the outputs of sources that no longer exist.
//!
//! Configure records every file the graph produces in `<build-dir>/outputs.list`.
//! On the next run, whatever the old list names and the new one does not belongs
//! to a deleted (or renamed, or reclassified) source: it is removed, and so are
//! folders left empty by the removal, as long as they lie inside the output or
//! build folder. Files assetc never produced are never touched.
//!
//! A stale manifest fragment also takes with it the files it lists (relative
//! to the output folder): shader folders write a set of `.spv` files that only
//! their fragment records, and deleting the folder must delete them too.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fragment::Fragment;
use crate::fsutil::{self, FileError};

/// Name of the record kept in the build folder.
const RECORD: &str = "outputs.list";

/// Removes outputs that the previous run produced and this one does not, then
/// records `outputs` (root-relative). `prune_within` bounds folder clean-up.
/// Returns the removed files.
pub fn remove_stale(
    root: &Path,
    build_dir: &Path,
    output_dir: &Path,
    prune_within: &[&Path],
    outputs: &[String],
) -> Result<Vec<PathBuf>, FileError> {
    let record = build_dir.join(RECORD);
    let previous = fs::read_to_string(&record).unwrap_or_default();
    let current: HashSet<PathBuf> = outputs.iter().map(|o| root.join(o)).collect();
    let mut removed = Vec::new();
    for old in previous.lines().filter(|l| !l.is_empty()) {
        let path = root.join(old);
        if current.contains(&path) || !path.is_file() {
            continue;
        }
        if old.ends_with(FRAGMENT_SUFFIX)
            && let Ok(fragment) = Fragment::read(&path)
        {
            for file in fragment.files.iter().filter(|f| is_plain_relative(f)) {
                let listed = output_dir.join(file);
                if !current.contains(&listed) && listed.is_file() {
                    remove(&listed, prune_within)?;
                    removed.push(listed);
                }
            }
        }
        remove(&path, prune_within)?;
        removed.push(path);
    }
    let mut text = outputs.join("\n");
    text.push('\n');
    fsutil::write_output(&record, text.as_bytes())?;
    Ok(removed)
}

/// The suffix of manifest fragments in the record.
const FRAGMENT_SUFFIX: &str = ".frag";

/// Removes a file, then the folders its removal left empty.
fn remove(path: &Path, prune_within: &[&Path]) -> Result<(), FileError> {
    fsutil::remove_if_exists(path).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source,
    })?;
    prune_empty_parents(path, prune_within);
    Ok(())
}

/// Whether a path a fragment lists stays below the folder it is relative to.
fn is_plain_relative(path: &str) -> bool {
    !path.starts_with('/') && path.split('/').all(|part| !part.is_empty() && part != "..")
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
        assert!(
            remove_stale(r, &build, &out, &within, &first)
                .unwrap()
                .is_empty()
        );

        let second = vec!["out/b.ktx2".to_string()];
        let removed = remove_stale(r, &build, &out, &within, &second).unwrap();
        assert_eq!(removed, vec![out.join("deep/er/a.ktx2")]);
        assert!(!out.join("deep").exists(), "empty folders are pruned");
        assert!(out.join("b.ktx2").exists());
        assert!(
            out.join("user.txt").exists(),
            "files assetc never made stay"
        );
    }

    #[test]
    fn a_stale_fragment_takes_the_files_it_lists() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let build = r.join(".assetc");
        let out = r.join("out");
        let fragment =
            "assetc-fragment 1\nsource fx/Blur.shader\nfile fx/Blur/vs.spv\nfile ../../keep.txt\n";
        fs::create_dir_all(build.join("frag/fx")).unwrap();
        fs::write(build.join("frag/fx/Blur.shader.frag"), fragment).unwrap();
        fs::create_dir_all(out.join("fx/Blur")).unwrap();
        fs::write(out.join("fx/Blur/vs.spv"), b"spv").unwrap();
        fs::write(r.join("keep.txt"), b"mine").unwrap();
        let within = [out.as_path(), build.as_path()];
        let first = vec![".assetc/frag/fx/Blur.shader.frag".to_string()];
        remove_stale(r, &build, &out, &within, &first).unwrap();
        let removed = remove_stale(r, &build, &out, &within, &[]).unwrap();
        assert_eq!(
            removed,
            [
                out.join("fx/Blur/vs.spv"),
                build.join("frag/fx/Blur.shader.frag")
            ]
        );
        assert!(!out.join("fx").exists(), "empty folders are pruned");
        assert!(
            r.join("keep.txt").exists(),
            "paths leaving the folder are ignored"
        );
    }
}
