//! The `assetc-link` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use super::{check, manifest, pack};
use crate::cli::{finish, report_error};

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
        /// File listing the fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The manifest to write.
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Bundle every produced file and the manifest into one `.hpack`.
    Pack {
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
    /// Validate an output folder and optionally its pack.
    Check {
        /// The output folder to check.
        #[arg(long)]
        root: PathBuf,
        /// The pack to check against the folder.
        #[arg(long)]
        pack: Option<PathBuf>,
    },
}

const PROGRAM: &str = "assetc-link";

impl Command {
    /// Runs the step; problems and errors go to standard error.
    pub fn run(&self) -> ExitCode {
        match self {
            Command::Manifest { fragments, output } => finish(
                PROGRAM,
                manifest::link_manifest(fragments, output).map(drop),
            ),
            Command::Pack {
                root,
                fragments,
                output,
            } => finish(PROGRAM, pack::link_pack(fragments, root, output).map(drop)),
            Command::Check { root, pack } => run_check(root, pack.as_deref()),
        }
    }
}

fn run_check(root: &std::path::Path, pack: Option<&std::path::Path>) -> ExitCode {
    match check::check(root, pack) {
        Ok(summary) => {
            let pack = summary
                .pack_entries
                .map(|n| format!(", pack consistent ({n} entries)"))
                .unwrap_or_default();
            println!(
                "{}: ok, {} manifest entries{pack}",
                root.display(),
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

/// The summary error after a failed check.
#[derive(Debug, thiserror::Error)]
#[error("check found {0} problem(s)")]
struct CheckFailed(usize);
