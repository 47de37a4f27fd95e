//! Textures through the real pipeline: UASTC by default, settings on the edge,
//! cube maps and arrays from folders, and bad images that fail only their own
//! edge.

use crate::common;
use crate::common::{Project, crc32, rgba_png};

/// The header of a KTX2 file in the project, read with our own reader.
fn ktx2_header(p: &Project, rel: &str) -> assetc::format::ktx2::Ktx2Header {
    let bytes = std::fs::read(p.path(rel)).unwrap();
    *assetc::format::ktx2::parse(&bytes).unwrap().header()
}

/// The texture-like edges Ninja ran, sorted.
fn encode_edges(run: &common::Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| {
            ["TEXTURE ", "CUBEMAP ", "ARRAY "]
                .iter()
                .any(|k| e.starts_with(k))
        })
        .collect();
    edges.sort();
    edges
}

#[test]
fn uastc_is_the_default_and_decodes() {
    let p = Project::new("input: assets\noutput: runtime\n");
    p.png("assets/a.png", 12, 8, 1);
    p.build(&[]);
    let header = ktx2_header(&p, "runtime/a.ktx2");
    assert_eq!(header.vk_format, assetc::format::ktx2::VK_FORMAT_UNDEFINED);
    assert_eq!(header.level_count, 4);
    let bytes = std::fs::read(p.path("runtime/a.ktx2")).unwrap();
    let transcoder = basisu::Transcoder::new(&bytes).unwrap();
    let rgba = transcoder
        .transcode(0, basisu::TargetFormat::Rgba32, basisu::DecodeFlags::NONE)
        .unwrap();
    assert_eq!(rgba.len(), 12 * 8 * 4);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();
}

const TWO_KINDS: &str = r#"
input: assets
output: runtime
default:
  texture: { quality: 0 }
  rules:
    - match: "ui/**"
      texture: { compress: false }
"#;

#[test]
fn a_uastc_setting_rebuilds_only_the_uastc_textures() {
    let p = Project::new(TWO_KINDS);
    p.png("assets/ui/button.png", 8, 4, 1);
    p.png("assets/world/rock.png", 8, 8, 2);
    p.build(&[]);
    p.write(
        "assetc.yml",
        TWO_KINDS.replace("quality: 0", "quality: 1").as_bytes(),
    );
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["TEXTURE assets/world/rock.png"]);
    // A knob every texture reads rebuilds both.
    p.write(
        "assetc.yml",
        TWO_KINDS
            .replace("quality: 0", "quality: 1, max_size: 4")
            .as_bytes(),
    );
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        encode_edges(&run),
        [
            "TEXTURE assets/ui/button.png",
            "TEXTURE assets/world/rock.png"
        ]
    );
    let header = ktx2_header(&p, "runtime/ui/button.ktx2");
    assert_eq!((header.pixel_width, header.pixel_height), (4, 2));
    p.assert_no_op();
}

fn write_faces(p: &Project, folder: &str, size: u32) {
    for (seed, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        p.write(
            &format!("{folder}/{face}.png"),
            &rgba_png(size, size, seed as u8),
        );
    }
}

#[test]
fn cube_maps_and_arrays_build_and_track_their_files() {
    let p = Project::new("input: assets\noutput: runtime\ndefault:\n  texture: { quality: 0 }\n");
    write_faces(&p, "assets/sky.env", 8);
    p.write("assets/t.n.array/layer1.png", &rgba_png(4, 4, 1));
    p.write("assets/t.n.array/layer2.png", &rgba_png(4, 4, 2));
    let run = p.build(&[]);
    assert_eq!(
        encode_edges(&run),
        ["ARRAY assets/t.n.array", "CUBEMAP assets/sky.env"]
    );
    let cube = ktx2_header(&p, "runtime/sky.env.ktx2");
    assert_eq!(
        (cube.face_count, cube.layer_count, cube.pixel_width),
        (6, 0, 8)
    );
    let array = ktx2_header(&p, "runtime/t.n.arr.ktx2");
    assert_eq!((array.face_count, array.layer_count), (1, 2));
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();

    // Editing a face rebuilds the cube map alone.
    p.write("assets/sky.env/py.png", &rgba_png(8, 8, 9));
    p.touch("assets/sky.env/py.png");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["CUBEMAP assets/sky.env"]);

    // Adding a layer rebuilds the array with it.
    p.write("assets/t.n.array/layer10.png", &rgba_png(4, 4, 3));
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["ARRAY assets/t.n.array"]);
    assert_eq!(ktx2_header(&p, "runtime/t.n.arr.ktx2").layer_count, 3);
    p.assert_no_op();
}

