//! The 3D LUT encoder: a `.cube` text file in, one 3D KTX 2.0 texture out.
//!
//! # Input
//!
//! `.cube` is the plain-text colour lookup table format written by Resolve,
//! Adobe tools and most grading software. A file holds a few keyword lines,
//! then one line of three numbers (red, green, blue) per lattice point:
//!
//! ```text
//! # comment
//! TITLE "Warm"
//! LUT_3D_SIZE 2
//! DOMAIN_MIN 0 0 0
//! DOMAIN_MAX 1 1 1
//! 0 0 0
//! 1 0 0
//! 0 1 0
//! ...
//! ```
//!
//! `LUT_3D_SIZE N` (2 to 256) is required; `TITLE` and the `DOMAIN_*` lines
//! (or Resolve's `LUT_3D_INPUT_RANGE min max`, one domain for all channels)
//! are optional. The `N³` data lines follow with red varying fastest, then
//! green, then blue. Blank lines, `#` comments, CRLF line endings and a
//! leading byte order mark are accepted. 1D LUTs (`LUT_1D_SIZE`) are refused.
//! Every problem is a [`LutError`] that names the 1-based line.
//!
//! # Output
//!
//! A 3D texture of `N x N x N` texels, `VK_FORMAT_R16G16B16A16_SFLOAT`, one
//! level (a LUT is sampled with trilinear filtering, never mipmapped),
//! Zstandard-supercompressed unless the level is 0. Texel `(x, y, z)` is the
//! entry with red index `x`, green index `y` and blue index `z`, which is the
//! file's own order, so the data is copied through; alpha is 1.0.
//!
//! Half floats rather than 8-bit channels: 8 bits per channel band visibly
//! in smooth grades, and `.cube` values may leave `[0, 1]` (HDR grades,
//! custom domains), which a normalised format would clip. RGBA rather than
//! RGB because three-channel 16-bit formats are rarely supported for sampled
//! 3D images.
//!
//! The domain is not stored: KTX2 has no standard key for it. A LUT with a
//! non-default domain is accepted and its values are written as given; the
//! runtime must map its input colour from `[DOMAIN_MIN, DOMAIN_MAX]` to
//! `[0, 1]` before sampling.

use half::f16;

use super::texture::write_supercompressed;
use crate::format::ktx2::{Ktx2Image, TexelFormat};

pub use super::limits::{LUT_MAX_SIZE as MAX_SIZE, LUT_MIN_SIZE as MIN_SIZE};

/// The shortest possible data line, newline included (`0 0 0\n`); bounds the
/// number of entries a file of a given length can hold.
const MIN_DATA_LINE_LEN: usize = 6;

/// A parsed `.cube` 3D LUT.
#[derive(Debug, Clone, PartialEq)]
pub struct CubeLut {
    /// The `TITLE`, without its quotes, if the file has one.
    pub title: Option<String>,
    /// Lattice points per axis (`LUT_3D_SIZE`).
    pub size: u32,
    /// The input value mapped to the first lattice point of each axis
    /// (`DOMAIN_MIN`, default `0 0 0`).
    pub domain_min: [f32; 3],
    /// The input value mapped to the last lattice point of each axis
    /// (`DOMAIN_MAX`, default `1 1 1`).
    pub domain_max: [f32; 3],
    /// The `size³` output colours, red index varying fastest, then green,
    /// then blue.
    pub entries: Vec<[f32; 3]>,
}

