//! `.hfont` v1: the glyph metrics and kerning of a font whose glyph images
//! live in a companion `.ktx2` atlas: a signed distance field, or with
//! [`FLAG_BITMAP`] the glyph bitmaps themselves.
//!
//! # Layout (little-endian, no padding)
//!
//! | offset                  | size               | content                       |
//! |------------------------:|-------------------:|-------------------------------|
//! | 0                       | 52                 | [`FontFileHeader`]            |
//! | 52                      | 40 × `glyphCount`  | [`GpuGlyph`] rows             |
//! | 52 + 40 × `glyphCount`  | 12 × `kerningCount`| [`KerningPair`] rows          |
//!
//! Nothing follows the last kerning pair, so a file is exactly
//! `52 + 40 * glyphCount + 12 * kerningCount` bytes and both tables can be
//! used in place. The header's 64-bit `atlasTex` sits at offset 16, where it
//! is naturally aligned, but the header as a whole is 52 bytes, so it is
//! stored here as two 32-bit halves ([`FontFileHeader::atlas_tex`] joins
//! them) and every structure needs only 4-byte alignment.
//!
//! Metrics are in em units: multiply by the size the text is drawn at. Plane
//! rects are y-up around the pen on the baseline; UV rects are normalised
//! atlas coordinates with a top-left origin. `atlasTex` is the
//! [`asset_hash`](super::hash::asset_hash) id of the atlas, resolved through
//! the `.hman` manifest like a material's texture refs.
//!
//! # What a valid file satisfies
//!
//! - the magic `HFNT`, version 1, no flag bits other than [`FLAG_MSDF`] and
//!   [`FLAG_BITMAP`]; a bitmap font has `distanceRange` and `edgeValue` 0;
//! - the exact size above, at least one glyph, a non-zero atlas size and
//!   finite header metrics;
//! - glyph 0 has codepoint 0 (the `.notdef` glyph drawn for any codepoint the
//!   font lacks), codepoints are Unicode scalar values in strictly ascending
//!   order, every metric is finite, plane rects have `left <= right` and
//!   `bottom <= top`, UV rects lie inside `[0, 1]` with `left <= right` and
//!   `top <= bottom`;
//! - kerning pairs are strictly ascending by `(left, right)`, name codepoints
//!   present in the glyph table and have a finite advance.
//!
//! [`write_hfont`] produces a file and checks it with the reader;
//! [`parse_hfont`] lends the tables in place (the buffer must start on a
//! 4-byte boundary); [`read_hfont`] and [`validate`] accept any alignment.
//! The readers need a little-endian host.

use core::mem::offset_of;

use bytemuck::{Pod, Zeroable};

use super::bytes::{FileId, cast_in_place, read_fixed_header, require_little_endian};
use super::error::{FormatError, FormatResult};

/// `"HFNT"` read as a little-endian `u32`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"HFNT");
/// The version this module reads and writes.
pub const VERSION: u32 = 1;
/// `FontFileHeader::flags` bit 0: the atlas is multi-channel (a
/// multi-channel SDF, or with [`FLAG_BITMAP`] RGBA glyph images). Reserved
/// by the reference's v1 (which always writes a single-channel SDF) but
/// accepted.
pub const FLAG_MSDF: u32 = 1;
/// `FontFileHeader::flags` bit 1: the atlas holds the glyphs' bitmaps (one
/// coverage channel, or RGBA with [`FLAG_MSDF`]), not a distance field;
/// `distanceRange` and `edgeValue` are then 0. Older readers refuse the bit,
/// so they never draw a bitmap as a field.
pub const FLAG_BITMAP: u32 = 2;
/// Every header flag bit that has a meaning; the rest must be 0.
pub const KNOWN_FLAGS: u32 = FLAG_MSDF | FLAG_BITMAP;
/// The codepoint of the fallback glyph, always glyph 0.
pub const NOTDEF: u32 = 0;

/// The file header.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct FontFileHeader {
    /// [`MAGIC`].
    pub magic: u32,
    /// [`VERSION`].
    pub version: u32,
    /// [`GpuGlyph`] rows that follow, at least 1.
    pub glyph_count: u32,
    /// [`KerningPair`] rows after the glyphs.
    pub kerning_count: u32,
    /// The 64-bit `atlasTex` id as its low and high 32-bit halves (in that
    /// order), which keeps the header at 52 bytes and 4-byte alignment. Read
    /// it with [`FontFileHeader::atlas_tex`].
    pub atlas_tex_words: [u32; 2],
    /// Em units above the baseline.
    pub ascent: f32,
    /// Em units below the baseline (normally negative).
    pub descent: f32,
    /// Extra em units between lines.
    pub line_gap: f32,
    /// Width of the distance field in atlas texels (0 for a bitmap font).
    pub distance_range: f32,
    /// Normalised atlas value on a glyph's outline (0 for a bitmap font).
    pub edge_value: f32,
    /// Atlas width in texels, at least 1.
    pub atlas_width: u16,
    /// Atlas height in texels, at least 1.
    pub atlas_height: u16,
    /// [`FLAG_MSDF`], [`FLAG_BITMAP`], both or 0.
    pub flags: u32,
}
const _: () = assert!(size_of::<FontFileHeader>() == 52);
const _: () = assert!(offset_of!(FontFileHeader, atlas_tex_words) == 16);
const _: () = assert!(offset_of!(FontFileHeader, atlas_width) == 44);
const _: () = assert!(offset_of!(FontFileHeader, flags) == 48);

