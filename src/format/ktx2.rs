//! KTX 2.0 containers: the header and level index layouts, a writer for the
//! textures assetc produces, and a validating zero-copy reader.
//!
//! The layout follows the KTX 2.0 specification:
//!
//! ```text
//! header (80 B) | level index (24 B per level) | DFD | key/value data | levels
//! ```
//!
//! Levels are indexed largest first (level 0 is the full-size image) but stored
//! in the file smallest first. Without supercompression each level starts on a
//! multiple of `lcm(texel block size, 4)`; with supercompression the alignment
//! is 1. All integers are little-endian.
//!
//! The writer handles 2D and 3D textures, cube maps and arrays of any
//! [`TexelFormat`] (uncompressed, UASTC, BCn, ASTC, shared-exponent). It
//! describes the texels with a basic Data Format Descriptor (Khronos Data
//! Format Specification, "basic descriptor block", built in
//! [`super::dfd`]) and writes the key/value pairs `KTXorientation`,
//! `KTXswizzle` (optional) and `KTXwriter`, sorted by key, plus any the
//! caller adds ([`write_ktx2_with`], e.g. [`IRRADIANCE_SH_KEY`]).

use core::mem::{offset_of, size_of};
use core::ops::Range;

use bytemuck::{Pod, Zeroable};

use super::dfd::Transfer;
use super::error::{FormatError, FormatResult};

/// The 12-byte file identifier every KTX 2.0 file starts with (`«KTX 20»\r\n\x1A\n`).
pub const IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

pub use super::texel::{
    AstcBlock, TexelFormat, VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, VK_FORMAT_R8_UNORM,
    VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16_UNORM,
    VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_UNDEFINED,
};

/// The key/value key under which an image-based-lighting cube map carries
/// the nine RGB spherical-harmonic coefficients of its environment's diffuse
/// irradiance: 27 little-endian `f32`s, coefficient by coefficient (the
/// order of `docs/ibl.md`), red, green and blue within each. Keys outside
/// the `KTX`/`ktx` prefixes are the application's, per the KTX 2.0
/// specification.
pub const IRRADIANCE_SH_KEY: &str = "assetc.irradianceSH";

/// The key/value key of the sentence saying why a texture is written in the
/// format it is when that is not the format its settings asked for (pixel
/// art, or a step up past the quality floor): NUL-terminated UTF-8.
pub const CHOICE_KEY: &str = "assetc.choice";

/// The key/value key of the texture's sampler hint: `nearest` (NUL
/// terminated) asks the engine to sample it without filtering (pixel art).
/// Absent means the usual linear filtering.
pub const SAMPLER_KEY: &str = "assetc.sampler";

/// Supercompression scheme 0: level data is stored as is.
pub const SUPERCOMPRESSION_NONE: u32 = 0;

/// Supercompression scheme 1: BasisLZ (ETC1S), which assetc never writes.
pub const SUPERCOMPRESSION_BASISLZ: u32 = 1;

/// Supercompression scheme 2: each level is one or more Zstandard frames.
pub const SUPERCOMPRESSION_ZSTD: u32 = 2;

/// Supercompression scheme 3: each level is one zlib stream (not written).
pub const SUPERCOMPRESSION_ZLIB: u32 = 3;

/// `KHR_DF_MODEL_ETC1S`, the DFD colour model of BasisLZ payloads (not written).
pub const DFD_MODEL_ETC1S: u32 = super::dfd::MODEL_ETC1S;

/// `KHR_DF_MODEL_UASTC`, the DFD colour model of UASTC payloads.
pub const DFD_MODEL_UASTC: u32 = super::dfd::MODEL_UASTC;

/// `KHR_DF_TRANSFER_LINEAR`, as [`Ktx2View::transfer_function`] reports it.
pub const DFD_TRANSFER_LINEAR: u32 = Transfer::Linear as u32;

/// `KHR_DF_TRANSFER_SRGB`, as [`Ktx2View::transfer_function`] reports it.
pub const DFD_TRANSFER_SRGB: u32 = Transfer::Srgb as u32;

/// The fixed 80-byte header at the start of every KTX 2.0 file.
///
/// Fields are in host byte order once read with [`Ktx2Header::read`]; in the file
/// they are little-endian.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct Ktx2Header {
    /// Must equal [`IDENTIFIER`].
    pub identifier: [u8; 12],
    /// The Vulkan format of the texels (0 for Basis Universal payloads).
    pub vk_format: u32,
    /// Size in bytes of the data type for endian conversion (1 for 8-bit formats).
    pub type_size: u32,
    /// Width of level 0 in pixels.
    pub pixel_width: u32,
    /// Height of level 0 in pixels (0 for 1D textures).
    pub pixel_height: u32,
    /// Depth of level 0 in pixels (0 unless the texture is 3D).
    pub pixel_depth: u32,
    /// Number of array layers (0 when the texture is not an array).
    pub layer_count: u32,
    /// 1, or 6 for cube maps.
    pub face_count: u32,
    /// Number of mip levels; 0 means "one level, generate the rest at load time".
    pub level_count: u32,
    /// How levels are supercompressed (see [`SUPERCOMPRESSION_ZSTD`]).
    pub supercompression_scheme: u32,
    /// File offset of the Data Format Descriptor.
    pub dfd_byte_offset: u32,
    /// Length of the Data Format Descriptor, including its total-size word.
    pub dfd_byte_length: u32,
    /// File offset of the key/value data (0 when there is none).
    pub kvd_byte_offset: u32,
    /// Length of the key/value data, padding included.
    pub kvd_byte_length: u32,
    /// File offset of the supercompression global data (0 when there is none).
    pub sgd_byte_offset: u64,
    /// Length of the supercompression global data.
    pub sgd_byte_length: u64,
}

const _: () = assert!(size_of::<Ktx2Header>() == 80);

impl Ktx2Header {
    /// Reads a header from the first 80 bytes of `bytes`, converting to host order.
    pub fn read(bytes: &[u8]) -> FormatResult<Self> {
        let raw = bytes.get(..size_of::<Self>()).ok_or_else(|| {
            FormatError::new(
                0,
                "Ktx2Header",
                format!(
                    "file is {} bytes, shorter than the {}-byte header",
                    bytes.len(),
                    size_of::<Self>()
                ),
            )
        })?;
        Ok(bytemuck::pod_read_unaligned::<Self>(raw).swap_little_endian())
    }

    /// The header as its 80 file bytes (little-endian).
    pub fn to_bytes(&self) -> [u8; 80] {
        let mut bytes = [0; 80];
        bytes.copy_from_slice(bytemuck::bytes_of(&self.swap_little_endian()));
        bytes
    }

