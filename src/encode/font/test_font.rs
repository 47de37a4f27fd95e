//! A tiny TrueType writer for tests, using the standard library only, so
//! integration tests can include it with
//! `#[path = "../../src/encode/font/test_font.rs"] mod test_font;`
//! in tests/integration/main.rs.
//!
//! [`font_with`] writes a font that maps exactly the given codepoints, each to
//! its own square glyph, with the tables ttf-parser and the font encoder read
//! (`cmap` format 12, `glyf`/`loca`, `head`, `hhea`, `hmtx`, `maxp`). It lets
//! the tests make a "Thai" or "Hiragana" font without committing a
//! third-party file.
#![allow(dead_code)]

/// Font units per em.
const UNITS_PER_EM: u16 = 1000;

/// A TrueType font whose `cmap` maps each of `codepoints` (ascending, no
/// repeats) to its own glyph; glyph 0 is `.notdef`. Every glyph is a square
/// of 500 units on the baseline, 600 units wide.
pub fn font_with(codepoints: &[u32]) -> Vec<u8> {
    let groups: Vec<(u32, u32, u32)> = codepoints
        .iter()
        .enumerate()
        .map(|(index, &c)| (c, c, index as u32 + 1))
        .collect();
    font_with_groups(&groups, codepoints.len() + 1)
}

/// A font of `glyphs` square glyphs whose `cmap` has exactly `groups`
/// (first codepoint, last codepoint, glyph of the first), however
/// overlapping or out of range: hostile tables are easy.
pub fn font_with_groups(groups: &[(u32, u32, u32)], glyphs: usize) -> Vec<u8> {
    let (glyf, loca) = glyf_and_loca(glyphs);
    let tables: [(&[u8; 4], Vec<u8>); 7] = [
        (b"cmap", cmap(groups)),
        (b"glyf", glyf),
        (b"head", head()),
        (b"hhea", hhea(glyphs)),
        (b"hmtx", hmtx(glyphs)),
        (b"loca", loca),
        (b"maxp", maxp(glyphs)),
    ];
    sfnt(&tables)
}

/// The offset table, the table records (sorted by tag) and the tables, each
/// padded to four bytes.
fn sfnt(tables: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0x0001_0000u32.to_be_bytes());
    out.extend((tables.len() as u16).to_be_bytes());
    out.extend([0u8; 6]); // searchRange, entrySelector, rangeShift: unused
    let mut offset = 12 + 16 * tables.len();
    let mut data = Vec::new();
    for (tag, bytes) in tables {
        out.extend(*tag);
        out.extend(0u32.to_be_bytes()); // checksum: not verified by readers
        out.extend((offset as u32).to_be_bytes());
        out.extend((bytes.len() as u32).to_be_bytes());
        data.extend(bytes);
        while data.len() % 4 != 0 {
            data.push(0);
        }
        offset = 12 + 16 * tables.len() + data.len();
    }
    out.extend(data);
    out
}

/// `cmap` with one format 12 subtable (Windows, Unicode full repertoire).
fn cmap(groups: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0u16.to_be_bytes());
    out.extend(1u16.to_be_bytes());
    out.extend(3u16.to_be_bytes());
    out.extend(10u16.to_be_bytes());
    out.extend(12u32.to_be_bytes());
    out.extend(12u16.to_be_bytes());
    out.extend(0u16.to_be_bytes());
    out.extend((16 + 12 * groups.len() as u32).to_be_bytes());
    out.extend(0u32.to_be_bytes());
    out.extend((groups.len() as u32).to_be_bytes());
    for &(first, last, glyph) in groups {
        out.extend(first.to_be_bytes());
        out.extend(last.to_be_bytes());
        out.extend(glyph.to_be_bytes());
    }
    out
}

/// One square glyph per glyph id, and the long `loca` offsets to them.
fn glyf_and_loca(glyphs: usize) -> (Vec<u8>, Vec<u8>) {
    let square = square_glyph();
    let mut glyf = Vec::new();
    let mut loca = Vec::new();
    for _ in 0..glyphs {
        loca.extend((glyf.len() as u32).to_be_bytes());
        glyf.extend(&square);
    }
    loca.extend((glyf.len() as u32).to_be_bytes());
    (glyf, loca)
}

/// A simple glyph: one clockwise contour around (50, 0)–(550, 500).
fn square_glyph() -> Vec<u8> {
    let mut out = Vec::new();
    for value in [1i16, 50, 0, 550, 500] {
        out.extend(value.to_be_bytes()); // contours, then the bounding box
    }
    out.extend(3u16.to_be_bytes()); // endPtsOfContours[0]
    out.extend(0u16.to_be_bytes()); // no instructions
    out.extend([1u8; 4]); // four on-curve points, 16-bit coordinates
    for delta in [50i16, 0, 500, 0] {
        out.extend(delta.to_be_bytes()); // x: 50, 50, 550, 550
    }
    for delta in [0i16, 500, 0, -500] {
        out.extend(delta.to_be_bytes()); // y: 0, 500, 500, 0
    }
    out.extend([0u8; 2]); // pad to four bytes
    out
}

fn head() -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0x0001_0000u32.to_be_bytes()); // version
    out.extend(0x0001_0000u32.to_be_bytes()); // fontRevision
    out.extend(0u32.to_be_bytes()); // checksumAdjustment
    out.extend(0x5F0F_3CF5u32.to_be_bytes()); // magicNumber
    out.extend(0u16.to_be_bytes()); // flags
    out.extend(UNITS_PER_EM.to_be_bytes());
    out.extend([0u8; 16]); // created, modified
    for value in [50i16, 0, 550, 500] {
        out.extend(value.to_be_bytes()); // xMin, yMin, xMax, yMax
    }
    out.extend(0u16.to_be_bytes()); // macStyle
    out.extend(8u16.to_be_bytes()); // lowestRecPPEM
    out.extend(2i16.to_be_bytes()); // fontDirectionHint
    out.extend(1i16.to_be_bytes()); // indexToLocFormat: long
    out.extend(0i16.to_be_bytes()); // glyphDataFormat
    out
}

fn hhea(glyphs: usize) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0x0001_0000u32.to_be_bytes());
    for value in [800i16, -200, 0] {
        out.extend(value.to_be_bytes()); // ascender, descender, lineGap
    }
    out.extend(600u16.to_be_bytes()); // advanceWidthMax
    for value in [50i16, 50, 550, 1, 0, 0, 0, 0, 0, 0, 0] {
        // minLSB, minRSB, xMaxExtent, caret rise/run/offset, reserved ×4,
        // metricDataFormat
        out.extend(value.to_be_bytes());
    }
    out.extend((glyphs as u16).to_be_bytes()); // numberOfHMetrics
    out
}

fn hmtx(glyphs: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..glyphs {
        out.extend(600u16.to_be_bytes());
        out.extend(50i16.to_be_bytes());
    }
    out
}

fn maxp(glyphs: usize) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0x0000_5000u32.to_be_bytes()); // version 0.5
    out.extend((glyphs as u16).to_be_bytes());
    out
}