/// One glyph: its pen advance, the quad to draw and where it sits in the atlas.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct GpuGlyph {
    /// Unicode scalar value; [`NOTDEF`] for the fallback glyph.
    pub codepoint: u32,
    /// Em units the pen moves after this glyph.
    pub advance: f32,
    /// Quad left edge, em, relative to the pen.
    pub plane_left: f32,
    /// Quad bottom edge, em, y-up from the baseline.
    pub plane_bottom: f32,
    /// Quad right edge, em.
    pub plane_right: f32,
    /// Quad top edge, em.
    pub plane_top: f32,
    /// Atlas rect left, normalised.
    pub uv_left: f32,
    /// Atlas rect top, normalised (top-left origin).
    pub uv_top: f32,
    /// Atlas rect right, normalised.
    pub uv_right: f32,
    /// Atlas rect bottom, normalised.
    pub uv_bottom: f32,
}
const _: () = assert!(size_of::<GpuGlyph>() == 40);

/// An adjustment of the advance between two glyphs.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct KerningPair {
    /// Codepoint of the first glyph.
    pub left: u32,
    /// Codepoint of the glyph that follows it.
    pub right: u32,
    /// Em units added to `left`'s advance when `right` follows.
    pub advance: f32,
}
const _: () = assert!(size_of::<KerningPair>() == 12);

/// Size of [`FontFileHeader`] on disk.
pub const HEADER_BYTES: usize = size_of::<FontFileHeader>();
/// Size of one [`GpuGlyph`] on disk.
pub const GLYPH_BYTES: usize = size_of::<GpuGlyph>();
/// Size of one [`KerningPair`] on disk.
pub const KERNING_BYTES: usize = size_of::<KerningPair>();

impl FontFileHeader {
    /// The `atlasTex` id, joined from [`atlas_tex_words`](Self::atlas_tex_words).
    pub const fn atlas_tex(&self) -> u64 {
        (self.atlas_tex_words[1] as u64) << 32 | self.atlas_tex_words[0] as u64
    }

    /// The halves [`atlas_tex_words`](Self::atlas_tex_words) stores for `id`.
    pub const fn split_atlas_tex(id: u64) -> [u32; 2] {
        [id as u32, (id >> 32) as u32]
    }

    /// Em units from one baseline to the next: `ascent - descent + lineGap`.
    pub fn line_advance(&self) -> f32 {
        self.ascent - self.descent + self.line_gap
    }

    /// The header metrics with their names and offsets, for finiteness checks.
    fn metrics(&self) -> [(&'static str, usize, f32); 5] {
        [
            (
                "FontFileHeader.ascent",
                offset_of!(FontFileHeader, ascent),
                self.ascent,
            ),
            (
                "FontFileHeader.descent",
                offset_of!(FontFileHeader, descent),
                self.descent,
            ),
            (
                "FontFileHeader.lineGap",
                offset_of!(FontFileHeader, line_gap),
                self.line_gap,
            ),
            (
                "FontFileHeader.distanceRange",
                offset_of!(FontFileHeader, distance_range),
                self.distance_range,
            ),
            (
                "FontFileHeader.edgeValue",
                offset_of!(FontFileHeader, edge_value),
                self.edge_value,
            ),
        ]
    }

    /// File offset where the kerning table starts.
    fn kerning_start(&self) -> u64 {
        HEADER_BYTES as u64 + u64::from(self.glyph_count) * GLYPH_BYTES as u64
    }

    /// The exact size of a file with this header's counts.
    fn file_len(&self) -> u64 {
        self.kerning_start() + u64::from(self.kerning_count) * KERNING_BYTES as u64
    }
}

impl GpuGlyph {
    /// The float fields with their names, in file order after `codepoint`.
    fn metrics(&self) -> [(&'static str, f32); 9] {
        [
            ("GpuGlyph.advance", self.advance),
            ("GpuGlyph.planeLeft", self.plane_left),
            ("GpuGlyph.planeBottom", self.plane_bottom),
            ("GpuGlyph.planeRight", self.plane_right),
            ("GpuGlyph.planeTop", self.plane_top),
            ("GpuGlyph.uvLeft", self.uv_left),
            ("GpuGlyph.uvTop", self.uv_top),
            ("GpuGlyph.uvRight", self.uv_right),
            ("GpuGlyph.uvBottom", self.uv_bottom),
        ]
    }

    /// Whether the glyph draws nothing (whitespace): a zero-area plane rect.
    pub fn is_blank(&self) -> bool {
        self.plane_left == self.plane_right || self.plane_bottom == self.plane_top
    }
}

/// A whole font in owned form: the writer's input and [`read_hfont`]'s output.
#[derive(Debug, Clone, PartialEq)]
pub struct FontData {
    /// Id of the atlas `.ktx2` in the manifest.
    pub atlas_tex: u64,
    /// Em units above the baseline.
    pub ascent: f32,
    /// Em units below the baseline (normally negative).
    pub descent: f32,
    /// Extra em units between lines.
    pub line_gap: f32,
    /// Width of the distance field in atlas texels.
    pub distance_range: f32,
    /// Normalised atlas value on a glyph's outline.
    pub edge_value: f32,
    /// Atlas width in texels.
    pub atlas_width: u16,
    /// Atlas height in texels.
    pub atlas_height: u16,
    /// Header flags ([`FLAG_MSDF`], [`FLAG_BITMAP`], both or 0).
    pub flags: u32,
    /// Glyphs by ascending codepoint, the `.notdef` glyph (codepoint 0) first.
    pub glyphs: Vec<GpuGlyph>,
    /// Kerning pairs by ascending `(left, right)`.
    pub kerning: Vec<KerningPair>,
}

/// A validated `.hfont` whose tables are borrowed from the file buffer.
#[derive(Debug, Clone, Copy)]
pub struct HFont<'a> {
    header: FontFileHeader,
    notdef: &'a GpuGlyph,
    glyphs: &'a [GpuGlyph],
    kerning: &'a [KerningPair],
}

impl<'a> HFont<'a> {
    /// The file header.
    pub fn header(&self) -> &FontFileHeader {
        &self.header
    }

    /// Id of the atlas `.ktx2` in the manifest.
    pub fn atlas_tex(&self) -> u64 {
        self.header.atlas_tex()
    }

    /// Every glyph, by ascending codepoint; glyph 0 is `.notdef`.
    pub fn glyphs(&self) -> &'a [GpuGlyph] {
        self.glyphs
    }

