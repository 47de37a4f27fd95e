//! Native GPU formats through the real pipeline: `--preset desktop` writes
//! BC7, BC5 and BC4, `--preset mobile` ASTC, each decoded by an independent
//! decoder (`texture2ddecoder`) and compared with its source; changing the
//! format rebuilds only the textures whose format changes.
//!
//! PSNR floors (measured on this machine: BC7 50.9 dB, BC4 48.7 dB, ASTC 6x6
//! colour 46.0 dB and gray 48.9 dB) and mean angle error bounds (BC5 0.57°,
//! ASTC 4x4 0.21°) are set a few dB or tenths of a degree below the figures,
//! so a broken channel layout or edge padding fails them by far.

use crate::common;
use crate::common::Project;
use assetc::format::ktx2;
use assetc::format::texel as vk;

use crate::common::NATIVE_PRESETS as PRESETS;

/// Width and height of every source: a multiple of neither 4, 5 nor 6, so
/// every format has partial edge blocks.
const SIZE: (u32, u32) = (67, 45);

/// A smooth colour field with some detail, like a photo's.
fn colour_texels() -> Vec<u8> {
    texels(|x, y| {
        let wave =
            |scale: f32, phase: f32| 128.0 + 100.0 * ((x * scale + y * 0.6 * scale) + phase).sin();
        [wave(0.11, 0.0), wave(0.07, 1.5), wave(0.05, 3.0), 255.0]
    })
}

/// A single-channel ramp with ripples, stored in R, G and B.
fn gray_texels() -> Vec<u8> {
    texels(|x, y| {
        let value = 2.5 * x + 20.0 * (y * 0.3).sin() + 20.0;
        [value, value, value, 255.0]
    })
}

/// The normal of the height field `sin(x/5) cos(y/7)`, as X and Y in R and G
/// (OpenGL convention) with Z in B.
fn normal_texels() -> Vec<u8> {
    texels(|x, y| {
        let dx = (x / 5.0).cos() / 5.0 * (y / 7.0).cos() * 3.0;
        let dy = -(x / 5.0).sin() * (y / 7.0).sin() / 7.0 * 3.0;
        let n = normalise([-dx, -dy, 1.0]);
        [to_unorm(n[0]), to_unorm(n[1]), to_unorm(n[2]), 255.0]
    })
}

fn to_unorm(v: f32) -> f32 {
    (v * 0.5 + 0.5) * 255.0
}

fn normalise([x, y, z]: [f32; 3]) -> [f32; 3] {
    let length = (x * x + y * y + z * z).sqrt();
    [x / length, y / length, z / length]
}

