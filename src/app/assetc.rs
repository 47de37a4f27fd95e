//! The `assetc` program: `configure` (the default), `build`, `init`, the
//! inspection commands `info` and `pack info`/`diff`, `pack patch`, `cache`,
//! `view` and `watch`, and `completions` and `manpages` (`manual.rs`).

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use super::build::{BuildArgs, run_build};
use super::manual::{CompletionsArgs, ManpagesArgs, run_completions, run_manpages};
use crate::cache::command::CacheCommand;
use crate::cli::finish;
use crate::config::write_starter;
use crate::configure::command::{ConfigureArgs, run_configure};
use crate::inspect::command::{InfoArgs, PackCommand, run_info, run_pack};
use crate::view::command::{ViewArgs, run_view};
use crate::watch::command::{WatchArgs, run_watch};

/// `assetc`: turn a project's source assets into a Ninja build of GPU-ready files.
#[derive(Debug, Parser)]
#[command(
    name = "assetc",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// The subcommand; without one, assetc configures.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options for the implicit `configure`.
    #[command(flatten)]
    pub configure: ConfigureArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scan the input folder and write build.ninja (then run `ninja`).
    Configure(Box<ConfigureArgs>),
    /// Configure when needed, then run Ninja under a jobserver with a
    /// progress line (see docs/build.md).
    Build(Box<BuildArgs>),
    /// Write a commented starter assetc.yml here (never overwrites).
    Init,
    /// Print per-file figures and totals for an output folder.
    Info(InfoArgs),
    /// Inspect, compare and patch `.hpack` files.
    #[command(subcommand)]
    Pack(PackCommand),
    /// Look after a shared cache folder (see docs/cache.md).
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Serve a local web inspector of an output folder or a `.hpack`
    /// (see docs/inspect.md).
    View(ViewArgs),
    /// Rebuild on every save and publish what changed to running engines
    /// (see docs/hot-reload.md).
    Watch(WatchArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) to
    /// standard output (see "Completions and manual pages" in the README).
    Completions(CompletionsArgs),
    /// Write the manual pages of assetc, assetc-encode and assetc-link and
    /// their subcommands into a folder (e.g. ~/.local/share/man/man1).
    Manpages(ManpagesArgs),
}

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    Cli::parse().run()
}

impl Cli {
    /// Runs the requested command.
    pub fn run(self) -> ExitCode {
        match self.command {
            Some(Command::Configure(args)) => run_configure(&args),
            Some(Command::Build(args)) => run_build(&args),
            Some(Command::Init) => init(),
            Some(Command::Info(args)) => {
                stop_quietly_at_a_closed_pipe();
                run_info(&args)
            }
            Some(Command::Pack(command)) => {
                stop_quietly_at_a_closed_pipe();
                run_pack(&command)
            }
            Some(Command::Cache(command)) => command.run(),
            Some(Command::View(args)) => run_view(&args),
            Some(Command::Watch(args)) => run_watch(&args),
            Some(Command::Completions(args)) => run_completions(&args, &Cli::command()),
            Some(Command::Manpages(args)) => run_manpages(&args, &Cli::command()),
            None => run_configure(&self.configure),
        }
    }
}

/// Lets a printing command end quietly when its reader goes away
/// (`assetc pack info | head`), as `cat` does, instead of failing on the
/// broken pipe: the Rust runtime ignores `SIGPIPE`, so `println!` would
/// panic. Only the commands that print reports and run nothing else restore
/// the default signal.
fn stop_quietly_at_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default is always sound;
    // nothing in this process has installed a handler for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `assetc init`: the starter `assetc.yml` in the working folder.
fn init() -> ExitCode {
    finish(
        "assetc",
        write_starter(std::path::Path::new(".")).map(|path| {
            println!("assetc: wrote {}", path.display());
            print!("{NEXT_STEPS}");
        }),
    )
}

/// What `assetc init` suggests doing after writing the starter file.
const NEXT_STEPS: &str = "\
next steps:
  put source files under assets/ (the `input:` folder), then
  assetc build    configure and compile them (or: assetc configure && ninja)
  assetc view     browse what was built in a web page
";
