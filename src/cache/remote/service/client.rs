//! The edge's side of the service: find it (or start it), check that it
//! serves this tool and these settings, and ask.

use std::cell::Cell;
use std::fs;
use std::io;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;

use super::protocol::{self, Reply, Request};
use super::{BUILD_PID_ENV, ENV, SERVE, fingerprint, log_file, socket};
use crate::cache::remote::client::{RemoteError, checked};
use crate::cli;
use crate::config::RemoteSettings;
use crate::fsutil::proc_parent;

/// How long an edge waits for a service it started to listen.
const START_WAIT: Duration = Duration::from_secs(2);

/// How long an edge waits for any one answer. The service's own deadlines
/// towards the server are shorter; this guards against a service that
/// stopped answering at all.
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);

/// A session with the build's service.
pub struct ServiceClient {
    stream: UnixStream,
    waited: Cell<bool>,
}

impl ServiceClient {
    /// Connects to the service of the build folder `build`, starting one if
    /// none answers. `None` when none can be reached, or when the one there
    /// serves another tool (`tool` is this binary's SHA-256) or other
    /// settings: the edge then talks to the server itself.
    pub fn open(build: &Path, settings: &RemoteSettings, tool: &str) -> Option<Self> {
        let path = socket(build);
        let stream = match UnixStream::connect(&path) {
            Ok(stream) => stream,
            Err(_) => {
                start(build).ok()?;
                wait_for(&path)?
            }
        };
        stream.set_read_timeout(Some(REPLY_TIMEOUT)).ok()?;
        let client = Self {
            stream,
            waited: Cell::new(false),
        };
        let hello = Request {
            op: protocol::OP_HELLO,
            tool: tool.to_owned(),
            settings: fingerprint(settings),
            ..Request::default()
        };
        let reply = client.call(&hello).ok()?;
        (reply.status == protocol::STATUS_OK).then_some(client)
    }

    /// Whether a request of this edge waited on the server for more than a
    /// second before the service gave up on it.
    pub fn waited(&self) -> bool {
        self.waited.get()
    }

    fn call(&self, request: &Request) -> Result<Reply, RemoteError> {
        let mut stream = &self.stream;
        protocol::write_message(&mut stream, request).map_err(RemoteError::Service)?;
        let reply: Reply = protocol::read_message(&mut stream).map_err(RemoteError::Service)?;
        for warning in &reply.warnings {
            cli::warn("assetc-encode", warning);
        }
        if reply.waited {
            self.waited.set(true);
        }
        match reply.status {
            protocol::STATUS_OK | protocol::STATUS_NOT_FOUND | protocol::STATUS_MISMATCH => {
                Ok(reply)
            }
            protocol::STATUS_DOWN => Err(RemoteError::Unavailable(reply.message)),
            protocol::STATUS_FAILED => Err(RemoteError::Invalid(reply.message)),
            other => Err(RemoteError::Service(io::Error::other(format!(
                "unknown status {other}"
            )))),
        }
    }

    /// The cached result of `action`, if the server has one.
    pub fn action_result(
        &self,
        action: &re::Digest,
    ) -> Result<Option<re::ActionResult>, RemoteError> {
        let reply = self.call(&Request {
            op: protocol::OP_RESULT,
            action: Some(action.clone()),
            ..Request::default()
        })?;
        if reply.status == protocol::STATUS_NOT_FOUND {
            return Ok(None);
        }
        reply
            .result
            .map(Some)
            .ok_or_else(|| RemoteError::Invalid("the service sent no result".into()))
    }

    /// `digests`, each checked against its SHA-256 here too.
    pub fn download(&self, digests: &[re::Digest]) -> Result<Vec<Vec<u8>>, RemoteError> {
        let reply = self.call(&Request {
            op: protocol::OP_READ,
            digests: digests.to_vec(),
            ..Request::default()
        })?;
        if reply.blobs.len() != digests.len() {
            return Err(RemoteError::Invalid(
                "the service sent another number of blobs than asked".into(),
            ));
        }
        digests
            .iter()
            .zip(reply.blobs)
            .map(|(digest, bytes)| checked(digest, bytes))
            .collect()
    }

    /// Hands `result` for `action` to the service, with the blobs it needs;
    /// the service uploads them after the edge has gone.
    pub fn store(
        &self,
        action: &re::Digest,
        result: re::ActionResult,
        blobs: Vec<(re::Digest, Vec<u8>)>,
    ) -> Result<(), RemoteError> {
        let blobs = blobs
            .into_iter()
            .map(|(digest, data)| re::batch_update_blobs_request::Request {
                digest: Some(digest),
                data,
                ..Default::default()
            })
            .collect();
        self.call(&Request {
            op: protocol::OP_STORE,
            action: Some(action.clone()),
            result: Some(result),
            blobs,
            ..Request::default()
        })
        .map(drop)
    }
}

/// Starts the service for `build`: this same binary with this same command
/// line (so it has the same remote settings), in its own session, its
/// output in the service log. It inherits no descriptor but the log: Ninja
/// waits for the edge's pipes to close, and a jobserver's are not its own.
fn start(build: &Path) -> io::Result<()> {
    let exe = std::env::current_exe()?;
    fs::create_dir_all(build)?;
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_file(build))?;
    close_inherited_on_exec();
    let mut command = Command::new(exe);
    command
        .args(std::env::args_os().skip(1))
        .env(ENV, SERVE)
        .env(BUILD_PID_ENV, build_process().to_string())
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    // SAFETY: setsid is async-signal-safe and touches no memory.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    command.spawn().map(drop)
}

/// Marks every descriptor this process inherited (above the standard three)
/// close-on-exec, so the service does not hold the build's pipes open.
fn close_inherited_on_exec() {
    let Ok(entries) = fs::read_dir("/proc/self/fd") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if fd > 2 {
            // SAFETY: F_SETFD on a descriptor number only changes its flags;
            // a number that is not open just fails.
            unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFD);
                if flags >= 0 {
                    libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
                }
            }
        }
    }
}

/// The build this edge belongs to: the nearest `ninja` among its ancestors,
/// or its parent when there is none.
fn build_process() -> u32 {
    let parent = std::os::unix::process::parent_id();
    let mut pid = parent;
    for _ in 0..6 {
        if pid <= 1 {
            break;
        }
        let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim().contains("ninja") {
            return pid;
        }
        match proc_parent(pid) {
            Some(next) => pid = next,
            None => break,
        }
    }
    parent
}

/// Connects to `path` once a starting service listens there.
fn wait_for(path: &Path) -> Option<UnixStream> {
    let deadline = Instant::now() + START_WAIT;
    loop {
        if let Ok(stream) = UnixStream::connect(path) {
            return Some(stream);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
