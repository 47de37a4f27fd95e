//! The build's remote service: one process per build folder that talks to
//! the REAPI server for every edge of the build.
//!
//! An edge process pays alone for what it asks of a remote: a connection
//! (and its TLS handshake), then each call one round trip after the other.
//! The service pays the connection once and multiplexes the calls of all
//! edges on one HTTP/2 channel. It looks results up before the edges ask
//! ([`prefetch`]), stores results in the background so an edge never waits
//! on an upload, and decides once for the whole build that a remote which
//! fails is not used any more.
//!
//! * The first edge that finds no service starts one ([`client`]); the
//!   service takes a lock in the build folder, so one runs per folder.
//! * Edges talk to it over the Unix socket `remote.sock` in the build
//!   folder, private to the user ([`protocol`]).
//! * It leaves when the Ninja that started it has ended, or after a quiet
//!   spell ([`server`]); its state and guarded calls are in `state.rs`, the
//!   shared lookups in `lookups.rs`, the background stores in `uploads.rs`.
//! * Everything about it is optional: an edge that cannot reach it, or that
//!   finds it stale, talks to the server itself, as before.

pub mod client;
mod lookups;
pub mod prefetch;
pub mod protocol;
pub mod server;
mod state;
mod uploads;

use std::path::{Path, PathBuf};

use crate::config::RemoteSettings;

/// The environment variable that switches the service off for the edges
/// (`0`); the service itself runs with it set to `serve`.
pub const ENV: &str = "ASSETC_REMOTE_SERVICE";

/// The value of [`ENV`] under which `assetc-encode` runs the service.
pub const SERVE: &str = "serve";

/// The environment variable that carries, to the service, the process id of
/// the build (the Ninja) whose end it waits for.
const BUILD_PID_ENV: &str = "ASSETC_REMOTE_SERVICE_BUILD";

/// Whether edges use the service.
pub fn enabled() -> bool {
    std::env::var_os(ENV).is_none_or(|v| v != "0")
}

/// Whether this process is to run the service.
pub fn is_service() -> bool {
    std::env::var_os(ENV).is_some_and(|v| v == SERVE)
}

/// The socket in `build`.
pub fn socket(build: &Path) -> PathBuf {
    build.join("remote.sock")
}

/// The lock the running service holds (it also holds its process id).
pub fn lock_file(build: &Path) -> PathBuf {
    build.join("remote.lock")
}

/// The service's log: when it started and stopped, and every warning.
pub fn log_file(build: &Path) -> PathBuf {
    build.join("remote-service.log")
}

/// The list of the build's cached edges that configure writes for the
/// service's prefetch: one JSON array of `assetc-encode` words per line.
pub fn edges_file(build: &Path) -> PathBuf {
    build.join("remote-edges")
}

/// Waits, at most `limit`, until the service of the build folder `build`
/// (if one runs) has left, which it does once its uploads are done: a
/// build that ends its machine right after Ninja would lose them. Says
/// whether none runs any more.
pub fn wait_until_gone(build: &Path, limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while service_runs(build) {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

/// Whether the process whose id the folder's lock holds still runs.
fn service_runs(build: &Path) -> bool {
    let pid = std::fs::read_to_string(lock_file(build)).ok();
    let fields = pid.and_then(|p| crate::fsutil::proc_stat_fields(p.trim().parse().ok()?));
    // A zombie has ended.
    fields.is_some_and(|f| !matches!(f.first().map(String::as_str), None | Some("Z" | "X")))
}

/// A fingerprint of the settings an edge talks to the remote with: the
/// address, instance, TLS files and the headers in the environment (hashed,
/// never written anywhere). An edge uses a service only with its own.
pub fn fingerprint(settings: &RemoteSettings) -> String {
    let headers = std::env::var(super::client::HEADERS_ENV).unwrap_or_default();
    let text = format!(
        "{:?}\0{:?}\0{:?}\0{:?}\0{:?}\0{}",
        settings.url, settings.instance, settings.ca, settings.cert, settings.key, headers
    );
    blake3::hash(text.as_bytes()).to_hex().to_string()
}
