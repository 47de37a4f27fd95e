//! `.hpack` v2: every runtime file of a build bundled into one archive.
//!
//! The engine opens one file, reads the table of contents (TOC) once and then
//! reads or maps each entry's bytes in place.
//!
//! # Layout (little-endian, no padding inside structures)
//!
//! | offset | size | field      | meaning                                   |
//! |-------:|-----:|------------|-------------------------------------------|
//! | 0      | 4    | `magic`    | the bytes `HPAK`                          |
//! | 4      | 4    | `version`  | `2`                                       |
//! | 8      | 4    | `count`    | number of TOC entries                     |
//! | 12     | 4    | `flags`    | `0` (no flags are defined)                |
//! | 16     | 8    | `tocBytes` | size of the TOC that follows the header   |
//!
//! The TOC is `count` records back to back, sorted by path (byte order,
//! strictly ascending), each `19 + pathLen` bytes:
//!
//! | size      | field     | meaning                                          |
//! |----------:|-----------|--------------------------------------------------|
//! | 8         | `offset`  | where the payload starts, from the file start    |
//! | 8         | `size`    | payload length in bytes                          |
//! | 1         | `kind`    | [`PackKind`] byte                                |
//! | 2         | `pathLen` | length of `path` in bytes                        |
//! | `pathLen` | `path`    | UTF-8, `/`-separated, relative to the output root|
//!
//! Payloads follow in TOC order. The first starts at the first multiple of 16
//! at or after the end of the TOC, and each next one at the first multiple of
//! 16 at or after the end of the previous one; the gaps are zero bytes. (A
//! pack laid out over a shipped one, [`super::hpack_layout`], keeps payloads
//! at that pack's offsets instead; readers only rely on the rules below.)
//!
//! **Shared payloads.** An entry whose bytes are exactly those of an entry
//! earlier in path order points at that entry's payload (same offset and
//! size) instead of storing them again; empty entries are never shared. The
//! reference SDK's `ValidatePack` only requires every range to lie inside the
//! file, so its readers accept this. Two ranges are either identical or
//! disjoint: a partial overlap is refused.
//!
//! **The file ends right after the last payload, with no padding after it**
//! (with no entries, right after the header). This is what the reference
//! packer writes, so our packs match its output byte for byte. The reader also
//! accepts a file padded with zeros up to the next multiple of 16.
//!
//! [`parse`] checks all of this and returns a [`Pack`] whose entries are found
//! by path; [`Pack::open`] identifies and checks an entry like any other file
//! and [`validate`] only checks the pack. Any buffer alignment is accepted,
//! but a 16-byte aligned pack lends its payloads 16-byte aligned.

use core::fmt;
use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};

use super::bytes::{
    ByteReader, FileId, LeHeader, PathFieldError, abbreviate, check_path_field, check_path_order,
    invalid_path_message, path_too_long_message, push_path_field, read_le_header,
};
use super::error::{FormatError, FormatResult};
use super::kind::PackKind;

/// The four bytes every pack starts with.
pub const MAGIC: [u8; 4] = *b"HPAK";

/// The pack version this module reads and writes.
pub const VERSION: u32 = 2;

/// Size of [`PackHeader`] on disk.
pub const HEADER_BYTES: usize = 24;

/// Size of a TOC record without its path: offset, size, kind and path length.
pub const TOC_ENTRY_FIXED_BYTES: usize = 19;

/// Alignment of every payload offset.
pub const PAYLOAD_ALIGN: u64 = 16;

/// The fixed 24-byte header at the start of a `.hpack` file.
///
/// Fields hold host-order values; [`PackHeader::to_bytes`] and
/// [`PackHeader::from_bytes`] convert to and from the little-endian disk form.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackHeader {
    /// Must equal [`MAGIC`].
    pub magic: [u8; 4],
    /// Must equal [`VERSION`].
    pub version: u32,
    /// Number of TOC entries.
    pub count: u32,
    /// Written as 0; a reader rejects anything else.
    pub flags: u32,
    /// Size in bytes of the TOC that follows the header.
    pub toc_bytes: u64,
}

const _: () = assert!(size_of::<PackHeader>() == HEADER_BYTES);

impl PackHeader {
    /// A current-version header for `count` entries whose TOC takes `toc_bytes`.
    pub const fn new(count: u32, toc_bytes: u64) -> Self {
        Self {
            magic: MAGIC,
            version: VERSION,
            count,
            flags: 0,
            toc_bytes,
        }
    }

    /// The header as it is stored on disk.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        bytemuck::cast(self.swap_to_or_from_le())
    }

    /// Decodes a header from its on-disk bytes, without validating it.
    pub fn from_bytes(bytes: [u8; HEADER_BYTES]) -> Self {
        bytemuck::cast::<_, Self>(bytes).swap_to_or_from_le()
    }
}

impl LeHeader for PackHeader {
    const NAME: &'static str = "PackHeader";
    const ID: FileId = FileId {
        magic: u32::from_le_bytes(MAGIC),
        version: VERSION,
        magic_field: "PackHeader.magic",
        version_field: "PackHeader.version",
    };

    fn magic_and_version(&self) -> (u32, u32) {
        (u32::from_le_bytes(self.magic), self.version)
    }

    fn swap_to_or_from_le(self) -> Self {
        Self {
            magic: self.magic,
            version: self.version.to_le(),
            count: self.count.to_le(),
            flags: self.flags.to_le(),
            toc_bytes: self.toc_bytes.to_le(),
        }
    }
}

/// Rounds `value` up to the next multiple of [`PAYLOAD_ALIGN`], or `None` on
/// overflow.
pub const fn align_payload(value: u64) -> Option<u64> {
    match value.checked_add(PAYLOAD_ALIGN - 1) {
        Some(bumped) => Some(bumped & !(PAYLOAD_ALIGN - 1)),
        None => None,
    }
}