/// `SIZE` texels from a function of the texel's position, rounded.
fn texels(texel: impl Fn(f32, f32) -> [f32; 4]) -> Vec<u8> {
    let (width, height) = SIZE;
    (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .flat_map(|(x, y)| texel(x as f32, y as f32).map(|v| v.round().clamp(0.0, 255.0) as u8))
        .collect()
}

fn png(pixels: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(pixels).unwrap();
    writer.finish().unwrap();
    out
}

/// A project with a colour, a normal and a gray image, and a data file.
fn project() -> Project {
    let p = Project::new(PRESETS);
    p.write("assets/wall.png", &png(&colour_texels()));
    p.write("assets/wall.n.png", &png(&normal_texels()));
    p.write("assets/wall.r.png", &png(&gray_texels()));
    p.write("assets/data/level.json", b"{\"name\": \"level\"}\n");
    p
}

/// A built texture: its header, swizzle and level 0 decoded to RGBA8.
struct Decoded {
    vk_format: u32,
    swizzle: Option<Vec<u8>>,
    rgba: Vec<u8>,
}

/// Reads `rel` and decodes its level 0 with `texture2ddecoder`.
fn decode(p: &Project, rel: &str) -> Decoded {
    let bytes = std::fs::read(p.path(rel)).unwrap();
    let view = ktx2::parse(&bytes).unwrap();
    let header = *view.header();
    let level = view.levels()[0];
    let stored = view.level_data(0);
    let blocks = zstd::bulk::decompress(stored, level.uncompressed_byte_length as usize).unwrap();
    let (width, height) = (header.pixel_width as usize, header.pixel_height as usize);
    let mut packed = vec![0u32; width * height];
    let format = assetc::format::texel::TexelFormat::from_vk_format(header.vk_format)
        .unwrap_or_else(|| panic!("{rel}: unknown vkFormat {}", header.vk_format));
    let (bw, bh) = format.block_dimensions();
    let result = match format.name() {
        "bc7" => texture2ddecoder::decode_bc7(&blocks, width, height, &mut packed),
        "bc5" => texture2ddecoder::decode_bc5(&blocks, width, height, &mut packed),
        "bc4" => texture2ddecoder::decode_bc4(&blocks, width, height, &mut packed),
        "bc1" => texture2ddecoder::decode_bc1(&blocks, width, height, &mut packed),
        name if name.starts_with("astc-") => texture2ddecoder::decode_astc(
            &blocks,
            width,
            height,
            bw as usize,
            bh as usize,
            &mut packed,
        ),
        other => panic!("{rel}: no decoder for {other}"),
    };
    result.unwrap_or_else(|e| panic!("{rel}: {e}"));
    // texture2ddecoder packs each texel as little-endian B, G, R, A.
    let rgba = packed
        .iter()
        .flat_map(|t| {
            let [b, g, r, a] = t.to_le_bytes();
            [r, g, b, a]
        })
        .collect();
    Decoded {
        vk_format: header.vk_format,
        swizzle: view.key_value("KTXswizzle").map(<[u8]>::to_vec),
        rgba,
    }
}

/// PSNR in dB of `channels` of `decoded` against `source` (RGBA8 both).
fn psnr(decoded: &[u8], source: &[u8], channels: &[usize]) -> f64 {
    let mut squared = 0.0f64;
    let mut count = 0usize;
    for (d, s) in decoded.chunks_exact(4).zip(source.chunks_exact(4)) {
        for &c in channels {
            squared += (f64::from(d[c]) - f64::from(s[c])).powi(2);
            count += 1;
        }
    }
    let mse = squared / count as f64;
    10.0 * (255.0f64 * 255.0 / mse.max(1e-12)).log10()
}

/// Mean angle in degrees between the normals of `source` (X, Y in R, G) and
/// those read from `decoded` at the channels `x` and `y`, Z rebuilt.
fn mean_angle_error(decoded: &[u8], source: &[u8], (x, y): (usize, usize)) -> f64 {
    let normal = |nx: u8, ny: u8| {
        let nx = f64::from(nx) / 255.0 * 2.0 - 1.0;
        let ny = f64::from(ny) / 255.0 * 2.0 - 1.0;
        let nz = (1.0 - nx * nx - ny * ny).max(0.0).sqrt();
        let length = (nx * nx + ny * ny + nz * nz).sqrt();
        [nx / length, ny / length, nz / length]
    };
    let angles: Vec<f64> = decoded
        .chunks_exact(4)
        .zip(source.chunks_exact(4))
        .map(|(d, s)| {
            let a = normal(d[x], d[y]);
            let b = normal(s[0], s[1]);
            let dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]).clamp(-1.0, 1.0);
            dot.acos().to_degrees()
        })
        .collect();
    angles.iter().sum::<f64>() / angles.len() as f64
}

#[test]
fn desktop_writes_bc7_bc5_bc4_within_their_error() {
    let p = project();
    p.build(&["--preset", "desktop"]);
    let colour = decode(&p, "runtime/desktop/wall.ktx2");
    assert_eq!(
        colour.vk_format,
        vk::VK_FORMAT_BC7_UNORM_BLOCK + 1,
        "BC7 sRGB"
    );
    assert_eq!(colour.swizzle, None);
    let colour_psnr = psnr(&colour.rgba, &colour_texels(), &[0, 1, 2]);
    eprintln!("colour PSNR {colour_psnr:.2} dB");
    assert!(colour_psnr > 46.0, "BC7 colour PSNR {colour_psnr:.2} dB");

    let normal = decode(&p, "runtime/desktop/wall.n.ktx2");
    assert_eq!(normal.vk_format, vk::VK_FORMAT_BC5_UNORM_BLOCK);
    assert_eq!(normal.swizzle.as_deref(), Some(&b"rg01\0"[..]));
    let angle = mean_angle_error(&normal.rgba, &normal_texels(), (0, 1));
    eprintln!("normal mean angle error {angle:.3} degrees");
    assert!(angle < 1.0, "BC5 mean angle error {angle:.3} degrees");

    let gray = decode(&p, "runtime/desktop/wall.r.ktx2");
    assert_eq!(gray.vk_format, vk::VK_FORMAT_BC4_UNORM_BLOCK);
    assert_eq!(gray.swizzle.as_deref(), Some(&b"r001\0"[..]));
    let gray_psnr = psnr(&gray.rgba, &gray_texels(), &[0]);
    eprintln!("gray PSNR {gray_psnr:.2} dB");
    assert!(gray_psnr > 45.0, "BC4 PSNR {gray_psnr:.2} dB");
    p.assert_no_op();
}

