//! Geometry build: a [`Scene`] in, `.hmesh` data and `.hmat` rows out.
//!
//! Every primitive becomes one submesh, in scene order. For each one:
//!
//! 1. The primitive is checked: at least one triangle, a whole number of
//!    them, every index in range, every attribute array as long as the
//!    positions, every float finite ([`BuildError`] names the primitive's
//!    label and, where it applies, the vertex).
//! 2. Missing attributes are made: flat normals, MikkTSpace tangents (with
//!    UVs) or a fixed perpendicular tangent (without), normalised joint
//!    weights (`corners`, `skin`).
//! 3. Triangle corners with identical file bytes are merged, triangles that
//!    use one vertex twice are dropped (they draw nothing), and the index and
//!    vertex orders are optimised for the vertex cache and for fetch (`weld`).
//!    When every vertex has a usable normal this happens on the indexed
//!    source (`indexed`); otherwise the primitive is first expanded to one
//!    vertex per corner, since flat normals differ per corner (`corners`).
//!    Both paths give the same bytes.
//! 4. Meshlets, reduced levels of detail and bounds are computed and appended
//!    to the shared arrays with global indices (`assemble`).
//!
//! Materials get dense slots in first-use order (`materials`).
//! `MESH_FLAG_HAS_TANGENTS` is set only when every submesh has real tangents,
//! from the source or from MikkTSpace. The scene's skeleton is copied as is;
//! when it is non-empty every vertex gets a `SKIN` entry.
//!
//! The build is deterministic: no hash-map iteration order and no threads
//! reach the output, so the same scene always gives the same [`MeshData`].

mod assemble;
mod corners;
mod error;
mod indexed;
mod materials;
mod options;
mod skin;
mod validate;
mod vectors;
mod weld;

#[cfg(test)]
mod tests;

pub use error::BuildError;
pub use options::{BuildOptions, MESHLET_MAX_TRIANGLES_LIMIT, MESHLET_MAX_VERTICES_LIMIT};

use crate::encode::mesh::scene::{Primitive, Scene};
use crate::format::hmat::GpuMaterial;
use crate::format::hmesh::MeshData;
use assemble::Assembler;
use weld::LocalGeometry;

/// The result of a build: the `.hmesh` contents and the `.hmat` rows.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltMesh {
    /// Everything the `.hmesh` writer needs.
    pub mesh: MeshData,
    /// The `.hmat` rows in slot order: row `i` is the material of
    /// `mesh.materials[i]` and of every submesh with `material_slot == i`.
    pub materials: Vec<GpuMaterial>,
}

/// Builds the mesh of one source.
///
/// `source_ref` is the source's path relative to the input folder, without
/// extension, lowercased and `/`-separated (`models/chair`); material refs
/// are hashed from it.
pub fn build_mesh(
    scene: &Scene,
    source_ref: &str,
    options: &BuildOptions,
) -> Result<BuiltMesh, BuildError> {
    options.validate()?;
    if scene.primitives.is_empty() {
        return Err(BuildError::NoPrimitives);
    }
    let slots = materials::assign_slots(scene, source_ref)?;
    let lod_count = options.lod_count()?;

    let mut assembler = Assembler::new(options, scene.skeleton.clone(), lod_count);
    let mut all_real_tangents = true;
    for (primitive, &slot) in scene.primitives.iter().zip(&slots.per_primitive) {
        let (local, real_tangents) = prepare_submesh(primitive, scene.skeleton.len())?;
        all_real_tangents &= real_tangents;
        assembler.append(&primitive.label, &local, slot)?;
    }
    Ok(BuiltMesh {
        mesh: assembler.finish(slots.refs, all_real_tangents),
        materials: slots.rows,
    })
}

/// Checks one primitive and turns it into an optimised, indexed submesh;
/// also says whether its tangents are real. `joint_count` 0 means the scene
/// is not skinned.
fn prepare_submesh(
    primitive: &Primitive,
    joint_count: usize,
) -> Result<(LocalGeometry, bool), BuildError> {
    validate::validate_primitive(primitive)?;
    let skin = if joint_count > 0 {
        Some(skin::skin_vertices(primitive, joint_count)?)
    } else {
        None
    };
    // The indexed merge declines exactly when some normal must be made flat.
    let (merged, real_tangents, flat_normals) =
        match indexed::merge_indexed(primitive, skin.as_deref()) {
            Some((merged, real_tangents)) => (merged, real_tangents, false),
            None => {
                let corners = corners::expand_corners(primitive, skin.as_deref());
                let merged = weld::merge_corners(&corners.vertices);
                (merged, corners.real_tangents, true)
            }
        };
    let local = weld::order_for_gpu(&primitive.label, merged, flat_normals)?;
    Ok((local, real_tangents))
}