/// One file to put in a pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackItem<'a> {
    /// Path relative to the output root, `/`-separated.
    pub path: &'a str,
    /// Its type, normally [`PackKind::from_path`] of `path`.
    pub kind: PackKind,
    /// The file's bytes.
    pub data: &'a [u8],
}

/// Why [`write_pack`] refused its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackError {
    /// Two items have the same path.
    DuplicatePath {
        /// The repeated path.
        path: String,
    },
    /// A path does not fit the 16-bit length field.
    PathTooLong {
        /// The offending path.
        path: String,
    },
    /// A path is empty or not a clean relative runtime path (see
    /// [`check_runtime_path`](super::bytes::check_runtime_path)).
    InvalidPath {
        /// The offending path.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// More items than the 32-bit count field can announce.
    TooManyEntries {
        /// How many items there were.
        count: usize,
    },
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::DuplicatePath { path } => {
                write!(f, "{:?} is listed twice in the pack", abbreviate(path))
            }
            PackError::PathTooLong { path } => {
                f.write_str(&path_too_long_message(path, "a pack entry"))
            }
            PackError::InvalidPath { path, reason } => {
                f.write_str(&invalid_path_message(path, reason))
            }
            PackError::TooManyEntries { count } => {
                write!(f, "{count} files exceed the {} a pack can hold", u32::MAX)
            }
        }
    }
}

impl std::error::Error for PackError {}

impl PathFieldError for PackError {
    fn too_long(path: String) -> Self {
        PackError::PathTooLong { path }
    }

    fn invalid(path: String, reason: &'static str) -> Self {
        PackError::InvalidPath { path, reason }
    }
}

/// Serialises `items` into the bytes of a `.hpack` file.
///
/// Items are sorted by path, so any ordering of the same set yields identical
/// bytes. Items with identical non-empty bytes share one payload, placed by
/// the first of them in path order. Fails on a repeated path, an empty or
/// unclean path (see [`check_runtime_path`](super::bytes::check_runtime_path))
/// or a path longer than `u16::MAX` bytes. Each item's `kind` is written as
/// given.
pub fn write_pack(items: &[PackItem<'_>]) -> Result<Vec<u8>, PackError> {
    let slots = slots_sharing_equal_bytes(items);
    let plan = plan_pack(&slots)?;
    Ok(write_planned(&plan, items))
}

/// The bytes of the pack `plan` lays out for `items` (the items it was
/// planned from, by index): the prefix, then each payload at its offset,
/// zeros between.
pub fn write_planned(plan: &PackPlan, items: &[PackItem<'_>]) -> Vec<u8> {
    let mut out = vec![0; usize::try_from(plan.len).unwrap_or(0)];
    out[..plan.prefix.len()].copy_from_slice(&plan.prefix);
    for (placed, item) in plan
        .placed
        .iter()
        .filter(|p| !p.shared)
        .filter_map(|p| Some(p).zip(items.get(p.slot)))
    {
        let start = placed.offset as usize;
        out[start..start + item.data.len()].copy_from_slice(item.data);
    }
    out
}

/// The slots of `items`, those with identical bytes marked as one content.
fn slots_sharing_equal_bytes<'a>(items: &'a [PackItem<'a>]) -> Vec<PackSlot<'a>> {
    let mut first_with: HashMap<&[u8], usize> = HashMap::new();
    items
        .iter()
        .enumerate()
        .map(|(index, item)| PackSlot {
            content: Some(*first_with.entry(item.data).or_insert(index)),
            ..item.slot()
        })
        .collect()
}

/// What the layout of a pack needs to know of one file: its path, type and
/// size, not its bytes, and which other files hold the same bytes. A writer
/// that streams payloads from elsewhere (an older pack, say) plans with these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackSlot<'a> {
    /// Path relative to the output root, `/`-separated.
    pub path: &'a str,
    /// Its type.
    pub kind: PackKind,
    /// The file's size in bytes.
    pub size: u64,
    /// A number the caller gives every slot holding the same bytes: slots of
    /// equal `content` and size share one payload (the caller vouches that
    /// their bytes are identical). `None` never shares; nor does an empty slot.
    pub content: Option<usize>,
}

impl PackSlot<'_> {
    /// What identifies the slot's bytes among those that may share a payload.
    pub(super) fn shared_key(&self) -> Option<(usize, u64)> {
        self.content
            .filter(|_| self.size > 0)
            .map(|content| (content, self.size))
    }
}

impl<'a> PackItem<'a> {
    /// `data` stored under `path`, with the kind [`PackKind::from_path`]
    /// judges from the path, as assetc's own packs have it.
    pub fn new(path: &'a str, data: &'a [u8]) -> Self {
        Self {
            path,
            kind: PackKind::from_path(path),
            data,
        }
    }

    /// The item without its bytes, sharing with no other.
    pub fn slot(&self) -> PackSlot<'_> {
        PackSlot {
            path: self.path,
            kind: self.kind,
            size: self.data.len() as u64,
            content: None,
        }
    }
}

/// Where one slot's payload goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacedSlot {
    /// Its index in the slots given to [`plan_pack`].
    pub slot: usize,
    /// Byte offset of its payload in the pack.
    pub offset: u64,
    /// Whether the payload is an earlier slot's, so there is nothing to write.
    pub shared: bool,
}

