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
//! the old pack or the new one. Entries of parts that did not change since
//! the step last wrote this very pack file are taken without hashing them
//! ([`super::pack_state`]). With the environment variable `ASSETC_LINK_STATS`
//! set, the step prints how many entries it reused (and of those, how many
//! without hashing) and read.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::manifest::manifest_bytes;
use super::pack_state::{PackState, identity_of, state_path};
use super::{LinkError, part, read_listed};
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
    /// Files taken from the previous pack.
    pub reused: usize,
    /// Of those, files whose part was unchanged since this step wrote the
    /// pack, taken without hashing them.
    pub trusted: usize,
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
    let (parts, fragments) = read_parts(list)?;
    let mut paths: Vec<&str> = fragments
        .iter()
        .flat_map(|f| f.files.iter().map(String::as_str))
        .filter(|p| *p != MANIFEST_FILE)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let state_file = state_path(list);
    let identity = identity_of(output);
    let previous_bytes = std::fs::read(output).ok();
    // The same identity after the read as before it: the bytes read are the
    // ones the identity describes.
    let unchanged = identity.filter(|&id| identity_of(output) == Some(id));
    let state = unchanged
        .zip(PackState::load(&state_file))
        .filter(|(now, state)| state.pack == *now)
        .map(|(_, state)| state);
    let previous = Previous::new(
        previous_bytes.as_deref(),
        &parts,
        &fragments,
        state.as_ref(),
    );
    let mut stats = PackStats::default();
    let mut contents: Vec<Cow<'_, [u8]>> = Vec::with_capacity(paths.len() + 1);
    for path in &paths {
        match previous.reusable(path) {
            Some((bytes, trusted)) => {
                stats.reused += 1;
                stats.trusted += usize::from(trusted);
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
    // Whatever happens to the pack from here, the old record no longer holds.
    PackState::forget(&state_file);
    // The previous bytes are already in memory: compare with them rather than
    // have a write-if-changed read the whole pack a second time.
    write_unless_equal(output, &bytes, previous_bytes.as_deref()).map_err(|source| {
        FileError::Write {
            path: output.to_owned(),
            source,
        }
    })?;
    if let Some(pack) = identity_of(output) {
        let parts = parts.into_iter().map(|p| (p.listed, p.digest)).collect();
        PackState { pack, parts }.save(&state_file);
    }
    stats.entries = items.len();
    Ok(stats)
}

/// One part file of the pack's list.
struct ListedPart {
    /// Its path as the list names it.
    listed: String,
    /// The BLAKE3 of its bytes.
    digest: blake3::Hash,
    /// Where its fragments are in the list's fragments.
    fragments: Range<usize>,
}

/// Reads every part (or fragment) file that `list` names: the parts, and all
/// their fragments in list order.
fn read_parts(list: &Path) -> Result<(Vec<ListedPart>, Vec<Fragment>), LinkError> {
    let mut parts = Vec::new();
    let mut fragments = Vec::new();
    for (listed, (held, digest)) in read_listed(list, part::read_fragment_file_hashed)? {
        let start = fragments.len();
        fragments.extend(held);
        parts.push(ListedPart {
            listed,
            digest,
            fragments: start..fragments.len(),
        });
    }
    Ok((parts, fragments))
}

/// The previous pack's entries, with the hashes the fragments record.
struct Previous<'a> {
    /// The previous pack, when there is one and it parses.
    pack: Option<hpack::Pack<'a>>,
    /// The recorded hash of each runtime path, and whether its part is
    /// unchanged since the step wrote this pack file (so its entry holds the
    /// recorded bytes without hashing them).
    recorded: HashMap<&'a str, (&'a FileHash, bool)>,
}

impl<'a> Previous<'a> {
    /// `state` is the step's record of this very pack file, if it has one.
    fn new(
        bytes: Option<&'a [u8]>,
        parts: &[ListedPart],
        fragments: &'a [Fragment],
        state: Option<&PackState>,
    ) -> Self {
        let pack = bytes.and_then(|b| hpack::parse(b).ok());
        let mut recorded = HashMap::new();
        if pack.is_some() {
            for part in parts {
                let unchanged =
                    state.is_some_and(|s| s.parts.get(&part.listed) == Some(&part.digest));
                let held = fragments.get(part.fragments.clone()).unwrap_or_default();
                for hash in held.iter().flat_map(|f| &f.hashes) {
                    recorded.insert(hash.path.as_str(), (hash, unchanged));
                }
            }
        }
        Self { pack, recorded }
    }

    /// The previous pack's bytes of `path`, when they are what its encoder
    /// recorded writing, and whether that was known without hashing them.
    fn reusable(&self, path: &str) -> Option<(&'a [u8], bool)> {
        let pack = self.pack.as_ref()?;
        let &(hash, unchanged) = self.recorded.get(path)?;
        let data = pack.data(&pack.find(path)?);
        if unchanged {
            return Some((data, true));
        }
        hash.matches(data).then_some((data, false))
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