/// Why a `.cube` file was refused. Every message about the text starts with
/// the 1-based line it is about; none names the file (the caller adds the path).
#[derive(thiserror::Error, Debug)]
pub enum LutError {
    /// The bytes are not UTF-8.
    #[error("line {line}: the file is not UTF-8 text")]
    NotUtf8 {
        /// The line holding the first invalid byte.
        line: usize,
    },
    /// The file is a 1D LUT.
    #[error(
        "line {line}: LUT_1D_SIZE: 1D LUTs are not supported; export the grade as a 3D LUT \
         (LUT_3D_SIZE) instead"
    )]
    OneDimensional {
        /// The `LUT_1D_SIZE` line.
        line: usize,
    },
    /// Data (or the end of the file) came before any `LUT_3D_SIZE`.
    #[error("line {line}: missing LUT_3D_SIZE before the data")]
    MissingSize {
        /// The first data line, or the last line when there is no data.
        line: usize,
    },
    /// `LUT_3D_SIZE` is outside [`MIN_SIZE`]`..=`[`MAX_SIZE`].
    #[error("line {line}: LUT_3D_SIZE {size} is out of range: it must be 2 to 256")]
    SizeOutOfRange {
        /// The `LUT_3D_SIZE` line.
        line: usize,
        /// The size given.
        size: u64,
    },
    /// A keyword appears twice.
    #[error("line {line}: {keyword} is repeated (first given on line {first})")]
    RepeatedKeyword {
        /// The second occurrence.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// The first occurrence.
        first: usize,
    },
    /// A line starts with a word that is not a `.cube` keyword.
    #[error(
        "line {line}: unknown keyword {keyword:?} (expected TITLE, LUT_3D_SIZE, DOMAIN_MIN, \
         DOMAIN_MAX or LUT_3D_INPUT_RANGE; keywords are case-sensitive)"
    )]
    UnknownKeyword {
        /// The line.
        line: usize,
        /// The word found.
        keyword: String,
    },
    /// A keyword line follows the first data line.
    #[error("line {line}: {keyword} after the data; keywords must come before the first entry")]
    KeywordAfterData {
        /// The keyword line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
    },
    /// A keyword's value is malformed.
    #[error("line {line}: {keyword} {expected}")]
    BadKeywordValue {
        /// The keyword line.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// What the keyword takes, e.g. "expects a quoted title".
        expected: &'static str,
    },
    /// `DOMAIN_MAX` is not above `DOMAIN_MIN` in some channel.
    #[error(
        "line {line}: DOMAIN_MAX must be above DOMAIN_MIN in every channel, but {channel} \
         has min {min} and max {max}"
    )]
    EmptyDomain {
        /// The later of the two domain lines.
        line: usize,
        /// `red`, `green` or `blue`.
        channel: &'static str,
        /// The channel's minimum.
        min: f32,
        /// The channel's maximum.
        max: f32,
    },
    /// A data line does not hold exactly three values.
    #[error("line {line}: expected three numbers (red green blue), found {found} values")]
    WrongValueCount {
        /// The data line.
        line: usize,
        /// How many values it holds.
        found: usize,
    },
    /// A data value is not a finite number.
    #[error("line {line}: {text:?} is not a finite number")]
    NotANumber {
        /// The data line.
        line: usize,
        /// The offending value.
        text: String,
    },
    /// A data value is finite but too large for a half float.
    #[error("line {line}: {value} is beyond the half-float range (±65504) the LUT is stored in")]
    BeyondHalfRange {
        /// The data line.
        line: usize,
        /// The offending value.
        value: f32,
    },
    /// The file ends before `size³` entries.
    #[error(
        "line {line}: the data ends early: expected {size}³ = {expected} entries, found {found}"
    )]
    TooFewEntries {
        /// The last line of the file.
        line: usize,
        /// `LUT_3D_SIZE`.
        size: u32,
        /// `size³`.
        expected: usize,
        /// The entries read.
        found: usize,
    },
    /// The file holds more than `size³` entries.
    #[error("line {line}: one entry too many: expected {size}³ = {expected} entries")]
    TooManyEntries {
        /// The first extra data line.
        line: usize,
        /// `LUT_3D_SIZE`.
        size: u32,
        /// `size³`.
        expected: usize,
    },
    /// Zstandard refused to compress the texels.
    #[error("Zstandard compression failed")]
    Compress(#[source] std::io::Error),
}

/// Encodes a `.cube` file into a complete 3D KTX 2.0 file of RGBA16F texels,
/// Zstandard-supercompressed at `zstd_level` (0 stores the level as is).
pub fn encode_lut(source: &[u8], zstd_level: i32) -> Result<Vec<u8>, LutError> {
    let text = std::str::from_utf8(source).map_err(|e| LutError::NotUtf8 {
        line: line_at(source, e.valid_up_to()),
    })?;
    let lut = parse_cube(text)?;
    let texels = rgba16f_texels(&lut.entries);
    let layout = Ktx2Image {
        format: TexelFormat::Rgba16Float,
        width: lut.size,
        height: lut.size,
        depth: lut.size,
        layers: 0,
        faces: 1,
        supercompression: 0,
        swizzle: None,
        levels: &[],
    };
    write_supercompressed(layout, &[texels], zstd_level).map_err(|(_, e)| LutError::Compress(e))
}

/// Parses the text of a `.cube` 3D LUT (a leading byte order mark is skipped).
///
/// Values must be finite and fit a half float, the format [`encode_lut`]
/// stores them in.
pub fn parse_cube(text: &str) -> Result<CubeLut, LutError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let last_line = text.lines().count().max(1);
    let mut lines = significant_lines(text);
    let (header, first_data) = read_header(&mut lines)?;
    let missing_size_line = first_data.map_or(last_line, |(number, _)| number);
    let (size, _) = header.size.ok_or(LutError::MissingSize {
        line: missing_size_line,
    })?;
    header.check_domain()?;
    let capacity_bound = text.len() / MIN_DATA_LINE_LEN + 1;
    let data = first_data.into_iter().chain(lines);
    let entries = read_entries(size, data, last_line, capacity_bound)?;
    Ok(CubeLut {
        title: header.title.map(|(title, _)| title),
        size,
        domain_min: header.domain_min.map_or([0.0; 3], |(domain, _)| domain),
        domain_max: header.domain_max.map_or([1.0; 3], |(domain, _)| domain),
        entries,
    })
}

