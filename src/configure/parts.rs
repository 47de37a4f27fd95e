//! Configure's side of the two-level link: the groups of fragments that are
//! merged into part files before the top-level link steps.
//!
//! Jobs are grouped by the folder of their source and by the named packs they
//! belong to, and a group holds at most [`MAX_PART_FRAGMENTS`] jobs (in job
//! order). So every group lies inside one folder, and a named pack takes whole
//! groups. Each group is one `link_part` edge (see [`crate::link::part`]):
//!
//! ```ninja
//! build .assetc/default/link/<id>.entries .assetc/default/link/<id>.part: link_part .assetc/default/link/<id>.list | <its fragments> assetc-link
//!   folder = assets/textures/rocks/ in level1
//! ```
//!
//! `<id>` is the first 16 hex digits of the BLAKE3 hash of the folder, the
//! packs and the chunk number, so adding a source to one folder changes no
//! other group's files or command. The manifest and ids edges read
//! `link/entries.list` (every entries part), the single pack
//! `link/parts.list` (every full part), and a named pack the full parts of its
//! groups.

use std::collections::BTreeMap;

use super::ninja::{Build, Writer};
use super::paths::join;
use crate::link::part::MAX_PART_FRAGMENTS;

/// The Ninja rule of part edges.
pub const PART_RULE: &str = "link_part";

/// One group of jobs merged into a pair of parts; paths are root-relative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartGroup {
    /// The folder of its sources, relative to the input folder (`""` at the top).
    pub folder: String,
    /// The file listing its fragments (the edge's input).
    pub list: String,
    /// The entries part it writes.
    pub entries: String,
    /// The full part it writes.
    pub full: String,
    /// The named packs (indices) every one of its jobs belongs to.
    pub packs: Vec<usize>,
    /// Indices of its fragments among the plan's (the jobs', then the
    /// left-out sources'), in plan order.
    pub jobs: Vec<usize>,
    /// Which slice of its folder and packs' jobs it is, from 0.
    pub chunk: usize,
}

impl PartGroup {
    /// How its edge's progress line names it, uniquely: the folder below the
    /// root-relative `input` folder with a slash (`assets/textures/`, or
    /// `top folder` when the input is the root itself), the named packs of
    /// its jobs (`pack_names` by index), and its slice when the folder is
    /// split (`part 2`).
    pub fn label(&self, input: &str, pack_names: &[&str]) -> String {
        let mut label = match (input, self.folder.as_str()) {
            (".", "") => "top folder".to_owned(),
            (".", folder) => format!("{folder}/"),
            (input, "") => format!("{input}/"),
            (input, folder) => format!("{input}/{folder}/"),
        };
        if !self.packs.is_empty() {
            let names: Vec<&str> = self
                .packs
                .iter()
                .map(|&index| pack_names.get(index).copied().unwrap_or("?"))
                .collect();
            label.push_str(&format!(" in {}", names.join(", ")));
        }
        if self.chunk > 0 {
            label.push_str(&format!(" part {}", self.chunk + 1));
        }
        label
    }
}

/// The groups of the fragments whose sources are `sources` (the jobs' in
/// plan order, then those of the sources configure left out). `packs_of`
/// gives the named packs (indices) each job belongs to (none past its end);
/// `build` is the root-relative build folder.
pub fn plan(sources: &[&str], packs_of: &[Vec<usize>], build: &str) -> Vec<PartGroup> {
    let mut by_key: BTreeMap<(&str, &[usize]), Vec<usize>> = BTreeMap::new();
    for (index, source) in sources.iter().enumerate() {
        let packs = packs_of.get(index).map_or(&[][..], Vec::as_slice);
        by_key
            .entry((folder_of(source), packs))
            .or_default()
            .push(index);
    }
    let mut groups = Vec::new();
    for ((folder, packs), members) in by_key {
        for (chunk, jobs) in members.chunks(MAX_PART_FRAGMENTS).enumerate() {
            let id = group_id(folder, packs, chunk);
            let file = |ext: &str| join(build, &format!("link/{id}.{ext}"));
            groups.push(PartGroup {
                folder: folder.to_owned(),
                list: file("list"),
                entries: file("entries"),
                full: file("part"),
                packs: packs.to_vec(),
                jobs: jobs.to_vec(),
                chunk,
            });
        }
    }
    groups
}

/// The folder part of a `/`-separated source path.
fn folder_of(source: &str) -> &str {
    source.rfind('/').map_or("", |slash| &source[..slash])
}

/// A short stable name for a group: the folder, packs and chunk hashed.
fn group_id(folder: &str, packs: &[usize], chunk: usize) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(folder.as_bytes());
    for pack in packs {
        hasher.update(format!("\0pack {pack}").as_bytes());
    }
    hasher.update(format!("\0chunk {chunk}").as_bytes());
    hasher.finalize().to_hex()[..16].to_owned()
}

/// The root-relative file listing every entries part (the manifest's and the
/// ids' input).
pub fn entries_list(build: &str) -> String {
    join(build, "link/entries.list")
}

