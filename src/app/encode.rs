//! The `assetc-encode` program: one Ninja edge, run through the cache (and
//! the remote) when the command line names one; or, started by an edge,
//! the build's remote service.

use std::process::ExitCode;

use clap::Parser;

use crate::cache::remote::service;
use crate::cache::{EncodeCli, edge};
use crate::cli::{finish, report_error};
use crate::encode::job::EncodeError;
use crate::jobserver;

/// The program named in messages.
const PROGRAM: &str = "assetc-encode";

/// Parses the command line and runs the edge.
pub fn main() -> ExitCode {
    let argv: Vec<_> = std::env::args_os().collect();
    let cli = EncodeCli::parse_from(&argv);
    // Started by an edge as the build's remote service, with its command line.
    if service::is_service() {
        return service::server::run(&cli.cache, edge::action_ahead);
    }
    let _session = jobserver::init(cli.threads);
    match edge::run(&cli.cache, &cli.command, &argv) {
        // Under --keep-going the error is printed but the edge succeeds; the
        // link reports it and fails the build.
        Err(EncodeError::Recorded(error)) => {
            report_error(PROGRAM, &error);
            ExitCode::SUCCESS
        }
        result => finish(PROGRAM, result),
    }
}
