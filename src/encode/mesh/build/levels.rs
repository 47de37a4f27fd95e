//! Reduced levels of detail, made part by part.
//!
//! For each ratio the target is `max(3, floor(indices * ratio / 3) * 3)` of
//! the full indices. A level is simplified from the last kept level (the
//! full geometry for the first), weighing normals as well as positions.
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
//! # Parts
//!
//! A submesh built whole is simplified as one chain. A submesh cut into
//! parts ([`super::parts`]) runs one chain per part, each on whichever lent
//! thread is free, and every level joins the parts' levels in part order.
//! So that the parts still fit together, every position that triangles of
//! two parts share is locked: the parts' seams keep their full detail at
//! every level (a thin band, a few percent of the triangles of a level on a
//! terrain cut in eight) and no crack opens between them. Each part is
//! simplified with meshoptimizer's sparse mode, which works on the part's
//! own vertices only and measures its error against the part's extent; the
//! error is therefore given in absolute units (the bound times the
//! submesh's extent) and the normal weight is scaled by the ratio of the
//! submesh's extent to the part's, which weighs a collapse exactly as a
//! simplification of the whole submesh would. Each part keeps its own budget.
//!
//! A part whose level is not smaller than its source keeps its source in that
//! level. A level of the submesh is kept only when some part shrank (a
//! single part: when it has at least one triangle and fewer indices than the
//! last kept level); otherwise it is stored as the empty range `{0, 0}`,
//! "stalled", and the engine reuses the previous level. Levels are reordered
//! for the vertex cache, part by part.

use std::ops::Range;

use meshopt::{
    SimplifyOptions, SimplifyVertex, VertexDataAdapter, generate_position_remap, simplify_scale,
    simplify_with_attributes_and_locks,
};

use super::parts::{cache_order, position_adapter};
use super::weld::LocalGeometry;
use super::{BuildError, BuildOptions};

/// How much a unit of normal difference counts against position error
/// (relative to the submesh size) when simplifying.
const NORMAL_WEIGHT: f32 = 0.5;

/// No part uses this position yet.
const UNUSED: u32 = u32::MAX;
/// Triangles of several parts use this position.
const SHARED: u32 = u32::MAX - 1;

/// The reduced levels of one part: per LOD ratio, the part's level (indices
/// in the submesh's numbering, cache ordered), or `None` where it stalled.
#[derive(Debug, Clone)]
pub(super) struct PartLevels(pub Vec<Option<Vec<u32>>>);

/// What the chains of every part of one submesh share.
pub(super) struct LevelInputs<'a> {
    /// The submesh.
    local: &'a LocalGeometry,
    /// Its positions, for meshoptimizer.
    positions: VertexDataAdapter<'a>,
    /// Its unit normals, three floats per vertex.
    normals: Vec<f32>,
    /// One lock per vertex: UV seams of a flat-shaded submesh, and the
    /// positions parts share.
    locks: Vec<SimplifyVertex>,
    /// `Permissive` for a flat-shaded submesh.
    mode: SimplifyOptions,
    /// The submesh's extent as meshoptimizer measures it (its largest side).
    extent: f32,
}

impl<'a> LevelInputs<'a> {
    /// Gathers the normals, locks and extent of `local`.
    pub fn new(label: &str, local: &'a LocalGeometry) -> Result<Self, BuildError> {
        let positions = position_adapter(label, &local.vertices)?;
        let normals = local.vertices.iter().flat_map(|v| v.normal).collect();
        let locks = vertex_locks(local, &positions);
        let mode = if local.flat_normals {
            SimplifyOptions::Permissive
        } else {
            SimplifyOptions::None
        };
        let extent = simplify_scale(&positions);
        Ok(Self {
            local,
            positions,
            normals,
            locks,
            mode,
            extent,
        })
    }

    /// The chain of levels of the part with index range `part`.
    pub fn part_levels(&self, part: Range<usize>, options: &BuildOptions) -> PartLevels {
        let full = &self.local.indices[part];
        let budget = if self.whole() {
            options.lod_error
        } else {
            options.lod_error * self.extent
        };
        let mut levels: Vec<Option<Vec<u32>>> = Vec::with_capacity(options.lod_ratios.len());
        let mut last_kept: Option<usize> = None;
        let mut spent = 0.0f32;
        for &ratio in &options.lod_ratios {
            let source = last_kept
                .and_then(|kept| levels[kept].as_deref())
                .unwrap_or(full);
            let target = lod_target(full.len(), ratio);
            let mut error = 0.0f32;
            let level = (target < source.len())
                .then(|| self.simplify(source, target, (budget - spent).max(0.0), &mut error))
                .flatten()
                .filter(|level| level.len() >= 3 && level.len() < source.len())
                .map(|level| {
                    spent += error;
                    cache_order(&level)
                });
            if level.is_some() {
                last_kept = Some(levels.len());
            }
            levels.push(level);
        }
        PartLevels(levels)
    }

