//! A real REAPI server for the integration tests: BuildGrid from PyPI,
//! started on loopback through tests/reapi/serve.py (installed by
//! tests/reapi/install, which tools/test runs), and builds that log what
//! every cached edge did.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use assetc::cache::remote::service::wait_until_gone;

use super::shared::at_exit;
use super::{Project, Run, ninja_program};

/// The encode edges of the demo that go through the caches.
pub const DEMO_CACHED_EDGES: usize = 22;

/// A BuildGrid server (and, with execution, PostgreSQL and workers) that
/// lives as long as the value.
pub struct Server {
    child: Mutex<Child>,
    dir: tempfile::TempDir,
    /// The port it listens on.
    pub port: u16,
}

impl Server {
    /// Starts serve.py with `flags` (`--exec`, `--tls`, `--tls-client-auth`).
    pub fn start(flags: &[&str]) -> Self {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let python = repo.join("target/buildgrid/bin/python");
        assert!(
            python.exists(),
            "{} is missing: run tests/reapi/install (tools/test does)",
            python.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new(python);
        command
            .arg(repo.join("tests/reapi/serve.py"))
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .args(flags);
        let mut child = command.spawn().expect("start tests/reapi/serve.py");
        let port_file = dir.path().join("port");
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            if let Ok(text) = fs::read_to_string(&port_file) {
                let port = text.trim().parse().expect("a port number");
                return Self {
                    child: Mutex::new(child),
                    dir,
                    port,
                };
            }
            if let Some(status) = child.try_wait().unwrap() {
                let mut stderr = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
                panic!("serve.py exited with {status}:\n{stderr}");
            }
            assert!(Instant::now() < deadline, "BuildGrid did not start in time");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Its address.
    pub fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// Its address.
    pub fn address(&self) -> std::net::SocketAddr {
        std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, self.port))
    }

    /// Its folder (`tls/` holds the certificates of `--tls`).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The file BuildGrid's disk storage keeps the blob `hash` in.
    pub fn blob_file(&self, hash: &str) -> PathBuf {
        self.dir
            .path()
            .join("cas/cas/objects")
            .join(&hash[..2])
            .join(&hash[2..])
    }
}

impl Server {
    /// Stops serve.py and everything it started, killing it after 30 s.
    fn stop(&self) {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        // Closing its standard input stops serve.py and everything it started.
        drop(child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A plain server filled by one build of the demo (whose every cached edge
/// it then holds), made once per run and shared by the tests that only read
/// from it, directly or through a relay of their own. A test that stops,
/// breaks or fills a server starts its own.
pub fn filled_server() -> &'static Server {
    static FILLED: OnceLock<Server> = OnceLock::new();
    FILLED.get_or_init(|| {
        let server = Server::start(&[]);
        let first = Project::demo();
        let (_, cold) = build_logged(&first, &["--remote", &server.url()], &["-j2"]);
        assert_eq!(count(&cold, "encode"), DEMO_CACHED_EDGES, "{cold:?}");
        at_exit(|| {
            if let Some(server) = FILLED.get() {
                server.stop();
                let _ = fs::remove_dir_all(server.dir());
            }
        });
        server
    })
}

/// `assetc configure` with `args`, then `ninja` with the cache log on;
/// returns the run and each edge's outcome by source.
pub fn build_logged(
    p: &Project,
    configure: &[&str],
    ninja: &[&str],
) -> (Run, Vec<(String, String)>) {
    let mut args = vec!["configure"];
    args.extend_from_slice(configure);
    p.assetc(&args).expect_ok("configure");
    let log = p.path("cache.log");
    let _ = fs::remove_file(&log);
    let output = Command::new(ninja_program())
        .args(ninja)
        .env(assetc::cache::edge::LOG_ENV, &log)
        .current_dir(p.root())
        .output()
        .unwrap();
    let run = Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    let run = run.expect_ok("ninja");
    wait_for_services(p);
    let outcomes = fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let (outcome, source) = l.split_once(' ').unwrap();
            (outcome.to_owned(), source.to_owned())
        })
        .collect();
    (run, outcomes)
}

/// How many edges had `outcome`.
pub fn count(outcomes: &[(String, String)], outcome: &str) -> usize {
    outcomes.iter().filter(|(o, _)| o == outcome).count()
}

/// A plain build of the demo (no cache, `-j1`), with `edit` applied first.
pub fn reference(edit: impl Fn(&Project)) -> BTreeMap<String, Vec<u8>> {
    let p = Project::demo();
    edit(&p);
    p.assetc(&["configure"]).expect_ok("configure");
    p.ninja(&["-j1"]).expect_ok("reference build");
    p.demo_outputs()
}

/// The outputs of a plain build of the unedited demo ([`reference`]), made
/// once per test binary.
pub fn plain_reference() -> &'static BTreeMap<String, Vec<u8>> {
    static PLAIN: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    PLAIN.get_or_init(|| reference(|_| ()))
}

/// Waits until the remote service of every build folder of the project has
/// left, so the results it uploads after the build are stored.
pub fn wait_for_services(p: &Project) {
    let Ok(folders) = fs::read_dir(p.path(".assetc")) else {
        return;
    };
    for folder in folders.flatten() {
        assert!(
            wait_until_gone(&folder.path(), Duration::from_secs(60)),
            "the remote service of {} did not leave",
            folder.path().display()
        );
    }
}
