//! Image-based lighting through the real pipeline: an HDR panorama named
//! `*.ibl.hdr` or a cube folder named `*.ibl.env/` (or either marked by an
//! `ibl.panorama` rule) becomes its radiance, specular and irradiance cubes
//! plus the project's BRDF table; the same sky as a panorama and as a cube
//! folder gives the same cubes; bad sources fail their own edge, naming the
//! file, and leave nothing behind.

use crate::common::Project;
use assetc::encode::ibl::decode_panorama;
use assetc::encode::ibl::panorama::Panorama;
use assetc::encode::texture::readback::{ImageIndex, Texels, decode_stored};
use assetc::format::ktx2::{self, Ktx2Header};
use assetc::format::texel;

use crate::image_sources as sources;

/// A Radiance HDR file of `width × height` texels: a bright spot on a sky
/// gradient.
pub(crate) fn hdr_panorama(width: usize, height: usize) -> Vec<u8> {
    Panorama::from_xy(width, height, |x, y| {
        let sky = 1.0 - y as f32 / height as f32;
        let sun = if (x, y) == (width / 4, height / 4) {
            200.0
        } else {
            0.0
        };
        [0.2 + sky + sun, 0.3 + sky + sun, 0.5 + sky + sun]
    })
    .to_radiance_hdr()
}

/// The header of a KTX2 file of the project.
fn header(p: &Project, rel: &str) -> Ktx2Header {
    let bytes = std::fs::read(p.path(rel)).unwrap();
    *ktx2::parse(&bytes).unwrap().header()
}

/// (vkFormat, faces, levels, width) of a header.
fn shape(header: Ktx2Header) -> (u32, u32, u32, u32) {
    (
        header.vk_format,
        header.face_count,
        header.level_count,
        header.pixel_width,
    )
}

const SMALL_IBL: &str = r#"
input: assets
output: runtime
default:
  ibl: { size: 32, irradiance: true }
"#;

#[test]
fn a_named_panorama_builds_its_cubes_and_the_brdf_table() {
    let p = Project::new(SMALL_IBL);
    p.write("assets/env/sky.ibl.hdr", &hdr_panorama(128, 64));
    let run = p.build(&[]);
    let edges = run.edges();
    assert!(
        edges.iter().any(|e| e == "IBL assets/env/sky.ibl.hdr"),
        "{edges:?}"
    );
    assert_eq!(
        edges.iter().filter(|e| e.starts_with("BRDF-LUT")).count(),
        1
    );
    let half4 = ktx2::VK_FORMAT_R16G16B16A16_SFLOAT;
    // 32² faces: 6 radiance levels (32 … 1), 3 specular levels (32, 16, 8).
    assert_eq!(
        shape(header(&p, "runtime/env/sky.radiance.ktx2")),
        (half4, 6, 6, 32)
    );
    assert_eq!(
        shape(header(&p, "runtime/env/sky.specular.ktx2")),
        (half4, 6, 3, 32)
    );
    assert_eq!(
        shape(header(&p, "runtime/env/sky.irradiance.ktx2")),
        (half4, 6, 1, 32)
    );
    let lut = texel::VK_FORMAT_R16G16_SFLOAT;
    assert_eq!(shape(header(&p, "runtime/brdf_lut.ktx2")), (lut, 1, 1, 128));
    let specular = std::fs::read(p.path("runtime/env/sky.specular.ktx2")).unwrap();
    let sh = ktx2::parse(&specular).unwrap().irradiance_sh().unwrap();
    assert!(sh[0].iter().all(|c| *c > 0.0), "{sh:?}");
    let info = p.assetc(&["info"]).expect_ok("assetc info");
    assert!(info.stdout.contains("irradiance SH"), "{}", info.stdout);
    let json = p.assetc(&["info", "--json"]).expect_ok("info --json");
    assert!(json.stdout.contains("\"irradiance_sh\""), "{}", json.stdout);
    p.assert_no_op();
}

