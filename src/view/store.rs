//! Where `assetc view` reads files from: an output folder or one `.hpack`.
//!
//! Every path the page asks for is a runtime path (`models/crate.hmesh`). It
//! must be a clean relative path ([`check_runtime_path`]) and, for a folder,
//! must still lie inside the folder once symbolic links are resolved; a pack
//! only answers for its own entries. Nothing outside the chosen output is
//! ever read.

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::ViewError;
use crate::format::bytes::{AlignedBytes, check_runtime_path};
use crate::format::hpack;
use crate::fsutil::slash_relative;

/// The files being inspected.
pub enum Store {
    /// An output folder.
    Folder {
        /// The folder as given (for display).
        shown: PathBuf,
        /// The folder with symbolic links resolved.
        canonical: PathBuf,
    },
    /// A pack file, read once at start-up.
    Pack {
        /// The pack as given.
        path: PathBuf,
        /// Its bytes, 16-byte aligned so meshes are lent in place.
        bytes: AlignedBytes,
        /// Its entries in path order, read once when the pack was opened.
        entries: Vec<PackedFile>,
    },
}

/// Where one entry lies in the pack's bytes (checked by the pack reader).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedFile {
    /// Runtime path.
    path: String,
    /// Byte range of its payload.
    range: std::ops::Range<usize>,
}

/// One file of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Runtime path.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
}

impl Store {
    /// The output folder `root`.
    pub fn folder(root: &Path) -> Result<Self, ViewError> {
        let canonical = fs::canonicalize(root)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| ViewError::Source {
                path: root.to_owned(),
                what: "not a folder (build first, or pass -o)".into(),
            })?;
        Ok(Store::Folder {
            shown: root.to_owned(),
            canonical,
        })
    }

    /// The pack at `path`, checked whole before anything is served.
    pub fn pack(path: &Path) -> Result<Self, ViewError> {
        let bytes = AlignedBytes::read(path).map_err(|e| ViewError::Source {
            path: path.to_owned(),
            what: format!("cannot read: {e}"),
        })?;
        let pack = hpack::parse(bytes.as_bytes()).map_err(|e| ViewError::Source {
            path: path.to_owned(),
            what: e.to_string(),
        })?;
        let entries = pack
            .iter()
            .map(|entry| PackedFile {
                path: entry.path.to_owned(),
                range: entry.offset as usize..entry.end() as usize,
            })
            .collect();
        Ok(Store::Pack {
            path: path.to_owned(),
            bytes,
            entries,
        })
    }

    /// The folder or pack as the user named it.
    pub fn shown(&self) -> String {
        match self {
            Store::Folder { shown, .. } => shown.display().to_string(),
            Store::Pack { path, .. } => path.display().to_string(),
        }
    }

    /// `folder` or `pack`.
    pub fn kind(&self) -> &'static str {
        match self {
            Store::Folder { .. } => "folder",
            Store::Pack { .. } => "pack",
        }
    }

    /// The output folder, when the store is one.
    pub fn folder_root(&self) -> Option<&Path> {
        match self {
            Store::Folder { shown, .. } => Some(shown),
            Store::Pack { .. } => None,
        }
    }

    /// Every file: a folder's in `assetc info`'s order (a walk sorted by
    /// file name), a pack's in path order.
    pub fn list(&self) -> Result<Vec<Listed>, ViewError> {
        match self {
            Store::Folder { canonical, .. } => list_folder(canonical),
            Store::Pack { entries, .. } => Ok(entries
                .iter()
                .map(|entry| Listed {
                    path: entry.path.clone(),
                    bytes: entry.range.len() as u64,
                })
                .collect()),
        }
    }

    /// Whether the runtime path `path` is a file [`Store::read`] would
    /// serve, found without reading it.
    pub fn contains(&self, path: &str) -> bool {
        if check_runtime_path(path).is_err() {
            return false;
        }
        match self {
            Store::Folder { canonical, .. } => resolve_inside(canonical, path).is_ok(),
            Store::Pack { entries, .. } => entries
                .binary_search_by(|entry| entry.path.as_str().cmp(path))
                .is_ok(),
        }
    }

    /// The bytes of the file at runtime path `path`.
    pub fn read(&self, path: &str) -> Result<Cow<'_, [u8]>, ViewError> {
        check_runtime_path(path).map_err(|why| ViewError::Refused {
            path: path.to_owned(),
            what: why.to_owned(),
        })?;
        match self {
            Store::Folder { canonical, .. } => read_inside(canonical, path).map(Cow::Owned),
            Store::Pack { bytes, entries, .. } => entries
                .binary_search_by(|entry| entry.path.as_str().cmp(path))
                .ok()
                .and_then(|index| entries.get(index))
                .and_then(|entry| bytes.as_bytes().get(entry.range.clone()))
                .map(Cow::Borrowed)
                .ok_or_else(|| ViewError::NotFound(path.to_owned())),
        }
    }

    /// The bytes of a file [`Store::list`] returned. The walk that listed it
    /// saw a regular file inside the folder (it does not follow symbolic
    /// links), so it is read without resolving its path again.
    pub fn read_listed(&self, file: &Listed) -> Result<Cow<'_, [u8]>, ViewError> {
        match self {
            Store::Folder { canonical, .. } => {
                let path = canonical.join(&file.path);
                fs::read(&path)
                    .map(Cow::Owned)
                    .map_err(|e| ViewError::Source {
                        path,
                        what: format!("cannot read: {e}"),
                    })
            }
            Store::Pack { .. } => self.read(&file.path),
        }
    }
}

