//! Source image decoding: PNG and JPEG files to 8-bit RGBA.
//!
//! Every PNG colour type and bit depth is expanded to RGBA8: grayscale is copied
//! into R, G and B; missing alpha becomes 255; palettes and `tRNS` transparency
//! are resolved; 1, 2 and 4-bit samples are scaled to the full 0..=255 range;
//! 16-bit samples are rounded to the nearest 8-bit value with
//! `(v * 255 + 32767) / 65535`, so 8-bit data stored as 16 bits (`v = 257 * k`)
//! comes back as exactly `k`. JPEG files (grayscale or colour) decode through
//! `zune-jpeg` in strict mode, so a truncated or damaged scan is an error rather
//! than a silently grey-padded image; alpha is 255.
//!
//! The image size is read from the header and checked against
//! [`MAX_DIMENSION`] before any pixel buffer is allocated.

use std::borrow::Cow;
use std::fmt;
use std::io::Cursor;

use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

use super::limits::MAX_DEFLATE_RATIO;
pub use super::limits::MAX_DIMENSION;

/// The signature every PNG file starts with.
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// The start-of-image marker and the first byte of the next marker of a JPEG file.
const JPEG_SIGNATURE: [u8; 3] = [0xFF, 0xD8, 0xFF];

/// A decoded image: row-major, top row first, 4 bytes (R, G, B, A) per pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba8Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

/// The source file formats [`decode_image`] understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Portable Network Graphics.
    Png,
    /// JPEG (JFIF/EXIF), baseline or progressive.
    Jpeg,
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
        })
    }
}

