//! One Ninja run under a jobserver, with the progress line, Ninja's other
//! output passed through, and what the run did read back from its log.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::console::Console;
use super::graph::GraphHeader;
use super::ninja::{speaks_jobserver, version};
use super::ninja_log::{Entry, History, Snapshot, parse};
use super::progress::{Estimator, Status};
use super::running::Watcher;
use super::tokens::Tokens;
use crate::cache::remote::service;

/// `NINJA_STATUS` for the runs: the counts, in a form no command prints.
const STATUS_FORMAT: &str = "[assetc:%f/%t] ";
/// How often the progress line is refreshed.
const TICK: Duration = Duration::from_millis(250);
/// How long a build waits for the remote service's last uploads.
const UPLOADS_WAIT: Duration = Duration::from_secs(30);

/// What to build, and how.
#[derive(Debug, Clone)]
pub struct Request {
    /// The program, as messages name it (`assetc build`).
    pub name: String,
    /// The project root, where `build.ninja` is.
    pub root: PathBuf,
    /// The Ninja program.
    pub ninja: String,
    /// How many jobs (the jobserver's tokens); default: the cores.
    pub jobs: Option<usize>,
    /// The targets to build; none: Ninja's defaults.
    pub targets: Vec<String>,
    /// More variables for Ninja and its commands.
    pub env: Vec<(String, String)>,
}

/// What a run did.
#[derive(Debug)]
pub struct Outcome {
    /// Ninja's exit status.
    pub status: ExitStatus,
    /// The first output of each edge that failed, from Ninja's `FAILED:` lines.
    pub failed: Vec<String>,
    /// The lines that reported an error.
    pub errors: Vec<String>,
    /// The log entries of the edges that ran.
    pub ran: Vec<Entry>,
    /// Tokens of the build's own jobserver that did not come back; `None`
    /// under an inherited one.
    pub missing_tokens: Option<usize>,
}

/// Why a build could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Ninja does not start.
    #[error("{ninja}: cannot run it (set NINJA to the Ninja program)")]
    Spawn {
        /// The program.
        ninja: String,
        /// Why.
        source: std::io::Error,
    },
    /// The jobserver cannot be created.
    #[error("cannot create a jobserver: {0}")]
    Jobserver(std::io::Error),
}

/// Counts and output shared by the threads of one run.
struct Shared {
    console: Console,
    done: u64,
    total: u64,
    failed: Vec<String>,
    errors: Vec<String>,
}

/// Runs Ninja for `request` under a jobserver. A signal number stored in
/// `interrupt` (by the caller's handler) is passed on to Ninja once.
pub fn run(
    request: &Request,
    interrupt: Option<&'static AtomicI32>,
) -> Result<Outcome, BuildError> {
    let header = GraphHeader::read(&request.root).unwrap_or_default();
    let log = Arc::new(Snapshot::take(&header.log_path(&request.root)));
    let jobs = request.jobs.unwrap_or_else(cores);
    let tokens = Tokens::prepare(jobs, speaks_jobserver(version(&request.ninja)))
        .map_err(BuildError::Jobserver)?;
    let mut child =
        ninja_command(request, &tokens)
            .spawn()
            .map_err(|source| BuildError::Spawn {
                ninja: request.ninja.clone(),
                source,
            })?;
    let shared = Arc::new(Mutex::new(Shared {
        console: Console::detect(&request.name),
        done: 0,
        total: 0,
        failed: Vec::new(),
        errors: Vec::new(),
    }));
    let stderr = child.stderr.take().map(|err| {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || read_lines(err, &shared, true))
    });
    let (stop, ticker) = start_ticker(request, jobs, &child, &log, &shared, interrupt);
    if let Some(out) = child.stdout.take() {
        read_lines(out, &shared, false);
    }
    let status = wait(&mut child);
    // The remote service uploads the last results after Ninja has ended.
    if let Some(builddir) = &header.builddir {
        service::wait_until_gone(&request.root.join(builddir), UPLOADS_WAIT);
    }
    let _ = stop.send(());
    let _ = ticker.join();
    if let Some(thread) = stderr {
        let _ = thread.join();
    }
    let mut shared = lock(&shared);
    shared.console.clear();
    Ok(Outcome {
        status,
        failed: std::mem::take(&mut shared.failed),
        errors: std::mem::take(&mut shared.errors),
        ran: log.appended(),
        missing_tokens: tokens.missing(),
    })
}

