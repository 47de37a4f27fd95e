//! `assetc-link`: the steps that run after the encoders.
//!
//! * [`part`] merges one folder's fragments into its part files, the first
//!   level of the link, so the steps below read a few hundred parts instead
//!   of every fragment;
//! * [`manifest`] merges every fragment into `assets.hman`;
//! * [`pack`] bundles the files the fragments list into one `.hpack` (the
//!   single pack, or a named pack with its own manifest);
//! * [`ids`] writes the manifest's ids as a C header and a Rust module;
//! * [`report`] lists the assets that failed under `keep_going`, and fails
//!   while there are any;
//! * [`check`] validates an output folder (and optionally its pack), and
//!   [`check_packs`] its named packs, each reporting a [`problem::Problem`].
//!
//! The first three read the fragment list configure wrote, never a walk of the
//! output folder, so a stale file can never reach the manifest or the pack.
//!
//! A source is one unit: under `keep_going`, when any edge of a source fails
//! (a mesh's own edge, or the texture edge of one of its images), every
//! fragment of that source is withdrawn ([`withdraw_failed_sources`]), so no
//! `.hmat` in the manifest names a texture that was not built, and no texture
//! of a mesh that failed is shipped without it.

pub mod check;
pub mod check_atlases;
pub mod check_packs;
pub mod check_sounds;
pub mod command;
pub mod ids;
pub mod manifest;
pub mod pack;
pub mod pack_base;
pub mod pack_state;
pub mod part;
pub mod previous_pack;
pub mod problem;
pub mod recorded;
pub mod report;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::fragment::{Fragment, FragmentError};
use crate::fsutil::{self, FileError};

/// Why a link step failed.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// A fragment could not be read.
    #[error(transparent)]
    Fragment(#[from] FragmentError),
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The inputs cannot be linked.
    #[error("{}: {what}", path.display())]
    Invalid {
        /// The file being produced.
        path: PathBuf,
        /// What is wrong.
        what: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

/// Reads the fragment list (one path per line) and every fragment the files
/// it names hold: each is a fragment or a part of several
/// ([`part::read_fragment_file`]).
/// The fragments of failed sources are withdrawn ([`withdraw_failed_sources`]).
pub fn read_fragments(list: &Path) -> Result<Vec<Fragment>, LinkError> {
    let files = read_listed(list, part::read_fragment_file)?;
    let mut fragments: Vec<Fragment> = files
        .into_iter()
        .flat_map(|(_, fragments)| fragments)
        .collect();
    withdraw_failed_sources(&mut fragments);
    Ok(fragments)
}

/// The sources some fragment of which records a failure.
pub fn failed_sources(fragments: &[Fragment]) -> HashSet<&str> {
    fragments
        .iter()
        .filter(|f| f.failed())
        .map(|f| f.source.as_str())
        .collect()
}

/// Empties the built fragments of every source that also has a failed one
/// (their entries, files, hashes, copies and formats), so the source is left out of
/// the manifest, the ids and the packs as a whole; the failed fragments keep
/// their errors for the report. Returns the runtime paths withdrawn.
pub fn withdraw_failed_sources(fragments: &mut [Fragment]) -> Vec<String> {
    let failed: HashSet<String> = failed_sources(fragments)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let mut withdrawn = Vec::new();
    if failed.is_empty() {
        return withdrawn;
    }
    for fragment in fragments
        .iter_mut()
        .filter(|f| !f.failed() && failed.contains(&f.source))
    {
        withdrawn.append(&mut fragment.files);
        fragment.entries.clear();
        fragment.hashes.clear();
        fragment.copies.clear();
        fragment.formats.clear();
    }
    withdrawn
}

/// Reads the list (one path per line) and each file it names with `read`;
/// returns every line with what was read from it.
pub fn read_listed<T>(
    list: &Path,
    read: impl Fn(&Path) -> Result<T, FragmentError>,
) -> Result<Vec<(String, T)>, LinkError> {
    let bytes = fsutil::read(list)?;
    let mut files = Vec::new();
    for line in String::from_utf8_lossy(&bytes).lines() {
        if !line.is_empty() {
            files.push((line.to_owned(), read(Path::new(line))?));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::kind::{AssetKind, ColorSpace};
    use crate::fragment::FragmentEntry;

    fn built(source: &str, path: &str) -> Fragment {
        Fragment {
            source: source.into(),
            entries: vec![FragmentEntry {
                kind: AssetKind::Texture,
                colorspace: ColorSpace::Srgb,
                path: path.into(),
            }],
            files: vec![path.into()],
            ..Fragment::default()
        }
    }

    #[test]
    fn a_failed_edge_withdraws_every_fragment_of_its_source() {
        let failed_mesh = Fragment {
            source: "m/chair.gltf".into(),
            errors: vec!["assetc-encode: error: m/chair.gltf: images[1].uri …".into()],
            ..Fragment::default()
        };
        let mut fragments = vec![
            built("m/chair.gltf", "m/chair/tex_0.ktx2"),
            failed_mesh.clone(),
            built("ui/a.png", "ui/a.ktx2"),
        ];
        let withdrawn = withdraw_failed_sources(&mut fragments);
        assert_eq!(withdrawn, ["m/chair/tex_0.ktx2"]);
        assert!(fragments[0].entries.is_empty() && fragments[0].files.is_empty());
        assert_eq!(fragments[1], failed_mesh, "the failure keeps its errors");
        assert_eq!(fragments[2], built("ui/a.png", "ui/a.ktx2"));
        assert_eq!(
            failed_sources(&fragments).into_iter().collect::<Vec<_>>(),
            ["m/chair.gltf"]
        );
    }
}