    /// Converts every integer field between little-endian and host order
    /// (the conversion is its own inverse and a no-op on little-endian hosts).
    fn swap_little_endian(self) -> Self {
        Self {
            identifier: self.identifier,
            vk_format: u32::from_le(self.vk_format),
            type_size: u32::from_le(self.type_size),
            pixel_width: u32::from_le(self.pixel_width),
            pixel_height: u32::from_le(self.pixel_height),
            pixel_depth: u32::from_le(self.pixel_depth),
            layer_count: u32::from_le(self.layer_count),
            face_count: u32::from_le(self.face_count),
            level_count: u32::from_le(self.level_count),
            supercompression_scheme: u32::from_le(self.supercompression_scheme),
            dfd_byte_offset: u32::from_le(self.dfd_byte_offset),
            dfd_byte_length: u32::from_le(self.dfd_byte_length),
            kvd_byte_offset: u32::from_le(self.kvd_byte_offset),
            kvd_byte_length: u32::from_le(self.kvd_byte_length),
            sgd_byte_offset: u64::from_le(self.sgd_byte_offset),
            sgd_byte_length: u64::from_le(self.sgd_byte_length),
        }
    }

    /// Number of entries in the level index: `max(1, levelCount)`.
    pub fn stored_level_count(&self) -> u32 {
        self.level_count.max(1)
    }
}

/// One entry of the level index that follows the header.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct LevelIndexEntry {
    /// File offset of the level's data.
    pub byte_offset: u64,
    /// Length of the level's data as stored (after supercompression).
    pub byte_length: u64,
    /// Length of the level's data once inflated.
    pub uncompressed_byte_length: u64,
}

const _: () = assert!(size_of::<LevelIndexEntry>() == 24);

impl LevelIndexEntry {
    /// Reads an entry from 24 little-endian bytes.
    fn read(raw: &[u8]) -> Self {
        let entry: Self = bytemuck::pod_read_unaligned(raw);
        Self {
            byte_offset: u64::from_le(entry.byte_offset),
            byte_length: u64::from_le(entry.byte_length),
            uncompressed_byte_length: u64::from_le(entry.uncompressed_byte_length),
        }
    }

    /// Appends the entry's 24 little-endian bytes to `out`.
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.byte_offset.to_le_bytes());
        out.extend_from_slice(&self.byte_length.to_le_bytes());
        out.extend_from_slice(&self.uncompressed_byte_length.to_le_bytes());
    }

    /// File offset just past the level's data, `None` if it overflows.
    fn end(&self) -> Option<u64> {
        self.byte_offset.checked_add(self.byte_length)
    }
}

/// One mip level handed to [`write_ktx2`].
#[derive(Debug, Clone, Copy)]
pub struct Ktx2Level<'a> {
    /// The level's bytes as stored: already supercompressed when the image's
    /// scheme is not [`SUPERCOMPRESSION_NONE`].
    pub data: &'a [u8],
    /// The level's length before supercompression.
    pub uncompressed_len: u64,
}

/// A texture to be written by [`write_ktx2`]: 2D, 3D, a cube map or an array.
#[derive(Debug, Clone, Copy)]
pub struct Ktx2Image<'a> {
    /// What the level data holds.
    pub format: TexelFormat,
    /// Width of level 0 in pixels.
    pub width: u32,
    /// Height of level 0 in pixels.
    pub height: u32,
    /// Depth of level 0 in pixels; 0 unless the texture is 3D.
    pub depth: u32,
    /// Number of array layers; 0 unless the texture is an array.
    pub layers: u32,
    /// 1, or 6 for a cube map (faces +X, -X, +Y, -Y, +Z, -Z).
    pub faces: u32,
    /// The scheme the level data was supercompressed with.
    pub supercompression: u32,
    /// The `KTXswizzle` value to record (four characters of `rgba01`), if any.
    pub swizzle: Option<&'a str>,
    /// The mip levels, level 0 (largest) first. Each level holds every layer,
    /// then every face, then every depth slice, in that nesting order.
    pub levels: &'a [Ktx2Level<'a>],
}

/// The key/value data: entries sorted by key, each padded to 4 bytes.
/// `orientation` is `KTXorientation` (one letter per dimension).
/// `extra` entries (key, raw value bytes, stored without a terminating NUL)
/// join the string entries.
fn key_value_data(orientation: &str, swizzle: Option<&str>, extra: &[(&str, &[u8])]) -> Vec<u8> {
    let writer = concat!("assetc ", env!("CARGO_PKG_VERSION"));
    let string = |value: &str| [value.as_bytes(), &[0]].concat();
    let mut entries = vec![
        ("KTXorientation", string(orientation)),
        ("KTXwriter", string(writer)),
    ];
    if let Some(swizzle) = swizzle {
        entries.push(("KTXswizzle", string(swizzle)));
    }
    entries.extend(extra.iter().map(|&(key, value)| (key, value.to_vec())));
    entries.sort_by_key(|&(key, _)| key);
    let mut out = Vec::new();
    for (key, value) in entries {
        let length = key.len() + 1 + value.len();
        out.extend_from_slice(&(length as u32).to_le_bytes());
        out.extend_from_slice(key.as_bytes());
        out.push(0);
        out.extend_from_slice(&value);
        pad_to(&mut out, 4);
    }
    out
}

/// Appends zero bytes until `out.len()` is a multiple of `alignment`.
fn pad_to(out: &mut Vec<u8>, alignment: u64) {
    while !(out.len() as u64).is_multiple_of(alignment) {
        out.push(0);
    }
}

/// Writes a complete KTX 2.0 file.
///
/// # Panics
///
/// If `image.levels` is empty; that is a programming error.
pub fn write_ktx2(image: &Ktx2Image) -> Vec<u8> {
    write_ktx2_with(image, &[])
}

/// Writes a complete KTX 2.0 file whose key/value data also holds `extra`
/// (each a key and its raw value bytes, e.g. [`IRRADIANCE_SH_KEY`]); keys
/// must be unique and not those [`write_ktx2`] writes itself.
///
/// # Panics
///
/// If `image.levels` is empty; that is a programming error.
pub fn write_ktx2_with(image: &Ktx2Image, extra: &[(&str, &[u8])]) -> Vec<u8> {
    assert!(!image.levels.is_empty(), "write_ktx2: no levels");
    let format = image.format;
    let level_count = image.levels.len();
    let dfd = format.dfd();
    // Right, down, and (for 3D) in: the natural order of the stored texels.
    let orientation = if image.depth > 0 { "rdi" } else { "rd" };
    let kvd = key_value_data(orientation, image.swizzle, extra);
    let dfd_offset = size_of::<Ktx2Header>() + level_count * size_of::<LevelIndexEntry>();
    let kvd_offset = dfd_offset + dfd.len();
    let alignment = if image.supercompression == SUPERCOMPRESSION_NONE {
        lcm(format.texel_block_size(), 4)
    } else {
        1
    };

    // Lay the levels out smallest first, after the key/value data.
    let mut body = Vec::new();
    let mut index = vec![LevelIndexEntry::zeroed(); level_count];
    let body_start = (kvd_offset + kvd.len()) as u64;
    for (entry, level) in index.iter_mut().zip(image.levels).rev() {
        let mut offset = body_start + body.len() as u64;
        while !offset.is_multiple_of(alignment) {
            body.push(0);
            offset += 1;
        }
        *entry = LevelIndexEntry {
            byte_offset: offset,
            byte_length: level.data.len() as u64,
            uncompressed_byte_length: level.uncompressed_len,
        };
        body.extend_from_slice(level.data);
    }

    let header = Ktx2Header {
        identifier: IDENTIFIER,
        vk_format: format.vk_format(),
        type_size: format.type_size(),
        pixel_width: image.width,
        pixel_height: image.height,
        pixel_depth: image.depth,
        layer_count: image.layers,
        face_count: image.faces,
        level_count: level_count as u32,
        supercompression_scheme: image.supercompression,
        dfd_byte_offset: dfd_offset as u32,
        dfd_byte_length: dfd.len() as u32,
        kvd_byte_offset: kvd_offset as u32,
        kvd_byte_length: kvd.len() as u32,
        sgd_byte_offset: 0,
        sgd_byte_length: 0,
    };
    let mut out = Vec::with_capacity(body_start as usize + body.len());
    out.extend_from_slice(&header.to_bytes());
    for entry in &index {
        entry.write(&mut out);
    }
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
    out.extend_from_slice(&body);
    out
}

