//! 16-bit sources (16-bit PNG and TIFF): data textures keep their 16 bits.
//!
//! Raw (`compress: false`) normal maps, grayscale and linear textures are
//! filtered at 16-bit precision ([`crate::encode::mips`] over `u16`) and written as
//! `R16G16_UNORM` (normal maps: X and Y, swizzle `rg01`), `R16_UNORM`
//! (grayscale: R, swizzle `r001`) or `R16G16B16A16_UNORM` (linear RGBA).
//! Colour stays 8-bit sRGB, which already holds more steps than the eye
//! tells apart, and UASTC takes 8-bit input: in both cases the samples are
//! rounded to the nearest 8-bit value first and take the ordinary path.

use super::{
    Shape, TextureError, TextureMode, TextureOptions, encode_images, filtered_chains, write_texture,
};
use crate::encode::image::{Rgba16Image, round_to_8_bits};
use crate::format::ktx2::TexelFormat;

/// The 16-bit format `options` keep for a 16-bit source, or `None` when it
/// is rounded to 8 bits.
pub fn deep_format(options: &TextureOptions) -> Option<TexelFormat> {
    if options.uastc.is_some() || options.blocks.is_some() {
        return None;
    }
    match options.mode {
        TextureMode::Normal => Some(TexelFormat::Rg16Unorm),
        TextureMode::Gray => Some(TexelFormat::R16Unorm),
        TextureMode::Linear => Some(TexelFormat::Rgba16Unorm),
        TextureMode::Color => None,
    }
}

/// Encodes equally sized 16-bit images arranged as `shape` into a KTX 2.0
/// file.
pub fn encode_deep(
    images: &[Rgba16Image],
    shape: Shape,
    options: &TextureOptions,
) -> Result<Vec<u8>, TextureError> {
    let Some(format) = deep_format(options) else {
        let rounded: Vec<_> = images.iter().map(round_to_8_bits).collect();
        return encode_images(&rounded, shape, options);
    };
    let chains = filtered_chains(images, options);
    let channels = match format {
        TexelFormat::R16Unorm => 1,
        TexelFormat::Rg16Unorm => 2,
        _ => 4,
    };
    let levels: Vec<Vec<u8>> = (0..chains[0].len())
        .map(|level| {
            chains
                .iter()
                .flat_map(|chain| chain[level].pixels.chunks_exact(4))
                .flat_map(|texel| &texel[..channels])
                .flat_map(|sample| sample.to_le_bytes())
                .collect()
        })
        .collect();
    write_texture(format, &chains, shape, options, &levels)
}
