//! Fonts through the real pipeline: `assetc configure` + `ninja` compile a
//! TrueType font into an `.hfont` and its atlas texture, the manifest lists
//! both, `assetc-link check` and `assetc info` accept them, settings reach
//! the edge, and broken fonts fail only their own edge.
//!
//! The fonts are Debian's DejaVu Sans (`fonts-dejavu-core`, installed by
//! `tools/ensure-deps`) and the committed `tests/data/fonts/kerning-test.ttf`.

use crate::common;
use crate::common::Project;
use assetc::format::hash::asset_hash;
use assetc::format::hfont::{FLAG_MSDF, FontData, read_hfont};
use assetc::format::hman;
use assetc::format::kind::{AssetKind, ColorSpace};
use assetc::format::ktx2;

const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const CONFIG: &str = "input: assets\noutput: runtime\n";

fn dejavu() -> Vec<u8> {
    std::fs::read(DEJAVU).unwrap_or_else(|e| panic!("{DEJAVU}: {e} (run tools/ensure-deps)"))
}

fn font(p: &Project, rel: &str) -> FontData {
    read_hfont(&std::fs::read(p.path(rel)).unwrap()).unwrap()
}

fn ktx2_header(p: &Project, rel: &str) -> ktx2::Ktx2Header {
    *ktx2::parse(&std::fs::read(p.path(rel)).unwrap())
        .unwrap()
        .header()
}

/// The font edges Ninja ran, sorted.
fn font_edges(run: &common::Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("FONT "))
        .collect();
    edges.sort();
    edges
}

#[test]
fn a_font_builds_into_a_glyph_table_and_a_listed_atlas() {
    let p = Project::new(CONFIG);
    p.write("assets/ui/inter.ttf", &dejavu());
    let run = p.build(&[]);
    assert_eq!(font_edges(&run), ["FONT assets/ui/inter.ttf"]);
    let hfont = font(&p, "runtime/ui/inter.hfont");
    assert_eq!(hfont.atlas_tex, asset_hash("ui/inter.font"));
    assert_eq!(hfont.glyphs.len(), 192);
    assert_eq!(hfont.kerning.len(), 1087);
    let header = ktx2_header(&p, "runtime/ui/inter.font.ktx2");
    assert_eq!(header.vk_format, ktx2::VK_FORMAT_R8_UNORM);
    assert_eq!(header.supercompression_scheme, ktx2::SUPERCOMPRESSION_ZSTD);
    assert_eq!(
        (header.pixel_width, header.pixel_height),
        (u32::from(hfont.atlas_width), u32::from(hfont.atlas_height))
    );
    let manifest_bytes = std::fs::read(p.path("runtime/assets.hman")).unwrap();
    let manifest = hman::parse(&manifest_bytes).unwrap();
    let entry = |id| manifest.find(id).unwrap();
    let atlas = entry(asset_hash("ui/inter.font"));
    assert_eq!(
        (atlas.kind, atlas.colorspace),
        (AssetKind::Texture, ColorSpace::Linear)
    );
    assert_eq!(atlas.path, "ui/inter.font.ktx2");
    let glyphs = entry(asset_hash("ui/inter.hfont"));
    assert_eq!(glyphs.kind, AssetKind::Font);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    let info = p.assetc(&["info", "-o", "runtime"]).expect_ok("info");
    assert!(
        info.stdout
            .contains("192 glyphs, 1087 kerning pairs, atlas 0x"),
        "{}",
        info.stdout
    );
    assert!(
        info.stdout.contains("r8 (1x1 blocks, 8.00 bpp)"),
        "{}",
        info.stdout
    );
    p.assert_no_op();
}

#[test]
fn a_font_and_an_image_of_one_name_build_side_by_side() {
    let p = Project::new(CONFIG);
    p.write("assets/ui/inter.ttf", &dejavu());
    p.png("assets/ui/inter.png", 8, 8, 3);
    p.build(&[]);
    let outputs: Vec<String> = p.tree("runtime").into_keys().collect();
    assert_eq!(
        outputs,
        [
            "assets.h",
            "assets.hman",
            "assets.rs",
            "ui/inter.font.ktx2",
            "ui/inter.hfont",
            "ui/inter.ktx2"
        ]
    );
    let manifest_bytes = std::fs::read(p.path("runtime/assets.hman")).unwrap();
    assert_eq!(hman::parse(&manifest_bytes).unwrap().len(), 3);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
}

