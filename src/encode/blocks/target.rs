//! From `texture.format` to the texel format written: what `auto` picks for
//! each mode and platform, which formats can hold which modes, and the
//! `KTXswizzle` an engine reads each one back with.

use crate::config::{FormatSetting, PlatformSetting};
use crate::encode::texture_mode::TextureMode;
use crate::format::texel::{AstcBlock, TexelFormat};

/// A format that cannot hold a texture of some mode: `bc4` keeps one channel
/// and `bc5` two, too few for colour (or, for `bc4`, a normal map).
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[error(
    "format `{format}` keeps only {kept} of a {mode} texture's channels; \
     use `auto` or a format with more channels (bc7, astc-6x6, uastc)"
)]
pub struct Unsuitable {
    /// The format asked for.
    pub format: FormatSetting,
    /// The texture's mode, as `--mode` names it.
    pub mode: &'static str,
    /// What the format keeps (`R` or `R and G`).
    pub kept: &'static str,
}

/// The native format `auto` writes for an LDR texture of `mode` on
/// `platform`: BC7 / BC5 / BC4 on desktop, ASTC on mobile (6x6 for colour
/// and single channels, 4x4 for normal maps, whose X and Y suffer most from
/// larger blocks). `uastc`, `rgba8` and any other format pass through.
pub fn resolve_auto(
    format: FormatSetting,
    mode: TextureMode,
    platform: PlatformSetting,
) -> FormatSetting {
    if format != FormatSetting::Auto {
        return format;
    }
    match (platform, mode) {
        (PlatformSetting::Desktop, TextureMode::Color | TextureMode::Linear) => FormatSetting::Bc7,
        (PlatformSetting::Desktop, TextureMode::Normal) => FormatSetting::Bc5,
        (PlatformSetting::Desktop, TextureMode::Gray) => FormatSetting::Bc4,
        (PlatformSetting::Mobile, TextureMode::Normal) => FormatSetting::Astc4x4,
        (PlatformSetting::Mobile, _) => FormatSetting::Astc6x6,
    }
}

/// The native format `auto` writes for an HDR texture on `platform`: BC6H on
/// desktop, ASTC HDR 6x6 on mobile.
pub fn resolve_auto_hdr(platform: PlatformSetting) -> TexelFormat {
    match platform {
        PlatformSetting::Desktop => TexelFormat::Bc6h,
        PlatformSetting::Mobile => TexelFormat::AstcHdr {
            block: AstcBlock::B6x6,
        },
    }
}

/// The texel format `format` means for a texture of `mode` (sRGB for
/// colour), or `None` for the two that are not block or float formats of
/// this module: `uastc` and `rgba8` (and `auto`, which
/// [`resolve_auto`] settles first).
pub fn texel_format(
    format: FormatSetting,
    mode: TextureMode,
) -> Result<Option<TexelFormat>, Unsuitable> {
    let srgb = mode.is_srgb();
    let unsuitable = |kept| Unsuitable {
        format,
        mode: mode_name(mode),
        kept,
    };
    let astc = |block| Ok(Some(TexelFormat::Astc { block, srgb }));
    match format {
        FormatSetting::Uastc | FormatSetting::Rgba8 | FormatSetting::Auto => Ok(None),
        FormatSetting::Bc4 if mode != TextureMode::Gray => Err(unsuitable("R")),
        FormatSetting::Bc5 if matches!(mode, TextureMode::Color | TextureMode::Linear) => {
            Err(unsuitable("R and G"))
        }
        FormatSetting::Bc4 => Ok(Some(TexelFormat::Bc4)),
        FormatSetting::Bc5 => Ok(Some(TexelFormat::Bc5)),
        FormatSetting::Bc1 => Ok(Some(TexelFormat::Bc1 { srgb })),
        FormatSetting::Bc7 => Ok(Some(TexelFormat::Bc7 { srgb })),
        FormatSetting::Bc6h => Ok(Some(TexelFormat::Bc6h)),
        FormatSetting::Rgba16f => Ok(Some(TexelFormat::Rgba16Float)),
        FormatSetting::Rgb9e5 => Ok(Some(TexelFormat::Rgb9e5)),
        FormatSetting::Astc4x4 => astc(AstcBlock::B4x4),
        FormatSetting::Astc5x4 => astc(AstcBlock::B5x4),
        FormatSetting::Astc5x5 => astc(AstcBlock::B5x5),
        FormatSetting::Astc6x5 => astc(AstcBlock::B6x5),
        FormatSetting::Astc6x6 => astc(AstcBlock::B6x6),
        FormatSetting::Astc8x5 => astc(AstcBlock::B8x5),
        FormatSetting::Astc8x6 => astc(AstcBlock::B8x6),
        FormatSetting::Astc8x8 => astc(AstcBlock::B8x8),
    }
}

