//! MikkTSpace tangents of a large indexed primitive, in runs of triangles
//! on the lent threads.
//!
//! meshoptimizer's generator (compatible mode) gives each corner the
//! normalised sum of the face tangents of the corners that share its vertex
//! (same position, normal and UV) and are joined to it through shared edges
//! with the same orientation, summed in triangle order. So a corner's tangent
//! depends only on the triangles around its position. A primitive of more
//! than [`RUN_TRIANGLES`] triangles is cut into runs of that many triangles in
//! index order; each run goes to the generator together with every other
//! triangle that uses one of the run's positions, all in their original
//! order, and keeps the tangents of its own corners. Those are the values
//! the whole primitive gives, bit for bit, except around triangles whose UVs
//! have no area: the generator lets such a triangle take its handedness from
//! a neighbour, which can be found further away than one ring of triangles,
//! so near a run's edge it may pick another. The runs depend on the
//! triangle count alone, so the result is the same at any thread count.

use std::ops::Range;

use meshopt::{TangentOptions, VertexDataAdapter, generate_position_remap, generate_tangents};

use bytemuck::Zeroable;

use super::chunked::map_chunked_with;
use crate::jobserver;

/// Triangles per run.
pub(super) const RUN_TRIANGLES: usize = 1 << 16;

/// No local vertex yet.
const UNSEEN: u32 = u32::MAX;

/// The geometry the generator reads: one position, normal and UV per vertex
/// and a triangle list.
#[derive(Clone, Copy)]
pub(super) struct TangentInput<'a> {
    /// Positions.
    pub positions: &'a [[f32; 3]],
    /// Unit normals.
    pub normals: &'a [[f32; 3]],
    /// UVs.
    pub uvs: &'a [[f32; 2]],
    /// Triangle list into the vertices.
    pub indices: &'a [u32],
}

/// `finish(scratch, corner, tangent)` for the raw MikkTSpace tangent of
/// every corner of `input`, in corner order, computed by runs of
/// `run_triangles` triangles when there are more. Each run (or chunk, for a
/// primitive generated whole) finishes its own corners with a scratch value
/// from `scratch`, which `finish` may use as a cache but must not let change
/// its results.
pub(super) fn corner_tangents<S, R: Zeroable + Send>(
    input: TangentInput<'_>,
    run_triangles: usize,
    scratch: impl Fn() -> S + Sync,
    finish: impl Fn(&mut S, usize, [f32; 4]) -> R + Sync,
) -> Vec<R> {
    let triangles = input.indices.len() / 3;
    let around = if triangles > run_triangles {
        TrianglesAround::new(input)
    } else {
        None
    };
    let Some(around) = around else {
        let raw = whole(input);
        return map_chunked_with(&raw, scratch, |s, corner, &t| finish(s, corner, t));
    };
    let runs: Vec<Range<usize>> = (0..triangles)
        .step_by(run_triangles.max(1))
        .map(|first| first..(first + run_triangles).min(triangles))
        .collect();
    let done = jobserver::map(&runs, |run| {
        let raw = run_tangents(input, &around, run.clone());
        let mut scratch = scratch();
        let first = 3 * run.start;
        let finished = raw.into_iter().enumerate();
        finished
            .map(|(i, t)| finish(&mut scratch, first + i, t))
            .collect::<Vec<R>>()
    });
    let mut all = Vec::with_capacity(input.indices.len());
    for run in done {
        all.extend(run);
    }
    all
}

/// The generator on the whole input.
fn whole(input: TangentInput<'_>) -> Vec<[f32; 4]> {
    generate_tangents(
        Some(input.indices),
        input.positions,
        input.normals,
        input.uvs,
        TangentOptions::Compatible,
    )
}

/// For every position, the triangles that use it, in index order.
struct TrianglesAround {
    /// For each vertex, the first vertex at its position: the position's key.
    first_at: Vec<u32>,
    /// Where each key's triangles start in `triangles` (one entry more than
    /// there are vertices; only keys have triangles).
    starts: Vec<u32>,
    /// The triangles of every key in turn.
    triangles: Vec<u32>,
}

impl TrianglesAround {
    /// Indexes `input`'s triangles by position; `None` if meshoptimizer
    /// cannot read the positions.
    fn new(input: TangentInput<'_>) -> Option<Self> {
        let adapter = VertexDataAdapter::new(
            bytemuck::cast_slice(input.positions),
            size_of::<[f32; 3]>(),
            0,
        )
        .ok()?;
        let first_at = generate_position_remap(&adapter);
        let mut starts = vec![0u32; first_at.len() + 1];
        for &vertex in input.indices {
            starts[first_at[vertex as usize] as usize + 1] += 1;
        }
        for key in 1..starts.len() {
            starts[key] += starts[key - 1];
        }
        let mut next = starts.clone();
        let mut triangles = vec![0u32; input.indices.len()];
        for (corner, &vertex) in input.indices.iter().enumerate() {
            let slot = &mut next[first_at[vertex as usize] as usize];
            triangles[*slot as usize] = (corner / 3) as u32;
            *slot += 1;
        }
        Some(Self {
            first_at,
            starts,
            triangles,
        })
    }

    /// The triangles at `vertex`'s position.
    fn at(&self, vertex: u32) -> &[u32] {
        let key = self.first_at[vertex as usize] as usize;
        &self.triangles[self.starts[key] as usize..self.starts[key + 1] as usize]
    }
}

/// The tangents of the corners of triangles `run`, from the generator run on
/// them and on every triangle around their positions.
fn run_tangents(
    input: TangentInput<'_>,
    around: &TrianglesAround,
    run: Range<usize>,
) -> Vec<[f32; 4]> {
    let (first, end) = (run.start as u32, run.end as u32);
    let own = &input.indices[3 * run.start..3 * run.end];
    let mut others: Vec<u32> = own
        .iter()
        .flat_map(|&vertex| around.at(vertex))
        .copied()
        .filter(|&triangle| triangle < first || triangle >= end)
        .collect();
    others.sort_unstable();
    others.dedup();
    let before = others.partition_point(|&triangle| triangle < first);
    // Every triangle in original order: the neighbours before the run, the
    // run, the neighbours after it.
    let order = others[..before]
        .iter()
        .copied()
        .chain(first..end)
        .chain(others[before..].iter().copied());

    let mut local_of = vec![UNSEEN; input.positions.len()];
    let mut local = LocalInput::default();
    for triangle in order {
        for &vertex in &input.indices[3 * triangle as usize..][..3] {
            let slot = &mut local_of[vertex as usize];
            if *slot == UNSEEN {
                *slot = local.positions.len() as u32;
                local.positions.push(input.positions[vertex as usize]);
                local.normals.push(input.normals[vertex as usize]);
                local.uvs.push(input.uvs[vertex as usize]);
            }
            local.indices.push(*slot);
        }
    }
    let tangents = whole(TangentInput {
        positions: &local.positions,
        normals: &local.normals,
        uvs: &local.uvs,
        indices: &local.indices,
    });
    tangents[3 * before..][..own.len()].to_vec()
}

/// The vertices and triangles of one run with its neighbours, renumbered.
#[derive(Default)]
struct LocalInput {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
}
