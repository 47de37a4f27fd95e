//! Tests of the font encoder on real fonts: DejaVu Sans (Debian's
//! `fonts-dejavu-core`, installed by `tools/ensure-deps`) and the tiny
//! `tests/data/fonts/kerning-test.ttf` (made by `tools/make-test-font.py`).

use super::*;
use crate::format::hash::asset_hash;
use crate::format::hfont::read_hfont;

/// Debian's DejaVu Sans.
pub const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The committed kerning test font.
const KERNING_TEST: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/fonts/kerning-test.ttf"
);

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e} (run tools/ensure-deps)"))
}

fn options(mode: FontMode) -> FontOptions {
    FontOptions {
        charset: Charset::default(),
        px_per_em: 48,
        spread: 6,
        mode,
        zstd_level: 3,
    }
}

fn compile_file(path: &str, options: &FontOptions) -> (FontData, Vec<u8>) {
    let compiled = compile_font(&read(path), options, asset_hash("ui/dejavu.font")).unwrap();
    (read_hfont(&compiled.hfont).unwrap(), compiled.atlas)
}

/// DejaVu Sans compiled with the default settings in SDF mode, once per run:
/// several tests read the same output, and each compile takes seconds in the
/// test profile.
fn dejavu_sdf() -> &'static (FontData, Vec<u8>) {
    static COMPILED: std::sync::OnceLock<(FontData, Vec<u8>)> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| compile_file(DEJAVU, &options(FontMode::Sdf)))
}

/// Level 0 of an atlas, inflated, with its format.
fn atlas_level0(atlas: &[u8]) -> (Option<::ktx2::Format>, u32, u32, Vec<u8>) {
    let reader = ::ktx2::Reader::new(atlas).unwrap();
    let header = reader.header();
    let level = reader.levels().next().unwrap();
    let texels =
        zstd::bulk::decompress(level.data, level.uncompressed_byte_length as usize).unwrap();
    (
        header.format,
        header.pixel_width,
        header.pixel_height,
        texels,
    )
}

fn glyph(font: &FontData, c: char) -> GpuGlyph {
    *font
        .glyphs
        .iter()
        .find(|g| g.codepoint == u32::from(c))
        .unwrap()
}

/// The atlas texel under normalised `(u, v)`.
fn texel_at(width: u32, height: u32, u: f32, v: f32) -> usize {
    let x = ((u * width as f32) as u32).min(width - 1);
    let y = ((v * height as f32) as u32).min(height - 1);
    (y * width + x) as usize
}

#[test]
fn dejavu_glyph_table_follows_the_charset() {
    let (font, _) = dejavu_sdf();
    let source = read(DEJAVU);
    let face = Face::parse(&source, 0).unwrap();
    let mapped = Charset::default()
        .chars()
        .filter(|&c| face.glyph_index(c).is_some_and(|id| id.0 != 0))
        .count();
    assert_eq!(mapped, 191, "DejaVu Sans covers ASCII and Latin-1");
    assert_eq!(font.glyphs.len(), mapped + 1);
    assert_eq!(font.glyphs[0].codepoint, 0);
    assert!(
        font.glyphs
            .windows(2)
            .all(|w| w[0].codepoint < w[1].codepoint)
    );
    assert_eq!(font.atlas_tex, asset_hash("ui/dejavu.font"));
    assert_eq!(font.flags, 0);
}

#[test]
fn dejavu_metrics_are_in_em() {
    let (font, _) = dejavu_sdf();
    // hhea of DejaVu Sans: ascender 1901, descender -483, lineGap 0, at 2048/em.
    assert_eq!(font.ascent, 1901.0 / 2048.0);
    assert_eq!(font.descent, -483.0 / 2048.0);
    assert_eq!(font.line_gap, 0.0);
    assert_eq!((font.distance_range, font.edge_value), (12.0, 0.5));
    let source = read(DEJAVU);
    let face = Face::parse(&source, 0).unwrap();
    assert_eq!(face.units_per_em(), 2048);
    let a_id = face.glyph_index('A').unwrap();
    let a = glyph(font, 'A');
    assert_eq!(
        a.advance,
        f32::from(face.glyph_hor_advance(a_id).unwrap()) / 2048.0
    );
    assert_eq!(a.advance, 1401.0 / 2048.0);
    // The quad is the outline's box grown by the spread (6 texels at 48/em).
    let bbox = face.glyph_bounding_box(a_id).unwrap();
    let spread_em = 6.0 / 48.0;
    let near = |plane: f32, units: i16, grow: f32| {
        let expected = f32::from(units) / 2048.0 + grow;
        (plane - expected).abs() <= 1.0 / 48.0
    };
    assert!(near(a.plane_left, bbox.x_min, -spread_em), "{a:?}");
    assert!(near(a.plane_right, bbox.x_max, spread_em), "{a:?}");
    assert!(near(a.plane_bottom, bbox.y_min, -spread_em), "{a:?}");
    assert!(near(a.plane_top, bbox.y_max, spread_em), "{a:?}");
}

