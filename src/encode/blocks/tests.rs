//! The block encoders checked against independent decoders: BCn and ASTC LDR
//! through `texture2ddecoder`, BC6H through `bcdec_rs`; ASTC HDR through
//! astcenc's own decoder (no other Rust decoder reads HDR ASTC).

use super::astc::{AstcContent, AstcEncoder};
use super::*;
use crate::format::texel::AstcBlock;

/// A smooth colour field with detail and varying alpha, `width` x `height`.
fn photo(width: u32, height: u32, alpha: bool) -> Rgba8Image {
    let pixels = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x as f32, y as f32)))
        .flat_map(|(x, y)| {
            let wave = |scale: f32, phase: f32| {
                (128.0 + 100.0 * (x * scale + y * 0.7 * scale + phase).sin()) as u8
            };
            let a = if alpha { wave(0.2, 0.5) } else { 255 };
            [wave(0.3, 0.0), wave(0.17, 1.0), wave(0.11, 2.0), a]
        })
        .collect();
    Rgba8Image {
        width,
        height,
        pixels,
    }
}

/// `blocks` decoded with texture2ddecoder's `decode` into RGBA8.
fn decoded(
    decode: impl Fn(&[u8], usize, usize, &mut [u32]) -> Result<(), &'static str>,
    blocks: &[u8],
    (width, height): (u32, u32),
) -> Vec<u8> {
    let mut packed = vec![0u32; (width * height) as usize];
    decode(blocks, width as usize, height as usize, &mut packed).unwrap();
    packed
        .iter()
        .flat_map(|texel| {
            let [b, g, r, a] = texel.to_le_bytes();
            [r, g, b, a]
        })
        .collect()
}

/// PSNR in dB over `channels` of two RGBA8 buffers.
fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    let (mut squared, mut count) = (0.0f64, 0usize);
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            squared += (f64::from(x[c]) - f64::from(y[c])).powi(2);
            count += 1;
        }
    }
    10.0 * (65025.0 / (squared / count as f64).max(1e-12)).log10()
}

fn encode(format: TexelFormat, mode: TextureMode, level: &Rgba8Image) -> Vec<u8> {
    encode_blocks(format, mode, level, 2).unwrap()
}

#[test]
fn bcn_levels_of_any_size_decode_close_to_the_source() {
    use texture2ddecoder as t2d;
    let rgb = [0, 1, 2];
    let cases: [(TexelFormat, TextureMode, usize, &[usize], f64); 5] = [
        (
            TexelFormat::Bc7 { srgb: true },
            TextureMode::Color,
            16,
            &[0, 1, 2, 3],
            40.0,
        ),
        (
            TexelFormat::Bc1 { srgb: false },
            TextureMode::Linear,
            8,
            &rgb,
            30.0,
        ),
        (TexelFormat::Bc4, TextureMode::Gray, 8, &[0], 35.0),
        (TexelFormat::Bc5, TextureMode::Normal, 16, &[0, 1], 37.0),
        (
            TexelFormat::Bc7 { srgb: false },
            TextureMode::Linear,
            16,
            &rgb,
            40.0,
        ),
    ];
    for (width, height) in [(13, 7), (4, 4), (1, 1), (30, 2)] {
        let source = photo(width, height, true);
        for &(format, mode, block_bytes, channels, floor) in &cases {
            let blocks = encode(format, mode, &source);
            let count = width.div_ceil(4) * height.div_ceil(4);
            assert_eq!(
                blocks.len(),
                count as usize * block_bytes,
                "{}",
                format.name()
            );
            let decode = match format {
                TexelFormat::Bc7 { .. } => t2d::decode_bc7,
                TexelFormat::Bc1 { .. } => t2d::decode_bc1,
                TexelFormat::Bc4 => t2d::decode_bc4,
                _ => t2d::decode_bc5,
            };
            let back = decoded(decode, &blocks, (width, height));
            let quality = psnr(&back, &source.pixels, channels);
            assert!(
                quality > floor,
                "{} {width}x{height}: {quality:.2} dB",
                format.name()
            );
            assert_eq!(blocks, encode(format, mode, &source), "deterministic");
        }
    }
}