/// A smooth synthetic sky, brighter towards the zenith, warmer on the +X
/// side, with a soft bright patch, as a Radiance HDR panorama.
fn sky_panorama(width: usize, height: usize) -> Vec<u8> {
    Panorama::from_fn(width, height, |[x, y, z]| {
        let zenith = 0.5 + 0.5 * y.max(0.0);
        let warm = 0.3 * (1.0 + x);
        let patch =
            20.0 * (-((x - 0.6).powi(2) + (y - 0.5).powi(2) + (z + 0.6).powi(2)) * 8.0).exp();
        [
            zenith + warm + patch,
            zenith + 0.5 * warm + patch,
            1.2 * zenith + 0.8 * patch,
        ]
    })
    .to_radiance_hdr()
}

/// The six faces of `panorama` sampled at `size`, as Radiance HDR files
/// named `px.hdr` … `nz.hdr`, or (`exr`) as OpenEXR files, which keep the
/// samples exactly.
fn cube_faces(panorama: &Panorama, size: usize, exr: bool) -> Vec<(String, Vec<u8>)> {
    let names = ["px", "nx", "py", "ny", "pz", "nz"];
    let side = size as u32;
    names
        .iter()
        .zip(panorama.to_cube(size))
        .map(|(name, face)| {
            if exr {
                let rgba: Vec<f32> = face
                    .texels
                    .iter()
                    .flat_map(|&[r, g, b]| [r, g, b, 1.0])
                    .collect();
                (format!("{name}.exr"), sources::exr(side, side, &rgba))
            } else {
                let rgb: Vec<f32> = face.texels.iter().flatten().copied().collect();
                (format!("{name}.hdr"), sources::radiance(side, side, &rgb))
            }
        })
        .collect()
}

/// Every level of every face of a float cube file, as RGBA floats.
fn cube_texels(p: &Project, rel: &str) -> Vec<Vec<f32>> {
    let bytes = std::fs::read(p.path(rel)).unwrap();
    let view = ktx2::parse(&bytes).unwrap();
    let mut images = Vec::new();
    for level in 0..view.header().level_count {
        for face in 0..6 {
            let at = ImageIndex {
                level,
                face,
                ..ImageIndex::default()
            };
            match decode_stored(&bytes, &view, at).unwrap().texels {
                Texels::Hdr(texels) => images.push(texels),
                _ => panic!("{rel}: not float texels"),
            }
        }
    }
    images
}

/// The largest difference between two decoded cubes' RGB samples,
/// relative to the larger of the two (at least 1, the sky's order of
/// magnitude).
fn worst_relative_difference(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    let mut worst = 0.0f32;
    for (a, b) in a.iter().zip(b) {
        assert_eq!(a.len(), b.len());
        for (a, b) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            for channel in 0..3 {
                let scale = a[channel].max(b[channel]).max(1.0);
                worst = worst.max((a[channel] - b[channel]).abs() / scale);
            }
        }
    }
    worst
}

/// One sky three ways: a Radiance HDR panorama, the same texels as an
/// OpenEXR panorama (RGBE values are exact in 32-bit floats, so the two
/// give the same files byte for byte), and a cube folder of the same sky
/// sampled at the cubes' face size, whose cubes agree within a tolerance.
#[test]
fn the_same_sky_from_hdr_exr_and_a_cube_folder_gives_the_same_cubes() {
    let p = Project::new("input: assets\noutput: runtime\ndefault:\n  ibl: { size: 16 }\n");
    let (width, height, size) = (128, 64, 16);
    let hdr = sky_panorama(width, height);
    let panorama = decode_panorama(&hdr).unwrap();
    let rgba: Vec<f32> = panorama
        .texels
        .iter()
        .flat_map(|&[r, g, b]| [r, g, b, 1.0])
        .collect();
    p.write("assets/a.ibl.hdr", &hdr);
    p.write(
        "assets/b.ibl.exr",
        &sources::exr(width as u32, height as u32, &rgba),
    );
    for (name, file) in cube_faces(&panorama, size, true) {
        p.write(&format!("assets/c.ibl.env/{name}"), &file);
    }
    p.build(&[]);
    let read = |rel: &str| std::fs::read(p.path(&format!("runtime/{rel}.ktx2"))).unwrap();
    for output in ["radiance", "specular"] {
        let from_hdr = read(&format!("a.{output}"));
        assert!(
            from_hdr == read(&format!("b.{output}")),
            "{output}: EXR differs"
        );
    }
    // The cube folder holds the panorama's own radiance level 0 exactly
    // (OpenEXR keeps the floats), so the radiance cube and the specular
    // level 0 are the same bytes; only the rough level differs, because it
    // integrates over the 6 × 16² cube texels instead of the 128 × 64
    // panorama texels. Measured: at most 0.097% of a texel (relative to the
    // larger value, or to 1 below it), about two half-float steps; the
    // tolerance, 0.2%, is just above that.
    assert!(
        read("a.radiance") == read("c.radiance"),
        "cube folder radiance differs"
    );
    let from_panorama = cube_texels(&p, "runtime/a.specular.ktx2");
    let from_cube = cube_texels(&p, "runtime/c.specular.ktx2");
    assert_eq!(from_panorama[..6], from_cube[..6], "specular level 0");
    let worst = worst_relative_difference(&from_panorama[6..], &from_cube[6..]);
    assert!(worst < 0.002, "specular level 1: {worst}");
}

