//! One encode edge through the local cache and the remote.
//!
//! 1. Key the edge: the source key from the tool, the canonical command and
//!    the source's content; then, from the deps record under it, the result
//!    key over every other file the edge read last time.
//! 2. Look the result up in the local cache folder, then in the remote's
//!    action cache; with `--remote-exec`, run the encode on the remote's
//!    workers. Every file found is checked against its hash.
//! 3. A result found is written as the encoder would have written it:
//!    atomically, only when the bytes differ (so `restat` still prunes),
//!    with the depfile in this build's paths. Files the previous fragment
//!    listed and the result does not (a shader's removed entry point) are
//!    deleted, and the encoder's warnings are printed again.
//! 4. Otherwise the edge encodes locally and stores the result in both
//!    places, unless a source or dependency was modified after the encode
//!    started (it may have changed under the encoder).
//!
//! Neither cache can fail a build: a problem with either is a warning and a
//! local encode.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::CacheArgs;
use super::key::{self, Key, Settings, ToolId};
use super::record::{self, ActionRecord, BlobRef};
use super::remote::action::{self, Action, Input, Produced};
use super::remote::client::RemoteError;
use super::remote::{Fetched, Session};
use super::stats::{self, Counters};
use super::store::{LocalCache, Lookup};
use crate::cli;
use crate::depfile;
use crate::encode::command::Command;
use crate::encode::job::{self, EncodeError, JobArgs};
use crate::format::bytes::check_runtime_path;
use crate::fragment::Fragment;
use crate::fsutil;
use bazel_remote_apis::build::bazel::remote::execution::v2 as re;

const PROGRAM: &str = "assetc-encode";

/// The environment variable naming a file to which every cached edge
/// appends one line: `hit`, `remote-hit`, `remote-exec` or `encode`, then
/// its source.
pub const LOG_ENV: &str = "ASSETC_CACHE_LOG";

/// Runs `command` (parsed from `argv`) through the caches `args` name, or
/// directly when there are none or the edge is not cacheable.
pub fn run(args: &CacheArgs, command: &Command, argv: &[OsString]) -> Result<(), EncodeError> {
    let Some(job) = command.cacheable_job() else {
        return command.run();
    };
    if args.cache.is_none() && args.remote.url.is_none() {
        return command.run();
    }
    // A source that cannot be read is the encoder's error to report.
    let Some(edge) = Settings::of(argv).and_then(|settings| Edge::describe(args, job, settings))
    else {
        return command.run();
    };
    let local = args.cache.as_deref().map(LocalCache::new);
    if let Some(cache) = &local {
        if let Some((deps, produced)) = edge.lookup(cache) {
            count(cache, |c| c.hits += 1);
            log(job, "hit");
            return edge.restore(&deps, &produced);
        }
        count(cache, |c| c.misses += 1);
    }
    let mut session = Session::open(&args.remote, args.cache_state.as_deref(), &edge.tool.sha256);
    if let Some(opened) = &session {
        let mut asked = edge.ask_remote(opened, local.as_ref());
        // A service that went away mid-request: ask the server directly.
        if matches!(asked, Err(RemoteError::Service(_))) {
            session = Session::open_direct(&args.remote, args.cache_state.as_deref());
            asked = match &session {
                Some(direct) => edge.ask_remote(direct, local.as_ref()),
                None => Ok(None),
            };
        }
        match (asked, &session) {
            (Ok(Some((outcome, fetched))), _) => {
                log(job, outcome);
                edge.restore(&fetched.deps, &fetched.produced)?;
                if let Some(cache) = &local {
                    edge.keep(cache, &fetched.deps, &fetched.produced);
                }
                return Ok(());
            }
            (Err(error), Some(session)) => session.failed(&error),
            _ => {}
        }
    }
    cli::capture_warnings();
    let started = SystemTime::now();
    command.run()?;
    let waited = session.as_ref().is_some_and(Session::waited);
    log(job, if waited { "encode-waited" } else { "encode" });
    let warnings = cli::captured_warnings();
    edge.store_encoded(local.as_ref(), session.as_ref(), started, warnings);
    Ok(())
}