/// Why a source image could not be decoded.
#[derive(thiserror::Error, Debug)]
pub enum ImageError {
    /// The bytes start with neither the PNG nor the JPEG signature.
    #[error("not a PNG or JPEG file: {}", describe_start(.leading_bytes))]
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

/// Decodes a PNG or JPEG file, recognised by its signature, to RGBA8.
pub fn decode_image(bytes: &[u8]) -> Result<Rgba8Image, ImageError> {
    if bytes.starts_with(&PNG_SIGNATURE) {
        decode_png(bytes)
    } else if bytes.starts_with(&JPEG_SIGNATURE) {
        decode_jpeg(bytes)
    } else {
        Err(ImageError::UnknownFormat {
            leading_bytes: bytes[..bytes.len().min(8)].to_vec(),
        })
    }
}

/// Checks a header's dimensions against the limits.
fn check_dimensions(format: ImageFormat, width: u32, height: u32) -> Result<(), ImageError> {
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

/// Reads the size from the PNG's `IHDR` chunk (which the format requires to be
/// first, at byte 8) and checks it. A file too short to hold it is left to the
/// decoder to reject.
fn check_png_header(bytes: &[u8]) -> Result<(), ImageError> {
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

/// Decodes a PNG file to RGBA8.
fn decode_png(bytes: &[u8]) -> Result<Rgba8Image, ImageError> {
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

/// Runs the `png` decoder over `cursor` and converts its first frame to RGBA8.
fn read_png(cursor: &mut Cursor<&[u8]>) -> Result<Rgba8Image, PngFailure> {
    let mut decoder = png::Decoder::new(cursor);
    // EXPAND: palette -> RGB(A), tRNS -> alpha, 1/2/4-bit gray -> 8-bit gray.
    // 16-bit samples are kept and rounded below.
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
    let pixels = png_samples_to_rgba8(&buffer, frame.color_type, frame.bit_depth)?;
    Ok(Rgba8Image {
        width: frame.width,
        height: frame.height,
        pixels,
    })
}

/// Rounds a 16-bit sample to the nearest 8-bit value.
fn round_16_to_8(value: u16) -> u8 {
    ((u32::from(value) * 255 + 32767) / 65535) as u8
}

/// Converts the decoder's expanded output (8 or 16-bit gray, gray+alpha, RGB or
/// RGBA; 16-bit samples big-endian) to RGBA8.
fn png_samples_to_rgba8(
    data: &[u8],
    color_type: png::ColorType,
    bit_depth: png::BitDepth,
) -> Result<Vec<u8>, ImageError> {
    let samples: Cow<[u8]> = match bit_depth {
        png::BitDepth::Eight => Cow::Borrowed(data),
        png::BitDepth::Sixteen => data
            .chunks_exact(2)
            .map(|pair| round_16_to_8(u16::from_be_bytes([pair[0], pair[1]])))
            .collect(),
        other => return Err(unexpected_png_layout(color_type, other)),
    };
    let channels = match color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(unexpected_png_layout(color_type, bit_depth)),
    };
    Ok(samples
        .chunks_exact(channels)
        .flat_map(|pixel| match *pixel {
            [gray] => [gray, gray, gray, 255],
            [gray, alpha] => [gray, gray, gray, alpha],
            [r, g, b] => [r, g, b, 255],
            [r, g, b, a] => [r, g, b, a],
            _ => unreachable!("chunks of 1 to 4 samples"),
        })
        .collect())
}

/// The error for a decoder output layout that expansion should have ruled out.
fn unexpected_png_layout(color_type: png::ColorType, bit_depth: png::BitDepth) -> ImageError {
    ImageError::Corrupt {
        format: ImageFormat::Png,
        message: format!("unexpected decoded layout {color_type:?} at {bit_depth:?}"),
        offset: None,
    }
}

/// Wraps a `zune-jpeg` error.
fn jpeg_error(error: zune_jpeg::errors::DecodeErrors) -> ImageError {
    ImageError::Corrupt {
        format: ImageFormat::Jpeg,
        message: error.to_string(),
        offset: None,
    }
}

/// Walks the JPEG's marker segments and entropy-coded scans from the start of
/// image to the end-of-image marker, so that a file cut short is an error:
/// `zune-jpeg` pads a truncated scan with grey instead of failing.
fn check_jpeg_structure(bytes: &[u8]) -> Result<JpegLayout, ImageError> {
    let fail = |offset: usize, message: &str| ImageError::Corrupt {
        format: ImageFormat::Jpeg,
        message: message.to_owned(),
        offset: Some(offset as u64),
    };
    let truncated = || fail(bytes.len(), "the file ends before its end-of-image marker");
    let mut layout = JpegLayout::default();
    let mut position = 2; // after the start-of-image marker
    loop {
        if *bytes.get(position).ok_or_else(truncated)? != 0xFF {
            return Err(fail(position, "expected a marker"));
        }
        // Any number of 0xFF fill bytes may precede the marker code.
        while bytes.get(position + 1) == Some(&0xFF) {
            position += 1;
        }
        let marker = *bytes.get(position + 1).ok_or_else(truncated)?;
        position += 2;
        match marker {
            JPEG_END_OF_IMAGE => return Ok(layout),
            0x01 | 0xD0..=0xD7 => continue, // markers without a payload
            _ => {}
        }
        let length = bytes.get(position..position + 2).ok_or_else(truncated)?;
        let length = usize::from(u16::from_be_bytes([length[0], length[1]]));
        if length < 2 {
            return Err(fail(position, "marker segment length below 2"));
        }
        if is_start_of_frame(marker) {
            layout.frame.get_or_insert(position + 2);
        }
        position += length;
        if marker == JPEG_START_OF_SCAN {
            let data_start = position;
            position = skip_entropy_coded_data(bytes, position).ok_or_else(truncated)?;
            layout.entropy_bytes += (position - data_start) as u64;
        }
    }
}

/// What [`check_jpeg_structure`] learns on its walk.
#[derive(Debug, Default)]
struct JpegLayout {
    /// Where the first frame header's payload (after its length) starts.
    frame: Option<usize>,
    /// The bytes of entropy-coded data in all scans together.
    entropy_bytes: u64,
}

/// Whether `marker` starts a frame (`SOF0` to `SOF15`, which leave out the
/// `DHT`, `JPG` and `DAC` codes among them).
fn is_start_of_frame(marker: u8) -> bool {
    matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC)
}

/// Refuses a JPEG whose scans are too short to code the image its frame
/// header declares, before the decoder allocates the pixels: every 8x8
/// block of every component needs at least one bit for its DC coefficient,
/// so the scans hold at least one bit per block of the most finely sampled
/// component.
fn check_jpeg_data_size(bytes: &[u8], layout: &JpegLayout) -> Result<(), ImageError> {
    let Some(frame) = layout.frame.and_then(|start| bytes.get(start..)) else {
        return Ok(());
    };
    let [_, height_hi, height_lo, width_hi, width_lo, count, ..] = *frame else {
        return Ok(());
    };
    let width = u64::from(u16::from_be_bytes([width_hi, width_lo]));
    let height = u64::from(u16::from_be_bytes([height_hi, height_lo]));
    let factors: Vec<(u64, u64)> = frame
        .get(6..6 + 3 * usize::from(count))
        .unwrap_or_default()
        .chunks_exact(3)
        .map(|component| (u64::from(component[1] >> 4), u64::from(component[1] & 15)))
        .collect();
    let max_h = factors.iter().map(|f| f.0).max().unwrap_or(1).max(1);
    let max_v = factors.iter().map(|f| f.1).max().unwrap_or(1).max(1);
    let blocks = factors
        .iter()
        .map(|&(h, v)| {
            let columns = (width * h).div_ceil(max_h).div_ceil(8);
            let rows = (height * v).div_ceil(max_v).div_ceil(8);
            columns * rows
        })
        .max()
        .unwrap_or(0);
    let needed = blocks.div_ceil(8);
    if layout.entropy_bytes >= needed {
        return Ok(());
    }
    Err(ImageError::Corrupt {
        format: ImageFormat::Jpeg,
        message: format!(
            "its scans hold {} bytes, but a {width}x{height} image needs at least {needed} \
             (one bit per 8x8 block)",
            layout.entropy_bytes
        ),
        offset: None,
    })
}

/// The JPEG end-of-image marker code.
const JPEG_END_OF_IMAGE: u8 = 0xD9;

/// The JPEG start-of-scan marker code.
const JPEG_START_OF_SCAN: u8 = 0xDA;

/// The position of the first marker after the entropy-coded data starting at
/// `position`, or `None` if the data runs to the end of the file. Inside the
/// data, 0xFF is followed by a stuffed 0x00, a restart marker or fill bytes.
fn skip_entropy_coded_data(bytes: &[u8], mut position: usize) -> Option<usize> {
    loop {
        let offset = bytes
            .get(position..)?
            .iter()
            .position(|&byte| byte == 0xFF)?;
        position += offset;
        match *bytes.get(position + 1)? {
            0x00 | 0xD0..=0xD7 => position += 2,
            0xFF => position += 1,
            _ => return Some(position),
        }
    }
}

/// Decodes a JPEG file to RGBA8.
fn decode_jpeg(bytes: &[u8]) -> Result<Rgba8Image, ImageError> {
    let layout = check_jpeg_structure(bytes)?;
    // JPEG sizes are 16-bit; let our own limit, not the decoder's, reject them.
    let options = DecoderOptions::default()
        .set_strict_mode(true)
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX))
        .jpeg_set_out_colorspace(ColorSpace::RGBA);
    let mut decoder = JpegDecoder::new_with_options(bytes, options);
    decoder.decode_headers().map_err(jpeg_error)?;
    let (width, height) = decoder
        .dimensions()
        .ok_or_else(|| jpeg_error("no frame header".into()))?;
    let (width, height) = (width as u32, height as u32);
    check_dimensions(ImageFormat::Jpeg, width, height)?;
    check_jpeg_data_size(bytes, &layout)?;
    let samples = decoder.decode().map_err(jpeg_error)?;
    let pixels = match decoder.get_output_colorspace() {
        Some(ColorSpace::RGBA) => samples,
        Some(ColorSpace::Luma) => samples.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        other => {
            return Err(jpeg_error(zune_jpeg::errors::DecodeErrors::Format(
                format!("unexpected output colour space {other:?}"),
            )));
        }
    };
    Ok(Rgba8Image {
        width,
        height,
        pixels,
    })
}

