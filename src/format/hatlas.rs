//! `.hatlas` v1: the sprite table of a texture atlas whose pages are the
//! layers of a companion `.ktx2` texture array.
//!
//! # Layout (little-endian)
//!
//! | offset                | size              | content                        |
//! |----------------------:|------------------:|--------------------------------|
//! | 0                     | 48                | [`AtlasHeader`]                |
//! | 48                    | 72 × `spriteCount`| [`AtlasSprite`] rows           |
//! | 48 + 72 × `spriteCount` | `nameBytes`     | the names: UTF-8, not terminated |
//!
//! Nothing follows the names, so a file is exactly
//! `48 + 72 * spriteCount + nameBytes` bytes. Every 64-bit field sits on a
//! multiple of 8 and both structures are multiples of 8 bytes, so a file
//! loaded into an 8-byte aligned buffer is used in place ([`parse_hatlas`]).
//!
//! Rects are in texels of a page, with a top-left origin: `x`, `y`, `w`, `h`
//! is the sprite's content as stored (after trimming; a sprite stored
//! rotated 90° clockwise, [`SPRITE_ROTATED`], has its width and height
//! swapped there). `trimX`, `trimY` place that content, unrotated, inside the
//! sprite as drawn, which is `sourceW` x `sourceH`; the pivot is in that
//! untrimmed sprite's normalised coordinates (0,0 top left, 1,1 bottom
//! right). `atlasTex` is the [`asset_hash`] id of the `.ktx2`,
//! resolved through the `.hman` manifest like a font's atlas.
//!
//! Rows are sorted by `nameHash` (the [`asset_hash`] of the name), so a
//! reader finds a sprite by binary search, except in an animation
//! ([`ATLAS_ANIMATION`]), whose rows are the frames in play order, each with
//! its `durationMs`.
//!
//! # What a valid file satisfies
//!
//! - the magic `HATL`, version 1, no flag bits other than [`KNOWN_FLAGS`],
//!   the reserved word 0;
//! - the exact size above; at least one sprite and one page; the page size
//!   1 to [`MAX_PAGE_SIDE`] on each side;
//! - each row: `page < pageCount`; no flag bits but [`SPRITE_ROTATED`];
//!   reserved 0; the rect inside its page; the content, unrotated, inside
//!   the `sourceW` x `sourceH` sprite, which is at least 1 x 1; a finite
//!   pivot; `durationMs` 0 unless the atlas is an animation; a non-empty
//!   name range inside the names, valid UTF-8, whose hash is `nameHash`;
//! - hashes strictly ascending (without [`ATLAS_ANIMATION`]) or all distinct
//!   (with it);
//! - no two rects with content on one page overlap.
//!
//! [`write_hatlas`] produces a file and checks it with the reader;
//! [`parse_hatlas`] lends the rows in place (the buffer must start on an
//! 8-byte boundary); [`read_hatlas`] and [`validate`] accept any alignment.
//! The readers need a little-endian host.

use core::mem::offset_of;

use bytemuck::{Pod, Zeroable};

use super::bytes::{FileId, cast_in_place, read_fixed_header, require_little_endian};
use super::error::{FormatError, FormatResult};
use super::hash::asset_hash;

/// `"HATL"` read as a little-endian `u32`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"HATL");
/// The version this module reads and writes.
pub const VERSION: u32 = 1;
/// Header flag bit 0: sample the pages with a nearest filter (pixel art).
pub const ATLAS_NEAREST: u32 = 1;
/// Header flag bit 1: the rows are the frames of an animation, in play
/// order, each with its duration.
pub const ATLAS_ANIMATION: u32 = 2;
/// Every header flag bit that has a meaning; the rest must be 0.
pub const KNOWN_FLAGS: u32 = ATLAS_NEAREST | ATLAS_ANIMATION;
/// Sprite flag bit 0: the content is stored rotated 90° clockwise.
pub const SPRITE_ROTATED: u32 = 1;
/// The widest and tallest page a table may describe (the KTX2 writers'
/// limit).
pub const MAX_PAGE_SIDE: u32 = 16384;

/// The file header.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct AtlasHeader {
    /// [`MAGIC`].
    pub magic: u32,
    /// [`VERSION`].
    pub version: u32,
    /// [`AtlasSprite`] rows that follow, at least 1.
    pub sprite_count: u32,
    /// Pages: the layers of the `.ktx2` texture array, at least 1.
    pub page_count: u32,
    /// Width of every page in texels.
    pub page_width: u32,
    /// Height of every page in texels.
    pub page_height: u32,
    /// [`ATLAS_NEAREST`] and [`ATLAS_ANIMATION`].
    pub flags: u32,
    /// 0.
    pub reserved: u32,
    /// Id of the pages' `.ktx2` in the manifest.
    pub atlas_tex: u64,
    /// Bytes of names after the rows.
    pub name_bytes: u32,
    /// 0.
    pub reserved2: u32,
}
const _: () = assert!(size_of::<AtlasHeader>() == 48);
const _: () = assert!(offset_of!(AtlasHeader, atlas_tex) == 32);
const _: () = assert!(offset_of!(AtlasHeader, name_bytes) == 40);