#[test]
fn two_fonts_writing_one_atlas_are_refused_at_configure() {
    let p = Project::new(CONFIG);
    p.write("assets/ui/inter.ttf", &dejavu());
    p.write("assets/ui/inter.otf", &dejavu());
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    assert!(run.stderr.contains("ui/inter.hfont"), "{}", run.stderr);
}

#[test]
fn settings_reach_the_edge_and_rebuild_only_fonts() {
    let p = Project::new(
        "input: assets\noutput: runtime\ndefault:\n  texture: { compress: false }\n  rules:\n    - match: \"ui/*\"\n      font: { mode: msdf, px_per_em: 32, charset: [\"0x41-0x5a\"] }\n",
    );
    p.write("assets/ui/title.ttf", &dejavu());
    p.write(
        "assets/body.ttf",
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fonts/kerning-test.ttf"
        ))
        .unwrap(),
    );
    p.png("assets/logo.png", 4, 4, 1);
    p.build(&[]);
    let title = font(&p, "runtime/ui/title.hfont");
    assert_eq!(title.flags, FLAG_MSDF);
    assert_eq!(title.glyphs.len(), 27);
    let atlas = ktx2_header(&p, "runtime/ui/title.font.ktx2");
    assert_eq!(atlas.vk_format, ktx2::VK_FORMAT_R8G8B8A8_UNORM);
    let body = font(&p, "runtime/body.hfont");
    assert_eq!((body.flags, body.kerning.len()), (0, 4));
    let ninja_file = std::fs::read_to_string(p.path("build.ninja")).unwrap();
    assert!(
        ninja_file.contains("--charset 0x41-0x5a --px-per-em 32 --spread 6 --mode msdf"),
        "{ninja_file}"
    );
    // A font setting rebuilds the fonts it resolves differently, nothing else.
    p.write(
        "assetc.yml",
        b"input: assets\noutput: runtime\ndefault:\n  texture: { compress: false }\n  rules:\n    - match: \"ui/*\"\n      font: { mode: msdf, px_per_em: 32, charset: [\"0x41-0x5a\"], spread: 4 }\n",
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(font_edges(&run), ["FONT assets/ui/title.ttf"]);
    assert!(!run.edges().iter().any(|e| e.starts_with("TEXTURE ")));
    assert_eq!(font(&p, "runtime/ui/title.hfont").distance_range, 8.0);
    // Touching a font rebuilds that font; its bytes do not change.
    let before = p.tree("runtime");
    p.touch("assets/body.ttf");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(font_edges(&run), ["FONT assets/body.ttf"]);
    assert_eq!(p.tree("runtime"), before);
    p.assert_no_op();
}

#[test]
fn builds_are_byte_identical() {
    let first = Project::new(CONFIG);
    let second = Project::new(CONFIG);
    for p in [&first, &second] {
        p.write("assets/f.ttf", &dejavu());
        p.build(&[]);
    }
    assert!(first.tree("runtime") == second.tree("runtime"));
}

#[test]
fn broken_fonts_fail_their_own_edges_and_leave_nothing() {
    let p = Project::new(CONFIG);
    let dejavu = dejavu();
    p.write("assets/good.ttf", &dejavu);
    p.write("assets/truncated.ttf", &dejavu[..dejavu.len() * 99 / 100]);
    p.write("assets/halved.ttf", &dejavu[..dejavu.len() / 2]);
    p.write("assets/notes.ttf", b"these are notes, not a font\n");
    p.write("assets/cjk/only.ttf", &dejavu);
    p.write(
        "assetc.yml",
        b"input: assets\noutput: runtime\ndefault:\n  rules:\n    - match: \"cjk/*\"\n      font: { charset: [\"0x4e00-0x4eff\"] }\n",
    );
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    for expected in [
        "assetc-encode: error: assets/truncated.ttf: cannot compile font",
        "the file is truncated",
        "assetc-encode: error: assets/halved.ttf: cannot compile font",
        "the head table is missing or malformed",
        "assetc-encode: error: assets/notes.ttf: cannot compile font",
        "not a TrueType or OpenType font",
        "assetc-encode: error: assets/cjk/only.ttf: cannot compile font",
        "none of the charset's codepoints (0x4e00-0x4eff)",
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("panicked"), "{}", run.stdout);
    let outputs: Vec<String> = p.tree("runtime").into_keys().collect();
    assert_eq!(outputs, ["good.font.ktx2", "good.hfont"]);
    // Fixing a font builds it and then the manifest.
    p.write("assets/notes.ttf", &dejavu);
    p.ninja(&["-k", "0"]);
    assert!(p.path("runtime/notes.hfont").exists());
}

