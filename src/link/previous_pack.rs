//! The pack a pack step is about to replace, read no more than needed.
//!
//! A pack file whose identity is the one the step recorded after writing it
//! ([`super::pack_state`]) holds exactly the bytes the step wrote, so only its
//! header and TOC are read: payloads are read only to hash the entries of
//! parts that changed, and the unchanged runs of payloads are copied into the
//! new pack by the kernel (`copy_file_range`, through [`std::io::copy`]),
//! never passing through this process. Any other pack file is of unknown
//! origin: it is read whole and validated with [`hpack::parse`] (padding and
//! overlaps included) before anything in it is reused.
//!
//! Either way the file's identity is taken before and after reading it, so a
//! file changed while it was read is not used, and once more after copying
//! from it, so a file changed while it was copied fails the step instead of
//! leaking into the new pack.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use super::pack_state::{Identity, identity_of_open};
use crate::format::hpack::{self, HEADER_BYTES, PackEntry, PackHeader};

/// The previous pack file, open, with its header and TOC (or all of it).
pub struct PreviousPack {
    file: File,
    identity: Option<Identity>,
    /// The whole file when it is of unknown origin, else its header and TOC.
    held: Vec<u8>,
    /// Whether `held` is the whole file.
    whole: bool,
    /// The file's size.
    len: u64,
}

impl PreviousPack {
    /// Opens the pack at `path`. `recorded` is the identity the step noted
    /// when it last wrote that file; when the file still has it, only the
    /// header and TOC are read. `None` when there is no readable file, or it
    /// changed while being read.
    pub fn open(path: &Path, recorded: Option<Identity>) -> Option<Self> {
        let mut file = File::open(path).ok()?;
        let identity = identity_of_open(&file);
        let len = file.metadata().ok()?.len();
        let trusted = identity.is_some() && identity == recorded;
        let held = if trusted {
            read_prefix(&mut file, len).ok()?
        } else {
            let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            file.read_to_end(&mut bytes).ok()?;
            bytes
        };
        let unchanged = identity_of_open(&file) == identity;
        unchanged.then_some(Self {
            whole: !trusted,
            len: if trusted { len } else { held.len() as u64 },
            file,
            identity,
            held,
        })
    }

    /// Whether the file is the one the step recorded writing, so that an
    /// entry of an unchanged part holds its recorded bytes without hashing.
    pub fn is_trusted(&self) -> bool {
        !self.whole
    }

    /// The file's entries in path order; `None` when it is not a valid pack.
    pub fn entries(&self) -> Option<Vec<PackEntry<'_>>> {
        if self.whole {
            hpack::parse(&self.held).ok().map(|p| p.entries().to_vec())
        } else {
            hpack::parse_toc(&self.held, self.len).ok()
        }
    }

    /// Whether the file is `len` bytes long and starts with `prefix`.
    pub fn starts_with(&self, prefix: &[u8], len: u64) -> bool {
        self.len == len && self.held.starts_with(prefix)
    }

    /// The `size` bytes at `offset`.
    pub fn bytes_at(&self, offset: u64, size: u64) -> io::Result<Cow<'_, [u8]>> {
        if self.whole {
            let range = usize::try_from(offset)
                .ok()
                .zip(usize::try_from(offset.saturating_add(size)).ok());
            return range
                .and_then(|(start, end)| self.held.get(start..end))
                .map(Cow::Borrowed)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        let mut bytes = vec![0; usize::try_from(size).map_err(io::Error::other)?];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(&mut bytes)?;
        Ok(Cow::Owned(bytes))
    }

    /// The payload of `entry`.
    pub fn data(&self, entry: &PackEntry<'_>) -> io::Result<Cow<'_, [u8]>> {
        self.bytes_at(entry.offset, entry.size)
    }

    /// Appends the `size` bytes at `offset` to `out`, at its file position.
    pub fn copy_to(&self, offset: u64, size: u64, out: &File) -> io::Result<()> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(offset))?;
        let copied = io::copy(&mut file.take(size), &mut &*out)?;
        if copied != size {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the previous pack ended early",
            ));
        }
        Ok(())
    }

    /// Fails when the file changed since it was opened.
    pub fn check_unchanged(&self) -> io::Result<()> {
        if identity_of_open(&self.file) == self.identity {
            Ok(())
        } else {
            Err(io::Error::other(
                "the previous pack changed while it was being copied",
            ))
        }
    }
}

/// Reads the header and the TOC of the pack `file` of `len` bytes.
fn read_prefix(file: &mut File, len: u64) -> io::Result<Vec<u8>> {
    let mut header = [0; HEADER_BYTES];
    file.read_exact(&mut header)?;
    let toc_bytes = PackHeader::from_bytes(header).toc_bytes;
    if toc_bytes > len.saturating_sub(HEADER_BYTES as u64) {
        return Err(io::Error::from(io::ErrorKind::InvalidData));
    }
    let mut prefix = header.to_vec();
    let toc = usize::try_from(toc_bytes).map_err(io::Error::other)?;
    prefix.resize(HEADER_BYTES + toc, 0);
    file.read_exact(&mut prefix[HEADER_BYTES..])?;
    Ok(prefix)
}
