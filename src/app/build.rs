//! `assetc build`: configure when needed, then run Ninja under a jobserver
//! with a progress line (see [`crate::build`] and docs/build.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::Args;

use crate::build::graph::configure_if_needed;
use crate::build::ninja::program_from_env;
use crate::build::summary::{exit_code, print};
use crate::build::{Request, run};
use crate::cli::report_error;
use crate::config::{CONFIG_FILE_NAME, ConfigError};
use crate::configure::command::{ConfigureFlags, configure_from};

/// The name messages start with.
const NAME: &str = "assetc build";

/// Options of `assetc build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// What to configure: `--preset` configures again first when it differs
    /// from the one build.ninja was configured with; any other configure
    /// flag (`--keep-going`, `--pack`, `--cache` …) always configures again
    /// with it first, and configure remembers it for later builds.
    #[command(flatten)]
    pub configure: ConfigureFlags,
    /// Threads in all for the build's edges and their workers (the
    /// jobserver's tokens; default: the cores). Ignored when MAKEFLAGS
    /// already names a jobserver.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Ninja targets (paths as build.ninja names them); default: everything.
    pub targets: Vec<String>,
}

/// A signal the build was sent, for the progress thread to pass on to Ninja.
static INTERRUPT: AtomicI32 = AtomicI32::new(0);

/// Runs `assetc build`; the exit status is Ninja's.
pub fn run_build(args: &BuildArgs) -> ExitCode {
    let root = match project_root() {
        Ok(root) => root,
        Err(e) => {
            report_error("assetc", &e);
            return ExitCode::FAILURE;
        }
    };
    let program = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("assetc"));
    if !configure_first(&program, &root, &args.configure) {
        return ExitCode::FAILURE;
    }
    catch_interrupts();
    let request = Request {
        name: NAME.to_owned(),
        root,
        ninja: program_from_env(),
        jobs: args.jobs.map(usize::from),
        targets: args.targets.clone(),
        env: Vec::new(),
    };
    match run(&request, Some(&INTERRUPT)) {
        Ok(outcome) => {
            print(NAME, &outcome);
            exit_code(outcome.status)
        }
        Err(e) => {
            report_error(NAME, &e);
            ExitCode::FAILURE
        }
    }
}

/// Configures the project at `root` when the build needs it first: with
/// every flag when flags beyond `--preset` are given, else when build.ninja
/// is missing or was configured for another preset. False when that fails.
fn configure_first(program: &Path, root: &Path, flags: &ConfigureFlags) -> bool {
    if flags.any_beyond_preset() {
        configure_from(root.to_owned(), flags) == ExitCode::SUCCESS
    } else {
        configure_if_needed(program, root, flags.preset.as_deref())
    }
}

/// The folder of the nearest `assetc.yml`, from the working folder up.
fn project_root() -> Result<PathBuf, ConfigError> {
    let start = std::path::absolute(Path::new(".")).map_err(|source| ConfigError::Io {
        path: PathBuf::from("."),
        source,
    })?;
    start
        .ancestors()
        .find(|dir| dir.join(CONFIG_FILE_NAME).is_file())
        .map(Path::to_owned)
        .ok_or(ConfigError::NotFound { start })
}

/// Keeps `assetc build` alive through Ctrl-C and termination requests:
/// the signal is recorded for the progress thread, which passes it on to
/// Ninja, and the build ends with Ninja's status once Ninja has stopped
/// its edges (which give their tokens back as they go).
fn catch_interrupts() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `sigaction` is plain data; the handler only stores an
        // atomic integer, which is async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = record_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&raw mut action.sa_mask);
            libc::sigaction(signal, &raw const action, std::ptr::null_mut());
        }
    }
}

/// The handler of [`catch_interrupts`].
extern "C" fn record_signal(signal: libc::c_int) {
    INTERRUPT.store(signal, Ordering::Relaxed);
}
