//! Sharing encode results between builds: the action key, the local cache
//! folder and the cached run of one encode edge.
//!
//! `assetc configure --cache DIR` adds `--cache DIR` to every
//! `assetc-encode` command. Such an edge computes its action key
//! ([`key`]), and on a hit writes the stored outputs, fragment and depfile
//! exactly as an encode would have, without encoding ([`edge`]). On a miss
//! it encodes and stores the result ([`store`], [`record`]). The cache never
//! fails a build: anything wrong with it is a warning and a local encode.
//!
//! `assetc cache stats` and `assetc cache trim` ([`command`]) look after the
//! folder; [`stats`] keeps its counters. `docs/cache.md` is the user's view.

pub mod cli;
pub mod command;
pub mod digest;
pub mod edge;
pub mod key;
pub mod record;
pub mod remote;
pub mod stats;
pub mod store;

pub use cli::EncodeCli;

use std::path::PathBuf;

use crate::config::ByteSize;

/// The cache limit when none is given.
pub const DEFAULT_MAX_SIZE: ByteSize = ByteSize(5 << 30);

/// The environment variable naming a cache folder for `assetc configure`
/// and the `assetc cache` commands when the command line names none.
pub const CACHE_ENV: &str = "ASSETC_CACHE";

/// The cache folder [`CACHE_ENV`] names, if it names one.
pub fn dir_from_env() -> Option<PathBuf> {
    std::env::var_os(CACHE_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The cache options of `assetc-encode`, given before the kind.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct CacheArgs {
    /// A shared cache folder: look each encode up before running it and
    /// store its result after.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Trim the cache folder back to this size when stores push it past.
    #[arg(long, value_name = "SIZE")]
    pub cache_max_size: Option<ByteSize>,
    /// This build folder, where the cache keeps the tool's hash between
    /// edges and marks a remote that failed.
    #[arg(long, value_name = "DIR")]
    pub cache_state: Option<PathBuf>,
    /// The remote cache and executor.
    #[command(flatten)]
    pub remote: crate::config::RemoteSettings,
}

impl CacheArgs {
    /// The limit in force.
    pub fn max_size(&self) -> ByteSize {
        self.cache_max_size.unwrap_or(DEFAULT_MAX_SIZE)
    }
}
