//! The binary encoding, version 3: `BMF`, a version byte, then blocks of
//! `type: u8, size: u32` followed by `size` bytes, little-endian:
//!
//! | type | block    | content |
//! |-----:|----------|---------|
//! | 1    | info     | `fontSize: i16`, 12 bytes of flags, padding and spacing, the face name with a NUL |
//! | 2    | common   | `lineHeight, base, scaleW, scaleH, pages: u16`, `bitField: u8` (bit 7 packed), `alphaChnl, redChnl, greenChnl, blueChnl: u8` (15 bytes) |
//! | 3    | pages    | the page file names, each ending in NUL, all of one length |
//! | 4    | chars    | 20 bytes each: `id: u32`, `x, y, width, height: u16`, `xoffset, yoffset, xadvance: i16`, `page, chnl: u8` |
//! | 5    | kerning  | 10 bytes each: `first, second: u32`, `amount: i16` |
//!
//! Every size is checked against what is left of the file before anything
//! is read, and every error names the byte offset of the field at fault.

use super::model::{
    BmError, BmFont, ChannelContent, Channels, Glyph, Kerning, Metrics, Page, PageList, Place,
    glyph_id,
};

/// The signature before the version byte.
pub const SIGNATURE: &[u8; 3] = b"BMF";
/// The only version read.
pub const VERSION: u8 = 3;
/// Bytes of one char record.
const CHAR_BYTES: usize = 20;
/// Bytes of one kerning record.
const KERNING_BYTES: usize = 10;
/// Bytes of the common block.
const COMMON_BYTES: usize = 15;
/// Bytes of the info block before the face name.
const INFO_FIXED_BYTES: usize = 14;

/// Parses a binary `.fnt` (which starts with [`SIGNATURE`]).
pub fn parse(bytes: &[u8]) -> Result<BmFont, BmError> {
    let version = *bytes
        .get(3)
        .ok_or_else(|| BmError::at(Place::Offset(0), "the file ends inside its 4-byte header"))?;
    if version != VERSION {
        return Err(BmError::at(
            Place::Offset(3),
            format!(
                "binary version {version} is not supported; only version {VERSION} (BMFont 1.10 and later) is"
            ),
        ));
    }
    let mut blocks = Blocks::default();
    let mut at = 4;
    while at < bytes.len() {
        at = blocks.read(bytes, at)?;
    }
    blocks.finish()
}

/// The blocks found so far.
#[derive(Debug, Default)]
struct Blocks {
    info: Option<(i32, Place)>,
    common: Option<(Metrics, u32, Place)>,
    pages: Option<PageList>,
    glyphs: Option<Vec<Glyph>>,
    kerning: Option<Vec<Kerning>>,
}

impl Blocks {
    /// Reads the block at `at`; returns where the next one starts.
    fn read(&mut self, bytes: &[u8], at: usize) -> Result<usize, BmError> {
        let header = bytes.get(at..at + 5).ok_or_else(|| {
            BmError::at(
                Place::Offset(at),
                format!(
                    "the file ends inside a block header ({} bytes left, 5 needed)",
                    bytes.len() - at
                ),
            )
        })?;
        let kind = header[0];
        let size = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let start = at + 5;
        let left = bytes.len() - start;
        if size > left {
            return Err(BmError::at(
                Place::Offset(at + 1),
                format!("block {kind} declares {size} bytes, but only {left} follow"),
            ));
        }
        let body = &bytes[start..start + size];
        match kind {
            1 => set(&mut self.info, info(body, start)?, kind, at),
            2 => set(&mut self.common, common(body, start)?, kind, at),
            3 => set(&mut self.pages, pages(body, start)?, kind, at),
            4 => set(&mut self.glyphs, glyphs(body, start)?, kind, at),
            5 => set(&mut self.kerning, kerning(body, start)?, kind, at),
            _ => Err(BmError::at(
                Place::Offset(at),
                format!("unknown block type {kind} (1 to 5 exist)"),
            )),
        }?;
        Ok(start + size)
    }

    /// The font, once every block is in.
    fn finish(self) -> Result<BmFont, BmError> {
        let (size, size_place) = self
            .info
            .ok_or_else(|| BmError::whole("the file has no info block (type 1)"))?;
        let (metrics, declared_pages, common_place) = self
            .common
            .ok_or_else(|| BmError::whole("the file has no common block (type 2)"))?;
        let pages = self
            .pages
            .ok_or_else(|| BmError::whole("the file has no pages block (type 3)"))?
            .finish(declared_pages, common_place)?;
        let glyphs = self
            .glyphs
            .ok_or_else(|| BmError::whole("the file has no chars block (type 4)"))?;
        let metrics = Metrics {
            size,
            size_place,
            ..metrics
        };
        BmFont::new(metrics, pages, glyphs, self.kerning.unwrap_or_default())
    }
}

