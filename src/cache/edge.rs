//! One encode edge through the cache.
//!
//! 1. Key the edge: the source key from the tool, the canonical command and
//!    the source's content; then, from the deps record under it, the result
//!    key over every other file the edge read last time.
//! 2. On a hit, check every stored file against its hash and write the
//!    produced files, fragment and depfile as the encoder would: atomically,
//!    only when the bytes differ (so `restat` still prunes), with the
//!    depfile in this build's paths. Files the previous fragment listed and
//!    the stored one does not (a shader's removed entry point) are deleted.
//!    The encoder's warnings are printed again.
//! 3. On a miss, encode, then read the edge's files back and store them,
//!    blobs first and the action record last. A source or dependency whose
//!    modification time is later than the start of the encode may have
//!    changed under the encoder, so that result is not stored.
//!
//! A cache that cannot be read or written costs a warning and a local
//! encode, never the build.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::CacheArgs;
use super::key::{self, Key, ToolId};
use super::record::{ActionRecord, BlobRef};
use super::stats::{self, Counters};
use super::store::{LocalCache, Lookup};
use crate::cli;
use crate::depfile;
use crate::encode::command::Command;
use crate::encode::job::{self, EncodeError, JobArgs};
use crate::fragment::Fragment;
use crate::fsutil;

const PROGRAM: &str = "assetc-encode";

/// Runs `command` (parsed from `argv`) through the cache `args` name, or
/// directly when there is none or the edge is not cacheable.
pub fn run(args: &CacheArgs, command: &Command, argv: &[OsString]) -> Result<(), EncodeError> {
    let (Some(dir), Some(job)) = (&args.cache, command.cacheable_job()) else {
        return command.run();
    };
    let cache = LocalCache::new(dir);
    // A source that cannot be read is the encoder's error to report.
    let Some(edge) = Edge::describe(args, job, argv) else {
        return command.run();
    };
    if let Some(hit) = edge.lookup(&cache) {
        let restored = edge.restore(&hit);
        count(&cache, |c| c.hits += 1);
        return restored;
    }
    count(&cache, |c| c.misses += 1);
    cli::capture_warnings();
    let started = SystemTime::now();
    command.run()?;
    let warnings = cli::captured_warnings();
    if let Err(why) = edge.store(&cache, args, started, warnings) {
        cli::warn(
            PROGRAM,
            &format!(
                "{}: cannot store in the cache: {why}",
                cache.dir().display()
            ),
        );
    }
    Ok(())
}

/// An edge with its source key.
struct Edge<'a> {
    job: &'a JobArgs,
    source_key: Key,
}

/// What a hit restores.
struct Hit {
    record: ActionRecord,
    files: Vec<Vec<u8>>,
    fragment: Vec<u8>,
}

impl<'a> Edge<'a> {
    fn describe(args: &CacheArgs, job: &'a JobArgs, argv: &[OsString]) -> Option<Self> {
        let tool = ToolId::current(args.cache_state.as_deref()).ok()?;
        let command = key::canonical_command(argv, job)?;
        let source = key::content_hash(&job.input).ok()?;
        Some(Self {
            job,
            source_key: key::source_key(&tool, &command, &source),
        })
    }

    /// The stored result for the edge's inputs as they are now, verified.
    fn lookup(&self, cache: &LocalCache) -> Option<Hit> {
        let deps = found(cache, cache.deps(&self.source_key))?;
        let result_key = key::result_key(&self.source_key, &hash_deps(&deps).ok()?);
        let record = found(cache, cache.action(&result_key))?;
        if record.deps != deps {
            return None;
        }
        let files = record
            .files
            .iter()
            .map(|(_, blob)| found(cache, cache.blob(blob)))
            .collect::<Option<Vec<_>>>()?;
        let fragment = found(cache, cache.blob(&record.fragment))?;
        let used: Vec<BlobRef> = record
            .files
            .iter()
            .map(|(_, blob)| *blob)
            .chain([record.fragment])
            .collect();
        cache.touch(&self.source_key, &result_key, &used);
        Some(Hit {
            record,
            files,
            fragment,
        })
    }

    /// Writes what `hit` holds as the encoder would have.
    fn restore(&self, hit: &Hit) -> Result<(), EncodeError> {
        let written = self.write_hit(hit);
        if written.is_err() {
            job::clean_up(self.job);
        }
        written
    }

