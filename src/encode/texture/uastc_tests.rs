//! Tests of UASTC textures, decoded with the independent `basisu` transcoder:
//! container structure, quality floors per mode, shapes and settings.

use super::tests::hex;
use super::*;
use crate::encode::image::test_images::Noise;
use crate::format::ktx2;
use crate::jobserver::budget::with_threads;

/// A photo-like test image: smooth colour gradients, a few hard edges and
/// mild noise, so every UASTC mode has work to do.
fn photo(width: u32, height: u32) -> Rgba8Image {
    let mut noise = Noise::new(7);
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let (u, v) = (x as f64 / width as f64, y as f64 / height as f64);
            let edge = if (x / 9 + y / 13) % 3 == 0 { 60.0 } else { 0.0 };
            let jitter = (noise.next() % 9) as f64 - 4.0;
            let channel = |base: f64| (base + edge + jitter).clamp(0.0, 255.0) as u8;
            pixels.extend([
                channel(200.0 * u + 30.0 * (v * 9.0).sin()),
                channel(180.0 * v + 40.0 * (u * 7.0).cos()),
                channel(120.0 + 100.0 * (u * v * 6.0).sin()),
                255,
            ]);
        }
    }
    Rgba8Image {
        width,
        height,
        pixels,
    }
}

/// The photo's luminance, in R, G and B.
fn luminance(image: &Rgba8Image) -> Rgba8Image {
    let pixels = image
        .pixels
        .chunks_exact(4)
        .flat_map(|p| {
            let y = (0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2]))
                .round() as u8;
            [y, y, y, 255]
        })
        .collect();
    Rgba8Image {
        pixels,
        ..image.clone()
    }
}

/// A tangent-space normal map of the photo's luminance as a height field.
fn normal_map(image: &Rgba8Image) -> Rgba8Image {
    let height = luminance(image);
    let (w, h) = (image.width as i64, image.height as i64);
    let at = |x: i64, y: i64| {
        f64::from(height.pixels[((y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) * 4) as usize]) / 255.0
    };
    let mut pixels = Vec::with_capacity(image.pixels.len());
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = (at(x + 1, y) - at(x - 1, y), at(x, y + 1) - at(x, y - 1));
            let (nx, ny, nz) = (-dx * 2.0, -dy * 2.0, 1.0);
            let length = (nx * nx + ny * ny + nz * nz).sqrt();
            let encode = |v: f64| ((v / length * 0.5 + 0.5) * 255.0).round() as u8;
            pixels.extend([encode(nx), encode(ny), encode(nz), 255]);
        }
    }
    Rgba8Image {
        pixels,
        ..image.clone()
    }
}

/// The test image for a mode, and the channels its quality is judged on.
fn sample(mode: TextureMode) -> (Rgba8Image, &'static [usize]) {
    let photo = photo(96, 64);
    match mode {
        TextureMode::Color => (photo, &[0, 1, 2]),
        TextureMode::Normal => (normal_map(&photo), &[0, 1]),
        TextureMode::Gray => (luminance(&photo), &[0]),
        TextureMode::Linear => (photo, &[0, 1, 2, 3]),
    }
}

fn uastc_options(mode: TextureMode, quality: u8) -> TextureOptions {
    TextureOptions {
        mode,
        uastc: Some(UastcOptions { quality, rdo: None }),
        blocks: None,
        zstd_level: 18,
        mips: true,
        max_size: 0,
        flip_green: false,
        hdr_format: Default::default(),
        min_psnr: None,
        pixel_art: None,
    }
}

/// Decodes image (`layer`, `face`) of `level` to RGBA8 with `basisu`.
fn decode(file: &[u8], level: u32, layer: u32, face: u32) -> Vec<u8> {
    let transcoder = basisu::Transcoder::new(file).expect("basisu reads the file");
    transcoder
        .transcode_image(
            level,
            layer,
            face,
            basisu::TargetFormat::Rgba32,
            basisu::DecodeFlags::NONE,
        )
        .expect("basisu transcodes the level")
}

/// PSNR in dB over the given channels of two RGBA8 buffers.
fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (mut sum, mut count) = (0.0, 0.0);
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            let d = f64::from(x[c]) - f64::from(y[c]);
            sum += d * d;
            count += 1.0;
        }
    }
    let mse = (sum / count).max(1e-10);
    10.0 * (255.0 * 255.0 / mse).log10()
}