/// One sprite (or one frame of an animation).
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct AtlasSprite {
    /// [`asset_hash`] of the name.
    pub name_hash: u64,
    /// The page (array layer) holding the sprite.
    pub page: u32,
    /// [`SPRITE_ROTATED`] or 0.
    pub flags: u32,
    /// Left edge of the stored content in the page, texels.
    pub x: u32,
    /// Top edge of the stored content in the page, texels.
    pub y: u32,
    /// Width of the stored content (after rotation), texels.
    pub w: u32,
    /// Height of the stored content (after rotation), texels.
    pub h: u32,
    /// Where the content's left edge sits in the untrimmed sprite.
    pub trim_x: u32,
    /// Where the content's top edge sits in the untrimmed sprite.
    pub trim_y: u32,
    /// Width of the untrimmed sprite, at least 1.
    pub source_w: u32,
    /// Height of the untrimmed sprite, at least 1.
    pub source_h: u32,
    /// Pivot, in the untrimmed sprite's normalised coordinates.
    pub pivot_x: f32,
    /// Pivot, in the untrimmed sprite's normalised coordinates.
    pub pivot_y: f32,
    /// Frame time in milliseconds; 0 outside animations.
    pub duration_ms: u32,
    /// Offset of the name in the names.
    pub name_offset: u32,
    /// Bytes of the name.
    pub name_len: u32,
    /// 0.
    pub reserved: u32,
}
const _: () = assert!(size_of::<AtlasSprite>() == 72);
const _: () = assert!(offset_of!(AtlasSprite, pivot_x) == 48);
const _: () = assert!(offset_of!(AtlasSprite, name_offset) == 60);

/// Size of the header.
pub const HEADER_BYTES: usize = size_of::<AtlasHeader>();
/// Size of one row.
pub const SPRITE_BYTES: usize = size_of::<AtlasSprite>();

impl AtlasSprite {
    /// Whether the content is stored rotated 90° clockwise.
    pub const fn is_rotated(&self) -> bool {
        self.flags & SPRITE_ROTATED != 0
    }

    /// Width and height of the content as drawn (before the rotation it is
    /// stored with).
    pub const fn content_size(&self) -> (u32, u32) {
        if self.is_rotated() {
            (self.h, self.w)
        } else {
            (self.w, self.h)
        }
    }

    /// Whether the sprite has content (a fully transparent sprite trimmed to
    /// nothing has none).
    pub const fn has_content(&self) -> bool {
        self.w != 0 && self.h != 0
    }
}

/// One sprite in owned form: the writer's input and [`read_hatlas`]'s output.
#[derive(Debug, Clone, PartialEq)]
pub struct SpriteEntry {
    /// The name (path below the atlas folder, without extension).
    pub name: String,
    /// The page holding it.
    pub page: u32,
    /// Stored rotated 90° clockwise.
    pub rotated: bool,
    /// The stored content rect in the page: x, y, w, h.
    pub rect: [u32; 4],
    /// Where the content sits in the untrimmed sprite.
    pub trim: [u32; 2],
    /// The untrimmed sprite's width and height.
    pub source_size: [u32; 2],
    /// Pivot in the untrimmed sprite's normalised coordinates.
    pub pivot: [f32; 2],
    /// Frame time in milliseconds; 0 outside animations.
    pub duration_ms: u32,
}

/// A whole table in owned form.
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasTable {
    /// Id of the pages' `.ktx2` in the manifest.
    pub atlas_tex: u64,
    /// Pages in the `.ktx2`.
    pub page_count: u32,
    /// Width of every page.
    pub page_width: u32,
    /// Height of every page.
    pub page_height: u32,
    /// [`ATLAS_NEAREST`] and [`ATLAS_ANIMATION`].
    pub flags: u32,
    /// The sprites; [`write_hatlas`] sorts them by name hash unless the
    /// table is an animation, whose frames stay in this order.
    pub sprites: Vec<SpriteEntry>,
}

/// A validated `.hatlas` whose rows and names are borrowed from the buffer.
#[derive(Debug, Clone, Copy)]
pub struct HAtlas<'a> {
    header: AtlasHeader,
    sprites: &'a [AtlasSprite],
    names: &'a [u8],
}

impl<'a> HAtlas<'a> {
    /// The file header.
    pub fn header(&self) -> &AtlasHeader {
        &self.header
    }

