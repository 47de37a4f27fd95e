//! JPEG sources through `zune-jpeg` in strict mode, with a walk of the
//! marker segments first so a file cut short is an error.

use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

use super::{ImageError, ImageFormat, Rgba8Image, check_dimensions};

/// The start-of-image marker and the first byte of the next marker of a JPEG file.
pub(super) const JPEG_SIGNATURE: [u8; 3] = [0xFF, 0xD8, 0xFF];

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
pub(super) fn check_jpeg_structure(bytes: &[u8]) -> Result<JpegLayout, ImageError> {
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
pub(super) struct JpegLayout {
    /// Where the first frame header's payload (after its length) starts.
    pub(super) frame: Option<usize>,
    /// The bytes of entropy-coded data in all scans together.
    pub(super) entropy_bytes: u64,
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
pub(super) fn check_jpeg_data_size(bytes: &[u8], layout: &JpegLayout) -> Result<(), ImageError> {
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
pub(super) fn skip_entropy_coded_data(bytes: &[u8], mut position: usize) -> Option<usize> {
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
pub(super) fn decode_jpeg(bytes: &[u8]) -> Result<Rgba8Image, ImageError> {
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
