//! Dense material slots and their refs.
//!
//! Only materials some primitive uses get a slot, numbered in the order the
//! primitives first use them. Slot `i` is `MTRL[i]` in the `.hmesh` and row `i`
//! of the `.hmat`. A slot's ref is the hash of `<source ref>/<leaf>`, where the
//! leaf is the material's name, ASCII-lowercased, when that name is non-empty
//! and no other source material has the same name ignoring ASCII case, and
//! `material_<source index>` otherwise. The source index keeps a leaf stable
//! whichever materials happen to be used.

use std::collections::BTreeMap;

use super::BuildError;
use crate::encode::mesh::scene::{Scene, SourceMaterial};
use crate::format::hash::asset_hash;
use crate::format::hmat::GpuMaterial;
use crate::format::hmesh::NO_MATERIAL;

/// The slot of every primitive and the per-slot tables.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MaterialSlots {
    /// `SubMesh::material_slot` of each primitive, in primitive order.
    pub per_primitive: Vec<u32>,
    /// `MTRL`: one ref per slot.
    pub refs: Vec<u64>,
    /// The `.hmat` rows, one per slot.
    pub rows: Vec<GpuMaterial>,
}

/// Assigns dense slots in first-use order and derives each slot's ref and row.
pub(super) fn assign_slots(scene: &Scene, source_ref: &str) -> Result<MaterialSlots, BuildError> {
    let mut slot_of_source: Vec<Option<u32>> = vec![None; scene.materials.len()];
    let mut sources_in_slot_order: Vec<usize> = Vec::new();
    let mut per_primitive = Vec::with_capacity(scene.primitives.len());

    for primitive in &scene.primitives {
        let Some(source) = primitive.material else {
            per_primitive.push(NO_MATERIAL);
            continue;
        };
        let entry =
            slot_of_source
                .get_mut(source)
                .ok_or_else(|| BuildError::MaterialOutOfRange {
                    label: primitive.label.clone(),
                    material: source,
                    count: scene.materials.len(),
                })?;
        let slot = match *entry {
            Some(slot) => slot,
            None => {
                // Fewer slots than source materials, which are a Vec; but the
                // slot must also differ from NO_MATERIAL.
                let slot = u32::try_from(sources_in_slot_order.len())
                    .ok()
                    .filter(|slot| *slot != NO_MATERIAL)
                    .ok_or_else(|| BuildError::TooLarge {
                        label: primitive.label.clone(),
                        what: "the material slot count",
                    })?;
                *entry = Some(slot);
                sources_in_slot_order.push(source);
                slot
            }
        };
        per_primitive.push(slot);
    }

    let leaves = material_leaves(&scene.materials);
    let mut refs = Vec::with_capacity(sources_in_slot_order.len());
    let mut rows = Vec::with_capacity(sources_in_slot_order.len());
    for source in sources_in_slot_order {
        // Both lookups succeed: `source` indexed `slot_of_source`, which has
        // one entry per material, and so do `leaves`.
        if let (Some(leaf), Some(material)) = (leaves.get(source), scene.materials.get(source)) {
            refs.push(asset_hash(&format!("{source_ref}/{leaf}")));
            rows.push(material.row);
        }
    }
    Ok(MaterialSlots {
        per_primitive,
        refs,
        rows,
    })
}

/// The ref leaf of every source material, in source order.
pub(super) fn material_leaves(materials: &[SourceMaterial]) -> Vec<String> {
    let mut name_uses: BTreeMap<String, usize> = BTreeMap::new();
    for material in materials {
        *name_uses
            .entry(material.name.to_ascii_lowercase())
            .or_default() += 1;
    }
    materials
        .iter()
        .enumerate()
        .map(|(index, material)| {
            let lower = material.name.to_ascii_lowercase();
            let unique = name_uses.get(&lower) == Some(&1);
            if !lower.is_empty() && unique {
                lower
            } else {
                format!("material_{index}")
            }
        })
        .collect()
}
