//! `.hman` v1: the global manifest that maps asset ids back to runtime files.
//!
//! One `assets.hman` sits at the root of the output tree. Every id stored in a
//! `.hmesh` or `.hmat` (see [`asset_hash`](super::hash::asset_hash)) resolves
//! through it to a path relative to that root.
//!
//! # Layout (little-endian, no padding anywhere)
//!
//! | offset | size | field      | meaning                                 |
//! |-------:|-----:|------------|-----------------------------------------|
//! | 0      | 4    | `magic`    | the bytes `HMAN`                        |
//! | 4      | 4    | `version`  | `1`                                     |
//! | 8      | 4    | `count`    | number of entries that follow           |
//! | 12     | 4    | `reserved` | `0`                                     |
//!
//! Then `count` entries back to back, each `12 + pathLen` bytes:
//!
//! | size      | field        | meaning                                      |
//! |----------:|--------------|----------------------------------------------|
//! | 8         | `hash`       | the asset id                                 |
//! | 1         | `kind`       | [`AssetKind`] byte                           |
//! | 1         | `colorspace` | [`ColorSpace`] byte                          |
//! | 2         | `pathLen`    | length of `path` in bytes                    |
//! | `pathLen` | `path`       | UTF-8, `/`-separated, relative to the root   |
//!
//! Entries are sorted by `hash`, strictly ascending (two entries never share an
//! id), so a reader can binary-search them. The file ends right after the last
//! entry.
//!
//! [`write_manifest`] produces these bytes; [`parse`] checks every rule above
//! and hands back a borrowed, searchable [`Manifest`]; [`validate`] only
//! checks. Neither cares how the buffer is aligned.

use core::fmt;

use bytemuck::{Pod, Zeroable};

use super::bytes::{
    ByteReader, FileId, LeHeader, PathFieldError, check_path_field, invalid_path_message,
    path_too_long_message, push_path_field, read_le_header,
};
use super::error::{FormatError, FormatResult};
use super::kind::{AssetKind, ColorSpace};

/// The four bytes every manifest starts with.
pub const MAGIC: [u8; 4] = *b"HMAN";

/// The manifest's file name at the root of an output folder and of a pack.
pub const MANIFEST_FILE: &str = "assets.hman";

/// The manifest version this module reads and writes.
pub const VERSION: u32 = 1;

/// Size of [`ManHeader`] on disk.
pub const HEADER_BYTES: usize = 16;

/// Size of an entry without its path: hash, kind, colour space and path length.
pub const ENTRY_FIXED_BYTES: usize = 12;

/// The fixed 16-byte header at the start of a `.hman` file.
///
/// Fields hold host-order values; [`ManHeader::to_bytes`] and
/// [`ManHeader::from_bytes`] convert to and from the little-endian disk form.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManHeader {
    /// Must equal [`MAGIC`].
    pub magic: [u8; 4],
    /// Must equal [`VERSION`].
    pub version: u32,
    /// Number of entries after the header.
    pub count: u32,
    /// Written as 0; a reader rejects anything else.
    pub reserved: u32,
}

const _: () = assert!(size_of::<ManHeader>() == HEADER_BYTES);