/// A cube folder named `*.ibl.env/` and a `*.env/` an `ibl.panorama` rule
/// marks are IBL sources whose faces are depfile inputs; another `*.env/`
/// stays a cube map texture.
#[test]
fn cube_folders_named_or_marked_build_ibl_sets_and_rebuild_when_a_face_changes() {
    let config = "input: assets\noutput: runtime\ndefault:\n  ibl: { size: 16, irradiance: true }\n  rules:\n    - match: \"marked/**\"\n      ibl: { panorama: true }\n";
    let p = Project::new(config);
    let panorama = decode_panorama(&sky_panorama(64, 32)).unwrap();
    for (name, file) in cube_faces(&panorama, 8, false) {
        p.write(&format!("assets/env/sky.ibl.env/{name}"), &file);
        p.write(&format!("assets/marked/hall.env/{name}"), &file);
    }
    for face in ["px", "nx", "py", "ny", "pz", "nz"] {
        p.png(&format!("assets/box.env/{face}.png"), 8, 8, 3);
    }
    let run = p.build(&[]);
    let edges = run.edges();
    for edge in [
        "IBL assets/env/sky.ibl.env",
        "IBL assets/marked/hall.env",
        "CUBEMAP assets/box.env",
    ] {
        assert!(edges.iter().any(|e| e == edge), "{edge}: {edges:?}");
    }
    assert_eq!(
        edges.iter().filter(|e| e.starts_with("BRDF-LUT")).count(),
        1
    );
    let half4 = ktx2::VK_FORMAT_R16G16B16A16_SFLOAT;
    for stem in ["env/sky", "marked/hall"] {
        let at = |part: &str| header(&p, &format!("runtime/{stem}.{part}.ktx2"));
        // 16² faces from 8² ones: 5 radiance levels (16 … 1), 2 specular.
        assert_eq!(shape(at("radiance")), (half4, 6, 5, 16), "{stem}");
        assert_eq!(shape(at("specular")), (half4, 6, 2, 16), "{stem}");
        assert_eq!(shape(at("irradiance")), (half4, 6, 1, 32), "{stem}");
    }
    assert!(!p.path("runtime/marked/hall.env.ktx2").exists());
    assert_eq!(header(&p, "runtime/box.env.ktx2").face_count, 6);
    let lut = texel::VK_FORMAT_R16G16_SFLOAT;
    assert_eq!(shape(header(&p, "runtime/brdf_lut.ktx2")), (lut, 1, 1, 128));
    p.assert_no_op();

    let before = std::fs::read(p.path("runtime/env/sky.radiance.ktx2")).unwrap();
    let brighter: Vec<f32> = vec![5.0; 8 * 8 * 3];
    p.write(
        "assets/env/sky.ibl.env/py.hdr",
        &sources::radiance(8, 8, &brighter),
    );
    let run = p.ninja(&[]).expect_ok("ninja after editing a face");
    let encodes: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("IBL") || e.starts_with("CUBEMAP"))
        .collect();
    assert_eq!(encodes, ["IBL assets/env/sky.ibl.env"]);
    let after = std::fs::read(p.path("runtime/env/sky.radiance.ktx2")).unwrap();
    assert!(before != after, "the edited face did not reach the cube");
    p.assert_no_op();
}

/// A broken cube folder for [`bad_cube_folders_fail_naming_the_file_and_leave_no_output`].
struct BadFolder {
    /// The folder's stem (`<name>.ibl.env/`).
    name: &'static str,
    /// The face file written in place of a good `.hdr` face, or left out.
    face: &'static str,
    /// Its bytes; `None` leaves the face out.
    bytes: Option<Vec<u8>>,
    /// What the error says.
    reason: &'static str,
}

