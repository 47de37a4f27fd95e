//! Sprite atlases (`.hatlas`): the table and its pages, for the page's view
//! of every page with each sprite's outline and name.

use serde_json::{Value, json};

use super::material::Ids;
use super::texture::image_url;
use crate::encode::texture::readback::ImageIndex;
use crate::format::hash::hex_id;
use crate::format::hatlas::{ATLAS_ANIMATION, ATLAS_NEAREST, HAtlas};

/// The page's view of a sprite table, its pages resolved through the
/// manifest (one image URL per page: the layers of the texture array).
pub fn atlas_json(path: &str, atlas: &HAtlas<'_>, ids: &Ids) -> Value {
    let header = atlas.header();
    let pages_path = ids.get(&header.atlas_tex);
    let pages: Vec<Value> = (0..header.page_count)
        .map(|layer| {
            let at = ImageIndex {
                layer,
                ..ImageIndex::default()
            };
            json!(pages_path.map(|p| image_url(p, at)))
        })
        .collect();
    let sprites: Vec<Value> = atlas
        .sprites()
        .iter()
        .map(|s| {
            json!({
                "name": atlas.name(s),
                "page": s.page,
                "rect": [s.x, s.y, s.w, s.h],
                "rotated": s.is_rotated(),
                "trim": [s.trim_x, s.trim_y],
                "source": [s.source_w, s.source_h],
                "pivot": [s.pivot_x, s.pivot_y],
                "duration_ms": s.duration_ms,
            })
        })
        .collect();
    json!({
        "path": path,
        "page_width": header.page_width,
        "page_height": header.page_height,
        "nearest": header.flags & ATLAS_NEAREST != 0,
        "animation": header.flags & ATLAS_ANIMATION != 0,
        "texture": { "id": hex_id(header.atlas_tex), "path": pages_path },
        "pages": pages,
        "sprites": sprites,
    })
}