    /// Every row, in file order.
    pub fn sprites(&self) -> &'a [AtlasSprite] {
        self.sprites
    }

    /// Whether the rows are animation frames in play order.
    pub fn is_animation(&self) -> bool {
        self.header.flags & ATLAS_ANIMATION != 0
    }

    /// The name of `sprite`, a row of this table (empty for a row of
    /// another table whose range does not fit).
    pub fn name(&self, sprite: &AtlasSprite) -> &'a str {
        name_at(self.names, sprite).unwrap_or_default()
    }

    /// The sprite named `name` (compared as the id hash is: ASCII case
    /// folded).
    pub fn find(&self, name: &str) -> Option<&'a AtlasSprite> {
        self.find_hash(asset_hash(name))
    }

    /// The sprite whose name hashes to `hash`: by binary search, or in an
    /// animation by a scan.
    pub fn find_hash(&self, hash: u64) -> Option<&'a AtlasSprite> {
        if self.is_animation() {
            return self.sprites.iter().find(|s| s.name_hash == hash);
        }
        let index = self
            .sprites
            .binary_search_by_key(&hash, |s| s.name_hash)
            .ok()?;
        self.sprites.get(index)
    }

    /// An owned copy, in the writer's input form.
    pub fn to_table(&self) -> AtlasTable {
        table_of(&self.header, self.sprites, self.names)
    }
}

/// The name of `sprite` in `names`, if its range is there and UTF-8.
fn name_at<'a>(names: &'a [u8], sprite: &AtlasSprite) -> Option<&'a str> {
    let start = sprite.name_offset as usize;
    let end = start.checked_add(sprite.name_len as usize)?;
    core::str::from_utf8(names.get(start..end)?).ok()
}