/// A significant line of the file: its 1-based number and its text without
/// comment or surrounding white space.
type NumberedLine<'a> = (usize, &'a str);

/// Reads keyword lines up to the first data line, which it returns with
/// its number (`None` when the file has no data).
fn read_header<'a>(
    lines: &mut impl Iterator<Item = NumberedLine<'a>>,
) -> Result<(Header, Option<NumberedLine<'a>>), LutError> {
    let mut header = Header::default();
    for (number, line) in lines {
        if is_data_line(line) {
            return Ok((header, Some((number, line))));
        }
        header.apply(number, line)?;
    }
    Ok((header, None))
}

/// The 1-based line holding byte `offset` of `bytes`.
fn line_at(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset]
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count()
        + 1
}

/// The non-blank lines of `text` with their 1-based numbers, comments and
/// surrounding white space removed.
fn significant_lines(text: &str) -> impl Iterator<Item = NumberedLine<'_>> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, strip_comment(line).trim()))
        .filter(|(_, line)| !line.is_empty())
}

/// `line` up to its first `#` outside double quotes (a title may hold `#`).
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (index, character) in line.char_indices() {
        match character {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..index],
            _ => {}
        }
    }
    line
}

/// Whether `line` is a data line: it starts like a number (a digit, a sign or
/// a point) or its first word parses as one (`nan`, `inf`).
fn is_data_line(line: &str) -> bool {
    let starts_like_number = line.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
    let first_word = line.split_ascii_whitespace().next().unwrap_or_default();
    starts_like_number || first_word.parse::<f32>().is_ok()
}

/// The `.cube` keywords a 3D LUT may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    Title,
    Size,
    DomainMin,
    DomainMax,
    InputRange,
}

impl Keyword {
    /// The keyword `word` names; `LUT_1D_SIZE` and unknown words are errors.
    fn parse(line: usize, word: &str) -> Result<Self, LutError> {
        match word {
            "TITLE" => Ok(Self::Title),
            "LUT_3D_SIZE" => Ok(Self::Size),
            "DOMAIN_MIN" => Ok(Self::DomainMin),
            "DOMAIN_MAX" => Ok(Self::DomainMax),
            "LUT_3D_INPUT_RANGE" => Ok(Self::InputRange),
            "LUT_1D_SIZE" => Err(LutError::OneDimensional { line }),
            _ => Err(LutError::UnknownKeyword {
                line,
                keyword: word.to_owned(),
            }),
        }
    }

    /// The keyword as written in files.
    fn name(self) -> &'static str {
        match self {
            Self::Title => "TITLE",
            Self::Size => "LUT_3D_SIZE",
            Self::DomainMin => "DOMAIN_MIN",
            Self::DomainMax => "DOMAIN_MAX",
            Self::InputRange => "LUT_3D_INPUT_RANGE",
        }
    }
}

/// The keyword lines read so far, each value with the line it came from.
#[derive(Debug, Default)]
struct Header {
    title: Option<(String, usize)>,
    size: Option<(u32, usize)>,
    domain_min: Option<([f32; 3], usize)>,
    domain_max: Option<([f32; 3], usize)>,
}

impl Header {
    /// Records the keyword line `line`, number `number`.
    fn apply(&mut self, number: usize, line: &str) -> Result<(), LutError> {
        let (word, value) = line
            .split_once(|c: char| c.is_ascii_whitespace())
            .unwrap_or((line, ""));
        let keyword = Keyword::parse(number, word)?;
        if let Some(first) = self.line_of(keyword) {
            return Err(LutError::RepeatedKeyword {
                line: number,
                keyword: keyword.name(),
                first,
            });
        }
        let value = value.trim();
        match keyword {
            Keyword::Title => self.title = Some((parse_title(number, value)?, number)),
            Keyword::Size => self.size = Some((parse_size(number, value)?, number)),
            Keyword::DomainMin => {
                self.domain_min = Some((parse_domain(number, keyword, value)?, number))
            }
            Keyword::DomainMax => {
                self.domain_max = Some((parse_domain(number, keyword, value)?, number))
            }
            Keyword::InputRange => {
                let [min, max] = parse_input_range(number, value)?;
                self.domain_min = Some(([min; 3], number));
                self.domain_max = Some(([max; 3], number));
            }
        }
        Ok(())
    }

