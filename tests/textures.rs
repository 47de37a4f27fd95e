//! Textures through the real pipeline: UASTC by default, settings on the edge,
//! cube maps and arrays from folders, and bad images that fail only their own
//! edge.

mod common;

use common::{Project, crc32, rgba_png};

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