/// Writes a 2D texture of one level: `data` holds the `width` x `height`
/// image in `format`, stored as is, with no swizzle. The shape tests,
/// tools and small generated textures need most often.
pub fn write_single_level(format: TexelFormat, width: u32, height: u32, data: &[u8]) -> Vec<u8> {
    let levels = [Ktx2Level {
        data,
        uncompressed_len: data.len() as u64,
    }];
    write_ktx2(&Ktx2Image {
        format,
        width,
        height,
        depth: 0,
        layers: 0,
        faces: 1,
        supercompression: SUPERCOMPRESSION_NONE,
        swizzle: None,
        levels: &levels,
    })
}

/// Least common multiple of two non-zero numbers.
fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// A validated KTX 2.0 file, borrowing the file's bytes.
#[derive(Debug, Clone)]
pub struct Ktx2View<'a> {
    bytes: &'a [u8],
    header: Ktx2Header,
    levels: Vec<LevelIndexEntry>,
}

impl<'a> Ktx2View<'a> {
    /// The header, in host byte order.
    pub fn header(&self) -> &Ktx2Header {
        &self.header
    }

    /// The level index, level 0 (largest) first.
    pub fn levels(&self) -> &[LevelIndexEntry] {
        &self.levels
    }

    /// The stored (possibly supercompressed) bytes of level `index`, or an
    /// empty slice if `index >= self.levels().len()`.
    pub fn level_data(&self, index: usize) -> &'a [u8] {
        self.levels.get(index).map_or(&[], |entry| {
            self.slice(entry.byte_offset, entry.byte_length)
        })
    }

    /// Sum of the stored bytes of every level: what an upload reads from
    /// the file (before any supercompression is undone).
    pub fn level_bytes(&self) -> u64 {
        self.levels.iter().map(|entry| entry.byte_length).sum()
    }

    /// The whole Data Format Descriptor, its total-size word included.
    pub fn dfd(&self) -> &'a [u8] {
        let header = &self.header;
        self.slice(header.dfd_byte_offset.into(), header.dfd_byte_length.into())
    }

    /// The colour model of the DFD's first descriptor block (byte 12 of the
    /// DFD: after the total size and two block-header words), e.g.
    /// [`DFD_MODEL_UASTC`]; `None` when the DFD is too short to hold it.
    pub fn color_model(&self) -> Option<u32> {
        self.dfd().get(12).copied().map(u32::from)
    }

    /// The texel format the header and DFD describe, when it is one of the
    /// table's ([`TexelFormat`]): the `vkFormat` decides, except for
    /// `vkFormat` 0, where a UASTC colour model in the DFD does (with its
    /// alpha channel and transfer function). `None` for any other format,
    /// which the reader passes through unchecked beyond its level sizes.
    pub fn texel_format(&self) -> Option<TexelFormat> {
        format_of(&self.header, self.dfd())
    }

    /// The transfer function of the DFD's first descriptor block (byte 14),
    /// e.g. [`DFD_TRANSFER_SRGB`]; `None` when the DFD is too short.
    pub fn transfer_function(&self) -> Option<u32> {
        self.dfd().get(14).copied().map(u32::from)
    }

    /// `length` bytes of the file at `offset`; [`parse`] checked every range
    /// this is asked for, so the empty fallback is never taken.
    fn slice(&self, offset: u64, length: u64) -> &'a [u8] {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = usize::try_from(length)
            .ok()
            .and_then(|length| start.checked_add(length))
            .unwrap_or(usize::MAX);
        self.bytes.get(start..end).unwrap_or_default()
    }

    /// The key/value pairs in file order. Values are raw bytes and include the
    /// terminating NUL of string values.
    pub fn key_values(&self) -> KeyValues<'a> {
        let start = self.header.kvd_byte_offset as usize;
        let data = self.slice(
            self.header.kvd_byte_offset.into(),
            self.header.kvd_byte_length.into(),
        );
        KeyValues {
            data,
            position: 0,
            base: start as u64,
        }
    }

    /// The value stored under `key`, if present.
    pub fn key_value(&self, key: &str) -> Option<&'a [u8]> {
        self.key_values()
            .find(|&(found, _)| found == key)
            .map(|(_, value)| value)
    }

    /// The text stored under `key`, without its terminating NUL, if present
    /// and valid UTF-8.
    pub fn key_text(&self, key: &str) -> Option<&'a str> {
        let value = self.key_value(key)?;
        core::str::from_utf8(value.strip_suffix(&[0]).unwrap_or(value)).ok()
    }

    /// Whether the texture asks to be sampled without filtering
    /// ([`SAMPLER_KEY`] is `nearest`).
    pub fn wants_nearest(&self) -> bool {
        self.key_text(SAMPLER_KEY) == Some("nearest")
    }

    /// The nine RGB irradiance coefficients stored under
    /// [`IRRADIANCE_SH_KEY`], if present and exactly 108 bytes long.
    pub fn irradiance_sh(&self) -> Option<[[f32; 3]; 9]> {
        let value = self.key_value(IRRADIANCE_SH_KEY)?;
        if value.len() != 9 * 3 * 4 {
            return None;
        }
        let mut out = [[0.0; 3]; 9];
        for (slot, bytes) in out.iter_mut().flatten().zip(value.chunks_exact(4)) {
            *slot = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        Some(out)
    }
}

/// Iterator over the key/value pairs of a validated file (see [`Ktx2View::key_values`]).
#[derive(Debug, Clone)]
pub struct KeyValues<'a> {
    data: &'a [u8],
    position: usize,
    base: u64,
}

impl<'a> Iterator for KeyValues<'a> {
    type Item = (&'a str, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let entry = next_key_value(self.data, self.position, self.base).ok()??;
        self.position = entry.next;
        Some((entry.key, entry.value))
    }
}

/// One decoded key/value entry and where the next one starts.
struct KeyValueEntry<'a> {
    key: &'a str,
    value: &'a [u8],
    next: usize,
}

