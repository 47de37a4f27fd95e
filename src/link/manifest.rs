//! `assetc-link manifest`: every fragment's entries merged into `assets.hman`.
//!
//! Each entry's id is derived from its runtime path by its kind's rule
//! ([`AssetKind::id_for_path`](crate::format::kind::AssetKind::id_for_path)).
//! The manifest writer collapses identical entries and refuses two different
//! paths with one id; the link adds which sources those paths came from.

use std::path::Path;

use super::{LinkError, read_fragments};
use crate::format::hman::{ManifestEntry, ManifestError, write_manifest};
use crate::fragment::Fragment;
use crate::fsutil::write_output;

/// Builds the manifest from the fragments named in `list` and writes it to
/// `output` (only if its bytes change). Returns the number of entries given.
pub fn link_manifest(list: &Path, output: &Path) -> Result<usize, LinkError> {
    let fragments = read_fragments(list)?;
    let bytes = manifest_bytes(&fragments, output)?;
    write_output(output, &bytes)?;
    Ok(fragments.iter().map(|f| f.entries.len()).sum())
}

/// The manifest bytes registering every entry of `fragments`; `output` names
/// the file being produced in errors (the manifest, or a named pack holding
/// its own).
pub fn manifest_bytes(fragments: &[Fragment], output: &Path) -> Result<Vec<u8>, LinkError> {
    let entries: Vec<ManifestEntry> = fragments
        .iter()
        .flat_map(|f| &f.entries)
        .map(|e| ManifestEntry {
            hash: e.kind.id_for_path(&e.path),
            kind: e.kind,
            colorspace: e.colorspace,
            path: e.path.clone(),
        })
        .collect();
    write_manifest(&entries).map_err(|e| manifest_error(e, fragments, output))
}

/// Explains a refused manifest; a collision names the sources of both paths.
fn manifest_error(error: ManifestError, fragments: &[Fragment], output: &Path) -> LinkError {
    let what = match &error {
        ManifestError::Collision {
            hash,
            first,
            second,
        } => format!(
            "id {hash:#018x} collides: '{first}' (from '{}') and '{second}' (from '{}'); rename one of them",
            source_of(fragments, first),
            source_of(fragments, second)
        ),
        _ => "cannot build the manifest".into(),
    };
    LinkError::Invalid {
        path: output.to_owned(),
        what,
        source: Some(Box::new(error)),
    }
}

/// The source whose fragment registers `path`.
fn source_of<'a>(fragments: &'a [Fragment], path: &str) -> &'a str {
    fragments
        .iter()
        .find(|f| f.entries.iter().any(|e| e.path == path))
        .map_or("?", |f| f.source.as_str())
}
