//! The meshlets and reduced levels of every part of every submesh, as one
//! list of independent jobs for [`crate::jobserver::map`].
//!
//! The list holds a level chain and the meshlets of every part of every
//! submesh (see [`job_list`] for the order). Each job reads its submesh and
//! writes nothing shared; the results come back in list order and every
//! part's results are put back in part order, so the file is the same
//! whichever thread ran which job. The first error in list order is the one
//! reported.

use std::cmp::Reverse;
use std::sync::OnceLock;

use super::levels::{LevelInputs, PartLevels};
use super::meshlets::{PartMeshlets, part_meshlets};
use super::weld::LocalGeometry;
use super::{BuildError, BuildOptions};
use crate::jobserver;

/// What the parts of one submesh add besides its vertices and indices.
#[derive(Debug, Clone, Default)]
pub(super) struct PartResults {
    /// Per part, its meshlets; empty when meshlets are off.
    pub meshlets: Vec<PartMeshlets>,
    /// Per part, its levels; empty without LOD ratios.
    pub levels: Vec<PartLevels>,
}

/// One job: a part of a submesh, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Job {
    /// The part's chain of reduced levels.
    Levels { submesh: usize, part: usize },
    /// The part's meshlets.
    Meshlets { submesh: usize, part: usize },
}

/// One job's result.
enum Done {
    Levels(PartLevels),
    Meshlets(PartMeshlets),
}

/// The meshlets and levels of every part of `submeshes`, labelled by
/// `labels` for errors.
pub(super) fn run_part_jobs(
    labels: &[&str],
    submeshes: &[LocalGeometry],
    options: &BuildOptions,
) -> Result<Vec<PartResults>, BuildError> {
    let with_levels = !options.lod_ratios.is_empty();
    // What a submesh's level chains share is gathered by the first of them
    // to start, while the other threads make meshlets.
    let inputs: Vec<OnceLock<Result<LevelInputs, BuildError>>> =
        submeshes.iter().map(|_| OnceLock::new()).collect();
    let jobs = job_list(submeshes, with_levels, options.meshlets);
    let done = jobserver::map(&jobs, |job| -> Result<(usize, usize, Done), BuildError> {
        match *job {
            Job::Levels { submesh, part } => {
                let inputs = inputs[submesh]
                    .get_or_init(|| LevelInputs::new(labels[submesh], &submeshes[submesh]))
                    .as_ref()
                    .map_err(Clone::clone)?;
                let range = submeshes[submesh].parts[part].clone();
                let levels = inputs.part_levels(range, options);
                Ok((submesh, part, Done::Levels(levels)))
            }
            Job::Meshlets { submesh, part } => {
                let range = submeshes[submesh].parts[part].clone();
                let meshlets = part_meshlets(labels[submesh], &submeshes[submesh], range, options)?;
                Ok((submesh, part, Done::Meshlets(meshlets)))
            }
        }
    });
    let mut done = done.into_iter().collect::<Result<Vec<_>, _>>()?;
    // Back to scene and part order, whatever order the jobs ran in.
    done.sort_by_key(|&(submesh, part, _)| (submesh, part));
    let mut results = vec![PartResults::default(); submeshes.len()];
    for (submesh, _, done) in done {
        match done {
            Done::Levels(levels) => results[submesh].levels.push(levels),
            Done::Meshlets(meshlets) => results[submesh].meshlets.push(meshlets),
        }
    }
    Ok(results)
}

/// The jobs for `submeshes`, the longest first, so that the threads finish
/// together: every part's level chain and meshlets, ordered by the part's
/// triangle count (largest first; a level chain before the meshlets of a
/// part of the same size; then scene and part order). The meshlets of the
/// first job's part come second: the first level chain of a submesh also
/// gathers what its other chains share, and those meshlets keep another
/// thread busy meanwhile.
fn job_list(submeshes: &[LocalGeometry], with_levels: bool, with_meshlets: bool) -> Vec<Job> {
    let mut sized = Vec::new();
    for (submesh, local) in submeshes.iter().enumerate() {
        for (part, range) in local.parts.iter().enumerate() {
            let triangles = range.len() / 3;
            if with_levels {
                sized.push((triangles, 0, Job::Levels { submesh, part }));
            }
            if with_meshlets {
                sized.push((triangles, 1, Job::Meshlets { submesh, part }));
            }
        }
    }
    // A stable sort: equal keys keep scene and part order.
    sized.sort_by_key(|&(triangles, kind, _)| (Reverse(triangles), kind));
    let mut jobs: Vec<Job> = sized.into_iter().map(|(_, _, job)| job).collect();
    if let Some(&Job::Levels { submesh, part }) = jobs.first() {
        let meshlets = Job::Meshlets { submesh, part };
        if let Some(at) = jobs.iter().position(|job| *job == meshlets) {
            let job = jobs.remove(at);
            jobs.insert(1, job);
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A submesh with parts of these triangle counts (no geometry).
    fn parted(triangles: &[usize]) -> LocalGeometry {
        let mut start = 0;
        let parts = triangles
            .iter()
            .map(|&t| {
                start += 3 * t;
                start - 3 * t..start
            })
            .collect();
        LocalGeometry {
            vertices: Vec::new(),
            indices: Vec::new(),
            flat_normals: false,
            parts,
        }
    }

    #[test]
    fn the_longest_jobs_come_first_with_the_first_part_s_meshlets_second() {
        let submeshes = [parted(&[10]), parted(&[40, 40]), parted(&[20])];
        let (levels, meshlets) = (
            |submesh, part| Job::Levels { submesh, part },
            |submesh, part| Job::Meshlets { submesh, part },
        );
        assert_eq!(
            job_list(&submeshes, true, true),
            [
                levels(1, 0),
                meshlets(1, 0),
                levels(1, 1),
                meshlets(1, 1),
                levels(2, 0),
                meshlets(2, 0),
                levels(0, 0),
                meshlets(0, 0),
            ]
        );
        assert_eq!(
            job_list(&submeshes, false, true),
            [
                meshlets(1, 0),
                meshlets(1, 1),
                meshlets(2, 0),
                meshlets(0, 0)
            ]
        );
    }
}