/// The layout of a pack: its header and TOC bytes, then each payload's place
/// in path order. Every byte between `prefix` and the payloads, and between
/// payloads, is zero; the file ends where the last payload does. A shared
/// slot's payload is the one at its offset, written for another slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackPlan {
    /// The header and the TOC, the file's first bytes.
    pub prefix: Vec<u8>,
    /// The payloads in path order. A fresh layout ([`plan_pack`]) also puts
    /// them in the file in this order; one laid over a shipped pack
    /// ([`super::hpack_layout`]) may not, so writers go by offset.
    pub placed: Vec<PlacedSlot>,
    /// The size of the whole file.
    pub len: u64,
}

impl PackPlan {
    /// The payloads to write (those not shared), in file order.
    pub fn written_in_file_order(&self) -> Vec<PlacedSlot> {
        let mut written: Vec<PlacedSlot> =
            self.placed.iter().filter(|p| !p.shared).copied().collect();
        written.sort_by_key(|placed| placed.offset);
        written
    }
}

/// Lays out a pack of `slots` exactly as [`write_pack`] writes it, checking
/// the same rules: in path order, each slot whose content an earlier slot
/// placed points at that payload, and every other one is placed after the
/// last.
pub fn plan_pack(slots: &[PackSlot<'_>]) -> Result<PackPlan, PackError> {
    plan_sorted(&sort_and_check(slots)?)
}

/// [`plan_pack`] of slots already sorted and checked by [`sort_and_check`].
pub(super) fn plan_sorted(sorted: &[(usize, &PackSlot<'_>)]) -> Result<PackPlan, PackError> {
    let mut cursor = (HEADER_BYTES + toc_bytes_of(sorted)) as u64;
    let mut placed_contents: HashMap<(usize, u64), u64> = HashMap::new();
    let mut placed = Vec::with_capacity(sorted.len());
    for &(index, slot) in sorted {
        let earlier = slot
            .shared_key()
            .and_then(|key| placed_contents.get(&key).copied());
        let offset = earlier.unwrap_or_else(|| align_payload(cursor).unwrap_or(u64::MAX));
        placed.push(PlacedSlot {
            slot: index,
            offset,
            shared: earlier.is_some(),
        });
        if earlier.is_none() {
            cursor = offset.saturating_add(slot.size);
            if let Some(key) = slot.shared_key() {
                placed_contents.insert(key, offset);
            }
        }
    }
    Ok(PackPlan {
        prefix: prefix_of(sorted, &placed)?,
        placed,
        len: cursor,
    })
}

/// Bytes of the TOC records of `sorted`.
pub(super) fn toc_bytes_of(sorted: &[(usize, &PackSlot<'_>)]) -> usize {
    sorted
        .iter()
        .map(|(_, slot)| TOC_ENTRY_FIXED_BYTES + slot.path.len())
        .sum()
}

/// The header and the TOC of `sorted` (path order), each record with the
/// offset `placed` (in the same order) gives it.
pub(super) fn prefix_of(
    sorted: &[(usize, &PackSlot<'_>)],
    placed: &[PlacedSlot],
) -> Result<Vec<u8>, PackError> {
    let count = u32::try_from(sorted.len()).map_err(|_| PackError::TooManyEntries {
        count: sorted.len(),
    })?;
    let toc_bytes = toc_bytes_of(sorted);
    let mut prefix = Vec::with_capacity(HEADER_BYTES + toc_bytes);
    prefix.extend_from_slice(&PackHeader::new(count, toc_bytes as u64).to_bytes());
    for ((_, slot), placed) in sorted.iter().zip(placed) {
        encode_toc_record(slot, placed.offset, &mut prefix);
    }
    Ok(prefix)
}

/// The slots with their indices, sorted by path; rejects repeated, invalid
/// or overlong paths.
pub(super) fn sort_and_check<'s, 'a>(
    slots: &'s [PackSlot<'a>],
) -> Result<Vec<(usize, &'s PackSlot<'a>)>, PackError> {
    let mut sorted: Vec<(usize, &PackSlot<'a>)> = slots.iter().enumerate().collect();
    sorted.sort_by(|a, b| a.1.path.cmp(b.1.path));
    for (_, slot) in &sorted {
        check_path_field::<PackError>(slot.path)?;
    }
    if let Some(pair) = sorted
        .windows(2)
        .find(|pair| pair[0].1.path == pair[1].1.path)
    {
        return Err(PackError::DuplicatePath {
            path: pair[0].1.path.to_owned(),
        });
    }
    Ok(sorted)
}

/// Appends one TOC record; the path was checked by [`check_path_field`].
fn encode_toc_record(slot: &PackSlot<'_>, offset: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&slot.size.to_le_bytes());
    out.push(slot.kind as u8);
    push_path_field(slot.path, out);
}

/// One TOC entry of a parsed pack, borrowing its path from the file bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackEntry<'a> {
    /// Path relative to the output root.
    pub path: &'a str,
    /// The file's type.
    pub kind: PackKind,
    /// Byte offset of the payload from the start of the pack.
    pub offset: u64,
    /// Payload length in bytes.
    pub size: u64,
}

impl PackEntry<'_> {
    /// One past the last payload byte. [`parse`] guarantees this does not overflow.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// A validated pack borrowing from the file's bytes.
#[derive(Debug, Clone)]
pub struct Pack<'a> {
    bytes: &'a [u8],
    header: PackHeader,
    entries: Vec<PackEntry<'a>>,
    payloads: Payloads,
}

impl<'a> Pack<'a> {
    /// The decoded header.
    pub fn header(&self) -> PackHeader {
        self.header
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pack has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries, sorted by path.
    pub fn entries(&self) -> &[PackEntry<'a>] {
        &self.entries
    }

    /// Iterates over the entries in path order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PackEntry<'a>> + '_ {
        self.entries.iter().copied()
    }

    /// The entry stored under exactly `path`, found by binary search.
    pub fn find(&self, path: &str) -> Option<PackEntry<'a>> {
        let index = self
            .entries
            .binary_search_by(|entry| entry.path.cmp(path))
            .ok()?;
        self.entries.get(index).copied()
    }

    /// The payload of `entry`, borrowed from the pack bytes.
    ///
    /// `entry` should come from this pack; for any range outside the file the
    /// result is empty rather than a panic.
    pub fn data(&self, entry: &PackEntry<'_>) -> &'a [u8] {
        let range = usize::try_from(entry.offset)
            .ok()
            .zip(usize::try_from(entry.end()).ok());
        range
            .and_then(|(start, end)| self.bytes.get(start..end))
            .unwrap_or_default()
    }

    /// Size of the whole file.
    pub fn file_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Size of the fixed header (24).
    pub fn header_bytes(&self) -> u64 {
        HEADER_BYTES as u64
    }

    /// Size of the TOC.
    pub fn toc_bytes(&self) -> u64 {
        self.header.toc_bytes
    }

    /// Bytes of payload stored in the file: a payload several entries share
    /// counts once.
    pub fn payload_bytes(&self) -> u64 {
        self.payloads.stored
    }

    /// Sum of every entry's size, a shared payload counted for each entry.
    pub fn entry_bytes(&self) -> u64 {
        self.entries.iter().map(|entry| entry.size).sum()
    }

    /// Entries whose non-empty payload is an entry's earlier in file order
    /// (the same offset and size), so stored once for both.
    pub fn shared_entries(&self) -> usize {
        self.payloads.shared
    }

    /// Alignment padding: every byte that is neither header, TOC nor payload.
    pub fn padding_bytes(&self) -> u64 {
        self.file_bytes()
            .saturating_sub(self.header_bytes())
            .saturating_sub(self.toc_bytes())
            .saturating_sub(self.payload_bytes())
    }
}

/// Parses and fully validates a `.hpack` file.
///
/// Checks the magic, version and flags; that `count` records can fit in
/// `tocBytes` and `tocBytes` in the file before reserving memory; that the
/// records fill exactly `tocBytes`, with known kinds and valid paths in
/// strictly ascending order; that every payload is 16-byte aligned, starts at
/// or after the first aligned offset past the TOC, lies inside the file
/// (checked arithmetic) and is either another's exact range (shared) or
/// overlaps no other; that all bytes between payloads are zero; and that at
/// most alignment padding follows the last one.
pub fn parse(bytes: &[u8]) -> FormatResult<Pack<'_>> {
    let toc = read_toc(bytes, bytes.len() as u64)?;
    let payloads = check_layout(bytes, toc.end, &toc.entries, &toc.record_offsets)?;
    Ok(Pack {
        bytes,
        header: toc.header,
        entries: toc.entries,
        payloads,
    })
}

/// Parses the header and TOC of a pack whose first bytes are `prefix` and
/// whose whole file is `file_len` bytes long, for a caller that reads
/// payloads from the file itself.
///
/// Checks every rule [`parse`] checks of the header, the records and each
/// payload's range against `file_len`, but not the bytes outside the prefix:
/// not that payloads are shared or disjoint, nor that padding is zero. Use it only on
/// a file whose payload area is trusted (one this process's caller wrote and
/// can tell is unchanged); [`parse`] is the check for any other file.
pub fn parse_toc(prefix: &[u8], file_len: u64) -> FormatResult<Vec<PackEntry<'_>>> {
    read_toc(prefix, file_len).map(|toc| toc.entries)
}

/// A pack's header and TOC, read and checked.
struct Toc<'a> {
    header: PackHeader,
    entries: Vec<PackEntry<'a>>,
    /// Where each entry's record starts, for error offsets.
    record_offsets: Vec<u64>,
    /// One past the TOC's last byte.
    end: u64,
}

/// Reads the header and the records from `bytes`, the start of a file of
/// `file_len` bytes, and checks each payload range against that length.
fn read_toc(bytes: &[u8], file_len: u64) -> FormatResult<Toc<'_>> {
    let mut reader = ByteReader::new(bytes);
    let header = read_header(&mut reader)?;
    let mut entries = Vec::with_capacity(header.count as usize);
    let mut record_offsets = Vec::with_capacity(header.count as usize);
    for _ in 0..header.count {
        let at = reader.offset();
        let entry = read_record(&mut reader)?;
        if let Some(previous) = entries.last() {
            check_order(previous, &entry, at)?;
        }
        entries.push(entry);
        record_offsets.push(at);
    }
    check_toc_size(&header, reader.offset())?;
    let payload_start = align_payload(reader.offset()).unwrap_or(u64::MAX);
    for (entry, &at) in entries.iter().zip(&record_offsets) {
        check_range(entry, at, payload_start, file_len)?;
    }
    Ok(Toc {
        header,
        entries,
        record_offsets,
        end: reader.offset(),
    })
}

/// Checks a whole `.hpack` file (every rule [`parse`] checks) held in a
/// buffer of any alignment. Entries are not opened; [`Pack::open`] does that.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    parse(bytes).map(drop)
}