impl ManHeader {
    /// A current-version header announcing `count` entries.
    pub const fn new(count: u32) -> Self {
        Self {
            magic: MAGIC,
            version: VERSION,
            count,
            reserved: 0,
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

impl LeHeader for ManHeader {
    const NAME: &'static str = "ManHeader";
    const ID: FileId = FileId {
        magic: u32::from_le_bytes(MAGIC),
        version: VERSION,
        magic_field: "ManHeader.magic",
        version_field: "ManHeader.version",
    };

    fn magic_and_version(&self) -> (u32, u32) {
        (u32::from_le_bytes(self.magic), self.version)
    }

    fn swap_to_or_from_le(self) -> Self {
        Self {
            magic: self.magic,
            version: self.version.to_le(),
            count: self.count.to_le(),
            reserved: self.reserved.to_le(),
        }
    }
}

/// One manifest entry to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// The asset id, normally [`AssetKind::id_for_path`] of `path`.
    pub hash: u64,
    /// What the file is.
    pub kind: AssetKind,
    /// The colour space its texels are stored in (`Linear` for non-images).
    pub colorspace: ColorSpace,
    /// The file's path relative to the output root, `/`-separated.
    pub path: String,
}

/// Why [`write_manifest`] refused its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestError {
    /// Two different paths share one id. `first` sorts before `second`.
    Collision {
        /// The shared id.
        hash: u64,
        /// One of the two paths (the smaller).
        first: String,
        /// The other path.
        second: String,
    },
    /// One (id, path) pair was listed twice with different kind or colour space.
    Conflict {
        /// The id of the pair.
        hash: u64,
        /// The path of the pair.
        path: String,
        /// Kind and colour space of one listing (the smaller).
        first: (AssetKind, ColorSpace),
        /// Kind and colour space of the other listing.
        second: (AssetKind, ColorSpace),
    },
    /// A path does not fit the 16-bit length field.
    PathTooLong {
        /// The offending path.
        path: String,
    },
    /// A path is not a clean relative runtime path (see
    /// [`check_runtime_path`](super::bytes::check_runtime_path)).
    InvalidPath {
        /// The offending path.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// More distinct entries than the 32-bit count field can announce.
    TooManyEntries {
        /// How many distinct entries there were.
        count: usize,
    },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Collision {
                hash,
                first,
                second,
            } => write!(f, "hash {hash:#018x}: {first:?} and {second:?} collide"),
            ManifestError::Conflict {
                hash,
                path,
                first,
                second,
            } => write!(
                f,
                "hash {hash:#018x}: {path:?} is listed both as {}/{} and as {}/{}",
                first.0, first.1, second.0, second.1
            ),
            ManifestError::PathTooLong { path } => {
                f.write_str(&path_too_long_message(path, "a manifest entry"))
            }
            ManifestError::InvalidPath { path, reason } => {
                f.write_str(&invalid_path_message(path, reason))
            }
            ManifestError::TooManyEntries { count } => write!(
                f,
                "{count} manifest entries exceed the {} a manifest can hold",
                u32::MAX
            ),
        }
    }
}

impl std::error::Error for ManifestError {}

impl PathFieldError for ManifestError {
    fn too_long(path: String) -> Self {
        ManifestError::PathTooLong { path }
    }

    fn invalid(path: String, reason: &'static str) -> Self {
        ManifestError::InvalidPath { path, reason }
    }
}

/// Serialises `entries` into the bytes of a `.hman` file.
///
/// Entries are sorted by id (ties by path), and repeated (id, path) pairs are
/// written once, so any ordering of the same set yields identical bytes. Fails
/// if two paths share an id, if a repeated pair disagrees on kind or colour
/// space, or if a path is invalid or longer than `u16::MAX` bytes.
pub fn write_manifest(entries: &[ManifestEntry]) -> Result<Vec<u8>, ManifestError> {
    let unique = sort_and_dedup(entries)?;
    for entry in &unique {
        check_path_field::<ManifestError>(&entry.path)?;
    }
    let count = u32::try_from(unique.len()).map_err(|_| ManifestError::TooManyEntries {
        count: unique.len(),
    })?;
    let body: usize = unique
        .iter()
        .map(|entry| ENTRY_FIXED_BYTES + entry.path.len())
        .sum();
    let mut out = Vec::with_capacity(HEADER_BYTES + body);
    out.extend_from_slice(&ManHeader::new(count).to_bytes());
    for entry in unique {
        encode_entry(entry, &mut out);
    }
    Ok(out)
}

