//! Cutting a large submesh into parts that can be worked on side by side.
//!
//! A submesh of more than [`PART_TRIANGLES`] triangles is cut into
//! `ceil(triangles / PART_TRIANGLES)` parts, at least four, of equal size
//! along meshoptimizer's spatial order of its triangles (a Morton curve
//! through their centres), so that each part is a compact patch of the
//! surface. The vertex cache order, the meshlets and the reduced levels are
//! then made part by part, on whichever lent thread is free, and joined in
//! part order. Where the cuts fall depends on the triangles alone, never on
//! how many threads run, so the bytes do not either.
//!
//! A submesh of at most [`PART_TRIANGLES`] triangles is one part and is built
//! as a whole, without the spatial sort.

use std::ops::Range;

use meshopt::{VertexDataAdapter, optimize_vertex_cache};

use super::BuildError;
use super::chunked::map_chunked;
use super::corners::WorkVertex;

/// The most triangles in one part. Large enough that the seams between parts
/// are a small share of a part's vertices, small enough that a million
/// triangles make eight parts to share among threads.
pub(super) const PART_TRIANGLES: usize = 1 << 17;

/// Where large submeshes are cut for the threads: the same for every thread
/// count, smaller in tests so that small meshes take the same paths.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cuts {
    /// The most triangles in one part ([`PART_TRIANGLES`]).
    pub part_triangles: usize,
    /// Triangles per run of the tangent generator
    /// ([`super::tangents::RUN_TRIANGLES`]).
    pub tangent_run_triangles: usize,
}

impl Cuts {
    /// The cuts of every real build.
    pub const DEFAULT: Cuts = Cuts {
        part_triangles: PART_TRIANGLES,
        tangent_run_triangles: super::tangents::RUN_TRIANGLES,
    };
}

/// The fewest parts a submesh is cut into once it is cut at all: enough for
/// two to four threads to share the work evenly even when one part's level
/// chain takes much longer than its meshlets.
const MIN_PARTS: usize = 4;

/// How many parts a triangle list of `index_count` indices makes: one up to
/// `part_triangles` triangles, else `ceil(triangles / part_triangles)` but at
/// least [`MIN_PARTS`].
pub(super) fn part_count(index_count: usize, part_triangles: usize) -> usize {
    let triangles = index_count / 3;
    if triangles <= part_triangles {
        1
    } else {
        triangles.div_ceil(part_triangles.max(1)).max(MIN_PARTS)
    }
}

/// `indices` grouped into parts of (nearly) equal size along the spatial
/// order of their triangles, with the parts' index ranges; unchanged, as one
/// part, when they have at most `part_triangles` triangles. Triangles keep
/// their order within a part.
pub(super) fn cut_into_parts(
    indices: Vec<u32>,
    vertices: &[WorkVertex],
    part_triangles: usize,
) -> (Vec<u32>, Vec<Range<usize>>) {
    let parts = part_count(indices.len(), part_triangles);
    if parts == 1 {
        let whole = 0..indices.len();
        return (indices, vec![whole]);
    }
    let triangles: &[[u32; 3]] = bytemuck::cast_slice(&indices[..indices.len() / 3 * 3]);
    let keys = triangle_keys(triangles, vertices);
    let cuts = cut_keys(&keys, parts);
    group_by_part(triangles, &keys, &cuts)
}

/// Bits per axis of a triangle's spatial key.
const AXIS_BITS: u32 = 10;
/// The low key bits the second, finer count of [`cut_keys`] looks at.
const FINE_BITS: u32 = 15;

/// Every triangle's place on a Morton curve through the box around
/// `vertices`: its centre quantised to `AXIS_BITS` bits per axis, the bits
/// interleaved.
fn triangle_keys(triangles: &[[u32; 3]], vertices: &[WorkVertex]) -> Vec<u32> {
    let position = |v: u32| vertices[v as usize].key.gpu.position;
    let mut min = [f32::MAX; 3];
    let mut max = [-f32::MAX; 3];
    for vertex in vertices {
        for axis in 0..3 {
            min[axis] = min[axis].min(vertex.key.gpu.position[axis]);
            max[axis] = max[axis].max(vertex.key.gpu.position[axis]);
        }
    }
    let top = ((1u32 << AXIS_BITS) - 1) as f32;
    let scale: [f32; 3] = std::array::from_fn(|axis| {
        let extent = max[axis] - min[axis];
        if extent > 0.0 { top / extent } else { 0.0 }
    });
    map_chunked(triangles, |_, &[a, b, c]| {
        let [pa, pb, pc] = [position(a), position(b), position(c)];
        let cell: [u32; 3] = std::array::from_fn(|axis| {
            let centre = (pa[axis] + pb[axis] + pc[axis]) / 3.0;
            ((centre - min[axis]) * scale[axis]).clamp(0.0, top) as u32
        });
        interleave(cell)
    })
}

