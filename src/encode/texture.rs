//! The texture encoder: images in, one KTX 2.0 file out.
//!
//! A plain texture is one image; a cube map is six and an array is one per
//! layer ([`Shape`]). Every image goes through the same steps:
//!
//! 1. pick the mip levels to keep: `max_size` drops the largest levels until
//!    the base fits, and `mips: false` keeps only that base;
//! 2. filter each kept level directly from the source (see [`super::mips`]);
//! 3. encode: raw RGBA8, pixel-exact at level 0, UASTC 4x4 through
//!    [`super::uastc`], or a native GPU format (BCn, ASTC, RGBA16F, RGB9E5)
//!    through [`super::blocks`], each level on its own;
//! 4. compress each level with Zstandard (`zstd_level` 0 stores it as is);
//! 5. write the KTX 2.0 container.
//!
//! Colour textures are sRGB; normal maps and grayscale textures are linear
//! with a `KTXswizzle` of `rg01` and `r001` (`ra01` for ASTC normal maps,
//! see [`super::blocks::astc`]). A DirectX-convention normal map
//! (green pointing down) has its green channel flipped before step 1
//! (`flip_green`), so every normal map we write follows the OpenGL convention
//! that glTF uses. A source that is already a GPU
//! texture (KTX2) is passed through instead ([`gpu_source`]).
//!
//! Sources deeper than 8 bits take their own paths ([`SourceImages`]):
//! 16-bit data textures stay 16-bit ([`deep`]), and float sources are
//! filtered and written as floats ([`hdr`]).

pub mod deep;
pub mod floor;
pub mod gpu_source;
pub mod hdr;
pub mod pixel_art;
pub mod readback;

use core::ops::Range;
use std::borrow::Cow;

use super::blocks::{BlockEncoder, BlockError, target};
use super::image::{
    ImageError, Rgba8Image, Rgba16Image, RgbaF32Image, RgbaImage, SourceHints, SourceImage,
    decode_source,
};
use super::mips::{Sample, mip_level_count, mip_levels};
use super::strips::{self, Strip};
pub use super::texture_mode::TextureMode;
use super::uastc::{UastcError, UastcOptions, encode_uastc};
use crate::format::ktx2::{
    CHOICE_KEY, Ktx2Image, Ktx2Level, SAMPLER_KEY, SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZSTD,
    TexelFormat, write_ktx2_with,
};

/// How the images are arranged in the texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One 2D image.
    Plain,
    /// Six square faces in the order +X, -X, +Y, -Y, +Z, -Z.
    Cube,
    /// One image per array layer.
    Array,
}

/// How to encode one texture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureOptions {
    /// The meaning of the texels.
    pub mode: TextureMode,
    /// UASTC settings, or `None` for raw RGBA8.
    pub uastc: Option<UastcOptions>,
    /// A native GPU format to write instead of UASTC or raw RGBA8.
    pub blocks: Option<BlockOptions>,
    /// The Zstandard level for each mip level; 0 stores levels uncompressed.
    pub zstd_level: i32,
    /// Keep the full mip chain (`true`) or the base level only.
    pub mips: bool,
    /// The largest width or height of the base level; larger sources drop
    /// their top levels until they fit. 0 means no limit.
    pub max_size: u32,
    /// Invert the green channel of every source texel first (a DirectX
    /// normal map becomes an OpenGL one).
    pub flip_green: bool,
    /// The texel format of float (HDR) sources.
    pub hdr_format: hdr::HdrFormat,
    /// The quality floor in dB of colour and linear 8-bit textures (see
    /// [`floor`]); `None` keeps whatever the format gives.
    pub min_psnr: Option<f32>,
    /// Why the texture is pixel art, if it is: written raw, without mips,
    /// with a nearest-filter hint (see [`pixel_art`]).
    pub pixel_art: Option<pixel_art::PixelArt>,
}

/// The decoded images of one texture (one, six faces or the layers), all
/// at one precision.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceImages {
    /// 8-bit images.
    Ldr(Vec<Rgba8Image>),
    /// 16-bit unsigned normalised images.
    Deep(Vec<Rgba16Image>),
    /// Linear float images.
    Hdr(Vec<RgbaF32Image>),
}

impl From<SourceImage> for SourceImages {
    fn from(image: SourceImage) -> Self {
        match image {
            SourceImage::Ldr(image) => Self::Ldr(vec![image]),
            SourceImage::Deep(image) => Self::Deep(vec![image]),
            SourceImage::Hdr(image) => Self::Hdr(vec![image]),
        }
    }
}

