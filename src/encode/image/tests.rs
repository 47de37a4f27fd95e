use super::jpeg::{
    JPEG_SIGNATURE, JpegLayout, check_jpeg_data_size, check_jpeg_structure, skip_entropy_coded_data,
};
use super::png::{PNG_SIGNATURE, check_png_header};
use super::test_images::*;
use super::*;

#[test]
fn every_png_layout_decodes_exactly() {
    for case in png_cases() {
        let image = decode_image(&case.file).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!((image.width, image.height), (case.width, case.height));
        assert!(image.pixels == case.expected, "{}", case.name);
    }
}

#[test]
fn sixteen_bit_samples_round_to_nearest() {
    assert_eq!(round_16_to_8(0), 0);
    assert_eq!(round_16_to_8(128), 0);
    assert_eq!(round_16_to_8(129), 1);
    assert_eq!(round_16_to_8(257 * 200), 200);
    assert_eq!(round_16_to_8(257 * 200 + 128), 200);
    assert_eq!(round_16_to_8(257 * 200 + 129), 201);
    assert_eq!(round_16_to_8(65535), 255);
}

#[test]
fn unknown_and_empty_inputs_are_rejected() {
    let error = decode_image(b"").unwrap_err();
    assert!(matches!(error, ImageError::UnknownFormat { .. }));
    assert!(error.to_string().contains("empty"), "{error}");
    let mut noise = Noise::new(99);
    let random: Vec<u8> = (0..300).map(|_| noise.next() as u8).collect();
    assert!(matches!(
        decode_image(&random),
        Err(ImageError::UnknownFormat { .. })
    ));
    let gif = b"GIF89a\x01\x00\x01\x00";
    let error = decode_image(gif).unwrap_err();
    assert!(error.to_string().contains("47 49 46 38"), "{error}");
}

#[test]
fn random_bytes_after_a_signature_are_rejected() {
    let mut noise = Noise::new(7);
    for signature in [&PNG_SIGNATURE[..], &JPEG_SIGNATURE[..]] {
        for length in [0, 1, 10, 100, 1000] {
            let mut file = signature.to_vec();
            file.extend((0..length).map(|_| noise.next() as u8));
            assert!(decode_image(&file).is_err());
        }
    }
}

#[test]
fn every_truncated_png_is_rejected() {
    let file = small_png();
    for length in 0..file.len() {
        let error = decode_image(&file[..length]);
        assert!(error.is_err(), "length {length}");
    }
}

#[test]
fn corrupt_png_data_is_rejected() {
    let file = small_png();
    // Byte 29 is the last byte of the IHDR CRC; byte 45 lies in the IDAT data.
    for position in [29, 45, file.len() - 20] {
        let mut corrupt = file.clone();
        corrupt[position] ^= 0x5A;
        match decode_image(&corrupt) {
            Err(ImageError::Corrupt { format, offset, .. }) => {
                assert_eq!(format, ImageFormat::Png);
                assert!(offset.is_some());
            }
            other => panic!("byte {position}: {other:?}"),
        }
    }
}

/// `file` with the IHDR width and height replaced (the CRC is left stale:
/// the size check must come first).
fn with_png_size(file: &[u8], width: u32, height: u32) -> Vec<u8> {
    let mut copy = file.to_vec();
    copy[16..20].copy_from_slice(&width.to_be_bytes());
    copy[20..24].copy_from_slice(&height.to_be_bytes());
    copy
}

#[test]
fn the_largest_sizes_are_accepted() {
    for (width, height) in [(MAX_DIMENSION, 1), (1, MAX_DIMENSION)] {
        let image = decode_image(&gray_ramp_png(width, height)).unwrap();
        assert_eq!((image.width, image.height), (width, height));
        assert_eq!(&image.pixels[4 * 300..4 * 301], [44, 44, 44, 255]);
    }
}

