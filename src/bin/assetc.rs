//! `assetc`: configure a project's asset build (writes build.ninja).

use clap::Parser;

fn main() -> std::process::ExitCode {
    assetc::configure::command::Cli::parse().run()
}
