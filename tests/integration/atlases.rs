//! Sprite atlases through the real pipeline: `*.atlas/` folders and
//! `atlas: NAME` rules, the pages checked texel by texel against the table
//! (trim, padding, extrusion), determinism, what an edit rebuilds, and
//! hostile folders.

use std::collections::BTreeMap;

use assetc::format::hash::asset_hash;
use assetc::format::hatlas::{AtlasTable, SpriteEntry, read_hatlas};
use assetc::format::ktx2;

use crate::common::{self, Project};

/// Pages kept exact (raw RGBA8, one level) so texels can be compared.
const EXACT: &str =
    "input: assets\noutput: runtime\ndefault:\n  texture: { format: rgba8, mips: false }\n";

/// A PNG of `width` x `height` whose texels inside `inner` (x, y, w, h)
/// are opaque and vary with position and `seed`, and transparent outside.
fn sprite_png(width: u32, height: u32, inner: [u32; 4], seed: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer
        .write_image_data(&sprite_texels(width, height, inner, seed))
        .unwrap();
    writer.finish().unwrap();
    out
}

/// The texels [`sprite_png`] encodes.
fn sprite_texels(width: u32, height: u32, inner: [u32; 4], seed: u8) -> Vec<u8> {
    let [ix, iy, iw, ih] = inner;
    let mut pixels = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let inside = (ix..ix + iw).contains(&x) && (iy..iy + ih).contains(&y);
            pixels.extend(if inside {
                [
                    (x as u8).wrapping_mul(20).wrapping_add(seed),
                    (y as u8).wrapping_mul(30),
                    seed,
                    255,
                ]
            } else {
                [0; 4]
            });
        }
    }
    pixels
}

/// The table and the raw pages of the atlas `rel` (without extension)
/// under `runtime/`.
fn read_atlas(p: &Project, rel: &str) -> (AtlasTable, Vec<Vec<u8>>) {
    let table =
        read_hatlas(&std::fs::read(p.path(&format!("runtime/{rel}.hatlas"))).unwrap()).unwrap();
    let bytes = std::fs::read(p.path(&format!("runtime/{rel}.atlas.ktx2"))).unwrap();
    let view = ktx2::parse(&bytes).unwrap();
    let header = view.header();
    assert_eq!(
        (header.pixel_width, header.pixel_height),
        (table.page_width, table.page_height)
    );
    assert_eq!(
        header.layer_count, table.page_count,
        "one array layer per page"
    );
    let texels = zstd::decode_all(view.level_data(0)).unwrap();
    let page_bytes = (table.page_width * table.page_height * 4) as usize;
    let pages = texels.chunks(page_bytes).map(<[u8]>::to_vec).collect();
    assert_eq!(table.atlas_tex, asset_hash(&format!("{rel}.atlas")));
    (table, pages)
}

/// The texel at `(x, y)` of a `width`-wide RGBA8 image.
fn texel(pixels: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let at = ((y * width + x) * 4) as usize;
    pixels[at..at + 4].try_into().unwrap()
}

/// Checks one sprite against its source texels: the content (turned back
/// if stored turned) at its rect, and the extrusion ring around it.
fn check_sprite(
    table: &AtlasTable,
    pages: &[Vec<u8>],
    sprite: &SpriteEntry,
    source: &[u8],
    extrude: u32,
) {
    let page = &pages[sprite.page as usize];
    let width = table.page_width;
    let [x, y, w, h] = sprite.rect;
    let [source_w, _] = sprite.source_size;
    let [tx, ty] = sprite.trim;
    let e = extrude as i64;
    for dy in -e..i64::from(h) + e {
        for dx in -e..i64::from(w) + e {
            let sx = dx.clamp(0, i64::from(w) - 1) as u32;
            let sy = dy.clamp(0, i64::from(h) - 1) as u32;
            // Stored turned clockwise, the content is `h` wide and `w` tall.
            let (ux, uy) = if sprite.rotated {
                (sy, w - 1 - sx)
            } else {
                (sx, sy)
            };
            let expected = texel(source, source_w, tx + ux, ty + uy);
            let (px, py) = ((i64::from(x) + dx) as u32, (i64::from(y) + dy) as u32);
            assert_eq!(
                texel(page, width, px, py),
                expected,
                "{} at {dx},{dy}",
                sprite.name
            );
        }
    }
}

