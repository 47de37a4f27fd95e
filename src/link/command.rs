//! The `assetc-link` command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use super::pack::pack_path;
use super::{LinkError, check, manifest, pack};
use crate::cli::{finish, report_error};
use crate::config::{Config, ConfigError};
use crate::fsutil::{self, shown};
use crate::inspect::to_json;

/// `assetc-link`: merge fragments into the manifest and pack, or check an
/// output folder.
#[derive(Debug, Parser)]
#[command(name = "assetc-link", version, about)]
pub struct Cli {
    /// The step to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The link steps.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Merge manifest fragments into `assets.hman`.
    Manifest {
        /// Files to delete if the step fails (the manifest and the pack).
        #[arg(long = "invalidate")]
        invalidate: Vec<PathBuf>,
        /// File listing the fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The manifest to write.
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Bundle every produced file and the manifest into one `.hpack`.
    Pack {
        /// Files to delete if the step fails (the manifest and the pack).
        #[arg(long = "invalidate")]
        invalidate: Vec<PathBuf>,
        /// The output root the fragments' paths are relative to.
        #[arg(long)]
        root: PathBuf,
        /// File listing the fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The pack to write.
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Validate an output folder and optionally its pack. Without `--root`,
    /// the folder (and the pack, when the config packs) come from the nearest
    /// assetc.yml and the preset.
    Check {
        /// The output folder to check.
        #[arg(long)]
        root: Option<PathBuf>,
        /// The pack to check against the folder.
        #[arg(long)]
        pack: Option<PathBuf>,
        /// Preset whose output to check when `--root` is not given.
        #[arg(long, conflicts_with = "root")]
        preset: Option<String>,
        /// Print the result as JSON (schema `assetc-check/1`) on standard
        /// output instead of text; the exit status is the same.
        #[arg(long)]
        json: bool,
    },
}

const PROGRAM: &str = "assetc-link";

impl Command {
    /// Runs the step; problems and errors go to standard error.
    pub fn run(&self) -> ExitCode {
        match self {
            Command::Manifest {
                fragments,
                output,
                invalidate,
            } => finish_link(manifest::link_manifest(fragments, output), invalidate),
            Command::Pack {
                root,
                fragments,
                output,
                invalidate,
            } => finish_link(pack::link_pack(fragments, root, output), invalidate),
            Command::Check {
                root,
                pack,
                preset,
                json,
            } => match check_target(root.as_deref(), pack.as_deref(), preset.as_deref()) {
                Ok((root, pack)) => run_check(&root, pack.as_deref(), *json),
                Err(e) => finish(PROGRAM, Err(e)),
            },
        }
    }
}

/// Reports a link step's result; after a failure, deletes the link outputs so
/// no stale manifest or pack survives a failed build.
fn finish_link(result: Result<usize, LinkError>, invalidate: &[PathBuf]) -> ExitCode {
    if result.is_err() {
        fsutil::remove_all(invalidate);
    }
    finish(PROGRAM, result.map(drop))
}

/// The folder and pack to check: as given, or from the project's config.
fn check_target(
    root: Option<&Path>,
    pack: Option<&Path>,
    preset: Option<&str>,
) -> Result<(PathBuf, Option<PathBuf>), ConfigError> {
    if let Some(root) = root {
        return Ok((root.to_owned(), pack.map(Path::to_owned)));
    }
    let config = Config::discover(Path::new("."))?;
    let selection = config.select(preset, None)?;
    let pack = pack
        .map(Path::to_owned)
        .or_else(|| config.pack.then(|| pack_path(&selection.output)));
    Ok((selection.output, pack))
}

fn run_check(root: &Path, pack: Option<&Path>, json: bool) -> ExitCode {
    let result = check::check(root, pack);
    if json {
        print!("{}", to_json(&CheckReport::new(root, pack, &result)));
        return if result.is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    match result {
        Ok(summary) => {
            let pack = summary
                .pack_entries
                .map(|n| format!(", pack consistent ({n} entries)"))
                .unwrap_or_default();
            println!(
                "{}: ok, {} manifest entries{pack}",
                shown(root),
                summary.entries
            );
            ExitCode::SUCCESS
        }
        Err(problems) => {
            for p in &problems {
                eprintln!("{p}");
            }
            let count = CheckFailed(problems.len());
            report_error(PROGRAM, &count);
            ExitCode::FAILURE
        }
    }
}

/// The JSON form of a check's result (schema `assetc-check/1`).
#[derive(Debug, serde::Serialize)]
struct CheckReport<'a> {
    schema: &'static str,
    root: String,
    pack: Option<String>,
    ok: bool,
    entries: Option<usize>,
    pack_entries: Option<usize>,
    problems: &'a [check::Problem],
}

impl<'a> CheckReport<'a> {
    fn new(
        root: &Path,
        pack: Option<&Path>,
        result: &'a Result<check::Summary, Vec<check::Problem>>,
    ) -> Self {
        let (summary, problems) = match result {
            Ok(summary) => (Some(summary), &[][..]),
            Err(problems) => (None, problems.as_slice()),
        };
        Self {
            schema: "assetc-check/1",
            root: shown(root),
            pack: pack.map(shown),
            ok: result.is_ok(),
            entries: summary.map(|s| s.entries),
            pack_entries: summary.and_then(|s| s.pack_entries),
            problems,
        }
    }
}

/// The summary error after a failed check.
#[derive(Debug, thiserror::Error)]
#[error("check found {0} problem(s)")]
struct CheckFailed(usize);
