//! What a BMFont file says, whichever of its three encodings it came in,
//! and the checks every encoding shares.
//!
//! Each record keeps its [`Place`] (a line of a text or XML file, a byte
//! offset of a binary one), so an error found after parsing (a glyph rect
//! outside its page, a page index out of range) still names where the
//! record is.

use std::collections::BTreeMap;
use std::fmt;

/// The most pages a font may have: the binary encoding stores a glyph's
/// page in one byte.
pub const MAX_PAGES: u32 = 256;

/// Where a record sits in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A 1-based line of a text or XML file.
    Line(usize),
    /// A byte offset into a binary file.
    Offset(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(line) => write!(f, "line {line}"),
            Place::Offset(offset) => write!(f, "byte {offset}"),
        }
    }
}

/// Why a BMFont file was refused: what is wrong, and where when the fault
/// is one record's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{what}", place.map(|p| format!("{p}: ")).unwrap_or_default())]
pub struct BmError {
    /// The record at fault.
    pub place: Option<Place>,
    /// What is wrong with it.
    pub what: String,
}

impl BmError {
    /// An error at `place`.
    pub fn at(place: Place, what: impl Into<String>) -> Self {
        BmError {
            place: Some(place),
            what: what.into(),
        }
    }

    /// An error about the file as a whole.
    pub fn whole(what: impl Into<String>) -> Self {
        BmError {
            place: None,
            what: what.into(),
        }
    }
}

/// Which channels of its page a glyph occupies (the `chnl` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channels {
    /// All four: the glyph's texels are its colour and alpha (`chnl` 15,
    /// or 0 as some exporters write it).
    All,
    /// One channel, 0 red to 3 alpha, holds the glyph (a packed font).
    One(usize),
}

impl Channels {
    /// The channels `chnl` names; `None` for a combination BMFont does not
    /// write (two or three channels).
    pub fn from_chnl(chnl: u32) -> Option<Self> {
        match chnl {
            0 | 15 => Some(Channels::All),
            1 => Some(Channels::One(2)),
            2 => Some(Channels::One(1)),
            4 => Some(Channels::One(0)),
            8 => Some(Channels::One(3)),
            _ => None,
        }
    }
}

/// What `common` says one channel of the pages holds (`alphaChnl` …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChannelContent {
    /// The glyph (0), the outline (1) or both (2).
    #[default]
    Glyph,
    /// Always 0 (3).
    Zero,
    /// Always 255 (4).
    One,
}

impl ChannelContent {
    /// The content a `*Chnl` value names.
    pub fn from_value(value: u32) -> Option<Self> {
        match value {
            0..=2 => Some(ChannelContent::Glyph),
            3 => Some(ChannelContent::Zero),
            4 => Some(ChannelContent::One),
            _ => None,
        }
    }
}

/// One page image, named relative to the `.fnt` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The file name as the font gives it.
    pub file: String,
    /// Where the page record is.
    pub place: Place,
}

/// One glyph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glyph {
    /// Its codepoint; 0 for the fallback glyph (BMFont's `id=-1`).
    pub id: u32,
    /// Left edge of its rect in the page, texels.
    pub x: u32,
    /// Top edge of its rect in the page, texels.
    pub y: u32,
    /// Rect width, texels (0 for a blank glyph).
    pub width: u32,
    /// Rect height, texels.
    pub height: u32,
    /// Texels from the pen to the rect's left edge.
    pub xoffset: i32,
    /// Texels from the line's top to the rect's top edge.
    pub yoffset: i32,
    /// Texels the pen moves after the glyph.
    pub xadvance: i32,
    /// The page holding the rect.
    pub page: u32,
    /// The channels holding it.
    pub channels: Channels,
    /// Where the record is.
    pub place: Place,
}

/// One kerning pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kerning {
    /// The first glyph's codepoint.
    pub first: u32,
    /// The codepoint of the glyph after it.
    pub second: u32,
    /// Texels added to the first glyph's advance.
    pub amount: i32,
    /// Where the record is.
    pub place: Place,
}

/// The `info` and `common` values the compiler uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metrics {
    /// `info size`: the font's size in texels, negative when BMFont matched
    /// the character height instead of the cell height.
    pub size: i32,
    /// `common lineHeight`: texels from one line to the next.
    pub line_height: u32,
    /// `common base`: texels from the line's top to the baseline.
    pub base: u32,
    /// `common scaleW`, `scaleH`: the size of every page.
    pub scale: (u32, u32),
    /// `common packed`: glyphs share texels, one channel each.
    pub packed: bool,
    /// `common alphaChnl`, `redChnl`, `greenChnl`, `blueChnl`, in RGBA
    /// order.
    pub contents: [ChannelContent; 4],
    /// Where `info size` is.
    pub size_place: Place,
}