/// The remote action an edge will look up first, when it follows from the
/// edge's command line and source alone (an edge that reads nothing else):
/// the build's service looks it up before the edge asks.
/// `argv` is the edge's command line. `None` when it does not parse, and
/// for an edge that will likely not ask: its fragment is newer than its
/// source (Ninja has nothing to do for it unless its rule changed), or the
/// local cache folder knows its source (it will hit there).
pub fn action_ahead(args: &CacheArgs, argv: &[OsString]) -> Option<re::Digest> {
    let cli = <super::EncodeCli as clap::Parser>::try_parse_from(argv).ok()?;
    let job = cli.command.cacheable_job()?;
    if fragment_is_newer(job) {
        return None;
    }
    // Settings first: the source of an edge that is not keyed ahead is
    // not hashed here.
    let settings = Settings::of(argv)?;
    if !reads_only_its_source(&settings) {
        return None;
    }
    let edge = Edge::describe(args, job, settings)?;
    let known_locally = args
        .cache
        .as_deref()
        .map(LocalCache::new)
        .is_some_and(|cache| matches!(cache.deps(&edge.source_key), Lookup::Found(_)));
    if known_locally {
        return None;
    }
    let (action, _) = edge.remote_action(&folder_files(&edge.job.input)).ok()??;
    Some(action.digest)
}

/// An edge with its settings and source key.
struct Edge<'a> {
    job: &'a JobArgs,
    settings: Settings,
    tool: ToolId,
    source_key: Key,
    max_size: u64,
}

impl<'a> Edge<'a> {
    fn describe(args: &CacheArgs, job: &'a JobArgs, settings: Settings) -> Option<Self> {
        let tool = ToolId::current(args.cache_state.as_deref()).ok()?;
        let command = settings.canonical(job)?;
        let source = key::content_hash(&job.input).ok()?;
        Some(Self {
            job,
            source_key: key::source_key(&tool, &command, &source),
            settings,
            tool,
            max_size: args.max_size().0,
        })
    }

    /// The local cache's result for the edge's inputs as they are now.
    fn lookup(&self, cache: &LocalCache) -> Option<(Vec<String>, Produced)> {
        let deps = found(cache, cache.deps(&self.source_key))?;
        let result_key = key::result_key(&self.source_key, &hash_deps(&deps).ok()?);
        let record = found(cache, cache.action(&result_key))?;
        if record.deps != deps {
            return None;
        }
        // A shared folder is not trusted to name paths: every file a hit
        // writes stays below the output root.
        if let Some((path, why)) = record
            .files
            .iter()
            .find_map(|(p, _)| check_runtime_path(p).err().map(|why| (p, why)))
        {
            cli::warn(
                PROGRAM,
                &format!(
                    "{}: a cache entry names the file '{path}', which {why}; encoding instead",
                    cache.dir().display()
                ),
            );
            count(cache, |c| c.corrupt += 1);
            return None;
        }
        let mut files = Vec::with_capacity(record.files.len());
        for (path, blob) in &record.files {
            files.push((path.clone(), found(cache, cache.blob(blob))?));
        }
        let fragment = found(cache, cache.blob(&record.fragment))?;
        let used: Vec<BlobRef> = record
            .files
            .iter()
            .map(|(_, b)| *b)
            .chain([record.fragment])
            .collect();
        cache.touch(&self.source_key, &result_key, &used);
        let produced = Produced {
            files,
            fragment,
            warnings: record.warnings,
        };
        Some((deps, produced))
    }

    /// The remote's result for the edge, from its action cache or, with
    /// `--remote-exec`, from a run on its workers.
    fn ask_remote(
        &self,
        session: &Session,
        local: Option<&LocalCache>,
    ) -> Result<Option<(&'static str, Fetched)>, RemoteError> {
        let deps_action = action::deps_action(&self.source_key);
        // An edge that reads only its source needs no record to be keyed.
        let known = if self.reads_only_its_source() {
            Some(folder_files(&self.job.input))
        } else {
            match local.map(|cache| cache.deps(&self.source_key)) {
                Some(Lookup::Found(deps)) => Some(deps),
                _ => session
                    .deps(&deps_action)?
                    .and_then(|text| record::parse_deps(&String::from_utf8_lossy(&text))),
            }
        };
        let keyed = match &known {
            Some(deps) => match self.remote_action(deps)? {
                Some(keyed) => Some(keyed),
                None => return Ok(None),
            },
            None => None,
        };
        if let (Some(deps), Some((action, _))) = (&known, &keyed)
            && let Some(fetched) = session.lookup(action, deps)?
        {
            return Ok(Some(("remote-hit", fetched)));
        }
        if !session.executes() {
            return Ok(None);
        }
        // Without an earlier run's depfile, only an edge that reads nothing
        // but its source (or its folder's files) can run remotely: the
        // others may read files they find by name, and an encoder that
        // tolerates a missing one (an OBJ's `.mtl`) would give another
        // result there. They encode locally once, which records their deps.
        // (An edge that reads only its source is always keyed above.)
        let (Some(reads), Some((run, inputs))) = (known, keyed) else {
            return Ok(None);
        };
        let Some(fetched) = session.execute(&run, &self.tool.path, &self.tool_digest(), &inputs)?
        else {
            return Ok(None);
        };
        // Record what the run read and, when that is not what it was sent,
        // its result under the action a later lookup computes from it.
        if fetched.deps != reads
            && let Some((keyed, _)) = self.remote_action(&fetched.deps)?
        {
            let (result, blobs) = action::result_of(&fetched.produced);
            session.store(&keyed, result, &blobs)?;
        }
        if !self.reads_only_its_source() {
            let text = record::render_deps(&fetched.deps);
            session.store_deps(&deps_action, text.as_bytes())?;
        }
        Ok(Some(("remote-exec", fetched)))
    }

