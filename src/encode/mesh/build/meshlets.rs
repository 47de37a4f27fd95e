//! Meshlets, made part by part.
//!
//! meshoptimizer's clusterizer splits each part's triangles (already in
//! vertex cache order) into meshlets of at most the options' vertex and
//! triangle counts, and computes each meshlet's culling sphere and normal
//! cone. A submesh cut into parts ([`super::parts`]) gets its parts' meshlets
//! in part order, each part on whichever lent thread is free; no meshlet
//! spans two parts.

use std::ops::Range;

use meshopt::{build_meshlets, compute_meshlet_bounds};

use super::parts::{Rebased, position_adapter};
use super::weld::LocalGeometry;
use super::{BuildError, BuildOptions};
use crate::format::hmesh::{MeshletBounds, MeshletTriangle};

/// The meshlets of one part, before they get their places in the file.
#[derive(Debug, Clone, Default)]
pub(super) struct PartMeshlets {
    /// Per meshlet: its vertex count and triangle count.
    pub sizes: Vec<(usize, usize)>,
    /// Per meshlet: its culling bounds.
    pub bounds: Vec<MeshletBounds>,
    /// The vertices of every meshlet in turn, in the submesh's numbering.
    pub vertices: Vec<u32>,
    /// The triangles of every meshlet in turn, as indices into the
    /// meshlet's vertices.
    pub triangles: Vec<MeshletTriangle>,
}

/// Splits the part with index range `part` of `local` into meshlets.
pub(super) fn part_meshlets(
    label: &str,
    local: &LocalGeometry,
    part: Range<usize>,
    options: &BuildOptions,
) -> Result<PartMeshlets, BuildError> {
    let rebased = Rebased::new(&local.indices[part]);
    let positions = position_adapter(label, rebased.vertices(&local.vertices))?;
    let built = build_meshlets(
        &rebased.indices,
        &positions,
        options.meshlet_max_vertices as usize,
        options.meshlet_max_triangles as usize,
        options.cone_weight,
    );
    let mut out = PartMeshlets::default();
    for meshlet in built.iter() {
        let culling = compute_meshlet_bounds(meshlet, &positions);
        let triangles = meshlet.triangles.chunks_exact(3);
        out.sizes.push((meshlet.vertices.len(), triangles.len()));
        out.bounds.push(MeshletBounds {
            center: culling.center,
            radius: culling.radius,
            cone_axis: culling.cone_axis,
            cone_cutoff: culling.cone_cutoff,
        });
        out.vertices
            .extend(meshlet.vertices.iter().map(|&v| v + rebased.first));
        out.triangles.extend(
            triangles
                .filter_map(|t| <[u8; 3]>::try_from(t).ok())
                .map(MeshletTriangle),
        );
    }
    Ok(out)
}
