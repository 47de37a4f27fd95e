//! Source image decoding: every image kind a texture may come from, to RGBA
//! texels at 8 bits, 16 bits or 32-bit float ([`SourceImage`]).
//!
//! One module per source family: `png` (every colour type and depth; 16-bit
//! samples are kept), `jpeg` (`zune-jpeg` in strict mode), [`codecs`]
//! (WebP, TGA, BMP, TIFF, Radiance HDR and OpenEXR through the `image`
//! crate's decoders) and [`svg`] (rasterised with `resvg`). The format is
//! recognised from the file's signature; TGA and SVG have none, so a source
//! without a known signature is read as the format its extension names.
//!
//! Every decoder reads the header first and checks the size against
//! [`MAX_DIMENSION`] and the data against the declared size
//! (the file must hold enough bytes for it) before any pixel buffer is allocated.
//!
//! The PNG rules, kept from the first version of this module: every colour
//! type and bit depth is expanded to RGBA: grayscale is copied into R, G and
//! B; missing alpha becomes opaque; palettes and `tRNS` transparency are
//! resolved; 1, 2 and 4-bit samples are scaled to the full 0..=255 range;
//! 16-bit samples stay 16-bit ([`SourceImage::Deep`]), and where an 8-bit
//! image is needed they are rounded to the nearest 8-bit value with
//! `(v * 255 + 32767) / 65535`, so 8-bit data stored as 16 bits
//! (`v = 257 * k`) comes back as exactly `k`. JPEG files (grayscale or
//! colour) decode in strict mode, so a truncated or damaged scan is an error
//! rather than a silently grey-padded image; alpha is 255.

pub mod codecs;
mod jpeg;
mod png;
pub mod svg;
#[cfg(test)]
pub(crate) mod test_images;
#[cfg(test)]
pub(crate) mod test_sources;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_codecs;

use std::fmt;

pub use super::limits::MAX_DIMENSION;
use super::limits::{MAX_DECODED_BYTES, MAX_DEFLATE_RATIO, MAX_UNBACKED_BYTES};

/// A decoded image: row-major, top row first, four samples (R, G, B, A) per
/// pixel, of type `T`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage<T> {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` samples.
    pub pixels: Vec<T>,
}

/// An image of 8-bit samples (sRGB colour or linear data, as the mode says).
pub type Rgba8Image = RgbaImage<u8>;

/// An image of 16-bit unsigned normalised samples.
pub type Rgba16Image = RgbaImage<u16>;

/// An image of linear 32-bit float samples (high dynamic range).
pub type RgbaF32Image = RgbaImage<f32>;

/// A decoded source at the precision its file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceImage {
    /// 8 bits per sample or fewer (scaled up to 8).
    Ldr(Rgba8Image),
    /// 16-bit unsigned normalised samples (16-bit PNG and TIFF).
    Deep(Rgba16Image),
    /// Linear float samples (Radiance HDR, OpenEXR, float TIFF).
    Hdr(RgbaF32Image),
}

impl SourceImage {
    /// Width and height in pixels.
    pub fn size(&self) -> (u32, u32) {
        match self {
            Self::Ldr(image) => (image.width, image.height),
            Self::Deep(image) => (image.width, image.height),
            Self::Hdr(image) => (image.width, image.height),
        }
    }

    /// Whether the samples are high dynamic range floats.
    pub fn is_hdr(&self) -> bool {
        matches!(self, Self::Hdr(_))
    }

    /// The image at 8 bits: 16-bit samples rounded to the nearest 8-bit
    /// value, or `None` for a float image (which has no 8-bit form without
    /// choosing an exposure).
    pub fn to_ldr(&self) -> Option<Rgba8Image> {
        match self {
            Self::Ldr(image) => Some(image.clone()),
            Self::Deep(image) => Some(round_to_8_bits(image)),
            Self::Hdr(_) => None,
        }
    }
}

/// `image` with every sample rounded to the nearest 8-bit value.
pub fn round_to_8_bits(image: &Rgba16Image) -> Rgba8Image {
    Rgba8Image {
        width: image.width,
        height: image.height,
        pixels: image.pixels.iter().map(|&v| round_16_to_8(v)).collect(),
    }
}

/// `image` with every sample widened to 16 bits exactly (`v * 257`).
pub fn widen_to_16_bits(image: &Rgba8Image) -> Rgba16Image {
    Rgba16Image {
        width: image.width,
        height: image.height,
        pixels: image.pixels.iter().map(|&v| u16::from(v) * 257).collect(),
    }
}

