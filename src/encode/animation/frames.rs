//! The frames of an animated image: GIF, APNG or animated WebP, each frame
//! composited onto the whole canvas with its disposal and blending resolved
//! (by the `image` crate's animation decoders), and its display time.
//!
//! Limits hold before memory is spent: the canvas is at most
//! [`MAX_DIMENSION`] on a side, the frames at most [`MAX_LAYERS`] (they
//! become the layers of a texture array), and all frames together at most
//! [`MAX_TOTAL_PIXELS`].

use std::io::Cursor;

use image::codecs::gif::GifDecoder;
use image::codecs::png::PngDecoder;
use image::codecs::webp::WebPDecoder;
use image::{AnimationDecoder, Frames, ImageDecoder, Limits};

use crate::encode::image::Rgba8Image;
use crate::encode::limits::{MAX_DECODED_BYTES, MAX_DIMENSION, MAX_LAYERS, MAX_TOTAL_PIXELS};

/// The shortest frame time, in milliseconds, a GIF is played with: a GIF
/// delay below it (0 or 10 ms) is shown for [`GIF_DEFAULT_MS`], as every
/// browser does, because such files were made for them.
pub const GIF_MIN_MS: u32 = 20;

/// The frame time a GIF delay below [`GIF_MIN_MS`] is played with.
pub const GIF_DEFAULT_MS: u32 = 100;

/// The containers of animated images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// GIF89a (every GIF is read as an animation, one frame or more).
    Gif,
    /// PNG with an `acTL` chunk.
    Apng,
    /// WebP with the animation flag.
    WebP,
}

impl Container {
    /// The container's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Container::Gif => "GIF",
            Container::Apng => "APNG",
            Container::WebP => "animated WebP",
        }
    }

    /// The container of an animated image `bytes`, by its signature and
    /// first chunks; `None` for any other file, a still PNG or WebP
    /// included.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Container::Gif)
        } else if png_has_animation(bytes) {
            Some(Container::Apng)
        } else if webp_has_animation(bytes) {
            Some(Container::WebP)
        } else {
            None
        }
    }
}

/// Whether `bytes` is a PNG with an animation control chunk (`acTL`)
/// before its first image data.
fn png_has_animation(bytes: &[u8]) -> bool {
    let Some(mut rest) = bytes.strip_prefix(b"\x89PNG\r\n\x1a\n") else {
        return false;
    };
    while rest.len() >= 8 {
        let length = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        match &rest[4..8] {
            b"acTL" => return true,
            b"IDAT" | b"IEND" => return false,
            _ => {}
        }
        let Some(next) = length.checked_add(12).and_then(|skip| rest.get(skip..)) else {
            return false;
        };
        rest = next;
    }
    false
}

/// Whether `bytes` is an extended WebP (`VP8X`) whose animation flag is set.
fn webp_has_animation(bytes: &[u8]) -> bool {
    bytes.len() >= 21
        && &bytes[0..4] == b"RIFF"
        && &bytes[8..12] == b"WEBP"
        && &bytes[12..16] == b"VP8X"
        && bytes[20] & 0x02 != 0
}

/// One frame: the whole canvas as it shows, and for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The canvas after this frame was drawn, RGBA8.
    pub image: Rgba8Image,
    /// Display time in milliseconds (at least 1).
    pub duration_ms: u32,
}

/// Why an animated image could not be read. Messages never name the file;
/// the caller adds the path.
#[derive(thiserror::Error, Debug)]
pub enum FramesError {
    /// The file is no GIF, APNG or animated WebP.
    #[error(
        "not an animated image (GIF, APNG with an acTL chunk, or WebP with the animation flag)"
    )]
    NotAnimated,
    /// The decoder refused the data.
    #[error("corrupt or unsupported {container} data: {message}")]
    Corrupt {
        /// The container being read.
        container: &'static str,
        /// The decoder's message.
        message: String,
    },
    /// The canvas is larger than a texture may be.
    #[error("the canvas is {width}x{height}; the most a side may be is {MAX_DIMENSION}")]
    TooLarge {
        /// Canvas width.
        width: u32,
        /// Canvas height.
        height: u32,
    },
    /// More frames than a texture array holds, or more texels in all.
    #[error(
        "frame {frame} would make {texels} texels in all; an animation may have at most \
         {MAX_LAYERS} frames and {MAX_TOTAL_PIXELS} texels"
    )]
    TooManyFrames {
        /// The 1-based frame that went past a limit.
        frame: usize,
        /// Texels of all frames up to it.
        texels: u64,
    },
    /// The file holds no frame.
    #[error("the {0} holds no frame")]
    Empty(&'static str),
}

