//! Material rows (`.hmat`) as the page shows them, texture ids resolved to
//! the paths the manifest gives them.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::format::hash::hex_id;
use crate::format::hmat::{AlphaMode, GpuMaterial};

/// Asset ids to runtime paths, from the output's `assets.hman`.
pub type Ids = HashMap<u64, String>;

/// The page's view of material rows.
pub fn rows_json(rows: &[GpuMaterial], ids: &Ids) -> Value {
    Value::Array(rows.iter().map(|row| row_json(row, ids)).collect())
}

/// One row.
fn row_json(row: &GpuMaterial, ids: &Ids) -> Value {
    let alpha = match row.alpha_mode() {
        Some(AlphaMode::Opaque) => "opaque",
        Some(AlphaMode::Mask) => "mask",
        Some(AlphaMode::Blend) => "blend",
        None => "unknown",
    };
    json!({
        "base_color_factor": row.base_color_factor,
        "emissive_factor": row.emissive_factor,
        "metallic_factor": row.metallic_factor,
        "roughness_factor": row.roughness_factor,
        "normal_scale": row.normal_scale,
        "occlusion_strength": row.occlusion_strength,
        "alpha_mode": alpha,
        "alpha_cutoff": row.alpha_cutoff,
        "double_sided": row.double_sided(),
        "textures": {
            "base_color": texture_ref(row.base_color_texture, ids),
            "metallic_roughness": texture_ref(row.metallic_roughness_texture, ids),
            "normal": texture_ref(row.normal_texture, ids),
            "occlusion": texture_ref(row.occlusion_texture, ids),
            "emissive": texture_ref(row.emissive_texture, ids),
        },
    })
}

/// A texture slot: `null` when unused (id 0), else the id and, when the
/// manifest lists it, its path.
pub fn texture_ref(id: u64, ids: &Ids) -> Value {
    if id == 0 {
        return Value::Null;
    }
    json!({ "id": hex_id(id), "path": ids.get(&id) })
}