/// Broken cube folders fail their own edges, each naming the file at fault,
/// and leave no output behind.
#[test]
fn bad_cube_folders_fail_naming_the_file_and_leave_no_output() {
    let p = Project::new(SMALL_IBL);
    let exr_face = |bad: f32| {
        let mut samples = vec![1.0f32; 4 * 4 * 4];
        samples[(4 + 2) * 4] = bad;
        Some(sources::exr(4, 4, &samples))
    };
    let bad = |name, face, bytes, reason| BadFolder {
        name,
        face,
        bytes,
        reason,
    };
    let cases = [
        bad("missing", "nz.hdr", None, "face nz is missing"),
        bad(
            "oblong",
            "py.hdr",
            Some(sources::radiance(4, 2, &[1.0; 4 * 2 * 3])),
            "is 4x2; cube map faces must be square",
        ),
        bad(
            "ldr",
            "pz.png",
            Some(crate::common::rgba_png(4, 4, 7)),
            "the file is a PNG image; image-based lighting needs linear HDR radiance",
        ),
        bad(
            "negative",
            "nx.exr",
            exr_face(-2.0),
            "texel (2, 1) holds -2, not a finite radiance",
        ),
        bad(
            "nan",
            "ny.exr",
            exr_face(f32::NAN),
            "texel (2, 1) holds NaN, not a finite radiance",
        ),
        bad(
            "mixed",
            "nz.hdr",
            Some(face_of_size(8)),
            "is 8x8 but px.hdr is 4x4",
        ),
    ];
    for case in &cases {
        for face in ["px", "nx", "py", "ny", "pz", "nz"] {
            if !case.face.starts_with(face) {
                let rel = format!("assets/{}.ibl.env/{face}.hdr", case.name);
                p.write(&rel, &face_of_size(4));
            }
        }
        if let Some(bytes) = &case.bytes {
            p.write(
                &format!("assets/{}.ibl.env/{}", case.name, case.face),
                bytes,
            );
        }
    }
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the build must fail");
    let lines: Vec<&str> = run.stderr.lines().chain(run.stdout.lines()).collect();
    for case in cases {
        let name = case.name;
        let file = match case.bytes {
            Some(_) => format!("assets/{name}.ibl.env/{}", case.face),
            None => format!("assets/{name}.ibl.env"),
        };
        let at = lines
            .iter()
            .position(|line| line.contains(&format!("error: {file}: ")))
            .unwrap_or_else(|| panic!("{name}: no error naming {file}:\n{}", lines.join("\n")));
        // The error line and its `caused by:` lines.
        let causes = lines[at + 1..]
            .iter()
            .take_while(|line| line.starts_with("  caused by: "));
        let error: Vec<&str> = std::iter::once(lines[at]).chain(causes.copied()).collect();
        let error = error.join("\n");
        assert!(error.contains(case.reason), "{name}: {error}");
        for part in ["radiance", "specular", "irradiance"] {
            let output = p.path(&format!("runtime/{name}.{part}.ktx2"));
            assert!(!output.exists(), "{name}: {} left behind", output.display());
        }
    }
}

/// A Radiance HDR face of `size²` texels of 1.
fn face_of_size(size: u32) -> Vec<u8> {
    sources::radiance(size, size, &vec![1.0; (size * size * 3) as usize])
}

#[test]
fn a_rule_marks_a_plain_hdr_and_its_settings_rebuild_only_it() {
    let config = "input: assets\noutput: runtime\ndefault:\n  ibl: { size: 16 }\n  rules:\n    - match: \"env/**\"\n      ibl: { panorama: true }\n    - match: \"other/**\"\n      ibl: { format: rgb9e5 }\n";
    let p = Project::new(config);
    p.write("assets/env/hall.hdr", &hdr_panorama(64, 32));
    p.write("assets/other/room.ibl.hdr", &hdr_panorama(64, 32));
    p.build(&[]);
    assert_eq!(header(&p, "runtime/env/hall.specular.ktx2").pixel_width, 16);
    assert!(!p.path("runtime/env/hall.irradiance.ktx2").exists());
    let shared_exponent = texel::VK_FORMAT_E5B9G9R9_UFLOAT_PACK32;
    let room = header(&p, "runtime/other/room.specular.ktx2");
    assert_eq!(shape(room), (shared_exponent, 6, 2, 16));
    p.write(
        "assetc.yml",
        config
            .replace("panorama: true", "panorama: true, size: 32")
            .as_bytes(),
    );
    let run = p.ninja(&[]).expect_ok("ninja after the edit");
    let ibl_edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("IBL"))
        .collect();
    assert_eq!(ibl_edges, ["IBL assets/env/hall.hdr"]);
    assert_eq!(header(&p, "runtime/env/hall.specular.ktx2").pixel_width, 32);
    p.assert_no_op();
}