/// A PNG whose header claims `width` x `height` (the data is not needed: the
/// size is refused first).
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut file = rgba_png(1, 1, 0);
    file[16..20].copy_from_slice(&width.to_be_bytes());
    file[20..24].copy_from_slice(&height.to_be_bytes());
    // Fix the IHDR CRC so only the size is wrong.
    let crc = crc32(&file[12..29]);
    file[29..33].copy_from_slice(&crc.to_be_bytes());
    file
}

#[test]
fn bad_images_fail_their_own_edges_and_the_rest_builds() {
    let p = Project::new("input: assets\noutput: runtime\ndefault:\n  texture: { quality: 0 }\n");
    p.png("assets/good.png", 4, 4, 1);
    let mut truncated = rgba_png(16, 16, 2);
    truncated.truncate(truncated.len() - 20);
    p.write("assets/truncated.png", &truncated);
    p.write("assets/zero.png", &png_claiming(0, 4));
    p.write("assets/huge.png", &png_claiming(20000, 4));
    write_faces(&p, "assets/holes.env", 4);
    std::fs::remove_file(p.path("assets/holes.env/nz.png")).unwrap();
    write_faces(&p, "assets/mixed.env", 4);
    p.write("assets/mixed.env/ny.png", &rgba_png(8, 8, 1));
    p.write("assets/mixed.array/a.png", &rgba_png(4, 4, 1));
    p.write("assets/mixed.array/b.png", &rgba_png(4, 2, 1));
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    for expected in [
        "assets/truncated.png: cannot encode texture",
        "assets/zero.png: cannot encode texture",
        "zero dimension (0x4)",
        "assets/huge.png: cannot encode texture",
        "20000x4; width and height may be at most 16384",
        "assets/holes.env: face nz is missing",
        "assets/mixed.env/ny.png: is 8x8 but px.png is 4x4",
        "assets/mixed.array/b.png: is 4x2 but a.png is 4x4",
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{}", run.stdout);
    }
    let outputs: Vec<String> = p.tree("runtime").into_keys().collect();
    assert_eq!(outputs, ["good.ktx2"], "only the good texture is written");
}

#[test]
fn luts_build_and_a_bad_one_names_its_line() {
    let p = Project::new("input: assets\noutput: runtime\n");
    let warm = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/warm.lut.cube"
    ))
    .unwrap();
    p.write("assets/grade/warm.lut.cube", &warm);
    p.write(
        "assets/grade/flat.lut.cube",
        b"TITLE \"1D\"\nLUT_1D_SIZE 2\n0 0 0\n1 1 1\n",
    );
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(
        run.stdout
            .contains("assets/grade/flat.lut.cube: cannot read 3D LUT"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("line 2: LUT_1D_SIZE"), "{}", run.stdout);
    let header = ktx2_header(&p, "runtime/grade/warm.lut.ktx2");
    assert_eq!(
        header.vk_format,
        assetc::format::ktx2::VK_FORMAT_R16G16B16A16_SFLOAT
    );
    assert_eq!((header.pixel_width, header.pixel_depth), (5, 5));
    assert!(!p.path("runtime/grade/flat.lut.ktx2").exists());

    std::fs::remove_file(p.path("assets/grade/flat.lut.cube")).unwrap();
    p.ninja(&[]).expect_ok("ninja");
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    // The Zstd level is on the LUT's edge.
    p.write(
        "assetc.yml",
        b"input: assets\noutput: runtime\ndefault:\n  texture: { zstd_level: 3 }\n",
    );
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(
        run.edges()
            .iter()
            .any(|e| e == "LUT assets/grade/warm.lut.cube"),
        "{:?}",
        run.edges()
    );
    p.assert_no_op();
}

