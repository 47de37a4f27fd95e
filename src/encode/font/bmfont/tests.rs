//! The bitmap font compiler against the committed fixture (one font by
//! hand in the text encoding, its XML and binary forms written from it by
//! [`test_writer`]), the atlas kinds, and hostile files.
//!
//! `ASSETC_WRITE_BMFONT_FIXTURES=1 cargo test --lib bmfont` rewrites the
//! generated fixtures in `tests/data/bmfont/`.

use std::path::{Path, PathBuf};

use super::model::{Channels, Place};
use super::test_writer::{to_binary, to_text, to_xml};
use super::*;
use crate::encode::image::test_images::rgba8_png;
use crate::format::hfont::read_hfont;

/// The committed fixtures.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bmfont")
}

/// A 16x16 page whose alpha differs texel by texel (white colour), so a
/// glyph cut from the wrong place reads back wrong.
fn page_texels(page: u32) -> Vec<u8> {
    let mut texels = Vec::new();
    for y in 0..16u32 {
        for x in 0..16u32 {
            texels.extend_from_slice(&[255, 255, 255, ((x * 16 + y * 3 + page * 50) % 251) as u8]);
        }
    }
    texels
}

/// The hand-written text fixture, parsed.
fn fixture_font() -> BmFont {
    parse(&std::fs::read(fixtures().join("pix-text.fnt")).unwrap()).unwrap()
}

/// The font with every place blanked, to compare encodings.
fn placeless(mut font: BmFont) -> BmFont {
    let nowhere = Place::Line(0);
    font.metrics.size_place = nowhere;
    font.pages.iter_mut().for_each(|p| p.place = nowhere);
    font.glyphs.iter_mut().for_each(|g| g.place = nowhere);
    font.kerning.iter_mut().for_each(|k| k.place = nowhere);
    font
}

/// The generated fixtures: file name and bytes.
fn generated() -> Vec<(&'static str, Vec<u8>)> {
    let font = fixture_font();
    vec![
        ("pix-xml.fnt", to_xml(&font).into_bytes()),
        ("pix-binary.fnt", to_binary(&font)),
        ("pix_0.png", rgba8_png(16, 16, &page_texels(0))),
        ("pix_1.png", rgba8_png(16, 16, &page_texels(1))),
    ]
}

#[test]
fn the_committed_fixtures_are_the_writers_output() {
    let rewrite = std::env::var_os("ASSETC_WRITE_BMFONT_FIXTURES").is_some();
    for (name, bytes) in generated() {
        let path = fixtures().join(name);
        if rewrite {
            std::fs::write(&path, &bytes).unwrap();
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{name}; see the module docs"
        );
    }
}

#[test]
fn the_three_encodings_read_the_same() {
    let font = fixture_font();
    assert_eq!(font.metrics.size, -8);
    assert_eq!(font.pages.len(), 2);
    let ids: Vec<u32> = font.glyphs.iter().map(|g| g.id).collect();
    assert_eq!(ids, [0, 32, 65, 86, 106]);
    assert_eq!(font.glyphs[4].place, Place::Line(10));
    for bytes in [
        to_text(&font).into_bytes(),
        to_xml(&font).into_bytes(),
        to_binary(&font),
    ] {
        assert_eq!(placeless(parse(&bytes).unwrap()), placeless(font.clone()));
    }
    let binary = parse(&to_binary(&font)).unwrap();
    assert!(matches!(binary.glyphs[0].place, Place::Offset(_)));
}

/// Compiles `source` as `name` in a folder holding the fixture's pages.
fn compile_in_folder(name: &str, source: &[u8]) -> Result<CompiledBitmapFont, BmError> {
    let dir = tempfile::tempdir().unwrap();
    for (file, bytes) in generated().into_iter().skip(2) {
        std::fs::write(dir.path().join(file), bytes).unwrap();
    }
    let path = dir.path().join(name);
    compile_bitmap_font(&path, source, 3, 0x51)
}

/// The atlas's level 0 texels and its KTX2 format.
fn atlas_texels(atlas: &[u8]) -> (Vec<u8>, Option<::ktx2::Format>) {
    let reader = ::ktx2::Reader::new(atlas).unwrap();
    assert_eq!(
        reader.header().level_count,
        1,
        "bitmap atlases have no mips"
    );
    let level = reader.levels().next().unwrap();
    let texels = zstd::bulk::decompress(level.data, 1 << 20).unwrap();
    (texels, reader.header().format)
}