/// Every file below `root`, skipping temporary files of a running build.
fn list_folder(root: &Path) -> Result<Vec<Listed>, ViewError> {
    let mut files = Vec::new();
    for entry in WalkDir::new(root).sort_by_file_name() {
        let entry = entry.map_err(|e| ViewError::Source {
            path: root.to_owned(),
            what: format!("cannot list: {e}"),
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(path) = slash_relative(root, entry.path()) else {
            continue;
        };
        if path
            .rsplit('/')
            .next()
            .is_some_and(|name| name.starts_with(crate::fsutil::TEMP_PREFIX))
        {
            continue;
        }
        let bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
        files.push(Listed { path, bytes });
    }
    Ok(files)
}

/// The file `path` below `root`, symbolic links resolved, refusing anything
/// that resolves outside it or is not a file.
fn resolve_inside(root: &Path, path: &str) -> Result<PathBuf, ViewError> {
    let resolved =
        fs::canonicalize(root.join(path)).map_err(|_| ViewError::NotFound(path.to_owned()))?;
    if !resolved.starts_with(root) {
        return Err(ViewError::Refused {
            path: path.to_owned(),
            what: "resolves outside the output folder".into(),
        });
    }
    if !resolved.is_file() {
        return Err(ViewError::NotFound(path.to_owned()));
    }
    Ok(resolved)
}

/// Reads `path` below `root`, refusing anything that resolves outside it.
fn read_inside(root: &Path, path: &str) -> Result<Vec<u8>, ViewError> {
    let resolved = resolve_inside(root, path)?;
    fs::read(&resolved).map_err(|e| ViewError::Source {
        path: root.join(path),
        what: format!("cannot read: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hpack::{PackItem, write_pack};

    #[test]
    fn a_pack_serves_every_entry_of_a_shared_payload() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.hpack");
        let items = [
            PackItem::new("a/tex_0.ktx2", &[3; 20]),
            PackItem::new("b.bin", b"b"),
            PackItem::new("c/tex_0.ktx2", &[3; 20]),
        ];
        fs::write(&path, write_pack(&items).unwrap()).unwrap();
        let store = Store::pack(&path).unwrap();
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 3);
        for (item, file) in items.iter().zip(&listed) {
            assert_eq!(*store.read_listed(file).unwrap(), *item.data);
            assert_eq!(file.bytes, item.data.len() as u64);
        }
    }
}
