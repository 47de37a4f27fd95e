//! ASTC, LDR and HDR, through Arm's reference encoder `astcenc`, built from
//! its sources by the `astcenc-rs` crate.
//!
//! One [`AstcEncoder`] holds one encoder context (building it costs more than
//! a small level) and encodes every level of a texture with it, on the
//! calling thread only; astcenc's output does not depend on the thread count
//! anyway. Partial edge blocks are filled by clamping ([`super::pad`]).
//!
//! Channel layouts, chosen as astcenc's own documentation advises:
//! colour and linear RGBA are stored as they are; a single channel (gray) is
//! stored as `rrr1`, which the encoder keeps as luminance; a normal map is
//! stored as `rrrg` (X in R, G and B, Y in alpha) with the encoder's
//! normal-map error metric, so the file's `KTXswizzle` is `ra01`.

use astcenc_rs::{
    ConfigBuilder, Context, Extents, Flags, Image, PRESET_EXHAUSTIVE, PRESET_FAST, PRESET_FASTEST,
    PRESET_MEDIUM, PRESET_THOROUGH, Preset, Profile, Swizzle,
};

use super::pad::pad_to_blocks;
use crate::encode::image::Rgba8Image;

/// What the texels of an ASTC texture mean, which decides the encoder's
/// profile, channel layout and error metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AstcContent {
    /// sRGB colour with linear alpha.
    SrgbColor,
    /// Linear RGBA data.
    Linear,
    /// A single linear channel in R.
    Gray,
    /// A normal map's X and Y in R and G, stored as `rrrg`.
    Normal,
    /// Linear HDR RGB with alpha in 0..1.
    Hdr,
}

/// An astcenc context for one block footprint, content and effort.
pub struct AstcEncoder {
    context: Context,
    block: (u32, u32),
    content: AstcContent,
}

/// Why astcenc refused to work; these are encoder faults, the inputs are
/// checked before they get here.
#[derive(thiserror::Error, Debug)]
#[error("the ASTC encoder failed: {0}")]
pub struct AstcError(String);

impl AstcEncoder {
    /// A context for `block` (width, height in texels) at `quality` 0
    /// (fastest) to 4 (exhaustive): astcenc's presets fastest, fast, medium,
    /// thorough and exhaustive.
    pub fn new(block: (u32, u32), content: AstcContent, quality: u8) -> Result<Self, AstcError> {
        let profile = match content {
            AstcContent::SrgbColor => Profile::LdrSrgb,
            AstcContent::Linear | AstcContent::Gray | AstcContent::Normal => Profile::LdrRgba,
            AstcContent::Hdr => Profile::HdrRgbLdrA,
        };
        let flags = if content == AstcContent::Normal {
            Flags::MAP_NORMAL
        } else {
            Flags::empty()
        };
        let config = ConfigBuilder::new()
            .with_profile(profile)
            .with_preset(preset(quality))
            .with_block_size(Extents::new(block.0, block.1))
            .with_flags(flags)
            .build()
            .map_err(|e| AstcError(format!("configuration refused: {e:?}")))?;
        let context = Context::with_threads(1, config)
            .map_err(|e| AstcError(format!("no context: {e:?}")))?;
        Ok(Self {
            context,
            block,
            content,
        })
    }

    /// The blocks of one LDR level, row by row.
    pub fn encode_ldr(&mut self, level: &Rgba8Image) -> Result<Vec<u8>, AstcError> {
        let padded = pad_to_blocks(
            &level.pixels,
            (level.width, level.height),
            4,
            self.block,
            &[0, 1, 2, 3],
        );
        self.compress(padded.width, padded.height, &padded.data)
    }

    /// The blocks of one HDR level of `width` x `height` linear RGBA texels.
    pub fn encode_hdr(
        &mut self,
        width: u32,
        height: u32,
        texels: &[[f32; 4]],
    ) -> Result<Vec<u8>, AstcError> {
        let flat: Vec<f32> = texels
            .iter()
            .flat_map(|&[r, g, b, a]| [r, g, b, a.clamp(0.0, 1.0)].map(finite_or_zero))
            .collect();
        let padded = pad_to_blocks(&flat, (width, height), 4, self.block, &[0, 1, 2, 3]);
        self.compress(padded.width, padded.height, &padded.data)
    }

    /// Compresses one padded RGBA layer of `u8` or `f32` values.
    fn compress<D: astcenc_rs::DataType>(
        &mut self,
        width: u32,
        height: u32,
        data: &[D],
    ) -> Result<Vec<u8>, AstcError> {
        let image = Image {
            extents: Extents::new(width, height),
            data: vec![data],
        };
        self.context
            .compress(&image, swizzle(self.content))
            .map_err(|e| AstcError(format!("compression failed: {e:?}")))
    }
}

/// `value`, or 0 when it is NaN or infinite (astcenc cannot encode those).
fn finite_or_zero(value: f32) -> f32 {
    if value.is_finite() { value } else { 0.0 }
}

/// The astcenc preset of quality level `quality`.
fn preset(quality: u8) -> Preset {
    match quality {
        0 => PRESET_FASTEST,
        1 => PRESET_FAST,
        2 => PRESET_MEDIUM,
        3 => PRESET_THOROUGH,
        _ => PRESET_EXHAUSTIVE,
    }
}

/// The channel layout the encoder is given for `content`.
fn swizzle(content: AstcContent) -> Swizzle {
    match content {
        AstcContent::Gray => Swizzle::rrr1(),
        AstcContent::Normal => Swizzle::rrrg(),
        AstcContent::SrgbColor | AstcContent::Linear | AstcContent::Hdr => Swizzle::rgba(),
    }
}