/// A native GPU format and the encoder effort to spend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockOptions {
    /// The format written: BCn, ASTC, RGBA16F or RGB9E5.
    pub format: TexelFormat,
    /// Encoder effort, 0 (fastest) to 4 (slowest, best).
    pub quality: u8,
}

/// Why a texture could not be encoded. Messages never name the file; the caller
/// adds the path.
#[derive(thiserror::Error, Debug)]
pub enum TextureError {
    /// The source image could not be decoded.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The UASTC encoder failed.
    #[error(transparent)]
    Uastc(#[from] UastcError),
    /// A float source in a mode that has no float form.
    #[error(
        "float (HDR) sources cannot be normal maps; save the normal map as a 16-bit PNG or TIFF"
    )]
    HdrNormalMap,
    /// A native-format encoder failed.
    #[error(transparent)]
    Blocks(#[from] BlockError),
    /// The quality floor could not read the encoded level 0 back.
    #[error("the encoded texture does not read back for the quality floor: {0}")]
    ReadBack(String),
    /// Zstandard refused to compress a level.
    #[error("Zstandard compression of mip level {level} failed")]
    Compress {
        /// The mip level being compressed.
        level: usize,
        /// The error from the compressor.
        #[source]
        source: std::io::Error,
    },
}

/// Encodes a source image recognised by its signature (PNG, JPEG, WebP,
/// BMP, TIFF, HDR, EXR) into a complete KTX 2.0 file.
pub fn encode_texture(source: &[u8], options: &TextureOptions) -> Result<Vec<u8>, TextureError> {
    encode_source(source, &SourceHints::default(), options)
}

/// Encodes a source image of any kind [`decode_source`] reads, `hints`
/// naming formats without a signature (TGA, SVG).
pub fn encode_source(
    source: &[u8],
    hints: &SourceHints,
    options: &TextureOptions,
) -> Result<Vec<u8>, TextureError> {
    let image = decode_source(source, hints)?;
    encode_sources(
        &SourceImages::from(image),
        Shape::Plain,
        options,
        &mut Vec::new(),
    )
}