#[test]
fn psnr_floors_per_mode() {
    for (mode, floor) in [
        (TextureMode::Color, 39.0),
        (TextureMode::Normal, 38.0),
        (TextureMode::Gray, 48.0),
    ] {
        let (image, channels) = sample(mode);
        let file = encode_images(
            std::slice::from_ref(&image),
            Shape::Plain,
            &uastc_options(mode, 1),
        )
        .unwrap();
        let decoded = decode(&file, 0, 0, 0);
        let score = psnr(&decoded, &image.pixels, channels);
        assert!(
            score >= floor,
            "{mode:?}: {score:.2} dB is below {floor} dB"
        );
    }
}

fn encode_one(image: &Rgba8Image, options: &TextureOptions) -> Vec<u8> {
    encode_images(std::slice::from_ref(image), Shape::Plain, options).unwrap()
}

/// The UASTC DFD for sRGB colour without alpha: total size 44; basic block of
/// 40 bytes, version 2; model UASTC (166), BT.709, sRGB transfer; 4x4 blocks;
/// bytesPlane0 = 16; one 128-bit sample, channel RGB, range 0..=u32::MAX.
const UASTC_SRGB_DFD: &str = "2c000000 00000000 02002800 a6010200 03030000 10000000 00000000 \
     00007f00 00000000 00000000 ffffffff";

#[test]
fn uastc_container_structure() {
    let (image, _) = sample(TextureMode::Color);
    let file = encode_one(&image, &uastc_options(TextureMode::Color, 0));
    let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
    let header = reader.header();
    assert_eq!(header.format, None, "vkFormat is VK_FORMAT_UNDEFINED");
    assert_eq!(header.type_size, 1);
    assert_eq!((header.pixel_width, header.pixel_height), (96, 64));
    assert_eq!(header.level_count, 7);
    assert_eq!(
        header.supercompression_scheme,
        Some(::ktx2::SupercompressionScheme::Zstandard)
    );
    let lengths: Vec<u64> = reader
        .levels()
        .map(|l| l.uncompressed_byte_length)
        .collect();
    // Blocks of 4x4 texels, 16 bytes each: 96x64, 48x32, 24x16, 12x8, 6x4, 3x2, 1x1.
    assert_eq!(
        lengths,
        [384 * 16, 96 * 16, 24 * 16, 6 * 16, 2 * 16, 16, 16]
    );
    let view = ktx2::parse(&file).unwrap();
    let dfd = view.dfd();
    assert_eq!(dfd, hex(UASTC_SRGB_DFD));
    assert_eq!(view.key_value("KTXorientation"), Some(&b"rd\0"[..]));
    assert_eq!(view.key_value("KTXswizzle"), None);
}

#[test]
fn alpha_and_linear_modes_change_the_dfd() {
    let (mut image, _) = sample(TextureMode::Color);
    image.pixels[3] = 10;
    let file = encode_one(&image, &uastc_options(TextureMode::Color, 0));
    let view = ktx2::parse(&file).unwrap();
    // Channel id RGBA (3) in the sample's top byte.
    assert_eq!(view.dfd()[28..32], [0x00, 0x00, 0x7f, 0x03]);
    let (normal, _) = sample(TextureMode::Normal);
    let file = encode_one(&normal, &uastc_options(TextureMode::Normal, 0));
    let view = ktx2::parse(&file).unwrap();
    // Transfer function linear (1) in byte 2 of the model word.
    assert_eq!(view.dfd()[14], 1);
    assert_eq!(view.key_value("KTXswizzle"), Some(&b"rg01\0"[..]));
}

#[test]
fn every_level_holds_our_filtered_mip() {
    // Each level must decode exactly like that mip of our chain encoded on
    // its own: the encoder used our mips, in order, and filtered nothing.
    let (image, _) = sample(TextureMode::Color);
    let image = Rgba8Image {
        width: 40,
        height: 24,
        pixels: image.pixels[..40 * 24 * 4].to_vec(),
    };
    let options = uastc_options(TextureMode::Color, 0);
    let file = encode_one(&image, &options);
    let single = TextureOptions {
        mips: false,
        ..options
    };
    let chain = mip_levels(&image, TextureMode::Color, 0..6);
    for (level, mip) in chain.iter().enumerate() {
        let alone = encode_one(mip, &single);
        assert!(
            decode(&file, level as u32, 0, 0) == decode(&alone, 0, 0, 0),
            "level {level}"
        );
    }
}

