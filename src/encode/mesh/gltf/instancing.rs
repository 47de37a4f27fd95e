//! `EXT_mesh_gpu_instancing`: a node that draws its mesh many times, each
//! instance with its own translation, rotation and scale stored in
//! accessors.
//!
//! The runtime formats have no instance table, so when merging
//! (`mesh.merge: true`) each instance is baked like a node of its own: its
//! world transform is the node's times the instance's `T * R * S`. Without
//! merging, each mesh is emitted once in its own space and the instances are
//! dropped with a warning, as the node transforms are.

use std::collections::BTreeMap;

use ::gltf::json::{self, Value, accessor::Type};

use super::GltfError;
use super::accessor::{AccessorReader, FloatEncoding, grouped};
use super::transform::Mat4;
use crate::encode::limits::MAX_GPU_INSTANCES;

/// The extension's name.
pub(super) const NAME: &str = "EXT_mesh_gpu_instancing";

/// For each node of `root` that carries the extension, the local transform
/// of every instance, in order.
pub(super) fn instance_transforms(
    root: &json::Root,
    reader: &AccessorReader<'_>,
) -> Result<BTreeMap<usize, Vec<Mat4>>, GltfError> {
    let mut transforms = BTreeMap::new();
    for (n, node) in root.nodes.iter().enumerate() {
        let Some(attributes) = node
            .extensions
            .as_ref()
            .and_then(|e| e.others.get(NAME))
            .map(|extension| extension.get("attributes"))
        else {
            continue;
        };
        let location = format!("nodes[{n}].extensions.{NAME}.attributes");
        let attributes = attributes
            .and_then(Value::as_object)
            .ok_or_else(|| GltfError::at(&location, "is missing or not an object"))?;
        transforms.insert(n, node_instances(attributes, reader, &location)?);
    }
    Ok(transforms)
}

/// The instances of one node from its `TRANSLATION`, `ROTATION` and
/// `SCALE` accessors (each optional, all of one count).
fn node_instances(
    attributes: &serde_json::Map<String, Value>,
    reader: &AccessorReader<'_>,
    location: &str,
) -> Result<Vec<Mat4>, GltfError> {
    let read =
        |name: &str, ty: Type, encoding: FloatEncoding| -> Result<Option<Vec<f32>>, GltfError> {
            let Some(index) = attributes.get(name) else {
                return Ok(None);
            };
            let path = format!("{location}.{name}");
            let index = index
                .as_u64()
                .ok_or_else(|| GltfError::at(&path, "is not an accessor index"))?;
            reader.floats(index as usize, &path, ty, encoding).map(Some)
        };
    let translations =
        read("TRANSLATION", Type::Vec3, FloatEncoding::FloatOrQuantized)?.map(|v| grouped::<3>(&v));
    let rotations =
        read("ROTATION", Type::Vec4, FloatEncoding::FloatOrNormalized)?.map(|v| grouped::<4>(&v));
    let scales =
        read("SCALE", Type::Vec3, FloatEncoding::FloatOrQuantized)?.map(|v| grouped::<3>(&v));
    let counts = [
        translations.as_ref().map(Vec::len),
        rotations.as_ref().map(Vec::len),
        scales.as_ref().map(Vec::len),
    ];
    let count = counts.iter().flatten().copied().max().unwrap_or(0);
    if counts.iter().flatten().any(|&c| c != count) {
        return Err(GltfError::at(
            location,
            format!("the accessors hold different instance counts ({counts:?})"),
        ));
    }
    if count > MAX_GPU_INSTANCES {
        return Err(GltfError::at(
            location,
            format!("{count} instances; at most {MAX_GPU_INSTANCES} are baked per node"),
        ));
    }
    Ok((0..count)
        .map(|i| {
            let t = translations.as_ref().map_or([0.0; 3], |v| v[i]);
            let r = rotations.as_ref().map_or([0.0, 0.0, 0.0, 1.0], |v| v[i]);
            let s = scales.as_ref().map_or([1.0; 3], |v| v[i]);
            Mat4::from_trs(t, r, s)
        })
        .collect())
}
