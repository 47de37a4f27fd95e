//! Configure's side of named packs (`packs:` in `assetc.yml`).
//!
//! Each named pack is one `assetc-link pack --own-manifest` edge writing
//! `<output>.<name>.hpack`. Its members are the jobs whose source matches one
//! of the pack's globs, so every output of a source (a mesh's `.hmesh`,
//! `.hmat`, `.hanim` and textures) goes in together. The part groups
//! ([`super::parts`]) never mix members and non-members, so configure writes
//! the full parts of the pack's groups to `<build>/packs/<name>.list`, the
//! edge's explicit input; those parts and the members' outputs are its
//! implicit inputs, so an edit rebuilds only the packs the edited source
//! belongs to, and adding or removing a member changes a part (or the list)
//! and rebuilds that pack.
//!
//! `<build>/packs/invalidate.list` names every named pack; a failing edge
//! deletes them (`--invalidate-list`), as it deletes the manifest and the
//! single pack, so no pack outlives a failed build. The list is a file rather
//! than flags, and is passed even when empty, so adding, removing or renaming
//! a pack does not change, and so re-run, every encoder's command.

use std::path::Path;

use super::job::Job;
use super::ninja::{Build, Writer};
use super::pack_base::PackBases;
use super::parts::{PartGroup, lines};
use super::paths::join;
use crate::config::Config;
use crate::link::pack::named_pack_path;

/// The Ninja rule of named pack edges.
pub const NAMED_PACK_RULE: &str = "link_named_pack";

/// One named pack in the plan; paths are root-relative.
#[derive(Debug, Clone)]
pub struct PackPlan {
    /// The pack's name.
    pub name: String,
    /// The `.hpack` it writes.
    pub file: String,
    /// The file listing its members' fragments.
    pub list: String,
    /// Indices of its member jobs in the plan.
    pub members: Vec<usize>,
}

/// The root-relative file naming every named pack, one per line.
pub fn invalidate_list(build: &str) -> String {
    join(build, "packs/invalidate.list")
}

/// Plans every named pack of `config` over `jobs`. `output` and `build` are the
/// root-relative output and build folders. Returns the packs and a warning per
/// pack that matches no source (it is still written, holding an empty
/// manifest, so an engine that mounts it finds it).
pub fn plan(
    config: &Config,
    output: &str,
    build: &str,
    jobs: &[Job],
) -> (Vec<PackPlan>, Vec<String>) {
    let mut warnings = Vec::new();
    let packs = config
        .packs
        .iter()
        .map(|pack| {
            let members: Vec<usize> = (0..jobs.len())
                .filter(|&i| pack.contains(&jobs[i].source))
                .collect();
            if members.is_empty() {
                warnings.push(format!(
                    "{}:{}:{}: pack '{}' matches no source; it will hold only an empty assets.hman",
                    config.file.display(),
                    pack.line,
                    pack.column,
                    pack.name
                ));
            }
            PackPlan {
                file: named_pack_path(Path::new(output), &pack.name)
                    .to_string_lossy()
                    .into_owned(),
                list: join(build, &format!("packs/{}.list", pack.name)),
                name: pack.name.clone(),
                members,
            }
        })
        .collect();
    (packs, warnings)
}

/// The named packs each job belongs to (pack indices, ascending), parallel
/// to the jobs.
pub fn packs_of_jobs(packs: &[PackPlan], jobs: usize) -> Vec<Vec<usize>> {
    let mut of = vec![Vec::new(); jobs];
    for (index, pack) in packs.iter().enumerate() {
        for &member in &pack.members {
            if let Some(list) = of.get_mut(member) {
                list.push(index);
            }
        }
    }
    of
}

/// The full parts holding the members of pack `index`: the groups whose
/// jobs all belong to it.
pub fn parts_of(index: usize, groups: &[PartGroup]) -> impl Iterator<Item = &String> {
    groups
        .iter()
        .filter(move |g| g.packs.contains(&index))
        .map(|g| &g.full)
}

impl PackPlan {
    /// The text of its list: the full parts of its groups, one per line.
    pub fn list_text(&self, index: usize, groups: &[PartGroup]) -> String {
        lines(parts_of(index, groups))
    }
}

/// The text of the invalidate list.
pub fn invalidate_text(packs: &[PackPlan]) -> String {
    packs.iter().map(|p| format!("{}\n", p.file)).collect()
}

/// Writes the rule of named pack edges.
pub fn write_rule(w: &mut Writer) {
    w.rule(
        NAMED_PACK_RULE,
        &[
            (
                "command",
                "$link pack $invalidate --own-manifest --root $outroot --fragments $in -o $out $pack_base",
            ),
            ("description", "PACK $out"),
            ("restat", "1"),
        ],
    );
}

/// Writes one edge per pack. `outs` is parallel to the jobs; `groups` are
/// the part groups; `link` is the `assetc-link` program; `bases` holds each
/// pack's shipped base, if any.
pub fn write_edges(
    w: &mut Writer,
    packs: &[PackPlan],
    groups: &[PartGroup],
    outs: &[Vec<String>],
    link: &str,
    bases: &PackBases,
) {
    for (index, pack) in packs.iter().enumerate() {
        let mut implicit: Vec<&str> = parts_of(index, groups).map(String::as_str).collect();
        for &i in &pack.members {
            implicit.extend(outs.get(i).into_iter().flatten().map(String::as_str));
        }
        implicit.push(link);
        let base = bases.named.get(index).and_then(Option::as_deref);
        let vars = bases.edge_vars(base, &mut implicit);
        w.build(&Build {
            outputs: vec![&pack.file],
            rule: NAMED_PACK_RULE,
            inputs: vec![&pack.list],
            implicit,
            vars,
        });
    }
}

/// `--named-pack` flags for the check edge.
pub fn check_args(packs: &[PackPlan]) -> Vec<String> {
    packs
        .iter()
        .flat_map(|p| ["--named-pack".to_string(), p.file.clone()])
        .collect()
}

/// The flag naming the invalidate list, given to every encode and link edge.
/// It is there even without named packs (the list is then empty), so adding
/// the first pack does not change, and so re-run, every edge's command.
pub fn invalidate_args(build: &str) -> Vec<String> {
    vec!["--invalidate-list".to_string(), invalidate_list(build)]
}
