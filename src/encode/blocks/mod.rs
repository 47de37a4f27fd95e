//! Native GPU formats: one mip level in, the bytes of its blocks (or float
//! texels) out, in the layout KTX 2.0 stores them.
//!
//! The texture encoder ([`crate::encode::texture`]) filters the mips and
//! hands each level here; which crate does the work was chosen by
//! measurement (`docs/benchmarks.md`):
//!
//! | formats | encoder |
//! |---------|---------|
//! | BC1, BC4, BC5, BC6H, BC7 | Intel's ISPC texture compressor ([`bc`]) |
//! | ASTC LDR and HDR | Arm's astcenc ([`astc`]) |
//! | RGBA16F, RGB9E5 | converted here ([`float`]) |
//!
//! `quality` (0 fastest to 4 slowest) picks each encoder's preset of that
//! rank. [`target`] turns `texture.format` into the format written.

pub mod astc;
pub mod bc;
pub mod bc7_tiered;
pub mod float;
pub mod ispc_sse2;
pub mod pad;
pub mod target;

use astc::{AstcContent, AstcEncoder, AstcError};

use crate::encode::image::Rgba8Image;
use crate::encode::texture_mode::TextureMode;
use crate::format::texel::TexelFormat;

/// Why a level could not be encoded.
#[derive(thiserror::Error, Debug)]
pub enum BlockError {
    /// astcenc failed.
    #[error(transparent)]
    Astc(#[from] AstcError),
    /// The format is not one this module writes (UASTC, raw RGBA8 or a
    /// 16-bit integer format go elsewhere).
    #[error("texel format `{0}` is not a block or float format")]
    NotABlockFormat(&'static str),
}

/// Encodes the levels of one texture into one format, keeping whatever
/// state is costly to build (an astcenc context) between levels.
pub struct BlockEncoder {
    format: TexelFormat,
    quality: u8,
    /// Whether LDR levels hold sRGB-encoded colour, which the float formats
    /// (linear only) decode first.
    srgb_source: bool,
    astc: Option<AstcEncoder>,
}

impl BlockEncoder {
    /// An encoder of `format` for textures of `mode` at `quality` 0 to 4.
    pub fn new(format: TexelFormat, mode: TextureMode, quality: u8) -> Result<Self, BlockError> {
        let astc = match format {
            TexelFormat::Astc { block, srgb } => {
                let content = match mode {
                    TextureMode::Normal => AstcContent::Normal,
                    TextureMode::Gray => AstcContent::Gray,
                    _ if srgb => AstcContent::SrgbColor,
                    _ => AstcContent::Linear,
                };
                Some(AstcEncoder::new(block.dimensions(), content, quality)?)
            }
            TexelFormat::AstcHdr { block } => Some(AstcEncoder::new(
                block.dimensions(),
                AstcContent::Hdr,
                quality,
            )?),
            _ => None,
        };
        Ok(Self {
            format,
            quality,
            srgb_source: mode.is_srgb(),
            astc,
        })
    }

    /// The bytes of one LDR level (sRGB-encoded RGB when the texture is
    /// colour). Float formats receive its texels as linear values.
    pub fn encode(&mut self, level: &Rgba8Image) -> Result<Vec<u8>, BlockError> {
        match (self.format, &mut self.astc) {
            (TexelFormat::Bc1 { .. }, _) => Ok(bc::encode_bc1(level)),
            (TexelFormat::Bc4, _) => Ok(bc::encode_bc4(level)),
            (TexelFormat::Bc5, _) => Ok(bc::encode_bc5(level)),
            (TexelFormat::Bc7 { .. }, _) => Ok(bc::encode_bc7(level, self.quality)),
            (TexelFormat::Astc { .. }, Some(astc)) => Ok(astc.encode_ldr(level)?),
            _ => {
                let texels = float::linear_texels(level, self.srgb_source);
                self.encode_float(level.width, level.height, &texels)
            }
        }
    }

    /// The bytes of one level of `width` x `height` linear RGBA texels:
    /// BC6H, ASTC HDR, RGBA16F or RGB9E5.
    pub fn encode_float(
        &mut self,
        width: u32,
        height: u32,
        texels: &[[f32; 4]],
    ) -> Result<Vec<u8>, BlockError> {
        match (self.format, &mut self.astc) {
            (TexelFormat::Bc6h, _) => Ok(bc::encode_bc6h(width, height, texels, self.quality)),
            (TexelFormat::AstcHdr { .. }, Some(astc)) => {
                Ok(astc.encode_hdr(width, height, texels)?)
            }
            (TexelFormat::Rgba16Float, _) => Ok(float::rgba16f_bytes(texels)),
            (TexelFormat::Rgb9e5, _) => Ok(float::rgb9e5_bytes(texels)),
            (format, _) => Err(BlockError::NotABlockFormat(format.name())),
        }
    }
}

/// The bytes of one level in `format` for a texture of `mode`: a one-off
/// [`BlockEncoder`].
pub fn encode_blocks(
    format: TexelFormat,
    mode: TextureMode,
    level: &Rgba8Image,
    quality: u8,
) -> Result<Vec<u8>, BlockError> {
    BlockEncoder::new(format, mode, quality)?.encode(level)
}

#[cfg(test)]
mod tests;
