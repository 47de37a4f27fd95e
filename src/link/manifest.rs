//! `assetc-link manifest`: every fragment's entries merged into `assets.hman`.
//!
//! Each entry's id is derived from its runtime path by its kind's rule
//! ([`AssetKind::id_for_path`](crate::format::kind::AssetKind::id_for_path)). Identical entries from several fragments
//! collapse; two different paths with one id stop the link with both paths and
//! both sources named.

use std::collections::HashMap;
use std::path::Path;

use super::{LinkError, read_fragments};
use crate::format::hman::{ManifestEntry, write_manifest};
use crate::fragment::Fragment;
use crate::fsutil::write_output;

/// Builds the manifest from the fragments named in `list` and writes it to
/// `output` (only if its bytes change).
pub fn link_manifest(list: &Path, output: &Path) -> Result<usize, LinkError> {
    let fragments = read_fragments(list)?;
    let entries = collect_entries(&fragments, output)?;
    let bytes = write_manifest(&entries).map_err(|e| LinkError::Invalid {
        path: output.to_owned(),
        what: "cannot build the manifest".into(),
        source: Some(Box::new(e)),
    })?;
    write_output(output, &bytes)?;
    Ok(entries.len())
}

/// Gathers every entry, refusing id collisions with a message that names the
/// sources as well as the paths.
fn collect_entries(fragments: &[Fragment], output: &Path) -> Result<Vec<ManifestEntry>, LinkError> {
    let mut owners: HashMap<u64, (&str, &str)> = HashMap::new();
    let mut entries = Vec::new();
    for fragment in fragments {
        for e in &fragment.entries {
            let hash = e.kind.id_for_path(&e.path);
            let (path, source) = *owners.entry(hash).or_insert((&e.path, &fragment.source));
            if path != e.path {
                return Err(LinkError::Invalid {
                    path: output.to_owned(),
                    what: format!(
                        "id {hash:#018x} collides: '{path}' (from '{source}') and '{}' (from '{}'); rename one of them",
                        e.path, fragment.source
                    ),
                    source: None,
                });
            }
            entries.push(ManifestEntry {
                hash,
                kind: e.kind,
                colorspace: e.colorspace,
                path: e.path.clone(),
            });
        }
    }
    Ok(entries)
}
