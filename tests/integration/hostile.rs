//! Hostile inputs through the real pipeline: truncated and corrupt images,
//! decompression bombs, absurd declared sizes, broken glTF/GLB and OBJ
//! files, URIs that try to leave the assets folder, broken LUTs, fonts
//! (TrueType and BMFont) and sounds, broken IBL panoramas and cube folders,
//! incomplete folder assets and symbolic-link traps
//! (docs/limits.md).
//!
//! Each family of cases is one project holding every malformed source of the
//! family next to one good image. `assetc configure` and `ninja -k 0` run
//! under a memory and CPU cap ([`MEMORY_CAP_KIB`], [`CPU_CAP_SECONDS`]); the
//! build must fail, yet still produce the good image. Then every edge of
//! each malformed source is run again on its own, as Ninja ran it and under
//! the same caps, and must exit with status 1 (not a signal: no abort, no
//! out-of-memory kill, no CPU-limit kill), print the
//! `assetc-encode: error: assets/<source>` line with the case's own details,
//! print no panic, and leave no output or temporary file behind.

use crate::common;
use crate::image_sources;
mod sources;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{Project, ninja_program};
use serde_json::{Value, json};
use sources::{GRAY, RGBA};

/// Address-space cap of every process the tests start, in KiB (1 GiB).
/// The demo's largest encode stays far below it (docs/limits.md has the
/// figures), so a hostile source that gets near it is allocating for data
/// it does not have.
const MEMORY_CAP_KIB: u64 = 1024 * 1024;

/// CPU-time cap of every process the tests start, in seconds: a loop that
/// never ends is killed by `SIGXCPU` and fails its case instead of hanging
/// the suite.
const CPU_CAP_SECONDS: u64 = 120;

/// Raw, uncompressed textures keep the good image's edge fast.
const CONFIG: &str = "input: assets\noutput: runtime\ndefault:\n  texture: { compress: false }\n";

/// What the output of a failing run must never contain.
const CRASH_SIGNS: &[&str] = &[
    "panicked at",
    "memory allocation of",
    "has overflowed its stack",
    "Aborted",
    "core dumped",
    "Killed",
];

#[test]
fn the_caps_are_in_force() {
    // Without this the other tests could pass with no cap at all.
    let dir = tempfile::tempdir().unwrap();
    let limits = capped(dir.path(), "sh", &["-c", "ulimit -v; ulimit -t"]);
    let expected = format!("{MEMORY_CAP_KIB}\n{CPU_CAP_SECONDS}\n");
    assert_eq!(String::from_utf8_lossy(&limits.stdout), expected);
}

/// One malformed source and what its error must say.
struct Case {
    /// The source, relative to `assets/`.
    source: String,
    /// Files to write below `assets/`: the source and its companions.
    files: Vec<(String, Vec<u8>)>,
    /// Text the error must contain besides the source's own path.
    expect: Vec<String>,
}

impl Case {
    /// A case made of one file.
    fn file(source: &str, bytes: impl Into<Vec<u8>>, expect: &[&str]) -> Self {
        Self {
            source: source.to_owned(),
            files: vec![(source.to_owned(), bytes.into())],
            expect: expect.iter().map(|text| (*text).to_owned()).collect(),
        }
    }

    /// Adds a companion file (a `.bin`, a face of a folder asset…).
    fn with(mut self, rel: &str, bytes: impl Into<Vec<u8>>) -> Self {
        self.files.push((rel.to_owned(), bytes.into()));
        self
    }
}