/// The number of cores, the default job count.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The Ninja command of `request`, under `tokens`.
fn ninja_command(request: &Request, tokens: &Tokens) -> Command {
    let mut command = Command::new(&request.ninja);
    command
        .current_dir(&request.root)
        .args(&tokens.ninja_args)
        .args(&request.targets)
        .env("NINJA_STATUS", STATUS_FORMAT)
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in &tokens.env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// Waits for Ninja, retrying when a signal interrupts the wait.
fn wait(child: &mut Child) -> ExitStatus {
    loop {
        match child.wait() {
            Ok(status) => return status,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // Only a child that is not ours fails here; treat it as gone.
            Err(_) => return std::os::unix::process::ExitStatusExt::from_raw(1 << 8),
        }
    }
}

/// Locks the shared state, even after a panic in another thread.
fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reads Ninja's output line by line: status lines update the counts,
/// every other line is passed through (and kept when it reports an error).
fn read_lines(stream: impl Read, shared: &Mutex<Shared>, is_stderr: bool) {
    let mut reader = BufReader::new(stream);
    let mut bytes = Vec::new();
    while reader.read_until(b'\n', &mut bytes).is_ok_and(|n| n > 0) {
        let text = String::from_utf8_lossy(&bytes);
        let line = text.trim_end_matches(['\n', '\r']);
        let mut shared = lock(shared);
        if let Some((done, total, description)) = parse_status(line) {
            shared.done = done;
            shared.total = total;
            shared.console.finished(done, total, description);
        } else {
            if let Some(output) = failed_output(line) {
                shared.failed.push(output);
            }
            if reports_error(line) {
                shared.errors.push(line.to_owned());
            }
            shared.console.pass(line, is_stderr);
        }
        bytes.clear();
    }
}

/// The counts and description of a status line, as [`STATUS_FORMAT`] makes it.
fn parse_status(line: &str) -> Option<(u64, u64, &str)> {
    let rest = line.strip_prefix("[assetc:")?;
    let (counts, description) = rest.split_once("] ")?;
    let (done, total) = counts.split_once('/')?;
    Some((done.parse().ok()?, total.parse().ok()?, description))
}

/// The first output a `FAILED:` line names (Ninja 1.12 and later put
/// `[code=N]` before the outputs).
fn failed_output(line: &str) -> Option<String> {
    let rest = line.strip_prefix("FAILED: ")?;
    let rest = match rest.strip_prefix("[code=") {
        Some(coded) => coded.split_once("] ").map_or("", |(_, outputs)| outputs),
        None => rest,
    };
    rest.split_whitespace().next().map(str::to_owned)
}

/// Whether a line of output reports an error.
fn reports_error(line: &str) -> bool {
    line.contains("error:")
        || line.trim_start().starts_with("caused by:")
        || line.starts_with("FAILED: ")
}

/// Starts the thread that refreshes the progress line until told to stop,
/// passing an interrupt on to Ninja.
fn start_ticker(
    request: &Request,
    jobs: usize,
    child: &Child,
    log: &Arc<Snapshot>,
    shared: &Arc<Mutex<Shared>>,
    interrupt: Option<&'static AtomicI32>,
) -> (mpsc::Sender<()>, JoinHandle<()>) {
    let (stop, stopped) = mpsc::channel::<()>();
    let mut ticker = Ticker {
        watcher: Watcher::new(child.id(), &request.root),
        earlier: Arc::clone(log),
        offset: log.len(),
        estimator: None,
        jobs,
        ninja: child.id(),
        interrupt,
        forwarded: false,
    };
    let shared = Arc::clone(shared);
    let thread = std::thread::spawn(move || {
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
            ticker.tick(&shared);
        }
    });
    (stop, thread)
}

/// The progress thread's state.
struct Ticker {
    watcher: Watcher,
    /// The log before the build, parsed on the first tick that finds the
    /// build busy (a no-op build never parses it).
    earlier: Arc<Snapshot>,
    /// How far the log has been read.
    offset: u64,
    estimator: Option<Estimator>,
    jobs: usize,
    ninja: u32,
    interrupt: Option<&'static AtomicI32>,
    forwarded: bool,
}

impl Ticker {
    /// One refresh.
    fn tick(&mut self, shared: &Mutex<Shared>) {
        self.forward_interrupt();
        let running = self.watcher.scan();
        let (done, total) = {
            let shared = lock(shared);
            (shared.done, shared.total)
        };
        if running.is_empty() && total == 0 {
            return;
        }
        let fresh = self.read_new_entries();
        let (earlier, jobs) = (&self.earlier, self.jobs);
        let estimator = self
            .estimator
            .get_or_insert_with(|| Estimator::new(History::from_entries(&earlier.entries()), jobs));
        estimator.finished(&fresh);
        let queued = total.saturating_sub(done + running.len() as u64);
        let status = Status {
            done,
            total,
            running: &running,
            eta: estimator.time_left(&running, queued),
        };
        lock(shared).console.progress(&status);
    }

    /// Passes a signal the caller caught on to Ninja, once.
    fn forward_interrupt(&mut self) {
        let Some(flag) = self.interrupt else {
            return;
        };
        let signal = flag.load(Ordering::Relaxed);
        if signal != 0 && !self.forwarded {
            self.forwarded = true;
            // SAFETY: sends a signal to our own child process.
            unsafe { libc::kill(self.ninja as libc::pid_t, signal) };
        }
    }

    /// The whole log lines Ninja appended since the last tick.
    fn read_new_entries(&mut self) -> Vec<Entry> {
        let mut new = Vec::new();
        let read = std::fs::File::open(self.earlier.path()).and_then(|mut file| {
            file.seek(SeekFrom::Start(self.offset))?;
            file.read_to_end(&mut new)
        });
        if read.is_err() {
            return Vec::new();
        }
        let whole = new.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        self.offset += whole as u64;
        parse(&String::from_utf8_lossy(&new[..whole]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_give_the_counts() {
        assert_eq!(
            parse_status("[assetc:3/10] TEXTURE assets/a b.png"),
            Some((3, 10, "TEXTURE assets/a b.png"))
        );
        assert_eq!(parse_status("[3/10] TEXTURE a.png"), None);
        assert_eq!(parse_status("[assetc:x/10] TEXTURE a.png"), None);
    }

    #[test]
    fn failed_lines_name_their_outputs() {
        assert_eq!(
            failed_output("FAILED: [code=3] out/a.ktx2 frag/a.frag "),
            Some("out/a.ktx2".to_owned())
        );
        assert_eq!(
            failed_output("FAILED: out/b.ktx2 "),
            Some("out/b.ktx2".to_owned())
        );
        assert_eq!(failed_output("ninja: build stopped"), None);
        assert!(reports_error("assetc-encode: error: assets/a.png: bad"));
        assert!(reports_error("  caused by: truncated"));
        assert!(!reports_error("[1/2] TEXTURE a.png"));
    }
}
