//! Appending finished submeshes to the shared `.hmesh` arrays.
//!
//! Each submesh's vertices go after the previous submesh's, so vertex ranges
//! are disjoint and every stored index (`IDXS`, `MLVR`, `LODI`) is global.
//! The meshlets and reduced levels were made per part of the submesh
//! ([`super::part_jobs`]); here they are joined in part order: a submesh's
//! meshlets are its parts' meshlets one part after the other, and each level
//! is its parts' levels one after the other (a part whose level stalled
//! gives its previous one). A level where no part shrank is stored as the
//! empty range `{0, 0}`.

use super::levels::PartLevels;
use super::meshlets::PartMeshlets;
use super::part_jobs::PartResults;
use super::weld::LocalGeometry;
use super::{BuildError, BuildOptions};
use crate::format::hmesh::{
    GpuJoint, GpuVertex, MESH_FLAG_HAS_TANGENTS, MeshBounds, MeshData, MeshLod, Meshlet, SubMesh,
};

/// Collects submeshes into one [`MeshData`].
pub(super) struct Assembler<'a> {
    /// Meshlet limits and LOD settings, already validated.
    options: &'a BuildOptions,
    /// Whether `SKIN` is written.
    skinned: bool,
    /// The mesh so far.
    mesh: MeshData,
}

impl<'a> Assembler<'a> {
    /// Starts an empty mesh; a non-empty `skeleton` makes it skinned.
    pub fn new(options: &'a BuildOptions, skeleton: Vec<GpuJoint>, lod_count: u32) -> Self {
        Self {
            options,
            skinned: !skeleton.is_empty(),
            mesh: MeshData {
                skeleton,
                lod_count,
                meshlet_max_vertices: options.meshlet_max_vertices,
                meshlet_max_triangles: options.meshlet_max_triangles,
                ..MeshData::default()
            },
        }
    }

    /// Appends one submesh: its vertices, indices, and its parts' meshlets
    /// and levels.
    pub fn append(
        &mut self,
        label: &str,
        local: &LocalGeometry,
        parts: &PartResults,
        material_slot: u32,
    ) -> Result<(), BuildError> {
        // Checking the new vertex total first means every global index below
        // fits in a u32 as well.
        count_u32(
            label,
            self.mesh.vertices.len() + local.vertices.len(),
            "the vertex count",
        )?;
        let base_vertex = count_u32(label, self.mesh.vertices.len(), "the vertex count")?;
        let first_index = count_u32(label, self.mesh.indices.len(), "the index count")?;
        let index_count = count_u32(label, local.indices.len(), "the index count")?;
        let first_meshlet = count_u32(label, self.mesh.meshlets.len(), "the meshlet count")?;

        for meshlets in &parts.meshlets {
            self.append_meshlets(label, meshlets, base_vertex)?;
        }
        if !parts.levels.is_empty() {
            self.append_levels(label, local, &parts.levels, base_vertex)?;
        }

        let meshlet_count = count_u32(
            label,
            self.mesh
                .meshlets
                .len()
                .saturating_sub(first_meshlet as usize),
            "the meshlet count",
        )?;
        let first_vertex = self.mesh.vertices.len();
        self.mesh
            .vertices
            .extend(local.vertices.iter().map(|v| v.key.gpu));
        self.mesh.submeshes.push(SubMesh {
            first_index,
            index_count,
            first_meshlet,
            meshlet_count,
            material_slot,
            base_vertex: 0,
            bounds: bounds_of(&self.mesh.vertices[first_vertex..]),
        });
        if self.skinned {
            self.mesh
                .skin
                .extend(local.vertices.iter().map(|v| v.key.skin));
        }
        self.mesh
            .indices
            .extend(local.indices.iter().map(|&i| i + base_vertex));
        self.check_totals(label)
    }

    /// The finished mesh: mesh bounds, material refs and flags filled in.
    pub fn finish(self, material_refs: Vec<u64>, has_tangents: bool) -> MeshData {
        let mut mesh = self.mesh;
        mesh.bounds = bounds_of(&mesh.vertices);
        mesh.materials = material_refs;
        mesh.flags = if has_tangents {
            MESH_FLAG_HAS_TANGENTS
        } else {
            0
        };
        mesh
    }