/// Runs `program args…` in `dir` under the memory and CPU caps.
fn capped(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_CAP_KIB} && ulimit -t {CPU_CAP_SECONDS} && exec \"$0\" \"$@\""
        ))
        .arg(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// Runs a shell command line (as Ninja would) in `dir` under the caps.
fn capped_shell(dir: &Path, command: &str) -> Output {
    capped(dir, "sh", &["-c", command])
}

/// Standard output and error of `output`, together.
fn both_streams(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Fails when `text` shows a panic, an abort or a kill.
fn assert_no_crash(text: &str, what: &str) {
    for sign in CRASH_SIGNS {
        assert!(!text.contains(sign), "{what} shows {sign:?}:\n{text}");
    }
}

/// The Ninja command lines of the edges that compile `source`.
fn edge_commands(project: &Project, source: &str) -> Vec<String> {
    let listed = capped(project.root(), &ninja_program(), &["-t", "commands"]);
    assert!(listed.status.success(), "{}", both_streams(&listed));
    let plain = format!("--source {source} ");
    let quoted = format!("--source '{source}' ");
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter(|line| line.contains(&plain) || line.contains(&quoted))
        .map(str::to_owned)
        .collect()
}

/// The outputs below `runtime/` that come from `source` (same stem).
fn outputs_of(project: &Project, source: &str) -> Vec<String> {
    let stem = source.split('.').next().unwrap_or(source);
    project
        .tree("runtime")
        .into_keys()
        .filter(|output| output.split('.').next() == Some(stem) || output.starts_with(stem))
        .collect()
}

/// Builds a project of `cases` plus one good image and checks every case
/// (see the module notes).
fn check_family(cases: &[Case]) {
    check_family_with(cases, |_| {});
}

/// [`check_family`] with a hook that adds to the project (links, say) after
/// the case files are written and before configure runs.
fn check_family_with(cases: &[Case], prepare: impl FnOnce(&Project)) {
    let project = Project::new(CONFIG);
    project.png("assets/good.png", 8, 8, 1);
    for case in cases {
        for (rel, bytes) in &case.files {
            project.write(&format!("assets/{rel}"), bytes);
        }
    }
    prepare(&project);
    let configure = capped(project.root(), common::ASSETC, &["configure"]);
    let configure_text = both_streams(&configure);
    assert!(configure.status.success(), "configure:\n{configure_text}");
    assert_no_crash(&configure_text, "configure");

    let build = capped(project.root(), &ninja_program(), &["-k", "0"]);
    let build_text = both_streams(&build);
    assert!(
        !build.status.success(),
        "the build must fail:\n{build_text}"
    );
    assert_no_crash(&build_text, "ninja -k 0");
    assert!(
        project.path("runtime/good.ktx2").is_file(),
        "the good image still builds under -k 0:\n{build_text}"
    );
    for case in cases {
        check_case(&project, case);
    }
    let leftovers = project.temporary_files();
    assert!(leftovers.is_empty(), "temporary files: {leftovers:?}");
}

/// Runs the edges of one case on their own and checks how they fail.
fn check_case(project: &Project, case: &Case) {
    let commands = edge_commands(project, &case.source);
    assert!(!commands.is_empty(), "{}: no edge", case.source);
    let outputs: Vec<Output> = commands
        .iter()
        .map(|command| capped_shell(project.root(), command))
        .collect();
    let failing: Vec<String> = outputs
        .iter()
        .filter(|output| !output.status.success())
        .map(both_streams)
        .collect();
    let text = failing.concat();
    assert!(!failing.is_empty(), "{}: every edge passed", case.source);
    for output in outputs.iter().filter(|output| !output.status.success()) {
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}: not a clean failure:\n{}",
            case.source,
            both_streams(output)
        );
    }
    assert_no_crash(&text, &case.source);
    let header = format!("assetc-encode: error: assets/{}", case.source);
    assert!(
        text.contains(&header),
        "{}: no {header:?} in:\n{text}",
        case.source
    );
    for expected in &case.expect {
        assert!(
            text.contains(expected.as_str()),
            "{}: no {expected:?} in:\n{text}",
            case.source
        );
    }
    let left = outputs_of(project, &case.source);
    assert!(left.is_empty(), "{}: outputs left: {left:?}", case.source);
    let fragment = project.path(&format!(".assetc/default/frag/{}.frag", case.source));
    assert!(!fragment.exists(), "{}: fragment left", case.source);
}

/// A valid 8x8 RGBA PNG, the base of the corruption cases.
fn good_png() -> Vec<u8> {
    common::rgba_png(8, 8, 7)
}

#[test]
fn png_files_cut_short_fail_at_every_stage() {
    let whole = good_png();
    let cases: Vec<Case> = [
        (0, "the file is empty"),
        (8, "PNG"),
        (20, "PNG"),
        (33, "PNG"),
        (whole.len() - 30, "PNG"),
        (whole.len() - 12, "PNG"),
        (whole.len() - 1, "PNG"),
    ]
    .iter()
    .map(|&(length, expect)| Case::file(&format!("cut_{length}.png"), &whole[..length], &[expect]))
    .collect();
    check_family(&cases);
}

#[test]
fn png_files_with_bad_headers_or_checksums_are_refused() {
    let zlib = sources::zlib_zeros(sources::gray_raw_len(4, 4));
    let mut bad_header_crc = sources::png(4, 4, 8, GRAY, &zlib);
    bad_header_crc[29] ^= 0xFF; // last byte of the IHDR CRC
    let mut bad_data_crc = sources::png(4, 4, 8, GRAY, &zlib);
    let idat_crc = bad_data_crc.len() - 12 - 1;
    bad_data_crc[idat_crc] ^= 0xFF;
    let side = u32::MAX >> 1;
    let cases = vec![
        Case::file("bad_header_crc.png", bad_header_crc, &["CRC"]),
        Case::file("bad_data_crc.png", bad_data_crc, &["CRC"]),
        Case::file(
            "wide.png",
            sources::png(65535, 65535, 8, RGBA, &zlib),
            &["65535x65535", "at most 16384"],
        ),
        Case::file(
            "tall.png",
            sources::png(1, side, 8, GRAY, &zlib),
            &[&format!("1x{side}"), "at most 16384"],
        ),
        Case::file(
            "empty_width.png",
            sources::png(0, 16, 8, GRAY, &zlib),
            &["zero dimension"],
        ),
        Case::file(
            "not_an_image.png",
            "plain text",
            &["not an image assetc reads"],
        ),
    ];
    check_family(&cases);
}