#[test]
fn edge_blocks_repeat_the_last_row_and_column() {
    // A 5x5 level whose last column and row are white on black: the padded
    // texels copy them, so the edge block holds two colours, not garbage.
    let mut level = Rgba8Image {
        width: 5,
        height: 5,
        pixels: vec![0; 100],
    };
    for (index, texel) in level.pixels.chunks_exact_mut(4).enumerate() {
        let (x, y) = (index % 5, index / 5);
        let value = if x == 4 || y == 4 { 255 } else { 0 };
        texel.copy_from_slice(&[value, value, value, 255]);
    }
    let blocks = encode(TexelFormat::Bc4, TextureMode::Gray, &level);
    let back = decoded(texture2ddecoder::decode_bc4, &blocks, (5, 5));
    assert_eq!(
        psnr(&back, &level.pixels, &[0]),
        psnr(&level.pixels, &level.pixels, &[0])
    );
}

#[test]
fn astc_ldr_decodes_close_to_the_source_at_every_footprint() {
    let source = photo(23, 17, false);
    for block in AstcBlock::ALL {
        let format = TexelFormat::Astc { block, srgb: true };
        let blocks = encode(format, TextureMode::Color, &source);
        let (bw, bh) = block.dimensions();
        let count = 23u32.div_ceil(bw) * 17u32.div_ceil(bh);
        assert_eq!(blocks.len(), count as usize * 16);
        let decode = |data: &[u8], w, h, out: &mut [u32]| {
            texture2ddecoder::decode_astc(data, w, h, bw as usize, bh as usize, out)
        };
        let back = decoded(decode, &blocks, (23, 17));
        let quality = psnr(&back, &source.pixels, &[0, 1, 2]);
        // Larger blocks spend fewer bits per texel: 8 bits at 4x4, 2 at 8x8.
        let floor = if bw * bh <= 25 { 38.0 } else { 30.0 };
        assert!(quality > floor, "{}: {quality:.2} dB", format.name());
    }
}

#[test]
fn astc_normal_maps_keep_x_in_red_and_y_in_alpha() {
    let source = photo(16, 12, false);
    let format = TexelFormat::Astc {
        block: AstcBlock::B4x4,
        srgb: false,
    };
    let blocks = encode(format, TextureMode::Normal, &source);
    let decode =
        |data: &[u8], w, h, out: &mut [u32]| texture2ddecoder::decode_astc(data, w, h, 4, 4, out);
    let back = decoded(decode, &blocks, (16, 12));
    // Read back through `ra01`: X from red, Y from alpha.
    let read: Vec<u8> = back
        .chunks_exact(4)
        .flat_map(|t| [t[0], t[3], 0, 255])
        .collect();
    let quality = psnr(&read, &source.pixels, &[0, 1]);
    assert!(quality > 38.0, "{quality:.2} dB");
}

/// A synthetic HDR level: smooth values from 0 to 16 in red, below 2 in
/// green and blue, alpha 1.
fn hdr_level(width: u32, height: u32) -> Vec<[f32; 4]> {
    (0..height)
        .flat_map(|y| (0..width).map(move |x| (x as f32, y as f32)))
        .map(|(x, y)| {
            let peak = 16.0 * (0.5 + 0.5 * (x / 6.0).sin()) * (0.5 + 0.5 * (y / 5.0).cos());
            [peak, 0.5 + x / 20.0, 0.2 + 0.05 * y, 1.0]
        })
        .collect()
}

/// Mean error of RGB relative to each texel's brightest channel (at least
/// 0.25): what the eye sees of an HDR texel once it is exposed.
fn mean_relative_error(decoded: &[[f32; 3]], source: &[[f32; 4]]) -> f32 {
    let total: f32 = decoded
        .iter()
        .zip(source)
        .flat_map(|(d, s)| {
            let scale = s[0].max(s[1]).max(s[2]).max(0.25);
            (0..3).map(move |c| (d[c] - s[c]).abs() / scale)
        })
        .sum();
    total / (decoded.len() * 3) as f32
}

