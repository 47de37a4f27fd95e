//! The tag-and-attributes records the text and XML encodings share
//! (`char id=65 x=3 …` is `<char id="65" x="3" … />`), and the builder
//! that turns them into a [`BmFont`].
//!
//! Tags and attributes the compiler does not use are skipped, so files from
//! exporters that add their own (`distanceField`, `lineHeight` in `info`)
//! still read. The `count` of `chars` and `kernings` is checked against the
//! records that follow, which catches a truncated file; it is never used to
//! reserve memory.

use super::model::{
    BmError, BmFont, ChannelContent, Channels, Glyph, Kerning, Metrics, Page, PageList, Place,
    glyph_id,
};

/// One `tag key=value …` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// The tag (`info`, `common`, `page`, `chars`, `char`, `kernings`,
    /// `kerning`, or one the compiler skips).
    pub tag: &'a str,
    /// Where it is.
    pub place: Place,
    /// Its attributes in file order.
    pub attributes: Vec<(&'a str, &'a str)>,
}

impl Record<'_> {
    /// The value of `key`, if given.
    fn get(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, v)| v)
    }

    /// The whole number `key` holds, within `min..=max`.
    fn number(&self, key: &str, min: i64, max: i64) -> Result<i64, BmError> {
        let raw = self
            .get(key)
            .ok_or_else(|| BmError::at(self.place, format!("{} has no {key}", self.tag)))?;
        let value: i64 = raw.trim().parse().map_err(|_| {
            BmError::at(
                self.place,
                format!("{} {key}=\"{raw}\" is not a whole number", self.tag),
            )
        })?;
        if !(min..=max).contains(&value) {
            return Err(BmError::at(
                self.place,
                format!(
                    "{} {key}={value} is out of range ({min} to {max})",
                    self.tag
                ),
            ));
        }
        Ok(value)
    }

    /// [`number`](Self::number), or `default` when `key` is absent.
    fn number_or(&self, key: &str, min: i64, max: i64, default: i64) -> Result<i64, BmError> {
        match self.get(key) {
            Some(_) => self.number(key, min, max),
            None => Ok(default),
        }
    }

    /// A `u32` field (sizes, positions).
    fn unsigned(&self, key: &str) -> Result<u32, BmError> {
        self.number(key, 0, i64::from(u32::MAX)).map(|v| v as u32)
    }

    /// An `i32` field (offsets, advances, amounts).
    fn signed(&self, key: &str) -> Result<i32, BmError> {
        self.number(key, i64::from(i32::MIN), i64::from(i32::MAX))
            .map(|v| v as i32)
    }

    /// A codepoint: `-1` is BMFont's fallback glyph.
    fn id(&self, key: &str) -> Result<u32, BmError> {
        let raw = self.number(key, -1, i64::from(u32::MAX))?;
        Ok(glyph_id(if raw == -1 { u32::MAX } else { raw as u32 }))
    }
}

/// Builds a [`BmFont`] from records in file order.
#[derive(Debug, Default)]
pub struct Builder {
    size: Option<(i32, Place)>,
    common: Option<(Common, Place)>,
    pages: PageList,
    glyphs: Vec<Glyph>,
    kerning: Vec<Kerning>,
    counts: Vec<(&'static str, u32, Place)>,
}

/// The `common` record's values.
#[derive(Debug, Clone, Copy)]
struct Common {
    line_height: u32,
    base: u32,
    scale: (u32, u32),
    pages: u32,
    packed: bool,
    contents: [ChannelContent; 4],
}

impl Builder {
    /// Takes one record.
    pub fn add(&mut self, record: &Record) -> Result<(), BmError> {
        match record.tag {
            "info" => self.info(record),
            "common" => self.common(record),
            "page" => self.page(record),
            "char" => self.glyph(record),
            "kerning" => self.kerning(record),
            "chars" => self.count(record, "chars"),
            "kernings" => self.count(record, "kernings"),
            _ => Ok(()),
        }
    }

    fn info(&mut self, record: &Record) -> Result<(), BmError> {
        once(&self.size, record)?;
        let size = record.number("size", -32768, 32767)? as i32;
        self.size = Some((size, record.place));
        Ok(())
    }

