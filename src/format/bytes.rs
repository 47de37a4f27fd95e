//! Helpers shared by the format readers: a bounds-checked cursor over
//! untrusted bytes, the rule every runtime path follows, the in-place casts
//! of `.hmesh`, `.hmat` and `.hfont`, plus [`AlignedBytes`], the buffer an
//! engine loads files into so the in-place readers can use them.

use bytemuck::{Pod, PodCastError};

use super::error::{FormatError, FormatResult};

/// The little-endian `u32` at `offset` of `bytes`, if the four bytes are
/// there. The encoders' container scanners (GLB chunks, RIFF chunks) use it.
#[cfg(feature = "tool")]
pub(crate) fn le_u32_at(bytes: &[u8], offset: usize) -> Option<u32> {
    let word: [u8; 4] = bytes.get(offset..offset.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(word))
}

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

/// What identifies a file: the magic at offset 0 and the version at offset
/// 4, with the field names errors give them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileId {
    /// The magic read as a little-endian `u32`.
    pub magic: u32,
    /// The one version the reader accepts.
    pub version: u32,
    /// Field name of the magic, e.g. `"FileHeader.magic"`.
    pub magic_field: &'static str,
    /// Field name of the version.
    pub version_field: &'static str,
}

impl FileId {
    /// Checks a header's magic and version against this id.
    pub(crate) fn check(&self, magic: u32, version: u32) -> FormatResult<()> {
        if magic != self.magic {
            return Err(FormatError::new(
                0,
                self.magic_field,
                format!(
                    "expected \"{}\", found \"{}\"",
                    self.magic.to_le_bytes().escape_ascii(),
                    magic.to_le_bytes().escape_ascii()
                ),
            ));
        }
        if version != self.version {
            return Err(FormatError::new(
                4,
                self.version_field,
                format!(
                    "version {version} is not supported (expected {})",
                    self.version
                ),
            ));
        }
        Ok(())
    }
}

/// Reads the fixed-size header `T` from the start of `bytes` (any
/// alignment); `name` is the struct's name for the error on a short file.
pub(crate) fn read_fixed_header<T: bytemuck::Pod>(
    bytes: &[u8],
    name: &'static str,
) -> FormatResult<T> {
    let size = size_of::<T>();
    let raw = bytes.get(..size).ok_or_else(|| {
        FormatError::new(
            0,
            name,
            format!(
                "the file is {} bytes, the header alone needs {size}",
                bytes.len()
            ),
        )
    })?;
    Ok(bytemuck::pod_read_unaligned(raw))
}

/// A fixed header stored little-endian at the start of a file and read
/// through a [`ByteReader`] (`.hman` and `.hpack`); the struct holds
/// host-order values.
pub(crate) trait LeHeader: Pod {
    /// The struct's name, for the error on a short file.
    const NAME: &'static str;
    /// The magic and version the reader accepts.
    const ID: FileId;

    /// Converts every integer field between host order and little-endian
    /// (the conversion is its own inverse).
    fn swap_to_or_from_le(self) -> Self;

    /// The magic (read as a little-endian `u32`) and the version.
    fn magic_and_version(&self) -> (u32, u32);
}

/// Reads the header `H` at the reader's position, in host order, and checks
/// its magic and version.
pub(crate) fn read_le_header<H: LeHeader>(reader: &mut ByteReader<'_>) -> FormatResult<H> {
    let raw = reader.take(size_of::<H>(), H::NAME)?;
    let header = bytemuck::pod_read_unaligned::<H>(raw).swap_to_or_from_le();
    let (magic, version) = header.magic_and_version();
    H::ID.check(magic, version)?;
    Ok(header)
}

