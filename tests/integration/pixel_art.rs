//! Pixel art and the quality floor through the real binaries and `ninja`:
//! a lossy encode that reads back below `texture.min_psnr` steps up to a
//! finer format, and `texture.pixel_art` keeps sprites raw, without mips
//! and with a nearest-filter hint.

use crate::common::{self, NATIVE_PRESETS as PRESETS, Project};
use assetc::format::ktx2;

/// A 16x16 sprite of 32 saturated colours scattered texel by texel, which
/// no 4x4 or 6x6 block keeps.
fn scattered(x: u32, y: u32) -> [u8; 4] {
    let i = (y * 16 + x).wrapping_mul(40_503) >> 7;
    let h = (i % 32).wrapping_mul(2_654_435_761);
    [(h >> 24) as u8, (h >> 16) as u8, (h >> 8) as u8, 255]
}

/// A smooth 64x64 picture, as a photograph is at this scale.
fn smooth(x: u32, y: u32) -> [u8; 4] {
    [
        (40 + x * 3) as u8,
        (30 + y * 3) as u8,
        (90 + x + y) as u8,
        255,
    ]
}

/// A 16x16 four-colour sprite of 2x2 cells on transparency.
fn checker(x: u32, y: u32) -> [u8; 4] {
    const PALETTE: [[u8; 4]; 4] = [
        [0, 0, 0, 0],
        [200, 40, 40, 255],
        [40, 200, 60, 255],
        [250, 230, 90, 255],
    ];
    PALETTE[((x / 2 + y / 2 * 3) % 4) as usize]
}

/// What one built texture says about itself.
struct Built {
    format: String,
    levels: usize,
    choice: Option<String>,
    nearest: bool,
}