/// A whole BMFont file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BmFont {
    /// The `info` and `common` values.
    pub metrics: Metrics,
    /// Pages by index.
    pub pages: Vec<Page>,
    /// Glyphs by ascending codepoint, unique.
    pub glyphs: Vec<Glyph>,
    /// Kerning pairs by ascending `(first, second)`, unique.
    pub kerning: Vec<Kerning>,
}

impl BmFont {
    /// Checks what every encoding must satisfy and orders the tables:
    /// codepoints are Unicode scalars and unique, every glyph's page exists,
    /// no kerning pair is given twice.
    pub fn new(
        metrics: Metrics,
        pages: Vec<Page>,
        mut glyphs: Vec<Glyph>,
        mut kerning: Vec<Kerning>,
    ) -> Result<Self, BmError> {
        if metrics.size == 0 {
            return Err(BmError::at(
                metrics.size_place,
                "info size is 0; the font's size in texels is what its metrics are measured against",
            ));
        }
        if pages.is_empty() {
            return Err(BmError::whole("the font has no page records"));
        }
        for glyph in &glyphs {
            check_glyph(glyph, pages.len())?;
        }
        glyphs.sort_by_key(|g| g.id);
        if let Some(pair) = glyphs.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(BmError::at(
                pair[1].place,
                format!(
                    "char id={} is given twice (also at {})",
                    shown_id(pair[1].id),
                    pair[0].place
                ),
            ));
        }
        kerning.sort_by_key(|k| (k.first, k.second));
        if let Some(pair) = kerning
            .windows(2)
            .find(|w| (w[0].first, w[0].second) == (w[1].first, w[1].second))
        {
            return Err(BmError::at(
                pair[1].place,
                format!(
                    "kerning first={} second={} is given twice (also at {})",
                    pair[1].first, pair[1].second, pair[0].place
                ),
            ));
        }
        Ok(BmFont {
            metrics,
            pages,
            glyphs,
            kerning,
        })
    }
}

/// How an id is written back in a message: the fallback glyph as `-1`.
fn shown_id(id: u32) -> String {
    if id == 0 {
        "-1 (or 0)".into()
    } else {
        id.to_string()
    }
}

/// One glyph's own rules: a Unicode scalar codepoint and an existing page.
fn check_glyph(glyph: &Glyph, pages: usize) -> Result<(), BmError> {
    if char::from_u32(glyph.id).is_none() {
        return Err(BmError::at(
            glyph.place,
            format!(
                "char id={} is not a Unicode scalar value (a codepoint up to 0x10FFFF, not a surrogate)",
                glyph.id
            ),
        ));
    }
    if glyph.page as usize >= pages {
        return Err(BmError::at(
            glyph.place,
            format!(
                "char id={} is on page {}, but the font has {pages} page(s)",
                glyph.id, glyph.page
            ),
        ));
    }
    Ok(())
}

/// The id BMFont gives its fallback glyph (`id=-1` in text, `0xFFFFFFFF`
/// in binary); it and id 0 become the `.hfont`'s `.notdef`.
pub const FALLBACK_ID: u32 = u32::MAX;

/// A glyph id as stored: BMFont's fallback id becomes 0.
pub fn glyph_id(raw: u32) -> u32 {
    if raw == FALLBACK_ID { 0 } else { raw }
}

/// Collects page records that may come in any order into a list by index,
/// refusing gaps, repeats and indices past [`MAX_PAGES`].
#[derive(Debug, Default)]
pub struct PageList {
    pages: BTreeMap<u32, Page>,
}

impl PageList {
    /// Adds page `id`.
    pub fn add(&mut self, id: u32, page: Page) -> Result<(), BmError> {
        if id >= MAX_PAGES {
            return Err(BmError::at(
                page.place,
                format!("page id={id} is out of range; a font has at most {MAX_PAGES} pages"),
            ));
        }
        if let Some(earlier) = self.pages.get(&id) {
            return Err(BmError::at(
                page.place,
                format!("page id={id} is given twice (also at {})", earlier.place),
            ));
        }
        self.pages.insert(id, page);
        Ok(())
    }