#[test]
fn mobile_writes_astc_within_its_error() {
    let p = project();
    p.build(&["--preset", "mobile"]);
    let astc_6x6_unorm = vk::VK_FORMAT_ASTC_4X4_UNORM_BLOCK + 2 * 4;
    let colour = decode(&p, "runtime/mobile/wall.ktx2");
    assert_eq!(colour.vk_format, astc_6x6_unorm + 1, "ASTC 6x6 sRGB");
    let colour_psnr = psnr(&colour.rgba, &colour_texels(), &[0, 1, 2]);
    eprintln!("colour PSNR {colour_psnr:.2} dB");
    assert!(
        colour_psnr > 42.0,
        "ASTC 6x6 colour PSNR {colour_psnr:.2} dB"
    );

    let normal = decode(&p, "runtime/mobile/wall.n.ktx2");
    assert_eq!(normal.vk_format, vk::VK_FORMAT_ASTC_4X4_UNORM_BLOCK);
    assert_eq!(normal.swizzle.as_deref(), Some(&b"ra01\0"[..]));
    let angle = mean_angle_error(&normal.rgba, &normal_texels(), (0, 3));
    eprintln!("normal mean angle error {angle:.3} degrees");
    assert!(angle < 0.5, "ASTC 4x4 mean angle error {angle:.3} degrees");

    let gray = decode(&p, "runtime/mobile/wall.r.ktx2");
    assert_eq!(gray.vk_format, astc_6x6_unorm);
    assert_eq!(gray.swizzle.as_deref(), Some(&b"r001\0"[..]));
    let gray_psnr = psnr(&gray.rgba, &gray_texels(), &[0]);
    eprintln!("gray PSNR {gray_psnr:.2} dB");
    assert!(gray_psnr > 45.0, "ASTC 6x6 gray PSNR {gray_psnr:.2} dB");
    p.assert_no_op();
}

/// The texture-like edges Ninja ran, sorted.
fn texture_edges(run: &common::Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| !e.starts_with("LINK") && !e.starts_with("CHECK"))
        .collect();
    edges.sort();
    edges
}

#[test]
fn a_new_format_rebuilds_only_the_textures_it_changes() {
    let p = project();
    p.build(&["--preset", "desktop"]);
    // BC7 for everything: the colour texture is BC7 already.
    let config = PRESETS.replace("{ format: auto, platform: desktop }", "{ format: bc7 }");
    p.write("assetc.yml", config.as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    let encodes: Vec<String> = texture_edges(&run)
        .into_iter()
        .filter(|e| e.starts_with("TEXTURE") || e.starts_with("EMBED"))
        .collect();
    assert_eq!(
        encodes,
        ["TEXTURE assets/wall.n.png", "TEXTURE assets/wall.r.png"]
    );
    let gray = decode(&p, "runtime/desktop/wall.r.ktx2");
    assert_eq!(gray.vk_format, vk::VK_FORMAT_BC7_UNORM_BLOCK);
    p.assert_no_op();
}

#[test]
fn a_format_too_narrow_for_the_texture_names_the_file() {
    let p = project();
    let config = PRESETS.replace("{ format: auto, platform: desktop }", "{ format: bc4 }");
    p.write("assetc.yml", config.as_bytes());
    p.assetc(&["configure", "--preset", "desktop"])
        .expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(!run.ok, "a colour texture cannot be BC4");
    assert!(run.stderr.contains("wall.png") || run.stdout.contains("wall.png"));
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(output.contains("format `bc4` keeps only R"), "{output}");
    assert!(!p.path("runtime/desktop/wall.ktx2").exists());
}

#[test]
fn compress_and_format_that_disagree_are_a_config_error() {
    let p = project();
    let config = PRESETS.replace(
        "{ format: auto, platform: desktop }",
        "{ format: bc7, compress: false }",
    );
    p.write("assetc.yml", config.as_bytes());
    let error = p.configure_error();
    assert!(error.contains("assetc.yml:10:"), "{error}");
    assert!(
        error.contains("`compress: false` and `format: bc7` disagree"),
        "{error}"
    );
}
