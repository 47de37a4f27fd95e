//! One rebuild: run Ninja (through [`crate::build::run()`], as `assetc build`
//! does), then find what it rewrote.
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
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::build::graph::GraphHeader;
use crate::build::summary::print;
use crate::build::{Request, run};
use crate::cli::error_lines;
use crate::format::hman::{self, MANIFEST_FILE};
use crate::fsutil::slash_relative;

/// The name messages start with.
const NAME: &str = "assetc watch";

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
        let log = GraphHeader::read(&self.root)
            .unwrap_or_default()
            .log_path(&self.root);
        let since = stamp(&log.with_file_name("watch.stamp"));
        let (ok, errors, ran) = self.ninja();
        let mut outcome = Outcome {
            generation: self.generation,
            ok,
            errors,
            ..Outcome::default()
        };
        let manifest = read_manifest(&self.output);
        for output in ran {
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

    /// Runs Ninja the way `assetc build` does, with last-good outputs kept
    /// on failure; returns whether it succeeded, the lines that say why
    /// not, and the outputs of the edges that ran.
    fn ninja(&self) -> (bool, Vec<String>, Vec<String>) {
        let request = Request {
            name: NAME.to_owned(),
            root: self.root.clone(),
            ninja: self.ninja.clone(),
            jobs: None,
            targets: Vec::new(),
            env: vec![(
                crate::encode::job::KEEP_LAST_GOOD.to_owned(),
                "1".to_owned(),
            )],
        };
        match run(&request, None) {
            Ok(outcome) => {
                print(NAME, &outcome);
                let ok = outcome.status.success();
                let errors = if ok { Vec::new() } else { outcome.errors };
                let ran = outcome.ran.into_iter().map(|entry| entry.output).collect();
                (ok, errors, ran)
            }
            Err(e) => (false, error_lines(NAME, &e), Vec::new()),
        }
    }
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
