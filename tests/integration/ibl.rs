//! Image-based lighting through the real pipeline: an HDR panorama named
//! `*.ibl.hdr` (or marked by an `ibl.panorama` rule) becomes its radiance,
//! specular and irradiance cubes plus the project's BRDF table; bad
//! panoramas fail their own edge, naming the file, and leave nothing behind.

use crate::common::Project;
use assetc::encode::ibl::panorama::Panorama;
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

/// An OpenEXR panorama goes through the texture sources' EXR decoder: the
/// same uniform sky as a Radiance HDR file (0.5 is exact in both) gives the
/// same radiance and specular files, byte for byte.
#[test]
fn an_exr_panorama_builds_like_the_same_hdr_one() {
    let p = Project::new(SMALL_IBL);
    let (width, height) = (64, 32);
    let rgb = vec![0.5f32; width * height * 3];
    let rgba = vec![0.5f32; width * height * 4];
    p.write(
        "assets/a.ibl.hdr",
        &sources::radiance(width as u32, height as u32, &rgb),
    );
    p.write(
        "assets/b.ibl.exr",
        &sources::exr(width as u32, height as u32, &rgba),
    );
    p.build(&[]);
    for output in ["radiance", "specular"] {
        let from_hdr = std::fs::read(p.path(&format!("runtime/a.{output}.ktx2"))).unwrap();
        let from_exr = std::fs::read(p.path(&format!("runtime/b.{output}.ktx2"))).unwrap();
        assert!(from_hdr == from_exr, "{output} differs");
    }
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
    use assetc::encode::texture::readback::{ImageIndex, Texels, decode_stored};
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
        let bytes = std::fs::read(p.path(&format!("runtime/blaze.{output}.ktx2"))).unwrap();
        let view = ktx2::parse(&bytes).unwrap();
        for level in 0..view.header().level_count {
            for face in 0..6 {
                let at = ImageIndex {
                    level,
                    layer: 0,
                    face,
                    slice: 0,
                };
                let image = decode_stored(&bytes, &view, at).unwrap();
                let Texels::Hdr(texels) = image.texels else {
                    panic!("{output}: not float texels");
                };
                assert!(
                    texels.iter().all(|v| v.is_finite() && *v >= 0.0),
                    "{output} level {level} face {face} holds a NaN, an infinity or a negative"
                );
            }
        }
    }
}
