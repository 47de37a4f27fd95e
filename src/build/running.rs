//! The edges Ninja is running right now, found in `/proc`: Ninja's child
//! processes (each edge is one `/bin/sh -c COMMAND`, which the shell often
//! replaces by the command itself), their command lines and start times.
//!
//! Linux only: elsewhere, and whenever `/proc` cannot be read, the list is
//! empty and the progress line shows counts alone.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fsutil::{proc_parent, proc_stat_fields};

/// One edge being run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningEdge {
    /// The process running it.
    pub pid: u32,
    /// The command's words (the shell's `-c` string split at spaces).
    pub words: Vec<String>,
    /// A short name for it: the last word naming an existing file (an
    /// encoder's source), else the last word.
    pub label: String,
    /// How long it has run.
    pub elapsed: Duration,
}

/// Finds Ninja's children, remembering their names between calls.
#[derive(Debug)]
pub struct Watcher {
    ninja: u32,
    root: PathBuf,
    /// Words and label of each pid seen, which do not change.
    known: HashMap<u32, (Vec<String>, String)>,
    ticks_per_second: f64,
}

impl Watcher {
    /// A watcher of the Ninja process `ninja`, run in `root`.
    pub fn new(ninja: u32, root: &Path) -> Self {
        // SAFETY: `sysconf` reads a constant of the system.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        Self {
            ninja,
            root: root.to_owned(),
            known: HashMap::new(),
            ticks_per_second: if ticks > 0 { ticks as f64 } else { 100.0 },
        }
    }

    /// The edges running now, longest-running first.
    pub fn scan(&mut self) -> Vec<RunningEdge> {
        let Some(now) = uptime() else {
            return Vec::new();
        };
        let children = children_of(self.ninja);
        self.known.retain(|pid, _| children.contains(pid));
        let mut edges: Vec<RunningEdge> = children
            .into_iter()
            .filter_map(|pid| self.edge(pid, now))
            .collect();
        edges.sort_by(|a, b| b.elapsed.cmp(&a.elapsed).then(a.pid.cmp(&b.pid)));
        edges
    }

    /// The edge process `pid` runs, if it can still be read.
    fn edge(&mut self, pid: u32, now: f64) -> Option<RunningEdge> {
        let started = start_ticks(pid)? as f64 / self.ticks_per_second;
        if !self.known.contains_key(&pid) {
            let words = command_words(pid)?;
            let label = label(&words, &self.root);
            self.known.insert(pid, (words, label));
        }
        let (words, label) = self.known.get(&pid)?.clone();
        Some(RunningEdge {
            pid,
            words,
            label,
            elapsed: Duration::from_secs_f64((now - started).max(0.0)),
        })
    }
}

/// Seconds since boot, the clock of `/proc/PID/stat` start times.
fn uptime() -> Option<f64> {
    let text = fs::read_to_string("/proc/uptime").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The children of `parent`: every thread's `children` list, or, where the
/// kernel does not provide those, every process whose parent it is.
fn children_of(parent: u32) -> Vec<u32> {
    let tasks = Path::new("/proc").join(parent.to_string()).join("task");
    let mut listed = false;
    let mut children = Vec::new();
    for task in fs::read_dir(&tasks).into_iter().flatten().flatten() {
        if let Ok(text) = fs::read_to_string(task.path().join("children")) {
            listed = true;
            children.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    if !listed {
        children = processes_whose_parent_is(parent);
    }
    children.sort_unstable();
    children.dedup();
    children
}

/// Every process in `/proc` whose parent is `parent`.
fn processes_whose_parent_is(parent: u32) -> Vec<u32> {
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| proc_parent(pid) == Some(parent))
        .collect()
}

/// When `pid` started, in clock ticks since boot.
fn start_ticks(pid: u32) -> Option<u64> {
    proc_stat_fields(pid)?.get(19)?.parse().ok()
}

/// The words of the command `pid` runs: the `-c` string of a shell, split
/// at spaces, or the program's own arguments.
fn command_words(pid: u32) -> Option<Vec<String>> {
    let bytes = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<String> = bytes
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let is_shell =
        args.first().is_some_and(|a| a.ends_with("sh")) && args.get(1) == Some(&"-c".into());
    if is_shell {
        return Some(args.get(2)?.split_whitespace().map(str::to_owned).collect());
    }
    (!args.is_empty()).then_some(args)
}

/// The last word after the program that names an existing file below
/// `root` (an encoder's source comes last), else the last word.
fn label(words: &[String], root: &Path) -> String {
    let arguments = words.get(1..).unwrap_or_default();
    arguments
        .iter()
        .rev()
        .find(|word| !word.starts_with('-') && root.join(word).is_file())
        .or(words.last())
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn labels_prefer_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.png"), b"").unwrap();
        let words: Vec<String> = [
            "assetc-encode",
            "texture",
            "-o",
            "out/a.ktx2",
            "a.png",
            "--",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(label(&words, dir.path()), "a.png");
        let words: Vec<String> = ["touch", "x"].map(String::from).to_vec();
        assert_eq!(label(&words, dir.path()), "x");
    }

    #[test]
    fn a_child_shell_is_found_with_its_command_and_age() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("input.txt"), b"").unwrap();
        let mut child = Command::new("/bin/sh")
            .args(["-c", "sleep 5; true input.txt"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let mut watcher = Watcher::new(std::process::id(), dir.path());
        let edges = watcher.scan();
        let _ = child.kill();
        let _ = child.wait();
        let edge = edges
            .iter()
            .find(|e| e.pid == child.id())
            .unwrap_or_else(|| panic!("child not found in {edges:?}"));
        assert_eq!(edge.words, ["sleep", "5;", "true", "input.txt"]);
        assert_eq!(edge.label, "input.txt");
        assert!(edge.elapsed >= Duration::from_millis(100), "{edge:?}");
        assert!(edge.elapsed < Duration::from_secs(30), "{edge:?}");
    }
}