    /// Whether the submesh is built as one part.
    fn whole(&self) -> bool {
        self.local.parts.len() == 1
    }

    /// `source` simplified towards `target` indices within `allowed` error
    /// (relative for a whole submesh, absolute for a part); `None` when a
    /// part cannot be weighed (all its vertices at one point).
    fn simplify(
        &self,
        source: &[u32],
        target: usize,
        allowed: f32,
        error: &mut f32,
    ) -> Option<Vec<u32>> {
        let (weight, options) = if self.whole() {
            (NORMAL_WEIGHT, self.mode)
        } else {
            let weight = NORMAL_WEIGHT * self.extent / self.extent_of(source);
            let options = self.mode | SimplifyOptions::Sparse | SimplifyOptions::ErrorAbsolute;
            (weight, options)
        };
        if !(weight.is_finite() && weight > 0.0) {
            return None;
        }
        Some(simplify_with_attributes_and_locks(
            source,
            &self.positions,
            &self.normals,
            &[weight; 3],
            size_of::<[f32; 3]>(),
            &self.locks,
            target,
            allowed,
            options,
            Some(error),
        ))
    }

    /// The largest side of the box around the vertices `indices` use, as
    /// meshoptimizer's sparse mode measures a part.
    fn extent_of(&self, indices: &[u32]) -> f32 {
        let mut min = [f32::MAX; 3];
        let mut max = [-f32::MAX; 3];
        for &index in indices {
            let position = self.local.vertices[index as usize].key.gpu.position;
            for axis in 0..3 {
                min[axis] = min[axis].min(position[axis]);
                max[axis] = max[axis].max(position[axis]);
            }
        }
        (0..3).map(|axis| max[axis] - min[axis]).fold(0.0, f32::max)
    }
}

/// The lock of every vertex: `Protect` on the UV seams of a flat-shaded
/// submesh, `Lock` on every position the triangles of two parts share.
fn vertex_locks(local: &LocalGeometry, positions: &VertexDataAdapter<'_>) -> Vec<SimplifyVertex> {
    let mut locks = vec![SimplifyVertex::None; local.vertices.len()];
    if !local.flat_normals && local.parts.len() == 1 {
        return locks;
    }
    // The first vertex at each vertex's position.
    let first_at = generate_position_remap(positions);
    if local.flat_normals {
        protect_uv_seams(local, &first_at, &mut locks);
    }
    if local.parts.len() > 1 {
        lock_shared_positions(local, &first_at, &mut locks);
    }
    locks
}

/// `Protect` on every vertex that shares its position with a vertex of
/// another UV, for the permissive simplification of flat-shaded submeshes.
fn protect_uv_seams(local: &LocalGeometry, first_at: &[u32], locks: &mut [SimplifyVertex]) {
    let uv = |v: usize| local.vertices[v].key.gpu.uv;
    let mut seam = vec![false; local.vertices.len()];
    for (v, &first) in first_at.iter().enumerate() {
        if uv(v) != uv(first as usize) {
            seam[first as usize] = true;
        }
    }
    for (lock, &first) in locks.iter_mut().zip(first_at) {
        if seam[first as usize] {
            *lock |= SimplifyVertex::Protect;
        }
    }
}

/// `Lock` on every vertex whose position triangles of two parts use.
fn lock_shared_positions(local: &LocalGeometry, first_at: &[u32], locks: &mut [SimplifyVertex]) {
    let mut owner = vec![UNUSED; local.vertices.len()];
    for (part, range) in local.parts.iter().enumerate() {
        let part = part as u32;
        for &vertex in &local.indices[range.clone()] {
            let owner = &mut owner[first_at[vertex as usize] as usize];
            if *owner == UNUSED {
                *owner = part;
            } else if *owner != part {
                *owner = SHARED;
            }
        }
    }
    for (lock, &first) in locks.iter_mut().zip(first_at) {
        if owner[first as usize] == SHARED {
            *lock |= SimplifyVertex::Lock;
        }
    }
}

/// The index count meshoptimizer is asked for at one LOD ratio.
fn lod_target(full_count: usize, ratio: f32) -> usize {
    let scaled = (full_count as f64 * f64::from(ratio)).floor() as usize;
    (scaled / 3 * 3).max(3)
}