/// Decodes the key/value entry at `position` of `data` (the key/value section,
/// which starts at file offset `base`). `Ok(None)` at the end of the section.
fn next_key_value(
    data: &[u8],
    position: usize,
    base: u64,
) -> FormatResult<Option<KeyValueEntry<'_>>> {
    const FIELD: &str = "keyAndValueByteLength";
    if position == data.len() {
        return Ok(None);
    }
    let at = |offset: usize| base + offset as u64;
    let length_bytes = data
        .get(position..position + 4)
        .ok_or_else(|| FormatError::new(at(position), FIELD, "runs past the key/value data"))?;
    let length = u32::from_le_bytes([
        length_bytes[0],
        length_bytes[1],
        length_bytes[2],
        length_bytes[3],
    ]) as usize;
    let start = position + 4;
    if length < 2 {
        return Err(FormatError::new(
            at(position),
            FIELD,
            format!("is {length}, below the minimum of 2"),
        ));
    }
    let pair = start
        .checked_add(length)
        .and_then(|end| data.get(start..end))
        .ok_or_else(|| {
            FormatError::new(
                at(position),
                FIELD,
                format!("{length} bytes run past the key/value data"),
            )
        })?;
    let nul = pair
        .iter()
        .position(|&byte| byte == 0)
        .ok_or_else(|| FormatError::new(at(start), "keyAndValue", "key has no NUL terminator"))?;
    let key = core::str::from_utf8(&pair[..nul])
        .ok()
        .filter(|key| !key.is_empty())
        .ok_or_else(|| FormatError::new(at(start), "keyAndValue", "key is empty or not UTF-8"))?;
    let next = (start + length).next_multiple_of(4);
    let padding = data.get(start + length..next).ok_or_else(|| {
        FormatError::new(
            at(start + length),
            "valuePadding",
            "runs past the key/value data",
        )
    })?;
    if padding.iter().any(|&byte| byte != 0) {
        return Err(FormatError::new(
            at(start + length),
            "valuePadding",
            "is not zero",
        ));
    }
    Ok(Some(KeyValueEntry {
        key,
        value: &pair[nul + 1..],
        next,
    }))
}

/// Checks every key/value entry: well formed, keys sorted and unique.
fn validate_key_values(data: &[u8], base: u64) -> FormatResult<()> {
    let mut position = 0;
    let mut previous: Option<&str> = None;
    while let Some(entry) = next_key_value(data, position, base)? {
        if previous.is_some_and(|previous| previous >= entry.key) {
            return Err(FormatError::new(
                base + position as u64,
                "keyAndValue",
                format!("key {:?} is out of order or repeated", entry.key),
            ));
        }
        previous = Some(entry.key);
        position = entry.next;
    }
    Ok(())
}

/// The byte range `offset..offset + length`, checked to lie inside a file of
/// `file_len` bytes.
fn region(
    offset: u64,
    length: u64,
    file_len: usize,
    field_offset: usize,
    field: &'static str,
) -> FormatResult<Range<usize>> {
    let end = offset
        .checked_add(length)
        .filter(|&end| end <= file_len as u64);
    match end {
        Some(end) => Ok(offset as usize..end as usize),
        None => Err(FormatError::new(
            field_offset as u64,
            field,
            format!(
                "{length} bytes at offset {offset} run past the end of the {file_len}-byte file"
            ),
        )),
    }
}

/// Reads a little-endian u32 at `offset`, which the caller has bounds-checked.
fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[offset..offset + 4]);
    u32::from_le_bytes(word)
}

/// Parses and validates a KTX 2.0 file. Never panics; every fault is reported as
/// a [`FormatError`] naming the offending field.
pub fn parse(bytes: &[u8]) -> FormatResult<Ktx2View<'_>> {
    let header = Ktx2Header::read(bytes)?;
    validate_header(&header)?;
    let index_end = level_index_end(&header, bytes.len())?;
    let dfd = validate_dfd(&header, bytes, index_end)?;
    validate_format(&header, &bytes[dfd.clone()], dfd.start)?;
    let kvd = validate_kvd(&header, bytes, dfd.end)?;
    let sgd = validate_sgd(&header, bytes, kvd.end.max(dfd.end))?;
    let metadata_end = sgd.end.max(kvd.end).max(dfd.end);
    let levels = read_level_index(&header, bytes);
    validate_levels(&header, &levels, bytes, metadata_end)?;
    Ok(Ktx2View {
        bytes,
        header,
        levels,
    })
}

/// Checks a KTX 2.0 file (every rule [`parse`] checks) held in a buffer of any
/// alignment.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    parse(bytes).map(drop)
}

/// Checks the identifier, the dimensions and the level count against the size.
fn validate_header(header: &Ktx2Header) -> FormatResult<()> {
    let field =
        |offset: usize, name, what: String| Err(FormatError::new(offset as u64, name, what));
    if header.identifier != IDENTIFIER {
        return field(
            0,
            "Ktx2Header.identifier",
            "is not the KTX 2.0 identifier".into(),
        );
    }
    if header.pixel_width == 0 {
        return field(
            offset_of!(Ktx2Header, pixel_width),
            "Ktx2Header.pixelWidth",
            "is 0".into(),
        );
    }
    if header.face_count != 1 && header.face_count != 6 {
        return field(
            offset_of!(Ktx2Header, face_count),
            "Ktx2Header.faceCount",
            format!("is {}, not 1 or 6", header.face_count),
        );
    }
    let largest = header
        .pixel_width
        .max(header.pixel_height)
        .max(header.pixel_depth);
    let full_chain = u32::BITS - largest.leading_zeros();
    if header.level_count > full_chain {
        return field(
            offset_of!(Ktx2Header, level_count),
            "Ktx2Header.levelCount",
            format!(
                "is {}, more than the {full_chain} levels of a full chain for {largest} pixels",
                header.level_count
            ),
        );
    }
    Ok(())
}

/// End of the level index, checked to lie inside the file.
fn level_index_end(header: &Ktx2Header, file_len: usize) -> FormatResult<usize> {
    let length = header.stored_level_count() as u64 * size_of::<LevelIndexEntry>() as u64;
    let index = region(
        size_of::<Ktx2Header>() as u64,
        length,
        file_len,
        offset_of!(Ktx2Header, level_count),
        "Ktx2Header.levelCount",
    )?;
    Ok(index.end)
}

/// Checks the DFD's placement, total size and descriptor block sizes.
fn validate_dfd(header: &Ktx2Header, bytes: &[u8], index_end: usize) -> FormatResult<Range<usize>> {
    const FIELD: &str = "Ktx2Header.dfdByteOffset";
    let field_offset = offset_of!(Ktx2Header, dfd_byte_offset);
    let dfd = region(
        header.dfd_byte_offset.into(),
        header.dfd_byte_length.into(),
        bytes.len(),
        field_offset,
        FIELD,
    )?;
    if dfd.start < index_end || dfd.start % 4 != 0 {
        return Err(FormatError::new(
            field_offset as u64,
            FIELD,
            format!(
                "is {}: must be 4-aligned and after the level index (ends at {index_end})",
                dfd.start
            ),
        ));
    }
    if dfd.len() < 4 {
        return Err(FormatError::new(
            offset_of!(Ktx2Header, dfd_byte_length) as u64,
            "Ktx2Header.dfdByteLength",
            format!("is {}, too short for dfdTotalSize", dfd.len()),
        ));
    }
    let total = u32_at(bytes, dfd.start);
    if total as usize != dfd.len() {
        return Err(FormatError::new(
            dfd.start as u64,
            "dfdTotalSize",
            format!("is {total} but dfdByteLength is {}", dfd.len()),
        ));
    }
    validate_dfd_blocks(bytes, dfd.start + 4..dfd.end)?;
    Ok(dfd)
}