    fn common(&mut self, record: &Record) -> Result<(), BmError> {
        once(&self.common, record)?;
        let contents = ["redChnl", "greenChnl", "blueChnl", "alphaChnl"].map(|key| {
            let value = record.number_or(key, 0, 4, 0)?;
            Ok::<_, BmError>(ChannelContent::from_value(value as u32).unwrap_or_default())
        });
        let [r, g, b, a] = contents;
        let common = Common {
            line_height: record.unsigned("lineHeight")?,
            base: record.unsigned("base")?,
            scale: (record.unsigned("scaleW")?, record.unsigned("scaleH")?),
            pages: record.unsigned("pages")?,
            packed: record.number_or("packed", 0, 1, 0)? == 1,
            contents: [r?, g?, b?, a?],
        };
        self.common = Some((common, record.place));
        Ok(())
    }

    fn page(&mut self, record: &Record) -> Result<(), BmError> {
        let id = record.unsigned("id")?;
        let file = record
            .get("file")
            .ok_or_else(|| BmError::at(record.place, "page has no file"))?;
        let page = Page {
            file: file.to_owned(),
            place: record.place,
        };
        self.pages.add(id, page)
    }

    fn glyph(&mut self, record: &Record) -> Result<(), BmError> {
        let chnl = record.number_or("chnl", 0, 15, 15)? as u32;
        let channels = Channels::from_chnl(chnl).ok_or_else(|| {
            BmError::at(
                record.place,
                format!("char chnl={chnl} names two or three channels; only one channel (1, 2, 4, 8) or all (15) is supported"),
            )
        })?;
        self.glyphs.push(Glyph {
            id: record.id("id")?,
            x: record.unsigned("x")?,
            y: record.unsigned("y")?,
            width: record.unsigned("width")?,
            height: record.unsigned("height")?,
            xoffset: record.signed("xoffset")?,
            yoffset: record.signed("yoffset")?,
            xadvance: record.signed("xadvance")?,
            page: record.number_or("page", 0, i64::from(u32::MAX), 0)? as u32,
            channels,
            place: record.place,
        });
        Ok(())
    }

    fn kerning(&mut self, record: &Record) -> Result<(), BmError> {
        self.kerning.push(Kerning {
            first: record.id("first")?,
            second: record.id("second")?,
            amount: record.signed("amount")?,
            place: record.place,
        });
        Ok(())
    }

    fn count(&mut self, record: &Record, tag: &'static str) -> Result<(), BmError> {
        if let Some(count) = record.get("count") {
            let parsed = count.trim().parse().map_err(|_| {
                BmError::at(
                    record.place,
                    format!("{tag} count=\"{count}\" is not a whole number"),
                )
            })?;
            self.counts.push((tag, parsed, record.place));
        }
        Ok(())
    }

    /// The font the records describe.
    pub fn finish(self) -> Result<BmFont, BmError> {
        let (size, size_place) = self
            .size
            .ok_or_else(|| BmError::whole("the file has no info record"))?;
        let (common, common_place) = self
            .common
            .ok_or_else(|| BmError::whole("the file has no common record"))?;
        self.check_counts()?;
        let metrics = Metrics {
            size,
            line_height: common.line_height,
            base: common.base,
            scale: common.scale,
            packed: common.packed,
            contents: common.contents,
            size_place,
        };
        let pages = self.pages.finish(common.pages, common_place)?;
        BmFont::new(metrics, pages, self.glyphs, self.kerning)
    }