    /// The line `keyword` was given on, if it was.
    fn line_of(&self, keyword: Keyword) -> Option<usize> {
        match keyword {
            Keyword::Title => self.title.as_ref().map(|(_, line)| *line),
            Keyword::Size => self.size.map(|(_, line)| line),
            Keyword::DomainMin => self.domain_min.map(|(_, line)| line),
            Keyword::DomainMax => self.domain_max.map(|(_, line)| line),
            // Resolve's spelling of a domain shared by all three channels.
            Keyword::InputRange => self.domain_min.or(self.domain_max).map(|(_, line)| line),
        }
    }

    /// Checks that the domain's maximum is above its minimum in each channel.
    fn check_domain(&self) -> Result<(), LutError> {
        let (min, min_line) = self.domain_min.unwrap_or(([0.0; 3], 0));
        let (max, max_line) = self.domain_max.unwrap_or(([1.0; 3], 0));
        let channels = ["red", "green", "blue"];
        match (0..3).find(|&channel| max[channel] <= min[channel]) {
            None => Ok(()),
            Some(channel) => Err(LutError::EmptyDomain {
                line: min_line.max(max_line),
                channel: channels[channel],
                min: min[channel],
                max: max[channel],
            }),
        }
    }
}

/// The text between the quotes of a `TITLE` value.
fn parse_title(line: usize, value: &str) -> Result<String, LutError> {
    value
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or(LutError::BadKeywordValue {
            line,
            keyword: Keyword::Title.name(),
            expected: "expects a title in double quotes",
        })
}

/// A `LUT_3D_SIZE` value: one whole number from [`MIN_SIZE`] to [`MAX_SIZE`].
fn parse_size(line: usize, value: &str) -> Result<u32, LutError> {
    let size: u64 = value.parse().map_err(|_| LutError::BadKeywordValue {
        line,
        keyword: Keyword::Size.name(),
        expected: "expects one whole number from 2 to 256",
    })?;
    u32::try_from(size)
        .ok()
        .filter(|size| (MIN_SIZE..=MAX_SIZE).contains(size))
        .ok_or(LutError::SizeOutOfRange { line, size })
}

/// A `DOMAIN_MIN` or `DOMAIN_MAX` value: three finite numbers.
fn parse_domain(line: usize, keyword: Keyword, value: &str) -> Result<[f32; 3], LutError> {
    let numbers: Vec<f32> = value
        .split_ascii_whitespace()
        .map(|word| word.parse::<f32>().ok().filter(|n| n.is_finite()))
        .collect::<Option<_>>()
        .unwrap_or_default();
    numbers.try_into().map_err(|_| LutError::BadKeywordValue {
        line,
        keyword: keyword.name(),
        expected: "expects three finite numbers (red green blue)",
    })
}

/// A `LUT_3D_INPUT_RANGE` value: two finite numbers, the domain's minimum and
/// maximum for every channel.
fn parse_input_range(line: usize, value: &str) -> Result<[f32; 2], LutError> {
    let numbers: Vec<f32> = value
        .split_ascii_whitespace()
        .map(|word| word.parse::<f32>().ok().filter(|n| n.is_finite()))
        .collect::<Option<_>>()
        .unwrap_or_default();
    numbers.try_into().map_err(|_| LutError::BadKeywordValue {
        line,
        keyword: Keyword::InputRange.name(),
        expected: "expects two finite numbers (minimum maximum)",
    })
}

/// Reads exactly `size³` entries from the numbered data `lines`.
///
/// `capacity_bound` caps the up-front allocation so that a large declared
/// size with little data allocates little.
fn read_entries<'a>(
    size: u32,
    lines: impl Iterator<Item = NumberedLine<'a>>,
    last_line: usize,
    capacity_bound: usize,
) -> Result<Vec<[f32; 3]>, LutError> {
    let expected = (size as usize).pow(3);
    let mut entries = Vec::with_capacity(expected.min(capacity_bound));
    for (number, line) in lines {
        if !is_data_line(line) {
            return Err(keyword_after_data(number, line));
        }
        if entries.len() == expected {
            return Err(LutError::TooManyEntries {
                line: number,
                size,
                expected,
            });
        }
        entries.push(parse_entry(number, line)?);
    }
    if entries.len() < expected {
        return Err(LutError::TooFewEntries {
            line: last_line,
            size,
            expected,
            found: entries.len(),
        });
    }
    Ok(entries)
}

/// The error for the keyword line `line`, number `number`, after the data.
fn keyword_after_data(number: usize, line: &str) -> LutError {
    let word = line.split_ascii_whitespace().next().unwrap_or_default();
    match Keyword::parse(number, word) {
        Ok(keyword) => LutError::KeywordAfterData {
            line: number,
            keyword: keyword.name(),
        },
        Err(error) => error,
    }
}