/// Reads and checks the header, including that the TOC could fit.
fn read_header(reader: &mut ByteReader<'_>) -> FormatResult<PackHeader> {
    let header: PackHeader = read_le_header(reader)?;
    if header.flags != 0 {
        return Err(FormatError::new(
            12,
            "PackHeader.flags",
            format!("must be 0, found {:#x}", header.flags),
        ));
    }
    let left = reader.remaining() as u64;
    if header.toc_bytes > left {
        return Err(FormatError::new(
            16,
            "PackHeader.tocBytes",
            format!(
                "TOC of {} bytes does not fit in the {left} bytes after the header",
                header.toc_bytes
            ),
        ));
    }
    let needed = u64::from(header.count) * TOC_ENTRY_FIXED_BYTES as u64;
    if needed > header.toc_bytes {
        return Err(FormatError::new(
            8,
            "PackHeader.count",
            format!(
                "{} entries need at least {needed} TOC bytes but tocBytes is {}",
                header.count, header.toc_bytes
            ),
        ));
    }
    Ok(header)
}

/// Reads one TOC record and checks its fields in isolation.
fn read_record<'a>(reader: &mut ByteReader<'a>) -> FormatResult<PackEntry<'a>> {
    let offset = reader.u64("PackEntry.offset")?;
    let size = reader.u64("PackEntry.size")?;
    let kind = reader.code("PackEntry.kind", "kind", PackKind::from_u8)?;
    let path = reader.path_field("PackEntry.pathLen", "PackEntry.path")?;
    Ok(PackEntry {
        path,
        kind,
        offset,
        size,
    })
}