#[test]
fn compiles_the_fixture_to_the_same_hfont_in_every_encoding() {
    let font = fixture_font();
    let outputs: Vec<CompiledBitmapFont> = [
        to_text(&font).into_bytes(),
        to_xml(&font).into_bytes(),
        to_binary(&font),
    ]
    .iter()
    .map(|bytes| compile_in_folder("pix.fnt", bytes).unwrap())
    .collect();
    assert_eq!(outputs[0].hfont, outputs[1].hfont);
    assert_eq!(outputs[0].hfont, outputs[2].hfont);
    assert_eq!(outputs[0].atlas, outputs[2].atlas);
    assert_eq!(outputs[0].pages.len(), 2);
    assert!(outputs[0].pages[1].ends_with("pix_1.png"));
    assert!(!outputs[0].colour);
}

#[test]
fn converts_texels_to_em_and_keeps_kerning() {
    let source = std::fs::read(fixtures().join("pix-text.fnt")).unwrap();
    let compiled = compile_in_folder("pix.fnt", &source).unwrap();
    let font = read_hfont(&compiled.hfont).unwrap();
    assert_eq!(font.flags, FLAG_BITMAP);
    assert_eq!((font.distance_range, font.edge_value), (0.0, 0.0));
    assert_eq!(
        (font.ascent, font.descent, font.line_gap),
        (1.0, -0.25, 0.0)
    );
    assert_eq!(font.atlas_tex, 0x51);
    let codepoints: Vec<u32> = font.glyphs.iter().map(|g| g.codepoint).collect();
    assert_eq!(codepoints, [0, 32, 65, 86, 106]);
    let space = font.glyphs[1];
    assert_eq!(space.advance, 3.0 / 8.0);
    assert!(space.is_blank());
    let j = font.glyphs[4];
    assert_eq!(
        [j.plane_left, j.plane_bottom, j.plane_right, j.plane_top],
        [-1.0 / 8.0, -3.0 / 8.0, 2.0 / 8.0, 6.0 / 8.0]
    );
    let pairs: Vec<(u32, u32, f32)> = font
        .kerning
        .iter()
        .map(|k| (k.left, k.right, k.advance))
        .collect();
    assert_eq!(pairs, [(65, 86, -1.0 / 8.0), (86, 65, -2.0 / 8.0)]);
    assert!(compiled.warnings.is_empty(), "{:?}", compiled.warnings);
    // Every drawn glyph's atlas rect holds its page's alpha, texel for texel.
    let (texels, format) = atlas_texels(&compiled.atlas);
    assert_eq!(format, Some(::ktx2::Format::R8_UNORM));
    let width = font.atlas_width as usize;
    let source = fixture_font();
    for (glyph, row) in source
        .glyphs
        .iter()
        .zip(&font.glyphs)
        .filter(|(g, _)| g.width > 0)
    {
        let page = page_texels(glyph.page);
        let x0 = (row.uv_left * font.atlas_width as f32).round() as usize;
        let y0 = (row.uv_top * font.atlas_height as f32).round() as usize;
        for dy in 0..glyph.height as usize {
            for dx in 0..glyph.width as usize {
                let at_page = ((glyph.y as usize + dy) * 16 + glyph.x as usize + dx) * 4 + 3;
                let at_atlas = (y0 + dy) * width + x0 + dx;
                assert_eq!(texels[at_atlas], page[at_page], "glyph {}", glyph.id);
            }
        }
    }
}

/// The fixture with `change` applied to its model, as text.
fn changed(change: impl FnOnce(&mut BmFont)) -> Vec<u8> {
    let mut font = fixture_font();
    change(&mut font);
    to_text(&font).into_bytes()
}

#[test]
fn full_colour_glyphs_make_an_srgb_colour_atlas() {
    let source = changed(|f| f.metrics.contents = [model::ChannelContent::Glyph; 4]);
    let compiled = compile_in_folder("pix.fnt", &source).unwrap();
    assert!(compiled.colour);
    let font = read_hfont(&compiled.hfont).unwrap();
    assert_eq!(font.flags, FLAG_BITMAP | FLAG_MSDF);
    let (texels, format) = atlas_texels(&compiled.atlas);
    assert_eq!(format, Some(::ktx2::Format::R8G8B8A8_SRGB));
    assert_eq!(
        texels.len(),
        font.atlas_width as usize * font.atlas_height as usize * 4
    );
}

#[test]
fn packed_glyphs_come_apart_into_coverage() {
    // Two glyphs at the same rect of page 0, in its red and green channels.
    let source = changed(|f| {
        f.metrics.packed = true;
        f.metrics.contents = [model::ChannelContent::Glyph; 4];
        for (glyph, channel) in f.glyphs.iter_mut().zip([0, 0, 0, 1, 2]) {
            glyph.channels = Channels::One(channel);
        }
        let a = f.glyphs[2];
        f.glyphs[3] = Glyph {
            id: 86,
            channels: Channels::One(1),
            ..a
        };
    });
    let compiled = compile_in_folder("pix.fnt", &source).unwrap();
    assert!(!compiled.colour);
    let font = read_hfont(&compiled.hfont).unwrap();
    assert_eq!(font.flags, FLAG_BITMAP);
    let (a, v) = (font.glyphs[2], font.glyphs[3]);
    assert_ne!(
        (a.uv_left, a.uv_top),
        (v.uv_left, v.uv_top),
        "each has its own rect"
    );
}

