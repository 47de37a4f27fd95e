//! Meshes (`.hmesh`) decoded for the page's WebGL viewer.
//!
//! Attributes go out as plain float arrays (octahedral normals and tangents
//! decoded here, with the crate's own decoder), indices as `u32`, each as
//! base64 of little-endian bytes inside the JSON.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::format::hmesh::{MeshBounds, MeshData, NO_MATERIAL};
use crate::format::oct::{oct_decode, tangent_handedness};

/// The page's view of a mesh; `material` and `animations` are filled in by
/// the caller, which knows the neighbouring files.
pub fn mesh_json(path: &str, mesh: &MeshData) -> Value {
    let positions: Vec<f32> = mesh.vertices.iter().flat_map(|v| v.position).collect();
    let normals: Vec<f32> = mesh
        .vertices
        .iter()
        .flat_map(|v| oct_decode(v.normal))
        .collect();
    let tangents: Vec<f32> = mesh
        .vertices
        .iter()
        .flat_map(|v| {
            let [x, y, z] = oct_decode(v.tangent);
            [x, y, z, tangent_handedness(v.tangent)]
        })
        .collect();
    let uvs: Vec<f32> = mesh.vertices.iter().flat_map(|v| v.uv).collect();
    let meshlets: Vec<u32> = mesh
        .meshlets
        .iter()
        .flat_map(|m| {
            [
                m.vertex_offset,
                m.vertex_count,
                m.triangle_offset,
                m.triangle_count,
            ]
        })
        .collect();
    let meshlet_bounds: Vec<f32> = mesh
        .meshlet_bounds
        .iter()
        .flat_map(|b| {
            let [cx, cy, cz] = b.center;
            let [ax, ay, az] = b.cone_axis;
            [cx, cy, cz, b.radius, ax, ay, az, b.cone_cutoff]
        })
        .collect();
    let triangles: Vec<u8> = mesh.meshlet_triangles.iter().flat_map(|t| t.0).collect();
    json!({
        "path": path,
        "vertex_count": mesh.vertices.len(),
        "index_count": mesh.indices.len(),
        "has_tangents": mesh.flags & crate::format::hmesh::MESH_FLAG_HAS_TANGENTS != 0,
        "bounds": bounds_json(&mesh.bounds),
        "positions": encoded(&positions),
        "normals": encoded(&normals),
        "tangents": encoded(&tangents),
        "uvs": encoded(&uvs),
        "indices": encoded(&mesh.indices),
        "lod_count": mesh.lod_count,
        "lod_indices": encoded(&mesh.lod_indices),
        "submeshes": submeshes_json(mesh),
        "meshlets": encoded(&meshlets),
        "meshlet_vertices": encoded(&mesh.meshlet_vertices),
        "meshlet_triangles": STANDARD.encode(&triangles),
        "meshlet_bounds": encoded(&meshlet_bounds),
        "skin": skin_json(mesh),
        "skeleton": skeleton_json(mesh),
        "material": Value::Null,
        "animations": [],
    })
}

/// Each submesh with its draw range, bounds and reduced levels.
fn submeshes_json(mesh: &MeshData) -> Value {
    let lods = mesh.lod_count as usize;
    let rows = mesh.submeshes.iter().enumerate().map(|(index, sub)| {
        let levels: Vec<Value> = mesh
            .lod_table
            .iter()
            .skip(index * lods)
            .take(lods)
            .map(|lod| json!({ "first_index": lod.first_index, "index_count": lod.index_count }))
            .collect();
        json!({
            "first_index": sub.first_index,
            "index_count": sub.index_count,
            "first_meshlet": sub.first_meshlet,
            "meshlet_count": sub.meshlet_count,
            "material_slot": (sub.material_slot != NO_MATERIAL).then_some(sub.material_slot),
            "bounds": bounds_json(&sub.bounds),
            "lods": levels,
        })
    });
    Value::Array(rows.collect())
}

/// Per-vertex joints and weights, or `null` for a static mesh.
fn skin_json(mesh: &MeshData) -> Value {
    if mesh.skin.is_empty() {
        return Value::Null;
    }
    let joints: Vec<u16> = mesh.skin.iter().flat_map(|s| s.joints).collect();
    let weights: Vec<f32> = mesh.skin.iter().flat_map(|s| s.weights).collect();
    json!({ "joints": encoded(&joints), "weights": encoded(&weights) })
}

/// The joints in file order.
fn skeleton_json(mesh: &MeshData) -> Value {
    let joints = mesh.skeleton.iter().map(|joint| {
        json!({
            "parent": joint.parent,
            "inverse_bind": joint.inverse_bind,
            "translation": joint.bind_translation,
            "rotation": joint.bind_rotation,
            "scale": joint.bind_scale,
        })
    });
    Value::Array(joints.collect())
}

/// A box and sphere.
fn bounds_json(bounds: &MeshBounds) -> Value {
    json!({
        "min": bounds.aabb_min,
        "max": bounds.aabb_max,
        "center": bounds.sphere_center,
        "radius": bounds.sphere_radius,
    })
}

/// Base64 of a plain-old-data array's little-endian bytes.
fn encoded<T: bytemuck::Pod>(values: &[T]) -> String {
    STANDARD.encode(bytemuck::cast_slice::<T, u8>(values))
}
