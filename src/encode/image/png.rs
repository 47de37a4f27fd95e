//! PNG sources through the `png` crate, with the size checks that run
//! before its pixel buffer is allocated.

use std::io::Cursor;

use super::{
    ImageError, ImageFormat, MAX_DEFLATE_RATIO, Rgba8Image, Rgba16Image, SourceImage,
    check_dimensions,
};

/// The signature every PNG file starts with.
pub(super) const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// Reads the size from the PNG's `IHDR` chunk (which the format requires to be
/// first, at byte 8) and checks it. A file too short to hold it is left to the
/// decoder to reject.
pub(super) fn check_png_header(bytes: &[u8]) -> Result<(), ImageError> {
    let Some(ihdr) = bytes.get(12..24) else {
        return Ok(());
    };
    if &ihdr[..4] != b"IHDR" {
        return Ok(());
    }
    let width = u32::from_be_bytes([ihdr[4], ihdr[5], ihdr[6], ihdr[7]]);
    let height = u32::from_be_bytes([ihdr[8], ihdr[9], ihdr[10], ihdr[11]]);
    check_dimensions(ImageFormat::Png, width, height)?;
    let Some(&[depth, colour_type]) = bytes.get(24..26) else {
        return Ok(());
    };
    check_png_data_size(bytes, width, height, depth, colour_type)
}

/// Refuses a PNG whose `IDAT` chunks are too small to inflate to the image
/// its header declares, even at deflate's best ratio
/// ([`MAX_DEFLATE_RATIO`]), before any pixel buffer is allocated. Unknown
/// colour types are left to the decoder.
fn check_png_data_size(
    bytes: &[u8],
    width: u32,
    height: u32,
    depth: u8,
    colour_type: u8,
) -> Result<(), ImageError> {
    let channels: u64 = match colour_type {
        0 | 3 => 1,
        2 => 3,
        4 => 2,
        6 => 4,
        _ => return Ok(()),
    };
    // The samples alone, without the filter bytes: a lower bound for both
    // plain and interlaced images.
    let sample_bits = u64::from(width) * u64::from(height) * channels * u64::from(depth);
    let needed = sample_bits.div_ceil(8).div_ceil(MAX_DEFLATE_RATIO);
    let present = png_image_data_len(bytes);
    if present >= needed {
        return Ok(());
    }
    Err(ImageError::Corrupt {
        format: ImageFormat::Png,
        message: format!(
            "its IDAT chunks hold {present} bytes, but a {width}x{height} image needs at least \
             {needed} even at deflate's best ratio ({MAX_DEFLATE_RATIO}:1)"
        ),
        offset: None,
    })
}

/// The bytes of image data in the `IDAT` chunks present in a PNG file, as
/// their length fields say (cut short at the end of a truncated file).
fn png_image_data_len(bytes: &[u8]) -> u64 {
    let mut total = 0;
    let mut position = PNG_SIGNATURE.len();
    while let Some(header) = bytes.get(position..position + 8) {
        let length = u64::from(u32::from_be_bytes([
            header[0], header[1], header[2], header[3],
        ]));
        let available = (bytes.len() - position - 8) as u64;
        match &header[4..] {
            b"IDAT" => total += length.min(available),
            b"IEND" => break,
            _ => {}
        }
        let Some(next) = usize::try_from(length)
            .ok()
            .and_then(|length| position.checked_add(12 + length))
        else {
            break;
        };
        position = next;
    }
    total
}

/// A PNG decoding failure, before the decoder's read position is attached.
enum PngFailure {
    /// The `png` crate reported an error.
    Decoder(png::DecodingError),
    /// We rejected the image ourselves.
    Image(ImageError),
}

impl From<png::DecodingError> for PngFailure {
    fn from(error: png::DecodingError) -> Self {
        Self::Decoder(error)
    }
}

impl From<ImageError> for PngFailure {
    fn from(error: ImageError) -> Self {
        Self::Image(error)
    }
}