/// The owned form of a checked file's parts.
fn table_of(header: &AtlasHeader, sprites: &[AtlasSprite], names: &[u8]) -> AtlasTable {
    AtlasTable {
        atlas_tex: header.atlas_tex,
        page_count: header.page_count,
        page_width: header.page_width,
        page_height: header.page_height,
        flags: header.flags,
        sprites: sprites
            .iter()
            .map(|s| SpriteEntry {
                name: name_at(names, s).unwrap_or_default().to_owned(),
                page: s.page,
                rotated: s.is_rotated(),
                rect: [s.x, s.y, s.w, s.h],
                trim: [s.trim_x, s.trim_y],
                source_size: [s.source_w, s.source_h],
                pivot: [s.pivot_x, s.pivot_y],
                duration_ms: s.duration_ms,
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Serialises a table: rows sorted by name hash (an animation's frames keep
/// their order), names in row order, padding zeroed.
///
/// The bytes are checked by [`validate`] before they are returned, so a
/// table that breaks a rule of the format (two names with one hash, a rect
/// outside its page, overlapping rects ...) is refused with the reader's
/// error for that file.
pub fn write_hatlas(table: &AtlasTable) -> FormatResult<Vec<u8>> {
    let mut order: Vec<(u64, &SpriteEntry)> = table
        .sprites
        .iter()
        .map(|s| (asset_hash(&s.name), s))
        .collect();
    if table.flags & ATLAS_ANIMATION == 0 {
        order.sort_by_key(|(hash, _)| *hash);
    }
    let mut rows = Vec::with_capacity(order.len());
    let mut names = Vec::new();
    for (hash, sprite) in order {
        let name_offset = count_u32(names.len(), 40, "AtlasHeader.nameBytes")?;
        let name_len = count_u32(sprite.name.len(), 40, "AtlasHeader.nameBytes")?;
        names.extend_from_slice(sprite.name.as_bytes());
        rows.push(AtlasSprite {
            name_hash: hash,
            page: sprite.page,
            flags: if sprite.rotated { SPRITE_ROTATED } else { 0 },
            x: sprite.rect[0],
            y: sprite.rect[1],
            w: sprite.rect[2],
            h: sprite.rect[3],
            trim_x: sprite.trim[0],
            trim_y: sprite.trim[1],
            source_w: sprite.source_size[0],
            source_h: sprite.source_size[1],
            pivot_x: sprite.pivot[0],
            pivot_y: sprite.pivot[1],
            duration_ms: sprite.duration_ms,
            name_offset,
            name_len,
            reserved: 0,
        });
    }
    let header = AtlasHeader {
        magic: MAGIC,
        version: VERSION,
        sprite_count: count_u32(rows.len(), 8, "AtlasHeader.spriteCount")?,
        page_count: table.page_count,
        page_width: table.page_width,
        page_height: table.page_height,
        flags: table.flags,
        reserved: 0,
        atlas_tex: table.atlas_tex,
        name_bytes: count_u32(names.len(), 40, "AtlasHeader.nameBytes")?,
        reserved2: 0,
    };
    let mut out = Vec::with_capacity(HEADER_BYTES + SPRITE_BYTES * rows.len() + names.len());
    out.extend_from_slice(bytemuck::bytes_of(&header));
    out.extend_from_slice(bytemuck::cast_slice(&rows));
    out.extend_from_slice(&names);
    validate(&out)?;
    Ok(out)
}

/// Converts a length to its stored `u32`, or fails at `at`.
fn count_u32(len: usize, at: u64, field: &'static str) -> FormatResult<u32> {
    u32::try_from(len).map_err(|_| FormatError::new(at, field, format!("{len} does not fit a u32")))
}

// ---------------------------------------------------------------------------
// Reading.
// ---------------------------------------------------------------------------

/// Checks a whole `.hatlas` (see the module docs for the rules) and lends
/// its rows and names in place.
///
/// `bytes` must start on an 8-byte boundary (an [`AlignedBytes`] buffer
/// does); otherwise this fails with an error saying so, and [`read_hatlas`]
/// accepts the buffer. Fails on a big-endian host.
///
/// [`AlignedBytes`]: super::bytes::AlignedBytes
pub fn parse_hatlas(bytes: &[u8]) -> FormatResult<HAtlas<'_>> {
    let header = check_hatlas(bytes)?;
    let (row_bytes, names) = tables(bytes, &header);
    let sprites = cast_in_place(row_bytes, HEADER_BYTES as u64, "AtlasSprite")?;
    Ok(HAtlas {
        header,
        sprites,
        names,
    })
}

/// Checks a whole `.hatlas` held in a buffer of any alignment and returns
/// an owned copy. Fails on a big-endian host.
pub fn read_hatlas(bytes: &[u8]) -> FormatResult<AtlasTable> {
    let header = check_hatlas(bytes)?;
    let (row_bytes, names) = tables(bytes, &header);
    Ok(table_of(&header, &rows_of(row_bytes), names))
}

/// Checks a whole `.hatlas` held in a buffer of any alignment. Fails on a
/// big-endian host.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    check_hatlas(bytes).map(drop)
}

/// The row and name bytes of a file whose size matches `header`.
fn tables<'a>(bytes: &'a [u8], header: &AtlasHeader) -> (&'a [u8], &'a [u8]) {
    let split = HEADER_BYTES + SPRITE_BYTES * header.sprite_count as usize;
    let rows = bytes.get(HEADER_BYTES..split).unwrap_or_default();
    let names = bytes.get(split..).unwrap_or_default();
    (rows, names)
}

/// Copies the rows out of a buffer of any alignment.
fn rows_of(row_bytes: &[u8]) -> Vec<AtlasSprite> {
    row_bytes
        .chunks_exact(SPRITE_BYTES)
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Every rule of the format, on a buffer of any alignment.
fn check_hatlas(bytes: &[u8]) -> FormatResult<AtlasHeader> {
    require_little_endian("AtlasHeader")?;
    let header: AtlasHeader = read_fixed_header(bytes, "AtlasHeader")?;
    FileId {
        magic: MAGIC,
        version: VERSION,
        magic_field: "AtlasHeader.magic",
        version_field: "AtlasHeader.version",
    }
    .check(header.magic, header.version)?;
    check_header_values(&header)?;
    check_size(&header, bytes.len() as u64)?;
    let (row_bytes, names) = tables(bytes, &header);
    let rows = rows_of(row_bytes);
    for (index, sprite) in rows.iter().enumerate() {
        check_sprite(&header, sprite, index, names)?;
    }
    check_order(&header, &rows)?;
    check_overlaps(&rows)?;
    Ok(header)
}

/// An error in `field` at byte `at`.
fn fault(at: usize, field: &'static str, what: impl Into<String>) -> FormatError {
    FormatError::new(at as u64, field, what)
}

/// The header's counts, flags, page size and reserved words.
fn check_header_values(header: &AtlasHeader) -> FormatResult<()> {
    let unknown = header.flags & !KNOWN_FLAGS;
    if unknown != 0 {
        let at = offset_of!(AtlasHeader, flags);
        return Err(fault(
            at,
            "AtlasHeader.flags",
            format!("unknown flag bits {unknown:#x}"),
        ));
    }
    for (at, field, value) in [
        (
            offset_of!(AtlasHeader, reserved),
            "AtlasHeader.reserved",
            header.reserved,
        ),
        (
            offset_of!(AtlasHeader, reserved2),
            "AtlasHeader.reserved2",
            header.reserved2,
        ),
    ] {
        if value != 0 {
            return Err(fault(at, field, format!("is {value}; must be 0")));
        }
    }
    if header.sprite_count == 0 {
        let at = offset_of!(AtlasHeader, sprite_count);
        return Err(fault(
            at,
            "AtlasHeader.spriteCount",
            "an atlas needs at least one sprite",
        ));
    }
    if header.page_count == 0 {
        let at = offset_of!(AtlasHeader, page_count);
        return Err(fault(
            at,
            "AtlasHeader.pageCount",
            "an atlas needs at least one page",
        ));
    }
    for (at, field, side) in [
        (
            offset_of!(AtlasHeader, page_width),
            "AtlasHeader.pageWidth",
            header.page_width,
        ),
        (
            offset_of!(AtlasHeader, page_height),
            "AtlasHeader.pageHeight",
            header.page_height,
        ),
    ] {
        if !(1..=MAX_PAGE_SIDE).contains(&side) {
            return Err(fault(
                at,
                field,
                format!("{side} texels is outside 1 to {MAX_PAGE_SIDE}"),
            ));
        }
    }
    Ok(())
}

/// The file size the header states, exactly.
fn check_size(header: &AtlasHeader, len: u64) -> FormatResult<()> {
    let expected = HEADER_BYTES as u64
        + SPRITE_BYTES as u64 * u64::from(header.sprite_count)
        + u64::from(header.name_bytes);
    if len == expected {
        return Ok(());
    }
    let at = len.min(expected);
    Err(FormatError::new(
        at,
        "AtlasHeader",
        format!(
            "the file is {len} bytes; {} sprites and {} bytes of names make {expected}",
            header.sprite_count, header.name_bytes
        ),
    ))
}

/// Byte offset of `field_at` within row `index`.
fn row_at(index: usize, field_at: usize) -> usize {
    HEADER_BYTES + SPRITE_BYTES * index + field_at
}

/// One row's rules: page, flags, rect, trim, pivot, duration and name.
fn check_sprite(
    header: &AtlasHeader,
    sprite: &AtlasSprite,
    index: usize,
    names: &[u8],
) -> FormatResult<()> {
    let at = |field_at| row_at(index, field_at);
    let bad = |field_at, field, what: String| {
        Err(fault(
            at(field_at),
            field,
            format!("sprite {index}: {what}"),
        ))
    };
    if sprite.page >= header.page_count {
        let what = format!("page {} of {} pages", sprite.page, header.page_count);
        return bad(offset_of!(AtlasSprite, page), "AtlasSprite.page", what);
    }
    if sprite.flags & !SPRITE_ROTATED != 0 {
        let what = format!("unknown flag bits {:#x}", sprite.flags & !SPRITE_ROTATED);
        return bad(offset_of!(AtlasSprite, flags), "AtlasSprite.flags", what);
    }
    if sprite.reserved != 0 {
        let what = format!("reserved is {}; must be 0", sprite.reserved);
        return bad(
            offset_of!(AtlasSprite, reserved),
            "AtlasSprite.reserved",
            what,
        );
    }
    let right = u64::from(sprite.x) + u64::from(sprite.w);
    let bottom = u64::from(sprite.y) + u64::from(sprite.h);
    if right > u64::from(header.page_width) || bottom > u64::from(header.page_height) {
        let what = format!(
            "rect {}x{} at {},{} runs outside the {}x{} page",
            sprite.w, sprite.h, sprite.x, sprite.y, header.page_width, header.page_height
        );
        return bad(offset_of!(AtlasSprite, x), "AtlasSprite.x", what);
    }
    if sprite.source_w == 0 || sprite.source_h == 0 {
        let what = format!(
            "the sprite is {}x{}; it needs at least one texel",
            sprite.source_w, sprite.source_h
        );
        return bad(
            offset_of!(AtlasSprite, source_w),
            "AtlasSprite.sourceW",
            what,
        );
    }
    let (content_w, content_h) = sprite.content_size();
    if u64::from(sprite.trim_x) + u64::from(content_w) > u64::from(sprite.source_w)
        || u64::from(sprite.trim_y) + u64::from(content_h) > u64::from(sprite.source_h)
    {
        let what = format!(
            "content {content_w}x{content_h} at {},{} runs outside the {}x{} sprite",
            sprite.trim_x, sprite.trim_y, sprite.source_w, sprite.source_h
        );
        return bad(offset_of!(AtlasSprite, trim_x), "AtlasSprite.trimX", what);
    }
    if !sprite.pivot_x.is_finite() || !sprite.pivot_y.is_finite() {
        let what = format!("pivot {},{} is not finite", sprite.pivot_x, sprite.pivot_y);
        return bad(offset_of!(AtlasSprite, pivot_x), "AtlasSprite.pivotX", what);
    }
    if header.flags & ATLAS_ANIMATION == 0 && sprite.duration_ms != 0 {
        let what = format!("durationMs is {}; a still atlas has 0", sprite.duration_ms);
        return bad(
            offset_of!(AtlasSprite, duration_ms),
            "AtlasSprite.durationMs",
            what,
        );
    }
    check_name(sprite, index, names)
}

/// A row's name: inside the names, UTF-8, non-empty, hashing to `nameHash`.
fn check_name(sprite: &AtlasSprite, index: usize, names: &[u8]) -> FormatResult<()> {
    let offset_at = row_at(index, offset_of!(AtlasSprite, name_offset));
    let end = u64::from(sprite.name_offset) + u64::from(sprite.name_len);
    if sprite.name_len == 0 || end > names.len() as u64 {
        return Err(fault(
            offset_at,
            "AtlasSprite.nameOffset",
            format!(
                "sprite {index}: name range {}+{} is empty or outside the {} bytes of names",
                sprite.name_offset,
                sprite.name_len,
                names.len()
            ),
        ));
    }
    let Some(name) = name_at(names, sprite) else {
        return Err(fault(
            offset_at,
            "AtlasSprite.nameOffset",
            format!("sprite {index}: the name is not UTF-8"),
        ));
    };
    if asset_hash(name) != sprite.name_hash {
        return Err(fault(
            row_at(index, offset_of!(AtlasSprite, name_hash)),
            "AtlasSprite.nameHash",
            format!("sprite {index}: not the hash of its name {name:?}"),
        ));
    }
    Ok(())
}

/// Hashes strictly ascending, or (in an animation) all distinct.
fn check_order(header: &AtlasHeader, rows: &[AtlasSprite]) -> FormatResult<()> {
    let field = "AtlasSprite.nameHash";
    if header.flags & ATLAS_ANIMATION == 0 {
        for (index, pair) in rows.windows(2).enumerate() {
            if pair[0].name_hash >= pair[1].name_hash {
                return Err(fault(
                    row_at(index + 1, 0),
                    field,
                    format!("sprite {}: hashes must be strictly ascending", index + 1),
                ));
            }
        }
        return Ok(());
    }
    let mut hashes: Vec<(u64, usize)> = rows
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name_hash, i))
        .collect();
    hashes.sort_unstable();
    for pair in hashes.windows(2) {
        if pair[0].0 == pair[1].0 {
            let index = pair[0].1.max(pair[1].1);
            return Err(fault(
                row_at(index, 0),
                field,
                format!(
                    "sprite {index}: the name of sprite {} again",
                    pair[0].1.min(pair[1].1)
                ),
            ));
        }
    }
    Ok(())
}

/// No two rects with content on one page share a texel.
fn check_overlaps(rows: &[AtlasSprite]) -> FormatResult<()> {
    let mut order: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].has_content()).collect();
    order.sort_unstable_by_key(|&i| (rows[i].page, rows[i].x, i));
    for (position, &i) in order.iter().enumerate() {
        let a = &rows[i];
        let a_right = u64::from(a.x) + u64::from(a.w);
        for &j in &order[position + 1..] {
            let b = &rows[j];
            if b.page != a.page || u64::from(b.x) >= a_right {
                break;
            }
            let apart = u64::from(b.y) >= u64::from(a.y) + u64::from(a.h)
                || u64::from(a.y) >= u64::from(b.y) + u64::from(b.h);
            if !apart {
                let later = i.max(j);
                return Err(fault(
                    row_at(later, offset_of!(AtlasSprite, x)),
                    "AtlasSprite.x",
                    format!("sprite {later}: its rect overlaps sprite {}'s", i.min(j)),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::bytes::AlignedBytes;
    use crate::format::test_support::{assert_error, put_u32};

    fn sprite(name: &str, page: u32, rect: [u32; 4]) -> SpriteEntry {
        SpriteEntry {
            name: name.to_owned(),
            page,
            rotated: false,
            rect,
            trim: [1, 2],
            source_size: [rect[2] + 2, rect[3] + 4],
            pivot: [0.5, 0.5],
            duration_ms: 0,
        }
    }

    /// Three sprites on two pages, one rotated.
    fn sample() -> AtlasTable {
        let mut rotated = sprite("ui/arrow", 1, [0, 0, 6, 3]);
        rotated.rotated = true;
        rotated.source_size = [3, 6];
        rotated.trim = [0, 0];
        AtlasTable {
            atlas_tex: asset_hash("ui/icons.atlas"),
            page_count: 2,
            page_width: 16,
            page_height: 8,
            flags: ATLAS_NEAREST,
            sprites: vec![
                sprite("ui/button", 0, [0, 0, 8, 4]),
                sprite("coin", 0, [10, 0, 4, 4]),
                rotated,
            ],
        }
    }

    fn write(table: &AtlasTable) -> Vec<u8> {
        match write_hatlas(table) {
            Ok(bytes) => bytes,
            Err(err) => panic!("the fixture is invalid: {err}"),
        }
    }

    fn write_changed(change: impl FnOnce(&mut AtlasTable)) -> FormatResult<Vec<u8>> {
        let mut table = sample();
        change(&mut table);
        write_hatlas(&table)
    }

    fn check_changed(change: impl FnOnce(&mut Vec<u8>)) -> FormatResult<()> {
        let mut bytes = write(&sample());
        change(&mut bytes);
        validate(&bytes)
    }

    /// The row the sample's sprite `name` is written at.
    fn row(name: &str) -> usize {
        let table = sorted(sample());
        table.sprites.iter().position(|s| s.name == name).unwrap()
    }

    /// Byte `field_at` of the sample's sprite `name`.
    fn at(name: &str, field_at: usize) -> usize {
        row_at(row(name), field_at)
    }

    /// The table as the writer orders it: by name hash.
    fn sorted(mut table: AtlasTable) -> AtlasTable {
        table.sprites.sort_by_key(|s| asset_hash(&s.name));
        table
    }

    #[test]
    fn round_trips_and_sorts_by_hash() {
        let bytes = write(&sample());
        let names = b"ui/buttoncoinui/arrow".len();
        assert_eq!(bytes.len(), HEADER_BYTES + 3 * SPRITE_BYTES + names);
        assert_eq!(read_hatlas(&bytes), Ok(sorted(sample())));
        let aligned = AlignedBytes::copy_from(&bytes);
        let view = parse_hatlas(&aligned).unwrap();
        assert_eq!(view.to_table(), sorted(sample()));
        let hashes: Vec<u64> = view.sprites().iter().map(|s| s.name_hash).collect();
        assert!(hashes.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(write(&view.to_table()), bytes);
    }

    #[test]
    fn finds_sprites_by_name_and_hash() {
        let aligned = AlignedBytes::copy_from(&write(&sample()));
        let view = parse_hatlas(&aligned).unwrap();
        let arrow = view.find("UI/Arrow").unwrap();
        assert_eq!(view.name(arrow), "ui/arrow");
        assert!(arrow.is_rotated());
        assert_eq!(arrow.content_size(), (3, 6));
        assert_eq!(view.find_hash(asset_hash("coin")).map(|s| s.x), Some(10));
        assert!(view.find("missing").is_none());
    }

    #[test]
    fn an_animation_keeps_its_frame_order() {
        let frames = AtlasTable {
            flags: ATLAS_ANIMATION,
            page_count: 3,
            sprites: (0..3)
                .map(|i| SpriteEntry {
                    duration_ms: 40 + i,
                    ..sprite(&format!("frame{i}"), i, [0, 0, 16, 8])
                })
                .collect(),
            ..sample()
        };
        let bytes = write(&frames);
        let table = read_hatlas(&bytes).unwrap();
        assert_eq!(table, frames);
        let aligned = AlignedBytes::copy_from(&bytes);
        let view = parse_hatlas(&aligned).unwrap();
        assert_eq!(view.find("frame2").map(|s| s.duration_ms), Some(42));
        let mut repeated = frames.clone();
        repeated.sprites[2].name = "FRAME0".into();
        assert_error(
            write_hatlas(&repeated),
            "AtlasSprite.nameHash",
            row_at(2, 0) as u64,
        );
    }

    #[test]
    fn writes_the_documented_header() {
        let bytes = write(&sample());
        assert_eq!(&bytes[0..8], b"HATL\x01\0\0\0");
        assert_eq!(
            &bytes[8..24],
            [3, 0, 0, 0, 2, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0]
        );
        assert_eq!(&bytes[24..32], [1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&bytes[32..40], asset_hash("ui/icons.atlas").to_le_bytes());
        assert_eq!(&bytes[40..44], 21_u32.to_le_bytes());
    }

    #[test]
    fn refuses_bad_header_values() {
        assert_error(check_changed(|b| b[0] = b'X'), "AtlasHeader.magic", 0);
        assert_error(check_changed(|b| b[4] = 2), "AtlasHeader.version", 4);
        assert_error(write_changed(|t| t.flags = 4), "AtlasHeader.flags", 24);
        assert_error(
            check_changed(|b| put_u32(b, 28, 1)),
            "AtlasHeader.reserved",
            28,
        );
        assert_error(
            check_changed(|b| put_u32(b, 44, 1)),
            "AtlasHeader.reserved2",
            44,
        );
        assert_error(
            write_changed(|t| t.sprites.clear()),
            "AtlasHeader.spriteCount",
            8,
        );
        assert_error(
            write_changed(|t| t.page_count = 0),
            "AtlasHeader.pageCount",
            12,
        );
        assert_error(
            write_changed(|t| t.page_width = 0),
            "AtlasHeader.pageWidth",
            16,
        );
        let huge = write_changed(|t| t.page_height = MAX_PAGE_SIDE + 1);
        assert_error(huge, "AtlasHeader.pageHeight", 20);
    }

    #[test]
    fn refuses_bad_counts_and_truncations() {
        let bytes = write(&sample());
        for len in 0..HEADER_BYTES {
            assert_error(validate(&bytes[..len]), "AtlasHeader", 0);
        }
        for len in HEADER_BYTES..bytes.len() {
            assert_error(validate(&bytes[..len]), "AtlasHeader", len as u64);
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_error(validate(&long), "AtlasHeader", bytes.len() as u64);
        assert_error(
            check_changed(|b| put_u32(b, 8, u32::MAX)),
            "AtlasHeader",
            bytes.len() as u64,
        );
        assert_error(check_changed(|b| put_u32(b, 40, 1)), "AtlasHeader", 265);
    }

    #[test]
    fn refuses_rects_outside_their_page_or_sprite() {
        let x = at("coin", 16) as u64;
        let outside = write_changed(|t| t.sprites[1].rect = [13, 0, 4, 4]);
        assert_error(outside, "AtlasSprite.x", x);
        let wrapping = check_changed(|b| put_u32(b, x as usize, u32::MAX));
        assert_error(wrapping, "AtlasSprite.x", x);
        let page = write_changed(|t| t.sprites[1].page = 2);
        assert_error(page, "AtlasSprite.page", at("coin", 8) as u64);
        let trim = write_changed(|t| t.sprites[1].trim = [0, 5]);
        assert_error(trim, "AtlasSprite.trimX", at("coin", 32) as u64);
        let empty = write_changed(|t| t.sprites[1].source_size = [0, 8]);
        assert_error(empty, "AtlasSprite.sourceW", at("coin", 40) as u64);
    }

    #[test]
    fn refuses_overlapping_rects_on_one_page_only() {
        let overlap = write_changed(|t| t.sprites[1].rect = [7, 3, 4, 4]);
        assert!(overlap.unwrap_err().what.contains("overlaps"));
        let touching = write_changed(|t| t.sprites[1].rect = [8, 0, 4, 4]);
        assert!(touching.is_ok());
        let other_page = write_changed(|t| t.sprites[2].rect = [0, 0, 6, 3]);
        assert!(other_page.is_ok());
        let empty = write_changed(|t| t.sprites[1].rect = [2, 2, 0, 0]);
        assert!(empty.is_ok(), "a sprite without content overlaps nothing");
    }

    #[test]
    fn refuses_bad_rows() {
        let turned = write_changed(|t| t.sprites[0].rotated = true);
        assert_error(turned, "AtlasSprite.trimX", at("ui/button", 32) as u64);
        let flags_at = at("coin", 12);
        let flags = check_changed(|b| put_u32(b, flags_at, 2));
        assert_error(flags, "AtlasSprite.flags", flags_at as u64);
        let reserved_at = at("coin", 68);
        let reserved = check_changed(|b| put_u32(b, reserved_at, 9));
        assert_error(reserved, "AtlasSprite.reserved", reserved_at as u64);
        let nan = write_changed(|t| t.sprites[0].pivot[1] = f32::NAN);
        assert_error(nan, "AtlasSprite.pivotX", at("ui/button", 48) as u64);
        let duration = write_changed(|t| t.sprites[0].duration_ms = 5);
        assert_error(
            duration,
            "AtlasSprite.durationMs",
            at("ui/button", 56) as u64,
        );
    }

    #[test]
    fn refuses_bad_names_and_order() {
        let same = write_changed(|t| t.sprites[1].name = "UI/BUTTON".into());
        assert_eq!(same.unwrap_err().field, "AtlasSprite.nameHash");
        let empty = write_changed(|t| t.sprites[1].name.clear());
        assert_eq!(empty.unwrap_err().field, "AtlasSprite.nameOffset");
        let past = check_changed(|b| put_u32(b, row_at(0, 64), 99));
        assert_error(past, "AtlasSprite.nameOffset", row_at(0, 60) as u64);
        let hash = check_changed(|b| b[row_at(0, 0)] ^= 1);
        assert_eq!(hash.unwrap_err().field, "AtlasSprite.nameHash");
        let swapped = check_changed(|b| {
            let (first, second) = (row_at(0, 0), row_at(1, 0));
            let row: Vec<u8> = b[first..second].to_vec();
            b.copy_within(second..second + SPRITE_BYTES, first);
            b[second..second + SPRITE_BYTES].copy_from_slice(&row);
        });
        assert_error(swapped, "AtlasSprite.nameHash", row_at(1, 0) as u64);
        let bytes = write(&sample());
        let mut invalid = bytes.clone();
        let names_at = bytes.len() - 21;
        invalid[names_at] = 0xff;
        assert_eq!(
            validate(&invalid).unwrap_err().field,
            "AtlasSprite.nameOffset"
        );
    }

    #[test]
    fn reads_a_misaligned_buffer_but_lends_only_an_aligned_one() {
        let bytes = write(&sample());
        let mut shifted = vec![0_u8; bytes.len() + 4];
        shifted[4..].copy_from_slice(&bytes);
        let aligned = AlignedBytes::copy_from(&shifted);
        assert_eq!(read_hatlas(&aligned[4..]), Ok(sorted(sample())));
        assert!(
            parse_hatlas(&aligned[4..])
                .unwrap_err()
                .what
                .contains("aligned")
        );
    }

    #[test]
    fn survives_arbitrary_corruption() {
        let bytes = write(&sample());
        let mut rejected = 0;
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                match read_hatlas(&corrupt) {
                    Ok(table) => assert_eq!(write(&table), corrupt, "byte {at} = {value}"),
                    Err(_) => rejected += 1,
                }
            }
        }
        assert!(
            rejected > bytes.len(),
            "only {rejected} corruptions rejected"
        );
    }
}
