//! The `assetc watch` command line.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use super::build::{Builder, Outcome};
use super::events::ProjectEvents;
use super::inputs::outside_folders;
use super::publish::{Feed, block};
use crate::build::graph;
use crate::build::ninja::program_from_env;
use crate::cli::finish;
use crate::config::Config;
use crate::fsutil;

const PROGRAM: &str = "assetc";

/// Options of `assetc watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Preset to build (default: the last configure's, else the config's
    /// `preset:`).
    #[arg(long)]
    pub preset: Option<String>,
    /// Loopback port of the change feed (0 picks a free one).
    #[arg(long, default_value_t = 7879)]
    pub port: u16,
    /// Quiet time, in milliseconds, that ends a burst of file events.
    #[arg(long, default_value_t = 100)]
    pub quiet_ms: u64,
}

/// Why `assetc watch` could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The project's config cannot be used.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The feed's socket cannot be opened.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// Where.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The project cannot be watched.
    #[error("{}: cannot watch: {source}", path.display())]
    Watch {
        /// The project root.
        path: PathBuf,
        /// Why.
        source: notify::Error,
    },
}

/// Runs `assetc watch` until interrupted.
pub fn run_watch(args: &WatchArgs) -> ExitCode {
    finish(PROGRAM, watch(args))
}

fn watch(args: &WatchArgs) -> Result<(), WatchError> {
    let config = Config::discover(Path::new("."))?;
    let configured = config.configured(args.preset.as_deref())?;
    let root = config.root.clone();
    let address = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), args.port);
    let feed = Feed::listen(address).map_err(|source| WatchError::Listen { address, source })?;
    println!("assetc watch: publishing changes on {}", feed.address());
    record_feed_address(&configured.build_dir, feed.address());
    let ignored = vec![
        root.join(".assetc"),
        configured.build_dir.clone(),
        root.join(".git"),
        root.join("build.ninja"),
        root.join(".ninja_log"),
        root.join(".ninja_deps"),
        configured.output.clone(),
    ];
    let is_pack = is_pack_of(&configured.output);
    let mut events = ProjectEvents::watch(&root, ignored, Box::new(is_pack)).map_err(|source| {
        WatchError::Watch {
            path: root.clone(),
            source,
        }
    })?;
    let mut builder = Builder::new(root.clone(), configured.output.clone(), program_from_env());
    let quiet = Duration::from_millis(args.quiet_ms);
    let regeneration = configured.build_dir.join("configure.d");
    loop {
        configure_if_needed(&root, args.preset.as_deref());
        let outcome = builder.run();
        report(&outcome);
        feed.publish(outcome.generation, &block(&outcome));
        if outcome.generation == 1 {
            // Once the graph exists: its depfiles are known after a build.
            for folder in outside_folders(&root, &builder.ninja, &regeneration) {
                events.also_watch(&folder);
            }
        }
        let touched = events.next_burst(quiet);
        let first = touched
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        println!(
            "assetc watch: {} path(s) changed ({first}{}), building",
            touched.len(),
            if touched.len() > 1 { ", ..." } else { "" }
        );
    }
}

/// Writes the feed's address in the build folder, where `assetc view` looks
/// for it (live refresh). Without it the viewer only misses live refresh,
/// so a failure is a warning.
fn record_feed_address(build_folder: &Path, address: SocketAddr) {
    let file = build_folder.join(crate::hot_reload::FEED_ADDRESS_FILE);
    if let Err(e) = fsutil::write_if_changed(&file, format!("{address}\n").as_bytes()) {
        crate::cli::to_stderr(&format!(
            "assetc watch: warning: {}: cannot record the feed's address for assetc view: {e}",
            file.display()
        ));
    }
}

/// Whether a path is the single pack or a named pack of `output`:
/// `<output>.hpack` or `<output>.<name>.hpack` beside it.
fn is_pack_of(output: &Path) -> impl Fn(&Path) -> bool + use<> {
    let prefix = format!(
        "{}.",
        output.file_name().unwrap_or_default().to_string_lossy()
    );
    let parent = output.parent().map(Path::to_owned);
    move |path: &Path| {
        path.parent() == parent.as_deref()
            && path.file_name().is_some_and(|name| {
                let name = name.to_string_lossy();
                name.starts_with(&prefix) && name.ends_with(".hpack")
            })
    }
}

/// Runs `assetc configure` when there is no `build.ninja` yet (the first
/// run, or after a configure that failed) or it is of another preset;
/// otherwise Ninja re-runs it when the graph needs it.
fn configure_if_needed(root: &Path, preset: Option<&str>) {
    let program = std::env::current_exe().unwrap_or_else(|_| PROGRAM.into());
    graph::configure_if_needed(&program, root, preset);
}

/// One line about the build, for the person watching.
fn report(outcome: &Outcome) {
    let status = if outcome.ok {
        "built"
    } else {
        "FAILED, last good outputs kept"
    };
    println!(
        "assetc watch: build {} {status}: {} file(s) changed, {} removed",
        outcome.generation,
        outcome.changed.len(),
        outcome.removed.len()
    );
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
}
