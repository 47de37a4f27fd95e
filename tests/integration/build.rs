//! `assetc build` and the jobserver through the real binaries, real Ninja
//! (Debian's 1.11, which ignores jobservers, and PyPI's 1.13, which takes
//! its edges from one) and real make.
//!
//! The token accounting is checked from the token log every assetc
//! process appends to (`ASSETC_JOBSERVER_LOG`), replayed in file order:
//! a process's `start` and every `acquire` take a token, `release`, `exit`
//! and `killed` give one back. Under a jobserver of 2 tokens the replay
//! never counts more than 2, threads are lent (`acquire`), and every token
//! comes back, also from an encoder stopped with SIGTERM mid-edge; after a
//! SIGKILL, `assetc build` says how many did not. The projects hold one
//! texture large enough to be cut into several UASTC batches beside a small
//! one, so a token freed by the small edge can be lent to the large one.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::jobserver::{LOG_VAR, TokenLog, ninja_113, without_inherited_budget};
use crate::common::{ASSETC, Project, Run, ninja_program};

/// The side of the texture that is cut into several UASTC batches.
const LARGE: u32 = 1024;
/// Textures at the fastest UASTC level, so the tests stay quick.
const QUICK_TEXTURES: &str =
    "input: assets\noutput: runtime\ndefault:\n  texture: { quality: 0 }\n";

/// A project of one large and one small texture.
fn textures(config: &str) -> Project {
    let p = Project::new(config);
    p.png("assets/large.png", LARGE, LARGE, 1);
    p.png("assets/small.png", 128, 128, 2);
    p
}

/// `program args` in the project folder, with the token log at `log`, no
/// jobserver or thread budget inherited from whoever runs the tests, and
/// `NINJA` set to `ninja`.
fn command(p: &Project, program: &str, args: &[&str], ninja: &Path, log: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(p.root())
        .env("NINJA", ninja)
        .env(LOG_VAR, log);
    without_inherited_budget(&mut command);
    command
}

/// A finished command as the harness's [`Run`], with its exit code.
fn finished(output: Output) -> (Run, Option<i32>) {
    let run = Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    (run, output.status.code())
}

/// Runs `command` to the end.
fn run(mut command: Command) -> (Run, Option<i32>) {
    finished(command.output().expect("the command starts"))
}

/// Asserts the accounting of a build under a jobserver of 2 tokens that
/// lent threads and got every token back.
fn assert_two_tokens_lent_and_returned(log: &TokenLog, what: &str) {
    log.assert_within(2, what);
    assert!(
        log.count("acquire") >= 1,
        "{what}: no thread was lent:\n{}",
        log.text()
    );
    let modes = log.start_modes();
    assert!(
        modes.values().all(|mode| mode == "jobserver"),
        "{what}: every process must join the jobserver: {modes:?}"
    );
}

#[test]
fn assetc_build_lends_threads_within_its_tokens_and_matches_a_build_without_jobserver() {
    let scratch = tempfile::tempdir().unwrap();

    // Without a jobserver (Debian's Ninja, -j2): every encoder alone.
    let plain = textures(QUICK_TEXTURES);
    plain.assetc(&["configure"]).expect_ok("configure");
    let plain_log = scratch.path().join("plain.log");
    let debian = Path::new(&ninja_program()).to_owned();
    let (ninja_run, _) = run(command(
        &plain,
        &ninja_program(),
        &["-j2"],
        &debian,
        &plain_log,
    ));
    let ninja_run = ninja_run.expect_ok("ninja -j2");
    let log = TokenLog::read(&plain_log);
    let modes = log.start_modes();
    assert!(
        !modes.is_empty(),
        "no process logged:\n{}",
        ninja_run.stdout
    );
    assert!(
        modes.values().all(|mode| mode == "alone"),
        "without a jobserver every process runs alone: {modes:?}"
    );
    assert_eq!(log.count("acquire"), 0, "{}", log.text());

    // `assetc build -j2` under Ninja 1.13: a pool of 2 tokens.
    let pooled = textures(QUICK_TEXTURES);
    let pooled_log = scratch.path().join("pooled.log");
    let (build, code) = run(command(
        &pooled,
        ASSETC,
        &["build", "-j2"],
        &ninja_113(),
        &pooled_log,
    ));
    let build = build.expect_ok("assetc build -j2");
    assert_eq!(code, Some(0));
    assert!(
        build.stdout.contains("Jobserver mode detected"),
        "Ninja 1.13 must take its edges from the pool:\n{}",
        build.stdout
    );
    assert!(
        !build.stderr.contains("did not come back"),
        "{}",
        build.stderr
    );
    assert_two_tokens_lent_and_returned(&TokenLog::read(&pooled_log), "assetc build -j2");
    pooled
        .link(&["check", "--root", "runtime"])
        .expect_ok("check");

    assert!(
        plain.tree("runtime") == pooled.tree("runtime"),
        "outputs differ"
    );
}

