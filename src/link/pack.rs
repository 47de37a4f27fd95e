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

use std::path::{Path, PathBuf};

use super::manifest::manifest_bytes;
use super::{LinkError, read_fragments};
use crate::configure::graph::MANIFEST_FILE;
use crate::format::hpack::{PackItem, write_pack};
use crate::format::kind::PackKind;
use crate::fragment::Fragment;
use crate::fsutil::{read, write_output};

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

/// Writes the pack for the fragments in `list`, reading files below `root`.
/// Returns the number of entries.
pub fn link_pack(
    list: &Path,
    root: &Path,
    output: &Path,
    manifest: PackManifest,
) -> Result<usize, LinkError> {
    let fragments = read_fragments(list)?;
    let mut paths: Vec<&str> = fragments
        .iter()
        .flat_map(|f| f.files.iter().map(String::as_str))
        .filter(|p| *p != MANIFEST_FILE)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let mut contents = paths
        .iter()
        .map(|p| read(&root.join(p)))
        .collect::<Result<Vec<_>, _>>()?;
    paths.push(MANIFEST_FILE);
    contents.push(manifest_of(&fragments, root, output, manifest)?);
    let items: Vec<PackItem<'_>> = paths
        .iter()
        .zip(&contents)
        .map(|(path, data)| PackItem {
            path,
            kind: PackKind::from_path(path),
            data,
        })
        .collect();
    let bytes = write_pack(&items).map_err(|e| LinkError::Invalid {
        path: output.to_owned(),
        what: "cannot build the pack".into(),
        source: Some(Box::new(e)),
    })?;
    write_output(output, &bytes)?;
    Ok(items.len())
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
