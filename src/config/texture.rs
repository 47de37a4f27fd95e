//! The value types of the `texture:` settings that say how an image's texels
//! are read: the `mode` a rule can force, and the `suffixes` table that maps
//! the end of a file name to a mode.
//!
//! ```yaml
//! default:
//!   texture:
//!     suffixes: { _mask: color, _spec: gray }  # added to the built-in table
//!     builtin_suffixes: true                   # false: only `suffixes` (and .n/.ao/.h/.r)
//!   rules:
//!     - match: "ui/**"
//!       texture: { mode: color }               # whatever the names say
//! ```
//!
//! It also holds the target-format types: `format` (`uastc`, `bc7`,
//! `astc-6x6`, `auto` …) and the `platform` that `auto` resolves against.
//!
//! The built-in table itself lives with the rest of the naming rules in
//! `configure/classify.rs`; these types only carry what `assetc.yml` says.

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};

/// What a texture's texels mean, as a rule or a suffix names it.
///
/// `Color` comes first: the key probe of `keys.rs` offers the first variant,
/// and it must be valid everywhere a mode is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeSetting {
    /// sRGB colour.
    Color,
    /// An OpenGL-convention tangent-space normal map (green up, as glTF).
    Normal,
    /// A DirectX-convention normal map (green down): its green channel is
    /// flipped when encoded, so the output is an OpenGL one.
    NormalDx,
    /// Linear data read from the red channel (occlusion, roughness, height).
    Gray,
    /// Linear data in all four channels (a packed occlusion-roughness-metallic
    /// map).
    Linear,
    /// Decided by the file's name (the suffix table); not valid in a table.
    Auto,
}

impl ModeSetting {
    /// The name used in `assetc.yml`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Color => "color",
            Self::Normal => "normal",
            Self::NormalDx => "normal_dx",
            Self::Gray => "gray",
            Self::Linear => "linear",
            Self::Auto => "auto",
        }
    }
}

/// The texel format float (HDR) texture sources are written in
/// (`texture.hdr_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HdrFormatSetting {
    /// `R16G16B16A16_SFLOAT`: four half floats.
    Rgba16f,
    /// `E5B9G9R9_UFLOAT_PACK32`: shared-exponent RGB, no alpha.
    Rgb9e5,
    /// `BC6H_UFLOAT_BLOCK`: block-compressed unsigned HDR RGB, no alpha.
    Bc6h,
    /// `ASTC_6x6_SFLOAT_BLOCK`: ASTC HDR with 6x6 blocks.
    #[serde(rename = "astc-hdr-6x6")]
    AstcHdr6x6,
    /// BC6H for `texture.platform: desktop`, ASTC HDR 6x6 for `mobile`.
    Auto,
}

impl HdrFormatSetting {
    /// The name used in `assetc.yml` and on the `assetc-encode` command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rgba16f => "rgba16f",
            Self::Rgb9e5 => "rgb9e5",
            Self::Bc6h => "bc6h",
            Self::AstcHdr6x6 => "astc-hdr-6x6",
            Self::Auto => "auto",
        }
    }
}

