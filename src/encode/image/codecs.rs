//! WebP, TGA, BMP, TIFF, Radiance HDR and OpenEXR sources through the
//! `image` crate's decoders.
//!
//! Each decoder reads its header first; the declared size is checked against
//! [`MAX_DIMENSION`](super::MAX_DIMENSION) and against the bytes the file
//! holds before the pixels are decoded. The result
//! keeps the file's precision: 8-bit layouts become [`SourceImage::Ldr`],
//! 16-bit ones (TIFF) [`SourceImage::Deep`], float ones (HDR, EXR, float
//! TIFF) [`SourceImage::Hdr`]. Gray is copied into R, G and B and missing
//! alpha is opaque, as for PNG.
//!
//! Float samples arrive as the file holds them; [`super::decode_source`]
//! then cleans them ([`sanitised`]: NaN becomes 0 and infinities the largest
//! finite half float, ±65504, since every float texture assetc writes stores
//! half floats or less), while image-based lighting refuses them instead.

use std::io::Cursor;

use image::codecs::bmp::BmpDecoder;
use image::codecs::hdr::HdrDecoder;
use image::codecs::openexr::OpenExrDecoder;
use image::codecs::tga::TgaDecoder;
use image::codecs::tiff::TiffDecoder;
use image::codecs::webp::WebPDecoder;
use image::{DynamicImage, ImageBuffer, ImageDecoder, Limits, Pixel};

use super::{
    ImageError, ImageFormat, MAX_DECODED_BYTES, RgbaF32Image, RgbaImage, SourceImage,
    check_backed_size, check_dimensions,
};

/// The largest finite half float; float samples are clamped to it.
pub const HALF_MAX: f32 = 65504.0;

/// Decodes `bytes` as `format`, one of the formats this module reads.
pub(super) fn decode(format: ImageFormat, bytes: &[u8]) -> Result<SourceImage, ImageError> {
    let cursor = Cursor::new(bytes);
    let fail = |error| decoder_error(format, error);
    match format {
        ImageFormat::WebP => read(format, bytes, WebPDecoder::new(cursor).map_err(fail)?),
        ImageFormat::Tga => read(format, bytes, TgaDecoder::new(cursor).map_err(fail)?),
        ImageFormat::Bmp => read(format, bytes, BmpDecoder::new(cursor).map_err(fail)?),
        ImageFormat::Tiff => read(format, bytes, TiffDecoder::new(cursor).map_err(fail)?),
        ImageFormat::Hdr => read(format, bytes, HdrDecoder::new(cursor).map_err(fail)?),
        ImageFormat::Exr => match OpenExrDecoder::new(cursor) {
            Ok(decoder) => read(format, bytes, decoder),
            Err(error) => decode_exr_without_rgb(bytes).unwrap_or_else(|| Err(fail(error))),
        },
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Svg => {
            Err(ImageError::UnsupportedLayout {
                format,
                layout: "this decoder's".into(),
            })
        }
    }
}

/// The width and height an OpenEXR file's header declares for its first
/// layer, read without decoding any pixel, so a caller with a tighter limit
/// than [`MAX_DECODED_BYTES`] can refuse the file before its pixels are
/// allocated.
pub fn declared_exr_size(bytes: &[u8]) -> Result<(u32, u32), ImageError> {
    let format = ImageFormat::Exr;
    let meta =
        exr::meta::MetaData::read_from_buffered(Cursor::new(bytes), false).map_err(|error| {
            ImageError::Corrupt {
                format,
                message: error.to_string(),
                offset: None,
            }
        })?;
    let side = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
    let (width, height) = meta.headers.first().map_or((0, 0), |header| {
        (side(header.layer_size.0), side(header.layer_size.1))
    });
    check_dimensions(format, width, height)?;
    Ok((width, height))
}

/// An OpenEXR file whose first layer has no R, G and B channels (a height
/// or distance field holds one channel, often `Y` or `R`, which the `image`
/// crate refuses): its first channel, in the file's channel order, becomes
/// gray. `None` when the file has R, G and B or no readable header, so the
/// caller reports the `image` crate's own error.
fn decode_exr_without_rgb(bytes: &[u8]) -> Option<Result<SourceImage, ImageError>> {
    let format = ImageFormat::Exr;
    let meta = exr::meta::MetaData::read_from_buffered(Cursor::new(bytes), false).ok()?;
    let header = meta.headers.first()?;
    let names: Vec<String> = header
        .channels
        .list
        .iter()
        .map(|c| c.name.to_string())
        .collect();
    if ["R", "G", "B"]
        .iter()
        .all(|rgb| names.iter().any(|name| name == rgb))
    {
        return None;
    }
    let (width, height) = (header.layer_size.0 as u32, header.layer_size.1 as u32);
    Some(
        check_dimensions(format, width, height)
            .and_then(|()| {
                let rgba_bytes = u64::from(width) * u64::from(height) * 16;
                check_backed_size(format, (width, height), rgba_bytes, bytes.len())
            })
            .and_then(|()| read_first_exr_channel(bytes, width, height)),
    )
}

