//! Reading back what a KTX2 file stores: any image of any texel format
//! decoded to its stored values, and the PSNR of one RGBA8 image against
//! another.
//!
//! The encoder reads its own level 0 back to hold the quality floor
//! (`texture.min_psnr`), and the inspector shows every image through the same
//! code, so what `view` displays is what the floor measured.
//!
//! UASTC images go through `basisu`, a pure-Rust Basis Universal transcoder
//! (the C++ one the encoder links, in its 0.3 Rust binding, computes the
//! RGBA32 row pitch in blocks and writes past its buffer); BC1, BC4, BC5,
//! BC6H and BC7 blocks through `bcdec_rs`; ASTC blocks, LDR and HDR, through
//! `texture2ddecoder`. Zstd-supercompressed levels are inflated first.
//!
//! The HDR formats (RGBA16F, RG16F, RGB9E5, BC6H) decode to linear floats,
//! which [`StoredImage::to_display`] tone-maps: scaled by 2^exposure, clamped
//! to [0, 1] and sRGB-encoded. ASTC HDR is the exception: its decoder clamps
//! to [0, 1] itself, so exposure can only darken it. LDR formats are shown as
//! stored, whatever the exposure; 16-bit channels keep their top eight bits.

use crate::encode::image::Rgba8Image;
use crate::format::ktx2::{self, Ktx2View, TexelFormat};

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

/// Width, height and depth of `level`.
pub fn level_size(view: &Ktx2View<'_>, level: u32) -> (u32, u32, u32) {
    let header = view.header();
    let shrink = |size: u32| size.checked_shr(level).unwrap_or(0).max(1);
    (
        shrink(header.pixel_width),
        shrink(header.pixel_height.max(1)),
        shrink(header.pixel_depth.max(1)),
    )
}

/// Decodes one image of the texture `view` (parsed from `file`) to RGBA8 for
/// display, HDR formats at `exposure` stops (0 shows the values as stored).
pub fn decode(
    file: &[u8],
    view: &Ktx2View<'_>,
    at: ImageIndex,
    exposure: f32,
) -> Result<Rgba8Image, String> {
    Ok(decode_stored(file, view, at)?.to_display(exposure))
}

/// One decoded image with its texels as the format stores them (before any
/// tone-mapping): what the texel probe reads.
pub struct StoredImage {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Four channels per texel, top row first.
    pub texels: Texels,
}

impl StoredImage {
    /// The image as the page shows it: RGBA8, HDR formats at `exposure`
    /// stops (see [`decode`]).
    pub fn to_display(&self, exposure: f32) -> Rgba8Image {
        Rgba8Image {
            width: self.width,
            height: self.height,
            pixels: self.texels.to_display(exposure),
        }
    }
}

/// Decodes one image of the texture `view` (parsed from `file`) to its
/// stored values: bytes for 8-bit and LDR block formats, 16-bit words for
/// 16-bit UNORM formats, linear floats for the HDR formats.
pub fn decode_stored(
    file: &[u8],
    view: &Ktx2View<'_>,
    at: ImageIndex,
) -> Result<StoredImage, String> {
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
    let format = shown_format(view)?;
    if let TexelFormat::Uastc { .. } = format {
        let image = transcode_uastc(file, at, width, height)?;
        return Ok(StoredImage {
            width,
            height,
            texels: Texels::Ldr(image.pixels),
        });
    }
    let level = inflated_level(view, at.level as usize)?;
    let image_bytes = format.image_bytes(width, height);
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
    Ok(StoredImage {
        width,
        height,
        texels: decode_texels(format, data, width, height),
    })
}

/// The texture's format, when the viewer can show it (every format of the
/// texel table can).
pub fn shown_format(view: &Ktx2View<'_>) -> Result<TexelFormat, String> {
    view.texel_format().ok_or_else(|| {
        format!(
            "vkFormat {} is not shown by the viewer",
            view.header().vk_format
        )
    })
}

