//! What a font covers, and what to tell the user when the charset misses it.
//!
//! A font's coverage is every codepoint of the Basic Multilingual Plane
//! (U+0020 to U+FFFF, controls aside) its Unicode `cmap` subtables map to a
//! real glyph. It serves three purposes:
//!
//! * `charset: font` is resolved to that coverage, up to
//!   [`MAX_FONT_CHARSET`] codepoints (the lowest ones; a warning names what
//!   was left out);
//! * a charset that selects no glyph fails with the font's main Unicode blocks
//!   and a `charset` that would take them ([`no_glyph_advice`]);
//! * a charset of which the font has less than half, while the font has
//!   codepoints outside it, builds with a warning saying the same
//!   ([`thin_charset_warning`]): a Thai, Arabic or Hebrew font under the
//!   default Latin charset.

use ttf_parser::Face;

use crate::config::Charset;

/// The most codepoints `charset: font` selects. At the default 48 texels per
/// em a glyph's cell is about 50x50 texels, so 4096 glyphs fill about a
/// 3300x3300 atlas, well inside the 8192 limit even at twice that size.
pub const MAX_FONT_CHARSET: usize = 4096;

/// The first codepoint of the BMP coverage (space); controls are never drawn.
const FIRST: u32 = 0x20;

/// The last codepoint of the Basic Multilingual Plane.
const LAST: u32 = 0xFFFF;

/// Unicode blocks of the BMP that fonts are usually made for, ascending:
/// (first, last, name). Codepoints outside them are grouped by 256.
const BLOCKS: &[(u32, u32, &str)] = &[
    (0x0000, 0x007F, "Basic Latin"),
    (0x0080, 0x00FF, "Latin-1 Supplement"),
    (0x0100, 0x017F, "Latin Extended-A"),
    (0x0180, 0x024F, "Latin Extended-B"),
    (0x0250, 0x02AF, "IPA Extensions"),
    (0x02B0, 0x02FF, "Spacing Modifier Letters"),
    (0x0300, 0x036F, "Combining Diacritical Marks"),
    (0x0370, 0x03FF, "Greek and Coptic"),
    (0x0400, 0x04FF, "Cyrillic"),
    (0x0500, 0x052F, "Cyrillic Supplement"),
    (0x0530, 0x058F, "Armenian"),
    (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"),
    (0x0700, 0x074F, "Syriac"),
    (0x0750, 0x077F, "Arabic Supplement"),
    (0x0780, 0x07BF, "Thaana"),
    (0x0900, 0x097F, "Devanagari"),
    (0x0980, 0x09FF, "Bengali"),
    (0x0A00, 0x0A7F, "Gurmukhi"),
    (0x0A80, 0x0AFF, "Gujarati"),
    (0x0B00, 0x0B7F, "Oriya"),
    (0x0B80, 0x0BFF, "Tamil"),
    (0x0C00, 0x0C7F, "Telugu"),
    (0x0C80, 0x0CFF, "Kannada"),
    (0x0D00, 0x0D7F, "Malayalam"),
    (0x0D80, 0x0DFF, "Sinhala"),
    (0x0E00, 0x0E7F, "Thai"),
    (0x0E80, 0x0EFF, "Lao"),
    (0x0F00, 0x0FFF, "Tibetan"),
    (0x1000, 0x109F, "Myanmar"),
    (0x10A0, 0x10FF, "Georgian"),
    (0x1100, 0x11FF, "Hangul Jamo"),
    (0x1200, 0x137F, "Ethiopic"),
    (0x13A0, 0x13FF, "Cherokee"),
    (0x1400, 0x167F, "Canadian Aboriginal Syllabics"),
    (0x1780, 0x17FF, "Khmer"),
    (0x1800, 0x18AF, "Mongolian"),
    (0x1E00, 0x1EFF, "Latin Extended Additional"),
    (0x1F00, 0x1FFF, "Greek Extended"),
    (0x2000, 0x206F, "General Punctuation"),
    (0x2070, 0x209F, "Superscripts and Subscripts"),
    (0x20A0, 0x20CF, "Currency Symbols"),
    (0x2100, 0x214F, "Letterlike Symbols"),
    (0x2150, 0x218F, "Number Forms"),
    (0x2190, 0x21FF, "Arrows"),
    (0x2200, 0x22FF, "Mathematical Operators"),
    (0x2300, 0x23FF, "Miscellaneous Technical"),
    (0x2500, 0x257F, "Box Drawing"),
    (0x2580, 0x259F, "Block Elements"),
    (0x25A0, 0x25FF, "Geometric Shapes"),
    (0x2600, 0x26FF, "Miscellaneous Symbols"),
    (0x2700, 0x27BF, "Dingbats"),
    (0x2C60, 0x2C7F, "Latin Extended-C"),
    (0x2E80, 0x2EFF, "CJK Radicals Supplement"),
    (0x3000, 0x303F, "CJK Symbols and Punctuation"),
    (0x3040, 0x309F, "Hiragana"),
    (0x30A0, 0x30FF, "Katakana"),
    (0x3100, 0x312F, "Bopomofo"),
    (0x3130, 0x318F, "Hangul Compatibility Jamo"),
    (0x3400, 0x4DBF, "CJK Unified Ideographs Extension A"),
    (0x4E00, 0x9FFF, "CJK Unified Ideographs"),
    (0xA000, 0xA48F, "Yi Syllables"),
    (0xA640, 0xA69F, "Cyrillic Extended-B"),
    (0xA720, 0xA7FF, "Latin Extended-D"),
    (0xAC00, 0xD7AF, "Hangul Syllables"),
    (0xE000, 0xF8FF, "Private Use Area"),
    (0xF900, 0xFAFF, "CJK Compatibility Ideographs"),
    (0xFB00, 0xFB4F, "Alphabetic Presentation Forms"),
    (0xFB50, 0xFDFF, "Arabic Presentation Forms-A"),
    (0xFE70, 0xFEFF, "Arabic Presentation Forms-B"),
    (0xFF00, 0xFFEF, "Halfwidth and Fullwidth Forms"),
];

/// How many of the blocks are named in a message.
const BLOCKS_SHOWN: usize = 4;

/// Every BMP codepoint from U+0020 that `face` maps to a glyph other than
/// `.notdef` (C1 controls aside), ascending. Each codepoint is looked up,
/// rather than the `cmap` groups walked: a hostile format 12 table can list
/// any number of groups spanning all of Unicode, while this is always 65,504
/// lookups.
pub fn bmp_coverage(face: &Face) -> Vec<u32> {
    (FIRST..=LAST)
        .filter(|c| !(0x7F..=0x9F).contains(c))
        .filter_map(char::from_u32)
        .filter(|&c| face.glyph_index(c).is_some_and(|id| id.0 != 0))
        .map(u32::from)
        .collect()
}

/// `charset: font` as ranges: the lowest [`MAX_FONT_CHARSET`] codepoints of
/// `coverage`, and a warning when more were left out. `None` when the font
/// maps nothing in the BMP.
pub fn font_charset(coverage: &[u32]) -> Option<(Charset, Option<String>)> {
    let kept = &coverage[..coverage.len().min(MAX_FONT_CHARSET)];
    let ranges = kept.iter().map(|&c| c..=c).collect();
    let charset = Charset::new(ranges).ok()?;
    let warning = (coverage.len() > kept.len()).then(|| {
        format!(
            "`charset: font` keeps the font's first {MAX_FONT_CHARSET} codepoints of the {} it \
             maps in the Basic Multilingual Plane; the {} from U+{:04X} on are left out (list \
             the ranges you need in `font.charset` instead)",
            coverage.len(),
            coverage.len() - kept.len(),
            coverage[kept.len()],
        )
    });
    Some((charset, warning))
}

/// One Unicode block (or 256-codepoint row) and how many codepoints of the
/// font fall in it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BlockCount {
    first: u32,
    last: u32,
    name: String,
    count: usize,
}