#[test]
fn whitespace_has_only_an_advance() {
    let (font, _) = dejavu_sdf();
    for c in [' ', '\u{a0}'] {
        let space = glyph(font, c);
        assert_eq!(space.advance, 651.0 / 2048.0);
        assert!(space.is_blank());
        let rects = [
            space.plane_left,
            space.plane_bottom,
            space.plane_right,
            space.plane_top,
            space.uv_left,
            space.uv_top,
            space.uv_right,
            space.uv_bottom,
        ];
        assert_eq!(rects, [0.0; 8]);
    }
    assert!(!font.glyphs[0].is_blank(), ".notdef of DejaVu is a box");
}

#[test]
fn dejavu_kerning_matches_the_font() {
    let (font, _) = dejavu_sdf();
    let kern = |l: char, r: char| {
        font.kerning
            .iter()
            .find(|p| (p.left, p.right) == (u32::from(l), u32::from(r)))
            .map(|p| p.advance)
    };
    // Values from its kern table and its GPOS (which agree for this font).
    assert_eq!(kern('A', 'V'), Some(-131.0 / 2048.0));
    assert_eq!(kern('T', 'o'), Some(-348.0 / 2048.0));
    assert_eq!(kern('L', 'T'), Some(-282.0 / 2048.0));
    assert_eq!(kern('A', 'A'), Some(57.0 / 2048.0));
    assert_eq!(kern('o', 'o'), None);
    // fontTools counts 1087 non-zero pairs inside the default charset.
    assert_eq!(font.kerning.len(), 1087);
    assert!(
        font.kerning
            .iter()
            .all(|p| p.advance != 0.0 && p.left != 0 && p.right != 0)
    );
    assert!(
        font.kerning
            .windows(2)
            .all(|w| (w[0].left, w[0].right) < (w[1].left, w[1].right))
    );
}

#[test]
fn gpos_formats_and_the_legacy_table_merge_with_gpos_first() {
    let (font, _) = compile_file(KERNING_TEST, &options(FontMode::Sdf));
    let pairs: Vec<(char, char, f32)> = font
        .kerning
        .iter()
        .map(|p| {
            let c = |v| char::from_u32(v).unwrap();
            (c(p.left), c(p.right), p.advance * 1000.0)
        })
        .collect();
    // A V: GPOS format 1 (-120) beats kern (-50). T o: the format 1 subtable
    // applies before the class subtable (-90). T A: format 2 only. V A: the
    // kern table only.
    assert_eq!(
        pairs,
        [
            ('A', 'V', -120.0),
            ('T', 'A', -90.0),
            ('T', 'o', -200.0),
            ('V', 'A', -70.0)
        ]
    );
    assert_eq!(font.glyphs.len(), 6);
    assert_eq!(font.line_gap, 0.09);
}

#[test]
fn the_sdf_atlas_holds_distances() {
    let (font, atlas) = dejavu_sdf();
    let (format, width, height, texels) = atlas_level0(atlas);
    assert_eq!(format, Some(::ktx2::Format::R8_UNORM));
    assert_eq!(
        (width, height),
        (u32::from(font.atlas_width), u32::from(font.atlas_height))
    );
    assert_eq!(texels.len(), (width * height) as usize);
    let bar = glyph(font, 'l');
    let centre = texel_at(
        width,
        height,
        (bar.uv_left + bar.uv_right) / 2.0,
        (bar.uv_top + bar.uv_bottom) / 2.0,
    );
    // Inside the stem, well above the edge value (0.5).
    assert!(texels[centre] > 160, "{}", texels[centre]);
    // A cell corner is at least `spread` texels from the outline: about 0.
    let corner = texel_at(width, height, bar.uv_left, bar.uv_top);
    assert!(texels[corner] < 20, "{}", texels[corner]);
    // The gap at the atlas's top-left texel is empty.
    assert_eq!(texels[0], 0);
    // Along the middle row of 'l', values rise to the stem and fall again.
    let row: Vec<u8> = (0..48)
        .map(|i| {
            let u = bar.uv_left + (bar.uv_right - bar.uv_left) * (i as f32 + 0.5) / 48.0;
            texels[texel_at(width, height, u, (bar.uv_top + bar.uv_bottom) / 2.0)]
        })
        .collect();
    let peak = row
        .iter()
        .position(|&v| v == *row.iter().max().unwrap())
        .unwrap();
    assert!(row[..=peak].windows(2).all(|w| w[0] <= w[1]), "{row:?}");
    assert!(row[peak..].windows(2).all(|w| w[0] >= w[1]), "{row:?}");
}

