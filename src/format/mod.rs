//! On-disk layouts, readers, writers and validators for every file assetc writes.
//!
//! This module is the engine-facing half of the crate. It depends on `bytemuck`
//! only, never allocates from an untrusted count before checking it against the
//! input length, and never panics on malformed input: every reader returns a
//! [`error::FormatError`] carrying the byte offset and the field at fault.

pub mod bytes;
pub mod error;
pub mod hanim;
pub mod hash;
pub mod hman;
pub mod hmat;
pub mod hmesh;
pub mod hpack;
pub mod kind;
pub mod ktx2;
pub mod oct;
