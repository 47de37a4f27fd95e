//! Appending finished submeshes to the shared `.hmesh` arrays.
//!
//! Each submesh's vertices go after the previous submesh's, so vertex ranges
//! are disjoint and every stored index (`IDXS`, `MLVR`, `LODI`) is global.
//! Meshlets and reduced levels are computed on the submesh alone.
//!
//! # Levels of detail
//!
//! For each ratio the target is `max(3, floor(indices * ratio / 3) * 3)` of
//! the full submesh's indices. A level is simplified from the last kept level
//! (the full submesh for the first), weighing normals as well as positions.
//! The error bound of the options is a budget for the whole chain: each level
//! may spend what the levels before it left, so no level is further from the
//! full submesh than the bound (errors of successive simplifications add up
//! at most). Starting from the previous level rather than the full submesh
//! halves the work of a 25% level after a 50% one; the simplifier sees the
//! coarser mesh, which can cost a little quality at the far levels, where it
//! matters least.
//!
//! A submesh with flat normals (none in the source, or a zero one) has a
//! vertex per face at every corner, so every edge between faces is a seam
//! that the simplifier would keep, and its levels would stay at full size.
//! Such a submesh is simplified with meshoptimizer's permissive mode, which
//! may collapse across those seams, the normal difference counting as
//! attribute error as usual; vertices on a UV seam (one position, several
//! UVs) are protected, so textures do not tear.
//!
//! A level is kept only when it has at least one triangle and fewer indices
//! than the last kept level (or the full submesh); otherwise it is stored as
//! the empty range `{0, 0}`, "stalled", and the engine reuses the previous
//! level. Kept levels are reordered for the vertex cache.

use meshopt::{
    SimplifyOptions, SimplifyVertex, VertexDataAdapter, build_meshlets, compute_meshlet_bounds,
    generate_position_remap, optimize_vertex_cache, simplify_with_attributes_and_locks,
};

use super::corners::WorkVertex;
use super::weld::LocalGeometry;
use super::{BuildError, BuildOptions};
use crate::format::hmesh::{
    GpuJoint, GpuVertex, MESH_FLAG_HAS_TANGENTS, MeshBounds, MeshData, MeshLod, Meshlet,
    MeshletBounds, MeshletTriangle, SubMesh,
};

