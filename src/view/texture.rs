//! KTX2 textures decoded for the page: every image (level, layer, face,
//! slice) as an RGBA8 PNG, and the PSNR of level 0 against its source.
//!
//! UASTC images go through `basisu`, a pure-Rust Basis Universal transcoder
//! (the C++ one the encoder links, in its 0.3 Rust binding, computes the
//! RGBA32 row pitch in blocks and writes past its buffer); raw texels are expanded to RGBA8 (half floats clamped to [0, 1]
//! and sRGB-encoded for display); Zstd-supercompressed levels are inflated
//! first.

use serde_json::{Value, json};

use crate::encode::image::Rgba8Image;
use crate::format::ktx2::{self, Ktx2View};

/// Which image of a texture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImageIndex {
    /// Mip level.
    pub level: u32,
    /// Array layer.
    pub layer: u32,
    /// Cube face.
    pub face: u32,
    /// Depth slice of a 3D texture.
    pub slice: u32,
}

/// The PSNR reported for identical images.
pub const IDENTICAL_PSNR: f64 = 100.0;

/// The largest level the viewer inflates, so a hostile header cannot make
/// it allocate without bound.
const MAX_LEVEL_BYTES: u64 = 1 << 30;

/// The page's view of a texture: its shape, encoding and every image's URL.
/// `source` and `psnr` are the caller's (it knows where sources live).
/// Fails for a format the viewer cannot show. (The KTX2 reader has checked
/// that every level holds exactly the bytes the header's size needs, so the
/// image list is as long as the file is large.)
pub fn texture_json(path: &str, view: &Ktx2View<'_>) -> Result<Value, String> {
    Encoding::of(view)?;
    let header = view.header();
    let levels = header.stored_level_count();
    let (layers, faces) = (header.layer_count.max(1), header.face_count.max(1));
    let mut images = Vec::new();
    for level in 0..levels {
        let (width, height, depth) = level_size(view, level);
        for layer in 0..layers {
            for face in 0..faces {
                for slice in 0..depth {
                    let at = ImageIndex {
                        level,
                        layer,
                        face,
                        slice,
                    };
                    images.push(json!({
                        "level": level, "layer": layer, "face": face, "slice": slice,
                        "width": width, "height": height, "url": image_url(path, at),
                    }));
                }
            }
        }
    }
    let kind = match (header.face_count, header.layer_count, header.pixel_depth) {
        (6, _, _) => "cube",
        (_, layers, _) if layers > 0 => "array",
        (_, _, depth) if depth > 0 => "3d",
        _ => "2d",
    };
    let swizzle = view.key_value("KTXswizzle").map(|value| {
        String::from_utf8_lossy(value)
            .trim_end_matches('\0')
            .to_owned()
    });
    Ok(json!({
        "path": path,
        "kind": kind,
        "swizzle": swizzle.unwrap_or_else(|| "rgba".into()),
        "images": images,
        "source": Value::Null,
        "psnr": Value::Null,
    }))
}

/// Where the page fetches one image as PNG.
pub fn image_url(path: &str, at: ImageIndex) -> String {
    let encoded: String =
        percent_encoding::utf8_percent_encode(path, percent_encoding::NON_ALPHANUMERIC).to_string();
    format!(
        "/api/texture/image?path={encoded}&level={}&layer={}&face={}&slice={}",
        at.level, at.layer, at.face, at.slice
    )
}

/// Width, height and depth of `level`.
fn level_size(view: &Ktx2View<'_>, level: u32) -> (u32, u32, u32) {
    let header = view.header();
    let shrink = |size: u32| size.checked_shr(level).unwrap_or(0).max(1);
    (
        shrink(header.pixel_width),
        shrink(header.pixel_height.max(1)),
        shrink(header.pixel_depth.max(1)),
    )
}

/// Decodes one image of the texture `view` (parsed from `file`) to RGBA8.
pub fn decode(file: &[u8], view: &Ktx2View<'_>, at: ImageIndex) -> Result<Rgba8Image, String> {
    let header = view.header();
    let (layers, faces) = (header.layer_count.max(1), header.face_count.max(1));
    let (width, height, depth) = level_size(view, at.level);
    if at.level >= header.stored_level_count()
        || at.layer >= layers
        || at.face >= faces
        || at.slice >= depth
    {
        return Err(format!(
            "no image at level {}, layer {}, face {}, slice {}",
            at.level, at.layer, at.face, at.slice
        ));
    }
    let encoding = Encoding::of(view)?;
    if encoding == Encoding::Uastc {
        return transcode_uastc(file, at, width, height);
    }
    let level = inflated_level(view, at.level as usize)?;
    let image_bytes = encoding
        .image_bytes(width, height)
        .ok_or("the image size overflows")?;
    let index = (u64::from(at.layer) * u64::from(faces) + u64::from(at.face)) * u64::from(depth)
        + u64::from(at.slice);
    let start = index
        .checked_mul(image_bytes)
        .ok_or("image offset overflows")?;
    let data = usize::try_from(start)
        .ok()
        .zip(usize::try_from(start + image_bytes).ok())
        .and_then(|(start, end)| level.get(start..end))
        .ok_or_else(|| format!("level {} holds no bytes for this image", at.level))?;
    let pixels = encoding.to_rgba8(data)?;
    Ok(Rgba8Image {
        width,
        height,
        pixels,
    })
}

