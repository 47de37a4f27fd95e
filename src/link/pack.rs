//! `assetc-link pack`: the files every fragment lists, plus a manifest,
//! bundled into one `.hpack`.
//!
//! Two flavours share this code:
//! * the single pack (`pack: true`), `<output>.hpack`: every fragment's files
//!   plus the folder's own `assets.hman`;
//! * a named pack (`packs:`), `<output>.<name>.hpack`, written with
//!   `--own-manifest`: its members' files plus an `assets.hman` built from its
//!   members' fragments alone, so the pack describes itself and can be mounted
//!   without the global manifest.
//!
//! **Incremental:** rebuilding a pack after an edit does not re-read every
//! file. The previous pack (the file being replaced) is read once, and each
//! of its entries whose bytes hash to the BLAKE3 value the file's fragment
//! records is taken from it; only the other files (new, changed, or without a
//! record) are read from the output folder. The recorded hash is that of the
//! bytes the encoder wrote, so a reused entry is exactly what a clean build
//! would read, and the new pack is byte for byte the clean build's. It is
//! still built whole in memory and replaces the old file atomically (only when
//! its bytes differ from the previous pack's), so an interrupted link leaves
//! the old pack or the new one. With the environment
//! variable `ASSETC_LINK_STATS` set, the step prints how many entries it
//! reused and read.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::manifest::manifest_bytes;
use super::{LinkError, read_fragments};
use crate::configure::graph::MANIFEST_FILE;
use crate::format::hpack::{self, PackItem, write_pack};
use crate::format::kind::PackKind;
use crate::fragment::{FileHash, Fragment};
use crate::fsutil::{FileError, read, write_unless_equal};

/// The pack of an output folder: `<output>.hpack`, beside the folder.
pub fn pack_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".hpack");
    name.into()
}

/// The named pack `name` of an output folder: `<output>.<name>.hpack`, beside
/// the folder and the single pack. Pack names hold no `.`, so the name and
/// the output folder's own name never run together ambiguously.
pub fn named_pack_path(output: &Path, name: &str) -> PathBuf {
    let mut file = output.as_os_str().to_owned();
    file.push(format!(".{name}.hpack"));
    file.into()
}

/// Where the pack's `assets.hman` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackManifest {
    /// The output folder's `assets.hman`, as the manifest edge wrote it.
    Folder,
    /// Built from the listed fragments (a named pack's subset).
    Own,
}

/// How a pack link got its entries' bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PackStats {
    /// Entries written, the manifest included.
    pub entries: usize,
    /// Files taken from the previous pack, verified by their recorded hash.
    pub reused: usize,
    /// Files read from the output folder.
    pub read: usize,
}

/// Writes the pack for the fragments in `list`, reading files below `root`
/// unless the previous pack at `output` already holds their recorded bytes.
pub fn link_pack(
    list: &Path,
    root: &Path,
    output: &Path,
    manifest: PackManifest,
) -> Result<PackStats, LinkError> {
    let fragments = read_fragments(list)?;
    let mut paths: Vec<&str> = fragments
        .iter()
        .flat_map(|f| f.files.iter().map(String::as_str))
        .filter(|p| *p != MANIFEST_FILE)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let previous_bytes = std::fs::read(output).ok();
    let previous = Previous::new(previous_bytes.as_deref(), &fragments);
    let mut stats = PackStats::default();
    let mut contents: Vec<Cow<'_, [u8]>> = Vec::with_capacity(paths.len() + 1);
    for path in &paths {
        match previous.verified(path) {
            Some(bytes) => {
                stats.reused += 1;
                contents.push(Cow::Borrowed(bytes));
            }
            None => {
                stats.read += 1;
                contents.push(Cow::Owned(read(&root.join(path))?));
            }
        }
    }
    paths.push(MANIFEST_FILE);
    contents.push(Cow::Owned(manifest_of(&fragments, root, output, manifest)?));
    let items: Vec<PackItem<'_>> = paths
        .iter()
        .zip(&contents)
        .map(|(path, data)| PackItem {
            path,
            kind: PackKind::from_path(path),
            data: data.as_ref(),
        })
        .collect();
    let bytes = write_pack(&items).map_err(|e| LinkError::Invalid {
        path: output.to_owned(),
        what: "cannot build the pack".into(),
        source: Some(Box::new(e)),
    })?;
    // The previous bytes are already in memory: compare with them rather than
    // have a write-if-changed read the whole pack a second time.
    write_unless_equal(output, &bytes, previous_bytes.as_deref()).map_err(|source| {
        FileError::Write {
            path: output.to_owned(),
            source,
        }
    })?;
    stats.entries = items.len();
    Ok(stats)
}

/// The previous pack's entries, with the hashes the fragments record.
struct Previous<'a> {
    /// The previous pack, when there is one and it parses.
    pack: Option<hpack::Pack<'a>>,
    /// The recorded hash of each runtime path.
    recorded: HashMap<&'a str, &'a FileHash>,
}

impl<'a> Previous<'a> {
    fn new(bytes: Option<&'a [u8]>, fragments: &'a [Fragment]) -> Self {
        let pack = bytes.and_then(|b| hpack::parse(b).ok());
        let recorded = match pack {
            Some(_) => fragments
                .iter()
                .flat_map(|f| &f.hashes)
                .map(|h| (h.path.as_str(), h))
                .collect(),
            None => HashMap::new(),
        };
        Self { pack, recorded }
    }

    /// The previous pack's bytes of `path`, when they are what its encoder
    /// recorded writing.
    fn verified(&self, path: &str) -> Option<&'a [u8]> {
        let pack = self.pack.as_ref()?;
        let hash = self.recorded.get(path)?;
        let data = pack.data(&pack.find(path)?);
        hash.matches(data).then_some(data)
    }
}

/// The bytes of the pack's `assets.hman`.
fn manifest_of(
    fragments: &[Fragment],
    root: &Path,
    output: &Path,
    manifest: PackManifest,
) -> Result<Vec<u8>, LinkError> {
    match manifest {
        PackManifest::Folder => Ok(read(&root.join(MANIFEST_FILE))?),
        PackManifest::Own => manifest_bytes(fragments, output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_packs_sit_beside_the_single_pack() {
        let output = Path::new("runtime/desktop");
        assert_eq!(pack_path(output), Path::new("runtime/desktop.hpack"));
        assert_eq!(
            named_pack_path(output, "level1"),
            Path::new("runtime/desktop.level1.hpack")
        );
    }
}
