//! Settings written as one of a few words, and [`Toggle`], the
//! `auto | true | false` switch several of them share.

use serde::Deserialize;
use serde::de::Visitor;

/// `name()`, `Display` and `FromStr` for a setting written as one of a few
/// words: `$key` names it in messages, each variant gets its word.
macro_rules! words {
    ($ty:ident, $key:literal, [$($variant:ident => $word:literal),+ $(,)?]) => {
        impl $ty {
            /// The word used in `assetc.yml` and on the encoder's command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $word,)+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                [$(Self::$variant),+]
                    .into_iter()
                    .find(|setting| setting.name() == text)
                    .ok_or_else(|| {
                        let words = [$($word),+].join(", ");
                        format!("{} must be one of {words}, not {text:?}", $key)
                    })
            }
        }
    };
}

pub(crate) use words;

/// A switch that is on, off, or left to assetc (`auto`), written `true`,
/// `false` or `auto`: `audio.loop` and `texture.pixel_art`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Toggle {
    /// assetc decides, from the source.
    Auto,
    /// On, whatever the source says.
    On,
    /// Off, whatever the source says.
    Off,
}

words!(Toggle, "the value", [Auto => "auto", On => "true", Off => "false"]);

impl<'de> Deserialize<'de> for Toggle {
    /// Reads `true`, `false` or `auto`; a unit (the key probe's offer) is
    /// `auto`.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ToggleVisitor)
    }
}

/// Reads a [`Toggle`] from a boolean or a word.
struct ToggleVisitor;

impl Visitor<'_> for ToggleVisitor {
    type Value = Toggle;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("true, false or auto")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Toggle, E> {
        Ok(Toggle::Auto)
    }

    fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Toggle, E> {
        Ok(if value { Toggle::On } else { Toggle::Off })
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Toggle, E> {
        text.parse().map_err(E::custom)
    }
}
