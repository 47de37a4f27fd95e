//! The same bytes on every x86-64 CPU: a project holding every texture
//! format, a mesh with LODs and meshlets, a font, an IBL set and a shader is
//! built natively, then with every encoder run under `qemu-x86_64` as three
//! older CPUs (SSE2 only, SSE4.2, AVX2) through configure's launcher, and
//! every output must match byte for byte (`docs/determinism.md`).

use crate::common::Project;
use crate::ibl::hdr_panorama as hdr;
use crate::test_font;

/// The CPU models, by the instruction sets they stop at.
const CPUS: [(&str, &str); 3] = [
    ("qemu64", "SSE2"),
    ("Nehalem", "SSE4.2"),
    ("Haswell", "AVX2"),
];

const CONFIG: &str = r#"
input: assets
output: runtime
default:
  texture: { zstd_level: 3, pixel_art: false, min_psnr: off }
  mesh: { lods: [0.5, 0.25], meshlet_triangles: 32 }
  font: { charset: ["0x41-0x48"], px_per_em: 16 }
  ibl: { size: 16, irradiance: true }
  rules:
    - { match: "t/bc7*.png", texture: { format: bc7 } }
    - { match: "t/bc7-opaque-q1.png", texture: { format: bc7, quality: 1 } }
    - { match: "t/bc1.png", texture: { format: bc1 } }
    - { match: "t/bc4.r.png", texture: { format: bc4 } }
    - { match: "t/bc5.n.png", texture: { format: bc5 } }
    - { match: "t/astc.png", texture: { format: astc-6x6 } }
    - { match: "t/astc4.n.png", texture: { format: astc-4x4 } }
    - { match: "t/uastc.png", texture: { format: uastc } }
    - { match: "t/raw.png", texture: { format: rgba8 } }
    - { match: "t/bc6h.hdr", texture: { hdr_format: bc6h } }
    - { match: "t/astchdr.hdr", texture: { hdr_format: astc-hdr-6x6 } }
"#;

/// A 24x24 colour picture with edges and gradients, which every block
/// encoder has choices to make on.
fn picture(x: u32, y: u32) -> [u8; 4] {
    let ring = ((x as f32 - 11.5).hypot(y as f32 - 11.5) * 0.7).sin();
    [
        (120.0 + 110.0 * ring) as u8,
        (x * 10) as u8,
        (y * 9 + x * 3) as u8,
        if (x + y).is_multiple_of(7) { 160 } else { 255 },
    ]
}

/// A bumpy 16 x 16 height field as OBJ (450 triangles), which the
/// simplifier and the meshlet builder both work on.
fn terrain_obj() -> String {
    let n = 15;
    let mut obj = String::new();
    for j in 0..=n {
        for i in 0..=n {
            let (x, y) = (i as f32 / n as f32, j as f32 / n as f32);
            let z = 0.1 * (x * 9.0).sin() * (y * 7.0).cos();
            obj += &format!("v {x} {y} {z}\n");
        }
    }
    let at = |i: usize, j: usize| j * (n + 1) + i + 1;
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            obj += &format!("f {a} {b} {c}\nf {a} {c} {d}\n");
        }
    }
    obj
}

fn project() -> Project {
    let p = Project::new(CONFIG);
    let png = crate::common::png_of(24, 24, picture);
    for name in [
        "bc7", "bc1", "bc4.r", "bc5.n", "astc", "astc4.n", "uastc", "raw",
    ] {
        p.write(&format!("assets/t/{name}.png"), &png);
    }
    // Opaque BC7 takes the opaque profiles, at both tiered qualities.
    let opaque = crate::common::png_of(24, 24, |x, y| {
        let [r, g, b, _] = picture(x, y);
        [r, g, b, 255]
    });
    p.write("assets/t/bc7-opaque.png", &opaque);
    p.write("assets/t/bc7-opaque-q1.png", &opaque);
    p.write("assets/t/bc6h.hdr", &hdr(24, 24));
    p.write("assets/t/astchdr.hdr", &hdr(24, 24));
    p.write("assets/m/terrain.obj", terrain_obj().as_bytes());
    let codepoints: Vec<u32> = (0x41..=0x48).collect();
    p.write("assets/f/test.ttf", &test_font::font_with(&codepoints));
    p.write("assets/sky.ibl.hdr", &hdr(64, 32));
    p.write(
        "assets/fx/Post.shader/post.wgsl",
        b"@fragment fn fsMain() -> @location(0) vec4<f32> { return vec4<f32>(0.5); }\n",
    );
    p
}

#[test]
fn every_encoder_writes_the_same_bytes_on_sse2_sse4_and_avx2_cpus() {
    let p = project();
    p.assetc(&["configure", "-o", "runtime/native"])
        .expect_ok("configure");
    p.ninja(&[]).expect_ok("the native build");
    let native = p.tree("runtime/native");
    assert!(native.len() >= 20, "{:?}", native.keys());
    for (cpu, isa) in CPUS {
        let launcher = format!("qemu-x86_64 -cpu {cpu}");
        p.assetc(&[
            "configure",
            "-o",
            &format!("runtime/{cpu}"),
            "--build-dir",
            &format!(".assetc/{cpu}"),
            "--launcher",
            &launcher,
        ])
        .expect_ok("configure under qemu");
        p.ninja(&[])
            .expect_ok(&format!("the build under qemu -cpu {cpu}"));
        let emulated = p.tree(&format!("runtime/{cpu}"));
        assert_eq!(
            emulated.keys().collect::<Vec<_>>(),
            native.keys().collect::<Vec<_>>(),
            "{cpu} ({isa}) wrote other files"
        );
        for (file, bytes) in &native {
            assert!(
                emulated[file] == *bytes,
                "{file} differs under qemu-x86_64 -cpu {cpu} ({isa}) from this machine's"
            );
        }
    }
}
