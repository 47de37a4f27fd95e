//! The `assetc-encode` command line: the cache and remote options, then the
//! encoder and its settings. It lives in `cache/` because the action key is
//! defined over it ([`super::key`] canonicalises every parsed setting); the
//! program's entry, `app::encode`, parses it and runs the edge.

use super::CacheArgs;
use crate::encode::command::Command;

/// `assetc-encode`: compile one source asset (run by Ninja, one edge per
/// asset), through the cache when one is named.
#[derive(Debug, clap::Parser)]
#[command(
    name = "assetc-encode",
    version,
    about,
    after_help = "Ninja runs this program, one edge per asset, from the build.ninja that \
                  `assetc configure` writes; it is not meant to be typed by hand. To build \
                  a project, run `assetc build` (or `assetc configure && ninja`) in its folder."
)]
pub struct EncodeCli {
    /// Where results are shared.
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Threads in all for this edge, overriding the jobserver (and
    /// `ASSETC_THREADS`); for benchmarks. Without either, the encoder adds
    /// threads only while the build's jobserver lends tokens. Outputs are
    /// the same at any count, so it is not part of the action key.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// What to encode.
    #[command(subcommand)]
    pub command: Command,
}