/// PNG and JPEG files built in code for the tests of this module and of the
/// texture encoder, each with the RGBA8 pixels it must decode to.
#[cfg(test)]
pub(crate) mod test_images {
    use png::{BitDepth, ColorType};

    /// A generated PNG and the RGBA8 pixels it must decode to.
    pub struct PngCase {
        /// Colour type, depth and variant, for failure messages.
        pub name: String,
        /// Width in pixels.
        pub width: u32,
        /// Height in pixels.
        pub height: u32,
        /// The PNG file.
        pub file: Vec<u8>,
        /// The RGBA8 pixels it must decode to.
        pub expected: Vec<u8>,
    }

    /// Deterministic pseudo-random numbers (xorshift32).
    pub struct Noise(u32);

    impl Noise {
        /// A generator seeded with `seed` (0 is replaced by 1).
        pub fn new(seed: u32) -> Self {
            Self(seed.max(1))
        }

        /// The next number.
        pub fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
    }

    /// The layout of one PNG to generate.
    #[derive(Clone, Copy)]
    struct Layout {
        color: ColorType,
        depth: u8,
        interlaced: bool,
    }

    impl Layout {
        fn channels(self) -> usize {
            match self.color {
                ColorType::Grayscale | ColorType::Indexed => 1,
                ColorType::GrayscaleAlpha => 2,
                ColorType::Rgb => 3,
                ColorType::Rgba => 4,
            }
        }

