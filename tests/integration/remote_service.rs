//! The build's remote service (`src/cache/remote/service/`) against a real
//! BuildGrid server and real Ninja: every way it can go wrong ends with the
//! outputs of a local build and a no-op rebuild.

use crate::common;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::reapi::{
    DEMO_CACHED_EDGES, Server, build_logged, count, filled_server, plain_reference,
    wait_for_services,
};
use crate::common::relay::Relay;
use crate::common::{Project, ninja_program};
use assetc::cache::remote::service::wait_until_gone;

/// The demo's build folder.
const BUILD: &str = ".assetc/desktop";

/// The demo, configured to use `server`.
fn configured_demo(server: &Server) -> Project {
    let p = Project::demo();
    p.assetc(&["configure", "--remote", &server.url()])
        .expect_ok("configure");
    p
}

fn service_log(p: &Project) -> String {
    fs::read_to_string(p.path(&format!("{BUILD}/remote-service.log"))).unwrap_or_default()
}

#[test]
fn a_warm_build_goes_through_one_service_that_leaves_with_the_build() {
    let server = filled_server();
    let p = Project::demo();
    let (run, outcomes) = build_logged(&p, &["--remote", &server.url()], &["-j2"]);
    assert_eq!(
        count(&outcomes, "remote-hit"),
        DEMO_CACHED_EDGES,
        "{outcomes:?}"
    );
    assert!(!run.stdout.contains("warning: remote"), "{}", run.stdout);
    // build_logged waited for the service to leave.
    let log = service_log(&p);
    assert_eq!(log.matches(" serving ").count(), 1, "{log}");
    assert!(log.contains("stopped (the build ended)"), "{log}");
    assert!(!p.path(&format!("{BUILD}/remote.sock")).exists());
    assert_eq!(&p.demo_outputs(), plain_reference());
    p.assert_no_op();
}

#[test]
fn the_socket_is_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let server = Server::start(&[]);
    let p = configured_demo(&server);
    let service = start_service(&p, env!("CARGO_BIN_EXE_assetc-encode"), &server.url());
    let socket = p.path(&format!("{BUILD}/remote.sock"));
    wait_for(|| socket.exists());
    let mode = fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "socket mode {mode:o}");
    drop(service);
}

#[test]
fn a_service_killed_mid_build_leaves_correct_outputs() {
    let server = filled_server();
    let p = configured_demo(server);
    let log = p.path("cache.log");
    let mut ninja = Command::new(ninja_program())
        .arg("-j1")
        .env(assetc::cache::edge::LOG_ENV, &log)
        .current_dir(p.root())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the service once the first hit came through it.
    wait_for(|| fs::read_to_string(&log).is_ok_and(|l| l.contains("remote-hit")));
    let pid = service_pid(&p);
    kill(pid, "-KILL");
    assert!(ninja.wait().unwrap().success());
    let outcomes = fs::read_to_string(&log).unwrap();
    assert_eq!(
        outcomes.matches("remote-hit").count(),
        DEMO_CACHED_EDGES,
        "{outcomes}"
    );
    // A later edge started a second service.
    wait_for_services(&p);
    assert!(
        service_log(&p).matches(" serving ").count() >= 2,
        "{}",
        service_log(&p)
    );
    assert_eq!(&p.demo_outputs(), plain_reference());
    p.assert_no_op();
}

#[test]
fn a_stale_service_from_another_binary_steps_aside() {
    let server = filled_server();
    let p = configured_demo(server);
    // Another build of the tool: the same program with other bytes.
    let other = p.path("other-assetc-encode");
    let mut bytes = fs::read(env!("CARGO_BIN_EXE_assetc-encode")).unwrap();
    bytes.extend_from_slice(b"another build");
    fs::write(&other, bytes).unwrap();
    set_executable(&other);
    let stale = start_service(&p, other.to_str().unwrap(), &server.url());
    wait_for(|| p.path(&format!("{BUILD}/remote.sock")).exists());

    let (run, outcomes) = build_logged(&p, &["--remote", &server.url()], &["-j2"]);
    assert_eq!(outcomes.len(), DEMO_CACHED_EDGES, "{outcomes:?}");
    assert_eq!(count(&outcomes, "encode"), 0, "{outcomes:?}");
    assert!(!run.stdout.contains("warning: remote"), "{}", run.stdout);
    assert!(
        service_log(&p).contains("another tool or other settings"),
        "{}",
        service_log(&p)
    );
    drop(stale);
    assert_eq!(&p.demo_outputs(), plain_reference());
    p.assert_no_op();
}

