//! Live refresh: `assetc view` follows the change feed of an `assetc watch`
//! running on the same project, and the page asks it what changed.
//!
//! `assetc watch` records its feed's address in the build folder
//! ([`FEED_ADDRESS_FILE`]). A thread of the view server reads that file,
//! connects with [`WatchClient`] and keeps the last builds it was told
//! about, each numbered by a version of the server's own (the watcher's
//! generation starts again at 1 when it restarts; the version never goes
//! back). When no watcher runs, or it stops, the thread tries again every
//! half second, so a watcher started later is picked up.
//!
//! The page long-polls `/api/live?since=V`: the answer comes at once when a
//! build newer than `V` is known, else when one arrives or after at most
//! [`MAX_WAIT`]. The server answers these requests on threads of their own,
//! so a waiting page never holds up the other routes.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};

use crate::hot_reload::{Build, FEED_ADDRESS_FILE, WatchClient};

/// How long a long-poll waits at most.
pub const MAX_WAIT: Duration = Duration::from_secs(25);

/// How often the follower looks for a watcher when it has none.
const RETRY: Duration = Duration::from_millis(500);

/// How many builds are kept for pages that fall behind.
const KEPT_BUILDS: usize = 64;

/// What the server knows of the watcher's feed.
#[derive(Default)]
struct State {
    /// The feed's address while connected.
    feed: Option<String>,
    /// The version of the newest build received (0: none yet).
    version: u64,
    /// Changes (connecting, disconnecting, builds) so far: what waiters wait on.
    events: u64,
    /// The last builds, oldest first, each with its version.
    builds: VecDeque<(u64, Build)>,
}

/// The feed as the view server follows it, shared with the page's requests.
#[derive(Default)]
pub struct Live {
    /// Where the watcher records its address; `None`: nothing to follow.
    address_file: Option<PathBuf>,
    state: Mutex<State>,
    wake: Condvar,
}

impl Live {
    /// Nothing to follow (a pack served alone, or a folder that is not the
    /// project's output): the page is told so and never waits.
    pub fn idle() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Follows the feed whose address `assetc watch` writes in the build
    /// folder `build`, on a thread of its own.
    pub fn follow(build: PathBuf) -> Arc<Self> {
        let live = Arc::new(Self {
            address_file: Some(build.join(FEED_ADDRESS_FILE)),
            ..Self::default()
        });
        let follower = Arc::clone(&live);
        std::thread::spawn(move || follower.run());
        live
    }

    /// The follower's loop: connect when a watcher is there, read its builds.
    fn run(&self) {
        let Some(file) = &self.address_file else {
            return;
        };
        loop {
            let address = std::fs::read_to_string(file).unwrap_or_default();
            let address = address.trim();
            if let Some(client) = (!address.is_empty())
                .then(|| WatchClient::connect(address).ok())
                .flatten()
            {
                self.read_feed(client, address);
            }
            std::thread::sleep(RETRY);
        }
    }

    /// Records every build of `client` until its connection ends.
    fn read_feed(&self, mut client: WatchClient, address: &str) {
        self.change(|state| state.feed = Some(address.to_owned()));
        while let Ok(build) = client.next_build() {
            self.change(|state| {
                state.version += 1;
                let version = state.version;
                state.builds.push_back((version, build));
                if state.builds.len() > KEPT_BUILDS {
                    state.builds.pop_front();
                }
            });
        }
        self.change(|state| state.feed = None);
    }

    /// Applies `edit` to the state and wakes every waiting request.
    fn change(&self, edit: impl FnOnce(&mut State)) {
        let mut state = self.lock();
        edit(&mut state);
        state.events += 1;
        drop(state);
        self.wake.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the state half made:
        // every edit is a few assignments.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The answer to `/api/live`: with `since`, waits up to `wait` for a
    /// build newer than that version (or a change of connection), then
    /// lists the builds newer than it; without, answers at once.
    pub fn answer(&self, since: Option<u64>, wait: Duration) -> Value {
        let mut state = self.lock();
        if let Some(since) = since
            && self.address_file.is_some()
        {
            let events = state.events;
            state = self
                .wake
                .wait_timeout_while(state, wait.min(MAX_WAIT), |s| {
                    s.version <= since && s.events == events
                })
                .map(|(state, _)| state)
                .unwrap_or_else(|poisoned| poisoned.into_inner().0);
        }
        let since = since.unwrap_or(state.version);
        let builds: Vec<Value> = state
            .builds
            .iter()
            .filter(|(version, _)| *version > since)
            .map(|(version, build)| build_json(*version, build))
            .collect();
        json!({
            "following": self.address_file.is_some(),
            "connected": state.feed.is_some(),
            "feed": state.feed,
            "version": state.version,
            "builds": builds,
        })
    }
}

/// One build for the page: its version, the watcher's generation, whether
/// it succeeded, and the runtime paths it changed or removed.
fn build_json(version: u64, build: &Build) -> Value {
    let paths = |files: &[crate::hot_reload::ChangedFile]| -> Vec<String> {
        files.iter().map(|f| f.path.clone()).collect()
    };
    json!({
        "version": version,
        "generation": build.generation,
        "ok": build.ok,
        "changed": paths(&build.changed),
        "removed": paths(&build.removed),
        "packs": build.packs,
        "errors": build.errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::net::TcpListener;

    #[test]
    fn builds_of_a_watcher_started_later_reach_a_waiting_page() {
        let build = tempfile::tempdir().unwrap();
        let live = Live::follow(build.path().to_owned());
        let first = live.answer(None, Duration::ZERO);
        assert_eq!(first["connected"], false);
        assert_eq!(first["version"], 0);

        // A feed of one build, as `assetc watch` speaks it.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        std::fs::write(build.path().join(FEED_ADDRESS_FILE), &address).unwrap();
        let (mut socket, _) = listener.accept().unwrap();
        socket
            .write_all(
                b"hello assetc-watch 1 4\nbuild 5 ok\nchanged 0x00000000000000aa textures/a b.ktx2\n\
                  removed - old.hmesh\nend\n",
            )
            .unwrap();
        let mut answer = live.answer(Some(0), Duration::from_secs(10));
        if answer["version"] == 0 {
            // Woken by the connection itself: ask again for the build.
            answer = live.answer(Some(0), Duration::from_secs(10));
        }
        assert_eq!(answer["connected"], true);
        assert_eq!(answer["feed"], address.as_str());
        assert_eq!(answer["version"], 1);
        let builds = answer["builds"].as_array().unwrap();
        assert_eq!(builds.len(), 1);
        assert_eq!(builds[0]["generation"], 5);
        assert_eq!(builds[0]["changed"], json!(["textures/a b.ktx2"]));
        assert_eq!(builds[0]["removed"], json!(["old.hmesh"]));
        // Nothing newer: an answer after the wait, with no builds.
        let later = live.answer(Some(1), Duration::from_millis(50));
        assert_eq!(later["builds"], json!([]));
        drop(socket);
    }

    #[test]
    fn an_idle_feed_answers_at_once() {
        let live = Live::idle();
        let answer = live.answer(Some(0), MAX_WAIT);
        assert_eq!(answer["following"], false);
        assert_eq!(answer["connected"], false);
    }
}
