//! The floors of `src/`, checked: no import climbs a floor, and no two
//! files (or sibling folders) import each other in a circle.
//!
//! Every top-level module of the crate (a file or a folder below `src/`) sits
//! on a floor ([`FLOORS`]); a module may import from its own floor's
//! neighbours only what is below it, never from a floor above. Inside every
//! folder, the files and subfolders that are siblings import each other
//! without a circle, and so do any two files. A module's own file (`mod.rs`,
//! `lib.rs`, or `obj.rs` beside `obj/`) may use and re-export what lies below
//! it; a submodule that reaches back into it is an ordinary import and
//! counts.
//!
//! The imports are read from the source as text: every `use crate::…`,
//! `use super::…` and `use self::…` statement (braces expanded) and every
//! `crate::…` path in the code. Test code is left out: files declared under
//! `#[cfg(test)]`, and everything after a file's inline `#[cfg(test)]`
//! `mod tests {`. docs/ARCHITECTURE.md explains the floors.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The floors, lowest first. A module may import from lower floors and from
/// its own module; modules on one floor do not import each other.
const FLOORS: &[&[&str]] = &[
    &["format"],
    &[
        "hot_reload",
        "fsutil",
        "cli",
        "depfile",
        "shell",
        "jobserver",
    ],
    &["fragment", "config"],
    &["encode"],
    &["cache", "link"],
    &["inspect", "build"],
    &["configure", "view", "watch"],
    &["app"],
    &["bin"],
    &["lib"],
];

/// Imports that may climb or close a circle, as `from -> to` file pairs.
/// It starts, and should stay, empty.
const ALLOWED: &[(&str, &str)] = &[];

/// One source file of the crate.
struct SourceFile {
    /// Its path below `src/`, `/`-separated.
    rel: String,
    /// Its module path (`encode::mesh::compile`), empty for `lib.rs`.
    module: Vec<String>,
    /// The production part of its text.
    code: String,
}

#[test]
fn no_import_climbs_a_floor() {
    let files = read_crate();
    let modules = module_index(&files);
    let mut climbs = Vec::new();
    for file in &files {
        let from = floor_of(&file.module, &file.rel);
        for target in imported_files(file, &modules) {
            let to_file = &files[target];
            let to = floor_of(&to_file.module, &to_file.rel);
            let same_room = file.module.first() == to_file.module.first();
            if !same_room && to >= from && !allowed(&file.rel, &to_file.rel) {
                climbs.push(format!(
                    "{} (floor {from}) imports {} (floor {to})",
                    file.rel, to_file.rel
                ));
            }
        }
    }
    climbs.sort();
    climbs.dedup();
    assert!(
        climbs.is_empty(),
        "imports that climb a floor:\n{}",
        climbs.join("\n")
    );
}

#[test]
fn no_files_or_sibling_folders_import_each_other() {
    let files = read_crate();
    let modules = module_index(&files);
    let mut file_edges: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (index, file) in files.iter().enumerate() {
        for target in imported_files(file, &modules) {
            if target != index && !is_own_descendant(file, &files[target]) {
                file_edges.insert((index, target));
            }
        }
    }
    let mut circles = Vec::new();
    // Between sibling entries of every folder: a file or a subfolder is one
    // node, named by its module path below the folder.
    let mut sibling_edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
    for &(from, to) in &file_edges {
        let (a, b) = (&files[from].module, &files[to].module);
        let shared = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        if shared < a.len() && shared < b.len() {
            sibling_edges.insert((a[..=shared].to_vec(), b[..=shared].to_vec()));
        }
    }
    for cycle in cycles(&sibling_edges) {
        let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
        if !names.windows(2).all(|w| allowed(&w[0], &w[1])) {
            circles.push(names.join(" -> "));
        }
    }
    let edges: BTreeSet<(Vec<String>, Vec<String>)> = file_edges
        .iter()
        .map(|&(a, b)| (vec![files[a].rel.clone()], vec![files[b].rel.clone()]))
        .collect();
    for cycle in cycles(&edges) {
        let names: Vec<String> = cycle.iter().map(|m| m.join("")).collect();
        circles.push(names.join(" -> "));
    }
    circles.sort();
    circles.dedup();
    assert!(
        circles.is_empty(),
        "imports in a circle:\n{}",
        circles.join("\n")
    );
}