// Data maps named the way painting tools name them (issue 27, item 2).

use crate::fixtures;

/// Raw, unsupercompressed textures, so level 0 is the texels themselves; a
/// rule makes every `ui/` image colour whatever its name.
const NAMED: &str = r#"
input: assets
output: runtime
default:
  texture: { compress: false, zstd_level: 0, mips: false }
  rules:
    - match: "ui/**"
      texture: { mode: color }
"#;

/// The format, swizzle and level 0 of a raw KTX2 in the project.
fn raw_texture(p: &Project, rel: &str) -> (u32, Option<Vec<u8>>, Vec<u8>) {
    let bytes = std::fs::read(p.path(rel)).unwrap();
    let view = assetc::format::ktx2::parse(&bytes).unwrap();
    let swizzle = view.key_value("KTXswizzle").map(<[u8]>::to_vec);
    (
        view.header().vk_format,
        swizzle,
        view.level_data(0).to_vec(),
    )
}

#[test]
fn data_map_names_select_linear_modes_and_a_directx_normal_map_is_flipped() {
    use assetc::format::ktx2::{
        VK_FORMAT_R8G8B8A8_SRGB as SRGB, VK_FORMAT_R8G8B8A8_UNORM as UNORM,
    };
    let p = Project::new(NAMED);
    for (index, name) in [
        "rock_albedo.png",
        "rock_Normal.png",
        "rock_NormalDX.png",
        "rock-ao.png",
        "rock_ORM.png",
        "rock.n.png",
        "ui/button_normal.png",
    ]
    .iter()
    .enumerate()
    {
        p.png(&format!("assets/{name}"), 4, 4, index as u8);
    }
    p.build(&[]);
    let source = |seed| common::pattern(4, 4, seed);
    let rg01 = Some(b"rg01\0".to_vec());
    let cases = [
        ("rock_albedo", SRGB, None, source(0)),
        ("rock_Normal", UNORM, rg01.clone(), source(1)),
        ("rock-ao", UNORM, Some(b"r001\0".to_vec()), source(3)),
        ("rock_ORM", UNORM, None, source(4)),
        ("rock.n", UNORM, rg01.clone(), source(5)),
        ("ui/button_normal", SRGB, None, source(6)),
    ];
    for (stem, format, swizzle, texels) in cases {
        let found = raw_texture(&p, &format!("runtime/{stem}.ktx2"));
        assert_eq!(found, (format, swizzle, texels), "{stem}");
    }
    let flipped: Vec<u8> = source(2)
        .chunks_exact(4)
        .flat_map(|t| [t[0], 255 - t[1], t[2], t[3]])
        .collect();
    let dx = raw_texture(&p, "runtime/rock_NormalDX.ktx2");
    assert_eq!(dx, (UNORM, rg01, flipped));
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();
}

#[test]
fn a_suffix_added_in_assetc_yml_rebuilds_only_the_textures_it_names() {
    let p = Project::new(NAMED);
    p.png("assets/rock_albedo.png", 4, 4, 1);
    p.png("assets/rock_spec.png", 4, 4, 2);
    p.png("assets/rock_normal.png", 4, 4, 3);
    p.build(&[]);
    let with_suffix = NAMED.replace("mips: false }", "mips: false, suffixes: { _spec: gray } }");
    p.write("assetc.yml", with_suffix.as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["TEXTURE assets/rock_spec.png"]);
    let (format, swizzle, _) = raw_texture(&p, "runtime/rock_spec.ktx2");
    assert_eq!(format, assetc::format::ktx2::VK_FORMAT_R8G8B8A8_UNORM);
    assert_eq!(swizzle.as_deref(), Some(&b"r001\0"[..]));
    // Turning the built-in table off turns `_normal` back into colour.
    let without = with_suffix.replace("_spec: gray }", "_spec: gray }, builtin_suffixes: false");
    p.write("assetc.yml", without.as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["TEXTURE assets/rock_normal.png"]);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();
}

