//! The `assetc view` command line.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::ViewError;
use super::api::{App, Sources};
use super::live::Live;
use super::server::Bound;
use super::store::Store;
use crate::cli::finish;
use crate::config::{Config, ConfigError, Configured};
use crate::fsutil::shown;

const PROGRAM: &str = "assetc";

/// Options of `assetc view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// An output folder or a `.hpack` to inspect (default: the output
    /// folder the last `assetc configure` recorded, else the config's).
    pub target: Option<PathBuf>,
    /// The output folder to inspect.
    #[arg(short = 'o', long, conflicts_with = "target")]
    pub output: Option<PathBuf>,
    /// Preset whose output to inspect when no folder is given.
    #[arg(long)]
    pub preset: Option<String>,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Address to listen on. Anything but loopback exposes the output to the
    /// network.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
}

/// Runs `assetc view` until interrupted.
pub fn run_view(args: &ViewArgs) -> ExitCode {
    finish(PROGRAM, serve(args))
}

fn serve(args: &ViewArgs) -> Result<(), ViewError> {
    let project = project(args.preset.as_deref());
    let target = target(args, &project)?;
    let store = if target.is_file() {
        Store::pack(&target)?
    } else {
        Store::folder(&target)?
    };
    let sources = project
        .ok()
        .and_then(|(config, configured)| sources_of(&store, config, configured));
    let live = match &sources {
        Some(sources) => Live::follow(sources.build.clone()),
        None => Live::idle(),
    };
    let bound = Bound::bind(SocketAddr::new(args.bind, args.port))?;
    let host = if args.bind.is_loopback() {
        "127.0.0.1".to_owned()
    } else {
        args.bind.to_string()
    };
    println!(
        "assetc view: serving {} at http://{host}:{}/ (Ctrl-C stops)",
        store.shown(),
        bound.address().port()
    );
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    bound.serve(App::new(store, sources).with_live(live));
    Ok(())
}

/// The project found from here and what its last configure recorded (for
/// `preset`), looked up once for both the target and the sources.
fn project(preset: Option<&str>) -> Result<(Config, Configured), ConfigError> {
    let config = Config::discover(Path::new("."))?;
    let configured = config.configured(preset)?;
    Ok((config, configured))
}

/// The folder or pack to serve: the one given, else the configured output.
fn target(
    args: &ViewArgs,
    project: &Result<(Config, Configured), ConfigError>,
) -> Result<PathBuf, ViewError> {
    if let Some(given) = args.target.as_ref().or(args.output.as_ref()) {
        return Ok(given.clone());
    }
    let (_, configured) = project.as_ref().map_err(|e| config_error(e))?;
    Ok(PathBuf::from(shown(&configured.output)))
}

/// The project's sources, when the folder served is the configured output
/// of the `assetc.yml` found from here (for texture PSNR, and its build
/// folder for live refresh).
fn sources_of(store: &Store, config: Config, configured: Configured) -> Option<Sources> {
    let root = std::fs::canonicalize(store.folder_root()?).ok()?;
    if std::fs::canonicalize(&configured.output).ok()? != root {
        return None;
    }
    Some(Sources {
        input: config.input,
        build: configured.build_dir,
    })
}

fn config_error(error: &dyn std::error::Error) -> ViewError {
    ViewError::Source {
        path: "assetc.yml".into(),
        what: crate::cli::with_causes(error, ": "),
    }
}
