//! The XML encoding: `<font>` holding `<info/>`, `<common/>`,
//! `<pages><page/></pages>`, `<chars><char/></chars>` and
//! `<kernings><kerning/></kernings>`, the same attributes as the text
//! encoding.
//!
//! roxmltree parses the document (UTF-8 only; a DTD is refused, so entity
//! expansion cannot blow up); every element becomes a [`Record`] at the line
//! it starts on.

use super::model::{BmError, BmFont, Place};
use super::records::{Builder, Record};

/// Parses an XML `.fnt`.
pub fn parse(bytes: &[u8]) -> Result<BmFont, BmError> {
    let lines = LineStarts::of(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        BmError::at(
            lines.place(e.valid_up_to()),
            format!("byte {} is not UTF-8", e.valid_up_to()),
        )
    })?;
    let document = roxmltree::Document::parse(text).map_err(|e| {
        BmError::at(
            Place::Line(e.pos().row as usize),
            format!("not well-formed XML: {e}"),
        )
    })?;
    let root = document.root_element();
    if root.tag_name().name() != "font" {
        return Err(BmError::at(
            lines.place(root.range().start),
            format!(
                "the root element is <{}>, not the <font> of a BMFont file",
                root.tag_name().name()
            ),
        ));
    }
    let mut builder = Builder::default();
    for element in root.descendants().filter(|node| node.is_element()) {
        let record = Record {
            tag: element.tag_name().name(),
            place: lines.place(element.range().start),
            attributes: element
                .attributes()
                .map(|attribute| (attribute.name(), attribute.value()))
                .collect(),
        };
        builder.add(&record)?;
    }
    builder.finish()
}

/// The byte offset of every line's start, to turn offsets into lines.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(bytes: &[u8]) -> Self {
        let breaks = bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(at, _)| at + 1);
        LineStarts(std::iter::once(0).chain(breaks).collect())
    }

    /// The line holding byte `offset`.
    fn place(&self, offset: usize) -> Place {
        Place::Line(self.0.partition_point(|&start| start <= offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FONT: &str = r#"<?xml version="1.0"?>
<font>
  <info face="Pix" size="-8"/>
  <common lineHeight="10" base="8" scaleW="16" scaleH="16" pages="1" packed="0"/>
  <pages>
    <page id="0" file="p.png" />
  </pages>
  <chars count="1">
    <char id="65" x="0" y="0" width="2" height="3" xoffset="0" yoffset="1" xadvance="3" page="0" chnl="15" />
  </chars>
</font>
"#;

    #[test]
    fn reads_elements_as_records() {
        let font = parse(FONT.as_bytes()).unwrap();
        assert_eq!(font.glyphs[0].id, 65);
        assert_eq!(font.glyphs[0].place, Place::Line(9));
        assert_eq!(font.pages[0].place, Place::Line(6));
    }

    #[test]
    fn errors_name_the_line() {
        let broken = FONT.replace("<chars count=\"1\">", "<chars count=\"1\"");
        let err = parse(broken.as_bytes()).unwrap_err();
        assert!(
            err.to_string().starts_with("line 9: not well-formed XML"),
            "{err}"
        );
        let bad = FONT.replace("x=\"0\"", "x=\"-4\"");
        let err = parse(bad.as_bytes()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("line 9: char x=-4 is out of range"),
            "{err}"
        );
        let mut bytes = FONT.as_bytes().to_vec();
        bytes[40] = 0xC3;
        let err = parse(&bytes).unwrap_err();
        assert_eq!(err.place, Some(Place::Line(3)), "{err}");
        let other = parse(b"<svg/>").unwrap_err();
        assert!(other.to_string().contains("not the <font>"), "{other}");
    }

    #[test]
    fn refuses_a_dtd() {
        let bomb = format!(
            "<?xml version=\"1.0\"?><!DOCTYPE font [<!ENTITY a \"aaaa\">]>{}",
            &FONT[22..]
        );
        assert!(parse(bomb.as_bytes()).is_err());
    }
}