fn built(p: &Project, rel: &str) -> Built {
    let bytes = std::fs::read(p.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let view = ktx2::parse(&bytes).unwrap();
    Built {
        format: view.texel_format().map_or("?", |f| f.name()).to_owned(),
        levels: view.levels().len(),
        choice: view.key_text(ktx2::CHOICE_KEY).map(str::to_owned),
        nearest: view.wants_nearest(),
    }
}

#[test]
fn the_floor_steps_up_on_a_pixel_art_sprite_and_not_on_a_photo() {
    // Detection off, so the floor alone decides.
    let p = Project::new(&PRESETS.replace("zstd_level: 3 }", "zstd_level: 3, pixel_art: false }"));
    p.write("assets/sprite.png", &common::png_of(16, 16, scattered));
    p.write("assets/photo.png", &common::png_of(64, 64, smooth));
    for (preset, lossy) in [("desktop", "bc7"), ("mobile", "astc-6x6")] {
        p.build(&["--preset", preset]);
        let sprite = built(&p, &format!("runtime/{preset}/sprite.ktx2"));
        let why = sprite.choice.unwrap_or_default();
        assert!(
            why.starts_with(&format!("{lossy} read back at")) && why.contains("40 dB floor"),
            "{preset}: {why}"
        );
        assert_ne!(sprite.format, lossy, "{preset}");
        assert!(!sprite.nearest);
        assert_eq!(sprite.levels, 5, "the floor keeps the mips");
        let photo = built(&p, &format!("runtime/{preset}/photo.ktx2"));
        assert_eq!((photo.format.as_str(), photo.choice), (lossy, None));
        // `assetc info` says what was chosen and why.
        let info = p
            .assetc(&["info", "-o", &format!("runtime/{preset}")])
            .expect_ok("info");
        assert!(
            info.stdout.contains("below the 40 dB floor"),
            "{}",
            info.stdout
        );
        p.link(&["check"]).expect_ok("check");
    }
    // The step-up is deterministic: a rebuild from scratch gives the bytes.
    let first = std::fs::read(p.path("runtime/mobile/sprite.ktx2")).unwrap();
    std::fs::remove_file(p.path("runtime/mobile/sprite.ktx2")).unwrap();
    p.ninja(&[]).expect_ok("rebuild");
    assert!(std::fs::read(p.path("runtime/mobile/sprite.ktx2")).unwrap() == first);
    // `min_psnr: off` in a rule keeps the lossy format.
    std::fs::write(
        p.path("assetc.yml"),
        PRESETS.replace(
            "zstd_level: 3 }",
            "zstd_level: 3, pixel_art: false }\n  rules:\n    - match: \"sprite.png\"\n      texture: { min_psnr: off }",
        ),
    )
    .unwrap();
    p.build(&["--preset", "desktop"]);
    let sprite = built(&p, "runtime/desktop/sprite.ktx2");
    assert_eq!((sprite.format.as_str(), sprite.choice), ("bc7", None));
}

#[test]
fn pixel_art_is_kept_raw_without_mips_and_asks_for_nearest() {
    let p = Project::new(PRESETS);
    p.write("assets/hero.png", &common::png_of(16, 16, checker));
    p.write("assets/pixel_art/sky.png", &common::png_of(64, 64, smooth));
    p.write("assets/photo.png", &common::png_of(64, 64, smooth));
    p.build(&["--preset", "mobile"]);
    for rel in ["hero", "pixel_art/sky"] {
        let sprite = built(&p, &format!("runtime/mobile/{rel}.ktx2"));
        assert_eq!(
            (sprite.format.as_str(), sprite.levels),
            ("rgba8", 1),
            "{rel}"
        );
        assert!(sprite.nearest, "{rel}");
        assert!(sprite.choice.unwrap().starts_with("pixel art ("), "{rel}");
    }
    let photo = built(&p, "runtime/mobile/photo.ktx2");
    assert!(!photo.nearest && photo.levels == 7 && photo.format == "astc-6x6");
    let info = p
        .assetc(&["info", "-o", "runtime/mobile"])
        .expect_ok("info");
    assert!(info.stdout.contains("nearest filter"), "{}", info.stdout);
    // `pixel_art: false` for one file: back to the platform's format.
    std::fs::write(
        p.path("assetc.yml"),
        format!("{PRESETS}  # edited\n").replace(
            "zstd_level: 3 }",
            "zstd_level: 3 }\n  rules:\n    - match: \"hero.png\"\n      texture: { pixel_art: false }",
        ),
    )
    .unwrap();
    let run = p.build(&["--preset", "mobile"]);
    let edges = run.edges();
    assert!(
        edges.iter().any(|e| e.contains("hero.png")) && !edges.iter().any(|e| e.contains("photo")),
        "only the hero's command changed: {edges:?}"
    );
    let hero = built(&p, "runtime/mobile/hero.ktx2");
    assert!(!hero.nearest && hero.levels == 5, "{}", hero.format);
}

#[test]
fn an_atlas_of_pixel_art_sprites_is_raw_and_its_table_says_nearest() {
    let p = Project::new(PRESETS);
    for (name, shift) in [("a", 0), ("b", 1), ("c", 2)] {
        let sprite = move |x: u32, y: u32| checker(x + shift, y);
        p.write(
            &format!("assets/hud.atlas/{name}.png"),
            &common::png_of(16, 16, sprite),
        );
    }
    p.write("assets/soft.atlas/a.png", &common::png_of(64, 64, smooth));
    p.build(&["--preset", "desktop"]);
    let flags = |rel: &str| {
        let bytes = std::fs::read(p.path(rel)).unwrap();
        assetc::format::hatlas::read_hatlas(&bytes).unwrap().flags
    };
    let hud = built(&p, "runtime/desktop/hud.atlas.ktx2");
    assert!(hud.nearest && hud.format == "rgba8" && hud.levels == 1);
    assert_eq!(
        flags("runtime/desktop/hud.hatlas") & assetc::format::hatlas::ATLAS_NEAREST,
        1
    );
    let soft = built(&p, "runtime/desktop/soft.atlas.ktx2");
    assert!(!soft.nearest);
    assert_eq!(
        flags("runtime/desktop/soft.hatlas") & assetc::format::hatlas::ATLAS_NEAREST,
        0
    );
}
