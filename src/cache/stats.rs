//! The counters of a cache folder (`DIR/v1/stats`), shared by every build
//! that uses it: each edge adds its outcome under an exclusive lock.
//!
//! The file is a few `name value` lines. A file that cannot be read counts
//! as zeros: the counters are for people and for deciding when to trim,
//! never for correctness.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fsutil::{self, FileError};

/// What happened to the cache's lookups and inserts so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Edges whose outputs came from the cache.
    pub hits: u64,
    /// Edges that encoded because the cache had no entry.
    pub misses: u64,
    /// Edges whose results were stored.
    pub stores: u64,
    /// Entries found corrupt and deleted.
    pub corrupt: u64,
    /// Bytes stored since the last automatic trim.
    pub added_since_trim: u64,
}

impl Counters {
    const NAMES: [&'static str; 5] = ["hits", "misses", "stores", "corrupt", "added_since_trim"];

    fn fields(&mut self) -> [&mut u64; 5] {
        [
            &mut self.hits,
            &mut self.misses,
            &mut self.stores,
            &mut self.corrupt,
            &mut self.added_since_trim,
        ]
    }

    fn parse(text: &str) -> Self {
        let mut counters = Self::default();
        for line in text.lines() {
            let Some((name, value)) = line.split_once(' ') else {
                continue;
            };
            let position = Self::NAMES.iter().position(|n| *n == name);
            if let (Some(index), Ok(value)) = (position, value.parse()) {
                *counters.fields()[index] = value;
            }
        }
        counters
    }

    fn render(mut self) -> String {
        let mut text = String::new();
        for (name, value) in Self::NAMES.iter().zip(self.fields()) {
            let _ = writeln!(text, "{name} {value}");
        }
        text
    }
}

fn stats_file(dir: &Path) -> PathBuf {
    dir.join("v1").join("stats")
}

/// The counters as they are now.
pub fn read(dir: &Path) -> Counters {
    fs::read_to_string(stats_file(dir))
        .map(|text| Counters::parse(&text))
        .unwrap_or_default()
}

/// Applies `change` to the counters under the cache's stats lock and returns
/// the new values.
pub fn update(dir: &Path, change: impl FnOnce(&mut Counters)) -> Result<Counters, FileError> {
    let _lock = fsutil::lock_exclusive(&dir.join("v1").join("stats.lock"))?;
    let mut counters = read(dir);
    change(&mut counters);
    fsutil::write_output(&stats_file(dir), counters.render().as_bytes())?;
    Ok(counters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_add_up_and_survive_garbage() {
        let dir = tempfile::tempdir().unwrap();
        update(dir.path(), |c| c.hits += 2).unwrap();
        let now = update(dir.path(), |c| c.misses += 1).unwrap();
        assert_eq!((now.hits, now.misses), (2, 1));
        assert_eq!(read(dir.path()), now);
        fs::write(stats_file(dir.path()), "hits x\n\u{0}garbage").unwrap();
        assert_eq!(read(dir.path()), Counters::default());
    }
}