/// The `KTXswizzle` of a `format` texture of `mode`: the mode's own
/// (`rg01` for normal maps, `r001` for gray), except for ASTC normal maps,
/// stored `rrrg` and so read back as `ra01`.
pub fn swizzle(format: TexelFormat, mode: TextureMode) -> Option<&'static str> {
    match (format, mode) {
        (TexelFormat::Astc { .. }, TextureMode::Normal) => Some("ra01"),
        _ => mode.swizzle(),
    }
}

/// The `--mode` name of `mode`.
fn mode_name(mode: TextureMode) -> &'static str {
    match mode {
        TextureMode::Color => "color",
        TextureMode::Normal => "normal",
        TextureMode::Gray => "gray",
        TextureMode::Linear => "linear",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_picks_per_mode_and_platform() {
        use FormatSetting::*;
        use TextureMode::*;
        let desktop = PlatformSetting::Desktop;
        let mobile = PlatformSetting::Mobile;
        for (mode, on_desktop, on_mobile) in [
            (Color, Bc7, Astc6x6),
            (Linear, Bc7, Astc6x6),
            (Normal, Bc5, Astc4x4),
            (Gray, Bc4, Astc6x6),
        ] {
            assert_eq!(resolve_auto(Auto, mode, desktop), on_desktop);
            assert_eq!(resolve_auto(Auto, mode, mobile), on_mobile);
            assert_eq!(resolve_auto(Bc1, mode, mobile), Bc1);
        }
        assert_eq!(resolve_auto_hdr(desktop).name(), "bc6h");
        assert_eq!(resolve_auto_hdr(mobile).name(), "astc-hdr-6x6");
    }

    #[test]
    fn every_named_format_maps_to_its_texel_format() {
        for format in FormatSetting::ALL {
            let mode = TextureMode::Gray;
            match texel_format(format, mode).unwrap() {
                Some(texels) => assert_eq!(texels.name(), format.name()),
                None => assert!(matches!(
                    format,
                    FormatSetting::Uastc | FormatSetting::Rgba8 | FormatSetting::Auto
                )),
            }
        }
        assert_eq!(
            texel_format(FormatSetting::Bc7, TextureMode::Color),
            Ok(Some(TexelFormat::Bc7 { srgb: true }))
        );
    }

    #[test]
    fn too_few_channels_are_refused() {
        for (format, mode) in [
            (FormatSetting::Bc4, TextureMode::Color),
            (FormatSetting::Bc4, TextureMode::Normal),
            (FormatSetting::Bc5, TextureMode::Color),
            (FormatSetting::Bc5, TextureMode::Linear),
        ] {
            let error = texel_format(format, mode).unwrap_err();
            assert!(error.to_string().contains(format.name()), "{error}");
        }
        assert!(texel_format(FormatSetting::Bc5, TextureMode::Normal).is_ok());
    }

    #[test]
    fn astc_normal_maps_read_back_from_red_and_alpha() {
        let astc = TexelFormat::Astc {
            block: AstcBlock::B4x4,
            srgb: false,
        };
        assert_eq!(swizzle(astc, TextureMode::Normal), Some("ra01"));
        assert_eq!(swizzle(TexelFormat::Bc5, TextureMode::Normal), Some("rg01"));
        assert_eq!(swizzle(TexelFormat::Bc4, TextureMode::Gray), Some("r001"));
    }
}
