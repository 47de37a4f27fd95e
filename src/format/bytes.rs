//! Helpers shared by the format readers: a bounds-checked cursor over
//! untrusted bytes and the rule every runtime path follows.

use super::error::{FormatError, FormatResult};

/// Checks that `path` is a clean relative runtime path, as both `.hman` and
/// `.hpack` require: non-empty, `/`-separated, not starting with `/`, no `\`,
/// no NUL byte, and no empty, `.` or `..` component.
///
/// Returns the reason on failure, phrased to follow "invalid path: ".
pub fn check_runtime_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        return Err("it is empty");
    }
    if path.starts_with('/') {
        return Err("it starts with '/' (paths are relative to the output root)");
    }
    if path.contains('\\') {
        return Err("it contains '\\' (the separator is '/')");
    }
    if path.contains('\0') {
        return Err("it contains a NUL byte");
    }
    for component in path.split('/') {
        match component {
            "" => return Err("it has an empty component ('//' or a trailing '/')"),
            "." | ".." => return Err("it has a '.' or '..' component"),
            _ => {}
        }
    }
    Ok(())
}

/// Shortens a path for an error message so a 64 KiB path does not flood it.
pub(crate) fn abbreviate(path: &str) -> String {
    const KEEP: usize = 80;
    match path.char_indices().nth(KEEP) {
        Some((cut, _)) => format!("{}…", &path[..cut]),
        None => path.to_owned(),
    }
}

/// A bounds-checked little-endian cursor over untrusted bytes.
///
/// Every read either returns the requested bytes or a [`FormatError`] naming
/// the field and the offset where it would have started; it never panics.
#[derive(Debug, Clone)]
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A cursor at the start of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    /// The current position as a file offset.
    pub(crate) fn offset(&self) -> u64 {
        self.pos as u64
    }

    /// Bytes left after the current position.
    pub(crate) fn remaining(&self) -> usize {
        self.rest().len()
    }

    /// The unread bytes.
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    /// The error for a `field` of `needed` bytes that does not fit.
    fn too_short(&self, needed: usize, field: &'static str) -> FormatError {
        FormatError::new(
            self.offset(),
            field,
            format!(
                "runs past the end of the file (needs {needed} bytes, {} left)",
                self.remaining()
            ),
        )
    }

    /// Consumes the next `len` bytes.
    pub(crate) fn take(&mut self, len: usize, field: &'static str) -> FormatResult<&'a [u8]> {
        let taken = self
            .rest()
            .get(..len)
            .ok_or_else(|| self.too_short(len, field))?;
        self.pos += len;
        Ok(taken)
    }

    /// Consumes the next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self, field: &'static str) -> FormatResult<[u8; N]> {
        let chunk = *self
            .rest()
            .first_chunk::<N>()
            .ok_or_else(|| self.too_short(N, field))?;
        self.pos += N;
        Ok(chunk)
    }

    /// Consumes one byte that encodes an enum, decoded by `decode`; an
    /// unknown value is an error at that byte, naming it as `what`.
    pub(crate) fn code<T>(
        &mut self,
        field: &'static str,
        what: &str,
        decode: impl FnOnce(u8) -> Option<T>,
    ) -> FormatResult<T> {
        let at = self.offset();
        let byte = self.u8(field)?;
        decode(byte).ok_or_else(|| FormatError::new(at, field, format!("unknown {what} {byte}")))
    }

    /// Consumes one byte.
    pub(crate) fn u8(&mut self, field: &'static str) -> FormatResult<u8> {
        self.array::<1>(field).map(|[byte]| byte)
    }

    /// Consumes a little-endian `u16`.
    pub(crate) fn u16(&mut self, field: &'static str) -> FormatResult<u16> {
        self.array(field).map(u16::from_le_bytes)
    }

    /// Consumes a little-endian `u64`.
    pub(crate) fn u64(&mut self, field: &'static str) -> FormatResult<u64> {
        self.array(field).map(u64::from_le_bytes)
    }

    /// Consumes `len` bytes that must form a valid runtime path.
    pub(crate) fn path(&mut self, len: usize, field: &'static str) -> FormatResult<&'a str> {
        let at = self.offset();
        let raw = self.take(len, field)?;
        let path = core::str::from_utf8(raw).map_err(|err| {
            FormatError::new(
                at + err.valid_up_to() as u64,
                field,
                "path is not valid UTF-8",
            )
        })?;
        check_runtime_path(path).map_err(|reason| {
            FormatError::new(
                at,
                field,
                format!("invalid path {:?}: {reason}", abbreviate(path)),
            )
        })?;
        Ok(path)
    }
}
