//! Material rows (`.hmat`) as the page shows them, texture ids resolved to
//! the paths the manifest gives them, and a slot whose texture the output
//! lacks marked `missing` with the reason `assetc-link check` would give.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::format::hash::hex_id;
use crate::format::hmat::{AlphaMode, GpuMaterial};
use crate::format::kind::AssetKind;

/// Asset ids to runtime paths, from the output's `assets.hman`.
pub type Ids = HashMap<u64, String>;

/// Where a texture slot's id leads in the output being served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureSlot {
    /// The runtime path the manifest gives the id, if it lists it.
    pub path: Option<String>,
    /// Why the slot's texture cannot be drawn (not a texture in the
    /// manifest, or its file is not in the output); `None` when it can.
    pub problem: Option<String>,
}

/// The page's view of material rows; `resolve` tells where each non-zero
/// texture id leads.
pub fn rows_json(rows: &[GpuMaterial], resolve: &dyn Fn(u64) -> TextureSlot) -> Value {
    Value::Array(rows.iter().map(|row| row_json(row, resolve)).collect())
}

/// One row.
fn row_json(row: &GpuMaterial, resolve: &dyn Fn(u64) -> TextureSlot) -> Value {
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
            "base_color": texture_ref(row.base_color_texture, resolve),
            "metallic_roughness": texture_ref(row.metallic_roughness_texture, resolve),
            "normal": texture_ref(row.normal_texture, resolve),
            "occlusion": texture_ref(row.occlusion_texture, resolve),
            "emissive": texture_ref(row.emissive_texture, resolve),
        },
    })
}

/// A texture slot: `null` when unused (id 0), else the id, the path the
/// manifest gives it (or `null`), and `missing` with its `problem` when the
/// output cannot supply the texture.
fn texture_ref(id: u64, resolve: &dyn Fn(u64) -> TextureSlot) -> Value {
    if id == 0 {
        return Value::Null;
    }
    let slot = resolve(id);
    json!({
        "id": hex_id(id),
        "path": slot.path,
        "missing": slot.problem.is_some(),
        "problem": slot.problem,
    })
}

/// Where texture id `id` leads, given the manifest's entries by id (path and
/// kind) and whether a runtime path is a file of the output: the same two
/// faults `assetc-link check` reports for a material row's texture.
pub fn resolve_texture(
    id: u64,
    entry: Option<(&str, AssetKind)>,
    is_file: impl Fn(&str) -> bool,
) -> TextureSlot {
    let problem = match entry {
        None => Some(format!("texture {id:#018x} is not in the manifest")),
        Some((path, kind)) if kind != AssetKind::Texture => Some(format!(
            "{id:#018x} is {path}, a {} in the manifest, not a texture",
            kind.name()
        )),
        Some((path, _)) if !is_file(path) => {
            Some(format!("{path}: listed in the manifest but missing"))
        }
        Some(_) => None,
    };
    TextureSlot {
        path: entry.map(|(path, _)| path.to_owned()),
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_missing_unless_the_manifest_lists_a_texture_file_that_is_there() {
        let present = |path: &str| path == "a.ktx2";
        let slot = |entry| resolve_texture(0xab, entry, present);
        assert_eq!(slot(Some(("a.ktx2", AssetKind::Texture))).problem, None);
        assert_eq!(
            slot(Some(("b.ktx2", AssetKind::Texture)))
                .problem
                .as_deref(),
            Some("b.ktx2: listed in the manifest but missing")
        );
        assert_eq!(
            slot(Some(("a.ktx2", AssetKind::Lut))).problem.as_deref(),
            Some("0x00000000000000ab is a.ktx2, a lut in the manifest, not a texture")
        );
        let unlisted = slot(None);
        assert_eq!(unlisted.path, None);
        assert_eq!(
            unlisted.problem.as_deref(),
            Some("texture 0x00000000000000ab is not in the manifest")
        );
        let row = GpuMaterial {
            base_color_texture: 0xab,
            ..bytemuck::Zeroable::zeroed()
        };
        let json = rows_json(&[row], &|id| resolve_texture(id, None, present));
        assert_eq!(json[0]["textures"]["base_color"]["missing"], true);
        assert_eq!(json[0]["textures"]["normal"], Value::Null);
    }
}
