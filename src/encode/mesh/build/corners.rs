//! One packed vertex per triangle corner, with every attribute filled in.
//!
//! Working per corner makes the missing attributes simple to derive: a flat
//! normal is the corner's face normal, and MikkTSpace tangents come out one
//! per corner too. Identical corners are merged again afterwards
//! ([`super::weld`]).
//!
//! - Normals: the source normal scaled to unit length; when the source has
//!   none, or a normal is zero, the face normal (a zero-area face gets +Z).
//! - Tangents: the source tangent scaled to unit length; without source
//!   tangents, MikkTSpace (meshoptimizer's compatible mode) when there are
//!   UVs, and otherwise a fixed direction perpendicular to the normal with
//!   handedness +1. A zero tangent also gets that perpendicular direction. A
//!   tangent's handedness is -1 when its `w` is negative and +1 otherwise.
//! - UVs: the source's, or (0, 0).
//! - Skin: see [`super::skin`].

use bytemuck::{Pod, Zeroable};
use meshopt::{TangentOptions, generate_tangents};

use super::chunked::map_chunked;
use super::vectors::{face_normal, normalized, perpendicular, positive_zero};
use crate::encode::mesh::scene::Primitive;
use crate::format::hmesh::{GpuSkinVertex, GpuVertex};
use crate::format::oct::{oct_encode, oct_encode_tangent};

/// What ends up in the file for one vertex: two vertices are the same when
/// these bytes are.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct VertexKey {
    /// The `VTXS` entry.
    pub gpu: GpuVertex,
    /// The `SKIN` entry (all zero when the scene has no skeleton).
    pub skin: GpuSkinVertex,
}

/// A vertex while the submesh is being built: its file form plus the unpacked
/// unit normal, which simplification weighs.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct WorkVertex {
    /// The file form; the position is its first 12 bytes, as meshoptimizer
    /// expects.
    pub key: VertexKey,
    /// The unit normal before packing.
    pub normal: [f32; 3],
}

// meshoptimizer reads positions from the start of each vertex, and welding
// compares the key bytes at the start of each vertex.
const _: () = assert!(std::mem::offset_of!(WorkVertex, key) == 0);
const _: () = assert!(std::mem::offset_of!(VertexKey, gpu) == 0);
const _: () = assert!(std::mem::offset_of!(GpuVertex, position) == 0);

/// A primitive expanded to one vertex per index.
#[derive(Debug, Clone)]
pub(super) struct Corners {
    /// Corner `i` belongs to `indices[i]` of the primitive.
    pub vertices: Vec<WorkVertex>,
    /// Whether the tangents came from the source or from MikkTSpace (rather
    /// than the fallback without UVs).
    pub real_tangents: bool,
}

/// Expands a validated primitive. `skin` is one entry per source vertex, or
/// `None` for a scene without a skeleton.
pub(super) fn expand_corners(primitive: &Primitive, skin: Option<&[GpuSkinVertex]>) -> Corners {
    let corner_vertex: Vec<usize> = map_chunked(&primitive.indices, |_, &i| i as usize);
    // Indexing below is safe: validation checked every index against the
    // position count and every attribute's length against it.
    let positions: Vec<[f32; 3]> = map_chunked(&corner_vertex, |_, &v| primitive.positions[v]);
    let normals = corner_normals(primitive, &corner_vertex, &positions);
    let uvs: Option<Vec<[f32; 2]>> = primitive
        .uvs
        .as_ref()
        .map(|uvs| map_chunked(&corner_vertex, |_, &v| uvs[v]));
    let (tangents, real_tangents) = corner_tangents(
        primitive,
        &corner_vertex,
        &positions,
        &normals,
        uvs.as_deref(),
    );

    let vertices = map_chunked(&corner_vertex, |corner, &vertex| {
        let [x, y, z, w] = tangents[corner];
        let uv = uvs.as_ref().map_or([0.0; 2], |uvs| uvs[corner]);
        let gpu = GpuVertex {
            position: positions[corner].map(positive_zero),
            normal: oct_encode(normals[corner]),
            tangent: oct_encode_tangent([x, y, z], w),
            uv: uv.map(positive_zero),
        };
        let skin = skin.map_or_else(GpuSkinVertex::default, |skin| skin[vertex]);
        WorkVertex {
            key: VertexKey { gpu, skin },
            normal: normals[corner],
        }
    });
    Corners {
        vertices,
        real_tangents,
    }
}

/// The unit normal of every corner.
fn corner_normals(
    primitive: &Primitive,
    corner_vertex: &[usize],
    positions: &[[f32; 3]],
) -> Vec<[f32; 3]> {
    let triangles: Vec<usize> = (0..positions.len() / 3).collect();
    let per_triangle = map_chunked(&triangles, |_, &t| {
        let triangle = &positions[3 * t..][..3];
        let vertices: [usize; 3] = std::array::from_fn(|k| corner_vertex[3 * t + k]);
        let mut face = None;
        vertices.map(|vertex| {
            let source = primitive
                .normals
                .as_ref()
                .and_then(|normals| normalized(normals[vertex]));
            source.unwrap_or_else(|| {
                *face.get_or_insert_with(|| face_normal(triangle[0], triangle[1], triangle[2]))
            })
        })
    });
    per_triangle.into_iter().flatten().collect()
}

/// The unit tangent and handedness (±1) of every corner, and whether they are
/// real (from the source or MikkTSpace).
fn corner_tangents(
    primitive: &Primitive,
    corner_vertex: &[usize],
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uvs: Option<&[[f32; 2]]>,
) -> (Vec<[f32; 4]>, bool) {
    let (raw, real): (Vec<[f32; 4]>, bool) = match (&primitive.tangents, uvs) {
        (Some(tangents), _) => (corner_vertex.iter().map(|&v| tangents[v]).collect(), true),
        // Unindexed input: one tangent per corner comes back. All three
        // slices have one entry per corner, as generate_tangents requires.
        (None, Some(uvs)) => (
            generate_tangents(None, positions, normals, uvs, TangentOptions::Compatible),
            true,
        ),
        (None, None) => (vec![[0.0, 0.0, 0.0, 1.0]; positions.len()], false),
    };
    let tangents = map_chunked(&raw, |corner, &raw| unit_tangent(raw, normals[corner]));
    (tangents, real)
}

/// A raw tangent (source, MikkTSpace or the `[0, 0, 0, 1]` stand-in) as the
/// unit direction and ±1 handedness the file packs; a zero direction becomes
/// one perpendicular to `normal`.
pub(super) fn unit_tangent([x, y, z, w]: [f32; 4], normal: [f32; 3]) -> [f32; 4] {
    let [tx, ty, tz] = normalized([x, y, z]).unwrap_or_else(|| perpendicular(normal));
    let handedness = if w < 0.0 { -1.0 } else { 1.0 };
    [tx, ty, tz, handedness]
}
