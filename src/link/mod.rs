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
//!   [`check_packs`] its named packs.
//!
//! The first three read the fragment list configure wrote, never a walk of the
//! output folder, so a stale file can never reach the manifest or the pack.

pub mod check;
pub mod check_packs;
pub mod command;
pub mod ids;
pub mod manifest;
pub mod pack;
pub mod pack_state;
pub mod part;
pub mod previous_pack;
pub mod recorded;
pub mod report;

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
pub fn read_fragments(list: &Path) -> Result<Vec<Fragment>, LinkError> {
    let files = read_listed(list, part::read_fragment_file)?;
    Ok(files
        .into_iter()
        .flat_map(|(_, fragments)| fragments)
        .collect())
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
