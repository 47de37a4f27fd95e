//! Tests of the 16-bit and float texture paths: which format each mode
//! gets, level 0 kept exactly, and mips filtered at the source's precision.

use png::ColorType;

use super::hdr::HdrFormat;
use super::*;
use crate::encode::image::round_16_to_8;
use crate::encode::image::test_sources::png16;
use crate::format::ktx2;
use crate::format::rgb9e5::unpack as unpack_rgb9e5;

fn raw(mode: TextureMode) -> TextureOptions {
    TextureOptions {
        mode,
        uastc: None,
        blocks: None,
        zstd_level: 0,
        mips: true,
        max_size: 0,
        flip_green: false,
        hdr_format: HdrFormat::Rgba16f,
        min_psnr: None,
        pixel_art: None,
    }
}

/// The vkFormat, swizzle and levels of a file written without Zstandard.
fn read(file: &[u8]) -> (u32, Option<Vec<u8>>, Vec<Vec<u8>>) {
    let view = ktx2::parse(file).unwrap();
    let levels = (0..view.levels().len())
        .map(|level| view.level_data(level).to_vec())
        .collect();
    let swizzle = view.key_value("KTXswizzle").map(<[u8]>::to_vec);
    (view.header().vk_format, swizzle, levels)
}

fn u16_samples(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect()
}

/// The vkFormat, swizzle and levels of a 16-bit PNG of `samples` in
/// `color`, encoded with `options`.
fn encode_png16(
    (width, height): (u32, u32),
    color: ColorType,
    samples: &[u16],
    options: &TextureOptions,
) -> (u32, Option<Vec<u8>>, Vec<Vec<u8>>) {
    read(&encode_texture(&png16(width, height, color, samples), options).unwrap())
}

/// 4x2 RGBA samples spread over the whole 16-bit range, off the 8-bit grid.
fn deep_samples() -> Vec<u16> {
    (0..4 * 2 * 4).map(|i| (i * 2111 + 13) as u16).collect()
}

#[test]
fn a_16_bit_normal_map_keeps_x_and_y_at_16_bits() {
    let samples = deep_samples();
    let (format, swizzle, levels) =
        encode_png16((4, 2), ColorType::Rgba, &samples, &raw(TextureMode::Normal));
    assert_eq!(format, ktx2::VK_FORMAT_R16G16_UNORM);
    assert_eq!(swizzle.as_deref(), Some(&b"rg01\0"[..]));
    let xy: Vec<u16> = samples.chunks_exact(4).flat_map(|t| [t[0], t[1]]).collect();
    assert_eq!(u16_samples(&levels[0]), xy);
    assert_eq!(levels.len(), 3);
    assert_eq!(levels[2].len(), 4);
}

#[test]
fn a_16_bit_height_map_is_r16_and_its_mips_keep_16_bit_precision() {
    // 2x1: 100 and 301 average to 200.5, which rounds to 201 at 16 bits; at
    // 8 bits both would be 0 or 1.
    let samples = [100, 301];
    let (format, swizzle, levels) = encode_png16(
        (2, 1),
        ColorType::Grayscale,
        &samples,
        &raw(TextureMode::Gray),
    );
    assert_eq!(format, ktx2::VK_FORMAT_R16_UNORM);
    assert_eq!(swizzle.as_deref(), Some(&b"r001\0"[..]));
    assert_eq!(u16_samples(&levels[0]), samples);
    assert_eq!(u16_samples(&levels[1]), [201]);
}

#[test]
fn linear_16_bit_data_is_rgba16_and_a_directx_normal_flips_at_16_bits() {
    let samples = deep_samples();
    let (format, _, levels) =
        encode_png16((4, 2), ColorType::Rgba, &samples, &raw(TextureMode::Linear));
    assert_eq!(format, ktx2::VK_FORMAT_R16G16B16A16_UNORM);
    assert_eq!(u16_samples(&levels[0]), samples);
    let flip = TextureOptions {
        flip_green: true,
        ..raw(TextureMode::Normal)
    };
    let (_, _, flipped) = encode_png16((4, 2), ColorType::Rgba, &samples, &flip);
    let xy: Vec<u16> = samples
        .chunks_exact(4)
        .flat_map(|t| [t[0], u16::MAX - t[1]])
        .collect();
    assert_eq!(u16_samples(&flipped[0]), xy);
}

#[test]
fn sixteen_bit_colour_is_rounded_to_8_bit_srgb_as_before() {
    let samples = deep_samples();
    let (format, _, levels) =
        encode_png16((4, 2), ColorType::Rgba, &samples, &raw(TextureMode::Color));
    assert_eq!(format, ktx2::VK_FORMAT_R8G8B8A8_SRGB);
    let rounded: Vec<u8> = samples.iter().map(|&s| round_16_to_8(s)).collect();
    assert_eq!(levels[0], rounded);
}

