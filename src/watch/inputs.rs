//! The folders outside the project that hold files the graph reads, so the
//! watcher sees their changes too: the inputs Ninja learnt from depfiles
//! (`ninja -t deps`) and the ones configure recorded in its regeneration
//! depfile. Inside the project, the recursive watch already sees everything.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::depfile;

/// The folders outside `root` holding a file the graph reads. `ninja` is the
/// Ninja program and `regeneration` configure's depfile.
pub fn outside_folders(root: &Path, ninja: &str, regeneration: &Path) -> Vec<PathBuf> {
    let mut inputs = depfile_inputs(root, ninja);
    let text = std::fs::read_to_string(regeneration).unwrap_or_default();
    inputs.extend(
        depfile::parse(&text)
            .map(|(_, deps)| deps)
            .unwrap_or_default(),
    );
    folders_outside(root, inputs)
}

/// Every input `ninja -t deps` lists (indented lines under each output).
fn depfile_inputs(root: &Path, ninja: &str) -> Vec<String> {
    let Ok(output) = Command::new(ninja)
        .current_dir(root)
        .args(["-t", "deps"])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("    "))
        .map(str::to_owned)
        .collect()
}

/// The folders of the `inputs` (relative to `root` or absolute) that lie
/// outside `root`: a file's folder, or a listed folder itself.
fn folders_outside(root: &Path, inputs: impl IntoIterator<Item = String>) -> Vec<PathBuf> {
    let mut folders = BTreeSet::new();
    for input in inputs {
        let path = root.join(&input);
        let path = path.canonicalize().unwrap_or(path);
        if path.starts_with(root) {
            continue;
        }
        let folder = if path.is_dir() {
            Some(path)
        } else {
            path.parent().map(Path::to_owned)
        };
        folders.extend(folder);
    }
    folders.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_outside_the_project_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("shared");
        std::fs::create_dir_all(root.join("assets")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("palette.txt"), b"").unwrap();
        let root = root.canonicalize().unwrap();
        let outside = outside.canonicalize().unwrap();
        let inputs = [
            "assets/a.png".to_owned(),
            "../shared/palette.txt".to_owned(),
            outside.join("palette.txt").display().to_string(),
            outside.display().to_string(),
        ];
        assert_eq!(folders_outside(&root, inputs), [outside]);
    }
}