#[test]
fn bad_panoramas_fail_naming_the_file_and_leave_no_output() {
    let whole = hdr_panorama(64, 32);
    let cases: [(&str, Vec<u8>, &str); 2] = [
        (
            "truncated",
            whole[..whole.len() / 2].to_vec(),
            "cannot decode",
        ),
        ("wide", hdr_panorama(96, 32), "96×32"),
    ];
    for (name, bytes, reason) in cases {
        let p = Project::new(SMALL_IBL);
        let rel = format!("assets/{name}.ibl.hdr");
        p.write(&rel, &bytes);
        p.assetc(&["configure"]).expect_ok("configure");
        let run = p.ninja(&[]);
        assert!(!run.ok, "{name}: the build must fail");
        let message = format!("{}{}", run.stdout, run.stderr);
        assert!(
            message.contains(&rel) && message.contains(reason),
            "{name}: {message}"
        );
        for part in ["radiance", "specular", "irradiance"] {
            let output = p.path(&format!("runtime/{name}.{part}.ktx2"));
            assert!(!output.exists(), "{name}: {} left behind", output.display());
        }
    }
}

#[test]
fn ibl_format_auto_ships_block_compressed_cubes_per_platform() {
    let bc6h = texel::VK_FORMAT_BC6H_UFLOAT_BLOCK;
    let astc_hdr_6x6 = texel::TexelFormat::AstcHdr {
        block: texel::AstcBlock::B6x6,
    }
    .vk_format();
    for (platform, vk_format) in [("desktop", bc6h), ("mobile", astc_hdr_6x6)] {
        let p = Project::new(&format!(
            "input: assets\noutput: runtime\ndefault:\n  texture: {{ platform: {platform} }}\n  ibl: {{ size: 16, irradiance: true, format: auto }}\n"
        ));
        p.write("assets/sky.ibl.hdr", &hdr_panorama(64, 32));
        p.build(&[]);
        for cube in ["radiance", "specular", "irradiance"] {
            let header = header(&p, &format!("runtime/sky.{cube}.ktx2"));
            assert_eq!(header.vk_format, vk_format, "{platform}: {cube}");
            assert_eq!(header.face_count, 6, "{platform}: {cube}");
        }
        p.ninja(&["check"])
            .expect_ok("check accepts the block cubes");
    }
}

/// The harshest finite sky: black but for one texel at nearly the largest
/// `f32` (about 3·10³⁸, far past what half floats hold) and one at 50,000.
/// The edge must neither overflow into NaN nor fail: the cubes saturate at
/// the format's largest value, and `check` passes.
#[test]
fn a_sun_at_the_edge_of_float_range_builds_finite_cubes() {
    let p = Project::new(SMALL_IBL);
    let (width, height) = (64, 32);
    let mut rgba = vec![0.0f32; width * height * 4];
    rgba[(10 * width + 20) * 4..][..3].fill(3.0e38);
    rgba[(20 * width + 40) * 4..][..3].fill(50_000.0);
    p.write(
        "assets/blaze.ibl.exr",
        &sources::exr(width as u32, height as u32, &rgba),
    );
    p.build(&[]);
    for output in ["radiance", "specular", "irradiance"] {
        let images = cube_texels(&p, &format!("runtime/blaze.{output}.ktx2"));
        for (index, texels) in images.iter().enumerate() {
            assert!(
                texels.iter().all(|v| v.is_finite() && *v >= 0.0),
                "{output} level {} face {} holds a NaN, an infinity or a negative",
                index / 6,
                index % 6
            );
        }
    }
}