/// Every frame of the animated image `bytes`, composited, with its time.
pub fn read_frames(bytes: &[u8]) -> Result<Vec<Frame>, FramesError> {
    let container = Container::sniff(bytes).ok_or(FramesError::NotAnimated)?;
    let corrupt = |error: image::ImageError| FramesError::Corrupt {
        container: container.name(),
        message: error.to_string(),
    };
    let cursor = Cursor::new(bytes);
    let (size, frames) = match container {
        Container::Gif => {
            let mut decoder = GifDecoder::new(cursor).map_err(corrupt)?;
            decoder.set_limits(limits()).map_err(corrupt)?;
            (decoder.dimensions(), decoder.into_frames())
        }
        Container::Apng => {
            let mut decoder = PngDecoder::new(cursor).map_err(corrupt)?;
            decoder.set_limits(limits()).map_err(corrupt)?;
            let size = decoder.dimensions();
            (size, decoder.apng().map_err(corrupt)?.into_frames())
        }
        Container::WebP => {
            let mut decoder = WebPDecoder::new(cursor).map_err(corrupt)?;
            decoder.set_limits(limits()).map_err(corrupt)?;
            (decoder.dimensions(), decoder.into_frames())
        }
    };
    check_canvas(size)?;
    collect(container, size, frames, corrupt)
}

/// The decoder limits: no side past [`MAX_DIMENSION`], no allocation past
/// [`MAX_DECODED_BYTES`].
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    limits
}

/// Refuses a canvas with a zero or too large side.
fn check_canvas((width, height): (u32, u32)) -> Result<(), FramesError> {
    if width == 0 || height == 0 || width > MAX_DIMENSION || height > MAX_DIMENSION {
        return Err(FramesError::TooLarge { width, height });
    }
    Ok(())
}

/// Takes the frames one by one, stopping at the first limit.
fn collect(
    container: Container,
    (width, height): (u32, u32),
    frames: Frames<'_>,
    corrupt: impl Fn(image::ImageError) -> FramesError,
) -> Result<Vec<Frame>, FramesError> {
    let per_frame = u64::from(width) * u64::from(height);
    let mut out = Vec::new();
    for frame in frames {
        let texels = per_frame * (out.len() as u64 + 1);
        if out.len() == MAX_LAYERS || texels > MAX_TOTAL_PIXELS {
            return Err(FramesError::TooManyFrames {
                frame: out.len() + 1,
                texels,
            });
        }
        let frame = frame.map_err(&corrupt)?;
        let (numerator, denominator) = frame.delay().numer_denom_ms();
        let duration_ms = frame_time(container, numerator, denominator);
        let buffer = frame.into_buffer();
        if buffer.dimensions() != (width, height) {
            return Err(corrupt(image::ImageError::Limits(
                image::error::LimitError::from_kind(image::error::LimitErrorKind::DimensionError),
            )));
        }
        out.push(Frame {
            image: Rgba8Image {
                width,
                height,
                pixels: buffer.into_raw(),
            },
            duration_ms,
        });
    }
    if out.is_empty() {
        return Err(FramesError::Empty(container.name()));
    }
    Ok(out)
}

/// A frame's time in whole milliseconds (at least 1), a short GIF delay
/// played as browsers play it.
fn frame_time(container: Container, numerator: u32, denominator: u32) -> u32 {
    let ms = if denominator == 0 {
        0
    } else {
        ((u64::from(numerator) + u64::from(denominator) / 2) / u64::from(denominator)) as u32
    };
    if container == Container::Gif && ms < GIF_MIN_MS {
        GIF_DEFAULT_MS
    } else {
        ms.max(1)
    }
}