/// A 2x2 float image whose samples half floats hold exactly.
fn float_image() -> RgbaF32Image {
    RgbaF32Image {
        width: 2,
        height: 2,
        pixels: vec![
            0.5, 1.0, 2.0, 1.0, //
            100.0, 0.25, 0.0, 1.0, //
            -1.5, 3.0, 8.0, 0.5, //
            0.125, 65504.0, 4.0, 0.0,
        ],
    }
}

#[test]
fn float_sources_are_written_as_half_floats_exactly() {
    let image = float_image();
    let file = hdr::encode_hdr(
        std::slice::from_ref(&image),
        Shape::Plain,
        &raw(TextureMode::Color),
    )
    .unwrap();
    let (format, swizzle, levels) = read(&file);
    assert_eq!(format, ktx2::VK_FORMAT_R16G16B16A16_SFLOAT);
    assert_eq!(swizzle, None);
    let halves: Vec<f32> = levels[0]
        .chunks_exact(2)
        .map(|pair| half::f16::from_le_bytes([pair[0], pair[1]]).to_f32())
        .collect();
    assert_eq!(halves, image.pixels);
    // Level 1 is the alpha-weighted average, in linear light.
    let level1: Vec<f32> = levels[1]
        .chunks_exact(2)
        .map(|pair| half::f16::from_le_bytes([pair[0], pair[1]]).to_f32())
        .collect();
    assert_eq!(level1[3], 0.625);
    let red = (0.5 * 1.0 + 100.0 * 1.0 - 1.5 * 0.5 + 0.125 * 0.0) / 2.5;
    assert_eq!(level1[0], half::f16::from_f32(red as f32).to_f32());
}

#[test]
fn float_sources_can_be_written_as_rgb9e5() {
    let image = float_image();
    let options = TextureOptions {
        hdr_format: HdrFormat::Rgb9e5,
        min_psnr: None,
        pixel_art: None,
        mips: false,
        ..raw(TextureMode::Color)
    };
    let file = hdr::encode_hdr(std::slice::from_ref(&image), Shape::Plain, &options).unwrap();
    let (format, _, levels) = read(&file);
    assert_eq!(format, ktx2::VK_FORMAT_E5B9G9R9_UFLOAT_PACK32);
    let texels: Vec<[f32; 3]> = levels[0]
        .chunks_exact(4)
        .map(|word| unpack_rgb9e5(u32::from_le_bytes([word[0], word[1], word[2], word[3]])))
        .collect();
    // Every value here is exact in RGB9E5 next to its texel's largest
    // channel, except the negative, which becomes 0, and 0.125 beside 65504,
    // below that exponent's step.
    assert_eq!(
        texels,
        [
            [0.5, 1.0, 2.0],
            [100.0, 0.25, 0.0],
            [0.0, 3.0, 8.0],
            [0.0, 65408.0, 0.0]
        ]
    );
}

#[test]
fn float_normal_maps_are_refused() {
    let error =
        hdr::encode_hdr(&[float_image()], Shape::Plain, &raw(TextureMode::Normal)).unwrap_err();
    assert!(matches!(error, TextureError::HdrNormalMap), "{error}");
}

#[test]
fn the_new_formats_dfds_match_the_ktx2_crate_generator() {
    for (format, ours) in [
        (::ktx2::Format::R16_UNORM, TexelFormat::R16Unorm),
        (::ktx2::Format::R16G16_UNORM, TexelFormat::Rg16Unorm),
        (::ktx2::Format::R16G16B16A16_UNORM, TexelFormat::Rgba16Unorm),
        (::ktx2::Format::E5B9G9R9_UFLOAT_PACK32, TexelFormat::Rgb9e5),
    ] {
        let (basic, type_size) = ::ktx2::dfd::Basic::from_format(format).unwrap();
        let block = ::ktx2::dfd::Block::Basic(basic).to_vec();
        let one_texel = [vec![RgbaImage::<u8> {
            width: 1,
            height: 1,
            pixels: vec![0; 4],
        }]];
        let level = vec![0; ours.texel_block_size() as usize];
        let options = raw(TextureMode::Linear);
        let file = write_texture(ours, &one_texel, Shape::Plain, &options, &[level]).unwrap();
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        assert_eq!(reader.header().format, Some(format));
        assert_eq!(reader.header().type_size, type_size, "{format:?}");
        let index = reader.header().index;
        let start = index.dfd_byte_offset as usize + 4;
        let dfd = &file[start..index.dfd_byte_offset as usize + index.dfd_byte_length as usize];
        assert_eq!(dfd, block, "{format:?}");
        ktx2::validate(&file).unwrap();
    }
}