/// Encodes equally sized images of one precision arranged as `shape`:
/// 8-bit images through [`encode_images`], the others through [`deep`] and
/// [`hdr`]; `warnings` gathers what the user should hear about.
pub fn encode_sources(
    images: &SourceImages,
    shape: Shape,
    options: &TextureOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<u8>, TextureError> {
    match images {
        SourceImages::Ldr(images) => encode_images_reporting(images, shape, options, warnings),
        SourceImages::Deep(images) => deep::encode_deep(images, shape, options),
        SourceImages::Hdr(images) => hdr::encode_hdr(images, shape, options),
    }
}

/// The source levels kept for a `width` x `height` base: the first level
/// whose larger side fits `max_size`, then the rest of the chain if `mips`.
pub fn kept_levels(width: u32, height: u32, mips: bool, max_size: u32) -> Range<usize> {
    let full = mip_level_count(width, height);
    let fits = |level: usize| max_size == 0 || (width.max(height) >> level).max(1) <= max_size;
    let first = (0..full).find(|&level| fits(level)).unwrap_or(full - 1);
    first..if mips { full } else { first + 1 }
}

/// Encodes equally sized images arranged as `shape` into a KTX 2.0 file.
///
/// # Panics
///
/// If `images` is empty; callers check their sources first.
pub fn encode_images(
    images: &[Rgba8Image],
    shape: Shape,
    options: &TextureOptions,
) -> Result<Vec<u8>, TextureError> {
    encode_images_reporting(images, shape, options, &mut Vec::new())
}

/// [`encode_images`], adding to `warnings` what the user should hear about
/// (a BC1 texture whose source has alpha, which BC1 drops).
///
/// # Panics
///
/// If `images` is empty; callers check their sources first.
pub fn encode_images_reporting(
    images: &[Rgba8Image],
    shape: Shape,
    options: &TextureOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<u8>, TextureError> {
    encode_images_with(images, shape, options, warnings, &[])
}

/// The key/value key of an animation's frame times: one little-endian u32
/// per array layer, in milliseconds (`docs/formats/ktx2.md`).
pub const FRAME_TIMES_KEY: &str = "assetc.frameTimes";

/// The standard KTX 2.0 key saying the array layers are the frames of an
/// animation: duration, timescale and loop count, three little-endian u32.
pub const ANIM_DATA_KEY: &str = "KTXanimData";

/// Encodes the frames of an animation, each `frame_ms` long, as the layers
/// of a texture array that records their times: [`FRAME_TIMES_KEY`]
/// always, and [`ANIM_DATA_KEY`] (timescale 1000, looping forever) when
/// every frame lasts as long, which is all that key can say.
///
/// # Panics
///
/// If `frames` is empty or `frame_ms` is not as long as `frames`; callers
/// read both from one file.
pub fn encode_animation(
    frames: &[Rgba8Image],
    frame_ms: &[u32],
    options: &TextureOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<u8>, TextureError> {
    assert_eq!(frames.len(), frame_ms.len(), "one time per frame");
    let times: Vec<u8> = frame_ms.iter().flat_map(|ms| ms.to_le_bytes()).collect();
    let mut extra = vec![(FRAME_TIMES_KEY, times)];
    if frame_ms.iter().all(|&ms| ms == frame_ms[0]) {
        let anim_data = [frame_ms[0], 1000, 0];
        extra.push((
            ANIM_DATA_KEY,
            anim_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ));
    }
    encode_images_with(frames, Shape::Array, options, warnings, &extra)
}

/// [`encode_images_reporting`] with `extra` key/value pairs.
fn encode_images_with(
    images: &[Rgba8Image],
    shape: Shape,
    options: &TextureOptions,
    warnings: &mut Vec<String>,
    extra: &[(&'static str, Vec<u8>)],
) -> Result<Vec<u8>, TextureError> {
    let mut options = options.for_pixel_art();
    let chains = filtered_chains(images, &options);
    let mut notes = Notes::of(&options);
    loop {
        let (format, levels) = encode_levels(images, &chains, &options, warnings)?;
        let measured = floor_psnr(format, &chains, shape, &options, &levels)?;
        let step = measured
            .filter(|&(psnr, floor)| psnr < floor)
            .and_then(|(psnr, _)| Some((psnr, floor::finer(&options)?)));
        match step {
            Some((psnr, finer)) => {
                notes.stepped(&options, psnr, &finer);
                options = finer;
            }
            None => {
                notes.reached(measured.map(|(psnr, _)| psnr));
                let mut pairs = notes.key_values();
                pairs.extend_from_slice(extra);
                return write_texture_with(format, &chains, shape, &options, &levels, &pairs);
            }
        }
    }
}

/// The texel format and the bytes of every level of `chains` as `options`
/// encode them.
fn encode_levels(
    images: &[Rgba8Image],
    chains: &[Vec<Rgba8Image>],
    options: &TextureOptions,
    warnings: &mut Vec<String>,
) -> Result<(TexelFormat, Vec<Vec<u8>>), TextureError> {
    Ok(match (&options.blocks, &options.uastc) {
        (Some(blocks), _) => {
            warnings.extend(alpha_dropped(images, blocks.format));
            (blocks.format, block_levels(chains, options.mode, blocks)?)
        }
        (None, None) => (
            TexelFormat::Rgba8 {
                srgb: options.mode.is_srgb(),
            },
            raw_levels(chains),
        ),
        (None, Some(uastc)) => {
            let encoded = encode_uastc(chains, options.mode.is_srgb(), uastc)?;
            let format = TexelFormat::Uastc {
                srgb: options.mode.is_srgb(),
                alpha: encoded.alpha,
            };
            (format, encoded.levels)
        }
    })
}

/// The worst PSNR of level 0 and the floor `options` set, for a lossy
/// encode under a floor, read back from an uncompressed file; `None` when
/// the floor is off or does not apply.
fn floor_psnr(
    format: TexelFormat,
    chains: &[Vec<Rgba8Image>],
    shape: Shape,
    options: &TextureOptions,
    levels: &[Vec<u8>],
) -> Result<Option<(f64, f64)>, TextureError> {
    let lossless = matches!(format, TexelFormat::Rgba8 { .. });
    let floor = match options.min_psnr {
        Some(floor) if !lossless && floor::applies_to(options.mode) => f64::from(floor),
        _ => return Ok(None),
    };
    let stored = TextureOptions {
        zstd_level: 0,
        ..*options
    };
    let file = write_texture(format, chains, shape, &stored, levels)?;
    let sources: Vec<&Rgba8Image> = chains.iter().map(|chain| &chain[0]).collect();
    let worst = floor::worst_psnr(&file, &sources).map_err(TextureError::ReadBack)?;
    Ok(Some((worst, floor)))
}

/// What a texture records about the choices made for it, as key/value data:
/// [`CHOICE_KEY`] (why the format written is not the one asked for) and
/// [`SAMPLER_KEY`] (`nearest` for pixel art).
struct Notes {
    /// The sentences of `assetc.choice`.
    choice: Vec<String>,
    /// Whether the texture asks for nearest filtering.
    nearest: bool,
    /// Whether the floor stepped the format up.
    stepped: bool,
}

impl Notes {
    /// The notes of a texture about to be encoded with `options`.
    fn of(options: &TextureOptions) -> Self {
        let choice = options
            .pixel_art
            .map(|why| format!("pixel art ({why}): rgba8 without mips"));
        Self {
            choice: choice.into_iter().collect(),
            nearest: options.pixel_art.is_some(),
            stepped: false,
        }
    }

    /// Records that `from` read back at `psnr` dB, below the floor, and
    /// that `to` is tried next.
    fn stepped(&mut self, from: &TextureOptions, psnr: f64, to: &TextureOptions) {
        self.stepped = true;
        self.choice.push(format!(
            "{} read back at {psnr:.2} dB, below the {} dB floor: {}",
            floor::written_name(from),
            from.min_psnr.unwrap_or_default(),
            floor::written_name(to)
        ));
    }

    /// Records the PSNR the written format read back at, when it was
    /// reached by stepping up and is not lossless.
    fn reached(&mut self, psnr: Option<f64>) {
        if let (true, Some(psnr), Some(last)) = (self.stepped, psnr, self.choice.last_mut()) {
            last.push_str(&format!(" at {psnr:.2} dB"));
        }
    }

    /// The key/value pairs to write (none when nothing was chosen).
    fn key_values(&self) -> Vec<(&'static str, Vec<u8>)> {
        let mut pairs = Vec::new();
        if !self.choice.is_empty() {
            let text = format!("{}\0", self.choice.join("; "));
            pairs.push((CHOICE_KEY, text.into_bytes()));
        }
        if self.nearest {
            pairs.push((SAMPLER_KEY, b"nearest\0".to_vec()));
        }
        pairs
    }
}

impl TextureOptions {
    /// These options with pixel art's choices made: raw RGBA8, no mips.
    fn for_pixel_art(&self) -> Self {
        match self.pixel_art {
            Some(_) => Self {
                uastc: None,
                blocks: None,
                mips: false,
                ..*self
            },
            None => *self,
        }
    }
}

/// Writes the KTX 2.0 file of `levels`, encoded from `chains` in `format`.
pub(crate) fn write_texture<T>(
    format: TexelFormat,
    chains: &[Vec<RgbaImage<T>>],
    shape: Shape,
    options: &TextureOptions,
    levels: &[Vec<u8>],
) -> Result<Vec<u8>, TextureError> {
    write_texture_with(format, chains, shape, options, levels, &[])
}

/// [`write_texture`] with `extra` key/value pairs.
fn write_texture_with<T>(
    format: TexelFormat,
    chains: &[Vec<RgbaImage<T>>],
    shape: Shape,
    options: &TextureOptions,
    levels: &[Vec<u8>],
    extra: &[(&str, Vec<u8>)],
) -> Result<Vec<u8>, TextureError> {
    let base = &chains[0][0];
    let layout = Ktx2Image {
        format,
        width: base.width,
        height: base.height,
        depth: 0,
        layers: if shape == Shape::Array {
            chains.len() as u32
        } else {
            0
        },
        faces: if shape == Shape::Cube { 6 } else { 1 },
        supercompression: 0,
        swizzle: target::swizzle(format, options.mode),
        levels: &[],
    };
    let extra: Vec<(&str, &[u8])> = extra
        .iter()
        .map(|(key, value)| (*key, value.as_slice()))
        .collect();
    write_supercompressed_with(layout, levels, options.zstd_level, &extra)
        .map_err(|(level, source)| TextureError::Compress { level, source })
}

/// The kept mip levels of every image (steps 1 and 2), green flipped
/// first when the options say so: `chains[image][level]`.
pub(crate) fn filtered_chains<T: Sample>(
    images: &[RgbaImage<T>],
    options: &TextureOptions,
) -> Vec<Vec<RgbaImage<T>>> {
    let base = &images[0];
    let range = kept_levels(base.width, base.height, options.mips, options.max_size);
    images
        .iter()
        .map(|image| {
            if options.flip_green {
                mip_levels(&green_flipped(image), options.mode, range.clone())
            } else {
                mip_levels(image, options.mode, range.clone())
            }
        })
        .collect()
}

/// Each level in `blocks.format`: every image's bytes of that level, image
/// 0 first. Strips run on lent threads, each thread with its own encoder.
fn block_levels(
    chains: &[Vec<Rgba8Image>],
    mode: TextureMode,
    blocks: &BlockOptions,
) -> Result<Vec<Vec<u8>>, BlockError> {
    let new_encoder = || BlockEncoder::new(blocks.format, mode, blocks.quality);
    strips::encode(
        chains,
        blocks.format.block_dimensions(),
        |encoder, batch| {
            each_strip(encoder, new_encoder, batch, |encoder, image| {
                encoder.encode(image)
            })
        },
    )
}

/// `encode` of every strip of `batch` with the thread's encoder, made by
/// `new_encoder` on the thread's first batch.
pub(crate) fn each_strip<T, E>(
    encoder: &mut Option<BlockEncoder>,
    new_encoder: impl Fn() -> Result<BlockEncoder, E>,
    batch: &[Strip<T>],
    encode: impl Fn(&mut BlockEncoder, &RgbaImage<T>) -> Result<Vec<u8>, E>,
) -> Result<Vec<Vec<u8>>, E> {
    let encoder = match encoder {
        Some(encoder) => encoder,
        None => encoder.insert(new_encoder()?),
    };
    batch
        .iter()
        .map(|strip| encode(encoder, &strip.image))
        .collect()
}

/// The warning for a BC1 or RGB9E5 texture whose sources have alpha below
/// 255, which those formats drop.
fn alpha_dropped(images: &[Rgba8Image], format: TexelFormat) -> Option<String> {
    if !matches!(format, TexelFormat::Bc1 { .. } | TexelFormat::Rgb9e5) {
        return None;
    }
    let translucent = images
        .iter()
        .any(|image| image.pixels.chunks_exact(4).any(|texel| texel[3] < 255));
    translucent.then(|| {
        format!(
            "the source has alpha, which {} drops (use bc7 or astc to keep it)",
            format.name()
        )
    })
}

/// `image` with its green channel inverted: a DirectX normal map's Y axis
/// turned into OpenGL's.
fn green_flipped<T: Sample>(image: &RgbaImage<T>) -> RgbaImage<T> {
    let mut flipped = image.clone();
    for texel in flipped.pixels.chunks_exact_mut(4) {
        texel[1] = texel[1].inverted();
    }
    flipped
}

/// Raw RGBA8 levels: each level is every image's pixels, image 0 first.
fn raw_levels(chains: &[Vec<Rgba8Image>]) -> Vec<Vec<u8>> {
    (0..chains[0].len())
        .map(|level| {
            chains
                .iter()
                .flat_map(|chain| chain[level].pixels.iter().copied())
                .collect()
        })
        .collect()
}

/// Writes a KTX2 file whose `levels` (raw, level 0 first) are each stored as
/// one Zstandard frame, or as they are when `zstd_level` is 0; `layout` gives
/// everything else, and its
/// `supercompression` and `levels` are filled in here. A failure names the
/// level that Zstandard refused.
pub fn write_supercompressed(
    layout: Ktx2Image<'_>,
    levels: &[Vec<u8>],
    zstd_level: i32,
) -> Result<Vec<u8>, (usize, std::io::Error)> {
    write_supercompressed_with(layout, levels, zstd_level, &[])
}

/// [`write_supercompressed`] with `extra` key/value entries (see
/// [`crate::format::ktx2::write_ktx2_with`]).
pub fn write_supercompressed_with(
    layout: Ktx2Image<'_>,
    levels: &[Vec<u8>],
    zstd_level: i32,
    extra: &[(&str, &[u8])],
) -> Result<Vec<u8>, (usize, std::io::Error)> {
    // Levels are compressed on lent threads, each into its own frame, as
    // they would be one after the other.
    let indexed: Vec<(usize, &Vec<u8>)> = levels.iter().enumerate().collect();
    let stored = crate::jobserver::map(&indexed, |&(level, data)| {
        supercompress(data, zstd_level).map_err(|e| (level, e))
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    let table: Vec<Ktx2Level> = stored
        .iter()
        .zip(levels)
        .map(|(data, raw)| Ktx2Level {
            data,
            uncompressed_len: raw.len() as u64,
        })
        .collect();
    let image = Ktx2Image {
        supercompression: supercompression_scheme(zstd_level),
        levels: &table,
        ..layout
    };
    Ok(write_ktx2_with(&image, extra))
}

/// A level as stored: one Zstandard frame, or the data itself when
/// `zstd_level` is 0 (see [`supercompression_scheme`]).
fn supercompress(data: &[u8], zstd_level: i32) -> std::io::Result<Cow<'_, [u8]>> {
    if zstd_level == 0 {
        return Ok(Cow::Borrowed(data));
    }
    zstd::bulk::compress(data, zstd_level).map(Cow::Owned)
}

/// The KTX2 supercompression scheme of levels stored by [`supercompress`].
fn supercompression_scheme(zstd_level: i32) -> u32 {
    if zstd_level == 0 {
        SUPERCOMPRESSION_NONE
    } else {
        SUPERCOMPRESSION_ZSTD
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::image::decode_image;
    use crate::encode::image::test_images::{PngCase, gray_ramp_png, png_cases, small_png};
    use crate::format::ktx2;

    /// The DFD we write for `VK_FORMAT_R8G8B8A8_SRGB`: total size 92; basic
    /// block of 88 bytes, version 2; RGBSDA, BT.709, sRGB transfer, straight
    /// alpha; 1x1x1x1 texel blocks; bytesPlane0 = 4; samples R, G, B, A of 8
    /// bits at offsets 0, 8, 16, 24 with range 0..=255, alpha qualified LINEAR.
    const SRGB_DFD: &str = "5c000000 00000000 02005800 01010200 00000000 04000000 00000000 \
         00000700 00000000 00000000 ff000000 08000701 00000000 00000000 ff000000 \
         10000702 00000000 00000000 ff000000 1800071f 00000000 00000000 ff000000";

    /// The same for `VK_FORMAT_R8G8B8A8_UNORM`: linear transfer, no qualifier.
    const UNORM_DFD: &str = "5c000000 00000000 02005800 01010100 00000000 04000000 00000000 \
         00000700 00000000 00000000 ff000000 08000701 00000000 00000000 ff000000 \
         10000702 00000000 00000000 ff000000 1800070f 00000000 00000000 ff000000";

    /// Bytes from hexadecimal text; anything but hex digits is ignored.
    pub(super) fn hex(text: &str) -> Vec<u8> {
        let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits
            .chunks(2)
            .map(|pair| u8::from_str_radix(core::str::from_utf8(pair).unwrap(), 16).unwrap())
            .collect()
    }

    fn options(mode: TextureMode) -> TextureOptions {
        TextureOptions {
            mode,
            uastc: None,
            blocks: None,
            zstd_level: 3,
            mips: true,
            max_size: 0,
            flip_green: false,
            hdr_format: hdr::HdrFormat::Rgba16f,
            min_psnr: None,
            pixel_art: None,
        }
    }

    /// Level `index` of a file, inflated.
    fn inflated_level(reader: &::ktx2::Reader<&[u8]>, index: usize) -> Vec<u8> {
        let level = reader.levels().nth(index).unwrap();
        let capacity = level.uncompressed_byte_length as usize;
        zstd::bulk::decompress(level.data, capacity).unwrap()
    }

    fn encode_case(case: &PngCase, mode: TextureMode) -> Vec<u8> {
        encode_texture(&case.file, &options(mode)).unwrap_or_else(|e| panic!("{}: {e}", case.name))
    }

    #[test]
    fn level_zero_is_pixel_exact_for_every_png_layout() {
        for case in png_cases() {
            for mode in [TextureMode::Color, TextureMode::Normal] {
                if mode == TextureMode::Normal && is_16_bit(&case) {
                    continue; // kept at 16 bits: see source_tests.rs
                }
                let file = encode_case(&case, mode);
                let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
                let header = reader.header();
                assert_eq!(
                    (header.pixel_width, header.pixel_height),
                    (case.width, case.height)
                );
                assert!(inflated_level(&reader, 0) == case.expected, "{}", case.name);
            }
        }
    }

    /// Whether a PNG case holds 16-bit samples.
    fn is_16_bit(case: &PngCase) -> bool {
        case.name.contains("16")
    }

    fn seven_by_five(mode: TextureMode) -> Vec<u8> {
        let case = png_cases().into_iter().find(|c| c.name == "rgba8").unwrap();
        assert_eq!((case.width, case.height), (7, 5));
        encode_case(&case, mode)
    }

    fn key_values(reader: &::ktx2::Reader<&[u8]>) -> Vec<(String, Vec<u8>)> {
        reader
            .key_value_data()
            .map(|(key, value)| (key.to_owned(), value.to_vec()))
            .collect()
    }

    fn dfd_bytes(reader: &::ktx2::Reader<&[u8]>) -> Vec<u8> {
        let index = reader.header().index;
        let start = index.dfd_byte_offset as usize;
        reader.data()[start..start + index.dfd_byte_length as usize].to_vec()
    }

    #[test]
    fn colour_texture_structure() {
        let file = seven_by_five(TextureMode::Color);
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        let header = reader.header();
        assert_eq!(header.format, Some(::ktx2::Format::R8G8B8A8_SRGB));
        assert_eq!(header.type_size, 1);
        assert_eq!((header.pixel_width, header.pixel_height), (7, 5));
        assert_eq!(
            (header.pixel_depth, header.layer_count, header.face_count),
            (0, 0, 1)
        );
        assert_eq!(header.level_count, 3);
        assert_eq!(
            header.supercompression_scheme,
            Some(::ktx2::SupercompressionScheme::Zstandard)
        );
        let lengths: Vec<u64> = reader
            .levels()
            .map(|l| l.uncompressed_byte_length)
            .collect();
        assert_eq!(lengths, [7 * 5 * 4, 3 * 2 * 4, 4]);
        for (index, &length) in lengths.iter().enumerate() {
            assert_eq!(inflated_level(&reader, index).len() as u64, length);
        }
        assert_eq!(dfd_bytes(&reader), hex(SRGB_DFD));
        assert_eq!(
            reader.transfer_function(),
            Some(::ktx2::TransferFunction::SRGB)
        );
        let writer = format!("assetc {}\0", env!("CARGO_PKG_VERSION")).into_bytes();
        assert_eq!(
            key_values(&reader),
            [
                ("KTXorientation".to_owned(), b"rd\0".to_vec()),
                ("KTXwriter".to_owned(), writer),
            ]
        );
    }

    #[test]
    fn normal_and_gray_textures_are_unorm_with_swizzles() {
        for (mode, swizzle) in [(TextureMode::Normal, "rg01"), (TextureMode::Gray, "r001")] {
            let file = seven_by_five(mode);
            let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
            assert_eq!(reader.header().format, Some(::ktx2::Format::R8G8B8A8_UNORM));
            assert_eq!(dfd_bytes(&reader), hex(UNORM_DFD));
            let keys = key_values(&reader);
            let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(names, ["KTXorientation", "KTXswizzle", "KTXwriter"]);
            assert_eq!(keys[1].1, format!("{swizzle}\0").into_bytes());
        }
    }

    #[test]
    fn dfds_match_the_ktx2_crate_generator() {
        for (format, golden) in [
            (::ktx2::Format::R8G8B8A8_SRGB, SRGB_DFD),
            (::ktx2::Format::R8G8B8A8_UNORM, UNORM_DFD),
        ] {
            let (basic, type_size) = ::ktx2::dfd::Basic::from_format(format).unwrap();
            assert_eq!(type_size, 1);
            let block = ::ktx2::dfd::Block::Basic(basic).to_vec();
            assert_eq!(block, hex(golden)[4..], "{format:?}");
        }
    }

    #[test]
    fn our_reader_accepts_what_we_write() {
        let file = seven_by_five(TextureMode::Normal);
        let view = ktx2::parse(&file).unwrap();
        assert_eq!(view.header().vk_format, ktx2::VK_FORMAT_R8G8B8A8_UNORM);
        assert_eq!(
            view.header().supercompression_scheme,
            ktx2::SUPERCOMPRESSION_ZSTD
        );
        assert_eq!(view.levels().len(), 3);
        assert_eq!(view.key_value("KTXswizzle"), Some(&b"rg01\0"[..]));
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        for (index, level) in reader.levels().enumerate() {
            assert_eq!(view.level_data(index), level.data);
        }
    }

    #[test]
    fn mip_levels_hold_the_filtered_chain() {
        let case = png_cases().into_iter().find(|c| c.name == "rgb16").unwrap();
        let file = encode_case(&case, TextureMode::Color);
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        let image = decode_image(&case.file).unwrap();
        let count = mip_level_count(image.width, image.height);
        let chain = mip_levels(&image, TextureMode::Color, 0..count);
        for (index, mip) in chain.iter().enumerate() {
            assert_eq!(inflated_level(&reader, index), mip.pixels);
        }
    }

    #[test]
    fn the_widest_texture_gets_fifteen_levels() {
        let file = encode_texture(&gray_ramp_png(16384, 1), &options(TextureMode::Gray)).unwrap();
        let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
        assert_eq!(reader.header().level_count, 15);
        let ramp: Vec<u8> = (0..16384u32)
            .flat_map(|i| [i as u8, i as u8, i as u8, 255])
            .collect();
        assert!(inflated_level(&reader, 0) == ramp);
        assert_eq!(inflated_level(&reader, 14).len(), 4);
    }

    #[test]
    fn encoding_is_deterministic() {
        assert_eq!(
            seven_by_five(TextureMode::Color),
            seven_by_five(TextureMode::Color)
        );
    }

    #[test]
    fn bad_sources_are_image_errors() {
        let png = small_png();
        for source in [&b""[..], b"not an image", &png[..png.len() / 2]] {
            let error = encode_texture(source, &options(TextureMode::Gray)).unwrap_err();
            assert!(matches!(error, TextureError::Image(_)), "{error}");
        }
    }

    /// `options` writing `format` at the default effort.
    fn native(mode: TextureMode, format: TexelFormat) -> TextureOptions {
        TextureOptions {
            blocks: Some(BlockOptions { format, quality: 2 }),
            ..options(mode)
        }
    }

    #[test]
    fn native_formats_write_their_vk_format_blocks_and_swizzle() {
        let case = png_cases().into_iter().find(|c| c.name == "rgba8").unwrap();
        let image = decode_image(&case.file).unwrap();
        let astc = TexelFormat::Astc {
            block: crate::format::texel::AstcBlock::B6x6,
            srgb: false,
        };
        for (mode, format, swizzle) in [
            (TextureMode::Color, TexelFormat::Bc7 { srgb: true }, None),
            (TextureMode::Normal, TexelFormat::Bc5, Some(&b"rg01\0"[..])),
            (TextureMode::Normal, astc, Some(&b"ra01\0"[..])),
            (TextureMode::Gray, TexelFormat::Bc4, Some(&b"r001\0"[..])),
        ] {
            let mut warnings = Vec::new();
            let options = native(mode, format);
            let file = encode_images_reporting(
                std::slice::from_ref(&image),
                Shape::Plain,
                &options,
                &mut warnings,
            )
            .unwrap();
            assert!(warnings.is_empty(), "{warnings:?}");
            let view = ktx2::parse(&file).unwrap();
            assert_eq!(view.header().vk_format, format.vk_format());
            assert_eq!(view.key_value("KTXswizzle"), swizzle);
            let (bw, bh) = format.block_dimensions();
            let blocks = 7u32.div_ceil(bw) * 5u32.div_ceil(bh);
            let level0 = view.levels()[0].uncompressed_byte_length;
            assert_eq!(level0, u64::from(blocks) * format.texel_block_size());
            assert_eq!(view.levels().len(), 3, "mips are kept");
        }
    }

    #[test]
    fn bc1_of_a_translucent_source_warns_that_alpha_is_dropped() {
        let translucent = Rgba8Image {
            width: 4,
            height: 4,
            pixels: [10, 20, 30, 128].repeat(16),
        };
        let mut warnings = Vec::new();
        let options = native(TextureMode::Color, TexelFormat::Bc1 { srgb: true });
        encode_images_reporting(
            std::slice::from_ref(&translucent),
            Shape::Plain,
            &options,
            &mut warnings,
        )
        .unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("bc1 drops"), "{}", warnings[0]);
        let opaque = Rgba8Image {
            pixels: [10, 20, 30, 255].repeat(16),
            ..translucent
        };
        warnings.clear();
        encode_images_reporting(&[opaque], Shape::Plain, &options, &mut warnings).unwrap();
        assert!(warnings.is_empty());
    }

    #[test]
    fn flip_green_inverts_only_the_green_channel_at_level_zero() {
        for case in png_cases().into_iter().filter(|case| !is_16_bit(case)) {
            let flipped = TextureOptions {
                flip_green: true,
                ..options(TextureMode::Normal)
            };
            let file = encode_texture(&case.file, &flipped).unwrap();
            let reader = ::ktx2::Reader::new(file.as_slice()).unwrap();
            let expected: Vec<u8> = case
                .expected
                .chunks_exact(4)
                .flat_map(|t| [t[0], 255 - t[1], t[2], t[3]])
                .collect();
            assert!(inflated_level(&reader, 0) == expected, "{}", case.name);
        }
    }
}

#[cfg(test)]
#[path = "texture/uastc_tests.rs"]
mod uastc_tests;

#[cfg(test)]
#[path = "texture/source_tests.rs"]
mod source_tests;