#[test]
fn png_sizes_are_checked_before_decoding() {
    let file = small_png();
    let error = decode_image(&with_png_size(&file, 0, 5)).unwrap_err();
    assert!(
        matches!(
            error,
            ImageError::ZeroSize {
                width: 0,
                height: 5,
                ..
            }
        ),
        "{error}"
    );
    let error = decode_image(&with_png_size(&file, 20000, 1)).unwrap_err();
    assert!(
        matches!(
            error,
            ImageError::TooLarge {
                width: 20000,
                height: 1,
                limit: 16384,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("16384"), "{error}");
    let error = decode_image(&with_png_size(&file, u32::MAX, u32::MAX)).unwrap_err();
    assert!(matches!(error, ImageError::TooLarge { .. }), "{error}");
}

/// A 16x8 JPEG of two flat blocks per component.
fn two_block_jpeg(blocks: &[Vec<u8>]) -> Vec<u8> {
    flat_block_jpeg(16, 8, blocks)
}

fn block_pixels(image: &Rgba8Image, x: usize, y: usize) -> [u8; 4] {
    let start = (y * image.width as usize + x) * 4;
    let p = &image.pixels[start..start + 4];
    [p[0], p[1], p[2], p[3]]
}

#[test]
fn grayscale_jpeg_decodes_to_opaque_gray() {
    let image = decode_image(&two_block_jpeg(&[vec![30, 200]])).unwrap();
    assert_eq!((image.width, image.height), (16, 8));
    assert_eq!(block_pixels(&image, 3, 4), [30, 30, 30, 255]);
    assert_eq!(block_pixels(&image, 12, 7), [200, 200, 200, 255]);
}

#[test]
fn colour_jpeg_decodes_to_opaque_rgb() {
    // Block 0 is neutral; block 1 has Cb = 90, Cr = 170.
    let file = two_block_jpeg(&[vec![100, 120], vec![128, 90], vec![128, 170]]);
    let image = decode_image(&file).unwrap();
    assert_eq!(block_pixels(&image, 2, 2), [100, 100, 100, 255]);
    let [r, g, b, a] = block_pixels(&image, 10, 5);
    // JFIF: R = Y + 1.402 Cr', G = Y - 0.344 Cb' - 0.714 Cr', B = Y + 1.772 Cb'.
    let close = |actual: u8, expected: f64| (f64::from(actual) - expected).abs() <= 2.0;
    assert!(close(r, 120.0 + 1.402 * 42.0), "{r}");
    assert!(
        close(g, 120.0 - 0.344_136 * -38.0 - 0.714_136 * 42.0),
        "{g}"
    );
    assert!(close(b, 120.0 + 1.772 * -38.0), "{b}");
    assert_eq!(a, 255);
}

/// A JPEG of `size`x`size` pixels whose blocks have random levels.
fn noisy_jpeg(size: u16) -> Vec<u8> {
    let mut noise = Noise::new(5);
    let count = usize::from(size / 8).pow(2);
    let blocks: Vec<u8> = (0..count).map(|_| noise.next() as u8).collect();
    flat_block_jpeg(size, size, &[blocks])
}

#[test]
fn every_truncated_jpeg_is_rejected() {
    let file = noisy_jpeg(64);
    assert!(decode_image(&file).is_ok());
    for length in 0..file.len() {
        assert!(decode_image(&file[..length]).is_err(), "length {length}");
    }
    let large = noisy_jpeg(512);
    for length in [200, large.len() / 2, large.len() - 2] {
        match decode_image(&large[..length]) {
            Err(ImageError::Corrupt { offset, .. }) => assert_eq!(offset, Some(length as u64)),
            other => panic!("length {length}: {other:?}"),
        }
    }
}

#[test]
fn jpeg_markers_are_walked_through_stuffing_and_fill_bytes() {
    // FF 00 (stuffed), FF D3 (restart) and FF FF (fill) do not end a scan.
    let scan = [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56, 0xFF, 0xFF, 0xD9];
    assert_eq!(skip_entropy_coded_data(&scan, 0), Some(8));
    assert_eq!(skip_entropy_coded_data(&scan[..8], 0), None);
    let mut file = noisy_jpeg(16);
    file.extend(b"trailing bytes after the end-of-image marker");
    assert!(check_jpeg_structure(&file).is_ok());
}

#[test]
fn oversized_jpeg_is_rejected_from_its_header() {
    let file = flat_block_jpeg(20000, 1, &[vec![0]]);
    let error = decode_image(&file).unwrap_err();
    assert!(
        matches!(
            error,
            ImageError::TooLarge {
                format: ImageFormat::Jpeg,
                width: 20000,
                ..
            }
        ),
        "{error}"
    );
}

/// A PNG signature, an `IHDR` for `width`x`height` at `depth` bits and
/// `colour_type`, and one `IDAT` of `data_len` bytes (CRCs left zero:
/// only the size check reads these files).
fn sized_png(width: u32, height: u32, depth: u8, colour_type: u8, data_len: usize) -> Vec<u8> {
    let mut file = PNG_SIGNATURE.to_vec();
    file.extend(13u32.to_be_bytes());
    file.extend(b"IHDR");
    file.extend(width.to_be_bytes());
    file.extend(height.to_be_bytes());
    file.extend([depth, colour_type, 0, 0, 0, 0, 0, 0, 0]);
    file.extend((data_len as u32).to_be_bytes());
    file.extend(b"IDAT");
    file.extend(vec![0; data_len + 4]);
    file.extend([0, 0, 0, 0]);
    file.extend(b"IEND");
    file
}

#[test]
fn png_data_may_be_exactly_the_deflate_bound_and_no_smaller() {
    // 1032x8 gray at 8 bits is 8256 sample bytes: at least 8 IDAT bytes.
    assert!(check_png_header(&sized_png(1032, 8, 8, 0, 8)).is_ok());
    let error = check_png_header(&sized_png(1032, 8, 8, 0, 7)).unwrap_err();
    assert!(error.to_string().contains("hold 7 bytes"), "{error}");
    assert!(error.to_string().contains("at least 8"), "{error}");
    // 16-bit RGBA at the size limit needs 2 GiB / 1032 bytes.
    let error = check_png_header(&sized_png(16384, 16384, 16, 6, 1000)).unwrap_err();
    assert!(error.to_string().contains("at least 2080896"), "{error}");
}

#[test]
fn jpeg_scans_may_be_exactly_one_bit_per_block_and_no_smaller() {
    // 64x64 gray is 64 blocks: at least 8 bytes of scan data.
    let file = flat_block_jpeg(64, 64, &[vec![128; 64]]);
    let layout = |entropy_bytes| JpegLayout {
        frame: check_jpeg_structure(&file).unwrap().frame,
        entropy_bytes,
    };
    assert!(check_jpeg_data_size(&file, &layout(8)).is_ok());
    let error = check_jpeg_data_size(&file, &layout(7)).unwrap_err();
    assert!(error.to_string().contains("hold 7 bytes"), "{error}");
    assert!(error.to_string().contains("at least 8"), "{error}");
}