/// Requires `entry` (whose record starts at byte `at`) to sort strictly after
/// `previous`.
fn check_order(previous: &PackEntry<'_>, entry: &PackEntry<'_>, at: u64) -> FormatResult<()> {
    check_path_order(
        previous.path,
        entry.path,
        at + 19,
        "PackEntry.path",
        "entries",
    )
}

/// Requires the records to end exactly where `tocBytes` says.
fn check_toc_size(header: &PackHeader, toc_end: u64) -> FormatResult<()> {
    let actual = toc_end - HEADER_BYTES as u64;
    if actual != header.toc_bytes {
        return Err(FormatError::new(
            16,
            "PackHeader.tocBytes",
            format!(
                "says {} bytes but the {} records take {actual}",
                header.toc_bytes, header.count
            ),
        ));
    }
    Ok(())
}

/// Checks one payload range (record at byte `at`) against the file.
fn check_range(
    entry: &PackEntry<'_>,
    at: u64,
    payload_start: u64,
    file_len: u64,
) -> FormatResult<()> {
    let end = entry.offset.checked_add(entry.size).ok_or_else(|| {
        FormatError::new(
            at + 8,
            "PackEntry.size",
            format!("offset {} + size {} overflows", entry.offset, entry.size),
        )
    })?;
    if !entry.offset.is_multiple_of(PAYLOAD_ALIGN) {
        return Err(FormatError::new(
            at,
            "PackEntry.offset",
            format!("{} is not a multiple of {PAYLOAD_ALIGN}", entry.offset),
        ));
    }
    if entry.offset < payload_start {
        return Err(FormatError::new(
            at,
            "PackEntry.offset",
            format!(
                "{} lies in the header or TOC (payloads start at {payload_start})",
                entry.offset
            ),
        ));
    }
    if end > file_len {
        return Err(FormatError::new(
            at + 8,
            "PackEntry.size",
            format!(
                "payload [{}, {end}) of {:?} runs past the end of the file ({file_len} bytes)",
                entry.offset,
                abbreviate(entry.path)
            ),
        ));
    }
    Ok(())
}

/// What the payload area of a checked pack holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Payloads {
    /// Bytes of distinct payloads.
    stored: u64,
    /// Non-empty entries whose range is an entry's earlier in file order.
    shared: usize,
}

/// Walks the payloads in file order: two ranges are the same (a shared
/// payload) or disjoint, the gaps between them are zero, and at most
/// alignment padding follows the last one.
fn check_layout(
    bytes: &[u8],
    toc_end: u64,
    entries: &[PackEntry<'_>],
    record_offsets: &[u64],
) -> FormatResult<Payloads> {
    let mut by_offset: Vec<usize> = (0..entries.len()).collect();
    by_offset.sort_by_key(|&i| entries.get(i).map(|e| (e.offset, e.end())));
    let mut cursor = toc_end;
    let mut last: Option<&PackEntry<'_>> = None;
    let mut payloads = Payloads::default();
    for (entry, &at) in by_offset
        .iter()
        .filter_map(|&i| entries.get(i).zip(record_offsets.get(i)))
    {
        if last.is_some_and(|previous| same_range(previous, entry)) {
            payloads.shared += usize::from(entry.size > 0);
            continue;
        }
        if let Some(previous) = last.filter(|_| entry.offset < cursor) {
            return Err(FormatError::new(
                at,
                "PackEntry.offset",
                format!(
                    "payload of {:?} at {} overlaps {:?} [{}, {})",
                    abbreviate(entry.path),
                    entry.offset,
                    abbreviate(previous.path),
                    previous.offset,
                    previous.end()
                ),
            ));
        }
        check_zero_gap(bytes, cursor, entry.offset)?;
        cursor = entry.end();
        payloads.stored += entry.size;
        last = Some(entry);
    }
    check_tail(bytes, cursor)?;
    Ok(payloads)
}

/// Whether two entries name exactly the same bytes of the file.
fn same_range(a: &PackEntry<'_>, b: &PackEntry<'_>) -> bool {
    (a.offset, a.size) == (b.offset, b.size)
}

/// Requires the bytes in `[start, end)` to be zero alignment padding.
fn check_zero_gap(bytes: &[u8], start: u64, end: u64) -> FormatResult<()> {
    let gap = usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(start, end)| bytes.get(start..end))
        .unwrap_or_default();
    match gap.iter().position(|&byte| byte != 0) {
        None => Ok(()),
        Some(index) => Err(FormatError::new(
            start + index as u64,
            "PackPadding",
            "alignment padding must be zero",
        )),
    }
}

