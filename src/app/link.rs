//! The `assetc-link` program: the link steps Ninja runs after the encoders,
//! and `check`.

use std::process::ExitCode;

use clap::Parser;

use crate::jobserver;
use crate::link::command::Cli;

/// Parses the command line and runs the step.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let _session = jobserver::init(None);
    cli.command.run()
}
