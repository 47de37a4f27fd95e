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
//! 4. Meshlets and reduced levels of detail are computed (`meshlets`,
//!    `levels`), then appended to the shared arrays with global indices,
//!    with the bounds (`assemble`).
//!
//! Materials get dense slots in first-use order (`materials`).
//! `MESH_FLAG_HAS_TANGENTS` is set only when every submesh has real tangents,
//! from the source or from MikkTSpace. The scene's skeleton is copied as is;
//! when it is non-empty every vertex gets a `SKIN` entry.
//!
//! # Threads
//!
//! The build uses the threads the jobserver lends ([`crate::jobserver::map`]),
//! and only those: with no token it runs on the calling thread alone. Steps
//! 1 to 3 run for every primitive at once; a submesh of more than
//! `PART_TRIANGLES` (2^17) triangles is cut into spatially compact parts
//! (`parts`) whose vertex cache order, meshlets and level chains are
//! independent jobs (`part_jobs`). Every split depends on the scene alone and
//! every result is put back in scene and part order, so the same scene always
//! gives the same [`MeshData`], at any thread count; no hash-map iteration
//! order reaches the output either.

mod assemble;
mod chunked;
mod corners;
mod error;
mod indexed;
mod levels;
mod materials;
mod meshlets;
mod options;
mod part_jobs;
mod parts;
mod skin;
mod tangents;
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
use crate::jobserver;
use assemble::Assembler;
use parts::Cuts;
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
    build_with_cuts(scene, source_ref, options, Cuts::DEFAULT)
}

/// [`build_mesh`], cutting large submeshes where `cuts` says (tests cut
/// small meshes).
fn build_with_cuts(
    scene: &Scene,
    source_ref: &str,
    options: &BuildOptions,
    cuts: Cuts,
) -> Result<BuiltMesh, BuildError> {
    options.validate()?;
    if scene.primitives.is_empty() {
        return Err(BuildError::NoPrimitives);
    }
    let slots = materials::assign_slots(scene, source_ref)?;
    let lod_count = options.lod_count()?;

    let joint_count = scene.skeleton.len();
    // The first failing primitive in scene order is the one reported.
    let prepared = jobserver::map(&scene.primitives, |primitive| {
        prepare_submesh(primitive, joint_count, cuts)
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    let all_real_tangents = prepared.iter().all(|(_, real)| *real);
    let locals: Vec<LocalGeometry> = prepared.into_iter().map(|(local, _)| local).collect();
    let labels: Vec<&str> = scene.primitives.iter().map(|p| p.label.as_str()).collect();
    let part_results = part_jobs::run_part_jobs(&labels, &locals, options)?;

    let mut assembler = Assembler::new(options, scene.skeleton.clone(), lod_count);
    for ((label, local), (parts, &slot)) in labels
        .iter()
        .zip(&locals)
        .zip(part_results.iter().zip(&slots.per_primitive))
    {
        assembler.append(label, local, parts, slot)?;
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
    cuts: Cuts,
) -> Result<(LocalGeometry, bool), BuildError> {
    validate::validate_primitive(primitive)?;
    let skin = if joint_count > 0 {
        Some(skin::skin_vertices(primitive, joint_count)?)
    } else {
        None
    };
    // The indexed merge declines exactly when some normal must be made flat.
    let (merged, real_tangents, flat_normals) =
        match indexed::merge_indexed(primitive, skin.as_deref(), cuts.tangent_run_triangles) {
            Some((merged, real_tangents)) => (merged, real_tangents, false),
            None => {
                let corners = corners::expand_corners(primitive, skin.as_deref());
                let merged = weld::merge_corners(&corners.vertices);
                (merged, corners.real_tangents, true)
            }
        };
    let local = weld::order_for_gpu(&primitive.label, merged, flat_normals, cuts.part_triangles)?;
    Ok((local, real_tangents))
}
