//! The meshlets and reduced levels of every part of every submesh, as one
//! list of independent jobs for [`crate::jobserver::map`].
//!
//! The list holds a level chain and the meshlets of every part of every
//! submesh (see [`job_list`] for the order). Each job reads its submesh and
//! writes nothing shared; the results come back in list order and every
//! part's results are put back in part order, so the file is the same
//! whichever thread ran which job. The first error in list order is the one
//! reported.

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
    let done = jobserver::map(&jobs, |job| -> Result<(usize, Done), BuildError> {
        match *job {
            Job::Levels { submesh, part } => {
                let inputs = inputs[submesh]
                    .get_or_init(|| LevelInputs::new(labels[submesh], &submeshes[submesh]))
                    .as_ref()
                    .map_err(Clone::clone)?;
                let range = submeshes[submesh].parts[part].clone();
                let levels = inputs.part_levels(range, options);
                Ok((submesh, Done::Levels(levels)))
            }
            Job::Meshlets { submesh, part } => {
                let range = submeshes[submesh].parts[part].clone();
                let meshlets = part_meshlets(labels[submesh], &submeshes[submesh], range, options)?;
                Ok((submesh, Done::Meshlets(meshlets)))
            }
        }
    });
    let mut results = vec![PartResults::default(); submeshes.len()];
    for done in done {
        match done? {
            (submesh, Done::Levels(levels)) => results[submesh].levels.push(levels),
            (submesh, Done::Meshlets(meshlets)) => results[submesh].meshlets.push(meshlets),
        }
    }
    Ok(results)
}

/// The jobs for `submeshes`: the first part's level chain of every submesh,
/// the first part's meshlets of every submesh, then the other parts' level
/// chains and meshlets. The first level chain of a submesh gathers what its
/// other chains need; the meshlets keep the other threads busy meanwhile.
/// Within a submesh, parts stay in order.
fn job_list(submeshes: &[LocalGeometry], with_levels: bool, with_meshlets: bool) -> Vec<Job> {
    let parts = |first: bool| {
        submeshes
            .iter()
            .enumerate()
            .flat_map(move |(submesh, local)| {
                let parts = if first { 0..1 } else { 1..local.parts.len() };
                parts.map(move |part| (submesh, part))
            })
    };
    let levels = |first| {
        parts(first)
            .filter(move |_| with_levels)
            .map(|(submesh, part)| Job::Levels { submesh, part })
    };
    let meshlets = |first| {
        parts(first)
            .filter(move |_| with_meshlets)
            .map(|(submesh, part)| Job::Meshlets { submesh, part })
    };
    levels(true)
        .chain(meshlets(true))
        .chain(levels(false))
        .chain(meshlets(false))
        .collect()
}
