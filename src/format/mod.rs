//! On-disk layouts, readers, writers and validators for every file assetc writes.
//!
//! This module is the engine-facing half of the crate. It depends on `bytemuck`
//! only, never allocates from an untrusted count before checking it against the
//! input length, and never panics on malformed input: every reader returns a
//! [`error::FormatError`] carrying the byte offset and the field at fault.
//!
//! Every format module has a `validate(bytes)` that checks a whole file held
//! in a buffer of any alignment, next to its readers and its writer.
//! [`identify`] tells a file's type from its first bytes and [`open()`] checks
//! it and returns the typed view ([`AssetFile`]); `docs/engine.md` walks
//! through using this module from an engine.

pub mod bytes;
pub mod dfd;
pub mod error;
pub mod hanim;
pub mod hash;
pub mod hatlas;
pub mod hfont;
pub mod hman;
pub mod hmat;
pub mod hmesh;
pub mod hpack;
pub mod hpack_layout;
pub mod hsnd;
pub mod kind;
pub mod ktx2;
pub mod oct;
pub mod open;
pub mod patch;
pub mod removed;
pub mod rgb9e5;
#[cfg(test)]
mod test_support;
pub mod texel;

pub use open::{AssetFile, FileType, identify, open};