/// Sorts by (id, path, kind, colour space), drops exact repeats and reports
/// collisions and conflicts. The full sort key keeps error reports
/// independent of the input order too.
fn sort_and_dedup(entries: &[ManifestEntry]) -> Result<Vec<&ManifestEntry>, ManifestError> {
    let mut sorted: Vec<&ManifestEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| {
        (a.hash, &a.path, a.kind, a.colorspace).cmp(&(b.hash, &b.path, b.kind, b.colorspace))
    });
    let mut unique: Vec<&ManifestEntry> = Vec::with_capacity(sorted.len());
    for entry in sorted {
        match unique.last() {
            Some(kept) if kept.hash == entry.hash => check_repeat(kept, entry)?,
            _ => unique.push(entry),
        }
    }
    Ok(unique)
}

/// Accepts `repeat` as a harmless duplicate of `kept` (same id) or explains why not.
fn check_repeat(kept: &ManifestEntry, repeat: &ManifestEntry) -> Result<(), ManifestError> {
    if kept.path != repeat.path {
        return Err(ManifestError::Collision {
            hash: kept.hash,
            first: kept.path.clone(),
            second: repeat.path.clone(),
        });
    }
    if (kept.kind, kept.colorspace) != (repeat.kind, repeat.colorspace) {
        return Err(ManifestError::Conflict {
            hash: kept.hash,
            path: kept.path.clone(),
            first: (kept.kind, kept.colorspace),
            second: (repeat.kind, repeat.colorspace),
        });
    }
    Ok(())
}

/// Appends one entry; the path was checked by [`check_path_field`].
fn encode_entry(entry: &ManifestEntry, out: &mut Vec<u8>) {
    out.extend_from_slice(&entry.hash.to_le_bytes());
    out.push(entry.kind as u8);
    out.push(entry.colorspace as u8);
    push_path_field(&entry.path, out);
}

/// One entry of a parsed manifest, borrowing its path from the file bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef<'a> {
    /// The asset id.
    pub hash: u64,
    /// What the file is.
    pub kind: AssetKind,
    /// The colour space its texels are stored in.
    pub colorspace: ColorSpace,
    /// Path relative to the output root.
    pub path: &'a str,
}

impl EntryRef<'_> {
    /// An owned copy, ready to be written again.
    pub fn to_entry(&self) -> ManifestEntry {
        ManifestEntry {
            hash: self.hash,
            kind: self.kind,
            colorspace: self.colorspace,
            path: self.path.to_owned(),
        }
    }

    /// Whether `hash` is the id the naming rule gives `path`
    /// ([`AssetKind::id_for_path`]). The format itself does not require it;
    /// `assetc check` does.
    pub fn id_matches_path(&self) -> bool {
        self.kind.id_for_path(self.path) == self.hash
    }
}

impl From<EntryRef<'_>> for ManifestEntry {
    fn from(entry: EntryRef<'_>) -> Self {
        entry.to_entry()
    }
}

/// A validated manifest borrowing from the file's bytes.
#[derive(Debug, Clone)]
pub struct Manifest<'a> {
    header: ManHeader,
    entries: Vec<EntryRef<'a>>,
}

impl<'a> Manifest<'a> {
    /// The decoded header.
    pub fn header(&self) -> ManHeader {
        self.header
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the manifest has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries, in ascending id order.
    pub fn entries(&self) -> &[EntryRef<'a>] {
        &self.entries
    }

    /// Iterates over the entries in ascending id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EntryRef<'a>> + '_ {
        self.entries.iter().copied()
    }

    /// The entry with id `hash`, found by binary search.
    pub fn find(&self, hash: u64) -> Option<EntryRef<'a>> {
        let index = self
            .entries
            .binary_search_by_key(&hash, |entry| entry.hash)
            .ok()?;
        self.entries.get(index).copied()
    }
}