        fn bit_depth(self) -> BitDepth {
            BitDepth::from_u8(self.depth).unwrap()
        }
    }

    /// Packs one row of samples at `depth` bits (MSB first below 8 bits,
    /// big-endian at 16).
    fn pack_row(samples: &[u16], depth: u8) -> Vec<u8> {
        match depth {
            16 => samples.iter().flat_map(|s| s.to_be_bytes()).collect(),
            8 => samples.iter().map(|&s| s as u8).collect(),
            _ => {
                let per_byte = 8 / depth as usize;
                samples
                    .chunks(per_byte)
                    .map(|group| {
                        group.iter().enumerate().fold(0u8, |byte, (i, &s)| {
                            byte | ((s as u8) << (8 - depth as usize * (i + 1)))
                        })
                    })
                    .collect()
            }
        }
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    fn zlib_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x78, 0x01];
        let blocks: Vec<&[u8]> = data.chunks(65535).collect();
        for (i, block) in blocks.iter().enumerate() {
            out.push(u8::from(i + 1 == blocks.len()));
            let len = block.len() as u16;
            out.extend(len.to_le_bytes());
            out.extend((!len).to_le_bytes());
            out.extend_from_slice(block);
        }
        let (mut a, mut b) = (1u32, 0u32);
        for &byte in data {
            a = (a + u32::from(byte)) % 65521;
            b = (b + a) % 65521;
        }
        out.extend(((b << 16) | a).to_be_bytes());
        out
    }

    /// Adam7 scanlines (filter type 0) of `samples` (`channels` per pixel).
    fn adam7_scanlines(width: u32, height: u32, layout: Layout, samples: &[u16]) -> Vec<u8> {
        const PASSES: [(u32, u32, u32, u32); 7] = [
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ];
        let channels = layout.channels();
        let mut out = Vec::new();
        for (x0, y0, dx, dy) in PASSES {
            for y in (y0..height).step_by(dy as usize) {
                let row: Vec<u16> = (x0..width)
                    .step_by(dx as usize)
                    .flat_map(|x| {
                        let start = (y * width + x) as usize * channels;
                        samples[start..start + channels].to_vec()
                    })
                    .collect();
                if !row.is_empty() {
                    out.push(0);
                    out.extend(pack_row(&row, layout.depth));
                }
            }
        }
        out
    }

    /// Writes a PNG: through the `png` encoder, or with hand-made Adam7 data
    /// when interlaced (the encoder cannot interlace).
    fn write_png(
        width: u32,
        height: u32,
        layout: Layout,
        samples: &[u16],
        palette: Option<&[u8]>,
        trns: Option<&[u8]>,
    ) -> Vec<u8> {
        let mut info = png::Info::with_size(width, height);
        info.color_type = layout.color;
        info.bit_depth = layout.bit_depth();
        info.interlaced = layout.interlaced;
        info.palette = palette.map(|p| p.to_vec().into());
        info.trns = trns.map(|t| t.to_vec().into());
        let mut file = Vec::new();
        let mut writer = png::Encoder::with_info(&mut file, info)
            .unwrap()
            .write_header()
            .unwrap();
        if layout.interlaced {
            let scanlines = adam7_scanlines(width, height, layout, samples);
            writer
                .write_chunk(png::chunk::IDAT, &zlib_stored(&scanlines))
                .unwrap();
        } else {
            let row_len = width as usize * layout.channels();
            let data: Vec<u8> = samples
                .chunks(row_len)
                .flat_map(|row| pack_row(row, layout.depth))
                .collect();
            writer.write_image_data(&data).unwrap();
        }
        writer.finish().unwrap();
        file
    }

    /// The samples of a gray or RGB tRNS colour key.
    fn colour_key(trns: &[u8]) -> Vec<u16> {
        trns.chunks(2)
            .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
            .collect()
    }

    /// The RGBA8 pixels a PNG's samples must decode to, computed the slow way.
    fn expected_rgba(
        layout: Layout,
        samples: &[u16],
        palette: Option<&[u8]>,
        trns: Option<&[u8]>,
    ) -> Vec<u8> {
        let to8 = |s: u16| -> u8 {
            match layout.depth {
                16 => ((u32::from(s) * 255 + 32767) / 65535) as u8,
                8 => s as u8,
                d => (u32::from(s) * 255 / ((1 << d) - 1)) as u8,
            }
        };
        let key = trns
            .filter(|_| layout.color != ColorType::Indexed)
            .map(colour_key);
        let mut out = Vec::new();
        for pixel in samples.chunks(layout.channels()) {
            let keyed_alpha = |key: &Option<Vec<u16>>| match key {
                Some(key) if key.as_slice() == pixel => 0,
                _ => 255,
            };
            let rgba = match layout.color {
                ColorType::Grayscale => {
                    let g = to8(pixel[0]);
                    [g, g, g, keyed_alpha(&key)]
                }
                ColorType::GrayscaleAlpha => {
                    let g = to8(pixel[0]);
                    [g, g, g, to8(pixel[1])]
                }
                ColorType::Rgb => [
                    to8(pixel[0]),
                    to8(pixel[1]),
                    to8(pixel[2]),
                    keyed_alpha(&key),
                ],
                ColorType::Rgba => [pixel[0], pixel[1], pixel[2], pixel[3]].map(to8),
                ColorType::Indexed => {
                    let index = usize::from(pixel[0]);
                    let entry = &palette.unwrap()[index * 3..index * 3 + 3];
                    let alpha = trns.and_then(|t| t.get(index).copied()).unwrap_or(255);
                    [entry[0], entry[1], entry[2], alpha]
                }
            };
            out.extend(rgba);
        }
        out
    }

    /// Random samples for `pixels` pixels; the first few pixels take the
    /// extreme and rounding-boundary values.
    fn samples(layout: Layout, pixels: usize, limit: u32, noise: &mut Noise) -> Vec<u16> {
        let specials: &[u16] = match layout.depth {
            16 => &[0, 65535, 128, 129, 32767, 32768, 257 * 100, 257 * 100 + 128],
            _ => &[0],
        };
        let count = pixels * layout.channels();
        (0..count)
            .map(|i| match specials.get(i) {
                Some(&s) if u32::from(s) < limit => s,
                _ => (noise.next() % limit) as u16,
            })
            .collect()
    }

    /// One generated PNG case.
    fn case(
        name: &str,
        layout: Layout,
        palette: Option<&[u8]>,
        trns: Option<&[u8]>,
        noise: &mut Noise,
    ) -> PngCase {
        let (width, height) = if layout.interlaced { (11, 9) } else { (7, 5) };
        let pixels = (width * height) as usize;
        let limit = match (layout.color, palette) {
            (ColorType::Indexed, Some(palette)) => (palette.len() / 3) as u32,
            _ => 1 << layout.depth,
        };
        let mut samples = samples(layout, pixels, limit, noise);
        // Make one pixel match a colour key so tRNS keying is exercised.
        if let (Some(trns), ColorType::Grayscale | ColorType::Rgb) = (trns, layout.color) {
            let key = colour_key(trns);
            samples[..key.len()].copy_from_slice(&key);
        }
        PngCase {
            name: name.to_owned(),
            width,
            height,
            file: write_png(width, height, layout, &samples, palette, trns),
            expected: expected_rgba(layout, &samples, palette, trns),
        }
    }

    /// Every PNG colour type at every bit depth, palettes with and without
    /// tRNS, colour keys, and interlaced files.
    pub fn png_cases() -> Vec<PngCase> {
        let mut noise = Noise::new(0x1234_5678);
        let plain = |color, depth| Layout {
            color,
            depth,
            interlaced: false,
        };
        let interlaced = |color, depth| Layout {
            color,
            depth,
            interlaced: true,
        };
        let palette: Vec<u8> = (0..13u8)
            .flat_map(|i| [i * 19, 255 - i * 7, i * 3])
            .collect();
        let palette_alpha = [0u8, 40, 128, 255, 7];
        let mut cases = Vec::new();
        for depth in [1, 2, 4, 8, 16] {
            let name = format!("gray{depth}");
            cases.push(case(
                &name,
                plain(ColorType::Grayscale, depth),
                None,
                None,
                &mut noise,
            ));
        }
        for depth in [8, 16] {
            for (color, label) in [
                (ColorType::GrayscaleAlpha, "gray_alpha"),
                (ColorType::Rgb, "rgb"),
                (ColorType::Rgba, "rgba"),
            ] {
                let name = format!("{label}{depth}");
                cases.push(case(&name, plain(color, depth), None, None, &mut noise));
            }
        }
        for depth in [4, 8] {
            let layout = plain(ColorType::Indexed, depth);
            let name = format!("palette{depth}");
            cases.push(case(&name, layout, Some(&palette), None, &mut noise));
            let name = format!("palette{depth}_trns");
            cases.push(case(
                &name,
                layout,
                Some(&palette),
                Some(&palette_alpha),
                &mut noise,
            ));
        }
        let small_palette = &palette[..6];
        let layout = plain(ColorType::Indexed, 1);
        cases.push(case(
            "palette1_trns",
            layout,
            Some(small_palette),
            Some(&[9]),
            &mut noise,
        ));
        let gray_key = [0u8, 77];
        let layout = plain(ColorType::Grayscale, 8);
        cases.push(case(
            "gray8_trns",
            layout,
            None,
            Some(&gray_key),
            &mut noise,
        ));
        let rgb_key = [0u8, 1, 0, 2, 0, 3];
        let layout = plain(ColorType::Rgb, 8);
        cases.push(case("rgb8_trns", layout, None, Some(&rgb_key), &mut noise));
        let rgb16_key = [1u8, 2, 3, 4, 5, 6];
        let layout = plain(ColorType::Rgb, 16);
        cases.push(case(
            "rgb16_trns",
            layout,
            None,
            Some(&rgb16_key),
            &mut noise,
        ));
        for (color, depth, label) in [
            (ColorType::Rgba, 8, "interlaced_rgba8"),
            (ColorType::Grayscale, 2, "interlaced_gray2"),
            (ColorType::Rgb, 16, "interlaced_rgb16"),
        ] {
            cases.push(case(
                label,
                interlaced(color, depth),
                None,
                None,
                &mut noise,
            ));
        }
        let layout = interlaced(ColorType::Indexed, 4);
        let name = "interlaced_palette4_trns";
        cases.push(case(
            name,
            layout,
            Some(&palette),
            Some(&palette_alpha),
            &mut noise,
        ));
        cases
    }

    /// An 8-bit grayscale PNG whose pixel `i` (in raster order) is `i % 256`.
    pub fn gray_ramp_png(width: u32, height: u32) -> Vec<u8> {
        let layout = Layout {
            color: ColorType::Grayscale,
            depth: 8,
            interlaced: false,
        };
        let samples: Vec<u16> = (0..width * height).map(|i| (i % 256) as u16).collect();
        write_png(width, height, layout, &samples, None, None)
    }

    /// An RGBA8 PNG of one colour.
    pub fn solid_png(width: u32, height: u32, rgba: [u8; 4]) -> Vec<u8> {
        rgba8_png(width, height, &rgba.repeat((width * height) as usize))
    }

    /// An RGBA8 PNG of the given pixels (4 bytes each, raster order).
    pub fn rgba8_png(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
        let layout = Layout {
            color: ColorType::Rgba,
            depth: 8,
            interlaced: false,
        };
        let samples: Vec<u16> = pixels.iter().map(|&byte| byte.into()).collect();
        write_png(width, height, layout, &samples, None, None)
    }

    /// A small RGBA8 PNG with varied pixels.
    pub fn small_png() -> Vec<u8> {
        png_cases()
            .into_iter()
            .find(|case| case.name == "rgba8")
            .unwrap()
            .file
    }

    /// Appends a JPEG marker segment (marker, big-endian length, payload).
    fn segment(out: &mut Vec<u8>, marker: u8, payload: &[u8]) {
        out.extend([0xFF, marker]);
        out.extend(((payload.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(payload);
    }

    /// Entropy-coded bits with JPEG byte stuffing.
    struct BitWriter {
        out: Vec<u8>,
        accumulator: u32,
        count: u32,
    }

    impl BitWriter {
        fn put(&mut self, value: u32, bits: u32) {
            for bit in (0..bits).rev() {
                self.accumulator = (self.accumulator << 1) | ((value >> bit) & 1);
                self.count += 1;
                if self.count == 8 {
                    self.flush_byte();
                }
            }
        }

        fn flush_byte(&mut self) {
            let byte = self.accumulator as u8;
            self.out.push(byte);
            if byte == 0xFF {
                self.out.push(0);
            }
            self.accumulator = 0;
            self.count = 0;
        }

        fn finish(mut self) -> Vec<u8> {
            while self.count != 0 {
                self.put(1, 1);
            }
            self.out
        }
    }

    /// A baseline JPEG whose 8x8 blocks are flat: `blocks[c][i]` is the value of
    /// component `c` in block `i` (raster order, 4:4:4). Uses a unit
    /// quantisation table, a DC table of 12 four-bit codes and an AC table
    /// holding only end-of-block, so each block decodes to exactly its value.
    pub fn flat_block_jpeg(width: u16, height: u16, blocks: &[Vec<u8>]) -> Vec<u8> {
        let components = blocks.len() as u8;
        let mut out = vec![0xFF, 0xD8];
        let mut dqt = vec![0u8];
        dqt.extend([1u8; 64]);
        segment(&mut out, 0xDB, &dqt);
        let mut sof = vec![8];
        sof.extend(height.to_be_bytes());
        sof.extend(width.to_be_bytes());
        sof.push(components);
        for id in 1..=components {
            sof.extend([id, 0x11, 0]);
        }
        segment(&mut out, 0xC0, &sof);
        let mut dht = vec![0x00];
        let mut dc_counts = [0u8; 16];
        dc_counts[3] = 12;
        dht.extend(dc_counts);
        dht.extend(0..12u8);
        dht.push(0x10);
        let mut ac_counts = [0u8; 16];
        ac_counts[0] = 1;
        dht.extend(ac_counts);
        dht.push(0x00);
        segment(&mut out, 0xC4, &dht);
        let mut sos = vec![components];
        for id in 1..=components {
            sos.extend([id, 0x00]);
        }
        sos.extend([0, 63, 0]);
        segment(&mut out, 0xDA, &sos);

        let mut bits = BitWriter {
            out: Vec::new(),
            accumulator: 0,
            count: 0,
        };
        let mut previous = vec![0i32; blocks.len()];
        for block in 0..blocks[0].len() {
            for (component, values) in blocks.iter().enumerate() {
                let dc = 8 * (i32::from(values[block]) - 128);
                let diff = dc - previous[component];
                previous[component] = dc;
                let category = 32 - diff.unsigned_abs().leading_zeros();
                bits.put(category, 4);
                let extra = if diff >= 0 {
                    diff
                } else {
                    diff + (1 << category) - 1
                };
                bits.put(extra as u32, category);
                bits.put(0, 1); // end of block
            }
        }
        out.extend(bits.finish());
        out.extend([0xFF, 0xD9]);
        out
    }
}

#[cfg(test)]
mod tests {
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
}
