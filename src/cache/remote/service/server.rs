//! The service process: one per build folder, holding one channel to the
//! REAPI server for every edge of the build.
//!
//! * **Lookups** go through one table of results by action: an edge that
//!   asks for a result the prefetch (or another edge) is already fetching
//!   waits for that call instead of making its own. A result found brings
//!   its blobs along in one batch read, kept until the edge reads them.
//! * **Stores** are answered at once and uploaded in the background, four
//!   at a time; the service stays until they are done.
//! * **Failures** are decided once for the build. A remote that cannot be
//!   reached, or misses a deadline, is not used any more: every waiting and
//!   later request is answered "down" at once, and one edge prints the one
//!   warning. A store the server refuses (full, read-only) stops uploads
//!   for the build, with one warning naming the refusal.
//! * **Lifetime**: the service leaves once the build that started it has
//!   ended (or after a quiet minute) and its uploads are done, or at once
//!   when an edge of another tool or other settings says hello (it is
//!   stale). It holds `remote.lock` all along, so one runs per folder.

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{OnceCell, Semaphore, watch};

use super::protocol::{self, Reply, Request};
use super::{BUILD_PID_ENV, fingerprint, lock_file, log_file, prefetch, socket};
use crate::cache::CacheArgs;
use crate::cache::key::ToolId;
use crate::cache::remote::action;
use crate::cache::remote::client::{Blob, RemoteError, Upstream};
use crate::cli;

/// How long the service stays with nothing to do when it cannot tell
/// whether its build is still running.
const IDLE: Duration = Duration::from_secs(60);

/// How often the service checks whether it should leave.
const TICK: Duration = Duration::from_millis(200);

/// Blob bytes fetched ahead and not read yet, at most; past it lookups
/// still run ahead but the blobs wait for their edge.
const HELD_BYTES: usize = 256 << 20;

/// Uploads running at once.
const UPLOADS: usize = 4;

/// How often a call the server turned away as busy is asked again, and the
/// first pause before that (doubled each time).
const BUSY_RETRIES: u32 = 4;
const BUSY_PAUSE: Duration = Duration::from_millis(50);

/// A request that took longer than this before the remote was given up
/// counts as having waited on it.
const WAITED: Duration = Duration::from_secs(1);

/// Why a request to the server failed.
#[derive(Debug, Clone)]
enum Failure {
    /// The remote is not used for the rest of the build.
    Down(String),
    /// This answer was bad; the remote stays in use.
    Invalid(String),
}

/// A lookup's outcome, shared by everyone who asked for the same action.
type Resolved = Result<Option<re::ActionResult>, Failure>;

/// The service's state.
struct Service {
    settings: crate::config::RemoteSettings,
    tool: String,
    fingerprint: String,
    upstream: OnceCell<Option<Upstream>>,
    /// `Some(reason)` once the remote is given up.
    down: watch::Sender<Option<String>>,
    uploads_off: AtomicBool,
    warnings: Mutex<Vec<String>>,
    results: Mutex<HashMap<String, Arc<OnceCell<Resolved>>>>,
    held: Mutex<HeldBlobs>,
    /// Open connections and running uploads.
    busy: AtomicUsize,
    last_request: Mutex<Instant>,
    uploads: Semaphore,
    retiring: AtomicBool,
    log: Mutex<Option<fs::File>>,
}

/// Blobs fetched ahead of their edge.
#[derive(Default)]
struct HeldBlobs {
    blobs: HashMap<String, Vec<u8>>,
    bytes: usize,
}

impl HeldBlobs {
    fn put(&mut self, hash: String, bytes: Vec<u8>) {
        let size = bytes.len();
        if self.blobs.insert(hash, bytes).is_none() {
            self.bytes += size;
        }
    }

    fn take(&mut self, hash: &str) -> Option<Vec<u8>> {
        let bytes = self.blobs.remove(hash)?;
        self.bytes -= bytes.len();
        Some(bytes)
    }
}

