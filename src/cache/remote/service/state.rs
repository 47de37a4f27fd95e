//! The service's state and its one way to the server: the channel, made on
//! first use, and every call guarded by the build-wide decision that the
//! remote is down (with retries while the server says it is busy).

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use tokio::sync::{OnceCell, Semaphore, watch};

use super::{fingerprint, log_file};
use crate::cache::CacheArgs;
use crate::cache::remote::client::{RemoteError, Upstream};
use crate::cli;

/// Blob bytes fetched ahead and not read yet, at most; past it lookups
/// still run ahead but the blobs wait for their edge.
pub(super) const HELD_BYTES: usize = 256 << 20;

/// Uploads running at once.
pub(super) const UPLOADS: usize = 4;

/// How often a call the server turned away as busy is asked again, and the
/// first pause before that (doubled each time).
const BUSY_RETRIES: u32 = 4;
const BUSY_PAUSE: Duration = Duration::from_millis(50);

/// Why a request to the server failed.
#[derive(Debug, Clone)]
pub(super) enum Failure {
    /// The remote is not used for the rest of the build.
    Down(String),
    /// This answer was bad; the remote stays in use.
    Invalid(String),
}

/// A lookup's outcome, shared by everyone who asked for the same action.
pub(super) type Resolved = Result<Option<re::ActionResult>, Failure>;

/// The service's state.
pub(super) struct Service {
    pub(super) settings: crate::config::RemoteSettings,
    pub(super) tool: String,
    pub(super) fingerprint: String,
    pub(super) upstream: OnceCell<Option<Upstream>>,
    /// `Some(reason)` once the remote is given up.
    pub(super) down: watch::Sender<Option<String>>,
    pub(super) uploads_off: AtomicBool,
    pub(super) warnings: Mutex<Vec<String>>,
    pub(super) results: Mutex<HashMap<String, Arc<OnceCell<Resolved>>>>,
    pub(super) held: Mutex<HeldBlobs>,
    /// Open connections and running uploads.
    pub(super) busy: AtomicUsize,
    pub(super) last_request: Mutex<Instant>,
    pub(super) uploads: Semaphore,
    pub(super) retiring: AtomicBool,
    pub(super) log: Mutex<Option<fs::File>>,
}

/// Blobs fetched ahead of their edge.
#[derive(Default)]
pub(super) struct HeldBlobs {
    pub(super) blobs: HashMap<String, Vec<u8>>,
    pub(super) bytes: usize,
}

impl HeldBlobs {
    pub(super) fn put(&mut self, hash: String, bytes: Vec<u8>) {
        let size = bytes.len();
        if self.blobs.insert(hash, bytes).is_none() {
            self.bytes += size;
        }
    }

    pub(super) fn take(&mut self, hash: &str) -> Option<Vec<u8>> {
        let bytes = self.blobs.remove(hash)?;
        self.bytes -= bytes.len();
        Some(bytes)
    }
}

impl Service {
    pub(super) fn new(args: &CacheArgs, tool: String, build: &Path) -> Self {
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

    pub(super) fn url(&self) -> &str {
        self.settings.url.as_deref().unwrap_or_default()
    }

    /// Appends a line to the service log.
    pub(super) fn note(&self, line: &str) {
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
    pub(super) fn warn(&self, warning: String) {
        self.note(&format!("warning: {warning}"));
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(warning);
        }
    }

    pub(super) fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// The channel to the server, made on first use; a connection that
    /// fails gives the remote up for the build.
    pub(super) async fn upstream(&self) -> Result<&Upstream, Failure> {
        let made = self
            .upstream
            .get_or_init(|| async {
                match Upstream::connect(&self.settings).await {
                    Ok(upstream) => Some(upstream),
                    Err(error) => {
                        self.give_up(&error);
                        None
                    }
                }
            })
            .await;
        made.as_ref()
            .ok_or_else(|| Failure::Down(self.down_reason().unwrap_or_default()))
    }

    /// Stops using the remote for the build; the first call warns.
    pub(super) fn give_up(&self, error: &RemoteError) -> Failure {
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

    pub(super) fn down_reason(&self) -> Option<String> {
        self.down.borrow().clone()
    }

    /// Runs a call to the server unless the remote is down, and gives up
    /// on it as soon as the remote goes down for any request (see
    /// [`Service::retried`]); a server still busy after the retries fails
    /// this request on its own.
    pub(super) async fn guarded<T, F>(&self, call: impl Fn() -> F) -> Result<T, Failure>
    where
        F: std::future::Future<Output = Result<T, RemoteError>>,
    {
        match self.retried(call).await {
            Ok(value) => Ok(value),
            Err(None) => Err(Failure::Down(self.down_reason().unwrap_or_default())),
            Err(Some(error)) if error.busy() => {
                Err(Failure::Invalid(cli::with_causes(&error, ": ")))
            }
            Err(Some(RemoteError::Invalid(message))) => Err(Failure::Invalid(message)),
            Err(Some(other)) => Err(self.give_up(&other)),
        }
    }

    /// Runs a call to the server unless the remote is down, and drops it as
    /// soon as the remote goes down for any request: then `Err(None)`. A
    /// server that says it is busy (too many calls at once) is asked again
    /// after a pause, a few times; any other error, or the last busy one,
    /// is returned as it is.
    pub(super) async fn retried<T, F>(&self, call: impl Fn() -> F) -> Result<T, Option<RemoteError>>
    where
        F: std::future::Future<Output = Result<T, RemoteError>>,
    {
        let mut down = self.down.subscribe();
        let mut pause = BUSY_PAUSE;
        for attempt in 0.. {
            if down.borrow().is_some() {
                return Err(None);
            }
            let outcome = tokio::select! {
                result = call() => result,
                _ = down.wait_for(Option::is_some) => return Err(None),
            };
            match outcome {
                Err(error) if error.busy() && attempt < BUSY_RETRIES => {
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
                done => return done.map_err(Some),
            }
        }
        unreachable!("the retry loop returns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_blobs_count_each_blob_once() {
        let mut held = HeldBlobs::default();
        held.put("a".into(), vec![0; 10]);
        held.put("a".into(), vec![0; 10]);
        held.put("b".into(), vec![0; 5]);
        assert_eq!(held.bytes, 15);
        assert_eq!(held.take("a").map(|b| b.len()), Some(10));
        assert_eq!(held.take("a"), None);
        assert_eq!(held.bytes, 5);
    }
}
