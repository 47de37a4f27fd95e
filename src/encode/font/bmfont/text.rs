//! The text encoding: one record per line, `tag key=value key="quoted
//! value" …`.
//!
//! A value in quotes runs to the next quote (BMFont has no escapes); any
//! other value runs to the next space or tab. The file must be UTF-8 (an
//! optional byte-order mark is skipped); lines may end in CR LF.

use super::model::{BmError, BmFont, Place};
use super::records::{Builder, Record};

/// Parses a text `.fnt`.
pub fn parse(bytes: &[u8]) -> Result<BmFont, BmError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut builder = Builder::default();
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let place = Place::Line(index + 1);
        let line = std::str::from_utf8(raw).map_err(|e| {
            BmError::at(
                place,
                format!("byte {} of the line is not UTF-8", e.valid_up_to() + 1),
            )
        })?;
        if let Some(record) = record(line.trim_end_matches('\r'), place)? {
            builder.add(&record)?;
        }
    }
    builder.finish()
}

/// The record on one line; `None` for a blank line.
fn record(line: &str, place: Place) -> Result<Option<Record<'_>>, BmError> {
    let mut rest = line.trim_start_matches(is_space);
    if rest.is_empty() {
        return Ok(None);
    }
    let tag_end = rest.find(is_space).unwrap_or(rest.len());
    let tag = &rest[..tag_end];
    rest = rest[tag_end..].trim_start_matches(is_space);
    let mut attributes = Vec::new();
    while !rest.is_empty() {
        let (pair, after) = attribute(rest, tag, place)?;
        attributes.push(pair);
        rest = after.trim_start_matches(is_space);
    }
    Ok(Some(Record {
        tag,
        place,
        attributes,
    }))
}

/// The `key=value` at the start of `text`, and what follows it.
fn attribute<'a>(
    text: &'a str,
    tag: &str,
    place: Place,
) -> Result<((&'a str, &'a str), &'a str), BmError> {
    let word_end = text.find(is_space).unwrap_or(text.len());
    let equals = text[..word_end].find('=').ok_or_else(|| {
        BmError::at(
            place,
            format!("{tag}: \"{}\" is not a key=value pair", &text[..word_end]),
        )
    })?;
    let key = &text[..equals];
    let value_start = &text[equals + 1..];
    if let Some(quoted) = value_start.strip_prefix('"') {
        let end = quoted.find('"').ok_or_else(|| {
            BmError::at(
                place,
                format!("{tag} {key}: the quoted value has no closing quote"),
            )
        })?;
        return Ok(((key, &quoted[..end]), &quoted[end + 1..]));
    }
    let end = value_start.find(is_space).unwrap_or(value_start.len());
    Ok(((key, &value_start[..end]), &value_start[end..]))
}

/// The separators between words.
fn is_space(c: char) -> bool {
    c == ' ' || c == '\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_a_line_into_a_record() {
        let line = "page id=0 file=\"my page.png\"  extra=a,b\t";
        let page = record(line, Place::Line(3)).unwrap().unwrap();
        assert_eq!(page.tag, "page");
        assert_eq!(
            page.attributes,
            [("id", "0"), ("file", "my page.png"), ("extra", "a,b")]
        );
        assert_eq!(record("   ", Place::Line(1)).unwrap(), None);
        let empty = record("info face=\"\" size=8", Place::Line(1))
            .unwrap()
            .unwrap();
        assert_eq!(empty.attributes[0], ("face", ""));
    }

    #[test]
    fn names_the_line_of_a_malformed_record() {
        let err = record("char id=1 x", Place::Line(7)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 7: char: \"x\" is not a key=value pair"
        );
        let err = record("page file=\"a.png", Place::Line(2)).unwrap_err();
        assert!(err.to_string().contains("no closing quote"), "{err}");
    }

    #[test]
    fn refuses_invalid_utf8_naming_the_line() {
        let err = parse(b"info size=8\ncommon lineHeight=\xff").unwrap_err();
        assert_eq!(err.to_string(), "line 2: byte 19 of the line is not UTF-8");
    }
}