#[test]
fn msdf_mode_sets_the_flag_and_writes_rgba() {
    let (font, atlas) = compile_file(DEJAVU, &options(FontMode::Msdf));
    assert_eq!(font.flags, FLAG_MSDF);
    let (format, width, height, texels) = atlas_level0(&atlas);
    assert_eq!(format, Some(::ktx2::Format::R8G8B8A8_UNORM));
    assert_eq!(texels.len(), (width * height * 4) as usize);
    let bar = glyph(&font, 'l');
    let centre = 4 * texel_at(
        width,
        height,
        (bar.uv_left + bar.uv_right) / 2.0,
        (bar.uv_top + bar.uv_bottom) / 2.0,
    );
    let mut rgb = [texels[centre], texels[centre + 1], texels[centre + 2]];
    rgb.sort_unstable();
    assert!(rgb[1] > 140, "median {rgb:?}");
    assert!(texels[centre + 3] > 160, "alpha {}", texels[centre + 3]);
}

#[test]
fn compiling_is_deterministic_at_one_two_and_four_threads() {
    use crate::jobserver::budget::with_threads;
    for mode in [FontMode::Sdf, FontMode::Msdf] {
        let source = read(DEJAVU);
        // The threads split the glyphs: 95 of them at 32 px give every thread
        // many, for about a fifth of the default set's work.
        let options = FontOptions {
            charset: "0x20-0x7e".parse().unwrap(),
            px_per_em: 32,
            ..options(mode)
        };
        let first = with_threads(1, || compile_font(&source, &options, 7).unwrap());
        for threads in [1, 2, 4] {
            let again = with_threads(threads, || compile_font(&source, &options, 7).unwrap());
            assert!(first == again, "{mode:?} at {threads} threads");
        }
    }
}

#[test]
fn settings_change_the_atlas() {
    let small = FontOptions {
        px_per_em: 24,
        spread: 3,
        charset: "0x41-0x5a".parse().unwrap(),
        ..options(FontMode::Sdf)
    };
    let (font, _) = compile_file(DEJAVU, &small);
    assert_eq!(font.glyphs.len(), 27);
    assert_eq!(font.distance_range, 6.0);
    let (big, _) = dejavu_sdf();
    assert!(
        font.atlas_width as u32 * font.atlas_height as u32 * 4
            < big.atlas_width as u32 * big.atlas_height as u32
    );
}

#[test]
fn bad_sources_are_errors() {
    let dejavu = read(DEJAVU);
    for (name, bytes) in [
        ("empty", Vec::new()),
        (
            "text",
            b"this is not a font at all, just some text".to_vec(),
        ),
        ("header only", dejavu[..12].to_vec()),
        ("table directory only", dejavu[..400].to_vec()),
    ] {
        let error = compile_font(&bytes, &options(FontMode::Sdf), 0).unwrap_err();
        assert!(matches!(error, FontError::Parse(_)), "{name}: {error}");
        assert!(
            error
                .to_string()
                .contains("not a TrueType or OpenType font")
        );
    }
}

#[test]
fn a_truncated_font_is_an_error_naming_the_cut_table() {
    let dejavu = read(DEJAVU);
    for fraction in [0.3, 0.6, 0.99] {
        let cut = &dejavu[..(dejavu.len() as f64 * fraction) as usize];
        let error = compile_font(cut, &options(FontMode::Sdf), 0).unwrap_err();
        assert!(
            matches!(error, FontError::Structure(_) | FontError::Parse(_)),
            "{error}"
        );
        if let FontError::Structure(_) = error {
            assert!(
                error.to_string().contains("the file is truncated"),
                "{error}"
            );
        }
    }
}

#[test]
fn a_charset_the_font_lacks_entirely_is_an_error() {
    let cjk = FontOptions {
        charset: "0x4e00-0x4eff".parse().unwrap(),
        ..options(FontMode::Sdf)
    };
    let error = compile_font(&read(DEJAVU), &cjk, 0).unwrap_err();
    assert!(matches!(error, FontError::NoGlyphs { .. }), "{error}");
    assert!(error.to_string().contains("0x4e00-0x4eff"), "{error}");
}