#[test]
fn kerning_for_missing_glyphs_is_dropped_with_a_warning() {
    let source = changed(|f| {
        let pair = model::Kerning {
            first: 65,
            second: 66,
            amount: -1,
            place: Place::Line(0),
        };
        f.kerning.push(pair);
    });
    let compiled = compile_in_folder("pix.fnt", &source).unwrap();
    assert_eq!(read_hfont(&compiled.hfont).unwrap().kerning.len(), 2);
    assert_eq!(
        compiled.warnings,
        ["1 kerning pair(s) name glyphs the font lacks and were left out (the first at line 15)"]
    );
}

#[test]
fn a_font_without_a_fallback_glyph_gets_a_blank_notdef() {
    let source = changed(|f| {
        f.glyphs.remove(0);
    });
    let font = read_hfont(&compile_in_folder("pix.fnt", &source).unwrap().hfont).unwrap();
    assert_eq!(font.glyphs[0], GpuGlyph::zeroed());
    assert_eq!(font.glyphs.len(), 5);
}

/// The error compiling `source` gives, as text.
fn compile_error(source: &[u8]) -> String {
    compile_in_folder("pix.fnt", source)
        .unwrap_err()
        .to_string()
}

#[test]
fn page_and_rect_faults_name_their_record() {
    let missing = changed(|f| f.pages[1].file = "gone.png".into());
    let err = compile_error(&missing);
    assert!(
        err.starts_with("line 4: page 1 \"gone.png\": cannot read "),
        "{err}"
    );
    let outside = changed(|f| f.glyphs[4].x = 14);
    assert_eq!(
        compile_error(&outside),
        "line 10: char id=106: its rect 3x9 at (14, 2) reaches (17, 11), outside page 1 (16x16)"
    );
    let escape = changed(|f| f.pages[0].file = "../pix_0.png".into());
    assert!(compile_error(&escape).contains("must be a relative path"));
    let scale = changed(|f| f.metrics.scale = (32, 16));
    assert!(
        compile_error(&scale).contains("the image is 16x16, but common scaleW/scaleH say 32x16")
    );
    let range = changed(|f| f.glyphs[2].page = 7);
    assert_eq!(
        compile_error(&range),
        "line 8: char id=65 is on page 7, but the font has 2 page(s)"
    );
}

#[test]
fn binary_faults_name_their_byte_offset() {
    let good = to_binary(&fixture_font());
    let mut version = good.clone();
    version[3] = 2;
    assert!(compile_error(&version).starts_with("byte 3: binary version 2 is not supported"));
    let mut block = good.clone();
    block[4] = 9;
    assert_eq!(
        compile_error(&block),
        "byte 4: unknown block type 9 (1 to 5 exist)"
    );
    let mut size = good.clone();
    size[5] = 0xff;
    let err = compile_error(&size);
    assert!(err.starts_with("byte 5: block 1 declares 2"), "{err}");
    let mut common = good.clone();
    let common_at = 4 + 5 + 18;
    assert_eq!(common[common_at], 2);
    common[common_at + 1] = 14;
    assert!(compile_error(&common).contains("the common block is 14 bytes, not 15"));
    let err = compile_error(&good[..good.len() - 3]);
    assert!(err.contains("declares") && err.contains("only"), "{err}");
}

#[test]
fn every_truncation_and_corruption_fails_cleanly() {
    let font = fixture_font();
    let encodings = [
        to_text(&font).into_bytes(),
        to_xml(&font).into_bytes(),
        to_binary(&font),
    ];
    for bytes in &encodings {
        for len in 0..bytes.len() {
            // A text or XML file cut at a line end can still be whole.
            let _ = parse(&bytes[..len]);
        }
        for at in 0..bytes.len() {
            for value in [0x00, 0x0a, 0x22, 0x2d, 0x3c, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                let _ = parse(&corrupt);
            }
        }
    }
    // Cut anywhere but right before its optional kerning block, a binary
    // file is refused.
    let binary = &encodings[2];
    let without_kerning = binary.len() - 5 - 10 * font.kerning.len();
    for len in (0..binary.len()).filter(|&len| len != without_kerning) {
        assert!(parse(&binary[..len]).is_err(), "binary cut at {len}");
    }
}