/// Stores a block's content, refusing a second block of one type.
fn set<T>(slot: &mut Option<T>, value: T, kind: u8, at: usize) -> Result<(), BmError> {
    if slot.is_some() {
        return Err(BmError::at(
            Place::Offset(at),
            format!("a second block of type {kind}"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

/// A little-endian `u16` at `at` of `body`, which is long enough.
fn u16_at(body: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([body[at], body[at + 1]])
}

/// A little-endian `u32` at `at` of `body`, which is long enough.
fn u32_at(body: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]])
}

/// A little-endian `i16` at `at` of `body`, widened.
fn i16_at(body: &[u8], at: usize) -> i32 {
    i32::from(u16_at(body, at) as i16)
}

/// The info block: the size (the rest is for BMFont's own use).
fn info(body: &[u8], start: usize) -> Result<(i32, Place), BmError> {
    if body.len() <= INFO_FIXED_BYTES || body.last() != Some(&0) {
        return Err(BmError::at(
            Place::Offset(start),
            format!(
                "the info block is {} bytes; it needs {INFO_FIXED_BYTES} and a NUL-terminated face name",
                body.len()
            ),
        ));
    }
    Ok((i16_at(body, 0), Place::Offset(start)))
}

/// The common block: the metrics and the page count.
fn common(body: &[u8], start: usize) -> Result<(Metrics, u32, Place), BmError> {
    if body.len() != COMMON_BYTES {
        return Err(BmError::at(
            Place::Offset(start - 4),
            format!(
                "the common block is {} bytes, not {COMMON_BYTES}",
                body.len()
            ),
        ));
    }
    let content = |index: usize| {
        ChannelContent::from_value(u32::from(body[index])).ok_or_else(|| {
            BmError::at(
                Place::Offset(start + index),
                format!("channel content {} is not 0 to 4", body[index]),
            )
        })
    };
    let metrics = Metrics {
        size: 0,
        line_height: u32::from(u16_at(body, 0)),
        base: u32::from(u16_at(body, 2)),
        scale: (u32::from(u16_at(body, 4)), u32::from(u16_at(body, 6))),
        packed: body[10] & 0x80 != 0,
        contents: [content(12)?, content(13)?, content(14)?, content(11)?],
        size_place: Place::Offset(start),
    };
    Ok((metrics, u32::from(u16_at(body, 8)), Place::Offset(start)))
}

/// The pages block: NUL-terminated names of one length (none in an empty
/// block).
fn pages(body: &[u8], start: usize) -> Result<PageList, BmError> {
    if body.is_empty() {
        return Ok(PageList::default());
    }
    let length = body.iter().position(|&b| b == 0).ok_or_else(|| {
        BmError::at(
            Place::Offset(start),
            "the first page name has no terminating NUL",
        )
    })? + 1;
    if !body.len().is_multiple_of(length) {
        return Err(BmError::at(
            Place::Offset(start - 4),
            format!(
                "the pages block is {} bytes, not a multiple of the first name's {length}",
                body.len()
            ),
        ));
    }
    let mut list = PageList::default();
    for (index, name) in body.chunks_exact(length).enumerate() {
        let at = start + index * length;
        let file = page_name(name, at)?;
        let id = u32::try_from(index).unwrap_or(u32::MAX);
        list.add(
            id,
            Page {
                file,
                place: Place::Offset(at),
            },
        )?;
    }
    Ok(list)
}

/// One page name: UTF-8 with its NUL at the end and nowhere else.
fn page_name(name: &[u8], at: usize) -> Result<String, BmError> {
    let (text, nul) = name.split_at(name.len() - 1);
    if nul != [0] || text.contains(&0) {
        return Err(BmError::at(
            Place::Offset(at),
            "page names differ in length; the block needs names of one length",
        ));
    }
    String::from_utf8(text.to_vec())
        .map_err(|_| BmError::at(Place::Offset(at), "the page name is not UTF-8"))
}

/// The chars block.
fn glyphs(body: &[u8], start: usize) -> Result<Vec<Glyph>, BmError> {
    records(body, start, CHAR_BYTES, "chars")?;
    body.chunks_exact(CHAR_BYTES)
        .enumerate()
        .map(|(index, record)| {
            let at = start + index * CHAR_BYTES;
            let channels = Channels::from_chnl(u32::from(record[19])).ok_or_else(|| {
                BmError::at(
                    Place::Offset(at + 19),
                    format!("chnl {} names two or three channels; only one channel (1, 2, 4, 8) or all (15) is supported", record[19]),
                )
            })?;
            Ok(Glyph {
                id: glyph_id(u32_at(record, 0)),
                x: u32::from(u16_at(record, 4)),
                y: u32::from(u16_at(record, 6)),
                width: u32::from(u16_at(record, 8)),
                height: u32::from(u16_at(record, 10)),
                xoffset: i16_at(record, 12),
                yoffset: i16_at(record, 14),
                xadvance: i16_at(record, 16),
                page: u32::from(record[18]),
                channels,
                place: Place::Offset(at),
            })
        })
        .collect()
}

/// The kerning block.
fn kerning(body: &[u8], start: usize) -> Result<Vec<Kerning>, BmError> {
    records(body, start, KERNING_BYTES, "kerning")?;
    Ok(body
        .chunks_exact(KERNING_BYTES)
        .enumerate()
        .map(|(index, record)| Kerning {
            first: glyph_id(u32_at(record, 0)),
            second: glyph_id(u32_at(record, 4)),
            amount: i16_at(record, 8),
            place: Place::Offset(start + index * KERNING_BYTES),
        })
        .collect())
}

/// Requires a block of whole `size`-byte records.
fn records(body: &[u8], start: usize, size: usize, name: &str) -> Result<(), BmError> {
    if !body.len().is_multiple_of(size) {
        return Err(BmError::at(
            Place::Offset(start - 4),
            format!(
                "the {name} block is {} bytes, not a whole number of {size}-byte records",
                body.len()
            ),
        ));
    }
    Ok(())
}