/// Rounds a 16-bit sample to the nearest 8-bit value.
pub fn round_16_to_8(value: u16) -> u8 {
    ((u32::from(value) * 255 + 32767) / 65535) as u8
}

/// The source file formats [`decode_source`] understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Portable Network Graphics.
    Png,
    /// JPEG (JFIF/EXIF), baseline or progressive.
    Jpeg,
    /// WebP, lossy or lossless.
    WebP,
    /// Truevision TGA, plain or run-length encoded.
    Tga,
    /// Windows bitmap.
    Bmp,
    /// Tagged Image File Format.
    Tiff,
    /// Radiance RGBE (`.hdr`).
    Hdr,
    /// OpenEXR.
    Exr,
    /// Scalable Vector Graphics, rasterised.
    Svg,
}

impl ImageFormat {
    /// The format a file extension names when the content has no signature
    /// (TGA and SVG), or `None`.
    pub fn from_extension(extension: &str) -> Option<Self> {
        let lower = extension.to_ascii_lowercase();
        match lower.as_str() {
            "tga" => Some(Self::Tga),
            "svg" => Some(Self::Svg),
            _ => None,
        }
    }

    /// The format whose signature `bytes` start with, if any.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        const SIGNATURES: &[(&[u8], ImageFormat)] = &[
            (&png::PNG_SIGNATURE, ImageFormat::Png),
            (&jpeg::JPEG_SIGNATURE, ImageFormat::Jpeg),
            (b"BM", ImageFormat::Bmp),
            (b"II*\0", ImageFormat::Tiff),
            (b"MM\0*", ImageFormat::Tiff),
            (b"#?RADIANCE", ImageFormat::Hdr),
            (b"#?RGBE", ImageFormat::Hdr),
            (&[0x76, 0x2f, 0x31, 0x01], ImageFormat::Exr),
        ];
        if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
            return Some(Self::WebP);
        }
        SIGNATURES
            .iter()
            .find(|(signature, _)| bytes.starts_with(signature))
            .map(|(_, format)| *format)
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::WebP => "WebP",
            Self::Tga => "TGA",
            Self::Bmp => "BMP",
            Self::Tiff => "TIFF",
            Self::Hdr => "Radiance HDR",
            Self::Exr => "OpenEXR",
            Self::Svg => "SVG",
        })
    }
}

/// How to read a source beyond its bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceHints<'a> {
    /// The file's extension, without the dot: picks TGA or SVG for content
    /// without a signature.
    pub extension: Option<&'a str>,
    /// The largest side of a rasterised SVG, in pixels; `None` keeps the
    /// file's own size.
    pub svg_size: Option<u32>,
}

/// Why a source image could not be decoded.
#[derive(thiserror::Error, Debug)]
pub enum ImageError {
    /// The bytes start with no known signature and the extension names no
    /// format without one.
    #[error(
        "not an image assetc reads (PNG, JPEG, WebP, TGA, BMP, TIFF, HDR, EXR or SVG): {}",
        describe_start(.leading_bytes)
    )]
    UnknownFormat {
        /// Up to the first 8 bytes of the file.
        leading_bytes: Vec<u8>,
    },
    /// The decoder rejected the data (corrupt, truncated or unsupported).
    #[error("corrupt or truncated {format} data{}: {message}", describe_offset(.offset))]
    Corrupt {
        /// The format being decoded.
        format: ImageFormat,
        /// The decoder's own message.
        message: String,
        /// How far into the file the decoder had read when it failed, if known.
        offset: Option<u64>,
    },
    /// The header gives a width or height of zero.
    #[error("{format} image has a zero dimension ({width}x{height})")]
    ZeroSize {
        /// The format being decoded.
        format: ImageFormat,
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
    },
    /// The header gives a width or height above [`MAX_DIMENSION`].
    #[error("{format} image is {width}x{height}; width and height may be at most {limit}")]
    TooLarge {
        /// The format being decoded.
        format: ImageFormat,
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// The limit, [`MAX_DIMENSION`].
        limit: u32,
    },
    /// The header declares more pixels than the file's data could hold, or
    /// more than one job may decode.
    #[error("{format} image is {width}x{height}: {reason}")]
    Unbacked {
        /// The format being decoded.
        format: ImageFormat,
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// What bound it breaks.
        reason: String,
    },
    /// The decoder produced a sample layout assetc does not convert.
    #[error("{format} images with {layout} samples are not supported")]
    UnsupportedLayout {
        /// The format being decoded.
        format: ImageFormat,
        /// The layout, as the decoder names it.
        layout: String,
    },
}