#[test]
fn png_decompression_bombs_are_stopped_before_they_allocate() {
    // Headers at the size limit (16384x16384 at 16 bits per RGBA sample: 2
    // GiB of pixels) with a megabyte of zeros, with a few bytes, and with
    // the image data cut off.
    let at_limit = |zlib: &[u8]| sources::png(16384, 16384, 16, RGBA, zlib);
    let whole = at_limit(&sources::zlib_zeros(1 << 20));
    let cases = vec![
        Case::file("starved.png", whole.clone(), &["16384x16384", "1032:1"]),
        Case::file(
            "crumb.png",
            at_limit(&[0x78, 0x01]),
            &["IDAT chunks hold 2 bytes"],
        ),
        Case::file("cut.png", &whole[..100], &["16384x16384"]),
    ];
    check_family(&cases);
}

#[test]
fn broken_jpegs_are_refused_and_content_decides_the_format() {
    let whole = sources::gray_jpeg(16, 16, None);
    let cases = vec![
        Case::file("cut.jpg", &whole[..whole.len() - 4], &["JPEG"]),
        Case::file(
            "huge.jpg",
            sources::gray_jpeg(65535, 65535, Some(1)),
            &["65535x65535", "at most 16384"],
        ),
        Case::file(
            "starved.jpg",
            sources::gray_jpeg(16384, 16384, Some(8)),
            &["16384x16384", "one bit per 8x8 block"],
        ),
        Case::file("zero.jpg", sources::gray_jpeg(16, 0, Some(1)), &["JPEG"]),
        Case::file("text.jpeg", "<html>", &["not an image assetc reads"]),
    ];
    check_family(&cases);
}

/// The 54-byte header of an uncompressed 32-bit BMP, with no pixels.
fn bmp_header(width: i32, height: i32) -> Vec<u8> {
    let mut header = b"BM".to_vec();
    header.extend(54u32.to_le_bytes()); // file size, as claimed
    header.extend([0; 4]);
    header.extend(54u32.to_le_bytes()); // pixel data offset
    header.extend(40u32.to_le_bytes()); // BITMAPINFOHEADER
    header.extend(width.to_le_bytes());
    header.extend(height.to_le_bytes());
    header.extend(1u16.to_le_bytes());
    header.extend(32u16.to_le_bytes());
    header.extend([0; 24]); // BI_RGB, sizes and palette counts
    header
}

#[test]
fn the_other_image_kinds_cut_short_oversized_or_starved_are_refused() {
    use image_sources::{bmp, exr, noise_rgba8, tga_header, tiff, webp};
    let pixels = noise_rgba8(32, 32, 0x2545_f491);
    let webp = webp(32, 32, &pixels);
    let bmp = bmp(32, 32, &pixels);
    let tiff = tiff(32, 32, &pixels, image::ExtendedColorType::Rgba8);
    let floats: Vec<f32> = (0..32 * 32 * 4).map(|i| i as f32).collect();
    let exr = exr(32, 32, &floats);
    let mut cut_tga = tga_header(2, 32, 32);
    cut_tga.extend(&pixels[..2000]);
    let mut rle_bomb = tga_header(10, 16384, 16384);
    rle_bomb.extend([0xFF, 1, 2, 3, 4]); // one run of 128 pixels
    let hdr = |size: &str| format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n{size}\n").into_bytes();
    let cases = vec![
        Case::file("cut_webp.webp", &webp[..webp.len() / 2], &["WebP"]),
        Case::file("cut_tga.tga", cut_tga, &["TGA"]),
        Case::file(
            "wide_tga.tga",
            tga_header(2, 20000, 2),
            &["20000x2", "at most 16384"],
        ),
        Case::file(
            "starved_tga.tga",
            tga_header(2, 16000, 16000),
            &["16000x16000", "decompression bomb"],
        ),
        Case::file(
            "rle_bomb_tga.tga",
            rle_bomb,
            &["16384x16384", "decompression bomb"],
        ),
        Case::file("cut_bmp.bmp", &bmp[..bmp.len() - 100], &["BMP"]),
        Case::file(
            "wide_bmp.bmp",
            bmp_header(40000, 2),
            &["40000x2", "at most 16384"],
        ),
        Case::file(
            "starved_bmp.bmp",
            bmp_header(16000, 16000),
            &["16000x16000", "decompression bomb"],
        ),
        Case::file("cut_tif.tif", &tiff[..tiff.len() / 2], &["TIFF"]),
        Case::file("bad_tif.tif", b"II*\x00\xff\xff\xff\x7f", &["TIFF"]),
        Case::file("cut_exr.exr", &exr[..exr.len() / 2], &["OpenEXR"]),
        Case::file("cut_hdr.hdr", hdr("-Y 32 +X 32"), &["Radiance HDR"]),
        Case::file(
            "wide_hdr.hdr",
            hdr("-Y 2 +X 40000"),
            &["40000x2", "at most 16384"],
        ),
        Case::file(
            "vast_hdr.hdr",
            hdr("-Y 16000 +X 16000"),
            &["16000x16000", "one image may take at most 1073741824"],
        ),
        Case::file("bad_svg.svg", "<svg", &["SVG"]),
        Case::file(
            "wide_svg.svg",
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="99999" height="2"/>"#,
            &["99999x2", "at most 16384"],
        ),
        Case::file("text_tga.tga", "plain text", &["TGA"]),
    ];
    check_family(&cases);
}

