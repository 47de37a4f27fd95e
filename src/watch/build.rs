//! One rebuild: run Ninja, then find what it rewrote.
//!
//! The edges that ran are the entries Ninja appended to its log during the
//! build. Every assetc output is written only when its bytes change, so of
//! those edges' outputs, the ones whose modification time is not older than
//! a stamp file touched just before Ninja started are exactly the files
//! whose bytes changed. Both times come from the kernel's file clock, so
//! they compare without the skew between it and the system clock. Files
//! that went away are the manifest entries the new manifest lacks.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use crate::format::hman::{self, MANIFEST_FILE};
use crate::fsutil::slash_relative;

/// What one build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Counts builds since the watch started.
    pub generation: u64,
    /// Whether Ninja succeeded.
    pub ok: bool,
    /// Runtime paths whose bytes changed, with their manifest ids.
    pub changed: BTreeMap<String, Option<u64>>,
    /// Manifest entries that went away: path and id.
    pub removed: BTreeMap<String, u64>,
    /// Pack files rewritten, as Ninja names them.
    pub packs: Vec<String>,
    /// The error lines of a failed build.
    pub errors: Vec<String>,
}

/// Runs the builds of one project.
pub struct Builder {
    /// The project root, where `build.ninja` is.
    pub root: PathBuf,
    /// The output folder.
    pub output: PathBuf,
    /// The Ninja program.
    pub ninja: String,
    generation: u64,
    manifest: BTreeMap<String, u64>,
}

impl Builder {
    /// A builder for the project at `root` writing `output`.
    pub fn new(root: PathBuf, output: PathBuf, ninja: String) -> Self {
        let manifest = read_manifest(&output);
        Self {
            root,
            output,
            ninja,
            generation: 0,
            manifest,
        }
    }

    /// Runs Ninja (echoing its output) and works out what changed.
    pub fn run(&mut self) -> Outcome {
        self.generation += 1;
        let log = self.ninja_log();
        let offset = fs::metadata(&log).map_or(0, |m| m.len());
        let since = stamp(&log.with_file_name("watch.stamp"));
        let (ok, errors) = self.ninja();
        let mut outcome = Outcome {
            generation: self.generation,
            ok,
            errors,
            ..Outcome::default()
        };
        let manifest = read_manifest(&self.output);
        for output in ran_outputs(&log, offset) {
            let file = self.root.join(&output);
            let rewritten = since.is_some_and(|since| modified(&file).is_some_and(|m| m >= since));
            if !rewritten {
                continue;
            }
            match slash_relative(&self.output, &file) {
                Some(path) if !path.starts_with("..") => {
                    let id = manifest.get(&path).or(self.manifest.get(&path)).copied();
                    outcome.changed.insert(path, id);
                }
                _ if output.ends_with(".hpack") => outcome.packs.push(output),
                _ => {}
            }
        }
        if ok {
            outcome.removed = self
                .manifest
                .iter()
                .filter(|(path, _)| !manifest.contains_key(*path))
                .map(|(path, id)| (path.clone(), *id))
                .collect();
            self.manifest = manifest;
        }
        outcome.packs.sort();
        outcome
    }

    /// Runs Ninja with last-good outputs kept on failure; returns whether it
    /// succeeded and the lines that say why not.
    fn ninja(&self) -> (bool, Vec<String>) {
        let child = Command::new(&self.ninja)
            .current_dir(&self.root)
            .env(crate::encode::job::KEEP_LAST_GOOD, "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(child) => child,
            Err(e) => return (false, vec![format!("{}: cannot run: {e}", self.ninja)]),
        };
        let stderr = child
            .stderr
            .take()
            .map(|err| std::thread::spawn(move || echo(BufReader::new(err), true)));
        let mut errors = child
            .stdout
            .take()
            .map(|out| echo(BufReader::new(out), false))
            .unwrap_or_default();
        if let Some(thread) = stderr {
            errors.extend(thread.join().unwrap_or_default());
        }
        let ok = child.wait().is_ok_and(|status| status.success());
        (ok, if ok { Vec::new() } else { errors })
    }

    /// Where Ninja keeps its log: `builddir` of `build.ninja`, or the root.
    fn ninja_log(&self) -> PathBuf {
        let text = fs::read_to_string(self.root.join("build.ninja")).unwrap_or_default();
        let builddir = text
            .lines()
            .find_map(|line| line.strip_prefix("builddir = "))
            .map_or_else(|| self.root.clone(), |dir| self.root.join(dir.trim()));
        builddir.join(".ninja_log")
    }
}

/// Echoes a stream line by line (to stderr or stdout) and keeps the lines
/// that report an error.
fn echo(stream: impl BufRead, to_stderr: bool) -> Vec<String> {
    let mut errors = Vec::new();
    for line in stream.lines().map_while(Result::ok) {
        if to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
        let reports = line.contains("error:") || line.trim_start().starts_with("caused by:");
        if reports || line.starts_with("FAILED: ") {
            errors.push(line);
        }
    }
    errors
}

/// The outputs of the log entries from `offset` on (all of them when Ninja
/// rewrote the log shorter meanwhile).
fn ran_outputs(log: &Path, offset: u64) -> Vec<String> {
    let Ok(bytes) = fs::read(log) else {
        return Vec::new();
    };
    let start = usize::try_from(offset)
        .ok()
        .filter(|&o| o <= bytes.len())
        .unwrap_or(0);
    String::from_utf8_lossy(&bytes[start..])
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split('\t').nth(3).map(str::to_owned))
        .collect()
}

/// Touches the stamp file and returns its time: the start of the build on
/// the file clock.
fn stamp(file: &Path) -> Option<SystemTime> {
    fs::write(file, b"").ok()?;
    modified(file)
}

/// The modification time of `path`.
fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The manifest of `output`: runtime path to id (empty without one).
fn read_manifest(output: &Path) -> BTreeMap<String, u64> {
    let Ok(bytes) = fs::read(output.join(MANIFEST_FILE)) else {
        return BTreeMap::new();
    };
    hman::parse(&bytes)
        .map(|m| m.iter().map(|e| (e.path.to_owned(), e.hash)).collect())
        .unwrap_or_default()
}
