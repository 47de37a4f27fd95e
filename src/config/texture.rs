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
}

impl HdrFormatSetting {
    /// The name used in `assetc.yml` and on the `assetc-encode` command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rgba16f => "rgba16f",
            Self::Rgb9e5 => "rgb9e5",
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
