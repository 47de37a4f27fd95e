//! A running `assetc watch` on a test project, with a client of its feed.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use assetc::hot_reload::{Build, WatchClient};

use super::{ASSETC, Project};

/// A running `assetc watch --port 0`, stopped when dropped.
pub struct Watch {
    child: Child,
    /// A client of its feed, connected once the first build finished.
    pub client: WatchClient,
}

impl Watch {
    /// Starts the watcher in the project (with the tests' Ninja) and waits
    /// for its first build, which must succeed.
    pub fn start(p: &Project) -> Self {
        let mut child = Command::new(ASSETC)
            .args(["watch", "--port", "0"])
            .current_dir(p.root())
            .env("NINJA", super::ninja_program())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("assetc watch starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let address = first
            .rsplit(' ')
            .next()
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_owned();
        // Keep draining Ninja's progress so the pipe never fills.
        std::thread::spawn(move || lines.for_each(drop));
        let mut client = WatchClient::connect(address.as_str()).unwrap();
        if client.generation() == 0 {
            let first = client.next_build().unwrap();
            assert!(first.ok, "the first build failed: {:?}", first.errors);
        }
        Self { child, client }
    }

    /// Waits for the build an edit caused.
    pub fn next(&mut self) -> Build {
        self.client.next_build().unwrap()
    }

    /// The feed's address.
    pub fn address(&self) -> std::net::SocketAddr {
        self.client.peer_address().unwrap()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
