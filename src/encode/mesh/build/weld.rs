//! Corners back to an indexed submesh, ordered for the GPU.
//!
//! Corners whose file bytes are identical (position, packed normal and
//! tangent, UV and skin) become one vertex. Triangles that then use one vertex
//! twice draw nothing and are dropped. The indices are reordered for the
//! post-transform vertex cache, part by part ([`super::parts`]; the parts run
//! on lent threads), and the vertices for fetch locality.
//!
//! The merge has two implementations with the same result: [`merge_corners`]
//! over a primitive expanded to one vertex per corner, and
//! [`super::indexed::merge_indexed`], which never expands it.

use std::ops::Range;

use meshopt::{VertexStream, generate_vertex_remap_multi, remap_vertex_buffer};

use super::BuildError;
use super::chunked::map_chunked;
use super::corners::{VertexKey, WorkVertex};
use super::parts::{cache_order, cut_into_parts};
use crate::jobserver;

/// No new number yet for this vertex.
const UNUSED: u32 = u32::MAX;

/// Corners merged but not yet ordered.
#[derive(Debug, Clone)]
pub(super) struct Merged {
    /// One vertex per distinct corner, numbered in the order the corners
    /// first appear; each keeps the unpacked normal of the last corner merged
    /// into it.
    pub vertices: Vec<WorkVertex>,
    /// The vertex of every corner, in corner order (three per triangle).
    pub corner_vertex: Vec<u32>,
}

/// One submesh with its own vertex array; indices start at 0.
#[derive(Debug, Clone)]
pub(super) struct LocalGeometry {
    /// Every vertex is used by some triangle.
    pub vertices: Vec<WorkVertex>,
    /// A triangle list into `vertices` without degenerate triangles.
    pub indices: Vec<u32>,
    /// Whether some normals were made flat, per corner: the mesh is then cut
    /// along every edge where faces meet at an angle.
    pub flat_normals: bool,
    /// The index ranges of the submesh's parts, in order, covering
    /// `indices`; one range for a submesh built whole.
    pub parts: Vec<Range<usize>>,
}

/// Merges the corners of an expanded primitive whose file bytes are equal.
pub(super) fn merge_corners(corners: &[WorkVertex]) -> Merged {
    // Compare the leading `VertexKey` bytes of each corner only, in place
    // (the unpacked normal after them does not take part).
    let key_stream = VertexStream::new_with_stride::<VertexKey, WorkVertex>(
        corners.as_ptr(),
        size_of::<WorkVertex>(),
    );
    let (unique_count, corner_vertex) =
        generate_vertex_remap_multi(corners.len(), &[key_stream], None);
    // Where several corners merge, the last one's unpacked normal is kept; it
    // packs to the same bytes as the others.
    let vertices = remap_vertex_buffer(corners, unique_count, &corner_vertex);
    Merged {
        vertices,
        corner_vertex,
    }
}

/// Drops degenerate triangles, cuts the rest into parts of at most
/// `part_triangles` triangles and optimises the order of both arrays;
/// `flat_normals` says whether some normals were made per corner.
pub(super) fn order_for_gpu(
    label: &str,
    merged: Merged,
    flat_normals: bool,
    part_triangles: usize,
) -> Result<LocalGeometry, BuildError> {
    let indices = without_degenerate_triangles(&merged.corner_vertex);
    if indices.is_empty() {
        return Err(BuildError::OnlyDegenerateTriangles {
            label: label.to_owned(),
            triangles: merged.corner_vertex.len() / 3,
        });
    }
    let (indices, parts) = cut_into_parts(indices, &merged.vertices, part_triangles);
    // Each part keeps its range: the cache order moves triangles within it.
    let indices = jobserver::map(&parts, |part| cache_order(&indices[part.clone()])).concat();
    // Also drops the vertices only degenerate triangles used.
    let (indices, vertices) = fetch_order(&indices, &merged.vertices);
    Ok(LocalGeometry {
        vertices,
        indices,
        flat_normals,
        parts,
    })
}

/// The vertices renumbered in the order `indices` first use them, those no
/// index uses dropped, and the indices rewritten to match: meshoptimizer's
/// vertex fetch order. The numbering is one pass; rewriting the indices and
/// moving the vertices run in chunks on lent threads.
fn fetch_order(indices: &[u32], vertices: &[WorkVertex]) -> (Vec<u32>, Vec<WorkVertex>) {
    let mut new_of = vec![UNUSED; vertices.len()];
    let mut old_of = Vec::with_capacity(vertices.len());
    for &old in indices {
        let new = &mut new_of[old as usize];
        if *new == UNUSED {
            *new = old_of.len() as u32;
            old_of.push(old);
        }
    }
    let indices = map_chunked(indices, |_, &old| new_of[old as usize]);
    let vertices = map_chunked(&old_of, |_, &old| vertices[old as usize]);
    (indices, vertices)
}

/// The triangles of `indices` whose three vertices differ.
fn without_degenerate_triangles(indices: &[u32]) -> Vec<u32> {
    indices
        .chunks_exact(3)
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .flatten()
        .copied()
        .collect()
}
