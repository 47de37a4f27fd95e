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

use std::fs;
use std::io::Write as _;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

use super::protocol::{self, Reply, Request};
use super::state::{Failure, Service};
use super::{BUILD_PID_ENV, lock_file, prefetch, socket};
use crate::cache::CacheArgs;
use crate::cache::key::ToolId;

/// How long the service stays with nothing to do when it cannot tell
/// whether its build is still running.
const IDLE: Duration = Duration::from_secs(60);

/// How often the service checks whether it should leave.
const TICK: Duration = Duration::from_millis(200);

/// A request that took longer than this before the remote was given up
/// counts as having waited on it.
const WAITED: Duration = Duration::from_secs(1);

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
    service.note(&format!(
        "stopped ({}) after {:.2} s of CPU",
        served.unwrap_or_else(|e| e),
        cpu_seconds()
    ));
    // Uploads still running when the runtime goes are abandoned: `serve`
    // only returns once none are (or the remote is down).
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(lock);
    ExitCode::SUCCESS
}

/// The processor time this process used, user and system.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
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