/// Whether the texture holds HDR values, for which the page offers an
/// exposure control.
pub fn is_hdr(view: &Ktx2View<'_>) -> bool {
    view.texel_format().is_some_and(TexelFormat::is_float)
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

/// One decoded image, before display: four channels per texel as stored.
pub enum Texels {
    /// Four bytes per texel, shown as they are.
    Ldr(Vec<u8>),
    /// Four 16-bit UNORM words per texel, shown by their top eight bits.
    Wide(Vec<u16>),
    /// Four linear floats per texel, tone-mapped for display.
    Hdr(Vec<f32>),
}

impl Texels {
    /// The texels as display RGBA8, HDR ones at `exposure` stops.
    pub fn to_display(&self, exposure: f32) -> Vec<u8> {
        match self {
            Texels::Ldr(bytes) => bytes.clone(),
            Texels::Wide(words) => words.iter().map(|&v| (v >> 8) as u8).collect(),
            Texels::Hdr(values) => {
                let scale = exposure.exp2();
                values
                    .iter()
                    .enumerate()
                    .map(|(i, &value)| {
                        let alpha = i % 4 == 3;
                        display_byte(if alpha { value } else { value * scale }, alpha)
                    })
                    .collect()
            }
        }
    }
}

/// Decodes `data`, one `width` x `height` image of `format` (not UASTC,
/// which is transcoded whole), whose length the caller has checked.
fn decode_texels(format: TexelFormat, data: &[u8], width: u32, height: u32) -> Texels {
    let u16s = || {
        data.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let halves = || u16s().map(|bits| half::f16::from_bits(bits).to_f32());
    match format {
        TexelFormat::R8Unorm => Texels::Ldr(data.iter().flat_map(|&v| [v, v, v, 255]).collect()),
        TexelFormat::Rgba8 { .. } => Texels::Ldr(data.to_vec()),
        TexelFormat::R16Unorm => Texels::Wide(u16s().flat_map(|v| [v, v, v, u16::MAX]).collect()),
        TexelFormat::Rg16Unorm => Texels::Wide(
            u16s()
                .collect::<Vec<_>>()
                .chunks_exact(2)
                .flat_map(|rg| [rg[0], rg[1], 0, u16::MAX])
                .collect(),
        ),
        TexelFormat::Rgba16Unorm => Texels::Wide(u16s().collect()),
        TexelFormat::Rg16Float => Texels::Hdr(
            halves()
                .collect::<Vec<_>>()
                .chunks_exact(2)
                .flat_map(|rg| [rg[0], rg[1], 0.0, 1.0])
                .collect(),
        ),
        TexelFormat::Rgba16Float => Texels::Hdr(halves().collect()),
        TexelFormat::Rgb9e5 => Texels::Hdr(
            data.chunks_exact(4)
                .flat_map(|w| rgb9e5_to_rgba(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect(),
        ),
        TexelFormat::AstcHdr { .. } => decode_astc_hdr(format, data, width, height)
            .unwrap_or_else(|| decode_blocks(format, data, width, height)),
        _ => decode_blocks(format, data, width, height),
    }
}

/// ASTC HDR blocks decoded to linear floats by astcenc (texture2ddecoder
/// gives 8-bit values, which would clip every texel above 1); `None` when
/// astcenc refuses them, and the 8-bit decoder shows what it can.
fn decode_astc_hdr(format: TexelFormat, data: &[u8], width: u32, height: u32) -> Option<Texels> {
    let (block_width, block_height) = format.block_dimensions();
    let padded = (
        width.div_ceil(block_width) * block_width,
        height.div_ceil(block_height) * block_height,
    );
    let config = astcenc_rs::ConfigBuilder::new()
        .with_profile(astcenc_rs::Profile::HdrRgbLdrA)
        .with_block_size(astcenc_rs::Extents::new(block_width, block_height))
        .build()
        .ok()?;
    let mut decoder = astcenc_rs::Context::with_threads(1, config).ok()?;
    let image = decoder
        .decompress::<f32>(
            data,
            astcenc_rs::Extents::new(padded.0, padded.1),
            astcenc_rs::Swizzle::rgba(),
        )
        .ok()?;
    let layer = image.data.first()?;
    let row = padded.0 as usize * 4;
    let texels = (0..height as usize)
        .flat_map(|y| layer.get(y * row..y * row + width as usize * 4))
        .flatten()
        .copied()
        .collect();
    Some(Texels::Hdr(texels))
}

/// One shared-exponent texel as linear RGBA: each 9-bit mantissa times
/// 2^(exponent - 15 - 9).
fn rgb9e5_to_rgba(word: u32) -> [f32; 4] {
    let [r, g, b] = crate::format::rgb9e5::unpack(word);
    [r, g, b, 1.0]
}

/// Decodes a block-compressed image block by block, each block's texels
/// copied into the image and cut at its right and bottom edges.
fn decode_blocks(format: TexelFormat, data: &[u8], width: u32, height: u32) -> Texels {
    let (block_width, block_height) = format.block_dimensions();
    let (bw, bh) = (block_width as usize, block_height as usize);
    let (width, height) = (width as usize, height as usize);
    let columns = width.div_ceil(bw);
    let block_len = format.texel_block_size() as usize;
    let mut texels = vec![0.0_f32; width * height * 4];
    let mut block = vec![[0.0_f32; 4]; bw * bh];
    for (index, bytes) in data.chunks_exact(block_len).enumerate() {
        decode_block(format, bytes, &mut block);
        let (x0, y0) = (index % columns * bw, index / columns * bh);
        for (i, texel) in block.iter().enumerate() {
            let (x, y) = (x0 + i % bw, y0 + i / bw);
            if x < width && y < height {
                let at = (y * width + x) * 4;
                texels[at..at + 4].copy_from_slice(texel);
            }
        }
    }
    if format.is_float() {
        return Texels::Hdr(texels);
    }
    // Unit floats back to the bytes the decoder gave.
    Texels::Ldr(texels.iter().map(|&v| (v * 255.0).round() as u8).collect())
}

/// Decodes one block of `format` into `out` (row by row, RGBA): HDR formats
/// as linear floats, LDR ones as their bytes over 255.
fn decode_block(format: TexelFormat, bytes: &[u8], out: &mut [[f32; 4]]) {
    let unit = |byte: u8| f32::from(byte) / 255.0;
    match format {
        TexelFormat::Bc6h => {
            let mut rgb = [0.0_f32; 16 * 3];
            bcdec_rs::bc6h_float(bytes, &mut rgb, 4 * 3, false);
            for (texel, value) in out.iter_mut().zip(rgb.chunks_exact(3)) {
                *texel = [value[0], value[1], value[2], 1.0];
            }
        }
        TexelFormat::Bc4 => {
            let mut red = [0_u8; 16];
            bcdec_rs::bc4(bytes, &mut red, 4, false);
            for (texel, &r) in out.iter_mut().zip(&red) {
                *texel = [unit(r), unit(r), unit(r), 1.0];
            }
        }
        TexelFormat::Bc5 => {
            let mut rg = [0_u8; 16 * 2];
            bcdec_rs::bc5(bytes, &mut rg, 4 * 2, false);
            for (texel, value) in out.iter_mut().zip(rg.chunks_exact(2)) {
                *texel = [unit(value[0]), unit(value[1]), 0.0, 1.0];
            }
        }
        TexelFormat::Bc1 { .. } | TexelFormat::Bc7 { .. } => {
            let mut rgba = [0_u8; 16 * 4];
            if let TexelFormat::Bc1 { .. } = format {
                bcdec_rs::bc1(bytes, &mut rgba, 4 * 4);
            } else {
                bcdec_rs::bc7(bytes, &mut rgba, 4 * 4);
            }
            for (texel, value) in out.iter_mut().zip(rgba.chunks_exact(4)) {
                *texel = [
                    unit(value[0]),
                    unit(value[1]),
                    unit(value[2]),
                    unit(value[3]),
                ];
            }
        }
        _ => {
            // ASTC, LDR or HDR: texture2ddecoder packs each texel as BGRA.
            let (width, height) = format.block_dimensions();
            let mut packed = vec![0_u32; out.len()];
            texture2ddecoder::decode_astc_block(
                bytes,
                width as usize,
                height as usize,
                &mut packed,
            );
            for (texel, &bgra) in out.iter_mut().zip(&packed) {
                let [b, g, r, a] = bgra.to_le_bytes();
                *texel = [unit(r), unit(g), unit(b), unit(a)];
            }
        }
    }
}

/// One linear channel as a display byte: alpha linear, colour
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

/// The peak signal-to-noise ratio of `decoded` against `source` over the
/// R, G, B and A channels, in dB (`None` when their sizes differ; 100 when
/// they are identical, which JSON can carry where infinity cannot).
pub fn psnr(decoded: &Rgba8Image, source: &Rgba8Image) -> Option<f64> {
    psnr_of_channels(decoded, source, &ALL_CHANNELS)
}

/// Every channel compared with itself: R, G, B and A.
pub const ALL_CHANNELS: [(usize, usize); 4] = [(0, 0), (1, 1), (2, 2), (3, 3)];

/// The PSNR of `decoded` against `source` over the channel pairs
/// `(decoded channel, source channel)`, in dB: a texture that keeps only
/// some of its source's channels (a normal map's R and G) is measured on
/// those. `None` when the sizes differ or no pair is given; 100 for
/// identical channels.
pub fn psnr_of_channels(
    decoded: &Rgba8Image,
    source: &Rgba8Image,
    pairs: &[(usize, usize)],
) -> Option<f64> {
    if (decoded.width, decoded.height) != (source.width, source.height)
        || decoded.pixels.len() != source.pixels.len()
        || pairs.is_empty()
        || pairs.iter().any(|&(a, b)| a > 3 || b > 3)
    {
        return None;
    }
    let squared: f64 = decoded
        .pixels
        .chunks_exact(4)
        .zip(source.pixels.chunks_exact(4))
        .flat_map(|(a, b)| {
            pairs.iter().map(move |&(i, j)| {
                let d = f64::from(a[i]) - f64::from(b[j]);
                d * d
            })
        })
        .sum();
    let samples = (decoded.pixels.len() / 4 * pairs.len()).max(1);
    let mse = squared / samples as f64;
    Some(if mse == 0.0 {
        IDENTICAL_PSNR
    } else {
        (10.0 * (255.0 * 255.0 / mse).log10()).min(IDENTICAL_PSNR)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ktx2::AstcBlock;

    /// A 16x16 RGBA8 test picture: smooth gradients, opaque.
    fn picture() -> Rgba8Image {
        let pixels = (0..16 * 16)
            .flat_map(|i| {
                let (x, y) = (i % 16, i / 16);
                [(x * 16) as u8, (y * 16) as u8, ((x + y) * 8) as u8, 255]
            })
            .collect();
        Rgba8Image {
            width: 16,
            height: 16,
            pixels,
        }
    }

    /// One-level KTX2 file of `format` holding `data` for a 16x16 image.
    fn file_of(format: TexelFormat, data: &[u8]) -> Vec<u8> {
        ktx2::write_single_level(format, 16, 16, data)
    }

    /// Level 0 of `file`, decoded for display at `exposure`.
    fn shown(file: &[u8], exposure: f32) -> Rgba8Image {
        let view = ktx2::parse(file).unwrap();
        decode(file, &view, ImageIndex::default(), exposure).unwrap()
    }

    fn surface(image: &Rgba8Image) -> intel_tex_2::RgbaSurface<'_> {
        intel_tex_2::RgbaSurface {
            data: &image.pixels,
            width: image.width,
            height: image.height,
            stride: image.width * 4,
        }
    }

    #[test]
    fn bc7_from_an_independent_encoder_decodes_close_to_the_source() {
        let source = picture();
        let bc7 = intel_tex_2::bc7::compress_blocks(
            &intel_tex_2::bc7::opaque_basic_settings(),
            &surface(&source),
        );
        let decoded = shown(&file_of(TexelFormat::Bc7 { srgb: true }, &bc7), 0.0);
        let quality = psnr(&decoded, &source).unwrap();
        // 36.3 dB here; a wrong block layout or channel order gives under 20.
        assert!(quality > 33.0, "bc7: {quality} dB");
    }

    /// An ASTC void-extent block: every texel of the block is `rgba`, given
    /// as UNORM16 (LDR) or as half floats (HDR).
    fn astc_constant(rgba: [u16; 4], hdr: bool) -> Vec<u8> {
        let mut block = vec![0xFC, if hdr { 0xFF } else { 0xFD }];
        block.extend([0xFF; 6]);
        block.extend(rgba.iter().flat_map(|c| c.to_le_bytes()));
        block
    }

    #[test]
    fn astc_blocks_decode_at_every_footprint_ldr_and_hdr() {
        let colour = [0x8080, 0x4040, 0xFFFF, 0xFFFF];
        for block in AstcBlock::ALL {
            let ldr = TexelFormat::Astc { block, srgb: false };
            let blocks = astc_constant(colour, false).repeat(ldr.image_bytes(16, 16) as usize / 16);
            let decoded = shown(&file_of(ldr, &blocks), 0.0);
            assert!(
                decoded.pixels.chunks(4).all(|p| p == [128, 64, 255, 255]),
                "{}",
                ldr.name()
            );
        }
        // HDR: 0.5 in every colour channel, shown sRGB-encoded, darker at -1 EV.
        let hdr = TexelFormat::AstcHdr {
            block: AstcBlock::B6x6,
        };
        let half = half::f16::from_f32(0.5).to_bits();
        let one = half::f16::ONE.to_bits();
        let blocks = astc_constant([half, half, half, one], true).repeat(9);
        let file = file_of(hdr, &blocks);
        let bright = shown(&file, 0.0).pixels;
        assert!((186..=189).contains(&bright[0]), "{bright:?}");
        assert!(shown(&file, -1.0).pixels[0] < bright[0] - 40);
    }

    #[test]
    fn a_bc1_block_of_one_colour_decodes_exactly() {
        // colour0 = colour1 = pure red in RGB565, every index 0.
        let block = [0x00, 0xF8, 0x00, 0xF8, 0, 0, 0, 0];
        let blocks: Vec<u8> = block.repeat(16);
        let decoded = shown(&file_of(TexelFormat::Bc1 { srgb: false }, &blocks), 0.0);
        assert!(decoded.pixels.chunks(4).all(|p| p == [255, 0, 0, 255]));
    }

    #[test]
    fn exposure_scales_hdr_texels_and_leaves_ldr_ones_alone() {
        // RGBA16F: every texel 4.0, 4.0, 4.0, alpha 1.
        let four = half::f16::from_f32(4.0).to_le_bytes();
        let one = half::f16::ONE.to_le_bytes();
        let texel = [four, four, four, one].concat();
        let half_file = file_of(TexelFormat::Rgba16Float, &texel.repeat(256));
        assert_eq!(shown(&half_file, 0.0).pixels[..4], [255, 255, 255, 255]);
        // 4 x 2^-3 = 0.5 linear, 188 in sRGB.
        assert_eq!(shown(&half_file, -3.0).pixels[..4], [188, 188, 188, 255]);

        // RGB9E5: mantissa 256, exponent 16 is 1.0 in every channel.
        let word: u32 = 256 | 256 << 9 | 256 << 18 | 16 << 27;
        let shared = file_of(TexelFormat::Rgb9e5, &word.to_le_bytes().repeat(256));
        assert_eq!(shown(&shared, 0.0).pixels[..4], [255, 255, 255, 255]);
        assert_eq!(shown(&shared, -1.0).pixels[..4], [188, 188, 188, 255]);

        let ldr = file_of(TexelFormat::Rgba8 { srgb: true }, &picture().pixels);
        assert_eq!(shown(&ldr, -3.0).pixels, picture().pixels);
    }

    #[test]
    fn bc6h_decodes_to_floats_above_one() {
        // 4.0 everywhere, through an independent BC6H encoder.
        let four = half::f16::from_f32(4.0).to_le_bytes();
        let one = half::f16::ONE.to_le_bytes();
        let halves = [four, four, four, one].concat().repeat(256);
        let blocks = intel_tex_2::bc6h::compress_blocks(
            &intel_tex_2::bc6h::basic_settings(),
            &intel_tex_2::RgbaSurface {
                data: &halves,
                width: 16,
                height: 16,
                stride: 16 * 8,
            },
        );
        let file = file_of(TexelFormat::Bc6h, &blocks);
        assert_eq!(shown(&file, 0.0).pixels[..4], [255, 255, 255, 255]);
        let dimmed = shown(&file, -3.0).pixels;
        assert!(
            dimmed[..3].iter().all(|&c| (186..=190).contains(&c)),
            "{dimmed:?}"
        );
    }
}