/// The bytes of level `index`, inflated when supercompressed.
fn inflated_level<'a>(
    view: &Ktx2View<'a>,
    index: usize,
) -> Result<std::borrow::Cow<'a, [u8]>, String> {
    let data = view.level_data(index);
    match view.header().supercompression_scheme {
        ktx2::SUPERCOMPRESSION_NONE => Ok(data.into()),
        ktx2::SUPERCOMPRESSION_ZSTD => {
            let size = view
                .levels()
                .get(index)
                .map_or(0, |entry| entry.uncompressed_byte_length);
            if size > MAX_LEVEL_BYTES {
                return Err(format!(
                    "level {index} inflates to {size} bytes, more than the viewer allows"
                ));
            }
            zstd::bulk::decompress(data, size as usize)
                .map(Into::into)
                .map_err(|e| format!("level {index} does not inflate: {e}"))
        }
        other => Err(format!(
            "supercompression scheme {other} is not shown by the viewer"
        )),
    }
}

/// How the texels of an image are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Uastc,
    R8,
    Rgba8,
    Rgba16Float,
}

impl Encoding {
    /// The encoding the header and DFD describe.
    fn of(view: &Ktx2View<'_>) -> Result<Self, String> {
        match (view.header().vk_format, view.color_model()) {
            (ktx2::VK_FORMAT_UNDEFINED, Some(ktx2::DFD_MODEL_UASTC)) => Ok(Encoding::Uastc),
            (ktx2::VK_FORMAT_R8_UNORM, _) => Ok(Encoding::R8),
            (ktx2::VK_FORMAT_R8G8B8A8_UNORM | ktx2::VK_FORMAT_R8G8B8A8_SRGB, _) => {
                Ok(Encoding::Rgba8)
            }
            (ktx2::VK_FORMAT_R16G16B16A16_SFLOAT, _) => Ok(Encoding::Rgba16Float),
            (other, _) => Err(format!("vkFormat {other} is not shown by the viewer")),
        }
    }

    /// Bytes of one `width` x `height` image (`None` past 2^64).
    fn image_bytes(self, width: u32, height: u32) -> Option<u64> {
        let (w, h) = (u64::from(width), u64::from(height));
        let (columns, rows, unit) = match self {
            Encoding::Uastc => (w.div_ceil(4), h.div_ceil(4), 16),
            Encoding::R8 => (w, h, 1),
            Encoding::Rgba8 => (w, h, 4),
            Encoding::Rgba16Float => (w, h, 8),
        };
        columns.checked_mul(rows)?.checked_mul(unit)
    }

    /// The image's texels as RGBA8.
    fn to_rgba8(self, data: &[u8]) -> Result<Vec<u8>, String> {
        match self {
            Encoding::Uastc => Err("UASTC is transcoded whole".into()),
            Encoding::R8 => Ok(data.iter().flat_map(|&v| [v, v, v, 255]).collect()),
            Encoding::Rgba8 => Ok(data.to_vec()),
            Encoding::Rgba16Float => Ok(data
                .chunks_exact(2)
                .enumerate()
                .map(|(i, half)| {
                    let value = half::f16::from_le_bytes([half[0], half[1]]).to_f32();
                    display_byte(value, i % 4 == 3)
                })
                .collect()),
        }
    }
}

/// One half-float channel as a display byte: alpha linear, colour
/// sRGB-encoded, both clamped to [0, 1].
fn display_byte(value: f32, alpha: bool) -> u8 {
    let v = if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, 1.0)
    };
    let encoded = if alpha || v <= 0.003_130_8 {
        if alpha { v } else { v * 12.92 }
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}

/// One UASTC image of `file` to RGBA8, through `basisu`.
fn transcode_uastc(
    file: &[u8],
    at: ImageIndex,
    width: u32,
    height: u32,
) -> Result<Rgba8Image, String> {
    let transcoder =
        basisu::Transcoder::new(file).map_err(|e| format!("UASTC does not transcode: {e:?}"))?;
    let mut pixels = transcoder
        .transcode_image(
            at.level,
            at.layer,
            at.face,
            basisu::TargetFormat::Rgba32,
            basisu::DecodeFlags::NONE,
        )
        .map_err(|e| format!("UASTC image does not transcode: {e:?}"))?;
    let size = width as usize * height as usize * 4;
    if pixels.len() < size {
        return Err(format!(
            "the transcoder gave {} bytes for a {width}x{height} image",
            pixels.len()
        ));
    }
    pixels.truncate(size);
    Ok(Rgba8Image {
        width,
        height,
        pixels,
    })
}

/// The image as PNG bytes.
pub fn png_bytes(image: &Rgba8Image) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&image.pixels)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The peak signal-to-noise ratio of `decoded` against `source` over the
/// R, G, B and A channels, in dB (`None` when their sizes differ; 100 when
/// they are identical, which JSON can carry where infinity cannot).
pub fn psnr(decoded: &Rgba8Image, source: &Rgba8Image) -> Option<f64> {
    if (decoded.width, decoded.height) != (source.width, source.height)
        || decoded.pixels.len() != source.pixels.len()
    {
        return None;
    }
    let squared: f64 = decoded
        .pixels
        .iter()
        .zip(&source.pixels)
        .map(|(&a, &b)| {
            let d = f64::from(a) - f64::from(b);
            d * d
        })
        .sum();
    let mse = squared / decoded.pixels.len().max(1) as f64;
    Some(if mse == 0.0 {
        IDENTICAL_PSNR
    } else {
        (10.0 * (255.0 * 255.0 / mse).log10()).min(IDENTICAL_PSNR)
    })
}
