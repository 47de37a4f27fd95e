//! Tests of the WebP, TGA, BMP, TIFF, HDR, EXR and SVG sources: files made
//! with the `image` crate's own encoders (and by hand where a layout needs
//! it), decoded back, and broken ones refused.

use image::ExtendedColorType;

use super::test_sources::{
    bmp, bottom_left_tga, encoded, exr, noise_rgba8, radiance, tga, tga_header, tiff, webp,
};
use super::*;

fn ldr(image: SourceImage) -> Rgba8Image {
    match image {
        SourceImage::Ldr(image) => image,
        other => panic!("not 8-bit: {:?}", other.size()),
    }
}

fn decode_as(bytes: &[u8], extension: &str) -> Result<SourceImage, ImageError> {
    let hints = SourceHints {
        extension: Some(extension),
        svg_size: None,
    };
    decode_source(bytes, &hints)
}

#[test]
fn lossless_webp_decodes_exactly() {
    let pixels = noise_rgba8(13, 7, 3);
    let image = ldr(decode_as(&webp(13, 7, &pixels), "webp").unwrap());
    assert_eq!((image.width, image.height), (13, 7));
    assert!(image.pixels == pixels);
}

#[test]
fn a_lossy_webp_decodes_close_to_its_source() {
    // tests/data/textures/README.md says how this file was made: cwebp -q 90
    // of a 16x16 image whose pixel (x, y) is (16x, 16y, 128, 255).
    let file = include_bytes!("../../../tests/data/textures/lossy.webp");
    let image = ldr(decode_as(file, "webp").unwrap());
    assert_eq!((image.width, image.height), (16, 16));
    let mut worst = 0;
    for (index, texel) in image.pixels.chunks_exact(4).enumerate() {
        let (x, y) = (index % 16, index / 16);
        let expected = [16 * x, 16 * y, 128, 255];
        for (&got, want) in texel.iter().zip(expected) {
            worst = worst.max((i32::from(got) - want as i32).abs());
        }
    }
    assert!(worst <= 24, "largest error {worst}");
}

#[test]
fn tga_files_decode_exactly_rle_or_not() {
    let pixels = noise_rgba8(9, 5, 4);
    let rle = tga(9, 5, &pixels, true);
    assert_eq!(
        rle[2], 10,
        "the encoder writes run-length encoded true colour"
    );
    assert!(ldr(decode_as(&rle, "tga").unwrap()).pixels == pixels);
    let plain = tga(9, 5, &pixels, false);
    assert_eq!(plain[2], 2);
    assert!(ldr(decode_as(&plain, "TGA").unwrap()).pixels == pixels);
}

#[test]
fn a_bottom_left_origin_tga_comes_out_right_way_up() {
    let top = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 128]].concat();
    let bottom = [[10, 20, 30, 40], [50, 60, 70, 80], [90, 100, 110, 120]].concat();
    let pixels = [top, bottom].concat();
    let file = bottom_left_tga(3, 2, &pixels);
    // The bottom row is stored first.
    assert_eq!(file[19..23], [30, 20, 10, 40]);
    let image = ldr(decode_as(&file, "tga").unwrap());
    assert_eq!((image.width, image.height), (3, 2));
    assert_eq!(image.pixels, pixels);
}

#[test]
fn bmp_files_decode_exactly() {
    let pixels = noise_rgba8(6, 4, 5);
    assert!(ldr(decode_as(&bmp(6, 4, &pixels), "bmp").unwrap()).pixels == pixels);
    let rgb: Vec<u8> = pixels
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let file = encoded(|file| {
        use image::ImageEncoder;
        image::codecs::bmp::BmpEncoder::new(file).write_image(&rgb, 6, 4, ExtendedColorType::Rgb8)
    });
    let opaque: Vec<u8> = rgb
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    assert!(ldr(decode_as(&file, "bmp").unwrap()).pixels == opaque);
}

#[test]
fn tiff_keeps_8_16_and_32_bit_float_samples() {
    let pixels = noise_rgba8(5, 3, 6);
    let file = tiff(5, 3, &pixels, ExtendedColorType::Rgba8);
    assert!(ldr(decode_as(&file, "tif").unwrap()).pixels == pixels);

    let deep: Vec<u16> = (0..5 * 3 * 4).map(|i| (i * 1031 + 7) as u16).collect();
    let file = tiff(5, 3, bytemuck::cast_slice(&deep), ExtendedColorType::Rgba16);
    match decode_as(&file, "tiff").unwrap() {
        SourceImage::Deep(image) => assert_eq!(image.pixels, deep),
        other => panic!("{other:?}"),
    }
    let gray: Vec<u16> = (0..5 * 3).map(|i| (i * 4099) as u16).collect();
    let file = tiff(5, 3, bytemuck::cast_slice(&gray), ExtendedColorType::L16);
    match decode_as(&file, "tif").unwrap() {
        SourceImage::Deep(image) => {
            let expected: Vec<u16> = gray.iter().flat_map(|&g| [g, g, g, 65535]).collect();
            assert_eq!(image.pixels, expected);
        }
        other => panic!("{other:?}"),
    }
    let float: Vec<f32> = (0..5 * 3 * 4).map(|i| i as f32 * 0.375 - 2.0).collect();
    let file = tiff(
        5,
        3,
        bytemuck::cast_slice(&float),
        ExtendedColorType::Rgba32F,
    );
    match decode_as(&file, "tif").unwrap() {
        SourceImage::Hdr(image) => assert_eq!(image.pixels, float),
        other => panic!("{other:?}"),
    }
}