/// Adds a scene of one triangle whose material shows `texture` as its
/// base colour.
fn base_colour_scene(b: &mut fixtures::GltfBuilder, texture: usize) {
    let material = b.add_material(&fixtures::Material {
        base_color_texture: Some(texture),
        ..fixtures::Material::default()
    });
    let mesh = fixtures::triangle_mesh(b, Some(material));
    let node = b.add_node(fixtures::Node::mesh(mesh));
    b.add_scene(&[node]);
}

#[test]
fn a_mesh_slot_that_disagrees_with_an_image_name_is_warned_and_wins() {
    let p = Project::new(NAMED);
    let mut b = fixtures::GltfBuilder::new();
    let image = b.add_image_uri("rock_normal.png");
    let texture = b.add_texture(Some(image));
    base_colour_scene(&mut b, texture);
    p.png("assets/m/rock_normal.png", 4, 4, 7);
    b.write_gltf(&p.path("assets/m"), "rock").unwrap();
    let configure = p.assetc(&["configure"]).expect_ok("configure");
    assert!(
        configure.stderr.contains(
            "m/rock.gltf: its material reads m/rock_normal.png as colour (base colour or \
             emissive), but its name's `_normal` makes it a normal map (linear data); the \
             material slot wins: it is encoded as sRGB colour for this mesh"
        ),
        "{}",
        configure.stderr
    );
    p.ninja(&[]).expect_ok("ninja");
    let (format, swizzle, texels) = raw_texture(&p, "runtime/m/rock/tex_0.ktx2");
    assert_eq!(format, assetc::format::ktx2::VK_FORMAT_R8G8B8A8_SRGB);
    assert_eq!((swizzle, texels), (None, common::pattern(4, 4, 7)));
    assert!(!p.path("runtime/m/rock_normal.ktx2").exists());
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
}

// Every source kind (issue 29, item 1).

use crate::image_sources as sources;

/// [`NAMED`]'s settings, with float sources under `packed/` written as
/// RGB9E5, those under `blocks/` as BC6H, and SVGs under `big/` drawn at 32
/// pixels; the panorama's cubes stay small (at the default 256 texels its
/// prefiltering takes two minutes in a debug build).
fn every_kind_config() -> String {
    format!(
        "{NAMED}    - match: \"packed/**\"\n      texture: {{ hdr_format: rgb9e5 }}\n    \
         - match: \"blocks/**\"\n      texture: {{ hdr_format: bc6h }}\n    \
         - match: \"big/**\"\n      texture: {{ svg_size: 32 }}\n    \
         - match: \"*.ibl.hdr\"\n      ibl: {{ size: 16 }}\n"
    )
}

const SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2">
<rect width="2" height="2" fill="#ff0000"/><rect x="2" width="2" height="2" fill="#00ff00"/>
</svg>"##;

/// Level 0 of a raw KTX2 read as half floats.
fn halves(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|pair| half::f16::from_le_bytes([pair[0], pair[1]]).to_f32())
        .collect()
}