/// Checks that the texels outside every sprite's extruded rect are
/// transparent and that sprites on one page keep `padding` apart.
fn check_gaps(table: &AtlasTable, pages: &[Vec<u8>], extrude: u32, padding: u32) {
    let extent = |s: &SpriteEntry| {
        let [x, y, w, h] = s.rect;
        (x - extrude, y - extrude, x + w + extrude, y + h + extrude)
    };
    for (index, page) in pages.iter().enumerate() {
        let on_page: Vec<&SpriteEntry> = table
            .sprites
            .iter()
            .filter(|s| s.page == index as u32 && s.rect[2] > 0)
            .collect();
        for y in 0..table.page_height {
            for x in 0..table.page_width {
                let covered = on_page.iter().any(|s| {
                    let (x0, y0, x1, y1) = extent(s);
                    (x0..x1).contains(&x) && (y0..y1).contains(&y)
                });
                if !covered {
                    assert_eq!(
                        texel(page, table.page_width, x, y),
                        [0; 4],
                        "page {index} at {x},{y}"
                    );
                }
            }
        }
        for (i, a) in on_page.iter().enumerate() {
            for b in &on_page[i + 1..] {
                let (ax0, ay0, ax1, ay1) = extent(a);
                let (bx0, by0, bx1, by1) = extent(b);
                let apart = bx0 >= ax1 + padding
                    || ax0 >= bx1 + padding
                    || by0 >= ay1 + padding
                    || ay0 >= by1 + padding;
                assert!(apart, "{} and {} are closer than {padding}", a.name, b.name);
            }
        }
    }
}

#[test]
fn a_folder_atlas_is_trimmed_padded_and_extruded_as_its_table_says() {
    let p = Project::new(&format!(
        "{EXACT}  atlas: {{ padding: 3, extrude: 2, rotate: true }}\n"
    ));
    let sprites: [(&str, u32, u32, [u32; 4]); 4] = [
        ("hero.png", 10, 12, [2, 3, 4, 5]),
        ("sub/coin.png", 6, 6, [0, 0, 6, 6]),
        ("long.png", 3, 9, [0, 1, 3, 7]),
        ("Empty.png", 5, 5, [0, 0, 0, 0]),
    ];
    for (seed, (name, w, h, inner)) in sprites.iter().enumerate() {
        p.write(
            &format!("assets/ui/icons.atlas/{name}"),
            &sprite_png(*w, *h, *inner, seed as u8),
        );
    }
    let run = p.build(&[]);
    assert!(
        run.edges()
            .contains(&"ATLAS assets/ui/icons.atlas".to_string()),
        "{}",
        run.stdout
    );
    let (table, pages) = read_atlas(&p, "ui/icons");
    assert_eq!(table.page_width % 4, 0);
    assert_eq!(table.page_height % 4, 0);
    let names: Vec<&str> = table.sprites.iter().map(|s| s.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| asset_hash(n));
    assert_eq!(names, sorted, "rows by name hash");
    for (seed, (name, w, h, inner)) in sprites.iter().enumerate() {
        let stem = name.trim_end_matches(".png");
        let sprite = table.sprites.iter().find(|s| s.name == stem).unwrap();
        assert_eq!(sprite.source_size, [*w, *h], "{stem}");
        assert_eq!(sprite.pivot, [0.5, 0.5]);
        if inner[2] == 0 {
            assert_eq!(sprite.rect[2..], [0, 0], "a clear sprite keeps no texels");
            continue;
        }
        assert_eq!(sprite.trim, [inner[0], inner[1]], "{stem}");
        let stored = if sprite.rotated {
            [inner[3], inner[2]]
        } else {
            [inner[2], inner[3]]
        };
        assert_eq!(sprite.rect[2..], stored, "{stem}");
        check_sprite(
            &table,
            &pages,
            sprite,
            &sprite_texels(*w, *h, *inner, seed as u8),
            2,
        );
    }
    check_gaps(&table, &pages, 2, 3);
    let info = p.assetc(&["info", "--json"]).expect_ok("info");
    assert!(info.stdout.contains("\"efficiency\""), "{}", info.stdout);
    p.assert_no_op();

    // A table that no longer fits its pages is caught by the check.
    let mut stale = table.clone();
    stale.page_width += 4;
    let bytes = assetc::format::hatlas::write_hatlas(&stale).unwrap();
    p.write("runtime/ui/icons.hatlas", &bytes);
    let check = p.link(&["check", "--root", "runtime"]);
    assert!(!check.ok);
    let expected = format!(
        "ui/icons.hatlas: states {}x{} pages but ui/icons.atlas.ktx2 is {}x{}",
        stale.page_width, stale.page_height, table.page_width, table.page_height
    );
    assert!(check.stderr.contains(&expected), "{}", check.stderr);
}