#[test]
fn bc6h_keeps_hdr_values() {
    let (width, height) = (10, 6);
    let source = hdr_level(width, height);
    let blocks = bc::encode_bc6h(width, height, &source, 2);
    let (bx, by) = (width.div_ceil(4) as usize, height.div_ceil(4) as usize);
    assert_eq!(blocks.len(), bx * by * 16);
    let mut decoded = vec![[0.0f32; 3]; (width * height) as usize];
    for (index, block) in blocks.chunks_exact(16).enumerate() {
        let mut texels = [0.0f32; 48];
        bcdec_rs::bc6h_float(block, &mut texels, 12, false);
        let (x0, y0) = ((index % bx) * 4, (index / bx) * 4);
        for (i, rgb) in texels.chunks_exact(3).enumerate() {
            let (x, y) = (x0 + i % 4, y0 + i / 4);
            if x < width as usize && y < height as usize {
                decoded[y * width as usize + x] = [rgb[0], rgb[1], rgb[2]];
            }
        }
    }
    let error = mean_relative_error(&decoded, &source);
    assert!(error < 0.03, "mean relative error {error}");
    let brightest = decoded.iter().map(|t| t[0]).fold(0.0, f32::max);
    assert!(brightest > 12.0, "HDR range lost: {brightest}");
    assert_eq!(blocks, bc::encode_bc6h(width, height, &source, 2));
}

#[test]
fn astc_hdr_keeps_hdr_values() {
    let (width, height) = (14, 9);
    let source = hdr_level(width, height);
    let mut encoder = AstcEncoder::new((6, 6), AstcContent::Hdr, 2).unwrap();
    let blocks = encoder.encode_hdr(width, height, &source).unwrap();
    assert_eq!(blocks.len(), 3 * 2 * 16);
    let config = astcenc_rs::ConfigBuilder::new()
        .with_profile(astcenc_rs::Profile::HdrRgbLdrA)
        .with_block_size(astcenc_rs::Extents::new(6, 6))
        .build()
        .unwrap();
    let mut decoder = astcenc_rs::Context::with_threads(1, config).unwrap();
    // Decoded at the padded size (18x12), then cropped.
    let image = decoder
        .decompress::<f32>(
            &blocks,
            astcenc_rs::Extents::new(18, 12),
            astcenc_rs::Swizzle::rgba(),
        )
        .unwrap();
    let layer = &image.data[0];
    let decoded: Vec<[f32; 3]> = (0..height as usize)
        .flat_map(|y| (0..width as usize).map(move |x| (y * 18 + x) * 4))
        .map(|i| [layer[i], layer[i + 1], layer[i + 2]])
        .collect();
    let error = mean_relative_error(&decoded, &source);
    assert!(error < 0.03, "mean relative error {error}");
}

#[test]
fn float_formats_take_linear_values_from_colour_levels() {
    let level = Rgba8Image {
        width: 2,
        height: 1,
        pixels: vec![255, 0, 188, 255, 0, 0, 0, 10],
    };
    let bytes = encode(TexelFormat::Rgba16Float, TextureMode::Color, &level);
    let halves: Vec<f32> = bytes
        .chunks_exact(2)
        .map(|p| half::f16::from_le_bytes([p[0], p[1]]).to_f32())
        .collect();
    assert_eq!(halves.len(), 8);
    assert_eq!(halves[0], 1.0);
    assert!((halves[2] - 0.503).abs() < 0.002, "{}", halves[2]);
    let shared = encode(TexelFormat::Rgb9e5, TextureMode::Color, &level);
    assert_eq!(shared.len(), 8);
}

#[test]
fn formats_this_module_does_not_write_are_refused() {
    let level = photo(4, 4, false);
    for format in [TexelFormat::Rgba8 { srgb: true }, TexelFormat::R16Unorm] {
        let error = encode_blocks(format, TextureMode::Color, &level, 2).unwrap_err();
        assert!(matches!(error, BlockError::NotABlockFormat(_)), "{error}");
    }
}