#[test]
fn every_source_kind_builds_in_its_format_with_level_zero_intact() {
    use assetc::format::ktx2::{
        VK_FORMAT_E5B9G9R9_UFLOAT_PACK32 as RGB9E5, VK_FORMAT_R8G8B8A8_SRGB as SRGB,
        VK_FORMAT_R16_UNORM as R16, VK_FORMAT_R16G16_UNORM as RG16,
        VK_FORMAT_R16G16B16A16_SFLOAT as RGBA16F,
    };
    let p = Project::new(&every_kind_config());
    let pixels = common::pattern(8, 4, 3);
    p.write("assets/lossless.webp", &sources::webp(8, 4, &pixels));
    p.write(
        "assets/lossy.webp",
        include_bytes!("../data/textures/lossy.webp"),
    );
    p.write(
        "assets/flipped.TGA",
        &sources::bottom_left_tga(8, 4, &pixels),
    );
    p.write("assets/paint.bmp", &sources::bmp(8, 4, &pixels));
    let heights: Vec<u16> = (0..32).map(|i| i * 2047 + 5).collect();
    let height_bytes: Vec<u8> = heights.iter().flat_map(|h| h.to_ne_bytes()).collect();
    let l16 = image::ExtendedColorType::L16;
    p.write(
        "assets/cliff_h.tif",
        &sources::tiff(8, 4, &height_bytes, l16),
    );
    let normals: Vec<u16> = (0..128).map(|i| (i * 509 + 3) as u16).collect();
    p.write(
        "assets/bump_normal.png",
        &sources::png16(8, 4, png::ColorType::Rgba, &normals),
    );
    let floats: Vec<f32> = (0..128).map(|i| (i as f32 - 20.0) * 0.25).collect();
    p.write("assets/studio.exr", &sources::exr(8, 4, &floats));
    p.write("assets/packed/studio.exr", &sources::exr(8, 4, &floats));
    let sky: Vec<f32> = (0..96).map(|i| 0.5 + i as f32 / 8.0).collect();
    p.write("assets/sky.hdr", &sources::radiance(8, 4, &sky));
    p.write("assets/blocks/sky.hdr", &sources::radiance(8, 4, &sky));
    p.write("assets/panorama.ibl.hdr", &sources::radiance(8, 4, &sky));
    p.write("assets/logo.svg", SVG.as_bytes());
    p.write("assets/big/logo.svg", SVG.as_bytes());
    p.build(&[]);

    let texture = |stem: &str| raw_texture(&p, &format!("runtime/{stem}.ktx2"));
    for stem in ["lossless", "flipped", "paint"] {
        assert_eq!(texture(stem), (SRGB, None, pixels.clone()), "{stem}");
    }
    let (format, _, lossy) = texture("lossy");
    assert_eq!(format, SRGB);
    let worst = lossy
        .chunks_exact(4)
        .enumerate()
        .flat_map(|(i, t)| {
            let expected = [16 * (i % 16), 16 * (i / 16), 128, 255];
            t.iter()
                .zip(expected)
                .map(|(&got, want)| (i32::from(got) - want as i32).abs())
                .collect::<Vec<_>>()
        })
        .max();
    assert!(worst.unwrap() <= 24, "{worst:?}");

    let (format, swizzle, level) = texture("cliff_h");
    assert_eq!((format, swizzle), (R16, Some(b"r001\0".to_vec())));
    let stored: Vec<u16> = level
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(stored, heights);
    let (format, swizzle, level) = texture("bump_normal");
    assert_eq!((format, swizzle), (RG16, Some(b"rg01\0".to_vec())));
    let xy: Vec<u8> = normals
        .chunks_exact(4)
        .flat_map(|t| [t[0], t[1]])
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(level, xy);

    let (format, swizzle, level) = texture("studio");
    assert_eq!((format, swizzle), (RGBA16F, None));
    assert_eq!(halves(&level), floats);
    let (format, _, level) = texture("packed/studio");
    assert_eq!(format, RGB9E5);
    assert_eq!(level.len(), 8 * 4 * 4);
    let (format, _, level) = texture("sky");
    assert_eq!(format, RGBA16F);
    for (got, want) in halves(&level).chunks_exact(4).zip(sky.chunks_exact(3)) {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= w / 64.0, "{g} against {w}");
        }
        assert_eq!(got[3], 1.0);
    }
    let (format, _, level) = texture("blocks/sky");
    assert_eq!(format, assetc::format::texel::VK_FORMAT_BC6H_UFLOAT_BLOCK);
    assert_eq!(level.len(), 2 * 16, "two 4x4 blocks");
    for (block, texels) in level.chunks_exact(16).enumerate() {
        let mut rgb = [0f32; 4 * 4 * 3];
        bcdec_rs::bc6h_float(texels, &mut rgb, 4 * 3, false);
        for (i, got) in rgb.chunks_exact(3).enumerate() {
            let pixel = (i / 4) * 8 + block * 4 + i % 4;
            for (g, w) in got.iter().zip(&sky[pixel * 3..pixel * 3 + 3]) {
                // This 8x4 ramp spans a range of 25 in each block: at the
                // default quality BC6H stays within an eighth of the value.
                assert!((g - w).abs() <= w / 8.0, "BC6H {g} against {w}");
            }
        }
    }
    assert!(!p.path("runtime/panorama.ibl.ktx2").exists());
    assert!(!p.path("runtime/panorama.ibl.hdr").exists());

    let red_green: Vec<u8> = (0..8)
        .flat_map(|i| {
            if i % 4 < 2 {
                [255, 0, 0, 255]
            } else {
                [0, 255, 0, 255]
            }
        })
        .collect();
    assert_eq!(texture("logo"), (SRGB, None, red_green));
    let big = ktx2_header(&p, "runtime/big/logo.ktx2");
    assert_eq!((big.pixel_width, big.pixel_height), (32, 16));

    // Float textures are linear in the manifest, whatever their mode.
    use assetc::format::kind::ColorSpace;
    let manifest = std::fs::read(p.path("runtime/assets.hman")).unwrap();
    let manifest = assetc::format::hman::parse(&manifest).unwrap();
    let space = |path: &str| {
        manifest
            .iter()
            .find(|entry| entry.path == path)
            .map(|entry| entry.colorspace)
    };
    assert_eq!(space("studio.ktx2"), Some(ColorSpace::Linear));
    assert_eq!(space("sky.ktx2"), Some(ColorSpace::Linear));
    assert_eq!(space("logo.ktx2"), Some(ColorSpace::Srgb));
    p.assert_no_op();
}