/// Decodes a PNG file: 16-bit files to [`SourceImage::Deep`], every other
/// depth to [`SourceImage::Ldr`].
pub(super) fn decode_png(bytes: &[u8]) -> Result<SourceImage, ImageError> {
    check_png_header(bytes)?;
    let mut cursor = Cursor::new(bytes);
    read_png(&mut cursor).map_err(|failure| match failure {
        PngFailure::Image(error) => error,
        PngFailure::Decoder(error) => ImageError::Corrupt {
            format: ImageFormat::Png,
            message: error.to_string(),
            offset: Some(cursor.position()),
        },
    })
}

/// Runs the `png` decoder over `cursor` and converts its first frame to RGBA.
fn read_png(cursor: &mut Cursor<&[u8]>) -> Result<SourceImage, PngFailure> {
    let mut decoder = png::Decoder::new(cursor);
    // EXPAND: palette -> RGB(A), tRNS -> alpha, 1/2/4-bit gray -> 8-bit gray.
    // 16-bit samples are kept.
    decoder.set_transformations(png::Transformations::EXPAND);
    let info = decoder.read_header_info()?;
    check_dimensions(ImageFormat::Png, info.width, info.height)?;
    let mut reader = decoder.read_info()?;
    let buffer_len = reader
        .output_buffer_size()
        .ok_or(png::DecodingError::LimitsExceeded)?;
    let mut buffer = vec![0; buffer_len];
    let frame = reader.next_frame(&mut buffer)?;
    // Read on to IEND, so a file cut short after its image data is caught too.
    reader.finish()?;
    buffer.truncate(frame.buffer_size());
    let channels = png_channels(frame.color_type, frame.bit_depth)?;
    let (width, height) = (frame.width, frame.height);
    Ok(match frame.bit_depth {
        png::BitDepth::Eight => SourceImage::Ldr(Rgba8Image {
            width,
            height,
            pixels: expand_to_rgba(&buffer, channels, u8::MAX),
        }),
        png::BitDepth::Sixteen => {
            let samples: Vec<u16> = buffer
                .chunks_exact(2)
                .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
                .collect();
            SourceImage::Deep(Rgba16Image {
                width,
                height,
                pixels: expand_to_rgba(&samples, channels, u16::MAX),
            })
        }
        other => return Err(unexpected_png_layout(frame.color_type, other).into()),
    })
}

/// The samples per pixel of the decoder's expanded output (8 or 16-bit
/// gray, gray+alpha, RGB or RGBA).
fn png_channels(color_type: png::ColorType, bit_depth: png::BitDepth) -> Result<usize, ImageError> {
    match color_type {
        png::ColorType::Grayscale => Ok(1),
        png::ColorType::GrayscaleAlpha => Ok(2),
        png::ColorType::Rgb => Ok(3),
        png::ColorType::Rgba => Ok(4),
        png::ColorType::Indexed => Err(unexpected_png_layout(color_type, bit_depth)),
    }
}

/// Expands gray, gray+alpha and RGB pixels of `channels` samples to RGBA:
/// gray is copied into R, G and B, and missing alpha is `opaque`.
pub(super) fn expand_to_rgba<T: Copy>(samples: &[T], channels: usize, opaque: T) -> Vec<T> {
    samples
        .chunks_exact(channels)
        .flat_map(|pixel| match *pixel {
            [gray] => [gray, gray, gray, opaque],
            [gray, alpha] => [gray, gray, gray, alpha],
            [r, g, b] => [r, g, b, opaque],
            [r, g, b, a] => [r, g, b, a],
            _ => unreachable!("chunks of 1 to 4 samples"),
        })
        .collect()
}

/// The error for a decoder output layout that expansion should have ruled out.
fn unexpected_png_layout(color_type: png::ColorType, bit_depth: png::BitDepth) -> ImageError {
    ImageError::Corrupt {
        format: ImageFormat::Png,
        message: format!("unexpected decoded layout {color_type:?} at {bit_depth:?}"),
        offset: None,
    }
}