/// The GPU format a texture is written in, as `texture.format` names it.
///
/// `Uastc` comes first: the key probe of `keys.rs` offers the first variant.
/// `Auto` picks a native format per texture from its mode and the
/// `texture.platform` setting; the others name one format for every texture
/// the layer applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum FormatSetting {
    /// UASTC 4x4, transcoded by the engine at load time (the default).
    #[serde(rename = "uastc")]
    Uastc,
    /// BC7: RGBA, 8 bits per texel.
    #[serde(rename = "bc7")]
    Bc7,
    /// BC5: two channels (normal maps' X and Y), 8 bits per texel.
    #[serde(rename = "bc5")]
    Bc5,
    /// BC4: one channel, 4 bits per texel.
    #[serde(rename = "bc4")]
    Bc4,
    /// BC1: opaque RGB, 4 bits per texel; alpha is dropped.
    #[serde(rename = "bc1")]
    Bc1,
    /// BC6H: unsigned HDR RGB, 8 bits per texel.
    #[serde(rename = "bc6h")]
    Bc6h,
    /// ASTC LDR with 4x4 blocks.
    #[serde(rename = "astc-4x4")]
    Astc4x4,
    /// ASTC LDR with 5x4 blocks.
    #[serde(rename = "astc-5x4")]
    Astc5x4,
    /// ASTC LDR with 5x5 blocks.
    #[serde(rename = "astc-5x5")]
    Astc5x5,
    /// ASTC LDR with 6x5 blocks.
    #[serde(rename = "astc-6x5")]
    Astc6x5,
    /// ASTC LDR with 6x6 blocks.
    #[serde(rename = "astc-6x6")]
    Astc6x6,
    /// ASTC LDR with 8x5 blocks.
    #[serde(rename = "astc-8x5")]
    Astc8x5,
    /// ASTC LDR with 8x6 blocks.
    #[serde(rename = "astc-8x6")]
    Astc8x6,
    /// ASTC LDR with 8x8 blocks.
    #[serde(rename = "astc-8x8")]
    Astc8x8,
    /// Raw 8-bit RGBA, pixel-exact (what `compress: false` means).
    #[serde(rename = "rgba8")]
    Rgba8,
    /// Raw 16-bit float RGBA, linear.
    #[serde(rename = "rgba16f")]
    Rgba16f,
    /// Shared-exponent RGB in 32 bits, linear; alpha is dropped.
    #[serde(rename = "rgb9e5")]
    Rgb9e5,
    /// A native format chosen per texture (see `texture.platform`).
    #[serde(rename = "auto")]
    Auto,
}

impl FormatSetting {
    /// Every setting, in the order the docs list them.
    pub const ALL: [FormatSetting; 18] = [
        Self::Uastc,
        Self::Bc7,
        Self::Bc5,
        Self::Bc4,
        Self::Bc1,
        Self::Bc6h,
        Self::Astc4x4,
        Self::Astc5x4,
        Self::Astc5x5,
        Self::Astc6x5,
        Self::Astc6x6,
        Self::Astc8x5,
        Self::Astc8x6,
        Self::Astc8x8,
        Self::Rgba8,
        Self::Rgba16f,
        Self::Rgb9e5,
        Self::Auto,
    ];

    /// The name used in `assetc.yml` and on the encoder's command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Uastc => "uastc",
            Self::Bc7 => "bc7",
            Self::Bc5 => "bc5",
            Self::Bc4 => "bc4",
            Self::Bc1 => "bc1",
            Self::Bc6h => "bc6h",
            Self::Astc4x4 => "astc-4x4",
            Self::Astc5x4 => "astc-5x4",
            Self::Astc5x5 => "astc-5x5",
            Self::Astc6x5 => "astc-6x5",
            Self::Astc6x6 => "astc-6x6",
            Self::Astc8x5 => "astc-8x5",
            Self::Astc8x6 => "astc-8x6",
            Self::Astc8x8 => "astc-8x8",
            Self::Rgba8 => "rgba8",
            Self::Rgba16f => "rgba16f",
            Self::Rgb9e5 => "rgb9e5",
            Self::Auto => "auto",
        }
    }

    /// Whether the format stores texels uncompressed (`rgba8`, `rgba16f`,
    /// `rgb9e5`): what `compress: false` agrees with.
    pub fn is_raw(self) -> bool {
        matches!(self, Self::Rgba8 | Self::Rgba16f | Self::Rgb9e5)
    }

    /// The format `compress: true` or `compress: false` stands for.
    pub fn from_compress(compress: bool) -> Self {
        if compress { Self::Uastc } else { Self::Rgba8 }
    }
}

impl std::fmt::Display for FormatSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FormatSetting {
    type Err = String;