/// One data line: three finite numbers that fit a half float.
fn parse_entry(number: usize, line: &str) -> Result<[f32; 3], LutError> {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let words: [&str; 3] =
        words
            .try_into()
            .map_err(|words: Vec<&str>| LutError::WrongValueCount {
                line: number,
                found: words.len(),
            })?;
    let mut entry = [0.0; 3];
    for (value, word) in entry.iter_mut().zip(words) {
        *value = parse_value(number, word)?;
    }
    Ok(entry)
}

/// One data value: a finite number no larger in magnitude than [`f16::MAX`].
fn parse_value(line: usize, word: &str) -> Result<f32, LutError> {
    let value = word
        .parse::<f32>()
        .ok()
        .filter(|value| value.is_finite())
        .ok_or_else(|| LutError::NotANumber {
            line,
            text: word.to_owned(),
        })?;
    if value.abs() > f16::MAX.to_f32() {
        return Err(LutError::BeyondHalfRange { line, value });
    }
    Ok(value)
}

/// The entries as little-endian RGBA16F texels, alpha 1.0, in entry order.
fn rgba16f_texels(entries: &[[f32; 3]]) -> Vec<u8> {
    entries
        .iter()
        .flat_map(|&[red, green, blue]| [red, green, blue, 1.0])
        .flat_map(|channel| f16::from_f32(channel).to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ktx2::{
        self, SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZSTD, VK_FORMAT_R16G16B16A16_SFLOAT,
    };

    /// A `.cube` whose every channel runs linearly from `low` (index 0) to
    /// `high` (index `size - 1`): an identity LUT when `low..high` is `0..1`.
    fn ramp_cube(size: u32, low: f32, high: f32) -> String {
        let mut text = format!("TITLE \"ramp {size}\"\nLUT_3D_SIZE {size}\n");
        for [red, green, blue] in ramp_entries(size, low, high) {
            text.push_str(&format!("{red} {green} {blue}\n"));
        }
        text
    }

    /// The entries [`ramp_cube`] writes, in file order.
    fn ramp_entries(size: u32, low: f32, high: f32) -> Vec<[f32; 3]> {
        let value = |index: u32| low + (high - low) * index as f32 / (size - 1) as f32;
        let mut entries = Vec::new();
        for blue in 0..size {
            for green in 0..size {
                for red in 0..size {
                    entries.push([value(red), value(green), value(blue)]);
                }
            }
        }
        entries
    }

    /// Level 0 of a KTX2 file read with the `ktx2` crate, inflated if needed.
    fn inflated_level(reader: &::ktx2::Reader<&[u8]>) -> Vec<u8> {
        let level = reader.levels().next().unwrap();
        match reader.header().supercompression_scheme {
            None => level.data.to_vec(),
            Some(_) => {
                zstd::bulk::decompress(level.data, level.uncompressed_byte_length as usize).unwrap()
            }
        }
    }

    /// RGBA16F texels back to RGBA f32 values.
    fn texels_to_rgba(bytes: &[u8]) -> Vec<[f32; 4]> {
        bytes
            .chunks_exact(8)
            .map(|texel| {
                let channel = |i: usize| f16::from_le_bytes([texel[2 * i], texel[2 * i + 1]]);
                [0, 1, 2, 3].map(|i| channel(i).to_f32())
            })
            .collect()
    }

    /// Whether `decoded` is `value` within half-float precision (half an ulp
    /// of an 11-bit significand, or the subnormal step near zero).
    fn within_half_precision(decoded: f32, value: f32) -> bool {
        (decoded - value).abs() <= value.abs() * 2f32.powi(-11) + 2f32.powi(-25)
    }

    /// Checks a LUT file against the `ktx2` crate's reader and the entries it
    /// was made from.
    fn check_ktx2(file: &[u8], size: u32, entries: &[[f32; 3]], zstd: bool) {
        let reader = ::ktx2::Reader::new(file).unwrap();
        let header = reader.header();
        assert_eq!(header.format, Some(::ktx2::Format::R16G16B16A16_SFLOAT));
        assert_eq!(header.type_size, 2);
        assert_eq!(
            (header.pixel_width, header.pixel_height, header.pixel_depth),
            (size, size, size)
        );
        assert_eq!((header.layer_count, header.face_count), (0, 1));
        assert_eq!(header.level_count, 1);
        let expected_scheme = zstd.then_some(::ktx2::SupercompressionScheme::Zstandard);
        assert_eq!(header.supercompression_scheme, expected_scheme);
        let texels = texels_to_rgba(&inflated_level(&reader));
        assert_eq!(texels.len(), entries.len());
        for (index, (texel, entry)) in texels.iter().zip(entries).enumerate() {
            assert_eq!(texel[3], 1.0, "alpha of texel {index}");
            for channel in 0..3 {
                assert!(
                    within_half_precision(texel[channel], entry[channel]),
                    "texel {index} channel {channel}: {} vs {}",
                    texel[channel],
                    entry[channel]
                );
            }
        }
    }

    #[test]
    fn hand_written_lut_with_bom_crlf_comments_and_domain() {
        let text = "\u{feff}# made by hand\r\n\
                    TITLE \"Hand # made\"  # trailing comment\r\n\
                    \r\n\
                    DOMAIN_MIN -0.5 0 0.25\r\n\
                    DOMAIN_MAX 2 1 1.5\r\n\
                    LUT_3D_SIZE 2 # two points per axis\r\n\
                    # data follows\r\n\
                    0 0 0\r\n\
                    1 0 0\r\n\
                    0 1 0   # green\r\n\
                    1 1 0\r\n\
                    \t0 0 1\r\n\
                    1 0 1\r\n\
                    0 1 1\r\n\
                    1.0e0 1 -0.25\r\n";
        let lut = parse_cube(text).unwrap();
        assert_eq!(lut.title.as_deref(), Some("Hand # made"));
        assert_eq!(lut.size, 2);
        assert_eq!(lut.domain_min, [-0.5, 0.0, 0.25]);
        assert_eq!(lut.domain_max, [2.0, 1.0, 1.5]);
        assert_eq!(
            lut.entries,
            [
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [1.0, 0.0, 1.0],
                [0.0, 1.0, 1.0],
                [1.0, 1.0, -0.25],
            ]
        );
    }

    #[test]
    fn domain_and_title_are_optional() {
        let lut = parse_cube(&ramp_cube(2, 0.0, 1.0).replace("TITLE \"ramp 2\"\n", "")).unwrap();
        assert_eq!(lut.title, None);
        assert_eq!((lut.domain_min, lut.domain_max), ([0.0; 3], [1.0; 3]));
    }

    #[test]
    fn identity_luts_round_trip_through_the_ktx2_crate() {
        for size in [2, 17, 33] {
            let file = encode_lut(ramp_cube(size, 0.0, 1.0).as_bytes(), 18).unwrap();
            check_ktx2(&file, size, &ramp_entries(size, 0.0, 1.0), true);
        }
    }

    #[test]
    fn values_outside_zero_to_one_survive() {
        let size = 17;
        let file = encode_lut(ramp_cube(size, -0.25, 4.0).as_bytes(), 3).unwrap();
        let entries = ramp_entries(size, -0.25, 4.0);
        check_ktx2(&file, size, &entries, true);
        let texels = texels_to_rgba(&inflated_level(&::ktx2::Reader::new(&file[..]).unwrap()));
        assert_eq!(texels[0][..3], [-0.25; 3]);
        assert_eq!(texels[texels.len() - 1][..3], [4.0; 3]);
    }

    #[test]
    fn zstd_level_zero_stores_the_texels_as_they_are() {
        let file = encode_lut(ramp_cube(5, 0.0, 1.0).as_bytes(), 0).unwrap();
        check_ktx2(&file, 5, &ramp_entries(5, 0.0, 1.0), false);
    }

    #[test]
    fn our_reader_accepts_the_file() {
        let size = 17;
        let file = encode_lut(ramp_cube(size, -0.25, 4.0).as_bytes(), 0).unwrap();
        let view = ktx2::parse(&file).unwrap();
        let header = view.header();
        assert_eq!(header.vk_format, VK_FORMAT_R16G16B16A16_SFLOAT);
        assert_eq!(header.pixel_depth, size);
        assert_eq!(header.supercompression_scheme, SUPERCOMPRESSION_NONE);
        assert_eq!(view.key_value("KTXorientation"), Some(&b"rdi\0"[..]));
        let texels = texels_to_rgba(view.level_data(0));
        // Texel (x, y, z) = (1, 2, 3) is the entry with red 1, green 2, blue 3.
        let at = |x: u32, y: u32, z: u32| texels[(x + size * (y + size * z)) as usize];
        let step = 4.25 / (size - 1) as f32;
        let expected = [1.0, 2.0, 3.0].map(|index| -0.25 + step * index);
        for (decoded, value) in at(1, 2, 3)[..3].iter().zip(expected) {
            assert!(
                within_half_precision(*decoded, value),
                "{decoded} vs {value}"
            );
        }

        let compressed = encode_lut(ramp_cube(size, 0.0, 1.0).as_bytes(), 18).unwrap();
        let view = ktx2::parse(&compressed).unwrap();
        assert_eq!(view.header().supercompression_scheme, SUPERCOMPRESSION_ZSTD);
        assert!(compressed.len() < file.len());
    }

    #[test]
    fn the_warm_grade_sample_file() {
        let text = include_str!("../../tests/data/warm.lut.cube");
        let lut = parse_cube(text).unwrap();
        assert_eq!(lut.title.as_deref(), Some("Warm grade"));
        assert_eq!(lut.size, 5);
        let identity = ramp_entries(5, 0.0, 1.0);
        for (graded, input) in lut.entries.iter().zip(&identity) {
            assert!(
                graded[0] >= input[0],
                "red is lifted: {graded:?} from {input:?}"
            );
            assert_eq!(graded[1], input[1], "green is kept");
            assert!(
                graded[2] <= input[2],
                "blue is lowered: {graded:?} from {input:?}"
            );
        }
        assert_eq!(lut.entries[1], [0.265, 0.0, 0.0]);
        assert_eq!(lut.entries[124], [1.0, 1.0, 0.88]);
        let file = encode_lut(text.as_bytes(), 18).unwrap();
        check_ktx2(&file, 5, &lut.entries, true);
    }

    /// The message of the error `text` is refused with; it must name `line`.
    fn error_on_line(text: &str, line: usize) -> String {
        let message = match parse_cube(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(error) => error.to_string(),
        };
        assert!(message.starts_with(&format!("line {line}: ")), "{message}");
        message
    }

    /// A valid size-2 LUT with `header` as its keyword lines.
    fn with_header(header: &str) -> String {
        let data = ramp_cube(2, 0.0, 1.0);
        let entries = data.lines().skip(2).collect::<Vec<_>>().join("\n");
        format!("{header}\n{entries}\n")
    }

    #[test]
    fn resolve_input_range_sets_the_domain() {
        let lut = parse_cube(&format!(
            "LUT_3D_INPUT_RANGE -0.5 2\n{}",
            ramp_cube(2, 0.0, 1.0)
        ))
        .unwrap();
        assert_eq!(lut.domain_min, [-0.5; 3]);
        assert_eq!(lut.domain_max, [2.0; 3]);
        let message = error_on_line("DOMAIN_MIN 0 0 0\nLUT_3D_INPUT_RANGE 0 1\n", 2);
        assert!(message.contains("LUT_3D_INPUT_RANGE"), "{message}");
        let message = error_on_line("LUT_3D_INPUT_RANGE 0\n", 1);
        assert!(message.contains("two finite numbers"), "{message}");
    }

    #[test]
    fn a_1d_lut_is_refused_with_a_hint() {
        let message = error_on_line("# 1D\nLUT_1D_SIZE 4096\n0 0 0\n", 2);
        assert!(message.contains("1D LUTs are not supported"), "{message}");
        assert!(message.contains("3D LUT"), "{message}");
    }

    #[test]
    fn a_missing_size_is_refused() {
        let message = error_on_line("TITLE \"x\"\n\n0 0 0\n1 1 1\n", 3);
        assert!(message.contains("missing LUT_3D_SIZE"), "{message}");
        error_on_line("# nothing but a comment\nTITLE \"x\"\n", 2);
        error_on_line("", 1);
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        for size in ["0", "1", "257", "99999999999"] {
            let message = error_on_line(&format!("#\nLUT_3D_SIZE {size}\n0 0 0\n"), 2);
            assert!(message.contains("out of range"), "{message}");
        }
        for size in ["", "17.0", "-3", "17 17", "x"] {
            let message = error_on_line(&format!("LUT_3D_SIZE {size}\n0 0 0\n"), 1);
            assert!(message.contains("one whole number"), "{message}");
        }
    }

    #[test]
    fn a_repeated_keyword_is_refused() {
        let message = error_on_line(&with_header("LUT_3D_SIZE 2\nTITLE \"a\"\nLUT_3D_SIZE 2"), 3);
        assert!(
            message.contains("repeated (first given on line 1)"),
            "{message}"
        );
        error_on_line(
            &with_header("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MIN 0 0 0"),
            3,
        );
    }

    #[test]
    fn an_unknown_keyword_is_refused() {
        let message = error_on_line(&with_header("LUT_3D_SIZE 2\nLUT_3D_SHAPER 0 1"), 2);
        assert!(
            message.contains("unknown keyword \"LUT_3D_SHAPER\""),
            "{message}"
        );
        let message = error_on_line(&with_header("lut_3d_size 2"), 1);
        assert!(message.contains("case-sensitive"), "{message}");
    }

    #[test]
    fn a_keyword_after_the_data_is_refused() {
        let text = ramp_cube(2, 0.0, 1.0).replace("1 1 1\n", "1 1 1\nDOMAIN_MAX 1 1 1\n");
        let message = error_on_line(&text, 11);
        assert!(message.contains("DOMAIN_MAX after the data"), "{message}");
        let text = ramp_cube(2, 0.0, 1.0).replace("0 0 1\n", "TITLE \"late\"\n0 0 1\n");
        error_on_line(&text, 7);
    }

    #[test]
    fn malformed_keyword_values_are_refused() {
        let message = error_on_line(&with_header("TITLE untitled\nLUT_3D_SIZE 2"), 1);
        assert!(message.contains("double quotes"), "{message}");
        error_on_line(&with_header("TITLE \"open\nLUT_3D_SIZE 2"), 1);
        for domain in ["0 0", "0 0 0 0", "0 x 0", "0 inf 0"] {
            let header = format!("LUT_3D_SIZE 2\nDOMAIN_MIN {domain}");
            let message = error_on_line(&with_header(&header), 2);
            assert!(message.contains("three finite numbers"), "{message}");
        }
    }

    #[test]
    fn an_empty_domain_is_refused() {
        let header = "DOMAIN_MAX 1 1 1\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 1 0";
        let message = error_on_line(&with_header(header), 3);
        assert!(message.contains("green has min 1 and max 1"), "{message}");
        let message = error_on_line(&with_header("LUT_3D_SIZE 2\nDOMAIN_MAX 1 1 -1"), 2);
        assert!(message.contains("blue"), "{message}");
    }

    #[test]
    fn a_data_line_without_three_numbers_is_refused() {
        for line in ["0 0", "0 0 0 0", "0"] {
            let text = ramp_cube(2, 0.0, 1.0).replace("0 1 0\n", &format!("{line}\n"));
            let message = error_on_line(&text, 5);
            assert!(message.contains("expected three numbers"), "{message}");
        }
    }

    #[test]
    fn a_data_line_with_a_non_number_is_refused() {
        for value in ["x", "0.5.5", "1e", "NaN", "inf", "-infinity", "1e39"] {
            let text = ramp_cube(2, 0.0, 1.0).replace("0 1 0\n", &format!("0 {value} 0\n"));
            let message = error_on_line(&text, 5);
            assert!(message.contains("not a finite number"), "{message}");
        }
        let text = ramp_cube(2, 0.0, 1.0).replace("1 1 1\n", "nan 1 1\n");
        error_on_line(&text, 10);
    }

    #[test]
    fn a_value_beyond_half_float_range_is_refused() {
        let text = ramp_cube(2, 0.0, 1.0).replace("0 1 0\n", "0 70000 0\n");
        let message = error_on_line(&text, 5);
        assert!(message.contains("half-float range"), "{message}");
        let text = ramp_cube(2, 0.0, 1.0).replace("0 1 0\n", "0 -65504 0\n");
        assert_eq!(parse_cube(&text).unwrap().entries[2], [0.0, -65504.0, 0.0]);
    }

    #[test]
    fn too_few_entries_are_refused_naming_the_last_line() {
        let text = ramp_cube(2, 0.0, 1.0).replace("1 1 1\n", "") + "# end\n";
        let message = error_on_line(&text, 10);
        assert!(
            message.contains("expected 2³ = 8 entries, found 7"),
            "{message}"
        );
        let message = error_on_line("LUT_3D_SIZE 3\n", 1);
        assert!(
            message.contains("expected 3³ = 27 entries, found 0"),
            "{message}"
        );
    }

    #[test]
    fn too_many_entries_are_refused_naming_the_first_extra_line() {
        let text = ramp_cube(2, 0.0, 1.0) + "\n0.5 0.5 0.5\n1 1 1\n";
        let message = error_on_line(&text, 12);
        assert!(message.contains("expected 2³ = 8 entries"), "{message}");
    }

    #[test]
    fn a_huge_declared_size_with_little_data_fails_on_the_count() {
        let text = "LUT_3D_SIZE 256\n0 0 0\n0.5 0 0\n1 0 0\n";
        let message = error_on_line(text, 4);
        assert!(
            message.contains("expected 256³ = 16777216 entries, found 3"),
            "{message}"
        );
    }

    #[test]
    fn non_utf8_text_is_refused_naming_the_line() {
        let mut source = b"TITLE \"x\"\nLUT_3D_SIZE 2\n# caf".to_vec();
        source.extend_from_slice(&[0xE9, b'\n']);
        let message = encode_lut(&source, 18).unwrap_err().to_string();
        assert!(message.starts_with("line 3: "), "{message}");
        assert!(message.contains("not UTF-8"), "{message}");
    }
}