#[test]
fn make_running_ninja_113_shares_its_jobserver_with_the_encoders() {
    let p = textures(QUICK_TEXTURES);
    p.assetc(&["configure"]).expect_ok("configure");
    // `+` marks the recipe as recursive, so make hands Ninja its jobserver.
    let makefile = format!("all:\n\t+{}\n", ninja_113().display());
    p.write("Makefile", makefile.as_bytes());
    let scratch = tempfile::tempdir().unwrap();
    let log_path = scratch.path().join("make.log");
    let (make, _) = run(command(&p, "make", &["-j2"], &ninja_113(), &log_path));
    let make = make.expect_ok("make -j2");
    assert!(
        make.stdout.contains("Jobserver mode detected"),
        "{}",
        make.stdout
    );
    let complaints = format!("{}{}", make.stdout, make.stderr);
    assert!(
        !complaints.contains("INTERNAL") && !complaints.contains("jobserver unavailable"),
        "make reports a token problem:\n{complaints}"
    );
    assert_two_tokens_lent_and_returned(&TokenLog::read(&log_path), "make -j2");
}

/// Starts `assetc build -j2` (Ninja 1.13) on one large texture at the
/// default UASTC level, waits until its encoder has taken a token for a
/// second thread, sends the encoder `signal`, and returns the build's
/// result, the token log and the encoder's pid.
fn kill_the_encoder_mid_edge(signal: i32) -> (Run, TokenLog, u32) {
    let p = Project::new("input: assets\noutput: runtime\n");
    p.png("assets/large.png", LARGE, LARGE, 1);
    let scratch = tempfile::tempdir().unwrap();
    let log_path = scratch.path().join("kill.log");
    let mut build = command(&p, ASSETC, &["build", "-j2"], &ninja_113(), &log_path);
    let child = build
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("assetc build starts");
    let (encoder, child) = wait_for_acquire(&log_path, child);
    // SAFETY: sends a signal to the encoder this test's build started.
    assert_eq!(unsafe { libc::kill(encoder as libc::pid_t, signal) }, 0);
    let (run, _) = finished(child.wait_with_output().expect("the build ends"));
    (run, TokenLog::read(&log_path), encoder)
}

