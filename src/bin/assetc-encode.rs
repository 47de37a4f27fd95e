//! `assetc-encode`: compiles one source asset; Ninja runs one per edge.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = assetc::encode::command::Cli::parse();
    assetc::cli::finish("assetc-encode", cli.command.run())
}