#[test]
fn a_file_in_place_of_the_socket_is_replaced() {
    let server = filled_server();
    let p = configured_demo(server);
    p.write(&format!("{BUILD}/remote.sock"), b"not a socket");
    let (_, outcomes) = build_logged(&p, &["--remote", &server.url()], &["-j2"]);
    assert_eq!(
        count(&outcomes, "remote-hit"),
        DEMO_CACHED_EDGES,
        "{outcomes:?}"
    );
    assert_eq!(&p.demo_outputs(), plain_reference());
    p.assert_no_op();
}

#[test]
fn two_builds_of_one_folder_at_once_share_the_service_or_go_direct() {
    let server = filled_server();
    let p = configured_demo(server);
    // Two Ninjas, each building half of the encode outputs.
    let targets = encode_targets(&p);
    let (first, second) = targets.split_at(targets.len() / 2);
    let spawn = |targets: &[String]| {
        Command::new(ninja_program())
            .arg("-j2")
            .args(targets)
            .current_dir(p.root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn(first);
    let b = spawn(second);
    for ninja in [a, b] {
        let output = ninja.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    p.ninja(&[]).expect_ok("the rest of the build");
    assert_eq!(&p.demo_outputs(), plain_reference());
    p.assert_no_op();
}

#[test]
fn a_hung_server_costs_one_deadline_per_build() {
    // Its own server, stopped: what it holds is never read.
    let server = Server::start(&[]);
    let stopped = Stopped::server(&server);
    let p = Project::demo();
    let (run, outcomes) = build_logged(&p, &["--remote", &server.url()], &["-j2"]);
    drop(stopped);
    assert_eq!(count(&outcomes, "remote-hit"), 0, "{outcomes:?}");
    assert_one_deadline(&p, &run, &outcomes);
}

/// A `-j2` build of the demo that met a silent remote: one warning saying a
/// call timed out; only the edges that were asking when the deadline struck
/// waited on it (at most one per Ninja slot); the outputs of a local build.
fn assert_one_deadline(p: &Project, run: &common::Run, outcomes: &[(String, String)]) {
    assert_eq!(outcomes.len(), DEMO_CACHED_EDGES, "{outcomes:?}");
    let waited = count(outcomes, "encode-waited");
    assert!((1..=2).contains(&waited), "{outcomes:?}");
    assert_eq!(
        run.stdout.matches("warning: remote").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("is unavailable"), "{}", run.stdout);
    assert!(run.stdout.contains("timed out"), "{}", run.stdout);
    assert_eq!(&p.demo_outputs(), plain_reference());
    p.assert_no_op();
}

/// The processes of a server, stopped (SIGSTOP) until the value is dropped.
struct Stopped(Vec<u32>);

impl Stopped {
    fn server(server: &Server) -> Self {
        let dir = server.dir().to_string_lossy().into_owned();
        let pids: Vec<u32> = fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .filter(|pid: &u32| {
                let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                String::from_utf8_lossy(&cmdline).contains(&dir) && *pid != std::process::id()
            })
            .collect();
        assert!(!pids.is_empty(), "no server process found");
        for pid in &pids {
            kill(*pid, "-STOP");
        }
        Self(pids)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        for pid in &self.0 {
            kill(*pid, "-CONT");
        }
    }
}

/// A service started by hand from `encode` for the project's build folder;
/// killed when dropped.
struct ManualService(std::process::Child);

impl Drop for ManualService {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_service(p: &Project, encode: &str, url: &str) -> ManualService {
    let child = Command::new(encode)
        .args(["--remote", url, "--cache-state", BUILD])
        .args(["embed", "--root", "runtime/desktop", "--source", "x"])
        .args(["--fragment", "x.frag", "-o", "runtime/desktop/x", "x"])
        .env(
            assetc::cache::remote::service::ENV,
            assetc::cache::remote::service::SERVE,
        )
        .current_dir(p.root())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    ManualService(child)
}

/// Every encode output of the project's `build.ninja`, by its first output.
fn encode_targets(p: &Project) -> Vec<String> {
    let text = fs::read_to_string(p.path("build.ninja")).unwrap();
    text.lines()
        .filter(|l| l.contains(".frag: "))
        .filter_map(|l| l.strip_prefix("build runtime/"))
        .map(|l| format!("runtime/{}", l.split(' ').next().unwrap()))
        .collect()
}

fn service_pid(p: &Project) -> u32 {
    let lock = p.path(&format!("{BUILD}/remote.lock"));
    fs::read_to_string(lock).unwrap().trim().parse().unwrap()
}

fn kill(pid: u32, signal: &str) {
    Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
}

fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn wait_for(condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A project of `n` small UASTC textures (level 0, quick in a debug build).
fn textures(n: u8) -> Project {
    let p = Project::new(
        "input: assets\noutput: runtime\ndefault:\n  texture: { compress: true, quality: 0, mips: true }\n",
    );
    for i in 0..n {
        p.png(&format!("assets/t{i:03}.png"), 16, 16, i);
    }
    p
}

#[test]
fn a_warm_build_makes_one_connection_and_few_calls_per_hit() {
    const N: u8 = 40;
    let server = Server::start(&[]);
    let (_, cold) = build_logged(&textures(N), &["--remote", &server.url()], &["-j2"]);
    assert_eq!(count(&cold, "encode"), N as usize, "{cold:?}");
    let relay = Relay::start(server.address()).unwrap();
    relay.set_one_way_delay(Duration::from_millis(5));
    let p = textures(N);
    let (_, warm) = build_logged(&p, &["--remote", &relay.url()], &["-j2"]);
    assert_eq!(count(&warm, "remote-hit"), N as usize, "{warm:?}");
    let stats = relay.stats();
    eprintln!(
        "{} calls for {N} hits: {:.2} per hit",
        stats.calls,
        stats.calls as f64 / f64::from(N)
    );
    assert_eq!(stats.connections, 1, "{stats:?}");
    // A lookup per hit, and one read per group of results fetched ahead (or
    // per hit an edge asked for first): at most two calls per hit.
    assert!(stats.calls <= 2 * u64::from(N), "{stats:?}");
    assert!(stats.calls >= u64::from(N), "{stats:?}");
    p.assert_no_op();
}

#[test]
fn a_link_that_goes_silent_costs_one_deadline_per_build() {
    let server = filled_server();
    let relay = Relay::start(server.address()).unwrap();
    // The first calls pass, then nothing more crosses.
    relay.blackhole_after_calls(6);
    let p = Project::demo();
    let (run, outcomes) = build_logged(&p, &["--remote", &relay.url()], &["-j2"]);
    assert_one_deadline(&p, &run, &outcomes);
}

#[test]
fn a_full_store_costs_one_warning_for_the_build() {
    // Room for 16 blobs: the first few results fit, then the disk is full.
    let server = Server::start(&["--store-limit", "65536"]);
    let p = textures(40);
    let (run, outcomes) = build_logged(&p, &["--remote", &server.url()], &["-j2"]);
    assert_eq!(count(&outcomes, "encode"), 40, "{outcomes:?}");
    assert_eq!(
        run.stdout.matches("warning: remote").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("upload failed"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("not storing results for the rest of this build")
    );
    let reference = textures(40);
    reference.build(&[]).expect_ok("a build without a remote");
    assert_eq!(p.tree("runtime"), reference.tree("runtime"));
    p.assert_no_op();
}

#[test]
fn assetc_build_returns_once_the_services_uploads_are_done() {
    let server = Server::start(&[]);
    let p = textures(12);
    p.assetc(&["configure", "--remote", &server.url()])
        .expect_ok("configure");
    p.assetc(&["build", "-j2"]).expect_ok("assetc build");
    assert!(wait_until_gone(&p.path(".assetc/default"), Duration::ZERO));
    // Every result is on the server: another folder takes them all.
    let (_, warm) = build_logged(&textures(12), &["--remote", &server.url()], &["-j2"]);
    assert_eq!(count(&warm, "remote-hit"), 12, "{warm:?}");
}