/// Waits (two minutes at most) for the first `acquire` in the token log;
/// returns that process's pid and the build.
fn wait_for_acquire(log: &Path, mut build: Child) -> (u32, Child) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let log = TokenLog::read(log);
        if let Some((pid, _)) = log.lines.iter().find(|(_, e)| e == "acquire") {
            return (*pid, build);
        }
        if let Ok(Some(status)) = build.try_wait() {
            panic!(
                "the build ended ({status}) before any thread was lent:\n{}",
                log.text()
            );
        }
        assert!(Instant::now() < deadline, "no acquire in two minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Extra tokens `pid` held when the log ends.
fn held_by(log: &TokenLog, pid: u32) -> usize {
    let of = |event: &str| {
        log.lines
            .iter()
            .filter(|(p, e)| *p == pid && e == event)
            .count()
    };
    of("acquire") - of("release")
}

#[test]
fn an_encoder_stopped_with_sigterm_gives_its_tokens_back() {
    let (run, log, pid) = kill_the_encoder_mid_edge(libc::SIGTERM);
    assert!(!run.ok, "the build must fail:\n{}", run.stdout);
    assert!(
        log.lines.contains(&(pid, "killed".to_owned())),
        "the encoder logs its end:\n{}",
        log.text()
    );
    assert_eq!(held_by(&log, pid), 0, "{}", log.text());
    assert_eq!(log.replay().1, 0, "{}", log.text());
    assert!(
        run.stderr
            .contains("assetc build: error: runtime/large.ktx2 failed"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("FAILED: "), "{}", run.stdout);
    assert!(!run.stderr.contains("did not come back"), "{}", run.stderr);
}

#[test]
fn tokens_lost_to_sigkill_are_counted_and_reported() {
    let (run, log, pid) = kill_the_encoder_mid_edge(libc::SIGKILL);
    assert!(!run.ok, "the build must fail:\n{}", run.stdout);
    let held = held_by(&log, pid);
    assert!(
        held >= 1,
        "the encoder was killed holding no token:\n{}",
        log.text()
    );
    assert!(
        run.stderr.contains(&format!(
            "assetc build: warning: {held} jobserver token(s) did not come back"
        )),
        "{}",
        run.stderr
    );
}

/// A project of three edges that each take 2.5 s, and a processor that
/// fails for `*.bad` sources.
fn slow_project() -> Project {
    let p = Project::new(
        "input: assets\noutput: runtime\nprocessors:\n  - name: slow\n    match: \"*.txt\"\n    \
         command: sleep 2.5 && cp $in $out\n    extension: .bin\n    kind: embed\n  - name: bad\n    \
         match: \"*.bad\"\n    command: echo this source is broken >&2 && exit 7\n    extension: .out\n    \
         kind: embed\n",
    );
    for n in 1..=3 {
        p.write(&format!("assets/s{n}.txt"), format!("{n}").as_bytes());
    }
    p
}

/// `assetc build -j2` under the Ninja the suite runs with.
fn assetc_build(p: &Project, log: &Path) -> (Run, Option<i32>) {
    let ninja = Path::new(&ninja_program()).to_owned();
    run(command(p, ASSETC, &["build", "-j2"], &ninja, log))
}

#[test]
fn assetc_build_shows_progress_an_estimate_failures_and_ninjas_exit_status() {
    let p = slow_project();
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("tokens.log");

    let (first, code) = assetc_build(&p, &log);
    let first = first.expect_ok("the first assetc build");
    assert_eq!(code, Some(0));
    assert!(
        first.stdout.contains("preset 'default'"),
        "configured:\n{}",
        first.stdout
    );
    let progress: Vec<&str> = first
        .stdout
        .lines()
        .filter(|l| l.starts_with("assetc build: [") && l.contains(" running: "))
        .collect();
    assert!(!progress.is_empty(), "no progress line:\n{}", first.stdout);
    assert!(
        progress
            .iter()
            .any(|l| l.contains("assets/s1.txt") || l.contains("assets/s3.txt")),
        "the running edges are named:\n{}",
        first.stdout
    );
    assert!(
        !first.stdout.contains("ETA"),
        "no estimate without an earlier build:\n{}",
        first.stdout
    );
    assert!(
        first
            .edges()
            .contains(&"PROCESS slow assets/s2.txt".to_owned()),
        "finished edges are listed as Ninja prints them:\n{}",
        first.stdout
    );
    assert!(
        first.stdout.contains("assetc build: slowest: runtime/s"),
        "{}",
        first.stdout
    );

    // Edited sources: the same edges again, now with an estimate.
    for n in 1..=3 {
        p.write(
            &format!("assets/s{n}.txt"),
            format!("{n} edited").as_bytes(),
        );
    }
    let (second, _) = assetc_build(&p, &log);
    let second = second.expect_ok("the second assetc build");
    assert!(
        second
            .stdout
            .lines()
            .any(|l| l.starts_with("assetc build: [") && l.contains("; ETA ")),
        "an estimate after one earlier build:\n{}",
        second.stdout
    );

    // Nothing to do: Ninja says so, and nothing more is shown.
    let (noop, code) = assetc_build(&p, &log);
    let noop = noop.expect_ok("a no-op assetc build");
    assert_eq!(code, Some(0));
    assert!(noop.stdout.contains("no work to do"), "{}", noop.stdout);
    assert!(
        !noop.stdout.contains("running:") && !noop.stdout.contains("slowest"),
        "{}",
        noop.stdout
    );

    // A failing edge: its message is shown, and the exit status is Ninja's.
    p.write("assets/broken.bad", b"x");
    let (failed, code) = assetc_build(&p, &log);
    assert!(!failed.ok);
    let shown = format!("{}{}", failed.stdout, failed.stderr);
    assert!(shown.contains("this source is broken"), "{shown}");
    assert!(
        failed
            .stderr
            .contains("assetc build: error: runtime/broken.out failed"),
        "{}",
        failed.stderr
    );
    let (plain, plain_code) = run(command(&p, &ninja_program(), &[], Path::new("ninja"), &log));
    assert!(!plain.ok);
    assert_eq!(code, plain_code, "assetc build exits with Ninja's status");
}

#[test]
fn a_different_preset_reconfigures_and_the_same_one_does_not() {
    let p = Project::new(
        "input: assets\ndefault:\n  texture: { compress: false }\npresets:\n  desktop:\n    output: runtime/desktop\n  mobile:\n    output: runtime/mobile\n",
    );
    p.png("assets/a.png", 2, 2, 1);
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("tokens.log");
    let ninja = Path::new(&ninja_program()).to_owned();
    let build = |args: &[&str]| {
        let mut all = vec!["build"];
        all.extend_from_slice(args);
        let (run, _) = run(command(&p, ASSETC, &all, &ninja, &log));
        run.expect_ok("assetc build")
    };
    let first = build(&["--preset", "mobile"]);
    assert!(first.stdout.contains("preset 'mobile'"), "{}", first.stdout);
    assert!(p.path("runtime/mobile/a.ktx2").is_file());
    let other = build(&["--preset", "desktop"]);
    assert!(
        other.stdout.contains("preset 'desktop'"),
        "{}",
        other.stdout
    );
    assert!(p.path("runtime/desktop/a.ktx2").is_file());
    for again in [build(&["--preset", "desktop"]), build(&[])] {
        assert!(
            !again.stdout.contains("preset '"),
            "no configure:\n{}",
            again.stdout
        );
        assert!(again.stdout.contains("no work to do"), "{}", again.stdout);
    }
    assert!(
        fs::read_to_string(p.path("build.ninja"))
            .unwrap()
            .contains("CONFIGURE desktop")
    );
}

#[test]
fn a_ninja_that_cannot_run_is_named() {
    let p = Project::new("input: assets\noutput: runtime\n");
    let scratch = tempfile::tempdir().unwrap();
    let missing = scratch.path().join("no-such-ninja");
    let log = scratch.path().join("tokens.log");
    let (run, code) = run(command(&p, ASSETC, &["build"], &missing, &log));
    assert!(!run.ok);
    assert_eq!(code, Some(1));
    assert!(
        run.stderr.contains(&format!(
            "assetc build: error: {}: cannot run it (set NINJA to the Ninja program)",
            missing.display()
        )),
        "{}",
        run.stderr
    );
}