/// The root-relative file listing every full part (the single pack's input).
pub fn parts_list(build: &str) -> String {
    join(build, "link/parts.list")
}

/// The lists configure writes for the parts, root-relative, with their text:
/// each group's fragment list, then the entries and parts lists.
pub fn list_files(
    groups: &[PartGroup],
    fragments: &[String],
    build: &str,
) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = groups
        .iter()
        .map(|g| {
            let members = g.jobs.iter().filter_map(|&i| fragments.get(i));
            (g.list.clone(), lines(members))
        })
        .collect();
    files.push((
        entries_list(build),
        lines(groups.iter().map(|g| &g.entries)),
    ));
    files.push((parts_list(build), lines(groups.iter().map(|g| &g.full))));
    files
}

/// One path per line.
pub fn lines<'a>(paths: impl Iterator<Item = &'a String>) -> String {
    paths.map(|p| format!("{p}\n")).collect()
}

/// Every file the parts add to the graph (lists and parts), root-relative.
pub fn all_files(groups: &[PartGroup], build: &str) -> Vec<String> {
    let mut all = vec![entries_list(build), parts_list(build)];
    for g in groups {
        all.extend([g.list.clone(), g.entries.clone(), g.full.clone()]);
    }
    all
}

/// The names a part edge's progress line uses: the root-relative input
/// folder and the named packs' names, by index.
pub struct PartNames<'a> {
    /// The root-relative input folder.
    pub input: &'a str,
    /// The named packs' names, in plan order.
    pub packs: Vec<&'a str>,
}

/// Writes one `link_part` edge per group. `fragments` is parallel to the
/// jobs; `link` is the `assetc-link` program.
pub fn write_edges(
    w: &mut Writer,
    groups: &[PartGroup],
    fragments: &[String],
    link: &str,
    names: &PartNames,
) {
    for g in groups {
        let mut implicit: Vec<&str> = g
            .jobs
            .iter()
            .filter_map(|&i| fragments.get(i).map(String::as_str))
            .collect();
        implicit.push(link);
        w.build(&Build {
            outputs: vec![&g.entries, &g.full],
            rule: PART_RULE,
            inputs: vec![&g.list],
            implicit,
            vars: vec![("folder", g.label(names.input, &names.packs))],
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_follow_folders_and_packs() {
        let jobs = ["a.bin", "ui/b.bin", "ui/c/d.bin", "ui/e.bin"];
        let packs = [vec![], vec![0], vec![0], vec![]];
        let groups = plan(&jobs, &packs, ".assetc/default");
        let members: Vec<(&str, &[usize])> = groups
            .iter()
            .map(|g| (g.folder.as_str(), g.jobs.as_slice()))
            .collect();
        assert_eq!(
            members,
            [("", &[0][..]), ("ui", &[3]), ("ui", &[1]), ("ui/c", &[2])]
        );
        assert!(groups[0].list.starts_with(".assetc/default/link/"));
        assert!(groups[0].list.ends_with(".list") && groups[0].full.ends_with(".part"));
    }

    #[test]
    fn names_do_not_move_when_another_folder_grows() {
        let before = plan(&["a/x.bin", "b/y.bin"], &[], "b");
        let after = plan(&["a/w.bin", "a/x.bin", "b/y.bin"], &[], "b");
        let files = |g: &PartGroup| (g.list.clone(), g.entries.clone(), g.full.clone());
        assert_eq!(files(&before[1]), files(&after[1]));
        assert_eq!(before[0].list, after[0].list);
        assert_eq!(
            (after[0].jobs.len(), after[1].jobs.as_slice()),
            (2, &[2][..])
        );
    }

    #[test]
    fn large_folders_are_split() {
        let names: Vec<String> = (0..MAX_PART_FRAGMENTS + 1)
            .map(|i| format!("f/{i:04}.bin"))
            .collect();
        let sources: Vec<&str> = names.iter().map(String::as_str).collect();
        let groups = plan(&sources, &[], "b");
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[1].jobs, [MAX_PART_FRAGMENTS]);
        assert_ne!(groups[0].list, groups[1].list);
        let labels: Vec<String> = groups.iter().map(|g| g.label("assets", &[])).collect();
        assert_eq!(labels, ["assets/f/", "assets/f/ part 2"]);
    }

    #[test]
    fn every_group_has_its_own_label() {
        let jobs = ["a.bin", "ui/b.bin", "ui/c/d.bin", "ui/e.bin", "ui/f.bin"];
        let packs = [vec![], vec![0], vec![0], vec![], vec![0, 1]];
        let groups = plan(&jobs, &packs, ".assetc/default");
        let labels = |input| -> Vec<String> {
            groups
                .iter()
                .map(|g| g.label(input, &["preload", "level1"]))
                .collect()
        };
        assert_eq!(
            labels("assets"),
            [
                "assets/",
                "assets/ui/",
                "assets/ui/ in preload",
                "assets/ui/ in preload, level1",
                "assets/ui/c/ in preload"
            ]
        );
        assert_eq!(labels(".")[..2], ["top folder", "ui/"]);
    }
}
