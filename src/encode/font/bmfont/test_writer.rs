//! Writes a [`BmFont`] in each of the three encodings, for the tests: the
//! same font as text, XML and binary must read back the same.

use super::model::{BmFont, ChannelContent, Channels, FALLBACK_ID, Glyph};

/// The `chnl` value of a glyph's channels.
fn chnl(channels: Channels) -> u32 {
    match channels {
        Channels::All => 15,
        Channels::One(channel) => [4, 2, 1, 8][channel],
    }
}

/// The `*Chnl` value of a channel content.
fn content(value: ChannelContent) -> u32 {
    match value {
        ChannelContent::Glyph => 0,
        ChannelContent::Zero => 3,
        ChannelContent::One => 4,
    }
}

/// The `common` attributes, in the order BMFont writes them.
fn common(font: &BmFont) -> Vec<(&'static str, String)> {
    let m = &font.metrics;
    let [r, g, b, a] = m.contents.map(content);
    vec![
        ("lineHeight", m.line_height.to_string()),
        ("base", m.base.to_string()),
        ("scaleW", m.scale.0.to_string()),
        ("scaleH", m.scale.1.to_string()),
        ("pages", font.pages.len().to_string()),
        ("packed", u32::from(m.packed).to_string()),
        ("alphaChnl", a.to_string()),
        ("redChnl", r.to_string()),
        ("greenChnl", g.to_string()),
        ("blueChnl", b.to_string()),
    ]
}

/// A glyph's attributes; the fallback glyph is written as BMFont does,
/// `id=-1`.
fn glyph(g: &Glyph) -> Vec<(&'static str, String)> {
    let id = if g.id == 0 {
        "-1".into()
    } else {
        g.id.to_string()
    };
    vec![
        ("id", id),
        ("x", g.x.to_string()),
        ("y", g.y.to_string()),
        ("width", g.width.to_string()),
        ("height", g.height.to_string()),
        ("xoffset", g.xoffset.to_string()),
        ("yoffset", g.yoffset.to_string()),
        ("xadvance", g.xadvance.to_string()),
        ("page", g.page.to_string()),
        ("chnl", chnl(g.channels).to_string()),
    ]
}

/// Every record as a tag, its attributes and whether XML nests it in a
/// container (`pages`, `chars`, `kernings`).
fn records(font: &BmFont) -> Vec<(&'static str, Vec<(&'static str, String)>)> {
    let info = vec![
        ("face", "\"Pix\"".to_string()),
        ("size", font.metrics.size.to_string()),
        ("unicode", "1".to_string()),
    ];
    let mut out = vec![("info", info), ("common", common(font))];
    for (id, page) in font.pages.iter().enumerate() {
        let attrs = vec![
            ("id", id.to_string()),
            ("file", format!("\"{}\"", page.file)),
        ];
        out.push(("page", attrs));
    }
    out.push(("chars", vec![("count", font.glyphs.len().to_string())]));
    out.extend(font.glyphs.iter().map(|g| ("char", glyph(g))));
    out.push(("kernings", vec![("count", font.kerning.len().to_string())]));
    for k in &font.kerning {
        let attrs = vec![
            ("first", k.first.to_string()),
            ("second", k.second.to_string()),
            ("amount", k.amount.to_string()),
        ];
        out.push(("kerning", attrs));
    }
    out
}

/// The text encoding.
pub fn to_text(font: &BmFont) -> String {
    let mut text = String::new();
    for (tag, attributes) in records(font) {
        text.push_str(tag);
        for (key, value) in attributes {
            text.push_str(&format!(" {key}={value}"));
        }
        text.push('\n');
    }
    text
}

/// The XML encoding.
pub fn to_xml(font: &BmFont) -> String {
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<font>\n");
    let mut open: Option<&str> = None;
    for (tag, attributes) in records(font) {
        let container = match tag {
            "page" => Some("pages"),
            "char" => Some("chars"),
            "kerning" => Some("kernings"),
            _ => None,
        };
        if open.is_some() && open != container {
            xml.push_str(&format!("  </{}>\n", open.take().unwrap_or_default()));
        }
        let quoted: String = attributes
            .iter()
            .map(|(k, v)| format!(" {k}=\"{}\"", v.trim_matches('"')))
            .collect();
        match tag {
            "chars" | "kernings" => {
                xml.push_str(&format!("  <{tag}{quoted}>\n"));
                open = Some(tag);
            }
            _ if container.is_some() => {
                if open.is_none() {
                    xml.push_str("  <pages>\n");
                    open = container;
                }
                xml.push_str(&format!("    <{tag}{quoted} />\n"));
            }
            _ => xml.push_str(&format!("  <{tag}{quoted} />\n")),
        }
    }
    if let Some(tag) = open {
        xml.push_str(&format!("  </{tag}>\n"));
    }
    xml.push_str("</font>\n");
    xml
}

/// The binary encoding, version 3.
pub fn to_binary(font: &BmFont) -> Vec<u8> {
    let m = &font.metrics;
    let mut out = b"BMF\x03".to_vec();
    let mut info = (m.size as i16).to_le_bytes().to_vec();
    info.extend_from_slice(&[0x02, 0, 100, 0, 1, 0, 0, 0, 0, 1, 1, 0]);
    info.extend_from_slice(b"Pix\0");
    block(&mut out, 1, &info);
    let mut common = Vec::new();
    for value in [m.line_height, m.base, m.scale.0, m.scale.1] {
        common.extend_from_slice(&(value as u16).to_le_bytes());
    }
    common.extend_from_slice(&(font.pages.len() as u16).to_le_bytes());
    common.push(if m.packed { 0x80 } else { 0 });
    let [r, g, b, a] = m.contents.map(content);
    common.extend_from_slice(&[a as u8, r as u8, g as u8, b as u8]);
    block(&mut out, 2, &common);
    let pages: Vec<u8> = font
        .pages
        .iter()
        .flat_map(|p| p.file.bytes().chain([0]))
        .collect();
    block(&mut out, 3, &pages);
    let mut chars = Vec::new();
    for g in &font.glyphs {
        let id = if g.id == 0 { FALLBACK_ID } else { g.id };
        chars.extend_from_slice(&id.to_le_bytes());
        for value in [g.x, g.y, g.width, g.height] {
            chars.extend_from_slice(&(value as u16).to_le_bytes());
        }
        for value in [g.xoffset, g.yoffset, g.xadvance] {
            chars.extend_from_slice(&(value as i16).to_le_bytes());
        }
        chars.extend_from_slice(&[g.page as u8, chnl(g.channels) as u8]);
    }
    block(&mut out, 4, &chars);
    if !font.kerning.is_empty() {
        let mut pairs = Vec::new();
        for k in &font.kerning {
            pairs.extend_from_slice(&k.first.to_le_bytes());
            pairs.extend_from_slice(&k.second.to_le_bytes());
            pairs.extend_from_slice(&(k.amount as i16).to_le_bytes());
        }
        block(&mut out, 5, &pairs);
    }
    out
}

/// Appends one block.
fn block(out: &mut Vec<u8>, kind: u8, body: &[u8]) {
    out.push(kind);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}