/// Whether `allowed` lists the import `from -> to`.
fn allowed(from: &str, to: &str) -> bool {
    ALLOWED.contains(&(from, to))
}

/// The floor of a module; `bin/*.rs` and `lib.rs` sit above everything.
fn floor_of(module: &[String], rel: &str) -> usize {
    let room = if rel.starts_with("bin/") {
        "bin"
    } else {
        module.first().map_or("lib", String::as_str)
    };
    FLOORS
        .iter()
        .position(|floor| floor.contains(&room))
        .unwrap_or_else(|| {
            panic!("src/{rel}: module `{room}` is on no floor of tests/integration/layers.rs")
        })
}

/// Whether `target` lies below `file`'s own module (a module file using or
/// re-exporting its submodules: `mod.rs`, `lib.rs`, or `obj.rs` beside its
/// folder `obj/`).
fn is_own_descendant(file: &SourceFile, target: &SourceFile) -> bool {
    target.module.len() > file.module.len() && target.module.starts_with(&file.module)
}

/// Every elementary cycle's node list (each reported once, from its smallest
/// node), found from each strongly connected group.
fn cycles(edges: &BTreeSet<(Vec<String>, Vec<String>)>) -> Vec<Vec<Vec<String>>> {
    let mut next: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    let mut found = Vec::new();
    for start in next.keys() {
        // The shortest way back to `start`, by breadth-first search.
        let mut came_from: BTreeMap<&Vec<String>, &Vec<String>> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([*start]);
        while let Some(node) = queue.pop_front() {
            for &to in next.get(node).into_iter().flatten() {
                if to == *start {
                    let mut path = vec![node.clone()];
                    let mut at = node;
                    while at != *start {
                        at = came_from[at];
                        path.push(at.clone());
                    }
                    path.reverse();
                    if path.iter().min() == Some(start) {
                        path.push((*start).clone());
                        found.push(path);
                    }
                    queue.clear();
                    break;
                }
                if to != *start && !came_from.contains_key(to) {
                    came_from.insert(to, node);
                    queue.push_back(to);
                }
            }
        }
    }
    found
}

/// Reads every production source file of the crate.
fn read_crate() -> Vec<SourceFile> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    collect_rs(&src, &mut paths);
    paths.sort();
    let test_only = test_only_files(&paths);
    paths
        .into_iter()
        .filter(|path| !test_only.contains(path))
        .map(|path| {
            let rel = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&path).unwrap();
            SourceFile {
                module: module_path(&rel),
                code: production_part(&text),
                rel,
            }
        })
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Files a `#[cfg(test)] mod name;` declares (with their own submodules).
fn test_only_files(paths: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut test_only = BTreeSet::new();
    for path in paths {
        let text = fs::read_to_string(path).unwrap();
        let dir = module_dir(path);
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if line.trim() != "#[cfg(test)]" {
                continue;
            }
            let Some(next) = lines.peek() else { break };
            let declared = next
                .trim()
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(name) = declared
                .strip_prefix("mod ")
                .and_then(|r| r.strip_suffix(';'))
            {
                test_only.insert(dir.join(format!("{name}.rs")));
                test_only.extend(
                    paths
                        .iter()
                        .filter(|p| p.starts_with(dir.join(name)))
                        .cloned(),
                );
            }
        }
    }
    test_only
}

/// The folder holding the submodules `path` declares.
fn module_dir(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap().to_string_lossy();
    let parent = path.parent().unwrap();
    if name == "mod.rs" || name == "lib.rs" || parent.ends_with("bin") {
        parent.to_path_buf()
    } else {
        parent.join(path.file_stem().unwrap())
    }
}