    fn write_hit(&self, hit: &Hit) -> Result<(), EncodeError> {
        for warning in &hit.record.warnings {
            eprintln!("{warning}");
        }
        let produced: HashSet<&str> = hit.record.files.iter().map(|(p, _)| p.as_str()).collect();
        if let Ok(previous) = Fragment::read(&self.job.fragment) {
            let gone = previous
                .files
                .iter()
                .filter(|p| !produced.contains(p.as_str()));
            fsutil::remove_all(gone.map(|p| self.job.root.join(p)));
        }
        for ((path, _), bytes) in hit.record.files.iter().zip(&hit.files) {
            job::write(&self.job.root.join(path), bytes)?;
        }
        job::write(&self.job.fragment, &hit.fragment)?;
        let deps: Vec<PathBuf> = hit.record.deps.iter().map(PathBuf::from).collect();
        job::write_depfile(self.job, &deps)
    }

    /// Stores the result of the encode that started at `started`.
    fn store(
        &self,
        cache: &LocalCache,
        args: &CacheArgs,
        started: SystemTime,
        warnings: Vec<String>,
    ) -> std::io::Result<()> {
        let deps = self.read_deps()?;
        let changed = |path: &Path| {
            fs::metadata(path)
                .and_then(|m| m.modified())
                .map_or(true, |modified| modified > started)
        };
        if changed(&self.job.input) || deps.iter().any(|d| changed(Path::new(d))) {
            return Ok(());
        }
        let result_key = key::result_key(&self.source_key, &hash_deps(&deps)?);
        let fragment = fs::read(&self.job.fragment)?;
        let listed =
            Fragment::parse(&String::from_utf8_lossy(&fragment)).map_err(|(line, what)| {
                std::io::Error::other(format!("fragment line {line}: {what}"))
            })?;
        let mut added = 0;
        let mut files = Vec::with_capacity(listed.files.len());
        for path in listed.files {
            let bytes = fs::read(self.job.root.join(&path))?;
            added += cache.put_blob(&bytes)?;
            files.push((path, BlobRef::of(&bytes)));
        }
        added += cache.put_blob(&fragment)?;
        added += cache.put_deps(&self.source_key, &deps)?;
        let record = ActionRecord {
            deps,
            files,
            fragment: BlobRef::of(&fragment),
            warnings,
        };
        added += cache.put_action(&result_key, &record)?;
        let max = args.max_size().0;
        let counters = count(cache, |c| {
            c.stores += 1;
            c.added_since_trim += added;
            if c.added_since_trim > max / 10 {
                c.added_since_trim = 0;
            }
        });
        if counters.is_some_and(|c| c.added_since_trim == 0) {
            cache.trim(max);
        }
        Ok(())
    }

    /// The files the depfile the encoder just wrote names besides the source.
    fn read_deps(&self) -> std::io::Result<Vec<String>> {
        let text = fs::read_to_string(&self.job.depfile)?;
        let (_, mut deps) = depfile::parse(&text).ok_or_else(|| {
            std::io::Error::other(format!("{}: not a depfile", self.job.depfile.display()))
        })?;
        if !deps.is_empty() {
            deps.remove(0);
        }
        Ok(deps)
    }
}

/// Each dependency with the hash of its content now.
fn hash_deps(deps: &[String]) -> std::io::Result<Vec<(String, Key)>> {
    deps.iter()
        .map(|d| Ok((d.clone(), key::content_hash(Path::new(d))?)))
        .collect()
}

/// The value of a lookup; a corrupt entry is a miss plus one warning.
fn found<T>(cache: &LocalCache, lookup: Lookup<T>) -> Option<T> {
    match lookup {
        Lookup::Found(value) => Some(value),
        Lookup::Missing => None,
        Lookup::Corrupt(path) => {
            cli::warn(
                PROGRAM,
                &format!(
                    "{}: corrupt cache entry deleted; encoding instead",
                    path.display()
                ),
            );
            count(cache, |c| c.corrupt += 1);
            None
        }
    }
}

/// Adds to the cache's counters; a cache whose counters cannot be written
/// still serves.
fn count(cache: &LocalCache, change: impl FnOnce(&mut Counters)) -> Option<Counters> {
    stats::update(cache.dir(), change).ok()
}
