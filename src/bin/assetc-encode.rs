//! `assetc-encode`: compiles one source asset; Ninja runs one per edge.

use std::process::ExitCode;

use assetc::cache::{EncodeCli, edge};
use assetc::encode::job::EncodeError;
use clap::Parser;

fn main() -> ExitCode {
    let argv: Vec<_> = std::env::args_os().collect();
    let cli = EncodeCli::parse_from(&argv);
    match edge::run(&cli.cache, &cli.command, &argv) {
        // Under --keep-going the error is printed but the edge succeeds; the
        // link reports it and fails the build.
        Err(EncodeError::Recorded(error)) => {
            assetc::cli::report_error("assetc-encode", &error);
            ExitCode::SUCCESS
        }
        result => assetc::cli::finish("assetc-encode", result),
    }
}