/// The first channel of the first layer of an OpenEXR file, as gray RGBA.
fn read_first_exr_channel(
    bytes: &[u8],
    width: u32,
    height: u32,
) -> Result<SourceImage, ImageError> {
    use exr::prelude::{FlatSamples, ReadChannels, ReadLayers};
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .non_parallel()
        .from_buffered(Cursor::new(bytes))
        .map_err(|error| ImageError::Corrupt {
            format: ImageFormat::Exr,
            message: error.to_string(),
            offset: None,
        })?;
    let channel = &image.layer_data.channel_data.list[0];
    let values: Vec<f32> = match &channel.sample_data {
        FlatSamples::F16(samples) => samples.iter().map(|s| s.to_f32()).collect(),
        FlatSamples::F32(samples) => samples.clone(),
        FlatSamples::U32(samples) => samples.iter().map(|&s| s as f32).collect(),
    };
    let pixels = values.into_iter().flat_map(|v| [v, v, v, 1.0]).collect();
    let image = RgbaF32Image {
        width,
        height,
        pixels,
    };
    Ok(SourceImage::Hdr(image))
}

/// Checks the size `decoder` read from the header, then decodes the pixels.
fn read(
    format: ImageFormat,
    bytes: &[u8],
    mut decoder: impl ImageDecoder,
) -> Result<SourceImage, ImageError> {
    let size = decoder.dimensions();
    check_dimensions(format, size.0, size.1)?;
    // Our own RGBA copy may be larger than the decoder's buffer (gray and RGB
    // gain channels), so bound that.
    let rgba_bytes = rgba_size(size, decoder.color_type());
    check_backed_size(format, size, rgba_bytes, bytes.len())?;
    let mut limits = Limits::no_limits();
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    decoder
        .set_limits(limits)
        .map_err(|e| decoder_error(format, e))?;
    let image = DynamicImage::from_decoder(decoder).map_err(|e| decoder_error(format, e))?;
    to_source(format, image)
}

/// The bytes of a `width` x `height` RGBA copy of an image of `color`.
fn rgba_size((width, height): (u32, u32), color: image::ColorType) -> u64 {
    let sample = u64::from(color.bytes_per_pixel() / color.channel_count().max(1));
    u64::from(width) * u64::from(height) * 4 * sample
}

/// The decoded image at its own precision.
fn to_source(format: ImageFormat, image: DynamicImage) -> Result<SourceImage, ImageError> {
    use DynamicImage as D;
    Ok(match image {
        D::ImageLuma8(_) | D::ImageLumaA8(_) | D::ImageRgb8(_) | D::ImageRgba8(_) => {
            SourceImage::Ldr(owned(image.into_rgba8()))
        }
        D::ImageLuma16(_) | D::ImageLumaA16(_) | D::ImageRgb16(_) | D::ImageRgba16(_) => {
            SourceImage::Deep(owned(image.into_rgba16()))
        }
        D::ImageRgb32F(_) | D::ImageRgba32F(_) => SourceImage::Hdr(owned(image.into_rgba32f())),
        other => {
            return Err(ImageError::UnsupportedLayout {
                format,
                layout: format!("{:?}", other.color()),
            });
        }
    })
}

/// An `image` crate RGBA buffer as our own image type, without a copy
/// (called with RGBA pixels only).
fn owned<P: Pixel>(buffer: ImageBuffer<P, Vec<P::Subpixel>>) -> RgbaImage<P::Subpixel> {
    RgbaImage {
        width: buffer.width(),
        height: buffer.height(),
        pixels: buffer.into_raw(),
    }
}

/// `image` with NaN samples set to 0 and the rest clamped to ±[`HALF_MAX`].
pub fn sanitised(mut image: RgbaF32Image) -> RgbaF32Image {
    for sample in &mut image.pixels {
        *sample = if sample.is_nan() {
            0.0
        } else {
            sample.clamp(-HALF_MAX, HALF_MAX)
        };
    }
    image
}

/// Wraps an `image` crate error.
fn decoder_error(format: ImageFormat, error: image::ImageError) -> ImageError {
    ImageError::Corrupt {
        format,
        message: error.to_string(),
        offset: None,
    }
}
