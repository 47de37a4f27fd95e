//! The error every format reader and validator returns.
//!
//! A [`FormatError`] names the byte offset where the problem sits and the field
//! being read, so a message such as `offset 88: ManEntry.pathLen: runs past the
//! end of the file (needs 12 bytes, 3 left)` points straight at the fault.

use core::fmt;

/// A malformed or unsupported file, located by byte offset and field name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// Byte offset from the start of the file where the fault was found.
    pub offset: u64,
    /// The field (or structure) being read, for example `"ManHeader.magic"`.
    pub field: &'static str,
    /// What is wrong with it.
    pub what: String,
}

impl FormatError {
    /// Creates an error at `offset` for `field`.
    pub fn new(offset: u64, field: &'static str, what: impl Into<String>) -> Self {
        Self {
            offset,
            field,
            what: what.into(),
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: {}: {}", self.offset, self.field, self.what)
    }
}

impl std::error::Error for FormatError {}

/// Shorthand for results of format readers.
pub type FormatResult<T> = Result<T, FormatError>;