    /// Reads the `--format` flag: the names of `assetc.yml`.
    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|format| format.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown texture format {text:?}; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Which GPUs `format: auto` writes for.
///
/// `Desktop` comes first: the key probe of `keys.rs` offers the first variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlatformSetting {
    /// BCn: BC7 colour, BC5 normal maps, BC4 single channels, BC6H HDR.
    Desktop,
    /// ASTC: 6x6 colour and single channels, 4x4 normal maps.
    Mobile,
}

impl PlatformSetting {
    /// The name used in `assetc.yml`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Desktop => "desktop",
            Self::Mobile => "mobile",
        }
    }
}

/// Name suffixes and the modes they select, as `assetc.yml` lists them: each
/// suffix lowercased and without its leading separator (`_Mask` is `mask`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuffixTable(pub Vec<(String, ModeSetting)>);

impl SuffixTable {
    /// The mode `suffix` (already lowercased, no separator) selects here.
    pub fn get(&self, suffix: &str) -> Option<ModeSetting> {
        self.0.iter().find(|(s, _)| s == suffix).map(|(_, m)| *m)
    }
}

/// The suffix of a table key: lowercased, one leading `_`, `-` or `.` dropped.
/// An error for an empty suffix, or one with a path separator.
fn table_suffix(key: &str) -> Result<String, String> {
    let suffix = key
        .strip_prefix(['_', '-', '.'])
        .unwrap_or(key)
        .to_ascii_lowercase();
    if suffix.is_empty() || suffix.contains(['/', '\\']) {
        return Err(format!(
            "suffixes: {key:?} is not a name suffix (write it as `_normal`, `-ao` or `mask`)"
        ));
    }
    Ok(suffix)
}

impl<'de> Deserialize<'de> for SuffixTable {
    /// Reads a YAML mapping of suffix to mode; a unit (the key probe's offer,
    /// or an empty `suffixes:`) is the empty table.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(SuffixTableVisitor)
    }
}

/// Reads a `suffixes:` mapping.
struct SuffixTableVisitor;

impl<'de> Visitor<'de> for SuffixTableVisitor {
    type Value = SuffixTable;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a mapping of name suffixes to modes, such as { _mask: gray }")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<SuffixTable, E> {
        Ok(SuffixTable::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SuffixTable, A::Error> {
        let mut entries: Vec<(String, ModeSetting)> = Vec::new();
        while let Some((key, mode)) = map.next_entry::<String, ModeSetting>()? {
            let suffix = table_suffix(&key).map_err(serde::de::Error::custom)?;
            if mode == ModeSetting::Auto {
                return Err(serde::de::Error::custom(format!(
                    "suffixes: {key:?} cannot map to `auto`; use color, normal, normal_dx, gray or linear"
                )));
            }
            if entries.iter().any(|(s, _)| *s == suffix) {
                return Err(serde::de::Error::custom(format!(
                    "suffixes: {key:?} is listed twice (suffixes compare without case and leading separator)"
                )));
            }
            entries.push((suffix, mode));
        }
        Ok(SuffixTable(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(yaml: &str) -> Result<SuffixTable, String> {
        serde_saphyr::from_str(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn a_table_lowercases_and_drops_the_separator() {
        let read = table("{ _Mask: gray, -NRM: normal_dx, spec: linear }").unwrap();
        assert_eq!(read.get("mask"), Some(ModeSetting::Gray));
        assert_eq!(read.get("nrm"), Some(ModeSetting::NormalDx));
        assert_eq!(read.get("spec"), Some(ModeSetting::Linear));
        assert_eq!(read.get("_mask"), None);
    }

    #[test]
    fn bad_tables_are_refused_with_the_entry() {
        for (yaml, why) in [
            ("{ _: gray }", "not a name suffix"),
            ("{ a/b: gray }", "not a name suffix"),
            ("{ _n: auto }", "cannot map to `auto`"),
            ("{ _n: normal, _N: gray }", "listed twice"),
            ("{ _n: bumpy }", "unknown variant"),
        ] {
            let error = table(yaml).unwrap_err();
            assert!(error.contains(why), "{yaml}: {error}");
        }
    }
}
