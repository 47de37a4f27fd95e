//! BMFont bitmap fonts through the real pipeline: the same small font in the
//! text, XML and binary encodings (the committed `tests/data/bmfont/`
//! fixture, our own) builds into three identical `.hfont` files and atlases,
//! its pages are not built as textures of their own, editing a page
//! rebuilds the fonts, and `assetc-link check` and `assetc info` take the
//! result (the inspector's font view is tested in `view.rs`).

use std::path::Path;

use crate::common::Project;
use assetc::format::hash::asset_hash;
use assetc::format::hfont::{FLAG_BITMAP, FontData, read_hfont};
use assetc::format::hman;
use assetc::format::kind::{AssetKind, ColorSpace};
use assetc::format::ktx2;

const CONFIG: &str = "input: assets\noutput: runtime\n";

/// The three encodings of the fixture font.
const ENCODINGS: [&str; 3] = ["pix-text", "pix-xml", "pix-binary"];

/// A committed fixture file.
fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bmfont")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A project holding the three encodings and their two pages in `ui/`
/// (the inspector's tests use it too).
pub fn project() -> Project {
    let p = Project::new(CONFIG);
    for name in ENCODINGS {
        p.write(
            &format!("assets/ui/{name}.fnt"),
            &fixture(&format!("{name}.fnt")),
        );
    }
    for page in ["pix_0.png", "pix_1.png"] {
        p.write(&format!("assets/ui/{page}"), &fixture(page));
    }
    p
}

fn bytes(p: &Project, rel: &str) -> Vec<u8> {
    std::fs::read(p.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn font(p: &Project, name: &str) -> FontData {
    read_hfont(&bytes(p, &format!("runtime/ui/{name}.hfont"))).unwrap()
}

/// The edges of a run that are not link steps, sorted.
fn encode_edges(run: &crate::common::Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| !e.starts_with("MANIFEST") && !e.starts_with("IDS"))
        .collect();
    edges.sort();
    edges
}

#[test]
fn one_font_in_three_encodings_builds_three_identical_fonts() {
    let p = project();
    let run = p.build(&[]);
    assert_eq!(
        encode_edges(&run),
        [
            "BITMAP-FONT assets/ui/pix-binary.fnt",
            "BITMAP-FONT assets/ui/pix-text.fnt",
            "BITMAP-FONT assets/ui/pix-xml.fnt",
        ],
        "the pages are not textures of their own"
    );
    let text = font(&p, "pix-text");
    for name in ENCODINGS {
        let mut this = font(&p, name);
        assert_eq!(this.atlas_tex, asset_hash(&format!("ui/{name}.font")));
        this.atlas_tex = text.atlas_tex;
        assert_eq!(this, text, "{name}");
        assert_eq!(
            bytes(&p, &format!("runtime/ui/{name}.font.ktx2")),
            bytes(&p, "runtime/ui/pix-text.font.ktx2"),
            "{name}"
        );
    }
    // What the text fixture says, read back in em (size -8: 8 texels per em).
    assert_eq!(text.flags, FLAG_BITMAP);
    assert_eq!((text.distance_range, text.edge_value), (0.0, 0.0));
    assert_eq!((text.ascent, text.descent), (1.0, -0.25));
    let codepoints: Vec<u32> = text.glyphs.iter().map(|g| g.codepoint).collect();
    assert_eq!(codepoints, [0, 32, 65, 86, 106]);
    let a = text.glyphs[2];
    assert_eq!(a.advance, 0.75);
    assert_eq!(
        [a.plane_left, a.plane_bottom, a.plane_right, a.plane_top],
        [0.0, 0.0, 0.625, 0.875]
    );
    let kerning: Vec<(u32, u32, f32)> = text
        .kerning
        .iter()
        .map(|k| (k.left, k.right, k.advance))
        .collect();
    assert_eq!(kerning, [(65, 86, -0.125), (86, 65, -0.25)]);
    let atlas = ktx2::parse(&bytes(&p, "runtime/ui/pix-text.font.ktx2"))
        .unwrap()
        .header()
        .to_owned();
    assert_eq!(atlas.vk_format, ktx2::VK_FORMAT_R8_UNORM);
    assert_eq!(atlas.level_count, 1);
    assert_eq!(
        (atlas.pixel_width, atlas.pixel_height),
        (u32::from(text.atlas_width), u32::from(text.atlas_height))
    );
    let manifest_bytes = bytes(&p, "runtime/assets.hman");
    let manifest = hman::parse(&manifest_bytes).unwrap();
    let entry = manifest.find(asset_hash("ui/pix-xml.font")).unwrap();
    assert_eq!(
        (entry.kind, entry.colorspace),
        (AssetKind::Texture, ColorSpace::Linear)
    );
    assert_eq!(
        manifest.find(asset_hash("ui/pix-xml.hfont")).unwrap().kind,
        AssetKind::Font
    );
    assert_eq!(manifest.len(), 6);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    let info = p.assetc(&["info", "-o", "runtime"]).expect_ok("info");
    for expected in [
        "5 glyphs, 2 kerning pairs, atlas 0x",
        " bitmap), line 1.250 em",
    ] {
        assert!(info.stdout.contains(expected), "{}", info.stdout);
    }
    p.assert_no_op();
}

#[test]
fn editing_a_page_rebuilds_the_fonts_that_use_it() {
    let p = project();
    p.build(&[]);
    let before = bytes(&p, "runtime/ui/pix-binary.font.ktx2");
    p.write("assets/ui/pix_1.png", &crate::common::rgba_png(16, 16, 9));
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        encode_edges(&run),
        [
            "BITMAP-FONT assets/ui/pix-binary.fnt",
            "BITMAP-FONT assets/ui/pix-text.fnt",
            "BITMAP-FONT assets/ui/pix-xml.fnt",
        ]
    );
    assert_ne!(bytes(&p, "runtime/ui/pix-binary.font.ktx2"), before);
    p.assert_no_op();
}