#[test]
fn folders_take_every_kind_and_refuse_float_mixed_with_not() {
    let p = Project::new(&every_kind_config());
    let faces: Vec<f32> = (0..16).map(|i| i as f32 * 0.5).collect();
    for face in ["px", "nx", "py", "ny", "pz"] {
        p.write(
            &format!("assets/sky.env/{face}.exr"),
            &sources::exr(2, 2, &faces),
        );
    }
    p.write(
        "assets/sky.env/nz.hdr",
        &sources::radiance(2, 2, &[1.0; 12]),
    );
    let pixels = common::pattern(4, 4, 1);
    p.write("assets/mixed.array/0.bmp", &sources::bmp(4, 4, &pixels));
    p.write("assets/mixed.array/1.webp", &sources::webp(4, 4, &pixels));
    p.write(
        "assets/mixed.array/2.svg",
        SVG.replace("\"4\" height=\"2\"", "\"4\" height=\"4\"")
            .as_bytes(),
    );
    p.write("assets/bad.env/px.exr", &sources::exr(2, 2, &faces));
    for face in ["nx", "py", "ny", "pz", "nz"] {
        p.png(&format!("assets/bad.env/{face}.png"), 2, 2, 1);
    }
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("px.exr is a float (HDR) image and")
            && all.contains("the images of one folder asset must all be float or all not"),
        "{all}"
    );
    let cube = ktx2_header(&p, "runtime/sky.env.ktx2");
    assert_eq!(
        (cube.vk_format, cube.face_count),
        (assetc::format::ktx2::VK_FORMAT_R16G16B16A16_SFLOAT, 6)
    );
    let array = ktx2_header(&p, "runtime/mixed.arr.ktx2");
    assert_eq!((array.layer_count, array.pixel_width), (3, 4));
}