/// Offsets inside the DFD (from its total-size word) of the first basic
/// descriptor block's fields that decide what the texels are.
mod dfd_field {
    /// `vendorId` and `descriptorType`: 0 for a Khronos basic block.
    pub const KIND: usize = 4;
    /// `colorModel`.
    pub const MODEL: usize = 12;
    /// `transferFunction`.
    pub const TRANSFER: usize = 14;
    /// `texelBlockDimension0..3`, each stored minus one.
    pub const BLOCK_DIMENSIONS: usize = 16;
    /// `bytesPlane0`.
    pub const BYTES_PLANE0: usize = 20;
    /// The channel byte of the first sample.
    pub const FIRST_CHANNEL: usize = 31;
}

/// The table's format for this header and DFD (`dfd`, total-size word
/// first), if any: by `vkFormat`, or for `vkFormat` 0 by a UASTC colour model.
fn format_of(header: &Ktx2Header, dfd: &[u8]) -> Option<TexelFormat> {
    if header.vk_format != VK_FORMAT_UNDEFINED {
        return TexelFormat::from_vk_format(header.vk_format);
    }
    let field = |offset: usize| dfd.get(offset).copied();
    if field(dfd_field::MODEL).map(u32::from) != Some(DFD_MODEL_UASTC) {
        return None;
    }
    Some(TexelFormat::Uastc {
        srgb: field(dfd_field::TRANSFER).map(u32::from) == Some(DFD_TRANSFER_SRGB),
        alpha: field(dfd_field::FIRST_CHANNEL).map(|c| c & 0x0F) == Some(3),
    })
}