#[test]
fn a_rule_sends_its_images_to_one_atlas_instead_of_textures() {
    let config = format!(
        "{EXACT}  rules:\n    - match: \"items/**\"\n      atlas: gear/items\n    - match: \"items/big/**\"\n      atlas: {{ pivot: [0.5, 1] }}\n"
    );
    let p = Project::new(&config);
    p.write("assets/items/sword.png", &sprite_png(8, 8, [1, 1, 6, 6], 1));
    p.write(
        "assets/items/big/shield.png",
        &sprite_png(5, 9, [0, 0, 5, 9], 2),
    );
    p.write("assets/plain.png", &common::rgba_png(4, 4, 3));
    let run = p.build(&[]);
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("ATLAS") || e.starts_with("TEXTURE"))
        .collect();
    edges.sort();
    assert_eq!(
        edges,
        [
            "ATLAS gear/items.atlas (atlas: rules)",
            "TEXTURE assets/plain.png"
        ]
    );
    let outputs: Vec<String> = p
        .tree("runtime")
        .into_keys()
        .filter(|k| !k.starts_with("assets."))
        .collect();
    assert_eq!(
        outputs,
        ["gear/items.atlas.ktx2", "gear/items.hatlas", "plain.ktx2"]
    );
    let (table, pages) = read_atlas(&p, "gear/items");
    let shield = table
        .sprites
        .iter()
        .find(|s| s.name == "items/big/shield")
        .unwrap();
    let sword = table
        .sprites
        .iter()
        .find(|s| s.name == "items/sword")
        .unwrap();
    // The settings of the atlas are those of its first sprite by path.
    assert_eq!(shield.pivot, [0.5, 1.0]);
    assert_eq!(sword.pivot, [0.5, 1.0]);
    check_sprite(
        &table,
        &pages,
        sword,
        &sprite_texels(8, 8, [1, 1, 6, 6], 1),
        1,
    );
    check_gaps(&table, &pages, 1, 2);
    p.assert_no_op();
}

/// `count` small sprites of varied sizes in `folder`.
fn many_sprites(p: &Project, folder: &str, count: u32) {
    for i in 0..count {
        let (w, h) = (3 + i % 7, 2 + i % 5);
        p.write(
            &format!("{folder}/s{i:03}.png"),
            &sprite_png(w, h, [0, 0, w, h], i as u8),
        );
    }
}