/// Parses and fully validates a `.hman` file.
///
/// Checks the magic, version and reserved field, that `count` can fit in the
/// file before reserving memory for it, that every entry lies inside the file
/// with a known kind and colour space and a valid path (see
/// [`check_runtime_path`](super::bytes::check_runtime_path)), that ids ascend
/// strictly (an equal id is a collision) and that no bytes follow the last
/// entry.
pub fn parse(bytes: &[u8]) -> FormatResult<Manifest<'_>> {
    let mut reader = ByteReader::new(bytes);
    let header = read_header(&mut reader)?;
    let mut entries: Vec<EntryRef<'_>> = Vec::with_capacity(header.count as usize);
    for _ in 0..header.count {
        let start = reader.offset();
        let entry = read_entry(&mut reader)?;
        if let Some(previous) = entries.last() {
            check_order(previous, &entry, start)?;
        }
        entries.push(entry);
    }
    if reader.remaining() != 0 {
        return Err(FormatError::new(
            reader.offset(),
            "ManEntry",
            format!(
                "{} unexpected bytes after the last of {} entries",
                reader.remaining(),
                header.count
            ),
        ));
    }
    Ok(Manifest { header, entries })
}

/// Checks a whole `.hman` file (every rule [`parse`] checks) held in a buffer
/// of any alignment. Memory use is bounded by the file size.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    parse(bytes).map(drop)
}

/// Reads and checks the header, including that `count` entries could fit.
fn read_header(reader: &mut ByteReader<'_>) -> FormatResult<ManHeader> {
    let header: ManHeader = read_le_header(reader)?;
    let left = reader.remaining() as u64;
    let needed = u64::from(header.count) * ENTRY_FIXED_BYTES as u64;
    if needed > left {
        return Err(FormatError::new(
            8,
            "ManHeader.count",
            format!(
                "{} entries need at least {needed} bytes but only {left} follow the header",
                header.count
            ),
        ));
    }
    if header.reserved != 0 {
        return Err(FormatError::new(
            12,
            "ManHeader.reserved",
            format!("must be 0, found {}", header.reserved),
        ));
    }
    Ok(header)
}

/// Reads one entry and checks its fields in isolation.
fn read_entry<'a>(reader: &mut ByteReader<'a>) -> FormatResult<EntryRef<'a>> {
    let hash = reader.u64("ManEntry.hash")?;
    let kind = reader.code("ManEntry.kind", "kind", AssetKind::from_u8)?;
    let colorspace = reader.code("ManEntry.colorspace", "colour space", ColorSpace::from_u8)?;
    let path = reader.path_field("ManEntry.pathLen", "ManEntry.path")?;
    Ok(EntryRef {
        hash,
        kind,
        colorspace,
        path,
    })
}