/// The text of a glTF document.
fn gltf_text(json: &Value) -> Vec<u8> {
    serde_json::to_vec(json).unwrap_or_default()
}

/// The triangle glTF with one edit applied to its JSON.
fn edited_gltf(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut json = sources::triangle_gltf_embedded();
    edit(&mut json);
    gltf_text(&json)
}

#[test]
fn broken_glb_containers_are_refused() {
    let whole = sources::glb(&sources::triangle_gltf(None), &sources::triangle_buffer());
    let mut long_bin = whole.clone();
    let at = sources::glb_bin_length_offset(&long_bin);
    long_bin[at..at + 4].copy_from_slice(&0x7FFF_FFF0u32.to_le_bytes());
    let mut long_json = whole.clone();
    long_json[12..16].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let cases = vec![
        Case::file("half.glb", &whole[..whole.len() / 2], &["truncated GLB"]),
        Case::file("header_only.glb", &whole[..12], &["truncated GLB"]),
        Case::file(
            "long_bin.glb",
            long_bin,
            &["chunk 1 (BIN)", "declares 2147483632 bytes"],
        ),
        Case::file(
            "long_json.glb",
            long_json,
            &["chunk 0 (JSON)", "declares 4294967280 bytes"],
        ),
    ];
    check_family(&cases);
}