/// The blocks `coverage` falls in, most codepoints first (ties: lower first).
fn blocks_of(coverage: &[u32]) -> Vec<BlockCount> {
    let mut blocks: Vec<BlockCount> = Vec::new();
    for &codepoint in coverage {
        let (first, last, name) = block_of(codepoint);
        match blocks.last_mut() {
            Some(block) if block.first == first => block.count += 1,
            _ => blocks.push(BlockCount {
                first,
                last,
                name,
                count: 1,
            }),
        }
    }
    blocks.sort_by_key(|b| (std::cmp::Reverse(b.count), b.first));
    blocks
}

/// The named block holding `codepoint`, or its 256-codepoint row.
fn block_of(codepoint: u32) -> (u32, u32, String) {
    BLOCKS
        .iter()
        .find(|(first, last, _)| (*first..=*last).contains(&codepoint))
        .map(|&(first, last, name)| (first, last, name.to_string()))
        .unwrap_or_else(|| {
            let first = codepoint & !0xFF;
            (first, first + 0xFF, format!("U+{first:04X} row"))
        })
}

/// "Thai (U+0E00-U+0E7F, 87 codepoints), Basic Latin (…)": the main blocks.
fn blocks_text(blocks: &[BlockCount]) -> String {
    let shown: Vec<String> = blocks
        .iter()
        .take(BLOCKS_SHOWN)
        .map(|b| {
            format!(
                "{} (U+{:04X}-U+{:04X}, {} codepoints)",
                b.name, b.first, b.last, b.count
            )
        })
        .collect();
    let more = blocks.len().saturating_sub(BLOCKS_SHOWN);
    if more > 0 {
        format!("{} and {more} more blocks", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// How to set `charset` for this font: ASCII (when the font has any) plus
/// the font's two largest blocks the charset does not touch.
fn advice(blocks: &[BlockCount], charset: &Charset) -> String {
    let touches = |b: &BlockCount| {
        charset
            .ranges()
            .iter()
            .any(|r| *r.start() <= b.last && *r.end() >= b.first)
    };
    let mut entries = Vec::new();
    if blocks.iter().any(|b| b.first == 0) {
        entries.push("\"0x20-0x7e\"".to_string());
    }
    entries.extend(
        blocks
            .iter()
            .filter(|b| b.first != 0 && !touches(b))
            .take(2)
            .map(|b| format!("\"{:#06x}-{:#06x}\"", b.first, b.last)),
    );
    format!(
        "set `font: charset:` for it in assetc.yml (a rule matching this font), for example \
         `charset: [{}]`, or `charset: font` for everything it maps in the Basic Multilingual \
         Plane (at most {MAX_FONT_CHARSET} codepoints)",
        entries.join(", ")
    )
}

/// The second half of the error for a charset that selects no glyph: what
/// the font covers and how to set `charset`.
pub fn no_glyph_advice(coverage: &[u32], charset: &Charset) -> String {
    if coverage.is_empty() {
        return "the font maps no codepoint of the Basic Multilingual Plane to a glyph".into();
    }
    let blocks = blocks_of(coverage);
    format!(
        "the font covers {}; {}",
        blocks_text(&blocks),
        advice(&blocks, charset)
    )
}

/// The warning for a charset of which the font has fewer than half the
/// codepoints (`selected` of them) while it maps others: the charset is not
/// the one this font was made for.
pub fn thin_charset_warning(
    coverage: &[u32],
    charset: &Charset,
    selected: usize,
) -> Option<String> {
    let asked = charset.chars().count();
    let outside = coverage.len().saturating_sub(selected);
    if charset.is_font() || selected * 2 >= asked || outside == 0 {
        return None;
    }
    let blocks = blocks_of(coverage);
    Some(format!(
        "the font has only {selected} of the charset's {asked} codepoints ({charset}) but maps \
         {outside} others: it covers {}; {}",
        blocks_text(&blocks),
        advice(&blocks, charset)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thai_and_digits() -> Vec<u32> {
        let mut coverage = vec![0x20];
        coverage.extend(0x30..=0x39);
        coverage.extend(0x0E01..=0x0E3A);
        coverage.extend(0x0E3F..=0x0E5B);
        coverage
    }

    #[test]
    fn blocks_are_counted_and_ordered_by_size() {
        let blocks = blocks_of(&thai_and_digits());
        let names: Vec<(&str, usize)> = blocks.iter().map(|b| (b.name.as_str(), b.count)).collect();
        assert_eq!(names, [("Thai", 87), ("Basic Latin", 11)]);
        assert_eq!(block_of(0x0860).2, "U+0800 row");
    }

    #[test]
    fn a_thin_charset_is_warned_with_a_charset_for_the_script() {
        let charset = Charset::default();
        let warning = thin_charset_warning(&thai_and_digits(), &charset, 11).unwrap();
        assert!(
            warning.starts_with(
                "the font has only 11 of the charset's 191 codepoints (0x20-0x7e,0xa0-0xff) \
                 but maps 87 others: it covers Thai (U+0E00-U+0E7F, 87 codepoints), Basic \
                 Latin (U+0000-U+007F, 11 codepoints); set `font: charset:`"
            ),
            "{warning}"
        );
        assert!(
            warning.contains("`charset: [\"0x20-0x7e\", \"0x0e00-0x0e7f\"]`"),
            "{warning}"
        );
        assert!(warning.contains("or `charset: font`"), "{warning}");
        // Half the charset or more, or nothing else in the font: no warning.
        assert_eq!(thin_charset_warning(&thai_and_digits(), &charset, 96), None);
        let ascii: Vec<u32> = (0x20..=0x7E).collect();
        assert_eq!(thin_charset_warning(&ascii, &charset, 95), None);
        assert_eq!(thin_charset_warning(&[0x41], &charset, 1), None);
        assert_eq!(
            thin_charset_warning(&thai_and_digits(), &Charset::from_font(), 11),
            None
        );
    }

    #[test]
    fn no_glyph_advice_names_the_fonts_blocks() {
        let hiragana: Vec<u32> = (0x3041..=0x3096).collect();
        let text = no_glyph_advice(&hiragana, &Charset::default());
        assert!(
            text.starts_with("the font covers Hiragana (U+3040-U+309F, 86 codepoints); set"),
            "{text}"
        );
        assert!(text.contains("`charset: [\"0x3040-0x309f\"]`"), "{text}");
        let none = no_glyph_advice(&[], &Charset::default());
        assert!(none.contains("maps no codepoint"), "{none}");
    }

    #[test]
    fn font_charset_keeps_the_lowest_codepoints_up_to_the_limit() {
        let (charset, warning) = font_charset(&thai_and_digits()).unwrap();
        assert_eq!(charset.chars().count(), 98);
        assert_eq!(warning, None);
        let big: Vec<u32> = (0x4E00..0x4E00 + MAX_FONT_CHARSET as u32 + 10).collect();
        let (charset, warning) = font_charset(&big).unwrap();
        assert_eq!(charset.chars().count(), MAX_FONT_CHARSET);
        let warning = warning.unwrap();
        assert!(
            warning.contains("the 10 from U+5E00 on are left out"),
            "{warning}"
        );
        assert_eq!(font_charset(&[]), None);
    }
}