/// Requires `entry` (starting at byte `at`) to sort strictly after `previous`.
fn check_order(previous: &EntryRef<'_>, entry: &EntryRef<'_>, at: u64) -> FormatResult<()> {
    if entry.hash == previous.hash {
        return Err(FormatError::new(
            at,
            "ManEntry.hash",
            format!(
                "hash {:#018x}: {:?} and {:?} collide",
                entry.hash, previous.path, entry.path
            ),
        ));
    }
    if entry.hash < previous.hash {
        return Err(FormatError::new(
            at,
            "ManEntry.hash",
            format!(
                "entries are not sorted: {:#018x} follows {:#018x}",
                entry.hash, previous.hash
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::bytes::check_runtime_path;

    fn entry(hash: u64, kind: AssetKind, colorspace: ColorSpace, path: &str) -> ManifestEntry {
        ManifestEntry {
            hash,
            kind,
            colorspace,
            path: path.to_owned(),
        }
    }

    /// Three entries keyed by their real ids, deliberately not in id order.
    fn sample() -> Vec<ManifestEntry> {
        let rows = [
            (
                AssetKind::Texture,
                ColorSpace::Srgb,
                "models/court/tex_0.ktx2",
            ),
            (AssetKind::Mesh, ColorSpace::Linear, "models/court.hmesh"),
            (AssetKind::Material, ColorSpace::Linear, "models/court.hmat"),
            (AssetKind::Shader, ColorSpace::Linear, "fx/blur/vertex.spv"),
        ];
        rows.iter()
            .map(|&(kind, space, path)| entry(kind.id_for_path(path), kind, space, path))
            .collect()
    }

    fn write_sample() -> Vec<u8> {
        write_manifest(&sample()).expect("sample is valid")
    }

    /// Overwrites bytes of a file image at `at`.
    fn patch(bytes: &mut [u8], at: usize, with: &[u8]) {
        bytes[at..at + with.len()].copy_from_slice(with);
    }

    /// Bytes of a tiny manifest, laid out by hand.
    fn golden_two_entries() -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"HMAN");
        bytes.extend_from_slice(&[1, 0, 0, 0]); // version
        bytes.extend_from_slice(&[2, 0, 0, 0]); // count
        bytes.extend_from_slice(&[0, 0, 0, 0]); // reserved
        // entry at 16: hash 0x05, mesh, linear, "m.hmesh"
        bytes.extend_from_slice(&[0x05, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[1, 0, 7, 0]);
        bytes.extend_from_slice(b"m.hmesh");
        // entry at 35: hash 0x1122334455667788, texture, srgb, "t/a"
        bytes.extend_from_slice(&[0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]);
        bytes.extend_from_slice(&[0, 1, 3, 0]);
        bytes.extend_from_slice(b"t/a");
        bytes
    }

    #[test]
    fn header_is_16_little_endian_bytes() {
        let header = ManHeader::new(0x0102_0304);
        assert_eq!(
            header.to_bytes(),
            [b'H', b'M', b'A', b'N', 1, 0, 0, 0, 4, 3, 2, 1, 0, 0, 0, 0]
        );
        assert_eq!(ManHeader::from_bytes(header.to_bytes()), header);
    }

    #[test]
    fn writes_golden_bytes() {
        let entries = [
            entry(
                0x1122_3344_5566_7788,
                AssetKind::Texture,
                ColorSpace::Srgb,
                "t/a",
            ),
            entry(0x05, AssetKind::Mesh, ColorSpace::Linear, "m.hmesh"),
        ];
        let bytes = write_manifest(&entries).unwrap();
        assert_eq!(bytes, golden_two_entries());
        assert_eq!(bytes.len(), 16 + 12 + 7 + 12 + 3);
    }

    #[test]
    fn parses_golden_bytes() {
        let bytes = golden_two_entries();
        let manifest = parse(&bytes).unwrap();
        assert_eq!(manifest.len(), 2);
        assert_eq!(manifest.header().count, 2);
        let first = manifest.iter().next().unwrap();
        assert_eq!(first.hash, 5);
        assert_eq!(first.kind, AssetKind::Mesh);
        assert_eq!(first.colorspace, ColorSpace::Linear);
        assert_eq!(first.path, "m.hmesh");
        let second = manifest.find(0x1122_3344_5566_7788).unwrap();
        assert_eq!(second.path, "t/a");
        assert_eq!(second.colorspace, ColorSpace::Srgb);
    }

    #[test]
    fn empty_manifest_is_just_a_header() {
        let bytes = write_manifest(&[]).unwrap();
        assert_eq!(bytes, ManHeader::new(0).to_bytes());
        let manifest = parse(&bytes).unwrap();
        assert!(manifest.is_empty());
        assert_eq!(manifest.find(0), None);
    }

    #[test]
    fn round_trips() {
        let mut original = sample();
        let bytes = write_manifest(&original).unwrap();
        let manifest = parse(&bytes).unwrap();
        let mut read_back: Vec<ManifestEntry> = manifest.iter().map(ManifestEntry::from).collect();
        original.sort_by_key(|e| e.hash);
        assert_eq!(read_back, original);
        assert!(manifest.iter().all(|e| e.id_matches_path()));
        for e in &original {
            assert_eq!(manifest.find(e.hash).unwrap().path, e.path);
        }
        assert_eq!(manifest.find(asset_hash_of_missing()), None);
        // Writing what was read gives the same bytes.
        read_back.reverse();
        assert_eq!(write_manifest(&read_back).unwrap(), bytes);
    }

    fn asset_hash_of_missing() -> u64 {
        super::super::hash::asset_hash("not/in/the/manifest")
    }

    #[test]
    fn is_deterministic_under_reordering() {
        let reference = write_sample();
        let mut entries = sample();
        for _ in 0..entries.len() {
            entries.rotate_left(1);
            assert_eq!(write_manifest(&entries).unwrap(), reference);
        }
        entries.reverse();
        assert_eq!(write_manifest(&entries).unwrap(), reference);
    }

    #[test]
    fn collapses_identical_pairs() {
        let mut entries = sample();
        entries.extend(sample());
        entries.push(sample()[0].clone());
        let bytes = write_manifest(&entries).unwrap();
        assert_eq!(bytes, write_sample());
        assert_eq!(parse(&bytes).unwrap().len(), 4);
    }

    #[test]
    fn reports_collisions_with_both_paths() {
        let entries = [
            entry(0xabc, AssetKind::Texture, ColorSpace::Srgb, "b/tex.ktx2"),
            entry(0xabc, AssetKind::Texture, ColorSpace::Srgb, "a/tex.ktx2"),
        ];
        let err = write_manifest(&entries).unwrap_err();
        assert_eq!(
            err,
            ManifestError::Collision {
                hash: 0xabc,
                first: "a/tex.ktx2".into(),
                second: "b/tex.ktx2".into(),
            }
        );
        assert_eq!(
            err.to_string(),
            r#"hash 0x0000000000000abc: "a/tex.ktx2" and "b/tex.ktx2" collide"#
        );
    }

    #[test]
    fn reports_conflicting_attributes() {
        let entries = [
            entry(7, AssetKind::Texture, ColorSpace::Srgb, "a.ktx2"),
            entry(7, AssetKind::Texture, ColorSpace::Linear, "a.ktx2"),
        ];
        let err = write_manifest(&entries).unwrap_err();
        assert_eq!(
            err,
            ManifestError::Conflict {
                hash: 7,
                path: "a.ktx2".into(),
                first: (AssetKind::Texture, ColorSpace::Linear),
                second: (AssetKind::Texture, ColorSpace::Srgb),
            }
        );
        assert!(err.to_string().contains("texture/linear"), "{err}");
    }

    #[test]
    fn rejects_overlong_paths_but_accepts_the_maximum() {
        let longest = "a".repeat(usize::from(u16::MAX));
        let bytes =
            write_manifest(&[entry(1, AssetKind::Embed, ColorSpace::Linear, &longest)]).unwrap();
        assert_eq!(parse(&bytes).unwrap().iter().next().unwrap().path, longest);

        let too_long = "a".repeat(usize::from(u16::MAX) + 1);
        let err = write_manifest(&[entry(1, AssetKind::Embed, ColorSpace::Linear, &too_long)])
            .unwrap_err();
        assert_eq!(err, ManifestError::PathTooLong { path: too_long });
        assert!(err.to_string().len() < 200);
    }

    #[test]
    fn rejects_unclean_paths_when_writing() {
        for bad in [
            "",
            "/abs.ktx2",
            "a\\b.ktx2",
            "a/../b",
            "./a",
            "a//b",
            "a/",
            "a\0b",
        ] {
            let err =
                write_manifest(&[entry(1, AssetKind::Embed, ColorSpace::Linear, bad)]).unwrap_err();
            assert!(
                matches!(err, ManifestError::InvalidPath { ref path, .. } if path == bad),
                "{bad:?}: {err}"
            );
        }
    }

    #[test]
    fn check_runtime_path_accepts_ordinary_paths() {
        for good in [
            "a",
            "models/chair.hmesh",
            "a/b/c.d.e",
            "..a/b..",
            "ü/ß.ktx2",
        ] {
            assert_eq!(check_runtime_path(good), Ok(()), "{good:?}");
        }
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
    fn truncation_reports_the_field() {
        let bytes = golden_two_entries();
        assert_eq!(parse(&bytes[..10]).unwrap_err().field, "ManHeader");
        assert_eq!(parse(&bytes[..18]).unwrap_err().field, "ManHeader.count");
        let err = parse(&bytes[..bytes.len() - 1]).unwrap_err();
        assert_eq!((err.offset, err.field), (47, "ManEntry.path"));
    }

    #[test]
    fn rejects_bad_magic() {
        let mut bytes = write_sample();
        bytes[0] = b'X';
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (0, "ManHeader.magic"));
    }

    #[test]
    fn rejects_bad_version() {
        let mut bytes = write_sample();
        patch(&mut bytes, 4, &2u32.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (4, "ManHeader.version"));
    }

    #[test]
    fn rejects_nonzero_reserved() {
        let mut bytes = write_sample();
        patch(&mut bytes, 12, &1u32.to_le_bytes());
        assert_eq!(parse(&bytes).unwrap_err().field, "ManHeader.reserved");
    }

    #[test]
    fn rejects_huge_count_before_allocating() {
        let mut header = ManHeader::new(u32::MAX).to_bytes().to_vec();
        let err = parse(&header).unwrap_err();
        assert_eq!((err.offset, err.field), (8, "ManHeader.count"));
        header.extend_from_slice(&[0; 64]);
        assert_eq!(parse(&header).unwrap_err().field, "ManHeader.count");
    }

    #[test]
    fn rejects_count_larger_than_entries_present() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 8, &3u32.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (8, "ManHeader.count"));
    }

    #[test]
    fn rejects_trailing_bytes() {
        let mut bytes = golden_two_entries();
        bytes.push(0);
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (50, "ManEntry"));
    }

    #[test]
    fn rejects_unsorted_and_equal_hashes() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 16, &u64::MAX.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (35, "ManEntry.hash"));
        assert!(err.what.contains("not sorted"), "{err}");

        patch(&mut bytes, 16, &0x1122_3344_5566_7788u64.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (35, "ManEntry.hash"));
        assert!(err.what.contains("collide"), "{err}");
    }

    #[test]
    fn rejects_unknown_kind_and_colorspace() {
        let mut bytes = golden_two_entries();
        bytes[24] = 8;
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (24, "ManEntry.kind"));

        let mut bytes = golden_two_entries();
        bytes[25] = 2;
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (25, "ManEntry.colorspace"));
    }

    #[test]
    fn rejects_bad_path_bytes() {
        let mut bytes = golden_two_entries();
        bytes[29] = 0xff; // inside "m.hmesh"
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (29, "ManEntry.path"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 47, b"../");
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (47, "ManEntry.path"));

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 47, b"/ab");
        assert_eq!(parse(&bytes).unwrap_err().field, "ManEntry.path");

        let mut bytes = golden_two_entries();
        patch(&mut bytes, 47, b"t\\a");
        assert_eq!(parse(&bytes).unwrap_err().field, "ManEntry.path");
    }

    #[test]
    fn rejects_empty_path() {
        let mut bytes = ManHeader::new(1).to_bytes().to_vec();
        bytes.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (28, "ManEntry.path"));
    }

    #[test]
    fn path_length_past_the_end_is_an_error() {
        let mut bytes = golden_two_entries();
        patch(&mut bytes, 45, &u16::MAX.to_le_bytes());
        let err = parse(&bytes).unwrap_err();
        assert_eq!((err.offset, err.field), (47, "ManEntry.path"));
    }

    #[test]
    fn survives_arbitrary_corruption() {
        // Flip every byte of a valid file to every interesting value: the parser
        // must return (Ok or Err) without panicking.
        let bytes = write_sample();
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x2f, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                let _ = parse(&corrupt);
            }
        }
    }
}