    /// Every `count` equals the records of its kind.
    fn check_counts(&self) -> Result<(), BmError> {
        for &(tag, declared, place) in &self.counts {
            let (found, kind) = match tag {
                "chars" => (self.glyphs.len(), "char"),
                _ => (self.kerning.len(), "kerning"),
            };
            if declared as usize != found {
                return Err(BmError::at(
                    place,
                    format!(
                        "{tag} count={declared}, but the file has {found} {kind} record(s) (is it cut short?)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Refuses a second `info` or `common` record.
fn once<T>(earlier: &Option<(T, Place)>, record: &Record) -> Result<(), BmError> {
    match earlier {
        Some((_, place)) => Err(BmError::at(
            record.place,
            format!("a second {} record (the first is at {place})", record.tag),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(tag: &'a str, line: usize, attributes: &[(&'a str, &'a str)]) -> Record<'a> {
        Record {
            tag,
            place: Place::Line(line),
            attributes: attributes.to_vec(),
        }
    }

    fn base() -> Vec<Record<'static>> {
        vec![
            record("info", 1, &[("face", "Pix"), ("size", "-8")]),
            record(
                "common",
                2,
                &[
                    ("lineHeight", "10"),
                    ("base", "8"),
                    ("scaleW", "16"),
                    ("scaleH", "16"),
                    ("pages", "1"),
                ],
            ),
            record("page", 3, &[("id", "0"), ("file", "p.png")]),
        ]
    }

    fn build(records: &[Record]) -> Result<BmFont, BmError> {
        let mut builder = Builder::default();
        for record in records {
            builder.add(record)?;
        }
        builder.finish()
    }

    fn glyph(id: &'static str, line: usize) -> Record<'static> {
        record(
            "char",
            line,
            &[
                ("id", id),
                ("x", "1"),
                ("y", "2"),
                ("width", "3"),
                ("height", "4"),
                ("xoffset", "-1"),
                ("yoffset", "2"),
                ("xadvance", "5"),
                ("page", "0"),
                ("chnl", "15"),
            ],
        )
    }

    #[test]
    fn builds_a_font_and_skips_unknown_tags() {
        let mut records = base();
        records.push(record("chars", 4, &[("count", "2")]));
        records.push(glyph("66", 5));
        records.push(glyph("-1", 6));
        records.push(record("distanceField", 7, &[("fieldType", "sdf")]));
        records.push(record(
            "kerning",
            8,
            &[("first", "66"), ("second", "66"), ("amount", "-1")],
        ));
        let font = build(&records).unwrap();
        assert_eq!(font.metrics.size, -8);
        assert_eq!(font.metrics.scale, (16, 16));
        assert_eq!(font.glyphs[0].id, 0);
        assert_eq!(font.glyphs[1].xoffset, -1);
        assert_eq!(font.kerning[0].amount, -1);
        assert_eq!(font.pages[0].file, "p.png");
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let mut records = base();
        let mut bad = glyph("65", 4);
        bad.attributes[1] = ("x", "ten");
        records.push(bad);
        assert_eq!(
            build(&records).unwrap_err().to_string(),
            "line 4: char x=\"ten\" is not a whole number"
        );
        let mut records = base();
        records.push(record("char", 5, &[("id", "65")]));
        assert_eq!(
            build(&records).unwrap_err().to_string(),
            "line 5: char has no x"
        );
        let mut records = base();
        let mut far = glyph("65", 6);
        far.attributes[3] = ("width", "99999999999");
        records.push(far);
        assert!(
            build(&records)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
        let mut records = base();
        records.push(record("info", 7, &[("size", "8")]));
        assert_eq!(
            build(&records).unwrap_err().to_string(),
            "line 7: a second info record (the first is at line 1)"
        );
    }

    #[test]
    fn counts_must_match_the_records() {
        let mut records = base();
        records.push(record("chars", 4, &[("count", "4294967295")]));
        records.push(glyph("65", 5));
        let err = build(&records).unwrap_err().to_string();
        assert!(
            err.starts_with("line 4: chars count=4294967295, but the file has 1 char"),
            "{err}"
        );
        let mut records = base();
        records.push(record("kernings", 4, &[("count", "1")]));
        assert!(build(&records).is_err());
    }

    #[test]
    fn refuses_partial_channel_sets_and_missing_blocks() {
        let mut records = base();
        let mut two = glyph("65", 4);
        two.attributes[9] = ("chnl", "3");
        records.push(two);
        assert!(build(&records).unwrap_err().to_string().contains("chnl=3"));
        assert_eq!(
            build(&base()[1..]).unwrap_err().to_string(),
            "the file has no info record"
        );
    }
}