    /// Every kerning pair, by ascending `(left, right)`.
    pub fn kerning_pairs(&self) -> &'a [KerningPair] {
        self.kerning
    }

    /// The glyph of `codepoint`, found by binary search, or `None` if the
    /// font lacks it.
    pub fn find_glyph(&self, codepoint: u32) -> Option<&'a GpuGlyph> {
        let index = self
            .glyphs
            .binary_search_by_key(&codepoint, |glyph| glyph.codepoint)
            .ok()?;
        self.glyphs.get(index)
    }

    /// The glyph to draw for `codepoint`: its own, or the `.notdef` glyph
    /// (glyph 0) when the font lacks it.
    pub fn glyph(&self, codepoint: u32) -> &'a GpuGlyph {
        self.find_glyph(codepoint).unwrap_or(self.notdef)
    }

    /// Em units to add to `left`'s advance when `right` follows it; 0 when
    /// the font has no pair for them. Found by binary search.
    pub fn kerning(&self, left: u32, right: u32) -> f32 {
        self.kerning
            .binary_search_by_key(&(left, right), |pair| (pair.left, pair.right))
            .ok()
            .and_then(|index| self.kerning.get(index))
            .map_or(0.0, |pair| pair.advance)
    }

    /// Em units from one baseline to the next.
    pub fn line_advance(&self) -> f32 {
        self.header.line_advance()
    }

    /// An owned copy, in the writer's input form.
    pub fn to_font_data(&self) -> FontData {
        font_data(&self.header, self.glyphs.to_vec(), self.kerning.to_vec())
    }
}

/// Assembles the owned form from a header and the two tables.
fn font_data(
    header: &FontFileHeader,
    glyphs: Vec<GpuGlyph>,
    kerning: Vec<KerningPair>,
) -> FontData {
    FontData {
        atlas_tex: header.atlas_tex(),
        ascent: header.ascent,
        descent: header.descent,
        line_gap: header.line_gap,
        distance_range: header.distance_range,
        edge_value: header.edge_value,
        atlas_width: header.atlas_width,
        atlas_height: header.atlas_height,
        flags: header.flags,
        glyphs,
        kerning,
    }
}

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Serialises a font: exactly `52 + 40 * glyphs + 12 * kerning pairs` bytes.
///
/// The bytes are checked by [`validate`] before they are returned, so a font
/// that breaks any rule of the format (no `.notdef` glyph, unsorted
/// codepoints, a UV rect outside the atlas, a kerning pair naming a missing
/// glyph, ...) is refused with the reader's error for that file.
pub fn write_hfont(font: &FontData) -> FormatResult<Vec<u8>> {
    let glyph_count = count_u32(font.glyphs.len(), 8, "FontFileHeader.glyphCount")?;
    let kerning_count = count_u32(font.kerning.len(), 12, "FontFileHeader.kerningCount")?;
    let len = HEADER_BYTES + GLYPH_BYTES * font.glyphs.len() + KERNING_BYTES * font.kerning.len();
    let mut out = Vec::with_capacity(len);
    let [atlas_low, atlas_high] = FontFileHeader::split_atlas_tex(font.atlas_tex);
    let header_words = [
        MAGIC,
        VERSION,
        glyph_count,
        kerning_count,
        atlas_low,
        atlas_high,
        font.ascent.to_bits(),
        font.descent.to_bits(),
        font.line_gap.to_bits(),
        font.distance_range.to_bits(),
        font.edge_value.to_bits(),
    ];
    push_words(&mut out, &header_words);
    out.extend_from_slice(&font.atlas_width.to_le_bytes());
    out.extend_from_slice(&font.atlas_height.to_le_bytes());
    push_words(&mut out, &[font.flags]);
    for glyph in &font.glyphs {
        let mut words = [glyph.codepoint; 10];
        for (word, (_, value)) in words.iter_mut().skip(1).zip(glyph.metrics()) {
            *word = value.to_bits();
        }
        push_words(&mut out, &words);
    }
    for pair in &font.kerning {
        push_words(&mut out, &[pair.left, pair.right, pair.advance.to_bits()]);
    }
    validate(&out)?;
    Ok(out)
}

/// Converts a table length to its stored `u32` count, or fails at `at`.
fn count_u32(len: usize, at: u64, field: &'static str) -> FormatResult<u32> {
    u32::try_from(len)
        .map_err(|_| FormatError::new(at, field, format!("{len} rows do not fit a u32 count")))
}

/// Appends little-endian words.
fn push_words(out: &mut Vec<u8>, words: &[u32]) {
    for word in words {
        out.extend_from_slice(&word.to_le_bytes());
    }
}

// ---------------------------------------------------------------------------
// Reading.
// ---------------------------------------------------------------------------

/// Checks a whole `.hfont` (see the module docs for the rules) and lends its
/// tables in place.
///
/// `bytes` must start on a 4-byte boundary (any `Vec<u8>` from
/// `std::fs::read` does in practice); otherwise this fails with an error
/// saying so, and [`read_hfont`] accepts the buffer. Fails on a big-endian
/// host.
pub fn parse_hfont(bytes: &[u8]) -> FormatResult<HFont<'_>> {
    let header = check_hfont(bytes)?;
    let (glyph_bytes, kerning_bytes) = tables(bytes, &header);
    let glyphs: &[GpuGlyph] = cast_in_place(glyph_bytes, HEADER_BYTES as u64, "GpuGlyph")?;
    let kerning = cast_in_place(kerning_bytes, header.kerning_start(), "KerningPair")?;
    let notdef = glyphs.first().ok_or_else(|| no_glyphs(&header))?;
    Ok(HFont {
        header,
        notdef,
        glyphs,
        kerning,
    })
}