/// How much a unit of normal difference counts against position error
/// (relative to the submesh size) when simplifying.
const NORMAL_WEIGHT: f32 = 0.5;

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

    /// Appends one submesh: its vertices, indices, meshlets and levels.
    pub fn append(
        &mut self,
        label: &str,
        local: &LocalGeometry,
        material_slot: u32,
    ) -> Result<(), BuildError> {
        let gpu: Vec<GpuVertex> = local.vertices.iter().map(|v| v.key.gpu).collect();
        // Checking the new vertex total first means every global index below
        // fits in a u32 as well.
        count_u32(
            label,
            self.mesh.vertices.len() + gpu.len(),
            "the vertex count",
        )?;
        let base_vertex = count_u32(label, self.mesh.vertices.len(), "the vertex count")?;
        let first_index = count_u32(label, self.mesh.indices.len(), "the index count")?;
        let index_count = count_u32(label, local.indices.len(), "the index count")?;
        let first_meshlet = count_u32(label, self.mesh.meshlets.len(), "the meshlet count")?;

        let positions = position_adapter(label, &local.vertices)?;
        if self.options.meshlets {
            self.append_meshlets(label, local, &positions, base_vertex)?;
        }
        self.append_levels(label, local, &positions, base_vertex)?;

        let meshlet_count = count_u32(
            label,
            self.mesh
                .meshlets
                .len()
                .saturating_sub(first_meshlet as usize),
            "the meshlet count",
        )?;
        self.mesh.submeshes.push(SubMesh {
            first_index,
            index_count,
            first_meshlet,
            meshlet_count,
            material_slot,
            base_vertex: 0,
            bounds: bounds_of(&gpu),
        });
        self.mesh.vertices.extend_from_slice(&gpu);
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

    /// Splits the submesh into meshlets and appends them with their bounds.
    fn append_meshlets(
        &mut self,
        label: &str,
        local: &LocalGeometry,
        positions: &VertexDataAdapter<'_>,
        base_vertex: u32,
    ) -> Result<(), BuildError> {
        let built = build_meshlets(
            &local.indices,
            positions,
            self.options.meshlet_max_vertices as usize,
            self.options.meshlet_max_triangles as usize,
            self.options.cone_weight,
        );
        for meshlet in built.iter() {
            let culling = compute_meshlet_bounds(meshlet, positions);
            let triangles = meshlet.triangles.chunks_exact(3);
            self.mesh.meshlets.push(Meshlet {
                vertex_offset: count_u32(
                    label,
                    self.mesh.meshlet_vertices.len(),
                    "the meshlet vertex count",
                )?,
                vertex_count: count_u32(label, meshlet.vertices.len(), "a meshlet's vertices")?,
                triangle_offset: count_u32(
                    label,
                    self.mesh.meshlet_triangles.len(),
                    "the meshlet triangle count",
                )?,
                triangle_count: count_u32(label, triangles.len(), "a meshlet's triangles")?,
            });
            self.mesh.meshlet_bounds.push(MeshletBounds {
                center: culling.center,
                radius: culling.radius,
                cone_axis: culling.cone_axis,
                cone_cutoff: culling.cone_cutoff,
            });
            self.mesh
                .meshlet_vertices
                .extend(meshlet.vertices.iter().map(|&v| v + base_vertex));
            self.mesh.meshlet_triangles.extend(
                triangles
                    .filter_map(|t| <[u8; 3]>::try_from(t).ok())
                    .map(MeshletTriangle),
            );
        }
        Ok(())
    }

    /// Simplifies the submesh once per LOD ratio, each level from the last
    /// kept one, and appends the levels.
    fn append_levels(
        &mut self,
        label: &str,
        local: &LocalGeometry,
        positions: &VertexDataAdapter<'_>,
        base_vertex: u32,
    ) -> Result<(), BuildError> {
        let normals: Vec<f32> = local.vertices.iter().flat_map(|v| v.normal).collect();
        // meshoptimizer reads one lock per vertex; an empty slice would make
        // it read past the end, so pass a full one.
        let (locks, mode) = if local.flat_normals {
            (
                uv_seam_protection(local, positions),
                SimplifyOptions::Permissive,
            )
        } else {
            let none = vec![SimplifyVertex::None; local.vertices.len()];
            (none, SimplifyOptions::None)
        };
        let full_count = local.indices.len();
        let mut previous: Option<Vec<u32>> = None;
        let mut spent_error = 0.0f32;
        for &ratio in &self.options.lod_ratios {
            let source = previous.as_deref().unwrap_or(&local.indices);
            let target = lod_target(full_count, ratio);
            let mut error = 0.0f32;
            let level = (target < source.len())
                .then(|| {
                    simplify_with_attributes_and_locks(
                        source,
                        positions,
                        &normals,
                        &[NORMAL_WEIGHT; 3],
                        size_of::<[f32; 3]>(),
                        &locks,
                        target,
                        (self.options.lod_error - spent_error).max(0.0),
                        mode,
                        Some(&mut error),
                    )
                })
                .filter(|level| level.len() >= 3 && level.len() < source.len());
            let row = match level {
                Some(level) => {
                    spent_error += error;
                    let level = optimize_vertex_cache(&level, local.vertices.len());
                    let row = self.push_level(label, &level, base_vertex)?;
                    previous = Some(level);
                    row
                }
                None => MeshLod::default(),
            };
            self.mesh.lod_table.push(row);
        }
        Ok(())
    }

    /// Appends one kept level's indices (local to the submesh) to `LODI`.
    fn push_level(
        &mut self,
        label: &str,
        level: &[u32],
        base_vertex: u32,
    ) -> Result<MeshLod, BuildError> {
        let row = MeshLod {
            first_index: count_u32(label, self.mesh.lod_indices.len(), "the LOD index count")?,
            index_count: count_u32(label, level.len(), "the LOD index count")?,
        };
        self.mesh
            .lod_indices
            .extend(level.iter().map(|&i| i + base_vertex));
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

/// `Protect` on every vertex that shares its position with a vertex of
/// another UV, for the permissive simplification of flat-shaded submeshes.
fn uv_seam_protection(
    local: &LocalGeometry,
    positions: &VertexDataAdapter<'_>,
) -> Vec<SimplifyVertex> {
    let first_at = generate_position_remap(positions);
    let uv = |v: usize| local.vertices[v].key.gpu.uv;
    let mut seam = vec![false; local.vertices.len()];
    for (v, &first) in first_at.iter().enumerate() {
        if uv(v) != uv(first as usize) {
            seam[first as usize] = true;
        }
    }
    first_at
        .iter()
        .map(|&first| {
            if seam[first as usize] {
                SimplifyVertex::Protect
            } else {
                SimplifyVertex::None
            }
        })
        .collect()
}

/// The index count meshoptimizer is asked for at one LOD ratio.
fn lod_target(full_count: usize, ratio: f32) -> usize {
    let scaled = (full_count as f64 * f64::from(ratio)).floor() as usize;
    (scaled / 3 * 3).max(3)
}

/// A position reader over the submesh's vertices for meshoptimizer.
fn position_adapter<'v>(
    label: &str,
    vertices: &'v [WorkVertex],
) -> Result<VertexDataAdapter<'v>, BuildError> {
    VertexDataAdapter::new(bytemuck::cast_slice(vertices), size_of::<WorkVertex>(), 0).map_err(
        |error| BuildError::Meshopt {
            label: label.to_owned(),
            what: error.to_string(),
        },
    )
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