#[test]
fn exr_float_samples_decode_exactly_and_nan_becomes_zero() {
    let mut samples: Vec<f32> = (0..4 * 2 * 4).map(|i| i as f32 * 0.625 - 3.0).collect();
    let file = exr(4, 2, &samples);
    match decode_as(&file, "exr").unwrap() {
        SourceImage::Hdr(image) => {
            assert_eq!((image.width, image.height), (4, 2));
            assert_eq!(image.pixels, samples);
        }
        other => panic!("{other:?}"),
    }
    samples[0] = f32::NAN;
    samples[1] = f32::INFINITY;
    samples[2] = -1e9;
    match decode_as(&exr(4, 2, &samples), "exr").unwrap() {
        SourceImage::Hdr(image) => {
            assert_eq!(image.pixels[..3], [0.0, 65504.0, -65504.0]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn radiance_hdr_decodes_within_its_eight_bit_mantissa() {
    let samples: Vec<f32> = (0..6 * 4 * 3)
        .map(|i| (i as f32 * 0.2).exp2() * 0.01)
        .collect();
    let image = match decode_as(&radiance(6, 4, &samples), "hdr").unwrap() {
        SourceImage::Hdr(image) => image,
        other => panic!("{other:?}"),
    };
    assert_eq!((image.width, image.height), (6, 4));
    for (pixel, source) in image.pixels.chunks_exact(4).zip(samples.chunks_exact(3)) {
        let largest = source.iter().copied().fold(0.0, f32::max);
        for (got, want) in pixel.iter().zip(source) {
            assert!((got - want).abs() <= largest / 128.0, "{got} {want}");
        }
        assert_eq!(pixel[3], 1.0);
    }
}

const HALF_RED_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4">
<rect x="0" y="0" width="4" height="4" fill="#ff0000"/>
<rect x="4" y="0" width="4" height="4" fill="#0000ff" fill-opacity="0.5"/>
</svg>"##;

#[test]
fn svg_is_rasterised_at_its_own_size_or_the_setting() {
    let image = ldr(decode_as(HALF_RED_SVG.as_bytes(), "svg").unwrap());
    assert_eq!((image.width, image.height), (8, 4));
    assert_eq!(image.pixels[..4], [255, 0, 0, 255]);
    let right = &image.pixels[4 * 7..4 * 8];
    assert_eq!([right[0], right[1], right[3]], [0, 0, 128]);
    assert!(right[2] >= 254, "{right:?}");
    let hints = SourceHints {
        extension: Some("svg"),
        svg_size: Some(32),
    };
    let large = ldr(decode_source(HALF_RED_SVG.as_bytes(), &hints).unwrap());
    assert_eq!((large.width, large.height), (32, 16));
}

#[test]
fn formats_without_a_signature_need_their_extension() {
    let error = decode_source(HALF_RED_SVG.as_bytes(), &SourceHints::default()).unwrap_err();
    assert!(matches!(error, ImageError::UnknownFormat { .. }), "{error}");
    // A signature wins over the extension.
    let png = super::test_images::small_png();
    assert!(matches!(decode_as(&png, "tga"), Ok(SourceImage::Ldr(_))));
}

/// Every prefix of `file` shorter than `cut_below` fails to decode (and
/// does not panic).
fn every_cut_fails(file: &[u8], extension: &str, lengths: impl Iterator<Item = usize>) {
    for length in lengths {
        assert!(
            decode_as(&file[..length], extension).is_err(),
            "{extension} cut to {length} of {} bytes decoded",
            file.len()
        );
    }
}

#[test]
fn truncated_files_of_every_kind_are_refused() {
    let pixels = noise_rgba8(16, 16, 8);
    let webp = webp(16, 16, &pixels);
    every_cut_fails(&webp, "webp", 0..webp.len());
    let tga = tga(16, 16, &pixels, false);
    // A TGA may end with an optional footer; cutting into the pixels fails.
    every_cut_fails(&tga, "tga", 0..18 + 16 * 16 * 4);
    let bmp = bmp(16, 16, &pixels);
    every_cut_fails(&bmp, "bmp", 0..bmp.len());
    let tif = tiff(16, 16, &pixels, ExtendedColorType::Rgba8);
    every_cut_fails(&tif, "tif", (0..tif.len()).step_by(7));
    let floats: Vec<f32> = (0..16 * 16 * 4).map(|i| i as f32).collect();
    let exr_file = exr(16, 16, &floats);
    every_cut_fails(&exr_file, "exr", (0..exr_file.len()).step_by(11));
    let rgb: Vec<f32> = (0..16 * 16 * 3).map(|i| i as f32).collect();
    let hdr = radiance(16, 16, &rgb);
    every_cut_fails(&hdr, "hdr", (0..hdr.len()).step_by(5));
    every_cut_fails(HALF_RED_SVG.as_bytes(), "svg", 0..HALF_RED_SVG.len() - 7);
}

#[test]
fn huge_declared_sizes_are_refused_from_the_header() {
    let mut tga = tga_header(2, 20000, 2);
    tga.extend([1, 2, 3, 4]);
    let error = decode_as(&tga, "tga").unwrap_err();
    assert!(
        matches!(error, ImageError::TooLarge { width: 20000, .. }),
        "{error}"
    );
    let hdr = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 3 +X 40000\n\x02\x02";
    let error = decode_as(hdr, "hdr").unwrap_err();
    assert!(
        matches!(error, ImageError::TooLarge { width: 40000, .. }),
        "{error}"
    );
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="99999" height="2"/>"#;
    let error = decode_as(svg.as_bytes(), "svg").unwrap_err();
    assert!(error.to_string().contains("99999x2"), "{error}");
}

#[test]
fn sizes_the_data_cannot_hold_are_refused_before_decoding() {
    // 8000x8000 uncompressed RGBA in a file of 30 bytes.
    let mut tga = tga_header(2, 8000, 8000);
    tga.extend([0; 12]);
    let error = decode_as(&tga, "tga").unwrap_err();
    assert!(matches!(error, ImageError::Unbacked { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("truncated or a decompression bomb"),
        "{error}"
    );
    // Float images count four bytes a sample against the total.
    assert!(
        check_backed_size(ImageFormat::Exr, (8192, 8192), 8192 * 8192 * 16, usize::MAX).is_ok()
    );
    let error = check_backed_size(
        ImageFormat::Exr,
        (16384, 8192),
        16384 * 8192 * 16,
        usize::MAX,
    )
    .unwrap_err();
    assert!(error.to_string().contains("at most 1073741824"), "{error}");
}

#[test]
fn bad_headers_are_refused_naming_the_format() {
    let cases: [(&[u8], &str, &str); 5] = [
        (
            b"RIFF\x10\x00\x00\x00WEBPVP8Z\x00\x00\x00\x00",
            "webp",
            "WebP",
        ),
        (
            b"BM\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff",
            "bmp",
            "BMP",
        ),
        (b"II*\x00\xff\xff\xff\x7f", "tif", "TIFF"),
        (b"#?RADIANCE\nFORMAT=nonsense\n\n", "hdr", "Radiance HDR"),
        (&[0x76, 0x2f, 0x31, 0x01, 9, 9, 9, 9], "exr", "OpenEXR"),
    ];
    for (bytes, extension, name) in cases {
        let error = decode_as(bytes, extension).unwrap_err();
        assert!(error.to_string().contains(name), "{extension}: {error}");
    }
    let error = decode_as(b"<svg", "svg").unwrap_err();
    assert!(error.to_string().contains("SVG"), "{error}");
}

/// A one-channel OpenEXR file (a height field's `Y`), which the `image`
/// crate refuses for want of R, G and B, decodes as gray through `exr`.
#[test]
fn a_one_channel_exr_decodes_as_gray() {
    use exr::prelude::{AnyChannel, AnyChannels, FlatSamples, Image, SmallVec, WritableImage};
    let values: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
    let channels = AnyChannels::sort(SmallVec::from_vec(vec![AnyChannel::new(
        "Y",
        FlatSamples::F32(values.clone()),
    )]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    Image::from_channels((4, 3), channels)
        .write()
        .to_buffered(&mut bytes)
        .unwrap();
    let SourceImage::Hdr(image) = decode_as(bytes.get_ref(), "exr").unwrap() else {
        panic!("a float image")
    };
    assert_eq!((image.width, image.height), (4, 3));
    let expected: Vec<f32> = values.iter().flat_map(|&v| [v, v, v, 1.0]).collect();
    assert_eq!(image.pixels, expected);
    // Cut short, it is refused rather than read past its end.
    let cut = &bytes.get_ref()[..bytes.get_ref().len() - 20];
    assert!(decode_as(cut, "exr").is_err());
}