/// Describes the start of an unrecognised file for [`ImageError::UnknownFormat`].
fn describe_start(leading_bytes: &[u8]) -> String {
    if leading_bytes.is_empty() {
        return "the file is empty".to_owned();
    }
    let hex: Vec<String> = leading_bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("it starts with bytes {}", hex.join(" "))
}

/// Formats the optional failure offset of [`ImageError::Corrupt`].
fn describe_offset(offset: &Option<u64>) -> String {
    offset.map_or_else(String::new, |offset| format!(" (at byte {offset})"))
}

/// Decodes any source [`decode_source`] reads (without hints) to RGBA8: 16-bit
/// samples are rounded, and a float image is refused. The inspector and
/// the tests use it where only 8-bit pixels make sense.
pub fn decode_image(bytes: &[u8]) -> Result<Rgba8Image, ImageError> {
    let source = decode_source(bytes, &SourceHints::default())?;
    source
        .to_ldr()
        .ok_or_else(|| ImageError::UnsupportedLayout {
            format: ImageFormat::sniff(bytes).unwrap_or(ImageFormat::Hdr),
            layout: "float (HDR)".into(),
        })
}

/// Decodes a source image at its own precision. The format comes from the
/// signature, else from `hints.extension` (TGA, SVG). Float samples are
/// cleaned ([`codecs::sanitised`]: NaN to 0, infinities to ±65504).
pub fn decode_source(bytes: &[u8], hints: &SourceHints) -> Result<SourceImage, ImageError> {
    Ok(match decode_source_raw(bytes, hints)? {
        SourceImage::Hdr(image) => SourceImage::Hdr(codecs::sanitised(image)),
        other => other,
    })
}

/// [`decode_source`] without cleaning float samples: NaN and infinities
/// arrive as the file holds them, for a caller that refuses them (an
/// image-based-lighting source).
pub fn decode_source_raw(bytes: &[u8], hints: &SourceHints) -> Result<SourceImage, ImageError> {
    let format = ImageFormat::sniff(bytes)
        .or_else(|| hints.extension.and_then(ImageFormat::from_extension))
        .ok_or_else(|| ImageError::UnknownFormat {
            leading_bytes: bytes[..bytes.len().min(8)].to_vec(),
        })?;
    match format {
        ImageFormat::Png => png::decode_png(bytes),
        ImageFormat::Jpeg => jpeg::decode_jpeg(bytes).map(SourceImage::Ldr),
        ImageFormat::Svg => svg::rasterise(bytes, hints.svg_size).map(SourceImage::Ldr),
        other => codecs::decode(other, bytes),
    }
}

/// Checks a header's dimensions against the limits.
pub(crate) fn check_dimensions(
    format: ImageFormat,
    width: u32,
    height: u32,
) -> Result<(), ImageError> {
    if width == 0 || height == 0 {
        return Err(ImageError::ZeroSize {
            format,
            width,
            height,
        });
    }
    if width > MAX_DIMENSION || height > MAX_DIMENSION {
        return Err(ImageError::TooLarge {
            format,
            width,
            height,
            limit: MAX_DIMENSION,
        });
    }
    Ok(())
}

/// Refuses an image whose decoded size (`decoded_bytes`, as the header
/// declares it) passes [`MAX_DECODED_BYTES`], or passes
/// [`MAX_UNBACKED_BYTES`] while being more than [`MAX_DEFLATE_RATIO`] times
/// the `file_len` bytes of the file: no codec assetc reads packs real
/// pixels that densely, so such a file is truncated or a decompression bomb,
/// and is refused before its pixel buffer is allocated.
pub(crate) fn check_backed_size(
    format: ImageFormat,
    (width, height): (u32, u32),
    decoded_bytes: u64,
    file_len: usize,
) -> Result<(), ImageError> {
    let unbacked = |reason: String| ImageError::Unbacked {
        format,
        width,
        height,
        reason,
    };
    if decoded_bytes > MAX_DECODED_BYTES {
        return Err(unbacked(format!(
            "it decodes to {decoded_bytes} bytes; one image may take at most {MAX_DECODED_BYTES}"
        )));
    }
    let backed = (file_len as u64).saturating_mul(MAX_DEFLATE_RATIO);
    if decoded_bytes > MAX_UNBACKED_BYTES && decoded_bytes > backed {
        return Err(unbacked(format!(
            "it decodes to {decoded_bytes} bytes from a file of {file_len}, more than \
             {MAX_DEFLATE_RATIO} times its size: the file is truncated or a decompression bomb"
        )));
    }
    Ok(())
}
