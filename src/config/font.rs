//! The value types of the `font:` settings that are more than a number: the
//! charset (which codepoints to compile) and the distance-field mode.
//!
//! A charset is written in `assetc.yml` as a list of strings, each one
//! codepoint or an inclusive range of them, in hexadecimal with a `0x` or
//! `U+` prefix:
//!
//! ```yaml
//! font:
//!   charset: ["0x20-0x7e", "0xa0-0xff", "U+20AC"]
//! ```
//!
//! Ranges are sorted and merged when read, so two spellings of the same set
//! are the same setting and give the same encoder command line. On that
//! command line the set is written in its canonical form, ranges joined by
//! `,` (`0x20-0x7e,0xa0-0xff,0x20ac`), which [`Charset`]'s `FromStr` reads back.
//!
//! `charset: font` stands for every codepoint the font itself maps in the
//! Basic Multilingual Plane, up to the encoder's limit; it is resolved against
//! the font by the encoder (`encode::font::coverage`), and written `font` on
//! the command line.

use core::ops::RangeInclusive;

use serde::Deserialize;

/// The largest Unicode codepoint.
const MAX_CODEPOINT: u32 = 0x10_FFFF;

/// The word that selects the font's own coverage.
const FONT_WORD: &str = "font";

/// A set of Unicode codepoints: sorted, disjoint, non-adjacent inclusive
/// ranges (at least one), or the font's own coverage (`font`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charset(Codepoints);

/// What a [`Charset`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Codepoints {
    /// Listed ranges.
    Ranges(Vec<RangeInclusive<u32>>),
    /// Whatever the font maps in the BMP, resolved by the encoder.
    Font,
}

impl Default for Charset {
    /// ASCII printable (U+0020 to U+007E) and Latin-1 (U+00A0 to U+00FF).
    fn default() -> Self {
        Self(Codepoints::Ranges(vec![0x20..=0x7E, 0xA0..=0xFF]))
    }
}

impl Charset {
    /// The set of the given ranges, sorted and merged; an error for no range,
    /// a reversed range or a codepoint above U+10FFFF.
    pub fn new(ranges: Vec<RangeInclusive<u32>>) -> Result<Self, String> {
        if ranges.is_empty() {
            return Err("charset must list at least one codepoint or range".into());
        }
        for range in &ranges {
            if range.start() > range.end() {
                return Err(format!(
                    "charset range {:#x}-{:#x} runs backwards",
                    range.start(),
                    range.end()
                ));
            }
            if *range.end() > MAX_CODEPOINT {
                return Err(format!(
                    "charset codepoint {:#x} is above U+10FFFF",
                    range.end()
                ));
            }
        }
        Ok(Self(Codepoints::Ranges(merge(ranges))))
    }

    /// The font's own coverage in the Basic Multilingual Plane (`font`).
    pub fn from_font() -> Self {
        Self(Codepoints::Font)
    }

    /// Whether this is `font`, which the encoder resolves against the font.
    pub fn is_font(&self) -> bool {
        self.0 == Codepoints::Font
    }

    /// The ranges, sorted and disjoint; none for `font`.
    pub fn ranges(&self) -> &[RangeInclusive<u32>] {
        match &self.0 {
            Codepoints::Ranges(ranges) => ranges,
            Codepoints::Font => &[],
        }
    }

    /// Every codepoint of the ranges that is a Unicode scalar value
    /// (surrogates are skipped), ascending; none for `font`.
    pub fn chars(&self) -> impl Iterator<Item = char> + '_ {
        self.ranges()
            .iter()
            .flat_map(|r| r.clone().filter_map(char::from_u32))
    }
}

/// Sorts ranges and merges those that overlap or touch.
fn merge(mut ranges: Vec<RangeInclusive<u32>>) -> Vec<RangeInclusive<u32>> {
    ranges.sort_by_key(|r| (*r.start(), *r.end()));
    let mut merged: Vec<RangeInclusive<u32>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if *range.start() <= last.end().saturating_add(1) => {
                *last = *last.start()..=(*last.end()).max(*range.end());
            }
            _ => merged.push(range),
        }
    }
    merged
}

/// Reads one `0x41` / `U+0041` codepoint.
fn parse_codepoint(text: &str) -> Result<u32, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .or_else(|| text.strip_prefix("U+"))
        .or_else(|| text.strip_prefix("u+"))
        .ok_or_else(|| {
            format!("charset entry {text:?} must be hexadecimal with a 0x or U+ prefix")
        })?;
    u32::from_str_radix(digits, 16)
        .map_err(|_| format!("charset entry {text:?} is not a hexadecimal codepoint"))
}

/// Reads one entry: a codepoint, or two joined by `-`.
fn parse_entry(text: &str) -> Result<RangeInclusive<u32>, String> {
    let text = text.trim();
    match text.split_once('-') {
        Some((first, last)) => Ok(parse_codepoint(first.trim())?..=parse_codepoint(last.trim())?),
        None => parse_codepoint(text).map(|c| c..=c),
    }
}

impl TryFrom<Vec<String>> for Charset {
    type Error = String;