/// Checks a whole `.hfont` held in a buffer of any alignment and returns an
/// owned copy of it. Fails on a big-endian host.
pub fn read_hfont(bytes: &[u8]) -> FormatResult<FontData> {
    let header = check_hfont(bytes)?;
    let (glyph_bytes, kerning_bytes) = tables(bytes, &header);
    let glyphs = glyph_bytes
        .chunks_exact(GLYPH_BYTES)
        .map(bytemuck::pod_read_unaligned)
        .collect();
    let kerning = kerning_bytes
        .chunks_exact(KERNING_BYTES)
        .map(bytemuck::pod_read_unaligned)
        .collect();
    Ok(font_data(&header, glyphs, kerning))
}

/// Checks a whole `.hfont` held in a buffer of any alignment, without
/// allocating. Fails on a big-endian host.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    check_hfont(bytes).map(drop)
}

/// The glyph and kerning table bytes of a file whose size matches `header`.
fn tables<'a>(bytes: &'a [u8], header: &FontFileHeader) -> (&'a [u8], &'a [u8]) {
    let split = usize::try_from(header.kerning_start()).unwrap_or(usize::MAX);
    let glyphs = bytes.get(HEADER_BYTES..split).unwrap_or_default();
    let kerning = bytes.get(split..).unwrap_or_default();
    (glyphs, kerning)
}

/// The error for a file without glyphs.
fn no_glyphs(header: &FontFileHeader) -> FormatError {
    FormatError::new(
        offset_of!(FontFileHeader, glyph_count) as u64,
        "FontFileHeader.glyphCount",
        format!(
            "is {}; a font needs at least its .notdef glyph",
            header.glyph_count
        ),
    )
}

/// Every rule of the format, on a buffer of any alignment.
fn check_hfont(bytes: &[u8]) -> FormatResult<FontFileHeader> {
    require_little_endian("FontFileHeader")?;
    let header = read_header(bytes)?;
    check_header_values(&header)?;
    let (glyph_bytes, kerning_bytes) = tables(bytes, &header);
    check_glyphs(glyph_bytes)?;
    check_kerning(kerning_bytes, header.kerning_start(), glyph_bytes)?;
    Ok(header)
}

/// Reads the header and checks its magic, version and that the file size
/// matches its counts.
fn read_header(bytes: &[u8]) -> FormatResult<FontFileHeader> {
    let header: FontFileHeader = read_fixed_header(bytes, "FontFileHeader")?;
    FileId {
        magic: MAGIC,
        version: VERSION,
        magic_field: "FontFileHeader.magic",
        version_field: "FontFileHeader.version",
    }
    .check(header.magic, header.version)?;
    check_size(&header, bytes.len() as u64)?;
    Ok(header)
}

/// Requires the file to be exactly as long as the counts say, blaming the
/// glyph count when even the glyph table does not fit.
fn check_size(header: &FontFileHeader, len: u64) -> FormatResult<()> {
    let expected = header.file_len();
    if len == expected {
        return Ok(());
    }
    let (at, field) = if header.kerning_start() > len {
        (8, "FontFileHeader.glyphCount")
    } else {
        (12, "FontFileHeader.kerningCount")
    };
    Err(FormatError::new(
        at,
        field,
        format!(
            "{} glyphs and {} kerning pairs need a file of {expected} bytes, but it is {len} bytes",
            header.glyph_count, header.kerning_count
        ),
    ))
}

/// Checks the header fields that do not depend on the tables.
fn check_header_values(header: &FontFileHeader) -> FormatResult<()> {
    if header.glyph_count == 0 {
        return Err(no_glyphs(header));
    }
    for (field, at, value) in header.metrics() {
        if !value.is_finite() {
            return Err(FormatError::new(
                at as u64,
                field,
                format!("{value} is not finite"),
            ));
        }
    }
    let sizes = [
        ("FontFileHeader.atlasWidth", 44, header.atlas_width),
        ("FontFileHeader.atlasHeight", 46, header.atlas_height),
    ];
    for (field, at, size) in sizes {
        if size == 0 {
            return Err(FormatError::new(at, field, "the atlas cannot be 0 texels"));
        }
    }
    let unknown = header.flags & !KNOWN_FLAGS;
    if unknown != 0 {
        return Err(FormatError::new(
            offset_of!(FontFileHeader, flags) as u64,
            "FontFileHeader.flags",
            format!("unknown flag bits {unknown:#x}"),
        ));
    }
    check_bitmap_fields(header)
}