#[test]
fn one_sprite_edit_in_two_hundred_rebuilds_one_atlas_and_then_nothing() {
    let p = Project::new(EXACT);
    many_sprites(&p, "assets/big.atlas", 200);
    many_sprites(&p, "assets/other.atlas", 5);
    p.build(&[]);
    p.assert_no_op();
    let before = std::fs::read(p.path("runtime/other.atlas.ktx2")).unwrap();
    p.write(
        "assets/big.atlas/s117.png",
        &sprite_png(4, 4, [0, 0, 4, 4], 99),
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    let encodes: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| !e.starts_with("MANIFEST") && !e.starts_with("IDS"))
        .collect();
    assert_eq!(encodes, ["ATLAS assets/big.atlas"], "{}", run.stdout);
    assert_eq!(
        std::fs::read(p.path("runtime/other.atlas.ktx2")).unwrap(),
        before
    );
    let (table, _) = read_atlas(&p, "big");
    assert_eq!(table.sprites.len(), 200);
    let edited = table.sprites.iter().find(|s| s.name == "s117").unwrap();
    assert_eq!(edited.source_size, [4, 4]);
    p.assert_no_op();

    // A new sprite, in a new subfolder, re-runs configure, which rewrites the
    // atlas's list; the atlas rebuilds with it.
    p.write(
        "assets/big.atlas/extra/new.png",
        &sprite_png(3, 3, [0, 0, 3, 3], 7),
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    let edges = run.edges();
    assert!(
        edges.iter().any(|e| e.starts_with("CONFIGURE")),
        "{}",
        run.stdout
    );
    assert!(
        edges.contains(&"ATLAS assets/big.atlas".to_string()),
        "{}",
        run.stdout
    );
    assert!(
        !edges.contains(&"ATLAS assets/other.atlas".to_string()),
        "{}",
        run.stdout
    );
    let (table, _) = read_atlas(&p, "big");
    assert!(table.sprites.iter().any(|s| s.name == "extra/new"));
    p.assert_no_op();
}

#[test]
fn atlas_bytes_are_the_same_at_any_job_count_and_after_a_no_op() {
    let trees: Vec<BTreeMap<String, Vec<u8>>> = ["-j1", "-j2"]
        .iter()
        .map(|jobs| {
            let p = Project::new("input: assets\noutput: runtime\ndefault:\n  texture: { quality: 0 }\n  atlas: { rotate: true }\n");
            many_sprites(&p, "assets/a.atlas", 40);
            many_sprites(&p, "assets/b.atlas", 12);
            p.assetc(&["configure"]).expect_ok("configure");
            p.ninja(&[jobs]).expect_ok("ninja");
            let built = p.tree("runtime");
            p.ninja(&[]).expect_ok("no-op ninja");
            assert_eq!(p.tree("runtime"), built, "a no-op changed bytes");
            built
        })
        .collect();
    assert_eq!(trees[0], trees[1]);
    assert!(trees[0].contains_key("a.hatlas"));
}

#[test]
fn hostile_atlases_fail_their_own_edge_naming_the_file_and_leave_nothing() {
    let p = Project::new(
        "input: assets\noutput: runtime\ndefault:\n  texture: { format: rgba8 }\n  atlas: { max_size: 64 }\n",
    );
    p.write(
        "assets/good.atlas/a.png",
        &sprite_png(4, 4, [0, 0, 4, 4], 1),
    );
    std::fs::create_dir_all(p.path("assets/empty.atlas")).unwrap();
    p.write("assets/notes.atlas/readme.txt", b"not a sprite");
    p.write(
        "assets/huge.atlas/wide.png",
        &sprite_png(70, 4, [0, 0, 70, 4], 1),
    );
    p.write(
        "assets/twice.atlas/a.png",
        &sprite_png(4, 4, [0, 0, 4, 4], 1),
    );
    p.write(
        "assets/twice.atlas/a.jpg",
        &sprite_png(4, 4, [0, 0, 4, 4], 1),
    );
    let mut corrupt = sprite_png(8, 8, [0, 0, 8, 8], 1);
    corrupt.truncate(corrupt.len() - 20);
    p.write("assets/corrupt.atlas/bad.png", &corrupt);
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    for expected in [
        "assetc-encode: error: assets/empty.atlas: holds no images",
        "assetc-encode: error: assets/notes.atlas/readme.txt: is not an image",
        "assetc-encode: error: assets/huge.atlas/wide.png: is 70x4",
        "assetc-encode: error: assets/twice.atlas/a.png: is sprite \"a\" again (assets/twice.atlas/a.jpg has that name)",
        "assetc-encode: error: assets/corrupt.atlas/bad.png: cannot decode image",
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{}", run.stdout);
    }
    let outputs: Vec<String> = p.tree("runtime").into_keys().collect();
    assert_eq!(
        outputs,
        ["good.atlas.ktx2", "good.hatlas"],
        "only the good atlas is written"
    );
}
