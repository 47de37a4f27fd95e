//! Float (HDR) sources: Radiance HDR, OpenEXR and float TIFF.
//!
//! The images are linear light already: mips are filtered in `f64` from
//! the float samples ([`crate::encode::mips`] over `f32`; `Color` weights colour by
//! alpha, without a transfer curve), then [`encode_float_levels`] writes the
//! levels as `R16G16B16A16_SFLOAT` (the default) or as
//! `E5B9G9R9_UFLOAT_PACK32` (`texture.hdr_format: rgb9e5`: half the size,
//! no alpha, no negatives) or `BC6H_UFLOAT_BLOCK` (`bc6h`: an eighth of the
//! size, through the block encoders of [`crate::encode::blocks`]). Float sources have no UASTC form;
//! `compress` does not apply to them. Normal maps are refused: a float
//! normal map has no agreed encoding.

use super::{
    Shape, TextureError, TextureMode, TextureOptions, each_strip, filtered_chains, write_texture,
};
use crate::encode::blocks::{BlockEncoder, BlockError};
use crate::encode::image::RgbaF32Image;
use crate::encode::strips;
use crate::format::ktx2::{AstcBlock, TexelFormat};

/// The texel format float sources are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HdrFormat {
    /// `VK_FORMAT_R16G16B16A16_SFLOAT`: four half floats, 8 bytes a texel.
    #[default]
    Rgba16f,
    /// `VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`: shared-exponent RGB, 4 bytes a
    /// texel; alpha is dropped and negatives become 0.
    Rgb9e5,
    /// `VK_FORMAT_BC6H_UFLOAT_BLOCK`: unsigned HDR RGB, 1 byte a texel.
    Bc6h,
    /// `VK_FORMAT_ASTC_6x6_SFLOAT_BLOCK`: ASTC HDR, 0.44 bytes a texel.
    #[value(name = "astc-hdr-6x6")]
    AstcHdr6x6,
}

impl HdrFormat {
    /// The texel format written.
    fn texel_format(self) -> TexelFormat {
        match self {
            Self::Rgba16f => TexelFormat::Rgba16Float,
            Self::Rgb9e5 => TexelFormat::Rgb9e5,
            Self::Bc6h => TexelFormat::Bc6h,
            Self::AstcHdr6x6 => TexelFormat::AstcHdr {
                block: AstcBlock::B6x6,
            },
        }
    }
}

/// The encoder effort for BC6H when no `quality` reached the options
/// (a texture whose LDR format is UASTC or raw): the encoders' default.
const DEFAULT_QUALITY: u8 = 2;

/// Encodes equally sized float images arranged as `shape` into a KTX 2.0
/// file.
pub fn encode_hdr(
    images: &[RgbaF32Image],
    shape: Shape,
    options: &TextureOptions,
) -> Result<Vec<u8>, TextureError> {
    if options.mode == TextureMode::Normal {
        return Err(TextureError::HdrNormalMap);
    }
    let chains = filtered_chains(images, options);
    let quality = options
        .blocks
        .map_or(DEFAULT_QUALITY, |blocks| blocks.quality);
    let (format, levels) = encode_float_levels(&chains, options.hdr_format, quality)?;
    write_texture(format, &chains, shape, options, &levels)
}

/// The one step that turns filtered float levels into stored texels:
/// `chains[image][level]`, every level holding every image, image 0 first.
pub fn encode_float_levels(
    chains: &[Vec<RgbaF32Image>],
    format: HdrFormat,
    quality: u8,
) -> Result<(TexelFormat, Vec<Vec<u8>>), BlockError> {
    let format = format.texel_format();
    let new_encoder = || BlockEncoder::new(format, TextureMode::Linear, quality);
    let levels = strips::encode(chains, format.block_dimensions(), |encoder, batch| {
        each_strip(encoder, new_encoder, batch, |encoder, image| {
            let texels: &[[f32; 4]] = bytemuck::cast_slice(&image.pixels);
            encoder.encode_float(image.width, image.height, texels)
        })
    })?;
    Ok((format, levels))
}