#[test]
fn a_gltf_webp_image_becomes_a_texture() {
    let p = Project::new(NAMED);
    let pixels = common::pattern(4, 4, 9);
    let mut b = fixtures::GltfBuilder::new();
    let webp = b.add_image_view(&sources::webp(4, 4, &pixels), "image/webp");
    let texture = b.add_extension_texture(None, "EXT_texture_webp", webp);
    base_colour_scene(&mut b, texture);
    b.require_extension("EXT_texture_webp");
    p.write("assets/m/crate.glb", &b.to_glb());
    p.build(&[]);
    let (format, swizzle, texels) = raw_texture(&p, "runtime/m/crate/tex_0.ktx2");
    assert_eq!(format, assetc::format::ktx2::VK_FORMAT_R8G8B8A8_SRGB);
    assert_eq!((swizzle, texels), (None, pixels));
}

#[test]
fn svg_size_and_hdr_format_rebuild_only_what_their_rules_match() {
    let config = |svg: u32, hdr: &str| {
        format!(
            "{NAMED}    - match: \"**/*.svg\"\n      texture: {{ svg_size: {svg} }}\n    \
             - match: \"**/*.exr\"\n      texture: {{ hdr_format: {hdr} }}\n"
        )
    };
    let p = Project::new(&config(8, "rgba16f"));
    p.write("assets/logo.svg", SVG.as_bytes());
    p.write("assets/sky.exr", &sources::exr(2, 2, &[0.5; 16]));
    p.png("assets/rock.png", 4, 4, 1);
    p.build(&[]);
    assert_eq!(ktx2_header(&p, "runtime/logo.ktx2").pixel_width, 8);
    p.write("assetc.yml", config(16, "rgba16f").as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["TEXTURE assets/logo.svg"]);
    assert_eq!(ktx2_header(&p, "runtime/logo.ktx2").pixel_width, 16);
    p.write("assetc.yml", config(16, "rgb9e5").as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(encode_edges(&run), ["TEXTURE assets/sky.exr"]);
    assert_eq!(
        ktx2_header(&p, "runtime/sky.ktx2").vk_format,
        assetc::format::ktx2::VK_FORMAT_E5B9G9R9_UFLOAT_PACK32
    );
    p.assert_no_op();
}

/// `hdr_format: auto` follows `texture.platform` for float sources: BC6H
/// on desktop, ASTC HDR 6x6 on mobile, each the platform's own HDR format,
/// and switching the preset rebuilds the texture in the other.
#[test]
fn float_sources_follow_the_platform_under_auto() {
    let p = Project::new(
        r#"
input: assets
output: runtime
default:
  texture: { zstd_level: 0, mips: false, hdr_format: auto, platform: desktop }
presets:
  phone:
    texture: { platform: mobile }
"#,
    );
    let sky: Vec<f32> = (0..96).map(|i| 0.5 + i as f32 / 8.0).collect();
    p.write("assets/sky.hdr", &sources::radiance(8, 4, &sky));
    p.build(&[]);
    let (format, _, level) = raw_texture(&p, "runtime/sky.ktx2");
    assert_eq!(format, assetc::format::texel::VK_FORMAT_BC6H_UFLOAT_BLOCK);
    assert_eq!(level.len(), 2 * 16);
    p.build(&["--preset", "phone"]);
    let (format, _, level) = raw_texture(&p, "runtime/sky.ktx2");
    let astc_hdr_6x6 = assetc::format::ktx2::TexelFormat::AstcHdr {
        block: assetc::format::ktx2::AstcBlock::B6x6,
    };
    assert_eq!(format, astc_hdr_6x6.vk_format());
    assert_eq!(level.len(), 2 * 16, "8x4 texels are 2x1 blocks of 6x6");
}
