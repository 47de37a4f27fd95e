//! `assetc pack patch --base BASE NEW -o PATCH`: writes the patch pack that,
//! mounted above BASE, gives NEW (see [`crate::format::patch`]).
//!
//! Both packs are read once and fully validated; the patch is written
//! through [`format::patch::write_patch`](crate::format::patch::write_patch)
//! and then atomically, and only when its bytes change
//! ([`fsutil::write_output`]): an error leaves no file behind, and an existing
//! file at the output path keeps its bytes.

use std::path::{Path, PathBuf};

use super::human_bytes;
use super::pack_info::{PackInfoError, parse_named};
use crate::format::patch::{self, PatchError};
use crate::fsutil::{self, FileError};

/// What a written patch holds, for the line the command prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchSummary {
    /// The patch file.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Entries it holds because BASE lacks them.
    pub added: usize,
    /// Entries it holds because BASE's differ.
    pub changed: usize,
    /// Paths its removed list names.
    pub removed: usize,
    /// Whether the file was written (false: it already held these bytes).
    pub wrote: bool,
}

impl PatchSummary {
    /// One line for people.
    pub fn line(&self) -> String {
        let verb = if self.wrote { "wrote" } else { "unchanged" };
        format!(
            "{verb} {}: {} added, {} changed, {} removed, {}",
            self.path.display(),
            self.added,
            self.changed,
            self.removed,
            human_bytes(self.bytes)
        )
    }
}

/// Why `pack patch` failed.
#[derive(Debug, thiserror::Error)]
pub enum PackPatchError {
    /// A pack could not be read or is not a valid `.hpack`.
    #[error(transparent)]
    Pack(#[from] PackInfoError),
    /// The packs cannot make a patch; `file` is the one at fault.
    #[error("{}: cannot make a patch from it", file.display())]
    Refused {
        /// The pack at fault.
        file: PathBuf,
        /// Why.
        #[source]
        source: PatchError,
    },
    /// The patch could not be written.
    #[error(transparent)]
    Write(#[from] FileError),
}

/// Writes the patch from `base` to `new` at `output`.
pub fn write(base: &Path, new: &Path, output: &Path) -> Result<PatchSummary, PackPatchError> {
    let base_bytes = fsutil::read(base)?;
    let new_bytes = fsutil::read(new)?;
    let base_pack = parse_named(base, &base_bytes)?;
    let new_pack = parse_named(new, &new_bytes)?;
    let written = patch::write_patch(&base_pack, &new_pack).map_err(|source| {
        let file = if source.blames_base() { base } else { new };
        PackPatchError::Refused {
            file: file.to_owned(),
            source,
        }
    })?;
    let wrote = fsutil::write_output(output, &written.bytes)?;
    Ok(PatchSummary {
        path: output.to_owned(),
        bytes: written.bytes.len() as u64,
        added: written.added,
        changed: written.changed,
        removed: written.removed,
        wrote,
    })
}
