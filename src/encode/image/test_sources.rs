//! Source images of every kind for tests, made with the `image` and `png`
//! crates' own encoders (and by hand where no encoder writes the layout).
//! It uses no item of this crate, so integration tests include it with
//! `#[path = "../../src/encode/image/test_sources.rs"] mod image_sources;`
//! in tests/integration/main.rs.
#![allow(dead_code)]

use std::io::Cursor;

use image::codecs::{
    bmp::BmpEncoder, hdr::HdrEncoder, openexr::OpenExrEncoder, tga::TgaEncoder, tiff::TiffEncoder,
    webp::WebPEncoder,
};
use image::{ExtendedColorType, ImageEncoder, Rgb};

/// Runs an encoder into a seekable buffer and returns the file.
pub fn encoded(write: impl FnOnce(&mut Cursor<Vec<u8>>) -> image::ImageResult<()>) -> Vec<u8> {
    let mut file = Cursor::new(Vec::new());
    write(&mut file).expect("the test encoder writes the file");
    file.into_inner()
}

/// `width * height` RGBA8 pixels of xorshift noise, which no codec shrinks.
pub fn noise_rgba8(width: u32, height: u32, seed: u32) -> Vec<u8> {
    let mut state = seed.max(1);
    (0..width * height * 4)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect()
}

/// A lossless WebP of RGBA8 `pixels`.
pub fn webp(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
    encoded(|f| {
        WebPEncoder::new_lossless(f).write_image(pixels, width, height, ExtendedColorType::Rgba8)
    })
}

/// A BMP of RGBA8 `pixels`.
pub fn bmp(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
    encoded(|f| BmpEncoder::new(f).write_image(pixels, width, height, ExtendedColorType::Rgba8))
}

/// A TGA of RGBA8 `pixels`, run-length encoded or (`rle` false) plain.
pub fn tga(width: u32, height: u32, pixels: &[u8], rle: bool) -> Vec<u8> {
    encoded(|f| {
        let encoder = TgaEncoder::new(f);
        let encoder = if rle { encoder } else { encoder.disable_rle() };
        encoder.write_image(pixels, width, height, ExtendedColorType::Rgba8)
    })
}

/// The 18-byte header of a 32-bit TGA of `image_type` (2 plain, 10
/// run-length encoded) with the bottom-left origin.
pub fn tga_header(image_type: u8, width: u16, height: u16) -> Vec<u8> {
    let mut header = vec![0, 0, image_type, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    header.extend(width.to_le_bytes());
    header.extend(height.to_le_bytes());
    header.extend([32, 8]); // 32 bits a pixel, 8 alpha bits, bottom-left origin
    header
}

/// A run-length encoded 32-bit TGA of RGBA8 `pixels` (top row first)
/// stored with the bottom-left origin: rows bottom first, one raw packet
/// each.
pub fn bottom_left_tga(width: u8, height: u16, pixels: &[u8]) -> Vec<u8> {
    let mut file = tga_header(10, u16::from(width), height);
    for row in pixels.chunks_exact(usize::from(width) * 4).rev() {
        file.push(width - 1);
        for texel in row.chunks_exact(4) {
            file.extend([texel[2], texel[1], texel[0], texel[3]]);
        }
    }
    file
}

/// A TIFF of native-endian `samples` in `color`.
pub fn tiff(width: u32, height: u32, samples: &[u8], color: ExtendedColorType) -> Vec<u8> {
    encoded(|f| TiffEncoder::new(f).write_image(samples, width, height, color))
}

/// An OpenEXR file of float RGBA `samples`.
pub fn exr(width: u32, height: u32, samples: &[f32]) -> Vec<u8> {
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_ne_bytes()).collect();
    encoded(|f| {
        OpenExrEncoder::new(f).write_image(&bytes, width, height, ExtendedColorType::Rgba32F)
    })
}

/// A Radiance HDR file of float RGB `samples`.
pub fn radiance(width: u32, height: u32, samples: &[f32]) -> Vec<u8> {
    let pixels: Vec<Rgb<f32>> = samples
        .chunks_exact(3)
        .map(|c| Rgb([c[0], c[1], c[2]]))
        .collect();
    let mut file = Vec::new();
    HdrEncoder::new(&mut file)
        .encode(&pixels, width as usize, height as usize)
        .expect("the test encoder writes the file");
    file
}

/// A 16-bit PNG of `color` (gray, gray+alpha, RGB or RGBA) holding
/// `samples` in raster order.
pub fn png16(width: u32, height: u32, color: png::ColorType, samples: &[u16]) -> Vec<u8> {
    let mut file = Vec::new();
    let mut encoder = png::Encoder::new(&mut file, width, height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Sixteen);
    let mut writer = encoder.write_header().expect("a valid header");
    let data: Vec<u8> = samples.iter().flat_map(|s| s.to_be_bytes()).collect();
    writer.write_image_data(&data).expect("the samples fit");
    writer.finish().expect("the file ends");
    file
}
