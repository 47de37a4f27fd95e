//! The `assetc info` and `assetc pack info` command lines.
//!
//! Both find their input the way `assetc configure` finds its output: from
//! `-o`/the argument when given, else from the nearest `assetc.yml`: the
//! output folder the last configure recorded (of `--preset` when given), or
//! without a record, the preset's (`--preset`, or the config's `preset:`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{info, pack_info};
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
    print!(
        "{}",
        if args.json {
            to_json(&report)
        } else {
            info::render_text(&report)
        }
    );
    if report.totals.invalid == 0 {
        return ExitCode::SUCCESS;
    }
    report_error(PROGRAM, &InvalidFiles(report.totals.invalid));
    ExitCode::FAILURE
}

/// Runs `assetc pack info`.
pub fn run_pack(command: &PackCommand) -> ExitCode {
    let PackCommand::Info(args) = command;
    let result =
        pack_to_inspect(args).and_then(|pack| pack_info::inspect(&pack).map_err(PackFailure::from));
    finish(
        PROGRAM,
        result.map(|report| {
            print!(
                "{}",
                if args.json {
                    to_json(&report)
                } else {
                    pack_info::render_text(&report)
                }
            );
        }),
    )
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
