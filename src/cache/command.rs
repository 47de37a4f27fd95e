//! `assetc cache stats` and `assetc cache trim`: look after a cache folder.
//!
//! The folder is `--dir`, else `ASSETC_CACHE`, else `cache.dir:` of the
//! `assetc.yml` found from the working folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::store::LocalCache;
use super::{CACHE_ENV, DEFAULT_MAX_SIZE, stats};
use crate::cli::finish;
use crate::config::{ByteSize, Config, ConfigError, absolute};

const PROGRAM: &str = "assetc";

/// The `assetc cache` subcommands.
#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Print the cache folder's size, limit and hit, miss and store counts.
    Stats(DirArgs),
    /// Delete the least recently used entries until the folder fits.
    Trim(TrimArgs),
}

/// Which cache folder.
#[derive(Debug, Args)]
pub struct DirArgs {
    /// The cache folder (default: ASSETC_CACHE, then `cache.dir:`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `assetc cache trim`.
#[derive(Debug, Args)]
pub struct TrimArgs {
    /// The folder.
    #[command(flatten)]
    pub dir: DirArgs,
    /// The size to trim to (e.g. 2G); default `cache.max_size:` or 5G.
    #[arg(long, value_name = "SIZE")]
    pub max_size: Option<ByteSize>,
}

/// Why a cache command could not start.
#[derive(Debug, thiserror::Error)]
pub enum CacheCommandError {
    /// No folder was named anywhere.
    #[error("no cache folder: pass --dir, set {CACHE_ENV}, or set cache.dir in assetc.yml")]
    NoFolder,
    /// The config could not be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl CacheCommand {
    /// Runs the subcommand.
    pub fn run(&self) -> ExitCode {
        finish(PROGRAM, self.execute())
    }

    fn execute(&self) -> Result<(), CacheCommandError> {
        match self {
            CacheCommand::Stats(args) => {
                let (cache, max) = open(args, None)?;
                print_stats(&cache, max);
            }
            CacheCommand::Trim(args) => {
                let (cache, max) = open(&args.dir, args.max_size)?;
                let trimmed = cache.trim(max.0);
                println!(
                    "assetc: trimmed {}: removed {} files ({} bytes), {} bytes left (limit {max})",
                    cache.dir().display(),
                    trimmed.files,
                    trimmed.bytes,
                    trimmed.kept
                );
            }
        }
        Ok(())
    }
}

/// The folder and limit the arguments, environment and config name.
fn open(
    args: &DirArgs,
    max_size: Option<ByteSize>,
) -> Result<(LocalCache, ByteSize), CacheCommandError> {
    let config = || Config::discover(Path::new(".")).ok();
    let dir = match args.dir.clone().or_else(super::dir_from_env) {
        Some(dir) => absolute(&dir)?,
        None => config()
            .and_then(|c| c.cache.dir)
            .ok_or(CacheCommandError::NoFolder)?,
    };
    let max = max_size
        .or_else(|| config().and_then(|c| c.cache.max_size))
        .unwrap_or(DEFAULT_MAX_SIZE);
    Ok((LocalCache::new(&dir), max))
}

fn print_stats(cache: &LocalCache, max: ByteSize) {
    let usage = cache.usage();
    let counters = stats::read(cache.dir());
    let lookups = counters.hits + counters.misses;
    let rate = if lookups == 0 {
        0.0
    } else {
        100.0 * counters.hits as f64 / lookups as f64
    };
    println!("cache folder      {}", cache.dir().display());
    println!("files             {}", usage.files);
    println!("size              {} bytes (limit {max})", usage.bytes);
    println!("hits              {}", counters.hits);
    println!("misses            {}", counters.misses);
    println!("hit rate          {rate:.1} %");
    println!("stores            {}", counters.stores);
    println!("corrupt entries   {}", counters.corrupt);
}