// Charsets that miss what a font covers (issue 27, item 10).

use crate::test_font;

/// Small atlases keep these builds fast.
const SMALL: &str =
    "input: assets\noutput: runtime\ndefault:\n  font: { px_per_em: 16, spread: 2 }\n";

/// A generated font mapping space, the digits and the Thai letters.
fn thai_font() -> Vec<u8> {
    let mut codepoints = vec![0x20];
    codepoints.extend(0x30..=0x39);
    codepoints.extend(0x0E01..=0x0E3A);
    codepoints.extend(0x0E3F..=0x0E5B);
    test_font::font_with(&codepoints)
}

/// A generated font mapping only Hiragana.
fn kana_font() -> Vec<u8> {
    let codepoints: Vec<u32> = (0x3041..=0x3096).collect();
    test_font::font_with(&codepoints)
}

#[test]
fn a_thai_font_under_the_default_charset_builds_with_a_warning_that_says_what_to_set() {
    let p = Project::new(SMALL);
    p.write("assets/thai.ttf", &thai_font());
    let run = p.build(&[]);
    assert!(
        run.stdout.contains(
            "assetc-encode: warning: assets/thai.ttf: the font has only 11 of the charset's 191 \
             codepoints (0x20-0x7e,0xa0-0xff) but maps 87 others: it covers Thai \
             (U+0E00-U+0E7F, 87 codepoints), Basic Latin (U+0000-U+007F, 11 codepoints); set \
             `font: charset:` for it in assetc.yml (a rule matching this font), for example \
             `charset: [\"0x20-0x7e\", \"0x0e00-0x0e7f\"]`, or `charset: font`"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(font(&p, "runtime/thai.hfont").glyphs.len(), 12);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    // Following the advice rebuilds the font with its script, silently.
    let advised = format!(
        "{SMALL}  rules:\n    - match: \"thai.ttf\"\n      font: {{ charset: [\"0x20-0x7e\", \"0x0e00-0x0e7f\"] }}\n"
    );
    p.write("assetc.yml", advised.as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(font_edges(&run), ["FONT assets/thai.ttf"]);
    assert!(!run.stdout.contains("warning"), "{}", run.stdout);
    assert_eq!(font(&p, "runtime/thai.hfont").glyphs.len(), 99);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();
}

#[test]
fn a_kana_font_fails_naming_its_blocks_until_charset_font_takes_them() {
    let p = Project::new(SMALL);
    p.write("assets/kana.ttf", &kana_font());
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(!run.ok);
    assert!(
        run.stdout.contains(
            "assetc-encode: error: assets/kana.ttf: cannot compile font\n  caused by: the font \
             has none of the charset's codepoints (0x20-0x7e,0xa0-0xff); the font covers \
             Hiragana (U+3040-U+309F, 86 codepoints); set `font: charset:` for it in assetc.yml"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("`charset: [\"0x3040-0x309f\"]`"),
        "{}",
        run.stdout
    );
    assert!(!p.path("runtime/kana.hfont").exists());
    let whole =
        format!("{SMALL}  rules:\n    - match: \"*.ttf\"\n      font: {{ charset: font }}\n");
    p.write("assetc.yml", whole.as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(!run.stdout.contains("warning"), "{}", run.stdout);
    let glyphs = font(&p, "runtime/kana.hfont").glyphs;
    assert_eq!(glyphs.len(), 87);
    assert_eq!(glyphs[86].codepoint, 0x3096);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();
}