#[test]
fn gltf_sizes_beyond_the_data_are_refused() {
    let cases = vec![
        Case::file(
            "many.gltf",
            edited_gltf(|json| json["accessors"][0]["count"] = json!(4_000_000_000u64)),
            &["accessors[0]", "4000000000 elements"],
        ),
        Case::file(
            "long_buffer.gltf",
            edited_gltf(|json| json["buffers"][0]["byteLength"] = json!(1u64 << 50)),
            &["buffers[0]"],
        ),
        Case::file(
            "long_view.gltf",
            edited_gltf(|json| json["bufferViews"][0]["byteLength"] = json!(1u64 << 40)),
            &["bufferViews[0]"],
        ),
        Case::file(
            "bad_base64.gltf",
            edited_gltf(|json| {
                json["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@@");
            }),
            &["buffers[0].uri", "base64"],
        ),
        Case::file(
            "meshopt_bomb.gltf",
            edited_gltf(|json| {
                json["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
                json["bufferViews"][0]["extensions"] = json!({"EXT_meshopt_compression": {
                    "buffer": 0, "byteLength": 8, "byteStride": 256,
                    "count": 1u64 << 40, "mode": "ATTRIBUTES"}});
            }),
            &[
                "bufferViews[0].extensions.EXT_meshopt_compression",
                "decode to more than",
            ],
        ),
        Case::file(
            "meshopt_garbage.gltf",
            edited_gltf(|json| {
                json["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
                json["bufferViews"][0]["extensions"] = json!({"EXT_meshopt_compression": {
                    "buffer": 0, "byteLength": 8, "byteStride": 12,
                    "count": 3, "mode": "ATTRIBUTES"}});
            }),
            &["bufferViews[0]", "cannot be decompressed"],
        ),
        Case::file(
            "draco_garbage.gltf",
            edited_gltf(|json| {
                json["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
                json["meshes"][0]["primitives"][0]["extensions"] = json!({"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {"POSITION": 0}}});
            }),
            &["KHR_draco_mesh_compression", "cannot decode the Draco data"],
        ),
        Case::file(
            "instance_bomb.gltf",
            edited_gltf(|json| {
                json["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
                json["accessors"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"componentType": 5126, "count": 100_000, "type": "VEC3"}));
                let translations = json["accessors"].as_array().unwrap().len() - 1;
                json["nodes"][0]["extensions"] = json!({"EXT_mesh_gpu_instancing":
                    {"attributes": {"TRANSLATION": translations}}});
            }),
            &["EXT_mesh_gpu_instancing", "100000 instances; at most 65536"],
        ),
    ];
    check_family(&cases);
}

#[test]
fn gltf_uris_that_leave_the_assets_folder_are_refused_unread() {
    let project_secret = "../assetc.yml";
    let with_uri = |uri: &str| gltf_text(&sources::triangle_gltf(Some(uri)));
    let with_image = |uri: &str| {
        let mut json = sources::triangle_gltf_embedded();
        json["images"] = json!([{ "uri": uri }]);
        json["textures"] = json!([{ "source": 0 }]);
        json["materials"] =
            json!([{ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } }]);
        json["meshes"][0]["primitives"][0]["material"] = json!(0);
        gltf_text(&json)
    };
    let mut cases = vec![
        Case::file(
            "climb.gltf",
            with_uri("../../../etc/passwd"),
            &["outside the input folder"],
        ),
        Case::file("project.gltf", with_uri(project_secret), &["outside"]),
        Case::file("absolute.gltf", with_uri("/etc/passwd"), &["absolute"]),
        Case::file("scheme.gltf", with_uri("file:///etc/passwd"), &["scheme"]),
        Case::file(
            "encoded.gltf",
            with_uri("%2e%2e/%2e%2e/etc/passwd"),
            &["outside"],
        ),
        Case::file(
            "image.gltf",
            with_image("../../../etc/passwd.png"),
            &["outside"],
        ),
    ];
    let link = Case::file("linked.gltf", with_uri("linked.bin"), &["outside"]);
    cases.push(link);
    let project_files = |project: &Project| {
        symlink("/etc/passwd", project.path("assets/linked.bin")).unwrap();
    };
    check_family_with(&cases, project_files);
}

/// A unit square as OBJ vertices, for faces to refer to.
const OBJ_VERTICES: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

/// An OBJ of [`OBJ_VERTICES`] and then `rest`.
fn obj(rest: &str) -> String {
    format!("{OBJ_VERTICES}{rest}")
}

#[test]
fn broken_obj_files_name_their_line() {
    let cases = vec![
        Case::file(
            "huge_index.obj",
            obj("f 1 2 99999999999999999999\n"),
            &[":5: "],
        ),
        Case::file("past_end.obj", obj("f 1 2 5\n"), &[":5: "]),
        Case::file("far_back.obj", obj("f -1 -2 -9\n"), &[":5: "]),
        Case::file("zero_index.obj", obj("f 0 1 2\n"), &[":5: "]),
        Case::file("nan.obj", obj("v nan 0 0\nf 1 2 5\n"), &[":5: "]),
        Case::file("infinite.obj", obj("v 0 inf 0\nf 1 2 5\n"), &[":5: "]),
        Case::file(
            "climbing_library.obj",
            obj("mtllib ../../../etc/passwd\nusemtl red\nf 1 2 3\n"),
            &["outside the input folder"],
        ),
    ];
    check_family(&cases);
}

/// A `.cube` file with `LUT_3D_SIZE size` and `rows` data lines.
fn cube(size: &str, rows: usize) -> String {
    let mut text = format!("LUT_3D_SIZE {size}\n");
    for _ in 0..rows {
        text.push_str("0.5 0.5 0.5\n");
    }
    text
}

#[test]
fn broken_luts_name_their_line() {
    let cases = vec![
        Case::file("huge.lut.cube", cube("100000", 8), &["line 1", "256"]),
        Case::file("giant.lut.cube", cube("4294967296", 8), &["line 1"]),
        Case::file("negative.lut.cube", cube("-2", 8), &["line 1"]),
        Case::file("short.lut.cube", cube("2", 7), &["8"]),
        Case::file("long.lut.cube", cube("2", 9), &["line 10"]),
        Case::file("declared_only.lut.cube", cube("256", 3), &["16777216"]),
        Case::file(
            "words.lut.cube",
            format!("{}red green blue\n", cube("2", 7)),
            &["line 9"],
        ),
        Case::file("binary.lut.cube", vec![0xFF, 0xFE, 0x00, 0x80], &[]),
    ];
    check_family(&cases);
}

/// The demo's TrueType font.
fn demo_font() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/fonts/DejaVuSans-Latin1.ttf");
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn broken_fonts_are_refused() {
    let font = demo_font();
    let (glyf_offset, _, glyf_record) = sources::font_table(&font, b"glyf");
    let mut far_table = font.clone();
    far_table[glyf_record + 8..glyf_record + 12].copy_from_slice(&0xFFFF_FF00u32.to_be_bytes());
    let (_, _, head_record) = sources::font_table(&font, b"head");
    let mut long_table = font.clone();
    long_table[head_record + 12..head_record + 16].copy_from_slice(&0x7FFF_FFFFu32.to_be_bytes());
    let mut many_tables = font.clone();
    many_tables[4..6].copy_from_slice(&u16::MAX.to_be_bytes());
    let cases = vec![
        Case::file(
            "cut.ttf",
            &font[..font.len() / 2],
            &["not a TrueType or OpenType font"],
        ),
        Case::file("header.ttf", &font[..20], &[]),
        Case::file("no_glyphs.ttf", &font[..glyf_offset], &[]),
        Case::file(
            "far_table.ttf",
            far_table,
            &["'glyf' table", "runs past the end"],
        ),
        Case::file("long_table.ttf", long_table, &[]),
        Case::file("many_tables.ttf", many_tables, &[]),
        Case::file(
            "text.otf",
            "not a font",
            &["not a TrueType or OpenType font"],
        ),
    ];
    check_family(&cases);
}

/// A committed file of the bitmap font fixture (`tests/data/bmfont/`).
fn bitmap_font_fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bmfont")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A BMFont case: the `.fnt` beside the fixture's two pages.
fn bitmap_font_case(source: &str, bytes: impl Into<Vec<u8>>, expect: &[&str]) -> Case {
    Case::file(source, bytes, expect)
        .with("pix_0.png", bitmap_font_fixture("pix_0.png"))
        .with("pix_1.png", bitmap_font_fixture("pix_1.png"))
}

#[test]
fn broken_bitmap_fonts_are_refused() {
    let text = String::from_utf8(bitmap_font_fixture("pix-text.fnt")).unwrap();
    let binary = bitmap_font_fixture("pix-binary.fnt");
    let edited = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    };
    let mut version = binary.clone();
    version[3] = 2;
    let mut unknown_block = binary.clone();
    unknown_block[4] = 9;
    // The common block starts at byte 27: type 2, then its size.
    let mut short_common = binary.clone();
    short_common[28] = 14;
    let mut huge_block = binary.clone();
    huge_block[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut bad_utf8 = text.clone().into_bytes();
    bad_utf8[10] = 0xFF;
    let cases = vec![
        bitmap_font_case(
            "cut.fnt",
            &binary[..100],
            &["byte 73: block 4 declares 100 bytes, but only 23 follow"],
        ),
        bitmap_font_case(
            "version.fnt",
            version,
            &["byte 3: binary version 2 is not supported"],
        ),
        bitmap_font_case(
            "block.fnt",
            unknown_block,
            &["byte 4: unknown block type 9"],
        ),
        bitmap_font_case(
            "common.fnt",
            short_common,
            &["the common block is 14 bytes, not 15"],
        ),
        bitmap_font_case(
            "huge.fnt",
            huge_block,
            &["byte 5: block 1 declares 4294967295 bytes"],
        ),
        bitmap_font_case(
            "outside.fnt",
            edited("x=9  y=2", "x=15 y=2"),
            &[
                "line 10: char id=106: its rect 3x9 at (15, 2)",
                "outside page 1 (16x16)",
            ],
        ),
        bitmap_font_case(
            "missing.fnt",
            edited("pix_1.png", "gone.png"),
            &["line 4: page 1 \"gone.png\": cannot read"],
        ),
        bitmap_font_case(
            "page.fnt",
            edited("page=1 chnl=15", "page=9 chnl=15"),
            &["line 9: char id=86 is on page 9, but the font has 2 page(s)"],
        ),
        bitmap_font_case(
            "count.fnt",
            edited("chars count=5", "chars count=4294967295"),
            &["line 5: chars count=4294967295, but the file has 5 char record(s)"],
        ),
        bitmap_font_case(
            "utf8.fnt",
            bad_utf8,
            &["line 1: byte 11 of the line is not UTF-8"],
        ),
        bitmap_font_case(
            "tag.xml.fnt",
            bitmap_font_fixture("pix-xml.fnt")[..400].to_vec(),
            &["not well-formed XML"],
        ),
    ];
    check_family(&cases);
}

/// A RIFF WAVE file of one `fmt ` chunk (`format`, `channels`, `rate`,
/// `bits`) and one `data` chunk holding `data`.
fn wave_file(format: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
    let block = channels * bits / 8;
    let mut body = b"WAVEfmt ".to_vec();
    body.extend_from_slice(&16u32.to_le_bytes());
    for half in [format, channels] {
        body.extend_from_slice(&half.to_le_bytes());
    }
    body.extend_from_slice(&rate.to_le_bytes());
    body.extend_from_slice(&(rate * u32::from(block)).to_le_bytes());
    for half in [block, bits] {
        body.extend_from_slice(&half.to_le_bytes());
    }
    body.extend_from_slice(b"data");
    body.extend_from_slice(&(data.len() as u32).to_le_bytes());
    body.extend_from_slice(data);
    let mut file = b"RIFF".to_vec();
    file.extend_from_slice(&(body.len() as u32).to_le_bytes());
    file.extend_from_slice(&body);
    file
}

#[test]
fn broken_sounds_are_refused() {
    let tone: Vec<u8> = (0..8000i32)
        .flat_map(|i| (((i * 37) % 2000 - 1000) as i16 * 8).to_le_bytes())
        .collect();
    let good = wave_file(1, 1, 8000, 16, &tone);
    let mut huge = good.clone();
    huge[4..8].copy_from_slice(&0xFFFF_FFF8u32.to_le_bytes());
    huge[40..44].copy_from_slice(&0xFFFF_FFD0u32.to_le_bytes());
    let floats: Vec<u8> = [0.25f32, f32::NAN, -0.5]
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect();
    let bell = fs::read("/usr/share/sounds/freedesktop/stereo/bell.oga")
        .expect("sound-theme-freedesktop (tools/ensure-deps --for-tests)");
    let mut broken_pages = bell.clone();
    let middle = broken_pages.len() / 2;
    broken_pages[middle..]
        .iter_mut()
        .step_by(7)
        .for_each(|byte| *byte ^= 0x5a);
    broken_pages.truncate(middle + 300);
    let noise: Vec<u8> = (0..65536u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    // A QOA header that declares 4 G frames of stereo over 32 bytes.
    let mut huge_qoa = b"qoaf".to_vec();
    huge_qoa.extend_from_slice(&u32::MAX.to_be_bytes());
    huge_qoa.extend_from_slice(&[2, 0, 0x1f, 0x40, 0x14, 0, 0, 0x48]);
    huge_qoa.resize(40, 0);
    let voice = assetc::encode::audio::Sound {
        rate: 48000,
        channels: 1,
        samples: (0..48000).map(|i| ((i % 97) as f32 / 97.0) - 0.5).collect(),
        looping: None,
    };
    let opus = assetc::encode::audio::opus::write_opus(&voice, 64000).unwrap();
    let cases = vec![
        Case::file(
            "cut.wav",
            &good[..good.len() / 2],
            &["cannot read this sound", "ends"],
        ),
        Case::file("huge.wav", huge, &["MiB of decoded samples"]),
        Case::file(
            "no_channels.wav",
            wave_file(1, 0, 8000, 16, &tone),
            &["cannot read this sound"],
        ),
        Case::file(
            "no_rate.wav",
            wave_file(1, 1, 0, 16, &tone),
            &["cannot read this sound"],
        ),
        Case::file(
            "nan.wav",
            wave_file(3, 1, 8000, 32, &floats),
            &["frame 1", "not a number"],
        ),
        Case::file("pages.ogg", broken_pages, &["cannot read this sound"]),
        Case::file("noise.mp3", noise, &["cannot read this sound"]),
        Case::file("empty.flac", Vec::new(), &["empty"]),
        Case::file("declared.qoa", huge_qoa, &["MiB of decoded samples"]),
        Case::file(
            "stream.opus",
            &opus[..opus.len() * 2 / 3],
            &["cannot read this sound", "truncated"],
        ),
    ];
    check_family(&cases);
}

#[test]
fn incomplete_folder_assets_name_the_folder_and_the_problem() {
    let face = |seed| common::rgba_png(4, 4, seed);
    let mut five_faces = Case::file("sky.env/px.png", face(1), &["nz"]);
    five_faces.source = "sky.env".to_owned();
    for (seed, name) in [(2, "nx"), (3, "py"), (4, "ny"), (5, "pz")] {
        five_faces = five_faces.with(&format!("sky.env/{name}.png"), face(seed));
    }
    let mut bad_face = Case::file("dusk.env/px.png", b"\x89PNG\r\n\x1a\nbroken".to_vec(), &[]);
    bad_face.source = "dusk.env".to_owned();
    for (seed, name) in [(2, "nx"), (3, "py"), (4, "ny"), (5, "pz"), (6, "nz")] {
        bad_face = bad_face.with(&format!("dusk.env/{name}.png"), face(seed));
    }
    bad_face.expect = vec!["px.png".to_owned()];
    let mut mixed = Case::file("ground.array/a.png", face(1), &["b.png"]);
    mixed.source = "ground.array".to_owned();
    mixed = mixed.with("ground.array/b.png", common::rgba_png(8, 8, 2));
    let mut empty = Case::file("void.array/readme.txt", "no images", &[]);
    empty.source = "void.array".to_owned();
    check_family(&[five_faces, bad_face, mixed, empty]);
}

/// A Radiance HDR header declaring `width × height` texels.
fn hdr_header(width: u32, height: u32) -> Vec<u8> {
    format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n").into_bytes()
}

/// A 64×32 OpenEXR panorama of radiance 1 with `value` in the red channel
/// of texel `at`.
fn float_panorama_with(at: (usize, usize), value: f32) -> Vec<u8> {
    let mut rgba = vec![1.0f32; 64 * 32 * 4];
    rgba[(at.1 * 64 + at.0) * 4] = value;
    image_sources::exr(64, 32, &rgba)
}

#[test]
fn broken_ibl_panoramas_are_refused_under_the_cap() {
    let whole = assetc::encode::ibl::panorama::Panorama {
        width: 64,
        height: 32,
        texels: vec![[1.0, 2.0, 3.0]; 64 * 32],
    }
    .to_radiance_hdr();
    // The largest accepted panorama's header over four texels: its buffers
    // (805 MB) fit under the cap, and the missing rows are found.
    let mut starved = hdr_header(8192, 4096);
    starved.extend_from_slice(&[128; 16]);
    let cases = vec![
        Case::file("starved.ibl.hdr", starved, &["cannot decode"]),
        Case::file(
            "huge.ibl.hdr",
            hdr_header(16384, 8192),
            &["16384×8192", "widest accepted is 8192"],
        ),
        Case::file(
            "square.ibl.hdr",
            hdr_header(64, 64),
            &["64×64", "twice as wide"],
        ),
        Case::file("cut.ibl.hdr", &whole[..whole.len() / 2], &["cannot decode"]),
        Case::file("text.ibl.hdr", "plain text", &["cannot decode"]),
        Case::file(
            "nan.ibl.exr",
            float_panorama_with((5, 3), f32::NAN),
            &["texel (5, 3)", "NaN", "finite radiance"],
        ),
        Case::file(
            "negative.ibl.exr",
            float_panorama_with((60, 30), -2.0),
            &["texel (60, 30)", "-2", "finite radiance"],
        ),
        Case::file(
            "infinite.ibl.exr",
            float_panorama_with((0, 0), f32::INFINITY),
            &["texel (0, 0)", "inf", "finite radiance"],
        ),
    ];
    check_family(&cases);
}

/// An IBL cube folder `name` whose `px` face is `px`, its other faces
/// small good ones.
fn ibl_cube_case(name: &str, px: Vec<u8>, expect: &[&str]) -> Case {
    let good = image_sources::radiance(4, 4, &[1.0; 4 * 4 * 3]);
    let mut case = Case::file(&format!("{name}/px.hdr"), px, expect);
    case.source = name.to_owned();
    for face in ["nx", "py", "ny", "pz", "nz"] {
        case = case.with(&format!("{name}/{face}.hdr"), good.clone());
    }
    case
}

#[test]
fn broken_ibl_cube_folders_are_refused_under_the_cap() {
    // The largest accepted face's header over four texels: its 50 MB of
    // texels fit under the cap, and the missing rows are found.
    let mut starved = hdr_header(2048, 2048);
    starved.extend_from_slice(&[128; 16]);
    let cases = [
        ibl_cube_case(
            "huge.ibl.env",
            hdr_header(16384, 16384),
            &["px.hdr", "16384×16384", "at most 2048"],
        ),
        ibl_cube_case("starved.ibl.env", starved, &["px.hdr", "cannot decode"]),
    ];
    check_family(&cases);
}

#[test]
fn a_symbolic_link_loop_in_the_assets_is_named_by_configure() {
    let project = Project::new(CONFIG);
    project.png("assets/a/good.png", 4, 4, 1);
    symlink("..", project.path("assets/a/loop")).unwrap();
    let run = capped(project.root(), common::ASSETC, &["configure"]);
    let text = both_streams(&run);
    assert!(!run.status.success(), "{text}");
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert_no_crash(&text, "configure");
    assert!(text.contains("assets/a/loop"), "{text}");
    assert!(text.contains("symbolic link loop"), "{text}");
    assert!(!project.path("build.ninja").exists());
}

#[test]
fn a_dangling_symbolic_link_in_the_assets_is_named_by_configure() {
    let project = Project::new(CONFIG);
    project.png("assets/good.png", 4, 4, 1);
    symlink("gone.png", project.path("assets/broken.png")).unwrap();
    let run = capped(project.root(), common::ASSETC, &["configure"]);
    let text = both_streams(&run);
    assert!(!run.status.success(), "{text}");
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert_no_crash(&text, "configure");
    assert!(text.contains("assets/broken.png"), "{text}");
    assert!(text.contains("dangling"), "{text}");
    assert!(!project.path("build.ninja").exists());
}

/// An OBJ polygon of `corners` corners on the unit circle: legal, if silly.
fn many_cornered_obj(corners: u32) -> String {
    let mut text = String::new();
    for i in 0..corners {
        let angle = f64::from(i) * std::f64::consts::TAU / f64::from(corners);
        text.push_str(&format!("v {} {} 0\n", angle.cos(), angle.sin()));
    }
    text.push('f');
    for i in 1..=corners {
        text.push_str(&format!(" {i}"));
    }
    text.push('\n');
    text
}

#[test]
fn odd_but_valid_sources_build_within_the_caps() {
    let project = Project::new(CONFIG);
    // The generator the bomb cases use, inflating to exactly what the header
    // declares: a good image, which shows the bombs are real streams.
    let exact = sources::zlib_zeros(sources::gray_raw_len(300, 200));
    project.write("assets/zeros.png", &sources::png(300, 200, 8, GRAY, &exact));
    // 4 GiB of zeros behind a 64x64 header: the decoder stops once it has
    // the image and never inflates the rest.
    let bomb = sources::zlib_zeros(4 << 30);
    project.write("assets/bomb.png", &sources::png(64, 64, 8, GRAY, &bomb));
    // The bytes decide the image format, not the suffix.
    project.write("assets/photo.png", &sources::gray_jpeg(16, 16, None));
    project.write("assets/icon.jpg", &good_png());
    // A polygon of 5000 corners, fanned into triangles.
    project.write("assets/disc.obj", many_cornered_obj(5000).as_bytes());
    // JSON nested 100000 levels deep inside `extras`, which is kept as raw
    // text and never walked recursively.
    let mut deep = gltf_text(&sources::triangle_gltf_embedded());
    deep.truncate(deep.len() - 1);
    deep.extend(
        format!(
            ",\"extras\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        )
        .bytes(),
    );
    project.write("assets/deep.gltf", &deep);
    // `maxp.numGlyphs` is 16 bits, so 65535 is the most a font can claim;
    // only the charset's glyphs are compiled, so the claim costs nothing.
    let mut font = demo_font();
    let (maxp, _, _) = sources::font_table(&font, b"maxp");
    font[maxp + 4..maxp + 6].copy_from_slice(&u16::MAX.to_be_bytes());
    project.write("assets/claims.ttf", &font);

    let configure = capped(project.root(), common::ASSETC, &["configure"]);
    assert!(configure.status.success(), "{}", both_streams(&configure));
    let build = capped(project.root(), &ninja_program(), &[]);
    let text = both_streams(&build);
    assert_no_crash(&text, "ninja");
    assert!(build.status.success(), "{text}");
    for output in [
        "zeros.ktx2",
        "bomb.ktx2",
        "photo.ktx2",
        "icon.ktx2",
        "disc.hmesh",
        "deep.hmesh",
        "claims.hfont",
    ] {
        assert!(project.path("runtime").join(output).is_file(), "{output}");
    }
}