    /// The pages in index order; `declared` is the `common pages` count.
    pub fn finish(self, declared: u32, common: Place) -> Result<Vec<Page>, BmError> {
        let count = self.pages.len();
        if declared as usize != count {
            return Err(BmError::at(
                common,
                format!("common pages={declared}, but the file has {count} page record(s)"),
            ));
        }
        self.pages
            .into_iter()
            .enumerate()
            .map(|(index, (id, page))| {
                if id as usize == index {
                    Ok(page)
                } else {
                    Err(BmError::at(
                        page.place,
                        format!("page id={id} leaves page {index} undefined"),
                    ))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Metrics {
        Metrics {
            size: -8,
            line_height: 10,
            base: 8,
            scale: (16, 16),
            packed: false,
            contents: [ChannelContent::Glyph; 4],
            size_place: Place::Line(1),
        }
    }

    fn glyph(id: u32, page: u32, line: usize) -> Glyph {
        Glyph {
            id,
            x: 0,
            y: 0,
            width: 1,
            height: 1,
            xoffset: 0,
            yoffset: 0,
            xadvance: 1,
            page,
            channels: Channels::All,
            place: Place::Line(line),
        }
    }

    fn page() -> Vec<Page> {
        vec![Page {
            file: "p.png".into(),
            place: Place::Line(3),
        }]
    }

    #[test]
    fn sorts_glyphs_and_kerning() {
        let kerning = |first, second, line| Kerning {
            first,
            second,
            amount: -1,
            place: Place::Line(line),
        };
        let font = BmFont::new(
            metrics(),
            page(),
            vec![glyph(66, 0, 5), glyph(65, 0, 4)],
            vec![kerning(66, 65, 7), kerning(65, 66, 6)],
        )
        .unwrap();
        let ids: Vec<u32> = font.glyphs.iter().map(|g| g.id).collect();
        assert_eq!(ids, [65, 66]);
        assert_eq!((font.kerning[0].first, font.kerning[0].second), (65, 66));
    }

    #[test]
    fn refuses_repeats_bad_codepoints_and_missing_pages() {
        let err = BmFont::new(
            metrics(),
            page(),
            vec![glyph(65, 0, 4), glyph(65, 0, 9)],
            vec![],
        );
        assert_eq!(
            err.unwrap_err().to_string(),
            "line 9: char id=65 is given twice (also at line 4)"
        );
        let err = BmFont::new(metrics(), page(), vec![glyph(0xD800, 0, 4)], vec![]);
        assert!(
            err.unwrap_err()
                .to_string()
                .starts_with("line 4: char id=55296 is not")
        );
        let err = BmFont::new(metrics(), page(), vec![glyph(65, 1, 4)], vec![]);
        assert_eq!(
            err.unwrap_err().to_string(),
            "line 4: char id=65 is on page 1, but the font has 1 page(s)"
        );
        let zero = Metrics {
            size: 0,
            ..metrics()
        };
        let err = BmFont::new(zero, page(), vec![], vec![]);
        assert!(
            err.unwrap_err()
                .to_string()
                .starts_with("line 1: info size is 0")
        );
    }

    #[test]
    fn page_lists_need_every_index_once() {
        let at = |line| Page {
            file: "p.png".into(),
            place: Place::Line(line),
        };
        let mut list = PageList::default();
        list.add(1, at(2)).unwrap();
        list.add(0, at(3)).unwrap();
        assert_eq!(list.add(1, at(4)).unwrap_err().place, Some(Place::Line(4)));
        let pages = list.finish(2, Place::Line(1)).unwrap();
        assert_eq!(pages[0].place, Place::Line(3));
        let mut gap = PageList::default();
        gap.add(1, at(2)).unwrap();
        let err = gap.finish(1, Place::Line(1)).unwrap_err();
        assert_eq!(err.to_string(), "line 2: page id=1 leaves page 0 undefined");
        let mut far = PageList::default();
        assert!(far.add(MAX_PAGES, at(2)).is_err());
        let err = PageList::default().finish(3, Place::Line(1)).unwrap_err();
        assert!(err.to_string().contains("common pages=3"), "{err}");
    }

    #[test]
    fn channels_follow_chnl() {
        assert_eq!(Channels::from_chnl(15), Some(Channels::All));
        assert_eq!(Channels::from_chnl(0), Some(Channels::All));
        assert_eq!(Channels::from_chnl(8), Some(Channels::One(3)));
        assert_eq!(Channels::from_chnl(1), Some(Channels::One(2)));
        assert_eq!(Channels::from_chnl(3), None);
        assert_eq!(ChannelContent::from_value(4), Some(ChannelContent::One));
        assert_eq!(ChannelContent::from_value(5), None);
        assert_eq!(glyph_id(FALLBACK_ID), 0);
    }
}