/// The bits of three `AXIS_BITS`-bit numbers interleaved, x lowest.
fn interleave(cell: [u32; 3]) -> u32 {
    let spread = |mut v: u32| {
        v &= 0x3ff;
        v = (v | (v << 16)) & 0x0300_00ff;
        v = (v | (v << 8)) & 0x0300_f00f;
        v = (v | (v << 4)) & 0x030c_30c3;
        (v | (v << 2)) & 0x0924_9249
    };
    spread(cell[0]) | (spread(cell[1]) << 1) | (spread(cell[2]) << 2)
}

/// The keys at which `keys` are cut into `parts` parts: cut `k` is the key
/// of rank `k * len / parts` in sorted order. A count of the high bits finds
/// its bucket, a count of the low bits within the bucket the key.
fn cut_keys(keys: &[u32], parts: usize) -> Vec<u32> {
    let fine_mask = (1u32 << FINE_BITS) - 1;
    let coarse = counts(
        keys.iter().map(|key| key >> FINE_BITS),
        3 * AXIS_BITS - FINE_BITS,
    );
    (1..parts)
        .map(|part| {
            let rank = part * keys.len() / parts;
            let (bucket, before) = at_rank(&coarse, rank);
            let in_bucket = keys.iter().filter(|&&key| key >> FINE_BITS == bucket);
            let fine = counts(in_bucket.map(|key| key & fine_mask), FINE_BITS);
            let (low, _) = at_rank(&fine, rank - before);
            (bucket << FINE_BITS) | low
        })
        .collect()
}

/// How many of `values` (each below `1 << bits`) take each value.
fn counts(values: impl Iterator<Item = u32>, bits: u32) -> Vec<usize> {
    let mut counts = vec![0usize; 1 << bits];
    for value in values {
        counts[value as usize] += 1;
    }
    counts
}

/// The value of the element of rank `rank` (from 0) in sorted order, given
/// how many elements take each value, and how many elements are smaller.
fn at_rank(counts: &[usize], rank: usize) -> (u32, usize) {
    let mut before = 0;
    for (value, &count) in counts.iter().enumerate() {
        if rank < before + count {
            return (value as u32, before);
        }
        before += count;
    }
    (counts.len().saturating_sub(1) as u32, before)
}

/// The triangles grouped by part (part `p` holds the keys from cut `p - 1`
/// up to cut `p`), each part in the triangles' order, and the parts' index
/// ranges; empty parts are left out.
fn group_by_part(
    triangles: &[[u32; 3]],
    keys: &[u32],
    cuts: &[u32],
) -> (Vec<u32>, Vec<Range<usize>>) {
    let part_of: Vec<usize> = map_chunked(keys, |_, &key| cuts.partition_point(|&cut| cut <= key));
    let mut starts = vec![0usize; cuts.len() + 2];
    for &part in &part_of {
        starts[part + 1] += 3;
    }
    for part in 1..starts.len() {
        starts[part] += starts[part - 1];
    }
    let mut next = starts.clone();
    let mut grouped = vec![0u32; 3 * triangles.len()];
    for (triangle, &part) in triangles.iter().zip(&part_of) {
        grouped[next[part]..next[part] + 3].copy_from_slice(triangle);
        next[part] += 3;
    }
    let ranges = starts
        .windows(2)
        .map(|pair| pair[0]..pair[1])
        .filter(|range| !range.is_empty())
        .collect();
    (grouped, ranges)
}

/// A part's indices shifted down so that its lowest vertex is 0, so that
/// meshoptimizer's per-vertex tables span only the vertices the part uses.
pub(super) struct Rebased {
    /// The vertex that became 0.
    pub first: u32,
    /// How many vertices the part spans, from `first` to its highest.
    pub span: usize,
    /// The shifted indices.
    pub indices: Vec<u32>,
}

