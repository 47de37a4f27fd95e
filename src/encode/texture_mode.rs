//! [`TextureMode`], what a texture's texels mean: shared by the texture
//! encoder, the mip filters ([`super::mips`]) that treat each mode
//! differently, and the mesh importers that pick a mode per material slot.

/// What a texture's texels mean, which decides its format, swizzle and filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TextureMode {
    /// sRGB colour with linear alpha; mips are filtered in linear light.
    Color,
    /// A tangent-space normal map in R and G; mips are renormalised.
    Normal,
    /// Linear data read from R (masks, roughness, height).
    Gray,
    /// Linear data in all four channels, unswizzled (a glTF
    /// occlusion-roughness-metallic image).
    Linear,
}

impl TextureMode {
    /// Whether the texels are sRGB-encoded.
    pub fn is_srgb(self) -> bool {
        self == Self::Color
    }

    /// The `KTXswizzle` the mode implies, if any.
    pub fn swizzle(self) -> Option<&'static str> {
        match self {
            Self::Color | Self::Linear => None,
            Self::Normal => Some("rg01"),
            Self::Gray => Some("r001"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_map_to_formats_and_swizzles() {
        assert!(TextureMode::Color.is_srgb());
        assert!(!TextureMode::Normal.is_srgb());
        assert_eq!(TextureMode::Color.swizzle(), None);
        assert!(!TextureMode::Linear.is_srgb());
        assert_eq!(TextureMode::Linear.swizzle(), None);
        use clap::ValueEnum;
        let names: Vec<String> = TextureMode::value_variants()
            .iter()
            .map(|mode| mode.to_possible_value().unwrap().get_name().to_owned())
            .collect();
        assert_eq!(names, ["color", "normal", "gray", "linear"]);
    }
}
