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
//!
//! Packing the vertices and making the tangents run side by side when a
//! thread is lent; MikkTSpace runs by runs of triangles (`super::tangents`)
//! and the packing by fixed chunks, so the result does not depend on the
//! thread count.

use std::collections::HashMap;

use meshopt::generate_vertex_remap;

use super::chunked::map_chunked;
use super::corners::{VertexKey, WorkVertex, unit_tangent};
use super::tangents::{self, TangentInput};
use super::vectors::{normalized, positive_zero};
use super::weld::Merged;
use crate::encode::mesh::scene::Primitive;
use crate::format::hmesh::{GpuSkinVertex, GpuVertex};
use crate::format::oct::{oct_encode, oct_encode_tangent};
use crate::jobserver;

/// No vertex yet for this packed source vertex.
const UNSEEN: u32 = u32::MAX;

/// Merges a validated primitive's corners, or `None` when some vertex has no
/// usable normal (its corners then take face normals, which differ per
/// corner, and the expanded path handles them). `skin` is one entry per
/// source vertex, or `None` for a scene without a skeleton.
pub(super) fn merge_indexed(
    primitive: &Primitive,
    skin: Option<&[GpuSkinVertex]>,
    tangent_run_triangles: usize,
) -> Option<(Merged, bool)> {
    // A normal with no usable direction comes back as NaN, which no unit
    // normal is: then the primitive takes the expanded path.
    let normals: Vec<[f32; 3]> = map_chunked(primitive.normals.as_ref()?, |_, &normal| {
        normalized(normal).unwrap_or([f32::NAN; 3])
    });
    if normals.iter().any(|n| n[0].is_nan()) {
        return None;
    }
    // Packing the vertices and making the corners' tangents do not depend on
    // each other: they run side by side when a thread is lent. The calling
    // thread takes the longer tangents, so that the thread lent for the
    // vertices is free again when the tangents are packed in chunks.
    let halves = jobserver::map(&[Half::Tangents, Half::Vertices], |half| match half {
        Half::Vertices => {
            let packed = packed_vertices(primitive, &normals, skin);
            // Vertices whose packed bytes are equal are one vertex from here on.
            let (_, same_as) = generate_vertex_remap(&packed, None);
            HalfDone::Vertices(packed, same_as)
        }
        Half::Tangents => {
            let (tangents, real) = corner_tangents(primitive, &normals, tangent_run_triangles);
            HalfDone::Tangents(tangents, real)
        }
    });
    let (mut vertices, mut tangents) = (None, None);
    for done in halves {
        match done {
            HalfDone::Vertices(packed, same_as) => vertices = Some((packed, same_as)),
            HalfDone::Tangents(packed, real) => tangents = Some((packed, real)),
        }
    }
    let ((packed, same_as), (tangents, real_tangents)) = (vertices?, tangents?);
    let mut corners = CornerMerge::new(packed.len());
    for (&vertex, &tangent) in primitive.indices.iter().zip(&tangents) {
        corners.add(vertex, same_as[vertex as usize], tangent);
    }
    Some((corners.finish(&packed, &normals), real_tangents))
}

/// The two independent halves of [`merge_indexed`].
enum Half {
    /// Pack every source vertex and find the equal ones.
    Vertices,
    /// Make and pack every corner's tangent.
    Tangents,
}

/// What a [`Half`] gives.
enum HalfDone {
    /// The packed vertices, and for each the first vertex equal to it.
    Vertices(Vec<VertexKey>, Vec<u32>),
    /// Every corner's packed tangent, and whether the tangents are real.
    Tangents(Vec<[i16; 2]>, bool),
}

/// Every source vertex in its file form, with a zero tangent.
fn packed_vertices(
    primitive: &Primitive,
    normals: &[[f32; 3]],
    skin: Option<&[GpuSkinVertex]>,
) -> Vec<VertexKey> {
    map_chunked(&primitive.positions, |vertex, &position| {
        let uv = primitive.uvs.as_ref().map_or([0.0; 2], |uvs| uvs[vertex]);
        VertexKey {
            gpu: GpuVertex {
                position: position.map(positive_zero),
                normal: oct_encode(normals[vertex]),
                tangent: [0; 2],
                uv: uv.map(positive_zero),
            },
            skin: skin.map_or_else(GpuSkinVertex::default, |skin| skin[vertex]),
        }
    })
}

/// The packed tangent of every corner, and whether the tangents are real
/// (from the source or MikkTSpace); the same rules as for expanded corners.
fn corner_tangents(
    primitive: &Primitive,
    normals: &[[f32; 3]],
    run_triangles: usize,
) -> (Vec<[i16; 2]>, bool) {
    let pack = |raw: [f32; 4], vertex: u32| {
        let [x, y, z, w] = unit_tangent(raw, normals[vertex as usize]);
        oct_encode_tangent([x, y, z], w)
    };
    let indices = &primitive.indices;
    // A tangent that belongs to the vertex is packed once, then shared by
    // the vertex's corners.
    let per_vertex = |raw: &(dyn Fn(usize) -> [f32; 4] + Sync)| -> Vec<[i16; 2]> {
        let packed = map_chunked(normals, |v, _| pack(raw(v), v as u32));
        indices.iter().map(|&v| packed[v as usize]).collect()
    };
    match (&primitive.tangents, &primitive.uvs) {
        (Some(tangents), _) => (per_vertex(&|v| tangents[v]), true),
        (None, Some(uvs)) => {
            let input = TangentInput {
                positions: &primitive.positions,
                normals,
                uvs,
                indices,
            };
            // A vertex's corners mostly share one tangent: pack it once.
            let packed = tangents::corner_tangents(
                input,
                run_triangles,
                RecentTangents::new,
                |recent, corner, raw| recent.packed(raw, indices[corner], pack),
            );
            (packed, true)
        }
        (None, None) => (per_vertex(&|_| [0.0, 0.0, 0.0, 1.0]), false),
    }
}

/// The packed tangents of the vertices seen last, a few thousand slots
/// chosen by vertex number, so that the corners of a vertex that share its
/// tangent are packed once.
struct RecentTangents {
    /// Per slot: the vertex, the raw tangent's bits and the packed tangent.
    slots: Vec<(u32, [u32; 4], [i16; 2])>,
}

impl RecentTangents {
    /// Slots (a power of two).
    const SLOTS: usize = 1 << 12;

    /// An empty table.
    fn new() -> Self {
        Self {
            slots: vec![(u32::MAX, [0; 4], [0; 2]); Self::SLOTS],
        }
    }

    /// `pack(raw, vertex)`, from the table when it was the last packed there.
    fn packed(
        &mut self,
        raw: [f32; 4],
        vertex: u32,
        pack: impl Fn([f32; 4], u32) -> [i16; 2],
    ) -> [i16; 2] {
        let bits = raw.map(f32::to_bits);
        let slot = &mut self.slots[vertex as usize & (Self::SLOTS - 1)];
        if slot.0 != vertex || slot.1 != bits {
            *slot = (vertex, bits, pack(raw, vertex));
        }
        slot.2
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