/// `encode/mesh/compile.rs` is `encode::mesh::compile`; `a/mod.rs` is `a`.
fn module_path(rel: &str) -> Vec<String> {
    let without = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = without.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The lines before an inline test module, comments left out.
fn production_part(text: &str) -> String {
    let mut code = String::new();
    let mut previous = "";
    for line in text.lines() {
        let trimmed = line.trim_start();
        if previous.trim() == "#[cfg(test)]"
            && trimmed.starts_with("mod ")
            && line.trim_end().ends_with('{')
        {
            break;
        }
        if !trimmed.starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
        previous = line;
    }
    code
}

/// Module path → file index.
fn module_index(files: &[SourceFile]) -> BTreeMap<Vec<String>, usize> {
    files
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.rel.starts_with("bin/"))
        .map(|(i, f)| (f.module.clone(), i))
        .collect()
}

/// The files `file` imports from, resolved to the deepest module each path
/// names.
fn imported_files(file: &SourceFile, modules: &BTreeMap<Vec<String>, usize>) -> BTreeSet<usize> {
    let mut targets = BTreeSet::new();
    for path in import_paths(&file.code) {
        let absolute = match path.first().map(String::as_str) {
            Some("crate") => path[1..].to_vec(),
            Some("super") => {
                let mut at = file.module.clone();
                let mut rest = &path[..];
                while rest.first().is_some_and(|p| p == "super") {
                    at.pop();
                    rest = &rest[1..];
                }
                at.extend(rest.iter().cloned());
                at
            }
            Some("self") => {
                let mut at = file.module.clone();
                at.extend(path[1..].iter().cloned());
                at
            }
            _ => continue,
        };
        if let Some(target) = deepest_module(&absolute, modules) {
            targets.insert(target);
        }
    }
    targets
}

/// The file of the longest prefix of `path` that is a module.
fn deepest_module(path: &[String], modules: &BTreeMap<Vec<String>, usize>) -> Option<usize> {
    (1..=path.len())
        .rev()
        .find_map(|len| modules.get(&path[..len]).copied())
}

/// Every path a file imports: `use` statements with braces expanded, and
/// `crate::…` paths written in the code.
fn import_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        let after = &rest[at..];
        let end = after.find(';').unwrap_or(after.len());
        expand(after[4..end].trim(), &mut Vec::new(), &mut paths);
        rest = &after[end..];
    }
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let path: Vec<String> = code[at..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .next()
            .unwrap_or_default()
            .split("::")
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        paths.push(path);
    }
    paths
}

/// The start of the next `use ` statement at a line's start (after
/// `pub`/`pub(crate)`).
fn find_use(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let stripped = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub(super) "))
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        if stripped.starts_with("use ") {
            return Some(offset + (line.len() - stripped.len()));
        }
        offset += line.len();
    }
    None
}

/// Expands one `use` tree (`a::{b, c::d}`) into full paths after `prefix`.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(head);
        for part in split_top_level(inner) {
            expand(part, prefix, out);
        }
        prefix.truncate(depth);
        return;
    }
    let name = tree.split(" as ").next().unwrap_or(tree).trim();
    let mut path = prefix.clone();
    path.extend(
        name.split("::")
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "*")
            .map(str::to_owned),
    );
    if path.last().is_some_and(|p| p == "self") {
        path.pop();
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// Splits at the commas that are not inside braces.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

#[test]
fn use_trees_expand_to_full_paths() {
    let paths = import_paths(
        "use super::{a, b::{c, d as e}, f::*};\npub use crate::x::y;\nlet z = crate::p::q(1);\n",
    );
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        joined,
        [
            "super::a",
            "super::b::c",
            "super::b::d",
            "super::f",
            "crate::x::y",
            "crate::x::y",
            "crate::p::q"
        ]
    );
}

#[test]
fn a_circle_is_found_once_and_a_chain_is_not_a_circle() {
    let node = |name: &str| vec![name.to_owned()];
    let edges: BTreeSet<(Vec<String>, Vec<String>)> =
        [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
            .iter()
            .map(|(x, y)| (node(x), node(y)))
            .collect();
    assert_eq!(
        cycles(&edges),
        [vec![node("a"), node("b"), node("c"), node("a")]]
    );
    let chain: BTreeSet<_> = [("a", "b"), ("b", "c")]
        .iter()
        .map(|(x, y)| (node(x), node(y)))
        .collect();
    assert!(cycles(&chain).is_empty());
}
