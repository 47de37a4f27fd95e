//! Deleting the outputs of sources that no longer exist.
//!
//! Configure records every file the graph produces in `<build-dir>/outputs.list`.
//! On the next run, whatever the old list names and the new one does not belongs
//! to a deleted (or renamed, or reclassified) source: it is removed, and so are
//! folders left empty by the removal, as long as they lie inside the output or
//! build folder. Files assetc never produced are never touched.
//!
//! Fragments carry files the record does not: a shader folder writes a set of
//! `.spv` files that only its fragment lists (relative to the output folder).
//! So the record also names the output folder (a `# output <folder>` line),
//! and the files a previous fragment lists are removed with it when the
//! fragment is stale, or all of them when the output folder moved.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fragment::Fragment;
use crate::fsutil::{self, FileError};

/// Name of the record kept in the build folder.
const RECORD: &str = "outputs.list";

/// Removes outputs that the previous run produced and this one does not, then
/// records `outputs` (root-relative) and the output folder. `prune_within`
/// bounds folder clean-up. Returns the removed files.
pub fn remove_stale(
    root: &Path,
    build_dir: &Path,
    output_dir: &Path,
    prune_within: &[&Path],
    outputs: &[String],
) -> Result<Vec<PathBuf>, FileError> {
    let record = build_dir.join(RECORD);
    let previous = fs::read_to_string(&record).unwrap_or_default();
    let previous_output = previous
        .lines()
        .find_map(|line| line.strip_prefix(OUTPUT_LINE))
        .map_or_else(|| output_dir.to_owned(), |folder| root.join(folder));
    let output_moved = previous_output != output_dir;
    let current: HashSet<PathBuf> = outputs.iter().map(|o| root.join(o)).collect();
    let mut removed = Vec::new();
    for old in previous
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let path = root.join(old);
        let stale = !current.contains(&path);
        if old.ends_with(FRAGMENT_SUFFIX) && (stale || output_moved) {
            for listed in listed_files(&path, &previous_output) {
                if !current.contains(&listed) && listed.is_file() {
                    remove(&listed, prune_within)?;
                    removed.push(listed);
                }
            }
        }
        if stale && path.is_file() {
            remove(&path, prune_within)?;
            removed.push(path);
        }
    }
    let output_rel = fsutil::slash_relative(root, output_dir)
        .unwrap_or_else(|| output_dir.to_string_lossy().into_owned());
    let mut text = format!("{OUTPUT_LINE}{output_rel}\n");
    for output in outputs {
        text.push_str(output);
        text.push('\n');
    }
    fsutil::write_output(&record, text.as_bytes())?;
    Ok(removed)
}

/// The record line naming the output folder the outputs were written to.
const OUTPUT_LINE: &str = "# output ";

/// The files a fragment lists, inside `output_dir`; none when it cannot be
/// read.
fn listed_files(fragment: &Path, output_dir: &Path) -> Vec<PathBuf> {
    let Ok(fragment) = Fragment::read(fragment) else {
        return Vec::new();
    };
    fragment
        .files
        .iter()
        .filter(|file| is_plain_relative(file))
        .map(|file| output_dir.join(file))
        .collect()
}

/// The suffix of manifest fragments in the record.
const FRAGMENT_SUFFIX: &str = ".frag";

/// Removes a file, then the folders its removal left empty. A temporary file a
/// killed writer left for it goes too: the edge that would have reused it no
/// longer exists.
fn remove(path: &Path, prune_within: &[&Path]) -> Result<(), FileError> {
    fsutil::remove_if_exists(path).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source,
    })?;
    fsutil::remove_orphaned_temp(path);
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

    #[test]
    fn a_moved_output_folder_takes_the_files_fragments_list() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let build = r.join(".assetc");
        let (old_out, new_out) = (r.join("old"), r.join("new"));
        fs::create_dir_all(build.join("frag")).unwrap();
        let fragment = "assetc-fragment 1\nsource Blur.shader\nfile Blur/vs.spv\n";
        fs::write(build.join("frag/Blur.shader.frag"), fragment).unwrap();
        fs::create_dir_all(old_out.join("Blur")).unwrap();
        fs::write(old_out.join("Blur/vs.spv"), b"spv").unwrap();
        let outputs = vec![".assetc/frag/Blur.shader.frag".to_string()];
        let within = [old_out.as_path(), build.as_path()];
        remove_stale(r, &build, &old_out, &within, &outputs).unwrap();
        let record = fs::read_to_string(build.join(RECORD)).unwrap();
        assert!(record.starts_with("# output old\n"), "{record}");
        assert!(
            remove_stale(r, &build, &old_out, &within, &outputs)
                .unwrap()
                .is_empty(),
            "the edge itself looks after its files while the folder stays"
        );
        let within = [new_out.as_path(), build.as_path()];
        let removed = remove_stale(r, &build, &new_out, &within, &outputs).unwrap();
        assert_eq!(removed, [old_out.join("Blur/vs.spv")]);
        assert!(build.join("frag/Blur.shader.frag").exists());
    }
}
