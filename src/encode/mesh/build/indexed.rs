//! Merging an indexed primitive without expanding it to corners.
//!
//! When the source gives every vertex a normal that can be scaled to unit
//! length, which is what exporters write, everything that ends up in the file
//! except the tangent belongs to the source vertex, not to the corner. So each
//! source vertex is packed once, MikkTSpace runs on the indexed triangles
//! (meshoptimizer returns the same per-corner tangents for indexed and
//! expanded input), and a corner is told apart by its vertex's packed bytes
//! plus its own packed tangent.
//!
//! The result is the one [`super::weld::merge_corners`] gives for the
//! expanded primitive, byte for byte: vertices are numbered in the order the
//! corners first appear, and each keeps the unpacked normal of the last corner
//! merged into it. What differs is the cost: one record per source vertex and
//! four bytes per corner instead of a 52-byte record per corner (about a
//! quarter of the memory on a typical mesh, and no 3-way hashing of corners).

use std::collections::HashMap;

use meshopt::{TangentOptions, generate_tangents, generate_vertex_remap};

use super::corners::{VertexKey, WorkVertex, unit_tangent};
use super::vectors::{normalized, positive_zero};
use super::weld::Merged;
use crate::encode::mesh::scene::Primitive;
use crate::format::hmesh::{GpuSkinVertex, GpuVertex};
use crate::format::oct::{oct_encode, oct_encode_tangent};

/// No vertex yet for this packed source vertex.
const UNSEEN: u32 = u32::MAX;

/// Merges a validated primitive's corners, or `None` when some vertex has no
/// usable normal (its corners then take face normals, which differ per
/// corner, and the expanded path handles them). `skin` is one entry per
/// source vertex, or `None` for a scene without a skeleton.
pub(super) fn merge_indexed(
    primitive: &Primitive,
    skin: Option<&[GpuSkinVertex]>,
) -> Option<(Merged, bool)> {
    let normals: Vec<[f32; 3]> = primitive
        .normals
        .as_ref()?
        .iter()
        .map(|&normal| normalized(normal))
        .collect::<Option<_>>()?;
    let packed = packed_vertices(primitive, &normals, skin);
    // Vertices whose packed bytes are equal are one vertex from here on.
    let (_, same_as) = generate_vertex_remap(&packed, None);
    let (tangents, real_tangents) = corner_tangents(primitive, &normals);
    let mut corners = CornerMerge::new(packed.len());
    for (&vertex, &tangent) in primitive.indices.iter().zip(&tangents) {
        corners.add(vertex, same_as[vertex as usize], tangent);
    }
    Some((corners.finish(&packed, &normals), real_tangents))
}

/// Every source vertex in its file form, with a zero tangent.
fn packed_vertices(
    primitive: &Primitive,
    normals: &[[f32; 3]],
    skin: Option<&[GpuSkinVertex]>,
) -> Vec<VertexKey> {
    (0..primitive.positions.len())
        .map(|vertex| {
            let uv = primitive.uvs.as_ref().map_or([0.0; 2], |uvs| uvs[vertex]);
            VertexKey {
                gpu: GpuVertex {
                    position: primitive.positions[vertex].map(positive_zero),
                    normal: oct_encode(normals[vertex]),
                    tangent: [0; 2],
                    uv: uv.map(positive_zero),
                },
                skin: skin.map_or_else(GpuSkinVertex::default, |skin| skin[vertex]),
            }
        })
        .collect()
}

/// The packed tangent of every corner, and whether the tangents are real
/// (from the source or MikkTSpace); the same rules as for expanded corners.
fn corner_tangents(primitive: &Primitive, normals: &[[f32; 3]]) -> (Vec<[i16; 2]>, bool) {
    let pack = |raw: [f32; 4], vertex: u32| {
        let [x, y, z, w] = unit_tangent(raw, normals[vertex as usize]);
        oct_encode_tangent([x, y, z], w)
    };
    let indices = &primitive.indices;
    // A tangent that belongs to the vertex is packed once, then shared by
    // the vertex's corners.
    let per_vertex = |raw: &dyn Fn(usize) -> [f32; 4]| -> Vec<[i16; 2]> {
        let packed: Vec<[i16; 2]> = (0..normals.len()).map(|v| pack(raw(v), v as u32)).collect();
        indices.iter().map(|&v| packed[v as usize]).collect()
    };
    match (&primitive.tangents, &primitive.uvs) {
        (Some(tangents), _) => (per_vertex(&|v| tangents[v]), true),
        (None, Some(uvs)) => {
            let raw = generate_tangents(
                Some(indices),
                &primitive.positions,
                normals,
                uvs,
                TangentOptions::Compatible,
            );
            let packed = raw.iter().zip(indices).map(|(&t, &v)| pack(t, v));
            (packed.collect(), true)
        }
        (None, None) => (per_vertex(&|_| [0.0, 0.0, 0.0, 1.0]), false),
    }
}

/// Numbers distinct (packed vertex, packed tangent) pairs in the order
/// corners bring them.
struct CornerMerge {
    /// For each packed vertex, the first tangent seen with it and its number
    /// ([`UNSEEN`] before any): almost every vertex has a single tangent.
    first: Vec<(u32, [i16; 2])>,
    /// The numbers of further tangents of a packed vertex (UV seams and
    /// mirrors).
    more: HashMap<(u32, [i16; 2]), u32>,
    /// Per number: its tangent and the source vertex of its latest corner.
    merged: Vec<([i16; 2], u32)>,
    /// The number of every corner so far.
    corner_vertex: Vec<u32>,
}

impl CornerMerge {
    /// An empty merge over `packed_count` packed vertices.
    fn new(packed_count: usize) -> Self {
        Self {
            first: vec![(UNSEEN, [0; 2]); packed_count],
            more: HashMap::new(),
            merged: Vec::new(),
            corner_vertex: Vec::new(),
        }
    }

    /// Adds the next corner: source vertex `vertex`, whose packed form is
    /// shared by every vertex with `same_as`, with packed `tangent`.
    fn add(&mut self, vertex: u32, same_as: u32, tangent: [i16; 2]) {
        let next = self.merged.len() as u32;
        let number = match &mut self.first[same_as as usize] {
            (first, first_tangent) if *first == UNSEEN => {
                (*first, *first_tangent) = (next, tangent);
                next
            }
            (first, first_tangent) if *first_tangent == tangent => *first,
            _ => *self.more.entry((same_as, tangent)).or_insert(next),
        };
        if number == next {
            self.merged.push((tangent, vertex));
        }
        self.merged[number as usize].1 = vertex;
        self.corner_vertex.push(number);
    }

    /// The merged vertices: each the packed form of its latest corner's
    /// source vertex with its tangent, and that vertex's unit normal.
    fn finish(self, packed: &[VertexKey], normals: &[[f32; 3]]) -> Merged {
        let vertices = self
            .merged
            .iter()
            .map(|&(tangent, vertex)| {
                let mut key = packed[vertex as usize];
                key.gpu.tangent = tangent;
                WorkVertex {
                    key,
                    normal: normals[vertex as usize],
                }
            })
            .collect();
        Merged {
            vertices,
            corner_vertex: self.corner_vertex,
        }
    }
}
