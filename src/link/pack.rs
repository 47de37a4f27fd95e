//! `assetc-link pack`: the files every fragment lists, plus the manifest,
//! bundled into one `.hpack`.

use std::path::{Path, PathBuf};

use super::{LinkError, read_fragments};
use crate::configure::graph::MANIFEST_FILE;
use crate::format::hpack::{PackItem, write_pack};
use crate::format::kind::PackKind;
use crate::fsutil::{read, write_output};

/// The pack of an output folder: `<output>.hpack`, beside the folder.
pub fn pack_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".hpack");
    name.into()
}

/// Writes the pack for the fragments in `list`, reading files below `root`.
/// Returns the number of entries.
pub fn link_pack(list: &Path, root: &Path, output: &Path) -> Result<usize, LinkError> {
    let fragments = read_fragments(list)?;
    let mut paths: Vec<&str> = fragments
        .iter()
        .flat_map(|f| f.files.iter().map(String::as_str))
        .collect();
    paths.push(MANIFEST_FILE);
    paths.sort_unstable();
    paths.dedup();
    let contents = paths
        .iter()
        .map(|p| read(&root.join(p)))
        .collect::<Result<Vec<_>, _>>()?;
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