    /// See [`reads_only_its_source`].
    fn reads_only_its_source(&self) -> bool {
        reads_only_its_source(&self.settings)
    }

    /// The edge as an action over its source and the files `reads`, with
    /// those inputs; `None` when one cannot be read or placed in an input
    /// tree (a path outside the project), so the edge stays local.
    fn remote_action(&self, reads: &[String]) -> Result<Option<(Action, Vec<Input>)>, RemoteError> {
        let source = self.job.input.to_string_lossy();
        let mut paths: Vec<&str> = Vec::with_capacity(reads.len() + 1);
        if !self.job.input.is_dir() {
            paths.push(&source);
        }
        paths.extend(reads.iter().map(String::as_str));
        let Ok(inputs) = paths
            .into_iter()
            .map(action::input)
            .collect::<std::io::Result<Vec<_>>>()
        else {
            return Ok(None);
        };
        let command = action::command(&self.settings, self.job, &source)
            .map_err(|e| RemoteError::Invalid(e.to_string()))?;
        let built = action::action(&command, &self.tool_digest(), &inputs);
        Ok(built.ok().map(|action| (action, inputs)))
    }

    /// The tool's REAPI digest.
    fn tool_digest(&self) -> re::Digest {
        re::Digest {
            hash: self.tool.sha256.clone(),
            size_bytes: self.tool.size as i64,
        }
    }

    /// Writes `produced` as the encoder would have; on failure removes the
    /// edge's outputs as a failed encode does.
    fn restore(&self, deps: &[String], produced: &Produced) -> Result<(), EncodeError> {
        let written = self.write(deps, produced);
        if written.is_err() {
            job::clean_up(self.job);
        }
        written
    }

    fn write(&self, deps: &[String], produced: &Produced) -> Result<(), EncodeError> {
        for warning in &produced.warnings {
            cli::to_stderr(warning);
        }
        let made: HashSet<&str> = produced.files.iter().map(|(p, _)| p.as_str()).collect();
        if let Ok(previous) = Fragment::read(&self.job.fragment) {
            let gone = previous
                .files
                .iter()
                .filter(|p| !made.contains(p.as_str()) && check_runtime_path(p).is_ok());
            fsutil::remove_all(gone.map(|p| self.job.root.join(p)));
        }
        for (path, bytes) in &produced.files {
            job::write(&self.job.root.join(path), bytes)?;
        }
        job::write(&self.job.fragment, &produced.fragment)?;
        let deps: Vec<PathBuf> = deps.iter().map(PathBuf::from).collect();
        job::write_depfile(self.job, &deps)
    }

    /// After a local encode that started at `started`: stores its result in
    /// the local cache and the remote.
    fn store_encoded(
        &self,
        local: Option<&LocalCache>,
        session: Option<&Session>,
        started: SystemTime,
        warnings: Vec<String>,
    ) {
        let result = self.read_encoded(started, warnings);
        let (deps, produced) = match result {
            Ok(Some(found)) => found,
            Ok(None) => return,
            Err(why) => {
                cli::warn(
                    PROGRAM,
                    &format!(
                        "{}: cannot store the result: {why}",
                        self.job.input.display()
                    ),
                );
                return;
            }
        };
        if let Some(cache) = local {
            self.keep(cache, &deps, &produced);
        }
        if let Some(session) = session {
            // Stored under the action a later lookup computes: from the
            // source alone, or from the record of what the edge read, which
            // is then stored too.
            let source_only = self.reads_only_its_source();
            let reads = if source_only {
                folder_files(&self.job.input)
            } else {
                deps
            };
            let uploaded = self.remote_action(&reads).and_then(|keyed| {
                let Some((keyed, _)) = keyed else {
                    return Ok(());
                };
                if source_only {
                    return session.upload(&keyed, &produced, None);
                }
                let deps_action = action::deps_action(&self.source_key);
                let text = record::render_deps(&reads);
                session.upload(&keyed, &produced, Some((&deps_action, text.as_bytes())))
            });
            if let Err(error) = uploaded {
                session.failed(&error);
            }
        }
    }