/// A bitmap font has no distance field: its `distanceRange` and `edgeValue`
/// must be 0, so no engine mistakes its atlas for one.
fn check_bitmap_fields(header: &FontFileHeader) -> FormatResult<()> {
    if header.flags & FLAG_BITMAP == 0 {
        return Ok(());
    }
    // The last two metrics: distanceRange and edgeValue.
    let fields = &header.metrics()[3..];
    for &(field, at, value) in fields {
        if value.to_bits() != 0 {
            return Err(FormatError::new(
                at as u64,
                field,
                format!(
                    "is {value}; a bitmap font (flags bit 1) has no distance field and stores 0"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks every glyph of the table (which starts right after the header).
fn check_glyphs(table: &[u8]) -> FormatResult<()> {
    let mut previous = None;
    for (index, raw) in table.chunks_exact(GLYPH_BYTES).enumerate() {
        let glyph: GpuGlyph = bytemuck::pod_read_unaligned(raw);
        let at = (HEADER_BYTES + index * GLYPH_BYTES) as u64;
        check_codepoint(glyph.codepoint, previous, index, at)?;
        check_glyph_metrics(&glyph, index, at)?;
        previous = Some(glyph.codepoint);
    }
    Ok(())
}

/// Checks the codepoint of glyph `index` (at byte `at`) against the rules and
/// the previous glyph's.
fn check_codepoint(
    codepoint: u32,
    previous: Option<u32>,
    index: usize,
    at: u64,
) -> FormatResult<()> {
    let problem = match previous {
        None if codepoint != NOTDEF => Some(format!(
            "is {codepoint}; glyph 0 must be the .notdef glyph, codepoint 0"
        )),
        Some(previous) if codepoint <= previous => Some(format!(
            "{codepoint} does not follow {previous}; codepoints must ascend strictly"
        )),
        _ if char::from_u32(codepoint).is_none() => {
            Some(format!("{codepoint:#x} is not a Unicode scalar value"))
        }
        _ => None,
    };
    match problem {
        Some(problem) => Err(FormatError::new(
            at,
            "GpuGlyph.codepoint",
            format!("glyphs[{index}].codepoint {problem}"),
        )),
        None => Ok(()),
    }
}

/// Checks the metrics and rects of glyph `index` (at byte `at`).
fn check_glyph_metrics(glyph: &GpuGlyph, index: usize, at: u64) -> FormatResult<()> {
    for (k, (field, value)) in glyph.metrics().into_iter().enumerate() {
        let field_at = at + 4 * (k as u64 + 1);
        if !value.is_finite() {
            return Err(glyph_error(
                field_at,
                field,
                index,
                format!("{value} is not finite"),
            ));
        }
        let is_uv = field.starts_with("GpuGlyph.uv");
        if is_uv && !(0.0..=1.0).contains(&value) {
            let what = format!("{value} lies outside the atlas, [0, 1]");
            return Err(glyph_error(field_at, field, index, what));
        }
    }
    let ordered = [
        (
            "GpuGlyph.planeRight",
            offset_of!(GpuGlyph, plane_right),
            glyph.plane_left <= glyph.plane_right,
            "planeRight is left of planeLeft",
        ),
        (
            "GpuGlyph.planeTop",
            offset_of!(GpuGlyph, plane_top),
            glyph.plane_bottom <= glyph.plane_top,
            "planeTop is below planeBottom (planes are y-up)",
        ),
        (
            "GpuGlyph.uvRight",
            offset_of!(GpuGlyph, uv_right),
            glyph.uv_left <= glyph.uv_right,
            "uvRight is left of uvLeft",
        ),
        (
            "GpuGlyph.uvBottom",
            offset_of!(GpuGlyph, uv_bottom),
            glyph.uv_top <= glyph.uv_bottom,
            "uvBottom is above uvTop (UVs have a top-left origin)",
        ),
    ];
    for (field, offset, ok, what) in ordered {
        if !ok {
            return Err(glyph_error(at + offset as u64, field, index, what.into()));
        }
    }
    Ok(())
}

/// An error in field `field` (at byte `at`) of glyph `index`.
fn glyph_error(at: u64, field: &'static str, index: usize, what: String) -> FormatError {
    let name = field.trim_start_matches("GpuGlyph.");
    FormatError::new(at, field, format!("glyphs[{index}].{name}: {what}"))
}

/// Checks every kerning pair of the table that starts at byte `start`, with
/// `glyphs` the (already checked) glyph table.
fn check_kerning(table: &[u8], start: u64, glyphs: &[u8]) -> FormatResult<()> {
    let mut previous: Option<(u32, u32)> = None;
    for (index, raw) in table.chunks_exact(KERNING_BYTES).enumerate() {
        let pair: KerningPair = bytemuck::pod_read_unaligned(raw);
        let at = start + (index * KERNING_BYTES) as u64;
        let key = (pair.left, pair.right);
        if let Some(previous) = previous.filter(|&previous| key <= previous) {
            let what = format!(
                "kerning[{index}] ({}, {}) does not follow ({}, {}); pairs must ascend \
                 strictly by (left, right)",
                key.0, key.1, previous.0, previous.1
            );
            return Err(FormatError::new(at, "KerningPair.left", what));
        }
        let sides = [
            ("KerningPair.left", 0, "left", pair.left),
            ("KerningPair.right", 4, "right", pair.right),
        ];
        for (field, offset, name, codepoint) in sides {
            if !has_glyph(glyphs, codepoint) {
                let what = format!("kerning[{index}].{name}: the font has no glyph {codepoint}");
                return Err(FormatError::new(at + offset, field, what));
            }
        }
        if !pair.advance.is_finite() {
            let what = format!("kerning[{index}].advance: {} is not finite", pair.advance);
            return Err(FormatError::new(at + 8, "KerningPair.advance", what));
        }
        previous = Some(key);
    }
    Ok(())
}

/// Whether the glyph table bytes (any alignment, sorted by codepoint) hold
/// `codepoint`, by binary search.
fn has_glyph(table: &[u8], codepoint: u32) -> bool {
    let codepoint_at = |index: usize| {
        let start = index * GLYPH_BYTES;
        table
            .get(start..start + 4)
            .and_then(|word| <[u8; 4]>::try_from(word).ok())
            .map(u32::from_le_bytes)
    };
    let (mut low, mut high) = (0, table.len() / GLYPH_BYTES);
    while low < high {
        let middle = low + (high - low) / 2;
        match codepoint_at(middle) {
            Some(found) if found == codepoint => return true,
            Some(found) if found < codepoint => low = middle + 1,
            Some(_) => high = middle,
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_support::{assert_error, put_u32};

    fn glyph(codepoint: u32, plane: [f32; 4], uv: [f32; 4]) -> GpuGlyph {
        GpuGlyph {
            codepoint,
            advance: 0.55,
            plane_left: plane[0],
            plane_bottom: plane[1],
            plane_right: plane[2],
            plane_top: plane[3],
            uv_left: uv[0],
            uv_top: uv[1],
            uv_right: uv[2],
            uv_bottom: uv[3],
        }
    }

    /// `.notdef`, space, `A`, `V` and `é`, with kerning for `AV` and `VA`.
    fn sample_font() -> FontData {
        let space = GpuGlyph {
            advance: 0.25,
            ..glyph(32, [0.0; 4], [0.0; 4])
        };
        FontData {
            atlas_tex: 0x0123_4567_89ab_cdef,
            ascent: 0.93,
            descent: -0.24,
            line_gap: 0.05,
            distance_range: 6.0,
            edge_value: 0.502,
            atlas_width: 256,
            atlas_height: 128,
            flags: 0,
            glyphs: vec![
                glyph(0, [0.05, 0.0, 0.5, 0.7], [0.0, 0.0, 0.1, 0.2]),
                space,
                glyph(65, [-0.01, 0.0, 0.66, 0.72], [0.1, 0.0, 0.25, 0.2]),
                glyph(86, [0.0, 0.0, 0.65, 0.72], [0.25, 0.0, 0.4, 0.2]),
                glyph(0xE9, [0.04, -0.01, 0.5, 0.8], [0.4, 0.0, 1.0, 1.0]),
            ],
            kerning: vec![
                KerningPair {
                    left: 65,
                    right: 86,
                    advance: -0.07,
                },
                KerningPair {
                    left: 86,
                    right: 65,
                    advance: -0.06,
                },
            ],
        }
    }

    fn write(font: &FontData) -> Vec<u8> {
        match write_hfont(font) {
            Ok(bytes) => bytes,
            Err(err) => panic!("the fixture is invalid: {err}"),
        }
    }

    /// The sample's bytes with `change` applied, validated.
    fn check_changed(change: impl FnOnce(&mut Vec<u8>)) -> FormatResult<()> {
        let mut bytes = write(&sample_font());
        change(&mut bytes);
        validate(&bytes)
    }

    /// The sample with `change` applied, written.
    fn write_changed(change: impl FnOnce(&mut FontData)) -> FormatResult<Vec<u8>> {
        let mut font = sample_font();
        change(&mut font);
        write_hfont(&font)
    }

    /// File offset of glyph `index`.
    const fn glyph_at(index: usize) -> usize {
        HEADER_BYTES + index * GLYPH_BYTES
    }

    /// File offset of kerning pair `index` in the sample (5 glyphs).
    const fn pair_at(index: usize) -> usize {
        glyph_at(5) + index * KERNING_BYTES
    }

    #[test]
    fn round_trips_a_font() {
        let font = sample_font();
        let bytes = write(&font);
        assert_eq!(bytes.len(), 52 + 5 * 40 + 2 * 12);
        let parsed = parse_hfont(&bytes).unwrap();
        assert_eq!(parsed.to_font_data(), font);
        assert_eq!(parsed.glyphs(), font.glyphs.as_slice());
        assert_eq!(parsed.kerning_pairs(), font.kerning.as_slice());
        assert_eq!(parsed.atlas_tex(), 0x0123_4567_89ab_cdef);
        assert_eq!(read_hfont(&bytes).unwrap(), font);
        assert_eq!(validate(&bytes), Ok(()));
    }

    #[test]
    fn round_trips_a_font_with_only_notdef_and_no_kerning() {
        let mut font = sample_font();
        font.glyphs.truncate(1);
        font.kerning.clear();
        font.flags = FLAG_MSDF;
        let bytes = write(&font);
        assert_eq!(bytes.len(), 92);
        assert_eq!(read_hfont(&bytes).unwrap(), font);
        let parsed = parse_hfont(&bytes).unwrap();
        assert_eq!(parsed.glyph(65).codepoint, 0);
        assert_eq!(parsed.kerning(65, 86), 0.0);
    }

    #[test]
    fn writes_the_documented_byte_layout() {
        let bytes = write(&sample_font());
        assert_eq!(&bytes[0..16], b"HFNT\x01\0\0\0\x05\0\0\0\x02\0\0\0");
        assert_eq!(&bytes[16..24], 0x0123_4567_89ab_cdef_u64.to_le_bytes());
        assert_eq!(&bytes[24..28], 0.93_f32.to_le_bytes());
        assert_eq!(&bytes[28..32], (-0.24_f32).to_le_bytes());
        assert_eq!(&bytes[40..44], 0.502_f32.to_le_bytes());
        assert_eq!(&bytes[44..48], [0, 1, 128, 0], "256 x 128");
        assert_eq!(&bytes[48..52], [0; 4], "flags");
        let a = glyph_at(2);
        assert_eq!(&bytes[a..a + 4], [65, 0, 0, 0]);
        assert_eq!(
            &bytes[a + 8..a + 12],
            (-0.01_f32).to_le_bytes(),
            "planeLeft"
        );
        assert_eq!(&bytes[a + 28..a + 32], 0.0_f32.to_le_bytes(), "uvTop");
        assert_eq!(&bytes[a + 36..a + 40], 0.2_f32.to_le_bytes(), "uvBottom");
        let pair = pair_at(1);
        assert_eq!(&bytes[pair..pair + 8], [86, 0, 0, 0, 65, 0, 0, 0]);
        assert_eq!(&bytes[pair + 8..], (-0.06_f32).to_le_bytes());
    }

    #[test]
    fn looks_up_glyphs_with_a_notdef_fallback() {
        let bytes = write(&sample_font());
        let font = parse_hfont(&bytes).unwrap();
        assert_eq!(font.glyph(65).codepoint, 65);
        assert_eq!(font.glyph(0xE9).uv_right, 1.0);
        for missing in [1, 66, 0xE8, 0xEA, u32::MAX] {
            assert_eq!(font.glyph(missing).codepoint, 0, "{missing}");
            assert_eq!(font.find_glyph(missing), None);
        }
        assert_eq!(font.find_glyph(32).map(|g| g.advance), Some(0.25));
        assert!(font.glyph(32).is_blank());
        assert!(!font.glyph(65).is_blank());
    }

    #[test]
    fn looks_up_kerning_and_line_advance() {
        let bytes = write(&sample_font());
        let font = parse_hfont(&bytes).unwrap();
        assert_eq!(font.kerning(65, 86), -0.07);
        assert_eq!(font.kerning(86, 65), -0.06);
        assert_eq!(font.kerning(65, 65), 0.0);
        assert_eq!(font.kerning(0, 86), 0.0);
        assert!((font.line_advance() - (0.93 + 0.24 + 0.05)).abs() < 1e-6);
        assert_eq!(font.header().glyph_count, 5);
    }

    #[test]
    fn splits_and_joins_the_atlas_id() {
        let id = 0xfedc_ba98_7654_3210;
        let words = FontFileHeader::split_atlas_tex(id);
        assert_eq!(words, [0x7654_3210, 0xfedc_ba98]);
        let header = FontFileHeader {
            atlas_tex_words: words,
            ..FontFileHeader::zeroed()
        };
        assert_eq!(header.atlas_tex(), id);
    }

    #[test]
    fn rejects_a_short_header_bad_magic_and_version() {
        assert_error(validate(b"HFNT\x01\0\0\0"), "FontFileHeader", 0);
        assert_error(check_changed(|b| b[1] = b'X'), "FontFileHeader.magic", 0);
        assert_error(check_changed(|b| b[4] = 2), "FontFileHeader.version", 4);
    }

    #[test]
    fn rejects_a_size_that_disagrees_with_the_counts() {
        assert_error(
            check_changed(|b| b.push(0)),
            "FontFileHeader.kerningCount",
            12,
        );
        assert_error(
            check_changed(|b| b.truncate(b.len() - 12)),
            "FontFileHeader.kerningCount",
            12,
        );
        assert_error(
            check_changed(|b| b.truncate(glyph_at(4))),
            "FontFileHeader.glyphCount",
            8,
        );
    }

    #[test]
    fn rejects_huge_counts_without_allocating() {
        // A reader that reserved memory from these counts would ask for
        // hundreds of gigabytes; the size check comes first.
        assert_error(
            check_changed(|b| put_u32(b, 8, u32::MAX)),
            "FontFileHeader.glyphCount",
            8,
        );
        assert_error(
            check_changed(|b| put_u32(b, 12, u32::MAX)),
            "FontFileHeader.kerningCount",
            12,
        );
        let mut bytes = write(&sample_font());
        put_u32(&mut bytes, 8, u32::MAX);
        put_u32(&mut bytes, 12, u32::MAX);
        assert_error(read_hfont(&bytes), "FontFileHeader.glyphCount", 8);
        assert_error(parse_hfont(&bytes), "FontFileHeader.glyphCount", 8);
    }

    #[test]
    fn rejects_a_font_without_glyphs() {
        let mut bytes = write(&sample_font());
        bytes.truncate(HEADER_BYTES);
        put_u32(&mut bytes, 8, 0);
        put_u32(&mut bytes, 12, 0);
        assert_error(validate(&bytes), "FontFileHeader.glyphCount", 8);
        let refused = write_changed(|font| {
            font.glyphs.clear();
            font.kerning.clear();
        });
        assert_error(refused, "FontFileHeader.glyphCount", 8);
    }

    #[test]
    fn rejects_non_finite_header_metrics() {
        let fields = [
            (24, "FontFileHeader.ascent"),
            (28, "FontFileHeader.descent"),
            (32, "FontFileHeader.lineGap"),
            (36, "FontFileHeader.distanceRange"),
            (40, "FontFileHeader.edgeValue"),
        ];
        for (at, field) in fields {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let result = check_changed(|b| put_u32(b, at, bad.to_bits()));
                assert_error(result, field, at as u64);
            }
        }
    }

    #[test]
    fn rejects_an_empty_atlas_and_unknown_flags() {
        assert_error(
            write_changed(|f| f.atlas_width = 0),
            "FontFileHeader.atlasWidth",
            44,
        );
        assert_error(
            write_changed(|f| f.atlas_height = 0),
            "FontFileHeader.atlasHeight",
            46,
        );
        assert_error(write_changed(|f| f.flags = 4), "FontFileHeader.flags", 48);
        assert_error(check_changed(|b| b[51] = 0x80), "FontFileHeader.flags", 48);
    }

    #[test]
    fn round_trips_a_bitmap_font_without_a_distance_field() {
        for flags in [FLAG_BITMAP, FLAG_BITMAP | FLAG_MSDF] {
            let mut font = sample_font();
            font.flags = flags;
            font.distance_range = 0.0;
            font.edge_value = 0.0;
            let bytes = write(&font);
            assert_eq!(&bytes[48..52], flags.to_le_bytes());
            assert_eq!(read_hfont(&bytes).unwrap(), font);
        }
    }

    #[test]
    fn rejects_a_bitmap_font_with_a_distance_field() {
        let bitmap = |f: &mut FontData| {
            f.flags = FLAG_BITMAP;
            f.edge_value = 0.0;
        };
        let range = write_changed(|f| bitmap(f));
        assert_error(range, "FontFileHeader.distanceRange", 36);
        let edge = write_changed(|f| {
            bitmap(f);
            f.distance_range = 0.0;
            f.edge_value = 0.5;
        });
        assert_error(edge, "FontFileHeader.edgeValue", 40);
    }

    #[test]
    fn rejects_a_first_glyph_that_is_not_notdef() {
        let err = write_changed(|f| {
            f.glyphs.remove(0);
        })
        .unwrap_err();
        assert_eq!((err.field, err.offset), ("GpuGlyph.codepoint", 52));
        assert!(err.what.contains("glyphs[0].codepoint"), "{err}");
    }

    #[test]
    fn rejects_unsorted_or_repeated_codepoints() {
        let at = glyph_at(3) as u64;
        let swapped = write_changed(|f| f.glyphs.swap(2, 3));
        assert_error(swapped, "GpuGlyph.codepoint", at);
        let repeated = check_changed(|b| put_u32(b, glyph_at(3), 65));
        let err = repeated.unwrap_err();
        assert_eq!((err.field, err.offset), ("GpuGlyph.codepoint", at));
        assert!(
            err.what
                .starts_with("glyphs[3].codepoint 65 does not follow 65"),
            "{err}"
        );
    }

    #[test]
    fn rejects_codepoints_that_are_not_unicode_scalars() {
        for bad in [0xD800, 0xDFFF, 0x11_0000, u32::MAX] {
            let result = check_changed(|b| put_u32(b, glyph_at(4), bad));
            assert_error(result, "GpuGlyph.codepoint", glyph_at(4) as u64);
        }
    }

    #[test]
    fn rejects_non_finite_glyph_metrics() {
        let names = [
            "GpuGlyph.advance",
            "GpuGlyph.planeLeft",
            "GpuGlyph.planeBottom",
            "GpuGlyph.planeRight",
            "GpuGlyph.planeTop",
            "GpuGlyph.uvLeft",
            "GpuGlyph.uvTop",
            "GpuGlyph.uvRight",
            "GpuGlyph.uvBottom",
        ];
        for (k, field) in names.into_iter().enumerate() {
            let at = glyph_at(2) + 4 * (k + 1);
            let result = check_changed(|b| put_u32(b, at, f32::NAN.to_bits()));
            let err = result.unwrap_err();
            assert_eq!((err.field, err.offset), (field, at as u64), "{err}");
            assert!(err.what.starts_with("glyphs[2]."), "{err}");
        }
    }

    #[test]
    fn rejects_uv_rects_outside_the_atlas_or_inverted() {
        let a = glyph_at(2) as u64;
        assert_error(
            write_changed(|f| f.glyphs[2].uv_left = -0.01),
            "GpuGlyph.uvLeft",
            a + 24,
        );
        assert_error(
            write_changed(|f| f.glyphs[2].uv_bottom = 1.5),
            "GpuGlyph.uvBottom",
            a + 36,
        );
        assert_error(
            write_changed(|f| f.glyphs[2].uv_right = 0.05),
            "GpuGlyph.uvRight",
            a + 32,
        );
        assert_error(
            write_changed(|f| f.glyphs[2].uv_top = 0.3),
            "GpuGlyph.uvBottom",
            a + 36,
        );
    }

    #[test]
    fn rejects_inverted_plane_rects() {
        let a = glyph_at(2) as u64;
        assert_error(
            write_changed(|f| f.glyphs[2].plane_right = -0.5),
            "GpuGlyph.planeRight",
            a + 16,
        );
        assert_error(
            write_changed(|f| f.glyphs[2].plane_top = -0.1),
            "GpuGlyph.planeTop",
            a + 20,
        );
        // Negative plane coordinates are fine as long as the rect is ordered.
        let font = write_changed(|f| f.glyphs[2].plane_bottom = -0.2);
        assert!(font.is_ok());
    }

    #[test]
    fn rejects_unsorted_or_repeated_kerning_pairs() {
        let swapped = write_changed(|f| f.kerning.swap(0, 1));
        assert_error(swapped, "KerningPair.left", pair_at(1) as u64);
        let repeated = write_changed(|f| f.kerning[1] = f.kerning[0]);
        assert_error(repeated, "KerningPair.left", pair_at(1) as u64);
    }

    #[test]
    fn rejects_kerning_for_missing_glyphs() {
        let left = write_changed(|f| f.kerning[0].left = 64);
        assert_error(left, "KerningPair.left", pair_at(0) as u64);
        let right = write_changed(|f| f.kerning[1].right = 0x10_FFFF);
        let err = right.unwrap_err();
        assert_eq!(
            (err.field, err.offset),
            ("KerningPair.right", pair_at(1) as u64 + 4)
        );
        assert!(err.what.contains("kerning[1].right"), "{err}");
        let nan = write_changed(|f| f.kerning[0].advance = f32::NAN);
        assert_error(nan, "KerningPair.advance", pair_at(0) as u64 + 8);
    }

    #[test]
    fn finds_every_glyph_of_the_table_by_binary_search() {
        let bytes = write(&sample_font());
        let table = &bytes[HEADER_BYTES..glyph_at(5)];
        for glyph in &sample_font().glyphs {
            assert!(has_glyph(table, glyph.codepoint), "{}", glyph.codepoint);
        }
        for missing in [1, 31, 33, 64, 66, 85, 87, 0xE8, 0xEA] {
            assert!(!has_glyph(table, missing), "{missing}");
        }
        assert!(!has_glyph(&[], 0));
    }

    #[test]
    fn reports_a_misaligned_buffer_instead_of_panicking() {
        let bytes = write(&sample_font());
        let mut shifted = vec![0_u32; bytes.len() / 4 + 2];
        let raw = bytemuck::cast_slice_mut::<u32, u8>(&mut shifted);
        raw[2..2 + bytes.len()].copy_from_slice(&bytes);
        let misaligned = &raw[2..2 + bytes.len()];
        let err = parse_hfont(misaligned).unwrap_err();
        assert_eq!((err.field, err.offset), ("GpuGlyph", 52), "{err}");
        assert!(err.what.contains("4-byte"), "{err}");
        assert_eq!(read_hfont(misaligned).unwrap(), sample_font());
        assert_eq!(validate(misaligned), Ok(()));
        // Four bytes in is 4-aligned, which is all a font needs.
        raw[4..4 + bytes.len()].copy_from_slice(&bytes);
        assert!(parse_hfont(&raw[4..4 + bytes.len()]).is_ok());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = write(&sample_font());
        for len in 0..bytes.len() {
            assert!(validate(&bytes[..len]).is_err(), "length {len}");
            assert!(parse_hfont(&bytes[..len]).is_err(), "length {len}");
        }
    }

    #[test]
    fn survives_arbitrary_corruption() {
        let bytes = write(&sample_font());
        let mut rejected = 0;
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x20, 0x41, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                // Whatever is accepted must be writable again, byte for byte.
                match read_hfont(&corrupt) {
                    Ok(font) => assert_eq!(write(&font), corrupt, "byte {at} = {value}"),
                    Err(_) => rejected += 1,
                }
                assert_eq!(parse_hfont(&corrupt).is_ok(), validate(&corrupt).is_ok());
            }
        }
        assert!(
            rejected > bytes.len(),
            "only {rejected} corruptions rejected"
        );
    }
}