impl Rebased {
    /// Shifts `indices` (not empty) down to start at vertex 0.
    pub fn new(indices: &[u32]) -> Self {
        let first = indices.iter().copied().min().unwrap_or(0);
        let last = indices.iter().copied().max().unwrap_or(0);
        Self {
            first,
            span: (last - first) as usize + 1,
            indices: indices.iter().map(|&i| i - first).collect(),
        }
    }

    /// `indices` of the shifted range moved back to the submesh's numbering.
    pub fn restore(&self, mut indices: Vec<u32>) -> Vec<u32> {
        indices.iter_mut().for_each(|i| *i += self.first);
        indices
    }

    /// The slice of `vertices` the shifted indices point into.
    pub fn vertices<'v, T>(&self, vertices: &'v [T]) -> &'v [T] {
        &vertices[self.first as usize..][..self.span]
    }
}

/// A triangle list (not empty) reordered for the post-transform vertex cache.
pub(super) fn cache_order(indices: &[u32]) -> Vec<u32> {
    let rebased = Rebased::new(indices);
    rebased.restore(optimize_vertex_cache(&rebased.indices, rebased.span))
}

/// A position reader over `vertices` for meshoptimizer.
pub(super) fn position_adapter<'v>(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` triangles in a row along x, each of three fresh vertices,
    /// listed from right to left.
    fn row(n: usize) -> (Vec<u32>, Vec<WorkVertex>) {
        let mut vertices = Vec::new();
        for t in (0..n).rev() {
            for corner in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]] {
                let mut vertex = WorkVertex::default();
                vertex.key.gpu.position = [t as f32 + corner[0], corner[1], 0.0];
                vertices.push(vertex);
            }
        }
        ((0..3 * n as u32).collect(), vertices)
    }

    #[test]
    fn parts_are_even_compact_and_cover_every_triangle_once() {
        assert_eq!(part_count(9, 3), 1);
        assert_eq!(part_count(12, 3), 4);
        assert_eq!(part_count(3 * 300_000, PART_TRIANGLES), 4);
        assert_eq!(part_count(3 * 1_002_528, PART_TRIANGLES), 8);
        let (indices, vertices) = row(1000);
        let (small, whole) = cut_into_parts(indices.clone(), &vertices, 1000);
        assert_eq!(small, indices);
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0], 0..3000);
        let (grouped, parts) = cut_into_parts(indices.clone(), &vertices, 300);
        assert_eq!(parts.len(), 4);
        assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!((parts[0].start, parts[3].end), (0, 3000));
        // Even to the resolution of the keys (1024 cells along the row).
        assert!(
            parts.iter().all(|p| p.len().abs_diff(750) <= 6),
            "{parts:?}"
        );
        // The row is listed right to left; the parts run left to right, and
        // each keeps the listed order.
        let x = |t: &[u32]| vertices[t[0] as usize].key.gpu.position[0];
        for (i, part) in parts.iter().enumerate() {
            let xs: Vec<f32> = grouped[part.clone()].chunks(3).map(x).collect();
            assert!(
                xs.windows(2).all(|w| w[0] > w[1]),
                "part {i} keeps the order"
            );
            if let Some(next) = parts.get(i + 1) {
                let next_max = grouped[next.clone()].chunks(3).map(x).fold(0.0, f32::max);
                assert!(xs.iter().all(|&x| x < next_max));
            }
        }
        let mut sorted = grouped.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, indices);
    }

    #[test]
    fn one_point_makes_one_part() {
        let vertices = vec![WorkVertex::default(); 3];
        let indices: Vec<u32> = [0, 1, 2].repeat(100);
        let (grouped, parts) = cut_into_parts(indices.clone(), &vertices, 10);
        assert_eq!(grouped, indices);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0], 0..300);
    }

    #[test]
    fn rebasing_round_trips() {
        let rebased = Rebased::new(&[7, 9, 8, 12, 7, 9]);
        assert_eq!((rebased.first, rebased.span), (7, 6));
        assert_eq!(rebased.indices, vec![0, 2, 1, 5, 0, 2]);
        assert_eq!(
            rebased.restore(rebased.indices.clone()),
            vec![7, 9, 8, 12, 7, 9]
        );
        let vertices: Vec<u32> = (0..20).collect();
        assert_eq!(rebased.vertices(&vertices), &[7, 8, 9, 10, 11, 12]);
    }
}
