//! `assetc-link`: the steps that run after the encoders.
//!
//! * [`manifest`] merges every fragment into `assets.hman`;
//! * [`pack`] bundles the files the fragments list into one `.hpack` (the
//!   single pack, or a named pack with its own manifest);
//! * [`ids`] writes the manifest's ids as a C header and a Rust module;
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
pub mod recorded;

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

/// Reads the fragment list (one path per line) and every fragment it names.
pub fn read_fragments(list: &Path) -> Result<Vec<Fragment>, LinkError> {
    let bytes = fsutil::read(list)?;
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| Fragment::read(Path::new(line)).map_err(LinkError::from))
        .collect()
}