    fn try_from(entries: Vec<String>) -> Result<Self, String> {
        let ranges = entries
            .iter()
            .map(|entry| parse_entry(entry))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(ranges)
    }
}

impl std::str::FromStr for Charset {
    type Err = String;

    /// Reads the `--charset` flag: entries joined by `,`, or `font`.
    fn from_str(text: &str) -> Result<Self, String> {
        if text == FONT_WORD {
            return Ok(Self::from_font());
        }
        let entries: Vec<String> = text.split(',').map(str::to_owned).collect();
        entries.try_into()
    }
}

impl std::fmt::Display for Charset {
    /// The canonical form: `0x20-0x7e,0xa0-0xff` (a lone codepoint as `0x41`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_font() {
            return f.write_str(FONT_WORD);
        }
        for (index, range) in self.ranges().iter().enumerate() {
            if index > 0 {
                f.write_str(",")?;
            }
            if range.start() == range.end() {
                write!(f, "{:#x}", range.start())?;
            } else {
                write!(f, "{:#x}-{:#x}", range.start(), range.end())?;
            }
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Charset {
    /// Reads a YAML list of entries, or the word `font`; a unit (only the key
    /// probe of `keys.rs` offers one) reads as the default set.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_any(EntryListVisitor)? {
            None => Ok(Self::default()),
            Some(CharsetValue::Font) => Ok(Self::from_font()),
            Some(CharsetValue::Entries(entries)) => {
                Self::try_from(entries).map_err(serde::de::Error::custom)
            }
        }
    }
}

/// A `charset:` value as written.
enum CharsetValue {
    /// The word `font`.
    Font,
    /// A list of codepoints and ranges.
    Entries(Vec<String>),
}

/// Reads a YAML list of charset entries as text, or the word `font`.
struct EntryListVisitor;

impl<'de> serde::de::Visitor<'de> for EntryListVisitor {
    type Value = Option<CharsetValue>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "a list of codepoints and ranges, such as [\"0x20-0x7e\", \"0xa0-0xff\"], or `font`",
        )
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        if text == FONT_WORD {
            Ok(Some(CharsetValue::Font))
        } else {
            Err(E::invalid_value(serde::de::Unexpected::Str(text), &self))
        }
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = seq.next_element::<String>()? {
            entries.push(entry);
        }
        Ok(Some(CharsetValue::Entries(entries)))
    }
}

/// What the font atlas stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum FontMode {
    /// One channel: the true signed distance to the outline (`R8_UNORM`).
    #[default]
    Sdf,
    /// Multi-channel: three edge-coloured pseudo-distances in RGB, whose
    /// median keeps sharp corners, and the true distance in alpha (`RGBA8`).
    Msdf,
}

impl FontMode {
    /// The name used in `assetc.yml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sdf => "sdf",
            Self::Msdf => "msdf",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_ascii_and_latin1() {
        let charset = Charset::default();
        assert_eq!(charset.to_string(), "0x20-0x7e,0xa0-0xff");
        assert_eq!(charset.chars().count(), 95 + 96);
    }

    #[test]
    fn entries_are_sorted_and_merged() {
        let charset: Charset = "0xa0-0xff,U+0041,0x20-0x40,0x42-0x7e".parse().unwrap();
        assert_eq!(charset.to_string(), "0x20-0x7e,0xa0-0xff");
        let single: Charset = "0x20ac".parse().unwrap();
        assert_eq!(single.to_string(), "0x20ac");
        assert_eq!(single.chars().collect::<Vec<_>>(), ['€']);
    }

    #[test]
    fn canonical_text_round_trips() {
        for text in [
            "0x20-0x7e,0xa0-0xff",
            "0x41",
            "0x0-0x10ffff",
            "0x400-0x4ff,0x20ac",
        ] {
            let charset: Charset = text.parse().unwrap();
            assert_eq!(charset.to_string(), text);
        }
    }

    #[test]
    fn bad_entries_are_refused_with_a_reason() {
        for (bad, why) in [
            ("", "0x or U+"),
            ("65", "0x or U+"),
            ("0x7e-0x20", "backwards"),
            ("0x110000", "above U+10FFFF"),
            ("0xzz", "not a hexadecimal"),
            ("0x20-", "0x or U+"),
        ] {
            let error = bad.parse::<Charset>().unwrap_err();
            assert!(error.contains(why), "{bad}: {error}");
        }
        assert!(Charset::new(Vec::new()).is_err());
    }

    #[test]
    fn font_stands_for_the_fonts_own_coverage() {
        let font: Charset = "font".parse().unwrap();
        assert!(font.is_font());
        assert_eq!(font.to_string(), "font");
        assert_eq!(font.chars().count(), 0);
        assert!(!Charset::default().is_font());
        assert!("fonts".parse::<Charset>().is_err());
    }

    #[test]
    fn surrogates_are_skipped() {
        let charset: Charset = "0xd7ff-0xe000".parse().unwrap();
        let chars: Vec<u32> = charset.chars().map(u32::from).collect();
        assert_eq!(chars, [0xD7FF, 0xE000]);
    }
}