/// An error type of a writer whose records end in a path table field: a
/// `u16` length and that many bytes of a clean runtime path (`.hman`
/// entries, `.hpack` TOC records).
pub(crate) trait PathFieldError: Sized {
    /// The path does not fit the `u16` length.
    fn too_long(path: String) -> Self;
    /// The path is not a clean runtime path, for `reason`.
    fn invalid(path: String, reason: &'static str) -> Self;
}

/// Refuses a path that a path field cannot hold or the reader would refuse
/// (see [`check_runtime_path`]).
pub(crate) fn check_path_field<E: PathFieldError>(path: &str) -> Result<(), E> {
    if path.len() > usize::from(u16::MAX) {
        return Err(E::too_long(path.to_owned()));
    }
    check_runtime_path(path).map_err(|reason| E::invalid(path.to_owned(), reason))
}

/// Appends a path field: the `u16` length, then the bytes. The length was
/// checked by [`check_path_field`].
pub(crate) fn push_path_field(path: &str, out: &mut Vec<u8>) {
    let path_len = u16::try_from(path.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&path_len.to_le_bytes());
    out.extend_from_slice(path.as_bytes());
}

/// The message for a path longer than the `holder` (e.g. "a pack entry")
/// can hold.
pub(crate) fn path_too_long_message(path: &str, holder: &str) -> String {
    format!(
        "path of {} bytes exceeds the {} {holder} can hold: {:?}",
        path.len(),
        u16::MAX,
        abbreviate(path)
    )
}

/// The message for a path that is not a clean runtime path.
pub(crate) fn invalid_path_message(path: &str, reason: &str) -> String {
    format!("invalid runtime path {:?}: {reason}", abbreviate(path))
}

/// Requires `path` to sort strictly after `previous` (byte order), as the
/// paths of a pack's TOC and of a patch pack's removed list must; the error
/// sits at byte `at` of `field` and calls the sorted things `noun`.
pub(crate) fn check_path_order(
    previous: &str,
    path: &str,
    at: u64,
    field: &'static str,
    noun: &str,
) -> FormatResult<()> {
    if path > previous {
        return Ok(());
    }
    let what = if path == previous {
        format!("{:?} appears twice", abbreviate(path))
    } else {
        format!(
            "{noun} are not sorted: {:?} follows {:?}",
            abbreviate(path),
            abbreviate(previous)
        )
    };
    Err(FormatError::new(at, field, what))
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

    /// Consumes a path field: a `u16` length (`len_field`), then that many
    /// bytes that must form a valid runtime path (`path_field`).
    pub(crate) fn path_field(
        &mut self,
        len_field: &'static str,
        path_field: &'static str,
    ) -> FormatResult<&'a str> {
        let path_len = self.u16(len_field)?;
        self.path(usize::from(path_len), path_field)
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

/// Fails on a big-endian host: the in-place readers reinterpret little-endian
/// bytes as native structs.
pub(crate) fn require_little_endian(field: &'static str) -> FormatResult<()> {
    if cfg!(target_endian = "big") {
        return Err(FormatError::new(
            0,
            field,
            "reading in place needs a little-endian host",
        ));
    }
    Ok(())
}

/// Reinterprets `bytes`, which start at file offset `at`, as a slice of `T`.
///
/// The caller has checked that the length is a whole number of elements, so
/// the only failure left is a misaligned buffer (which an empty slice cannot
/// be).
pub(crate) fn cast_in_place<'a, T: Pod>(
    bytes: &'a [u8],
    at: u64,
    field: &'static str,
) -> FormatResult<&'a [T]> {
    if bytes.is_empty() {
        return Ok(&[]);
    }
    bytemuck::try_cast_slice(bytes).map_err(|err| {
        let what = match err {
            PodCastError::TargetAlignmentGreaterAndInputNotAligned => format!(
                "the data sits at a memory address that is not {align}-byte aligned; reading \
                 in place needs the file buffer to start on a {align}-byte boundary",
                align = align_of::<T>()
            ),
            _ => format!(
                "{} bytes are not a whole number of {}-byte elements",
                bytes.len(),
                size_of::<T>()
            ),
        };
        FormatError::new(at, field, what)
    })
}

/// One 16-byte, 16-aligned block of an [`AlignedBytes`] buffer.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
struct Block([u8; 16]);

/// An owned byte buffer that starts on a 16-byte boundary.
///
/// The in-place readers need their buffer aligned: 8 bytes for `.hmesh` and
/// `.hmat`, 4 for `.hfont`. A `Vec<u8>` is only guaranteed 1-byte alignment
/// (allocators happen to give more), so an engine that wants a guarantee
/// loads files into this instead. Pack payloads sit on multiples of 16 from
/// the start of the pack, so a pack held here lends every entry aligned too.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct AlignedBytes {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedBytes {
    /// A buffer of `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        Self {
            blocks: vec![Block::default(); len.div_ceil(size_of::<Block>())],
            len,
        }
    }

    /// An aligned copy of `bytes`.
    pub fn copy_from(bytes: &[u8]) -> Self {
        let mut buffer = Self::zeroed(bytes.len());
        buffer.as_mut_bytes().copy_from_slice(bytes);
        buffer
    }

    /// Reads a whole file into an aligned buffer, without an intermediate copy.
    ///
    /// The buffer is sized from the file's length when it is opened; a file
    /// that shrinks meanwhile is an `UnexpectedEof` error.
    pub fn read(path: impl AsRef<std::path::Path>) -> std::io::Result<Self> {
        use std::io::Read;
        let mut file = std::fs::File::open(path)?;
        let len = usize::try_from(file.metadata()?.len()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                "the file is larger than this machine's address space",
            )
        })?;
        let mut buffer = Self::zeroed(len);
        file.read_exact(buffer.as_mut_bytes())?;
        Ok(buffer)
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        let all: &[u8] = bytemuck::cast_slice(&self.blocks);
        all.get(..self.len).unwrap_or_default()
    }

    /// The bytes, writable.
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.blocks);
        all.get_mut(..self.len).unwrap_or_default()
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl core::ops::Deref for AlignedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for AlignedBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl From<&[u8]> for AlignedBytes {
    fn from(bytes: &[u8]) -> Self {
        Self::copy_from(bytes)
    }
}

impl core::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "AlignedBytes({} bytes)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_bytes_start_on_a_16_byte_boundary_and_keep_their_length() {
        for len in [0, 1, 15, 16, 17, 100] {
            let source: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let buffer = AlignedBytes::copy_from(&source);
            assert_eq!(buffer.as_bytes(), source.as_slice());
            assert_eq!((buffer.len(), buffer.is_empty()), (len, len == 0));
            assert_eq!(buffer.as_ptr().align_offset(16), 0, "length {len}");
            assert_eq!(&*AlignedBytes::from(source.as_slice()), source.as_slice());
        }
    }

    #[test]
    fn aligned_bytes_read_a_file() {
        let path = std::env::temp_dir().join(format!("assetc-aligned-{}", std::process::id()));
        std::fs::write(&path, b"twenty-one bytes long").unwrap();
        let buffer = AlignedBytes::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(buffer.as_ref(), b"twenty-one bytes long");
        assert_eq!(format!("{buffer:?}"), "AlignedBytes(21 bytes)");
        assert!(AlignedBytes::read(&path).is_err());
    }
}