#[test]
fn cube_faces_and_array_layers_decode_in_order() {
    let colours: Vec<[u8; 4]> = (0..6u8).map(|i| [i * 40, 255 - i * 40, 90, 255]).collect();
    let solid = |rgba: [u8; 4]| Rgba8Image {
        width: 8,
        height: 8,
        pixels: rgba.repeat(64),
    };
    let faces: Vec<Rgba8Image> = colours.iter().copied().map(solid).collect();
    let options = uastc_options(TextureMode::Color, 0);
    let cube = encode_images(&faces, Shape::Cube, &options).unwrap();
    let header = ::ktx2::Reader::new(cube.as_slice()).unwrap().header();
    assert_eq!((header.face_count, header.layer_count), (6, 0));
    for (face, colour) in colours.iter().enumerate() {
        let decoded = decode(&cube, 0, 0, face as u32);
        assert!(
            psnr(&decoded, &colour.repeat(64), &[0, 1, 2]) > 40.0,
            "face {face}"
        );
    }
    let array = encode_images(&faces[..3], Shape::Array, &options).unwrap();
    let header = ::ktx2::Reader::new(array.as_slice()).unwrap().header();
    assert_eq!((header.face_count, header.layer_count), (1, 3));
    for (layer, colour) in colours.iter().take(3).enumerate() {
        let decoded = decode(&array, 1, layer as u32, 0);
        assert!(
            psnr(&decoded, &colour.repeat(16), &[0, 1, 2]) > 40.0,
            "layer {layer}"
        );
    }
}

#[test]
fn max_size_and_mips_pick_the_levels() {
    assert_eq!(kept_levels(96, 64, true, 0), 0..7);
    assert_eq!(kept_levels(96, 64, false, 0), 0..1);
    assert_eq!(kept_levels(96, 64, true, 32), 2..7);
    assert_eq!(kept_levels(96, 64, false, 48), 1..2);
    assert_eq!(kept_levels(1000, 10, true, 512), 1..10);
    assert_eq!(kept_levels(5, 3, true, 1), 2..3);
    assert_eq!(kept_levels(1, 1, true, 1), 0..1);

    let (image, _) = sample(TextureMode::Gray);
    let options = TextureOptions {
        max_size: 32,
        mips: false,
        ..uastc_options(TextureMode::Gray, 0)
    };
    let file = encode_one(&image, &options);
    let header = ::ktx2::Reader::new(file.as_slice()).unwrap().header();
    assert_eq!((header.pixel_width, header.pixel_height), (24, 16));
    assert_eq!(header.level_count, 1);
}

#[test]
fn zstd_level_zero_stores_aligned_blocks() {
    let (image, _) = sample(TextureMode::Gray);
    let options = TextureOptions {
        blocks: None,
        zstd_level: 0,
        ..uastc_options(TextureMode::Gray, 0)
    };
    let file = encode_one(&image, &options);
    let view = ktx2::parse(&file).unwrap();
    assert_eq!(
        view.header().supercompression_scheme,
        ktx2::SUPERCOMPRESSION_NONE
    );
    for level in view.levels() {
        assert_eq!(level.byte_offset % 16, 0);
        assert_eq!(level.byte_length, level.uncompressed_byte_length);
    }
    let decoded = decode(&file, 0, 0, 0);
    assert!(psnr(&decoded, &image.pixels, &[0]) > 45.0);
}

#[test]
fn rdo_trades_quality_for_size() {
    let (image, channels) = sample(TextureMode::Color);
    let plain = encode_one(&image, &uastc_options(TextureMode::Color, 1));
    let mut options = uastc_options(TextureMode::Color, 1);
    options.uastc = options.uastc.map(|uastc| UastcOptions {
        rdo: Some(4.0),
        ..uastc
    });
    let rdo = encode_one(&image, &options);
    assert!(
        rdo.len() < plain.len() * 9 / 10,
        "{} vs {}",
        rdo.len(),
        plain.len()
    );
    let score = psnr(&decode(&rdo, 0, 0, 0), &image.pixels, channels);
    assert!(score > 32.0, "{score:.2} dB");
}

#[test]
fn uastc_output_is_the_same_at_one_two_and_four_threads() {
    // Tall enough for three strips at level 0, so the batches really run
    // on several threads.
    let image = photo(2048, 300);
    for rdo in [None, Some(2.0)] {
        let mut options = uastc_options(TextureMode::Color, 0);
        options.uastc = options.uastc.map(|uastc| UastcOptions { rdo, ..uastc });
        let files: Vec<Vec<u8>> = [1, 2, 4]
            .into_iter()
            .map(|threads| with_threads(threads, || encode_one(&image, &options)))
            .collect();
        assert_eq!(files[0], files[1], "rdo {rdo:?}: 1 and 2 threads differ");
        assert_eq!(files[0], files[2], "rdo {rdo:?}: 1 and 4 threads differ");
    }
}
