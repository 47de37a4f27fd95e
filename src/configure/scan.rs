//! Walking the input folder and classifying what is found.
//!
//! The walk is sorted by name so every run sees sources in the same order. It
//! skips hidden entries (names starting with `.`), editor backups (ending in
//! `~`) and whatever an `exclude:` glob of `assetc.yml` matches (a folder is
//! not entered), does not descend into folder assets (`*.env/`, `*.array/`,
//! `*.shader/`), and steps around the output and build folders when they sit
//! inside the input. Files that nothing claims are kept by name as ignored. Every folder it walks is remembered: the regeneration edge
//! depends on them, so adding or deleting a source re-runs configure.
//!
//! An atlas folder (`*.atlas/`) is one source whose files are listed, not
//! classified: everything below it (subfolders included, hidden files and
//! backups aside) is a sprite of that atlas, and its folders are walked and
//! remembered like the others, so a sprite added anywhere in it re-runs
//! configure, which rewrites the atlas's list.
//!
//! Symbolic links are followed. A link that leads back to one of its own
//! ancestors (a loop) and a link whose target is missing (dangling) stop
//! configure with an error naming the link, rather than being skipped: a
//! missing asset should be noticed before the build, not at run time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use walkdir::{DirEntry, WalkDir};

use super::ConfigureError;
use super::classify::{self, SourceKind};
use crate::fsutil;

/// One source asset found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Path relative to the input folder, `/`-separated.
    pub rel: String,
    /// What it compiles as.
    pub kind: SourceKind,
}

/// Everything the walk found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Compilable sources, sorted by path.
    pub sources: Vec<Source>,
    /// Every folder walked (absolute), the input folder first.
    pub folders: Vec<PathBuf>,
    /// The files that matched no pattern, relative to the input folder, in
    /// walk order.
    pub ignored: Vec<String>,
    /// The files below each atlas folder (keyed by the folder's path),
    /// relative to the input folder, in walk order.
    pub atlas_files: BTreeMap<String, Vec<String>>,
}