    /// Appends one part's meshlets with their bounds.
    fn append_meshlets(
        &mut self,
        label: &str,
        part: &PartMeshlets,
        base_vertex: u32,
    ) -> Result<(), BuildError> {
        // Each meshlet's vertices and triangles follow the previous one's.
        let mut vertex_offset = self.mesh.meshlet_vertices.len();
        let mut triangle_offset = self.mesh.meshlet_triangles.len();
        for &(vertex_count, triangle_count) in &part.sizes {
            self.mesh.meshlets.push(Meshlet {
                vertex_offset: count_u32(label, vertex_offset, "the meshlet vertex count")?,
                vertex_count: count_u32(label, vertex_count, "a meshlet's vertices")?,
                triangle_offset: count_u32(label, triangle_offset, "the meshlet triangle count")?,
                triangle_count: count_u32(label, triangle_count, "a meshlet's triangles")?,
            });
            vertex_offset += vertex_count;
            triangle_offset += triangle_count;
        }
        self.mesh.meshlet_bounds.extend_from_slice(&part.bounds);
        self.mesh
            .meshlet_vertices
            .extend(part.vertices.iter().map(|&v| v + base_vertex));
        self.mesh
            .meshlet_triangles
            .extend_from_slice(&part.triangles);
        Ok(())
    }

    /// Joins the parts' levels into the submesh's levels and appends them.
    fn append_levels(
        &mut self,
        label: &str,
        local: &LocalGeometry,
        parts: &[PartLevels],
        base_vertex: u32,
    ) -> Result<(), BuildError> {
        // What each part shows at the current level: its full indices until
        // its first kept level.
        let mut current: Vec<&[u32]> = local
            .parts
            .iter()
            .map(|r| &local.indices[r.clone()])
            .collect();
        for level in 0..self.options.lod_ratios.len() {
            let mut shrank = false;
            for (shown, part) in current.iter_mut().zip(parts) {
                if let Some(Some(kept)) = part.0.get(level) {
                    *shown = kept;
                    shrank = true;
                }
            }
            let row = if shrank {
                self.push_level(label, &current, base_vertex)?
            } else {
                MeshLod::default()
            };
            self.mesh.lod_table.push(row);
        }
        Ok(())
    }

    /// Appends one kept level, its parts' indices (local to the submesh)
    /// in order, to `LODI`.
    fn push_level(
        &mut self,
        label: &str,
        parts: &[&[u32]],
        base_vertex: u32,
    ) -> Result<MeshLod, BuildError> {
        let index_count = parts.iter().map(|part| part.len()).sum();
        let row = MeshLod {
            first_index: count_u32(label, self.mesh.lod_indices.len(), "the LOD index count")?,
            index_count: count_u32(label, index_count, "the LOD index count")?,
        };
        for part in parts {
            self.mesh
                .lod_indices
                .extend(part.iter().map(|&i| i + base_vertex));
        }
        Ok(row)
    }

    /// Fails when an array has grown past what a `u32` count can describe.
    fn check_totals(&self, label: &str) -> Result<(), BuildError> {
        let mesh = &self.mesh;
        let totals = [
            (mesh.indices.len(), "the index count"),
            (mesh.meshlets.len(), "the meshlet count"),
            (mesh.meshlet_vertices.len(), "the meshlet vertex count"),
            (mesh.meshlet_triangles.len(), "the meshlet triangle count"),
            (mesh.lod_indices.len(), "the LOD index count"),
        ];
        for (len, what) in totals {
            count_u32(label, len, what)?;
        }
        Ok(())
    }
}

/// The box around `vertices`, its centre, and the distance from the centre
/// to the farthest vertex (rounded up so that every vertex is inside).
pub(super) fn bounds_of(vertices: &[GpuVertex]) -> MeshBounds {
    let Some(first) = vertices.first() else {
        return MeshBounds::default();
    };
    let (min, max) = vertices.iter().fold(
        (first.position, first.position),
        |(mut min, mut max), vertex| {
            for axis in 0..3 {
                min[axis] = min[axis].min(vertex.position[axis]);
                max[axis] = max[axis].max(vertex.position[axis]);
            }
            (min, max)
        },
    );
    let center = [0, 1, 2].map(|axis| 0.5 * min[axis] + 0.5 * max[axis]);
    let farthest = vertices
        .iter()
        .map(|vertex| {
            let d =
                [0, 1, 2].map(|axis| f64::from(vertex.position[axis]) - f64::from(center[axis]));
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .fold(0.0, f64::max);
    MeshBounds {
        aabb_min: min,
        aabb_max: max,
        sphere_center: center,
        sphere_radius: round_up_to_f32(farthest),
    }
}

/// The smallest `f32` at least `value` (for non-negative `value`).
fn round_up_to_f32(value: f64) -> f32 {
    let nearest = value as f32;
    if f64::from(nearest) < value {
        f32::from_bits(nearest.to_bits() + 1)
    } else {
        nearest
    }
}

/// `len` as a `u32`, or the error naming what overflowed.
fn count_u32(label: &str, len: usize, what: &'static str) -> Result<u32, BuildError> {
    u32::try_from(len).map_err(|_| BuildError::TooLarge {
        label: label.to_owned(),
        what,
    })
}