#[test]
fn damaged_fonts_never_panic() {
    let dejavu = read(DEJAVU);
    // Truncations and byte flips across the table directory and the glyph
    // data: each must compile or fail with an error, never crash.
    let mut cases: Vec<Vec<u8>> = [0.1, 0.3, 0.5, 0.9, 0.99]
        .iter()
        .map(|f| dejavu[..(dejavu.len() as f64 * f) as usize].to_vec())
        .collect();
    for seed in 0..24u32 {
        let mut bytes = dejavu.clone();
        let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        for _ in 0..64 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let at = state as usize % bytes.len();
            bytes[at] = bytes[at].wrapping_add((state >> 24) as u8 | 1);
        }
        cases.push(bytes);
    }
    let narrow = FontOptions {
        charset: "0x41-0x5a".parse().unwrap(),
        ..options(FontMode::Sdf)
    };
    for bytes in &cases {
        match compile_font(bytes, &narrow, 0) {
            Ok(font) => assert!(read_hfont(&font.hfont).is_ok()),
            Err(error) => assert!(!matches!(error, FontError::Crashed), "{error}"),
        }
    }
}

/// A generated font mapping space, the digits and the Thai block's letters.
fn thai_font() -> Vec<u8> {
    let mut codepoints = vec![0x20];
    codepoints.extend(0x30..=0x39);
    codepoints.extend(0x0E01..=0x0E3A);
    codepoints.extend(0x0E3F..=0x0E5B);
    super::test_font::font_with(&codepoints)
}

/// A generated font mapping only Hiragana.
fn hiragana_font() -> Vec<u8> {
    let codepoints: Vec<u32> = (0x3041..=0x3096).collect();
    super::test_font::font_with(&codepoints)
}

fn small(charset: &str) -> FontOptions {
    FontOptions {
        charset: charset.parse().unwrap(),
        px_per_em: 16,
        spread: 2,
        ..options(FontMode::Sdf)
    }
}

#[test]
fn a_script_font_under_the_latin_charset_builds_with_a_warning() {
    let compiled = compile_font(&thai_font(), &small("0x20-0x7e,0xa0-0xff"), 0).unwrap();
    assert_eq!(read_hfont(&compiled.hfont).unwrap().glyphs.len(), 12);
    assert_eq!(compiled.warnings.len(), 1, "{:?}", compiled.warnings);
    let warning = &compiled.warnings[0];
    assert!(
        warning.contains("only 11 of the charset's 191 codepoints"),
        "{warning}"
    );
    assert!(
        warning.contains("Thai (U+0E00-U+0E7F, 87 codepoints)"),
        "{warning}"
    );
    assert!(
        warning.contains("[\"0x20-0x7e\", \"0x0e00-0x0e7f\"]"),
        "{warning}"
    );
    let thai = compile_font(&thai_font(), &small("0x20-0x7e,0x0e00-0x0e7f"), 0).unwrap();
    assert_eq!(read_hfont(&thai.hfont).unwrap().glyphs.len(), 99);
    assert!(thai.warnings.is_empty(), "{:?}", thai.warnings);
}

#[test]
fn a_font_without_the_charset_fails_naming_what_it_covers() {
    let error = compile_font(&hiragana_font(), &small("0x20-0x7e,0xa0-0xff"), 0).unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with(
            "the font has none of the charset's codepoints (0x20-0x7e,0xa0-0xff); the font \
             covers Hiragana (U+3040-U+309F, 86 codepoints); set `font: charset:`"
        ),
        "{text}"
    );
    assert!(text.contains("`charset: [\"0x3040-0x309f\"]`"), "{text}");
}

#[test]
fn charset_font_takes_the_fonts_own_coverage() {
    let compiled = compile_font(&hiragana_font(), &small("font"), 0).unwrap();
    let font = read_hfont(&compiled.hfont).unwrap();
    let codepoints: Vec<u32> = font.glyphs.iter().map(|g| g.codepoint).collect();
    let expected: Vec<u32> = std::iter::once(0).chain(0x3041..=0x3096).collect();
    assert_eq!(codepoints, expected);
    assert!(compiled.warnings.is_empty(), "{:?}", compiled.warnings);
}

#[test]
fn coverage_of_a_cmap_of_thousands_of_whole_unicode_groups_is_bounded() {
    // 20,000 groups each spanning all of Unicode: walking them would take
    // 2 * 10^10 steps; the coverage looks each BMP codepoint up once.
    let groups = vec![(0, 0x10_FFFF, 1); 20_000];
    let bytes = super::test_font::font_with_groups(&groups, 2);
    let face = Face::parse(&bytes, 0).unwrap();
    let covered = coverage::bmp_coverage(&face);
    let scalars = (0x20..=0xFFFF).count() - (0x7F..=0x9F).count() - (0xD800..=0xDFFF).count();
    // U+FFFF would be glyph 1 + 0xFFFF, past the 16-bit glyph ids.
    assert_eq!(covered.len(), scalars - 1);
    assert_eq!(covered.last(), Some(&0xFFFE));
}