/// Runs the service for the build folder `args` names, until it leaves;
/// `keyer` keys the edges it looks up ahead.
pub fn run(args: &CacheArgs, keyer: prefetch::Keyer) -> ExitCode {
    let Some(build) = args.cache_state.clone() else {
        eprintln!("assetc-encode: error: the remote service needs --cache-state");
        return ExitCode::FAILURE;
    };
    // The socket and everything else the service makes are the user's alone.
    // SAFETY: umask only changes this process's file creation mask.
    unsafe { libc::umask(0o077) };
    let Some(lock) = take_lock(&build) else {
        // Another service serves this folder.
        return ExitCode::SUCCESS;
    };
    let tool = match ToolId::current(Some(&build)) {
        Ok(tool) => tool.sha256,
        Err(error) => {
            eprintln!("assetc-encode: error: the remote service cannot hash its tool: {error}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("assetc-encode: error: the remote service cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let service = Arc::new(Service::new(args, tool, &build));
    let served = runtime.block_on(service.clone().serve(args.clone(), build, keyer));
    service.note(&format!("stopped ({})", served.unwrap_or_else(|e| e)));
    // Uploads still running when the runtime goes are abandoned: `serve`
    // only returns once none are (or the remote is down).
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(lock);
    ExitCode::SUCCESS
}

/// Takes the folder's service lock without waiting, and writes this
/// process's id into it; `None` when another process holds it.
fn take_lock(build: &Path) -> Option<fs::File> {
    fs::create_dir_all(build).ok()?;
    let mut file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_file(build))
        .ok()?;
    // SAFETY: flock on a descriptor this function owns.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if !locked {
        return None;
    }
    file.set_len(0).ok()?;
    writeln!(file, "{}", std::process::id()).ok()?;
    Some(file)
}

impl Service {
    fn new(args: &CacheArgs, tool: String, build: &Path) -> Self {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log_file(build))
            .ok();
        Self {
            settings: args.remote.clone(),
            tool,
            fingerprint: fingerprint(&args.remote),
            upstream: OnceCell::new(),
            down: watch::channel(None).0,
            uploads_off: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            results: Mutex::new(HashMap::new()),
            held: Mutex::new(HeldBlobs::default()),
            busy: AtomicUsize::new(0),
            last_request: Mutex::new(Instant::now()),
            uploads: Semaphore::new(UPLOADS),
            retiring: AtomicBool::new(false),
            log: Mutex::new(log),
        }
    }

    fn url(&self) -> &str {
        self.settings.url.as_deref().unwrap_or_default()
    }

    /// Appends a line to the service log.
    fn note(&self, line: &str) {
        if let Ok(mut log) = self.log.lock()
            && let Some(file) = log.as_mut()
        {
            let _ = writeln!(
                file,
                "assetc-encode remote service {}: {line}",
                std::process::id()
            );
        }
    }

    /// Queues a warning for the next edge to print, and logs it.
    fn warn(&self, warning: String) {
        self.note(&format!("warning: {warning}"));
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(warning);
        }
    }

    fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// Serves until it is time to leave; says why.
    async fn serve(
        self: Arc<Self>,
        args: CacheArgs,
        build: PathBuf,
        keyer: prefetch::Keyer,
    ) -> Result<String, String> {
        let path = socket(&build);
        let _ = fs::remove_file(&path);
        let listener = UnixListener::bind(&path)
            .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
        let inode = fs::metadata(&path).map(|m| m.ino()).ok();
        self.note(&format!("serving {} for {}", path.display(), self.url()));
        let prefetching = tokio::spawn(self.clone().prefetch(args, build.clone(), keyer));
        let build_pid = std::env::var(BUILD_PID_ENV)
            .ok()
            .and_then(|p| p.parse::<i32>().ok());
        let reason = loop {
            tokio::select! {
                accepted = listener.accept() => {
                    if let Ok((stream, _)) = accepted {
                        self.busy.fetch_add(1, Ordering::SeqCst);
                        tokio::spawn(self.clone().connection(stream));
                    }
                }
                _ = tokio::time::sleep(TICK) => {
                    if let Some(reason) = self.time_to_leave(build_pid) {
                        break reason;
                    }
                }
            }
        };
        prefetching.abort();
        // Only this service's socket is removed, not a successor's.
        if fs::metadata(&path).map(|m| m.ino()).ok() == inode {
            let _ = fs::remove_file(&path);
        }
        drop(listener);
        self.drain().await;
        Ok(reason)
    }

    /// Why the service should leave now, if it should.
    fn time_to_leave(&self, build_pid: Option<i32>) -> Option<String> {
        if self.retiring.load(Ordering::SeqCst) {
            return Some("stale: an edge of another tool or other settings".into());
        }
        if self.busy.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let quiet = self.last_request.lock().map_or(IDLE, |t| t.elapsed());
        // SAFETY: signal 0 only checks that the process exists.
        let build_ended = build_pid.is_some_and(|pid| unsafe { libc::kill(pid, 0) } != 0);
        if build_ended && quiet > TICK {
            return Some("the build ended".into());
        }
        (quiet > IDLE).then(|| format!("idle for {} s", IDLE.as_secs()))
    }

    /// Waits for the uploads still running (each bounded by its deadline).
    async fn drain(&self) {
        while self.busy.load(Ordering::SeqCst) > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The channel to the server, made on first use; `None` once down.
    async fn upstream(&self) -> Option<&Upstream> {
        self.upstream
            .get_or_init(|| async {
                match Upstream::connect(&self.settings).await {
                    Ok(upstream) => Some(upstream),
                    Err(error) => {
                        self.give_up(&error);
                        None
                    }
                }
            })
            .await
            .as_ref()
    }

    /// Stops using the remote for the build; the first call warns.
    fn give_up(&self, error: &RemoteError) -> Failure {
        let reason = cli::with_causes(error, ": ");
        let first = self.down.send_if_modified(|down| {
            if down.is_some() {
                return false;
            }
            *down = Some(reason.clone());
            true
        });
        if first {
            self.warn(format!(
                "remote {} is unavailable ({reason}); encoding locally for the rest of this build",
                self.url()
            ));
        }
        Failure::Down(reason)
    }

    fn down_reason(&self) -> Option<String> {
        self.down.borrow().clone()
    }

    /// Runs a call to the server unless the remote is down, and gives up
    /// on it as soon as the remote goes down for any request. A server that
    /// says it is busy (too many calls at once) is asked again after a
    /// pause, a few times, before this request fails on its own.
    async fn guarded<T, F>(&self, call: impl Fn() -> F) -> Result<T, Failure>
    where
        F: std::future::Future<Output = Result<T, RemoteError>>,
    {
        let mut down = self.down.subscribe();
        let mut pause = BUSY_PAUSE;
        for attempt in 0.. {
            if let Some(reason) = down.borrow().clone() {
                return Err(Failure::Down(reason));
            }
            let outcome = tokio::select! {
                result = call() => result,
                _ = down.wait_for(Option::is_some) => {
                    return Err(Failure::Down(self.down_reason().unwrap_or_default()));
                }
            };
            match outcome {
                Ok(value) => return Ok(value),
                Err(error) if error.busy() && attempt < BUSY_RETRIES => {
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
                Err(error) if error.busy() => {
                    return Err(Failure::Invalid(cli::with_causes(&error, ": ")));
                }
                Err(RemoteError::Invalid(message)) => return Err(Failure::Invalid(message)),
                Err(other) => return Err(self.give_up(&other)),
            }
        }
        unreachable!("the retry loop returns")
    }

    /// The result of `action`, fetched once for everyone who asks; the
    /// first asker decides whether its blobs come along (an edge) or are
    /// left to a batch over several results (the prefetch).
    async fn result_of(&self, action: re::Digest, with_blobs: bool) -> Resolved {
        let cell = match self.results.lock() {
            Ok(mut results) => results.entry(action.hash.clone()).or_default().clone(),
            Err(_) => return Err(Failure::Invalid("the result table is poisoned".into())),
        };
        cell.get_or_init(|| self.resolve(action, with_blobs))
            .await
            .clone()
    }

    /// Looks `action` up and, `with_blobs`, fetches what a first read of a
    /// result found needs.
    async fn resolve(&self, action: re::Digest, with_blobs: bool) -> Resolved {
        let Some(upstream) = self.upstream().await else {
            return Err(Failure::Down(self.down_reason().unwrap_or_default()));
        };
        let result = self.guarded(|| upstream.action_result(&action)).await?;
        if with_blobs && let Some(parts) = result.as_ref().and_then(action::parts_of) {
            self.hold(parts.first_reads()).await?;
        }
        Ok(result)
    }

    /// Fetches `wanted` in one download (split into batches by size) and
    /// keeps the blobs for their edges, while the held bytes stay under
    /// their limit; a bad answer is left for the edge's own read to report.
    async fn hold(&self, mut wanted: Vec<re::Digest>) -> Result<(), Failure> {
        if let Ok(held) = self.held.lock() {
            wanted.retain(|d| !held.blobs.contains_key(&d.hash));
        }
        let size: usize = wanted.iter().map(|d| d.size_bytes.max(0) as usize).sum();
        let room = self.held.lock().is_ok_and(|h| h.bytes + size <= HELD_BYTES);
        if wanted.is_empty() || !room {
            return Ok(());
        }
        let Some(upstream) = self.upstream().await else {
            return Err(Failure::Down(self.down_reason().unwrap_or_default()));
        };
        match self.guarded(|| upstream.download(&wanted)).await {
            Ok(blobs) => {
                if let Ok(mut held) = self.held.lock() {
                    for (digest, bytes) in wanted.into_iter().zip(blobs) {
                        held.put(digest.hash, bytes);
                    }
                }
                Ok(())
            }
            Err(Failure::Invalid(_)) => Ok(()),
            Err(down) => Err(down),
        }
    }

    /// Looks a group of actions up side by side, then fetches the blobs of
    /// every result found in one download.
    async fn prefetch_group(self: Arc<Self>, actions: Vec<re::Digest>) {
        let mut lookups = tokio::task::JoinSet::new();
        for action in actions {
            let service = self.clone();
            lookups.spawn(async move { service.result_of(action, false).await });
        }
        let mut wanted = Vec::new();
        while let Some(joined) = lookups.join_next().await {
            match joined {
                Ok(Ok(Some(result))) => wanted.extend(
                    action::parts_of(&result)
                        .map(|p| p.first_reads())
                        .unwrap_or_default(),
                ),
                Ok(Err(Failure::Down(_))) => return,
                _ => {}
            }
        }
        let _ = self.hold(wanted).await;
    }

    /// `digests`: those fetched ahead, and the rest in one download.
    async fn read(&self, digests: &[re::Digest]) -> Result<Vec<Vec<u8>>, Failure> {
        let mut found: Vec<Option<Vec<u8>>> = match self.held.lock() {
            Ok(mut held) => digests.iter().map(|d| held.take(&d.hash)).collect(),
            Err(_) => vec![None; digests.len()],
        };
        let missing: Vec<re::Digest> = digests
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(d, _)| d.clone())
            .collect();
        if !missing.is_empty() {
            let Some(upstream) = self.upstream().await else {
                return Err(Failure::Down(self.down_reason().unwrap_or_default()));
            };
            let mut fetched = self
                .guarded(|| upstream.download(&missing))
                .await?
                .into_iter();
            for slot in found.iter_mut().filter(|f| f.is_none()) {
                *slot = fetched.next();
            }
        }
        Ok(found.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// Uploads a result in the background.
    fn store(self: &Arc<Self>, request: Request) {
        if self.down_reason().is_some() || self.uploads_off.load(Ordering::SeqCst) {
            return;
        }
        let (Some(action), Some(result)) = (request.action, request.result) else {
            return;
        };
        self.busy.fetch_add(1, Ordering::SeqCst);
        let service = self.clone();
        tokio::spawn(async move {
            if let Ok(_permit) = service.uploads.acquire().await {
                service.upload(&action, result, request.blobs).await;
            }
            service.busy.fetch_sub(1, Ordering::SeqCst);
        });
    }

    async fn upload(
        &self,
        action: &re::Digest,
        result: re::ActionResult,
        blobs: Vec<re::batch_update_blobs_request::Request>,
    ) {
        if self.uploads_off.load(Ordering::SeqCst) {
            return;
        }
        let Some(upstream) = self.upstream().await else {
            return;
        };
        let blobs: Vec<(re::Digest, Blob)> = blobs
            .iter()
            .filter_map(|b| Some((b.digest.clone()?, Blob::Bytes(&b.data))))
            .collect();
        let stored = || async {
            upstream.upload(&blobs).await?;
            upstream.update_action_result(action, result.clone()).await
        };
        let mut down = self.down.subscribe();
        let mut pause = BUSY_PAUSE;
        for attempt in 0..=BUSY_RETRIES {
            let outcome = tokio::select! {
                outcome = stored() => outcome,
                _ = down.wait_for(Option::is_some) => return,
            };
            match outcome {
                Ok(()) => return,
                Err(error) if error.busy() && attempt < BUSY_RETRIES => {
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
                Err(error) if error.refused_store() || error.busy() => {
                    return self.stop_uploads(&error);
                }
                Err(RemoteError::Invalid(message)) => {
                    return self.note(&format!("upload failed: {message}"));
                }
                Err(error) => {
                    self.give_up(&error);
                    return;
                }
            }
        }
    }

    /// Stops storing for the rest of the build; the first call warns.
    fn stop_uploads(&self, error: &RemoteError) {
        if !self.uploads_off.swap(true, Ordering::SeqCst) {
            self.warn(format!(
                "remote {}: upload failed: {}; not storing results for the rest of this build",
                self.url(),
                cli::with_causes(error, ": ")
            ));
        }
    }

    /// Answers one edge's requests until it hangs up.
    async fn connection(self: Arc<Self>, mut stream: UnixStream) {
        while let Ok(request) = read_request(&mut stream).await {
            self.touch();
            let started = Instant::now();
            let mut reply = self.answer(request).await;
            reply.waited = reply.status == protocol::STATUS_DOWN && started.elapsed() > WAITED;
            reply.warnings = self.take_warnings();
            let mut bytes = Vec::new();
            if protocol::write_message(&mut bytes, &reply).is_err()
                || stream.write_all(&bytes).await.is_err()
            {
                break;
            }
        }
        self.touch();
        self.busy.fetch_sub(1, Ordering::SeqCst);
    }

    fn touch(&self) {
        if let Ok(mut last) = self.last_request.lock() {
            *last = Instant::now();
        }
    }

    async fn answer(self: &Arc<Self>, request: Request) -> Reply {
        match request.op {
            protocol::OP_HELLO => self.hello(&request),
            protocol::OP_RESULT => match request.action {
                Some(action) => match self.result_of(action, true).await {
                    Ok(Some(result)) => Reply {
                        result: Some(result),
                        ..Reply::default()
                    },
                    Ok(None) => status(protocol::STATUS_NOT_FOUND),
                    Err(failure) => failed(failure),
                },
                None => failed(Failure::Invalid("a lookup without an action".into())),
            },
            protocol::OP_READ => match self.read(&request.digests).await {
                Ok(blobs) => Reply {
                    blobs,
                    ..Reply::default()
                },
                Err(failure) => failed(failure),
            },
            protocol::OP_STORE => {
                self.store(request);
                status(protocol::STATUS_OK)
            }
            other => failed(Failure::Invalid(format!("unknown operation {other}"))),
        }
    }

    /// Accepts an edge of this tool and these settings; any other means this
    /// service is stale, and it leaves.
    fn hello(&self, request: &Request) -> Reply {
        if request.tool == self.tool && request.settings == self.fingerprint {
            return status(protocol::STATUS_OK);
        }
        if !self.retiring.swap(true, Ordering::SeqCst) {
            self.note("an edge of another tool or other settings said hello; leaving");
        }
        status(protocol::STATUS_MISMATCH)
    }

    /// Looks up, ahead of the edges, every result the build's edges list
    /// lets the service compute the action of: in groups, a few groups at
    /// a time.
    async fn prefetch(self: Arc<Self>, args: CacheArgs, build: PathBuf, keyer: prefetch::Keyer) {
        if self.upstream().await.is_none() {
            return;
        }
        let (send, mut receive) = tokio::sync::mpsc::channel::<re::Digest>(256);
        let keyed = tokio::task::spawn_blocking(move || {
            prefetch::actions(&args, &build, keyer, |digest| {
                send.blocking_send(digest).is_ok()
            })
        });
        let groups = Arc::new(Semaphore::new(prefetch::GROUPS));
        let mut group = Vec::with_capacity(prefetch::GROUP);
        loop {
            let next = receive.recv().await;
            let done = next.is_none();
            group.extend(next);
            if group.len() < prefetch::GROUP && !done {
                continue;
            }
            if self.down_reason().is_some() {
                break;
            }
            let Ok(permit) = groups.clone().acquire_owned().await else {
                break;
            };
            let service = self.clone();
            let actions = std::mem::take(&mut group);
            tokio::spawn(async move {
                service.prefetch_group(actions).await;
                drop(permit);
            });
            if done {
                break;
            }
        }
        let _ = keyed.await;
    }
}

fn status(status: u32) -> Reply {
    Reply {
        status,
        ..Reply::default()
    }
}

fn failed(failure: Failure) -> Reply {
    let (code, message) = match failure {
        Failure::Down(message) => (protocol::STATUS_DOWN, message),
        Failure::Invalid(message) => (protocol::STATUS_FAILED, message),
    };
    Reply {
        status: code,
        message,
        ..Reply::default()
    }
}

async fn read_request(stream: &mut UnixStream) -> std::io::Result<Request> {
    let mut header = [0u8; 4];
    stream.read_exact(&mut header).await?;
    let mut bytes = vec![0u8; protocol::frame_length(header)?];
    stream.read_exact(&mut bytes).await?;
    protocol::decode(&bytes)
}
