//! The `assetc info` and `assetc pack info|diff|patch` command lines.
//!
//! `info` and `pack info` find their input the way `assetc configure` finds
//! its output: from `-o`/the argument when given, else from the nearest
//! `assetc.yml`: the output folder the last configure recorded (of
//! `--preset` when given), or without a record, the preset's (`--preset`, or
//! the config's `preset:`). `pack diff` and `pack patch` take their packs as
//! arguments.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{info, pack_diff, pack_info, pack_patch};
use crate::cli::to_json;
use crate::cli::{finish, report_error};
use crate::config::{Config, ConfigError};
use crate::fsutil::shown;
use crate::link::pack::pack_path;

const PROGRAM: &str = "assetc";

/// Options of `assetc info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The output folder to inspect (default: the last configure's, else
    /// the config's, for the preset).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Preset whose output to inspect when `-o` is not given.
    #[arg(long, conflicts_with = "output")]
    pub preset: Option<String>,
    /// Print JSON (schema `assetc-info/1`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `assetc pack <subcommand>`.
#[derive(Debug, Subcommand)]
pub enum PackCommand {
    /// Break a `.hpack` down: layout, kinds and entries.
    Info(PackInfoArgs),
    /// Compare two packs: entries added, removed and changed, and what a
    /// chunk patcher would ship to update OLD to NEW.
    Diff(PackDiffArgs),
    /// Write a patch pack: NEW's entries that BASE lacks or holds other
    /// bytes of, and the list of BASE's paths NEW dropped (see docs/packs.md).
    Patch(PackPatchArgs),
}

/// Options of `assetc pack info`.
#[derive(Debug, Args)]
pub struct PackInfoArgs {
    /// The pack (default: `<output>.hpack` of the last configure, else of
    /// the config, for the preset).
    pub file: Option<PathBuf>,
    /// Preset whose pack to inspect when no file is given.
    #[arg(long, conflicts_with = "file")]
    pub preset: Option<String>,
    /// Print JSON (schema `assetc-pack-info/1`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `assetc pack diff`.
#[derive(Debug, Args)]
pub struct PackDiffArgs {
    /// The older pack.
    pub old: PathBuf,
    /// The newer pack.
    pub new: PathBuf,
    /// Print JSON (schema `assetc-pack-diff/1`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `assetc pack patch`.
#[derive(Debug, Args)]
pub struct PackPatchArgs {
    /// The pack the patch will be mounted above (the one players have).
    #[arg(long)]
    pub base: PathBuf,
    /// The pack the patch brings BASE up to.
    pub new: PathBuf,
    /// Where to write the patch pack.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

/// Runs `assetc info`; exits non-zero when a file does not parse.
pub fn run_info(args: &InfoArgs) -> ExitCode {
    let root = match located(args.output.as_deref(), args.preset.as_deref()) {
        Ok(root) => root,
        Err(e) => return finish(PROGRAM, Err(e)),
    };
    let report = match info::inspect(&root) {
        Ok(report) => report,
        Err(e) => return finish(PROGRAM, Err(e)),
    };
    print_report(args.json, &report, info::render_text);
    if report.totals.invalid == 0 {
        return ExitCode::SUCCESS;
    }
    report_error(PROGRAM, &InvalidFiles(report.totals.invalid));
    ExitCode::FAILURE
}

/// Runs `assetc pack info`, `diff` or `patch`.
pub fn run_pack(command: &PackCommand) -> ExitCode {
    match command {
        PackCommand::Info(args) => run_pack_info(args),
        PackCommand::Diff(args) => run_pack_diff(args),
        PackCommand::Patch(args) => finish(
            PROGRAM,
            pack_patch::write(&args.base, &args.new, &args.output)
                .map(|summary| println!("{PROGRAM}: {}", summary.line())),
        ),
    }
}

/// Runs `assetc pack info`.
fn run_pack_info(args: &PackInfoArgs) -> ExitCode {
    let result =
        pack_to_inspect(args).and_then(|pack| pack_info::inspect(&pack).map_err(PackFailure::from));
    finish(
        PROGRAM,
        result.map(|report| print_report(args.json, &report, pack_info::render_text)),
    )
}

/// Runs `assetc pack diff`; succeeds whether or not the packs differ.
fn run_pack_diff(args: &PackDiffArgs) -> ExitCode {
    finish(
        PROGRAM,
        pack_diff::diff(&args.old, &args.new)
            .map(|report| print_report(args.json, &report, pack_diff::render_text)),
    )
}

/// Prints `report` on standard output as JSON, or as `render` writes it.
fn print_report<T: serde::Serialize>(json: bool, report: &T, render: fn(&T) -> String) {
    print!(
        "{}",
        if json {
            to_json(report)
        } else {
            render(report)
        }
    );
}

/// `given`, or the configured output folder, relative to the current folder
/// when it lies below it (so reports and errors show `runtime/...`, not an
/// absolute path).
fn located(given: Option<&Path>, preset: Option<&str>) -> Result<PathBuf, ConfigError> {
    if let Some(path) = given {
        return Ok(path.to_owned());
    }
    let config = Config::discover(Path::new("."))?;
    Ok(PathBuf::from(shown(&config.configured(preset)?.output)))
}

/// The pack `pack info` reads: the one given, else the configured one; an
/// error saying how to make it when it does not exist.
fn pack_to_inspect(args: &PackInfoArgs) -> Result<PathBuf, PackFailure> {
    let (path, configured_pack) = match &args.file {
        Some(file) => (file.clone(), None),
        None => {
            let configured =
                Config::discover(Path::new("."))?.configured(args.preset.as_deref())?;
            let path = PathBuf::from(shown(&pack_path(&configured.output)));
            (path, Some(configured.pack))
        }
    };
    if path.exists() {
        return Ok(path);
    }
    let how = if configured_pack == Some(true) {
        "build to make it (`assetc build`, or `ninja`)"
    } else {
        "configure with --pack (or `pack: true` in assetc.yml) and build to make it"
    };
    Err(PackFailure::Missing { path, how })
}

/// Why `pack info` failed.
#[derive(Debug, thiserror::Error)]
enum PackFailure {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{}: does not exist: {how}", path.display())]
    Missing { path: PathBuf, how: &'static str },
    #[error(transparent)]
    Pack(#[from] pack_info::PackInfoError),
}

/// The summary error after `info` met files that do not parse.
#[derive(Debug, thiserror::Error)]
#[error("{0} file(s) could not be read as the format their extension names")]
struct InvalidFiles(u64);