    /// What the local encode wrote, or `None` when an input was modified
    /// after `started`.
    fn read_encoded(
        &self,
        started: SystemTime,
        warnings: Vec<String>,
    ) -> std::io::Result<Option<(Vec<String>, Produced)>> {
        let deps = self.read_deps()?;
        let changed = |path: &Path| {
            fs::metadata(path)
                .and_then(|m| m.modified())
                .map_or(true, |modified| modified > started)
        };
        if changed(&self.job.input) || deps.iter().any(|d| changed(Path::new(d))) {
            return Ok(None);
        }
        let fragment = fs::read(&self.job.fragment)?;
        let listed =
            Fragment::parse(&String::from_utf8_lossy(&fragment)).map_err(|(line, what)| {
                std::io::Error::other(format!("fragment line {line}: {what}"))
            })?;
        let files = listed
            .files
            .into_iter()
            .map(|path| Ok((path.clone(), fs::read(self.job.root.join(&path))?)))
            .collect::<std::io::Result<_>>()?;
        Ok(Some((
            deps,
            Produced {
                files,
                fragment,
                warnings,
            },
        )))
    }

    /// Puts `produced` in the local cache; a failure is a warning.
    fn keep(&self, cache: &LocalCache, deps: &[String], produced: &Produced) {
        let stored = hash_deps(deps).and_then(|hashed| {
            let result_key = key::result_key(&self.source_key, &hashed);
            let mut added = 0;
            let mut files = Vec::with_capacity(produced.files.len());
            for (path, bytes) in &produced.files {
                added += cache.put_blob(bytes)?;
                files.push((path.clone(), BlobRef::of(bytes)));
            }
            added += cache.put_blob(&produced.fragment)?;
            added += cache.put_deps(&self.source_key, deps)?;
            let record = ActionRecord {
                deps: deps.to_vec(),
                files,
                fragment: BlobRef::of(&produced.fragment),
                warnings: produced.warnings.clone(),
            };
            added += cache.put_action(&result_key, &record)?;
            Ok(added)
        });
        match stored {
            Ok(added) => self.account(cache, added),
            Err(why) => cli::warn(
                PROGRAM,
                &format!(
                    "{}: cannot store in the cache: {why}",
                    cache.dir().display()
                ),
            ),
        }
    }

    /// Counts a store, and trims the folder when stores since the last trim
    /// passed a tenth of its limit.
    fn account(&self, cache: &LocalCache, added: u64) {
        let max = self.max_size;
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
    }

    /// The files the depfile the encoder just wrote names besides the source.
    fn read_deps(&self) -> std::io::Result<Vec<String>> {
        // Without a depfile the encoder read nothing else (it fails otherwise).
        let Some(path) = &self.job.depfile else {
            return Ok(Vec::new());
        };
        let text = fs::read_to_string(path)?;
        depfile::extra_inputs(&text)
            .ok_or_else(|| std::io::Error::other(format!("{}: not a depfile", path.display())))
    }
}

/// Whether the encoder of an edge with `settings` reads its source and
/// nothing else (a folder source: the files in it): every kind but meshes,
/// shaders (includes) and textures taken from inside a glTF (its buffers).
fn reads_only_its_source(settings: &Settings) -> bool {
    match settings.kind.as_str() {
        "texture" => !settings.settings.iter().any(|s| s.id == "gltf_image"),
        "lut" | "font" | "embed" | "cubemap" | "array" => true,
        _ => false,
    }
}

/// Whether the edge's fragment was written after its source last changed.
fn fragment_is_newer(job: &JobArgs) -> bool {
    let modified = |path: &Path| fs::metadata(path).and_then(|m| m.modified()).ok();
    match (modified(&job.fragment), modified(&job.input)) {
        (Some(fragment), Some(source)) => fragment >= source,
        _ => false,
    }
}

/// Every file below a folder source, project-relative, sorted; nothing for
/// a file source.
fn folder_files(source: &Path) -> Vec<String> {
    if !source.is_dir() {
        return Vec::new();
    }
    let mut files: Vec<String> = walkdir::WalkDir::new(source)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
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

/// Appends the edge's outcome to the file [`LOG_ENV`] names, if any.
fn log(job: &JobArgs, outcome: &str) {
    let Some(path) = std::env::var_os(LOG_ENV) else {
        return;
    };
    let line = format!("{outcome} {}\n", job.source);
    if let Ok(mut file) = fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = file.write_all(line.as_bytes());
    }
}
