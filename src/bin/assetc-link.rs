//! `assetc-link`: the manifest, pack and check steps.

use clap::Parser;

fn main() -> std::process::ExitCode {
    assetc::link::command::Cli::parse().command.run()
}
