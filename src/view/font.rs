//! Fonts (`.hfont`): metrics, glyph table and kerning for the page's atlas
//! view and text preview.

use serde_json::{Value, json};

use super::material::Ids;
use super::texture::image_url;
use crate::encode::texture::readback::ImageIndex;
use crate::format::hash::hex_id;
use crate::format::hfont::{FLAG_BITMAP, FLAG_MSDF, HFont};

/// The page's view of a font, its atlas resolved through the manifest.
pub fn font_json(path: &str, font: &HFont<'_>, ids: &Ids) -> Value {
    let header = font.header();
    let atlas_id = font.atlas_tex();
    let atlas_path = ids.get(&atlas_id);
    let glyphs: Vec<Value> = font
        .glyphs()
        .iter()
        .map(|g| {
            json!({
                "codepoint": g.codepoint,
                "advance": g.advance,
                "plane": [g.plane_left, g.plane_bottom, g.plane_right, g.plane_top],
                "uv": [g.uv_left, g.uv_top, g.uv_right, g.uv_bottom],
            })
        })
        .collect();
    let kerning: Vec<Value> = font
        .kerning_pairs()
        .iter()
        .map(|k| json!([k.left, k.right, k.advance]))
        .collect();
    json!({
        "path": path,
        "ascent": header.ascent,
        "descent": header.descent,
        "line_gap": header.line_gap,
        "line_advance": font.line_advance(),
        "distance_range": header.distance_range,
        "edge_value": header.edge_value,
        "atlas_width": header.atlas_width,
        "atlas_height": header.atlas_height,
        "msdf": header.flags & FLAG_MSDF != 0,
        "bitmap": header.flags & FLAG_BITMAP != 0,
        "atlas": {
            "id": hex_id(atlas_id),
            "path": atlas_path,
            "image_url": atlas_path.map(|p| image_url(p, ImageIndex::default())),
        },
        "glyphs": glyphs,
        "kerning": kerning,
    })
}