/// When the header names a format of the table, checks that the header and
/// the DFD's size-deciding fields agree with it: `typeSize`, the height a
/// block-compressed format needs, and the DFD's descriptor kind, colour
/// model, transfer function, texel block dimensions and `bytesPlane0`. The
/// rest of the DFD (samples, primaries) may differ, so files from other
/// writers pass through; any other `vkFormat` is left to the level checks.
/// `dfd` is the whole DFD, found at file offset `dfd_start`.
fn validate_format(header: &Ktx2Header, dfd: &[u8], dfd_start: usize) -> FormatResult<()> {
    let Some(format) = format_of(header, dfd) else {
        return Ok(());
    };
    let name = format.name();
    if header.type_size != format.type_size() {
        return Err(FormatError::new(
            offset_of!(Ktx2Header, type_size) as u64,
            "Ktx2Header.typeSize",
            format!(
                "is {} but {name} (vkFormat {}) needs {}",
                header.type_size,
                header.vk_format,
                format.type_size()
            ),
        ));
    }
    if format.block_dimensions() != (1, 1) && header.pixel_height == 0 {
        return Err(FormatError::new(
            offset_of!(Ktx2Header, pixel_height) as u64,
            "Ktx2Header.pixelHeight",
            format!("is 0, but {name} is block-compressed and cannot be one-dimensional"),
        ));
    }
    let expected = format.dfd();
    type Show = fn(&[u8]) -> String;
    let fields: [(usize, usize, &'static str, Show); 5] = [
        (dfd_field::KIND, 4, "dfdBlock.vendorId", le_value),
        (dfd_field::MODEL, 1, "dfdBlock.colorModel", le_value),
        (
            dfd_field::TRANSFER,
            1,
            "dfdBlock.transferFunction",
            le_value,
        ),
        (
            dfd_field::BLOCK_DIMENSIONS,
            4,
            "dfdBlock.texelBlockDimension",
            block_text,
        ),
        (dfd_field::BYTES_PLANE0, 1, "dfdBlock.bytesPlane0", le_value),
    ];
    for (offset, length, field, show) in fields {
        let want = &expected[offset..offset + length];
        let found = dfd.get(offset..offset + length);
        if found != Some(want) {
            return Err(FormatError::new(
                (dfd_start + offset) as u64,
                field,
                format!(
                    "is {}, but {name} (vkFormat {}) needs {}",
                    found.map_or_else(|| "missing".into(), show),
                    header.vk_format,
                    show(want)
                ),
            ));
        }
    }
    Ok(())
}

/// The four `texelBlockDimension` bytes (each one less than the size) as
/// `WxHxDxT`, for messages.
fn block_text(field: &[u8]) -> String {
    let sizes: Vec<String> = field
        .iter()
        .map(|&d| (u32::from(d) + 1).to_string())
        .collect();
    sizes.join("x")
}

/// A little-endian field of one to four bytes as a number, for messages.
fn le_value(field: &[u8]) -> String {
    let value = field
        .iter()
        .rev()
        .fold(0_u32, |value, &byte| value << 8 | u32::from(byte));
    value.to_string()
}

/// Checks that the descriptor blocks tile the DFD exactly.
fn validate_dfd_blocks(bytes: &[u8], blocks: Range<usize>) -> FormatResult<()> {
    const BLOCK_HEADER_LEN: usize = 8;
    let mut position = blocks.start;
    if blocks.is_empty() {
        return Err(FormatError::new(
            position as u64,
            "dfdBlock",
            "the DFD holds no descriptor block",
        ));
    }
    while position < blocks.end {
        if blocks.end - position < BLOCK_HEADER_LEN {
            return Err(FormatError::new(
                position as u64,
                "dfdBlock",
                "block header runs past the DFD",
            ));
        }
        let block_size = (u32_at(bytes, position + 4) >> 16) as usize;
        if block_size < BLOCK_HEADER_LEN
            || !block_size.is_multiple_of(4)
            || block_size > blocks.end - position
        {
            return Err(FormatError::new(
                position as u64 + 4,
                "dfdBlock.descriptorBlockSize",
                format!(
                    "is {block_size}: must be a multiple of 4, at least 8 and fit in the {} bytes left",
                    blocks.end - position
                ),
            ));
        }
        position += block_size;
    }
    Ok(())
}

/// Checks the key/value data's placement and entries.
fn validate_kvd(header: &Ktx2Header, bytes: &[u8], dfd_end: usize) -> FormatResult<Range<usize>> {
    const FIELD: &str = "Ktx2Header.kvdByteOffset";
    let field_offset = offset_of!(Ktx2Header, kvd_byte_offset) as u64;
    if header.kvd_byte_length == 0 {
        if header.kvd_byte_offset != 0 {
            return Err(FormatError::new(
                field_offset,
                FIELD,
                "must be 0 when kvdByteLength is 0",
            ));
        }
        return Ok(0..0);
    }
    let kvd = region(
        header.kvd_byte_offset.into(),
        header.kvd_byte_length.into(),
        bytes.len(),
        field_offset as usize,
        FIELD,
    )?;
    if kvd.start != dfd_end {
        return Err(FormatError::new(
            field_offset,
            FIELD,
            format!(
                "is {}, but the key/value data must follow the DFD (which ends at {dfd_end})",
                kvd.start
            ),
        ));
    }
    validate_key_values(&bytes[kvd.clone()], kvd.start as u64)?;
    Ok(kvd)
}

/// Checks the supercompression global data's placement.
fn validate_sgd(header: &Ktx2Header, bytes: &[u8], after: usize) -> FormatResult<Range<usize>> {
    const FIELD: &str = "Ktx2Header.sgdByteOffset";
    let field_offset = offset_of!(Ktx2Header, sgd_byte_offset) as u64;
    if header.sgd_byte_length == 0 {
        if header.sgd_byte_offset != 0 {
            return Err(FormatError::new(
                field_offset,
                FIELD,
                "must be 0 when sgdByteLength is 0",
            ));
        }
        return Ok(0..0);
    }
    let sgd = region(
        header.sgd_byte_offset,
        header.sgd_byte_length,
        bytes.len(),
        field_offset as usize,
        FIELD,
    )?;
    if sgd.start < after || sgd.start % 8 != 0 {
        return Err(FormatError::new(
            field_offset,
            FIELD,
            format!(
                "is {}: must be 8-aligned and after the key/value data (ends at {after})",
                sgd.start
            ),
        ));
    }
    Ok(sgd)
}

/// Reads the level index, whose extent `level_index_end` has checked.
fn read_level_index(header: &Ktx2Header, bytes: &[u8]) -> Vec<LevelIndexEntry> {
    let start = size_of::<Ktx2Header>();
    let length = header.stored_level_count() as usize * size_of::<LevelIndexEntry>();
    bytes[start..start + length]
        .chunks_exact(size_of::<LevelIndexEntry>())
        .map(LevelIndexEntry::read)
        .collect()
}

/// The file offset of the level index entry `level`'s field at `field_offset`.
fn level_field_offset(level: usize, field_offset: usize) -> u64 {
    (size_of::<Ktx2Header>() + level * size_of::<LevelIndexEntry>() + field_offset) as u64
}

/// Checks each level's bounds, lengths and alignment, and that the levels are
/// stored smallest first after the metadata without overlapping.
fn validate_levels(
    header: &Ktx2Header,
    levels: &[LevelIndexEntry],
    bytes: &[u8],
    metadata_end: usize,
) -> FormatResult<()> {
    let alignment = level_alignment(header, bytes);
    let images_per_level = u64::from(header.face_count) * u64::from(header.layer_count.max(1));
    let mut next_start = metadata_end as u64;
    for (level, entry) in levels.iter().enumerate().rev() {
        let at = |field_offset| level_field_offset(level, field_offset);
        let offset_field = at(offset_of!(LevelIndexEntry, byte_offset));
        let fail = |offset, field, what: String| Err(FormatError::new(offset, field, what));
        let end = entry.end().filter(|&end| end <= bytes.len() as u64);
        let Some(end) = end else {
            return fail(
                offset_field,
                "LevelIndexEntry.byteOffset",
                format!(
                    "level {level}: {} bytes at offset {} run past the end of the {}-byte file",
                    entry.byte_length,
                    entry.byte_offset,
                    bytes.len()
                ),
            );
        };
        if entry.byte_length == 0 {
            return fail(
                at(offset_of!(LevelIndexEntry, byte_length)),
                "LevelIndexEntry.byteLength",
                format!("level {level} is empty"),
            );
        }
        if entry.byte_offset < next_start {
            return fail(
                offset_field,
                "LevelIndexEntry.byteOffset",
                format!(
                    "level {level} starts at {}, before {next_start}: levels must follow the \
                     metadata, smallest first, without overlapping",
                    entry.byte_offset
                ),
            );
        }
        if entry.byte_offset % alignment != 0 {
            return fail(
                offset_field,
                "LevelIndexEntry.byteOffset",
                format!(
                    "level {level} starts at {}, not a multiple of {alignment}",
                    entry.byte_offset
                ),
            );
        }
        let uncompressed_field = at(offset_of!(LevelIndexEntry, uncompressed_byte_length));
        if header.supercompression_scheme == SUPERCOMPRESSION_NONE
            && entry.uncompressed_byte_length != entry.byte_length
        {
            return fail(
                uncompressed_field,
                "LevelIndexEntry.uncompressedByteLength",
                format!(
                    "level {level}: is {} but byteLength is {} without supercompression",
                    entry.uncompressed_byte_length, entry.byte_length
                ),
            );
        }
        let needed = level_bytes(header, bytes, level);
        if needed.is_some_and(|n| n != u128::from(entry.uncompressed_byte_length)) {
            return fail(
                uncompressed_field,
                "LevelIndexEntry.uncompressedByteLength",
                format!(
                    "level {level}: is {} but the header's size and the DFD's texel block make {}",
                    entry.uncompressed_byte_length,
                    needed.unwrap_or_default()
                ),
            );
        }
        if entry.uncompressed_byte_length % images_per_level != 0 {
            return fail(
                uncompressed_field,
                "LevelIndexEntry.uncompressedByteLength",
                format!(
                    "level {level}: {} is not a multiple of faces x layers ({images_per_level})",
                    entry.uncompressed_byte_length
                ),
            );
        }
        next_start = end;
    }
    Ok(())
}

/// The bytes level `level` holds once inflated, from the header's size and
/// the DFD's texel block (its dimensions and `bytesPlane0`): every face,
/// layer and depth slice of whole blocks, saturating rather than wrapping.
/// `None` when the DFD gives no block size (BasisLZ).
fn level_bytes(header: &Ktx2Header, bytes: &[u8], level: usize) -> Option<u128> {
    let block = header.dfd_byte_offset as usize + 4;
    let dimension = |i: usize| bytes.get(block + 12 + i).map(|&d| u128::from(d) + 1);
    let block_bytes = u128::from(*bytes.get(block + 16)?);
    if block_bytes == 0 {
        return None;
    }
    let shrink = |size: u32| u128::from(size.checked_shr(level as u32).unwrap_or(0).max(1));
    let blocks = |size: u32, i: usize| Some(shrink(size).div_ceil(dimension(i)?));
    let images = u128::from(header.face_count) * u128::from(header.layer_count.max(1));
    Some(
        blocks(header.pixel_width, 0)?
            .saturating_mul(blocks(header.pixel_height.max(1), 1)?)
            .saturating_mul(blocks(header.pixel_depth.max(1), 2)?)
            .saturating_mul(block_bytes)
            .saturating_mul(images),
    )
}

/// The alignment levels must start on: 1 with supercompression, otherwise
/// `lcm(texel block size, 4)`, the block size read from the DFD's `bytesPlane0`.
fn level_alignment(header: &Ktx2Header, bytes: &[u8]) -> u64 {
    if header.supercompression_scheme != SUPERCOMPRESSION_NONE {
        return 1;
    }
    // bytesPlane0 is byte 16 of the first descriptor block, after dfdTotalSize.
    let bytes_plane0 = bytes
        .get(header.dfd_byte_offset as usize + 4 + 16)
        .copied()
        .unwrap_or(0);
    lcm(u64::from(bytes_plane0.max(1)), 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x2 texture with three levels of made-up bytes, uncompressed.
    fn small_file(supercompression: u32, swizzle: Option<&str>) -> Vec<u8> {
        let level0 = [7u8; 32];
        let level1 = [8u8; 8];
        let level2 = [9u8; 4];
        let levels = [
            Ktx2Level {
                data: &level0,
                uncompressed_len: 32,
            },
            Ktx2Level {
                data: &level1,
                uncompressed_len: 8,
            },
            Ktx2Level {
                data: &level2[..if supercompression == 0 { 4 } else { 3 }],
                uncompressed_len: 4,
            },
        ];
        write_ktx2(&Ktx2Image {
            format: TexelFormat::Rgba8 { srgb: true },
            width: 4,
            height: 2,
            depth: 0,
            layers: 0,
            faces: 1,
            supercompression,
            swizzle,
            levels: &levels,
        })
    }

    #[test]
    fn round_trip_through_the_reader() {
        let file = small_file(SUPERCOMPRESSION_NONE, Some("rg01"));
        let view = parse(&file).unwrap();
        let header = view.header();
        assert_eq!(header.vk_format, VK_FORMAT_R8G8B8A8_SRGB);
        assert_eq!((header.pixel_width, header.pixel_height), (4, 2));
        assert_eq!(header.level_count, 3);
        assert_eq!(header.type_size, 1);
        assert_eq!(view.level_data(0), &[7u8; 32]);
        assert_eq!(view.level_data(1), &[8u8; 8]);
        assert_eq!(view.level_data(2), &[9u8; 4]);
        assert!(view.level_data(3).is_empty());
        assert_eq!(view.level_bytes(), 32 + 8 + 4);
        assert_eq!(view.key_value("KTXswizzle"), Some(&b"rg01\0"[..]));
        assert_eq!(view.key_value("KTXorientation"), Some(&b"rd\0"[..]));
        let keys: Vec<_> = view.key_values().map(|(key, _)| key).collect();
        assert_eq!(keys, ["KTXorientation", "KTXswizzle", "KTXwriter"]);
        assert_eq!(view.dfd().len(), 92);
    }

    #[test]
    fn levels_are_stored_smallest_first_and_aligned() {
        let file = small_file(SUPERCOMPRESSION_NONE, None);
        let view = parse(&file).unwrap();
        let levels = view.levels();
        assert!(levels[2].byte_offset < levels[1].byte_offset);
        assert!(levels[1].byte_offset < levels[0].byte_offset);
        assert!(levels.iter().all(|level| level.byte_offset % 4 == 0));
        assert_eq!(levels[0].byte_offset + 32, file.len() as u64);
    }

    #[test]
    fn supercompressed_levels_are_packed_without_padding() {
        let file = small_file(SUPERCOMPRESSION_ZSTD, None);
        let view = parse(&file).unwrap();
        let levels = view.levels();
        assert_eq!(levels[2].byte_length, 3);
        assert_eq!(levels[2].byte_offset + 3, levels[1].byte_offset);
        assert_eq!(levels[2].uncompressed_byte_length, 4);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let file = small_file(SUPERCOMPRESSION_ZSTD, Some("r001"));
        for length in 0..file.len() {
            assert!(parse(&file[..length]).is_err(), "length {length}");
            assert!(validate(&file[..length]).is_err(), "length {length}");
        }
        assert_eq!(validate(&file), Ok(()));
    }

    #[test]
    fn every_single_byte_corruption_is_handled_without_panic() {
        let file = small_file(SUPERCOMPRESSION_NONE, Some("rg01"));
        for position in 0..file.len() {
            for value in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
                let mut corrupt = file.clone();
                corrupt[position] = value;
                let _ = parse(&corrupt);
            }
        }
    }

    /// Overwrites the u64 at `offset` with `value`.
    fn poke_u64(file: &mut [u8], offset: u64, value: u64) {
        let offset = offset as usize;
        file[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
    }

    #[test]
    fn a_level_outside_the_file_is_rejected() {
        let mut file = small_file(SUPERCOMPRESSION_NONE, None);
        let field = level_field_offset(0, 0);
        let near_the_end = file.len() as u64 - 4;
        poke_u64(&mut file, field, near_the_end);
        let error = parse(&file).unwrap_err();
        assert_eq!(error.offset, field);
        assert_eq!(error.field, "LevelIndexEntry.byteOffset");

        poke_u64(&mut file, field, u64::MAX - 2);
        assert!(parse(&file).is_err());
    }

    #[test]
    fn levels_in_the_wrong_order_are_rejected() {
        let file = small_file(SUPERCOMPRESSION_NONE, None);
        let view = parse(&file).unwrap();
        let (level1, level2) = (view.levels()[1], view.levels()[2]);
        let mut swapped = file.clone();
        poke_u64(&mut swapped, level_field_offset(1, 0), level2.byte_offset);
        poke_u64(&mut swapped, level_field_offset(2, 0), level1.byte_offset);
        assert!(parse(&swapped).is_err());
    }

    #[test]
    fn a_misaligned_uncompressed_level_is_rejected() {
        let mut file = small_file(SUPERCOMPRESSION_NONE, None);
        let level0 = parse(&file).unwrap().levels()[0];
        poke_u64(&mut file, level_field_offset(0, 0), level0.byte_offset + 2);
        poke_u64(&mut file, level_field_offset(0, 8), 30);
        poke_u64(&mut file, level_field_offset(0, 16), 30);
        let error = parse(&file).unwrap_err();
        assert!(error.what.contains("multiple of 4"), "{error}");
    }

    #[test]
    fn levels_must_hold_what_the_size_and_texel_block_make() {
        let file = small_file(SUPERCOMPRESSION_ZSTD, None);
        assert!(parse(&file).is_ok());
        let with_size = |width: u32, height: u32| {
            let mut copy = file.clone();
            let at = offset_of!(Ktx2Header, pixel_width);
            copy[at..at + 4].copy_from_slice(&width.to_le_bytes());
            copy[at + 4..at + 8].copy_from_slice(&height.to_le_bytes());
            parse(&copy).map(|_| ()).unwrap_err()
        };
        // 4x3 keeps the level count legal but makes 4x3x4 = 48 bytes, not 32.
        let error = with_size(4, 3);
        assert_eq!(error.field, "LevelIndexEntry.uncompressedByteLength");
        assert!(error.what.contains("make 48"), "{error}");
        // A huge size saturates instead of wrapping, and is refused.
        let error = with_size(u32::MAX, u32::MAX);
        assert_eq!(error.field, "LevelIndexEntry.uncompressedByteLength");
    }

    #[test]
    fn header_faults_are_rejected() {
        let file = small_file(SUPERCOMPRESSION_NONE, None);
        let with = |offset: usize, value: u32| {
            let mut copy = file.clone();
            copy[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
            parse(&copy).map(|_| ()).unwrap_err()
        };
        let level_count = offset_of!(Ktx2Header, level_count);
        // 4x2 allows at most 3 levels.
        assert_eq!(with(level_count, 4).field, "Ktx2Header.levelCount");
        assert_eq!(with(level_count, u32::MAX).field, "Ktx2Header.levelCount");
        assert_eq!(with(0, 0).field, "Ktx2Header.identifier");
        let dfd_length = offset_of!(Ktx2Header, dfd_byte_length);
        assert_eq!(with(dfd_length, 88).field, "dfdTotalSize");
        let kvd_length = offset_of!(Ktx2Header, kvd_byte_length);
        assert!(with(kvd_length, 4).field.starts_with("keyAndValue"));
    }

    #[test]
    fn unsorted_keys_are_rejected() {
        let mut kvd = key_value_data("rd", Some("rg01"), &[]);
        assert!(validate_key_values(&kvd, 0).is_ok());
        // "KTXorientation" becomes "KTXz...", now after "KTXswizzle".
        kvd[7] = b'z';
        assert!(validate_key_values(&kvd, 0).is_err());
    }

    /// Every format of the table, UASTC included.
    fn every_format() -> Vec<TexelFormat> {
        let astc_hdr = super::super::texel::VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK;
        let mut formats: Vec<TexelFormat> = (0..200)
            .chain(astc_hdr..astc_hdr + 8)
            .filter_map(TexelFormat::from_vk_format)
            .collect();
        for (srgb, alpha) in [(false, false), (true, false), (false, true), (true, true)] {
            formats.push(TexelFormat::Uastc { srgb, alpha });
        }
        formats
    }

    /// A 13x7 single-level texture of `format`, its bytes made up.
    fn format_file(format: TexelFormat) -> Vec<u8> {
        let data = vec![0x5A; format.image_bytes(13, 7) as usize];
        write_single_level(format, 13, 7, &data)
    }

    /// `file` with the byte at `offset` set to `value`, parsed.
    fn with_byte(file: &[u8], offset: usize, value: u8) -> FormatResult<()> {
        let mut copy = file.to_vec();
        copy[offset] = value;
        validate(&copy)
    }

    /// File offset of a field of the DFD (offset from its total-size word).
    fn dfd_at(file: &[u8], field: usize) -> usize {
        parse(file).unwrap().header().dfd_byte_offset as usize + field
    }

    #[test]
    fn every_format_of_the_table_is_written_read_and_named_back() {
        let formats = every_format();
        assert_eq!(formats.len(), 16 + 3 * 8 + 4);
        for format in formats {
            let file = format_file(format);
            let view = parse(&file).unwrap_or_else(|e| panic!("{}: {e}", format.name()));
            assert_eq!(view.texel_format(), Some(format));
            assert_eq!(
                view.level_bytes(),
                format.image_bytes(13, 7),
                "{}",
                format.name()
            );
        }
    }

    #[test]
    fn a_type_size_that_disagrees_with_the_format_is_refused() {
        let at = offset_of!(Ktx2Header, type_size);
        let bc7 = format_file(TexelFormat::Bc7 { srgb: true });
        let error = with_byte(&bc7, at, 4).unwrap_err();
        assert_eq!(
            (error.offset, error.field),
            (at as u64, "Ktx2Header.typeSize")
        );
        assert!(
            error.what.contains("bc7") && error.what.contains("needs 1"),
            "{error}"
        );
        let half = format_file(TexelFormat::Rgba16Float);
        assert_eq!(
            with_byte(&half, at, 1).unwrap_err().field,
            "Ktx2Header.typeSize"
        );
        let shared = format_file(TexelFormat::Rgb9e5);
        assert_eq!(
            with_byte(&shared, at, 2).unwrap_err().field,
            "Ktx2Header.typeSize"
        );
    }

    #[test]
    fn a_block_compressed_texture_cannot_be_one_dimensional() {
        let format = TexelFormat::Bc1 { srgb: false };
        let data = vec![0; format.image_bytes(8, 1) as usize];
        let file = write_single_level(format, 8, 0, &data);
        let error = validate(&file).unwrap_err();
        assert_eq!(error.field, "Ktx2Header.pixelHeight");
        assert_eq!(error.offset, offset_of!(Ktx2Header, pixel_height) as u64);
        // An uncompressed format may be 1D.
        let line = write_single_level(TexelFormat::R8Unorm, 8, 0, &[0u8; 8]);
        assert_eq!(validate(&line), Ok(()));
    }

    #[test]
    fn dfd_fields_that_disagree_with_the_vk_format_are_refused() {
        let astc = format_file(TexelFormat::Astc {
            block: AstcBlock::B6x6,
            srgb: true,
        });
        // (byte changed, new value, field reported, where the field starts)
        let dims = dfd_field::BLOCK_DIMENSIONS;
        let cases = [
            (dfd_field::KIND, 1, "dfdBlock.vendorId", dfd_field::KIND),
            // BC7's model in an ASTC file.
            (
                dfd_field::MODEL,
                134,
                "dfdBlock.colorModel",
                dfd_field::MODEL,
            ),
            (
                dfd_field::TRANSFER,
                1,
                "dfdBlock.transferFunction",
                dfd_field::TRANSFER,
            ),
            // 5x6 blocks, then a depth of 2, in a 6x6 file.
            (dims, 4, "dfdBlock.texelBlockDimension", dims),
            (dims + 2, 1, "dfdBlock.texelBlockDimension", dims),
            (
                dfd_field::BYTES_PLANE0,
                8,
                "dfdBlock.bytesPlane0",
                dfd_field::BYTES_PLANE0,
            ),
        ];
        for (changed, value, name, start) in cases {
            let error = with_byte(&astc, dfd_at(&astc, changed), value).unwrap_err();
            assert_eq!(
                (error.offset, error.field),
                (dfd_at(&astc, start) as u64, name)
            );
            assert!(error.what.contains("astc-6x6"), "{error}");
        }
        // A UASTC file whose DFD says BC7 is not UASTC any more: vkFormat 0
        // with another model passes through to the level checks alone.
        let uastc = format_file(TexelFormat::Uastc {
            srgb: false,
            alpha: false,
        });
        let at = dfd_at(&uastc, dfd_field::BYTES_PLANE0);
        assert_eq!(
            with_byte(&uastc, at, 8).unwrap_err().field,
            "dfdBlock.bytesPlane0"
        );
        assert_eq!(
            with_byte(&uastc, dfd_at(&uastc, dfd_field::MODEL), 134),
            Ok(())
        );
    }

    #[test]
    fn a_vk_format_outside_the_table_passes_through_on_its_dfd() {
        // VK_FORMAT_ETC2_R8G8B8A8_UNORM_BLOCK (16 bytes per 4x4 block) under
        // BC7's DFD: not ours to judge beyond the level sizes, which agree.
        let mut file = format_file(TexelFormat::Bc7 { srgb: false });
        let at = offset_of!(Ktx2Header, vk_format);
        file[at..at + 4].copy_from_slice(&151u32.to_le_bytes());
        let view = parse(&file).unwrap();
        assert_eq!(view.texel_format(), None);
    }

    #[test]
    fn lcm_of_block_sizes() {
        assert_eq!(lcm(4, 4), 4);
        assert_eq!(lcm(1, 4), 4);
        assert_eq!(lcm(6, 4), 12);
        assert_eq!(lcm(16, 4), 16);
    }
}