/// Allows only zero padding up to the next multiple of 16 after `data_end`.
fn check_tail(bytes: &[u8], data_end: u64) -> FormatResult<()> {
    let file_len = bytes.len() as u64;
    let allowed_end = align_payload(data_end).unwrap_or(u64::MAX);
    if file_len > allowed_end {
        return Err(FormatError::new(
            data_end,
            "PackPadding",
            format!(
                "{} bytes follow the last payload; at most padding to a multiple of {PAYLOAD_ALIGN} may",
                file_len - data_end
            ),
        ));
    }
    check_zero_gap(bytes, data_end, file_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(path: &'a str, data: &'a [u8]) -> PackItem<'a> {
        PackItem::new(path, data)
    }

    const MESH: &[u8] = &[0x11; 40];
    const TEX: &[u8] = &[0x22; 17];
    const MAN: &[u8] = &[0x33; 3];
    const EMPTY: &[u8] = &[];

    fn sample() -> Vec<PackItem<'static>> {
        vec![
            item("models/chair.hmesh", MESH),
            item("models/chair/tex_0.ktx2", TEX),
            item("assets.hman", MAN),
            item("notes/empty.txt", EMPTY),
            item("a/empty", EMPTY),
            item(
                "fx/blur/vertex.spv",
                &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
            ),
        ]
    }

    fn write_sample() -> Vec<u8> {
        write_pack(&sample()).expect("sample is valid")
    }

    fn patch(bytes: &mut [u8], at: usize, with: &[u8]) {
        bytes[at..at + with.len()].copy_from_slice(with);
    }

    /// Bytes of a two-entry pack, laid out by hand.
    ///
    /// TOC: (19 + 3) + (19 + 3) = 44 bytes, ending at 68; payloads start at 80.
    /// "a.x" (3 bytes) at 80, padding 83..96, "b.x" (2 bytes) at 96, file ends at 98.
    fn golden_two_entries() -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"HPAK");
        bytes.extend_from_slice(&[2, 0, 0, 0]); // version
        bytes.extend_from_slice(&[2, 0, 0, 0]); // count
        bytes.extend_from_slice(&[0, 0, 0, 0]); // flags
        bytes.extend_from_slice(&[44, 0, 0, 0, 0, 0, 0, 0]); // tocBytes
        // record at 24: offset 80, size 3, kind other, "a.x"
        bytes.extend_from_slice(&[80, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0, 3, 0]);
        bytes.extend_from_slice(b"a.x");
        // record at 46: offset 96, size 2, kind texture, "b.x"
        bytes.extend_from_slice(&[96, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[5, 3, 0]);
        bytes.extend_from_slice(b"b.x");
        bytes.extend_from_slice(&[0; 12]); // 68..80
        bytes.extend_from_slice(&[0xa1, 0xa2, 0xa3]); // 80..83
        bytes.extend_from_slice(&[0; 13]); // 83..96
        bytes.extend_from_slice(&[0xb1, 0xb2]); // 96..98
        bytes
    }

    fn golden_items() -> [PackItem<'static>; 2] {
        [
            PackItem {
                path: "b.x",
                kind: PackKind::Texture,
                data: &[0xb1, 0xb2],
            },
            PackItem {
                path: "a.x",
                kind: PackKind::Other,
                data: &[0xa1, 0xa2, 0xa3],
            },
        ]
    }

    #[test]
    fn header_is_24_little_endian_bytes() {
        let header = PackHeader::new(0x0102_0304, 0x0a0b_0c0d_0e0f_1011);
        assert_eq!(
            header.to_bytes(),
            [
                b'H', b'P', b'A', b'K', 2, 0, 0, 0, 4, 3, 2, 1, 0, 0, 0, 0, 0x11, 0x10, 0x0f, 0x0e,
                0x0d, 0x0c, 0x0b, 0x0a
            ]
        );
        assert_eq!(PackHeader::from_bytes(header.to_bytes()), header);
    }

    #[test]
    fn writes_golden_bytes() {
        let bytes = write_pack(&golden_items()).unwrap();
        assert_eq!(bytes, golden_two_entries());
    }

    #[test]
    fn parses_golden_bytes_and_reports_layout() {
        let bytes = golden_two_entries();
        let pack = parse(&bytes).unwrap();
        assert_eq!(pack.len(), 2);
        let a = pack.find("a.x").unwrap();
        assert_eq!((a.offset, a.size, a.kind), (80, 3, PackKind::Other));
        assert_eq!(pack.data(&a), &[0xa1, 0xa2, 0xa3]);
        let b = pack.find("b.x").unwrap();
        assert_eq!((b.offset, b.size, b.kind), (96, 2, PackKind::Texture));
        assert_eq!(pack.data(&b), &[0xb1, 0xb2]);
        assert_eq!(pack.find("c.x"), None);
        assert_eq!(pack.header_bytes(), 24);
        assert_eq!(pack.toc_bytes(), 44);
        assert_eq!(pack.payload_bytes(), 5);
        assert_eq!(pack.padding_bytes(), 12 + 13);
        assert_eq!(pack.file_bytes(), 98);
    }

    #[test]
    fn empty_pack_is_just_a_header() {
        let bytes = write_pack(&[]).unwrap();
        assert_eq!(bytes, PackHeader::new(0, 0).to_bytes());
        let pack = parse(&bytes).unwrap();
        assert!(pack.is_empty());
        assert_eq!(pack.padding_bytes(), 0);
    }

    #[test]
    fn round_trips() {
        let items = sample();
        let bytes = write_pack(&items).unwrap();
        let pack = parse(&bytes).unwrap();
        assert_eq!(pack.len(), items.len());
        for original in &items {
            let entry = pack.find(original.path).unwrap();
            assert_eq!(entry.kind, original.kind);
            assert_eq!(pack.data(&entry), original.data);
            assert_eq!(entry.offset % 16, 0);
        }
        let paths: Vec<&str> = pack.iter().map(|e| e.path).collect();
        let mut sorted = paths.clone();
        sorted.sort_unstable();
        assert_eq!(paths, sorted);
        let rebuilt: Vec<PackItem<'_>> = pack
            .iter()
            .map(|e| PackItem {
                path: e.path,
                kind: e.kind,
                data: pack.data(&e),
            })
            .collect();
        assert_eq!(write_pack(&rebuilt).unwrap(), bytes);
    }

    #[test]
    fn is_deterministic_under_reordering() {
        let reference = write_sample();
        let mut items = sample();
        for _ in 0..items.len() {
            items.rotate_left(1);
            assert_eq!(write_pack(&items).unwrap(), reference);
        }
        items.reverse();
        assert_eq!(write_pack(&items).unwrap(), reference);
    }

    #[test]
    fn does_not_pad_after_the_last_payload() {
        let bytes = write_pack(&[item("a", &[7; 5])]).unwrap();
        // 24 header + 20 TOC = 44, payload at 48, file ends at 53.
        assert_eq!(bytes.len(), 53);
        // A reader still accepts zero padding up to the next multiple of 16 ...
        let mut padded = bytes.clone();
        padded.resize(64, 0);
        assert_eq!(parse(&padded).unwrap().padding_bytes(), 4 + 11);
        // ... but nothing more, and nothing non-zero.
        padded.push(0);
        assert_eq!(parse(&padded).unwrap_err().field, "PackPadding");
        let mut dirty = bytes;
        dirty.push(1);
        let err = parse(&dirty).unwrap_err();
        assert_eq!((err.offset, err.field), (53, "PackPadding"));
    }

    #[test]
    fn rejects_duplicate_paths() {
        let err = write_pack(&[item("a/b", &[1]), item("c", &[]), item("a/b", &[2])]).unwrap_err();
        assert_eq!(err, PackError::DuplicatePath { path: "a/b".into() });
        assert_eq!(err.to_string(), r#""a/b" is listed twice in the pack"#);
    }

    #[test]
    fn rejects_empty_unclean_and_overlong_paths() {
        for bad in ["", "/a", "a\\b", "../a", "a/./b", "a//b"] {
            let err = write_pack(&[item(bad, &[])]).unwrap_err();
            assert!(
                matches!(err, PackError::InvalidPath { ref path, .. } if path == bad),
                "{bad:?}: {err}"
            );
        }
        let too_long = "p".repeat(usize::from(u16::MAX) + 1);
        let err = write_pack(&[item(&too_long, &[])]).unwrap_err();
        assert_eq!(err, PackError::PathTooLong { path: too_long });

        let longest = "p".repeat(usize::from(u16::MAX));
        let bytes = write_pack(&[item(&longest, &[9])]).unwrap();
        let pack = parse(&bytes).unwrap();
        assert_eq!(pack.find(&longest).map(|e| pack.data(&e)), Some(&[9u8][..]));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = write_sample();
        for len in 0..bytes.len() {
            assert!(
                parse(&bytes[..len]).is_err(),
                "prefix of {len} bytes parsed"
            );
            assert!(validate(&bytes[..len]).is_err(), "prefix of {len} bytes");
        }
        assert!(parse(&bytes).is_ok());
        assert_eq!(validate(&bytes), Ok(()));
    }

    #[test]
    fn rejects_bad_magic_version_and_flags() {
        let mut bytes = golden_two_entries();
        bytes[3] = b'C';
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (0, "PackHeader.magic"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 4, &1u32.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (4, "PackHeader.version"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 12, &1u32.to_le_bytes());
        assert_eq!(parse(&bytes).unwrap_err().field, "PackHeader.flags");
    }

    #[test]
    fn rejects_huge_count_before_allocating() {
        let short = PackHeader::new(u32::MAX, 0).to_bytes();
        assert_eq!(parse(&short).unwrap_err().field, "PackHeader.count");

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 8, &u32::MAX.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (8, "PackHeader.count"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 16, &u64::MAX.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (16, "PackHeader.tocBytes"));
    }

    #[test]
    fn rejects_toc_size_mismatch() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 16, &45u64.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (16, "PackHeader.tocBytes"));
    }

    #[test]
    fn rejects_offset_plus_size_overflow() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 46, &0xffff_ffff_ffff_fff0u64.to_le_bytes());
        patch(&mut bytes, 54, &0x20u64.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (54, "PackEntry.size"));
        assert!(err.what.contains("overflows"), "{err}");
    }

    #[test]
    fn rejects_payload_past_the_end() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 54, &3u64.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (54, "PackEntry.size"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 46, &0x1000_0000_0000_0000u64.to_le_bytes());
        assert_eq!(parse(&bytes).unwrap_err().field, "PackEntry.size");
    }

    #[test]
    fn rejects_misaligned_or_early_offsets() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 24, &81u64.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (24, "PackEntry.offset"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 24, &64u64.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (24, "PackEntry.offset"));
        assert!(err.what.contains("header or TOC"), "{err}");
    }

    /// Parses `bytes`, which must be refused for overlapping payloads, and
    /// returns the byte offset of the error.
    fn overlap_refused(bytes: &[u8]) -> u64 {
        let err = parse(bytes).unwrap_err();
        assert_eq!(err.field, "PackEntry.offset");
        assert!(err.what.contains("overlaps"), "{err}");
        err.offset
    }

    #[test]
    fn rejects_overlapping_payloads() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 46, &80u64.to_le_bytes());
        overlap_refused(&bytes);
    }

    /// The golden pack with "b.x" pointing at the payload of "a.x" (80, 3)
    /// and the file ending after it.
    fn golden_shared() -> Vec<u8> {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 46, &80u64.to_le_bytes());
        patch(&mut bytes, 54, &3u64.to_le_bytes());
        bytes.truncate(83);
        bytes
    }

    #[test]
    fn accepts_two_entries_with_the_same_range() {
        let bytes = golden_shared();
        let pack = parse(&bytes).unwrap();
        let (a, b) = (pack.find("a.x").unwrap(), pack.find("b.x").unwrap());
        assert_eq!((b.offset, b.size), (a.offset, a.size));
        assert_eq!(pack.data(&b), &[0xa1, 0xa2, 0xa3]);
        assert_eq!(pack.shared_entries(), 1);
        assert_eq!((pack.payload_bytes(), pack.entry_bytes()), (3, 6));
        assert_eq!(pack.padding_bytes(), 12);
        assert_eq!(validate(&bytes), Ok(()));
    }

    #[test]
    fn rejects_a_shared_offset_with_another_size() {
        let mut bytes = golden_shared();
        patch(&mut bytes, 54, &2u64.to_le_bytes());
        assert_eq!(overlap_refused(&bytes), 24);
    }

    #[test]
    fn rejects_a_payload_starting_inside_another() {
        let mut bytes = write_pack(&[item("a", &[1; 40]), item("b", &[2; 8])]).unwrap();
        let pack = parse(&bytes).unwrap();
        let a = pack.find("a").unwrap().offset;
        let b_record = HEADER_BYTES + TOC_ENTRY_FIXED_BYTES + 1;
        patch(&mut bytes, b_record, &(a + 16).to_le_bytes());
        assert_eq!(overlap_refused(&bytes), b_record as u64);
    }

    #[test]
    fn identical_bytes_are_stored_once_where_the_first_path_puts_them() {
        let items = [
            item("d.bin", MESH),
            item("b.bin", TEX),
            item("c.bin", MESH),
            item("a.bin", TEX),
            item("e.bin", EMPTY),
            item("f.bin", EMPTY),
        ];
        let bytes = write_pack(&items).unwrap();
        let pack = parse(&bytes).unwrap();
        let at = |path| pack.find(path).unwrap().offset;
        assert_eq!(at("b.bin"), at("a.bin"));
        assert_eq!(at("d.bin"), at("c.bin"));
        assert!(at("a.bin") < at("c.bin"));
        assert_eq!(pack.shared_entries(), 2);
        assert_eq!(pack.payload_bytes(), (MESH.len() + TEX.len()) as u64);
        assert_eq!(pack.entry_bytes(), 2 * (MESH.len() + TEX.len()) as u64);
        for original in &items {
            assert_eq!(pack.data(&pack.find(original.path).unwrap()), original.data);
        }
        // 24 + 6 × 24 TOC = 168; a.bin at 176 (17 bytes), c.bin at 208 (40
        // bytes), the empty files at 256, where the file ends.
        assert_eq!((at("a.bin"), at("c.bin"), at("e.bin")), (176, 208, 256));
        assert_eq!(bytes.len(), 256);
        let mut reordered = items.to_vec();
        reordered.reverse();
        assert_eq!(write_pack(&reordered).unwrap(), bytes);
    }

    #[test]
    fn a_plan_shares_only_slots_the_caller_marks_alike() {
        let slot = |path, size, content| PackSlot {
            path,
            kind: PackKind::Other,
            size,
            content,
        };
        let plan = plan_pack(&[
            slot("c", 5, Some(1)),
            slot("a", 5, Some(1)),
            slot("b", 5, None),
            slot("d", 6, Some(1)),
            slot("e", 0, Some(2)),
            slot("f", 0, Some(2)),
        ])
        .unwrap();
        let shared: Vec<(usize, bool)> = plan.placed.iter().map(|p| (p.slot, p.shared)).collect();
        assert_eq!(
            shared,
            [
                (1, false),
                (2, false),
                (0, true),
                (3, false),
                (4, false),
                (5, false)
            ]
        );
        assert_eq!(plan.placed[2].offset, plan.placed[0].offset);
    }

    #[test]
    fn rejects_nonzero_padding_between_payloads() {
        let mut bytes = golden_two_entries();
        bytes[90] = 1;
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (90, "PackPadding"));

        let mut bytes = golden_two_entries();
        bytes[70] = 1;
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (70, "PackPadding"));
    }

    #[test]
    fn rejects_unsorted_and_repeated_paths() {
        let mut bytes = golden_two_entries();
        bytes[43] = b'c'; // "a.x" -> "c.x", now after "b.x"
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (65, "PackEntry.path"));
        assert!(err.what.contains("not sorted"), "{err}");

        let mut bytes = golden_two_entries();
        bytes[65] = b'a'; // "b.x" -> "a.x"
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (65, "PackEntry.path"));
        assert!(err.what.contains("twice"), "{err}");
    }

    #[test]
    fn rejects_unknown_kind_and_bad_paths() {
        let mut bytes = golden_two_entries();
        bytes[40] = 8;
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (40, "PackEntry.kind"));

        let mut bytes = golden_two_entries();
        bytes[44] = 0xc3; // "a\xc3x": a truncated UTF-8 sequence
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (44, "PackEntry.path"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 43, b"/ax");
        assert_eq!(parse(&bytes).unwrap_err().field, "PackEntry.path");
    }

    #[test]
    fn data_never_panics_on_foreign_entries() {
        let bytes = golden_two_entries();
        let pack = parse(&bytes).unwrap();
        let bogus = PackEntry {
            path: "x",
            kind: PackKind::Other,
            offset: u64::MAX - 1,
            size: 10,
        };
        assert!(pack.data(&bogus).is_empty());
    }

    #[test]
    fn survives_arbitrary_corruption() {
        let bytes = write_sample();
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x10, 0x2f, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                let _ = parse(&corrupt);
            }
        }
    }
}