/// Walks `input`, skipping the folders in `skip` and the files and folders
/// `excluded` names (by their path below `input`). `claim` sees every file
/// first and may decide its kind (a user processor, an `embed:` glob); files
/// it leaves alone are classified by name.
pub fn scan(
    input: &Path,
    skip: &[&Path],
    excluded: impl Fn(&str) -> bool,
    claim: impl Fn(&str) -> Option<SourceKind>,
) -> Result<Scan, ConfigureError> {
    if !input.is_dir() {
        return Err(ConfigureError::NoInput {
            path: input.to_owned(),
        });
    }
    let mut result = Scan::default();
    // The atlas folder the walk is inside, if any (the walk is depth first).
    let mut atlas: Option<String> = None;
    let mut walk = WalkDir::new(input)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(|e| walk_error(input, e))?;
        if entry.depth() > 0 && (is_ignored_name(&entry) || skip.contains(&entry.path())) {
            if entry.file_type().is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        let rel = relative_name(input, entry.path())?;
        if entry.depth() > 0 && excluded(&rel) {
            if entry.file_type().is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        if atlas
            .as_ref()
            .is_some_and(|folder| !rel.starts_with(&format!("{folder}/")))
        {
            atlas = None;
        }
        if let Some(folder) = &atlas {
            if entry.file_type().is_dir() {
                result.folders.push(entry.path().to_owned());
            } else {
                result
                    .atlas_files
                    .entry(folder.clone())
                    .or_default()
                    .push(rel);
            }
            continue;
        }
        if entry.file_type().is_dir() {
            match classify::classify_folder(&rel).filter(|_| entry.depth() > 0) {
                Some(kind @ SourceKind::Atlas(_)) => {
                    result.folders.push(entry.path().to_owned());
                    result.atlas_files.insert(rel.clone(), Vec::new());
                    atlas = Some(rel.clone());
                    result.sources.push(Source { rel, kind });
                }
                Some(kind) => {
                    walk.skip_current_dir();
                    result.sources.push(Source { rel, kind });
                }
                None => result.folders.push(entry.path().to_owned()),
            }
        } else {
            match claim(&rel).or_else(|| classify::classify_file(&rel, false)) {
                Some(kind) => result.sources.push(Source { rel, kind }),
                None => result.ignored.push(rel),
            }
        }
    }
    Ok(result)
}

fn is_ignored_name(entry: &DirEntry) -> bool {
    let name = entry.file_name().to_string_lossy();
    name.starts_with('.') || name.ends_with('~')
}

/// The `/`-separated path of `path` below `input`, which must be valid UTF-8.
fn relative_name(input: &Path, path: &Path) -> Result<String, ConfigureError> {
    fsutil::slash_relative(input, path).ok_or_else(|| ConfigureError::BadName {
        path: path.to_owned(),
        what: "is not valid UTF-8".into(),
    })
}

fn walk_error(input: &Path, error: walkdir::Error) -> ConfigureError {
    let path = error.path().unwrap_or(input).to_owned();
    let what = match (error.loop_ancestor(), dangling_target(&path)) {
        (Some(ancestor), _) => format!(
            "symbolic link loop back to {}; remove the link or point it outside the input folder's ancestors",
            ancestor.display()
        ),
        (None, Some(target)) => format!(
            "dangling symbolic link to {} (its target does not exist)",
            target.display()
        ),
        (None, None) => "cannot be read".into(),
    };
    ConfigureError::Walk {
        path,
        what,
        source: error.into_io_error(),
    }
}

/// The target of `path` when it is a symbolic link whose target is missing.
fn dangling_target(path: &Path) -> Option<PathBuf> {
    let target = std::fs::read_link(path).ok()?;
    (!path.exists()).then_some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluded_entries_are_neither_sources_nor_ignored_and_unknown_files_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "a.png",
            "a.jpg",
            "notes.txt",
            "raw/b.png",
            "raw/c.txt",
            "ui/d.psd",
        ] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"x").unwrap();
        }
        let excluded = |rel: &str| rel == "a.jpg" || rel == "raw";
        let scanned = scan(dir.path(), &[], excluded, |_| None).unwrap();
        let sources: Vec<&str> = scanned.sources.iter().map(|s| s.rel.as_str()).collect();
        assert_eq!(sources, ["a.png"]);
        assert_eq!(scanned.ignored, ["notes.txt", "ui/d.psd"]);
        assert_eq!(
            scanned.folders,
            [dir.path().to_owned(), dir.path().join("ui")]
        );
    }

    #[test]
    fn an_atlas_folder_is_one_source_whose_files_and_folders_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "ui/icons.atlas/a.png",
            "ui/icons.atlas/notes.txt",
            "ui/icons.atlas/.hidden.png",
            "ui/icons.atlas/sub/b.png",
            "ui/icons.atlas/sub/c.array/d.png",
            "ui/z.png",
        ] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"x").unwrap();
        }
        let scanned = scan(dir.path(), &[], |_| false, |_| None).unwrap();
        let sources: Vec<&str> = scanned.sources.iter().map(|s| s.rel.as_str()).collect();
        assert_eq!(sources, ["ui/icons.atlas", "ui/z.png"]);
        let files = &scanned.atlas_files["ui/icons.atlas"];
        assert_eq!(
            files,
            &[
                "ui/icons.atlas/a.png",
                "ui/icons.atlas/notes.txt",
                "ui/icons.atlas/sub/b.png",
                "ui/icons.atlas/sub/c.array/d.png",
            ]
        );
        assert!(scanned.ignored.is_empty(), "{:?}", scanned.ignored);
        let atlas = dir.path().join("ui/icons.atlas");
        for folder in [atlas.clone(), atlas.join("sub"), atlas.join("sub/c.array")] {
            assert!(scanned.folders.contains(&folder), "{}", folder.display());
        }
    }
}
