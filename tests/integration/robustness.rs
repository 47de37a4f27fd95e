//! Robustness through the real binaries and the real `ninja`:
//!
//! * builds killed at pseudo-random points (Ninja alone, or Ninja with every
//!   encoder, link and configure it started) finish, after a plain `ninja`,
//!   byte-identical to a clean build, with no temporary file left;
//! * configures racing each other, or a running `ninja`, leave the same
//!   `build.ninja` and lists as a single run, and the build that follows is
//!   correct;
//! * an encode, a link or a configure whose output cannot be written (a
//!   file-size limit standing in for a full disk, a file where a folder
//!   should be, a folder where the file should be) fails naming the file and
//!   the cause, and leaves no partial or temporary file.
//!
//! The kill test prints its seed; `ASSETC_ROBUSTNESS_SEED=<seed>` replays a
//! failing run's kill points (the build's own timing still varies).
//!
//! Linux only: processes are found and stopped through `/proc`.

#![cfg(target_os = "linux")]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::{ASSETC, Project, Run, ninja_program, rgba_png};
use assetc::fsutil::TEMP_PREFIX;

/// Raw textures for most of the tree, UASTC for `hq/` so some encodes take
/// long enough to be killed mid-way; an embed glob and one named pack.
const CONFIG: &str = r#"
input: assets
output: runtime
pack: true
embed: ["data/*"]
default:
  texture: { compress: false }
  rules:
    - match: "hq/*"
      texture: { compress: true, quality: 0 }
packs:
  level: ["props/*", "models/*", "data/*"]
"#;

/// The build folder configure picks without a preset.
const BUILD_DIR: &str = ".assetc/default";

/// Which version of the sources is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// The first version.
    A,
    /// Some textures, meshes and an embed edited.
    B,
}

/// Writes the variant's sources, leaving files whose bytes are already right
/// untouched (so Ninja sees exactly the edited ones as changed).
fn write_sources(p: &Project, variant: Variant) {
    let edit = u8::from(variant == Variant::B);
    for i in 0..14u8 {
        let seed = if i % 3 == 0 { i + 40 * edit } else { i };
        let size = 8 << (i % 3);
        write_if_different(
            p,
            &format!("assets/ui/t{i:02}.png"),
            &rgba_png(size, size, seed),
        );
    }
    write_if_different(p, "assets/ui/bump.n.png", &rgba_png(16, 16, 7));
    for i in 0..4u8 {
        let seed = if i == 0 { 90 + edit } else { 90 + i };
        write_if_different(p, &format!("assets/hq/h{i}.png"), &rgba_png(32, 32, seed));
    }
    for i in 0..4u8 {
        let bumps = if i == 1 { 3 + edit } else { 3 };
        write_obj(p, &format!("assets/props/grid{i}"), 6 + i as usize, bumps);
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for copy in ["a", "b"] {
        for name in ["crate.gltf", "crate.bin", "crate_color.png"] {
            let bytes = fs::read(repo.join("assets/models").join(name)).unwrap();
            write_if_different(p, &format!("assets/models/{copy}/{name}"), &bytes);
        }
    }
    let walker = fs::read(repo.join("assets/characters/walker.glb")).unwrap();
    write_if_different(p, "assets/characters/walker.glb", &walker);
    let story = format!("{{\"chapter\": {}}}\n", 1 + edit);
    write_if_different(p, "assets/data/story.json", story.as_bytes());
    write_if_different(p, "assets/data/blob.bin", &blob(BLOB_SIZE, edit));
}

/// The size of the embedded blob. Its copy and the two packs holding it are
/// the build's largest writes, so some kills land inside a write.
const BLOB_SIZE: usize = 3 << 20;

/// `size` pseudo-random bytes, different for each `variant`.
fn blob(size: usize, variant: u8) -> Vec<u8> {
    let mut rng = Rng(u64::from(variant) + 1);
    let mut bytes = Vec::with_capacity(size + 8);
    while bytes.len() < size {
        bytes.extend_from_slice(&rng.next().to_le_bytes());
    }
    bytes.truncate(size);
    bytes
}

/// Writes `bytes` to `rel` unless the file already holds them.
fn write_if_different(p: &Project, rel: &str, bytes: &[u8]) {
    if fs::read(p.path(rel)).ok().as_deref() != Some(bytes) {
        p.write(rel, bytes);
    }
}

/// `<stem>.obj` + `.mtl` + a texture: an `n`×`n` height field whose heights
/// depend on `bumps`.
fn write_obj(p: &Project, stem: &str, n: usize, bumps: u8) {
    let name = Path::new(stem).file_name().unwrap().to_string_lossy();
    let mut obj = format!("mtllib {name}.mtl\n");
    for y in 0..=n {
        for x in 0..=n {
            let h = ((x * y) % usize::from(bumps)) as f32 * 0.1;
            obj += &format!(
                "v {x} {h} {y}\nvt {} {}\n",
                x as f32 / n as f32,
                y as f32 / n as f32
            );
        }
    }
    obj += "usemtl Ground\n";
    let at = |x: usize, y: usize| y * (n + 1) + x + 1;
    for y in 0..n {
        for x in 0..n {
            let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1));
            obj += &format!("f {a}/{a} {b}/{b} {c}/{c} {d}/{d}\n");
        }
    }
    write_if_different(p, &format!("{stem}.obj"), obj.as_bytes());
    let mtl = format!("newmtl Ground\nKd 0.6 0.5 0.4\nmap_Kd {name}.png\n");
    write_if_different(p, &format!("{stem}.mtl"), mtl.as_bytes());
    write_if_different(p, &format!("{stem}.png"), &rgba_png(8, 8, bumps));
}

/// Every file the build produced, by path: everything in the project but the
/// sources, the config, Ninja's own logs (`.ninja_log`, `.ninja_deps`) and
/// the pack steps' `*.list.state` records, which record inodes and times.
fn produced(p: &Project) -> BTreeMap<String, Vec<u8>> {
    p.tree(".")
        .into_iter()
        .filter(|(path, _)| !path.starts_with("assets/") && path != "assetc.yml")
        .filter(|(path, _)| !file_name(path).starts_with(".ninja_"))
        .filter(|(path, _)| !path.ends_with(".list.state"))
        .collect()
}

/// The last component of a `/`-separated path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Panics, listing what differs, unless the produced tree is `expected`.
fn assert_same_tree(
    actual: &BTreeMap<String, Vec<u8>>,
    expected: &BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    let paths: BTreeSet<&String> = actual.keys().chain(expected.keys()).collect();
    let differences: Vec<String> = paths
        .into_iter()
        .filter_map(|path| match (actual.get(path), expected.get(path)) {
            (Some(a), Some(e)) if a == e => None,
            (Some(_), Some(_)) => Some(format!("differs: {path}")),
            (Some(_), None) => Some(format!("extra: {path}")),
            (None, _) => Some(format!("missing: {path}")),
        })
        .collect();
    assert!(
        differences.is_empty(),
        "{what}: the tree differs from the reference:\n  {}",
        differences.join("\n  ")
    );
}

/// Deletes everything the build produced (outputs, packs, build folder), but
/// keeps `build.ninja`: the next `ninja` re-runs configure first, because its
/// depfile is gone, so kills can also land in configure.
fn wipe(p: &Project) {
    for dir in ["runtime", ".assetc"] {
        let _ = fs::remove_dir_all(p.path(dir));
    }
    for pack in ["runtime.hpack", "runtime.level.hpack"] {
        let _ = fs::remove_file(p.path(pack));
    }
}

/// A small deterministic PRNG (SplitMix64): the kill points replay from the
/// seed.
struct Rng(u64);

impl Rng {
    /// The next 64 random bits.
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A fraction in `[0, 1)`.
    fn fraction(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The seed from `ASSETC_ROBUSTNESS_SEED`, else from the clock.
fn seed() -> u64 {
    std::env::var("ASSETC_ROBUSTNESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// How an interrupted build is stopped.
#[derive(Debug, Clone, Copy)]
enum Kill {
    /// SIGKILL to Ninja alone: the commands it started run on to their end,
    /// orphaned. The test waits for them before the next `ninja`: running
    /// alongside them is safe for the bytes (unique temporary names), but an
    /// orphan's late rename could leave an output newer than the pack that
    /// read it, which costs one more rebuild and would fail the no-op check.
    NinjaOnly,
    /// SIGKILL to Ninja and every process below it, so encoders, links and
    /// configure die wherever they are, mid-write included. (Ninja puts each
    /// command in a process group of its own, so killing Ninja's group would
    /// not reach them; the tree is found through `/proc`.)
    Tree,
}

/// A process's state letter and parent, from `/proc/<pid>/stat`; `None` once
/// it is gone.
fn proc_stat(pid: u32) -> Option<(char, u32)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything; the fields
    // after the last ')' are plain.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Whether a process has exited (gone, or a zombie nobody reaped yet).
fn has_exited(pid: u32) -> bool {
    proc_stat(pid).is_none_or(|(state, _)| matches!(state, 'Z' | 'X'))
}

/// Every live process below `root`, from one pass over `/proc`.
fn descendants(root: u32) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(u32, u32)> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| match proc_stat(pid)? {
            (state, parent) if state != 'Z' => Some((pid, parent)),
            _ => None,
        })
        .collect();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(pid) = frontier.pop() {
        for &(child, _) in parents.iter().filter(|(_, parent)| *parent == pid) {
            found.push(child);
            frontier.push(child);
        }
    }
    found
}

/// Sends `signal` to `pid`.
fn signal(pid: u32, signal: libc::c_int) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours. The
    // pid is a process this test started (or one of its descendants, found
    // while they were stopped), not yet reaped.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
}

/// Whether `pid` is stopped or has exited.
fn is_stopped(pid: u32) -> bool {
    proc_stat(pid).is_none_or(|(state, _)| matches!(state, 'T' | 't' | 'Z' | 'X'))
}

/// Stops `pid` with SIGSTOP and waits until it is stopped.
fn stop(pid: u32) {
    signal(pid, libc::SIGSTOP);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !is_stopped(pid) {
        assert!(Instant::now() < deadline, "process {pid} does not stop");
        sleep(Duration::from_micros(100));
    }
}

/// Stops `root` and every process below it, all at once and then again for
/// any that a process started before it stopped, until a pass finds no new
/// one (a stopped process starts nothing new). Returns the descendants.
///
/// Each pass waits a little for its processes to stop, so a fork under way
/// completes and shows on the next pass, but does not insist: a parent
/// waiting in `vfork` for a child that was stopped before it could `exec`
/// never stops, and cannot start anything either.
fn stop_tree(root: u32) -> Vec<u32> {
    let mut stopped: Vec<u32> = Vec::new();
    loop {
        let new: Vec<u32> = std::iter::once(root)
            .chain(descendants(root))
            .filter(|pid| !stopped.contains(pid))
            .collect();
        if new.is_empty() {
            break;
        }
        for &pid in &new {
            signal(pid, libc::SIGSTOP);
        }
        let deadline = Instant::now() + Duration::from_millis(20);
        while Instant::now() < deadline && !new.iter().all(|&pid| is_stopped(pid)) {
            sleep(Duration::from_micros(100));
        }
        stopped.extend(new);
    }
    stopped.retain(|&pid| pid != root);
    stopped
}

/// Waits until every process in `pids` has exited.
fn wait_exited(pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !pids.iter().all(|&pid| has_exited(pid)) {
        assert!(Instant::now() < deadline, "orphaned commands never finish");
        sleep(Duration::from_millis(2));
    }
}

/// When an interrupted build is killed.
#[derive(Debug, Clone, Copy)]
enum When {
    /// After a fixed delay.
    After(Duration),
    /// As soon as a temporary file shows up in one of the folders the large
    /// writes go to (the packs, the blob's copy), so the kill lands inside a
    /// write; or after the delay if none shows up.
    WriteSeen(Duration),
}

/// The folders [`When::WriteSeen`] watches.
const WATCHED: [&str; 3] = [".", "runtime", "runtime/data"];

/// Whether any watched folder holds a temporary file.
fn write_in_progress(p: &Project) -> bool {
    WATCHED.iter().any(|dir| {
        fs::read_dir(p.path(dir)).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        })
    })
}

/// Waits until `when` says to kill, or `ninja` has exited.
fn wait_for_kill_point(p: &Project, ninja: &mut Child, when: When) {
    match when {
        When::After(delay) => sleep(delay),
        When::WriteSeen(limit) => {
            let deadline = Instant::now() + limit;
            while Instant::now() < deadline
                && matches!(ninja.try_wait(), Ok(None))
                && !write_in_progress(p)
            {
                sleep(Duration::from_micros(200));
            }
        }
    }
}

/// Starts `ninja -j2`, SIGKILLs it when `when` says, as `how` says, and
/// returns once every process it started has exited. Returns whether the
/// kill landed before Ninja finished on its own.
fn interrupt(p: &Project, when: When, how: Kill) -> bool {
    let mut ninja = Command::new(ninja_program())
        .arg("-j2")
        .current_dir(p.root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot run ninja");
    wait_for_kill_point(p, &mut ninja, when);
    let landed = matches!(ninja.try_wait(), Ok(None));
    let pid = ninja.id();
    match how {
        Kill::NinjaOnly => {
            stop(pid);
            let orphans = descendants(pid);
            signal(pid, libc::SIGKILL);
            reap(&mut ninja);
            wait_exited(&orphans);
        }
        Kill::Tree => {
            let tree = stop_tree(pid);
            for &process in tree.iter().chain([&pid]) {
                signal(process, libc::SIGKILL);
            }
            reap(&mut ninja);
            wait_exited(&tree);
        }
    }
    landed
}

/// Waits for a child the test started.
fn reap(child: &mut Child) {
    child.wait().expect("cannot wait for ninja");
}

/// Runs `ninja -j2`, which must succeed, and returns how long it took.
fn timed_build(p: &Project, what: &str) -> Duration {
    let start = Instant::now();
    p.ninja(&["-j2"]).expect_ok(what);
    start.elapsed()
}

/// The clean builds the kill rounds are compared with, and how long builds
/// take (the span the kill delays are drawn from).
struct KillReferences {
    /// Every produced file of a clean build of variant A.
    a: BTreeMap<String, Vec<u8>>,
    /// The same for variant B.
    b: BTreeMap<String, Vec<u8>>,
    /// A clean build's duration.
    clean_time: Duration,
    /// An incremental build's duration (A edited into B).
    edit_time: Duration,
}

/// Builds A clean, B incrementally and B clean (which must match the
/// incremental one), timing the first two. Leaves the clean B tree.
fn kill_references(p: &Project) -> KillReferences {
    write_sources(p, Variant::A);
    p.assetc(&["configure"]).expect_ok("configure");
    let clean_time = timed_build(p, "clean build of A");
    let a = produced(p);
    write_sources(p, Variant::B);
    let edit_time = timed_build(p, "incremental build of B");
    let incremental_b = produced(p);
    wipe(p);
    timed_build(p, "clean build of B");
    let b = produced(p);
    assert_same_tree(&incremental_b, &b, "incremental build of B");
    println!("clean build {clean_time:?}, edit build {edit_time:?}");
    KillReferences {
        a,
        b,
        clean_time,
        edit_time,
    }
}

/// Interrupts `ninja` one to three times in a row, each time as the PRNG
/// says, within a build expected to take `span`. Returns how many kills
/// landed before Ninja finished, and how many there were.
fn kill_some_builds(p: &Project, rng: &mut Rng, span: Duration) -> (usize, usize) {
    let kills = 1 + rng.below(3) as usize;
    let mut landed = 0;
    for _ in 0..kills {
        // A kill when a write is seen only means something if the writer
        // dies too.
        let delay = When::After(span.mul_f64(rng.fraction()));
        let (when, how) = match rng.below(3) {
            0 => (delay, Kill::NinjaOnly),
            1 => (delay, Kill::Tree),
            _ => (When::WriteSeen(span), Kill::Tree),
        };
        landed += usize::from(interrupt(p, when, how));
    }
    (landed, kills)
}

/// Runs `ninja` to the end after kills and checks the result: no temporary
/// file, exactly the `expected` tree, and a build that stays put.
fn assert_recovers(p: &Project, expected: &BTreeMap<String, Vec<u8>>, context: &str) {
    p.ninja(&[])
        .expect_ok(&format!("ninja after the kills ({context})"));
    let left = p.temporary_files();
    assert!(left.is_empty(), "{context}: temporary files left: {left:?}");
    assert_same_tree(&produced(p), expected, context);
    // Ninja 1.11 may run an edge once more: when a killed run had already
    // written its outputs, the re-run changes nothing and restat records the
    // newest input Ninja knew of, which for an edge without a deps-log entry
    // yet leaves out its depfile inputs (a glTF's `.bin`). Newer Ninja
    // records the command's start time instead. Either way the next build
    // must change no byte, and the one after must have nothing to do.
    p.ninja(&[]).expect_ok(&format!("second ninja ({context})"));
    assert_same_tree(&produced(p), expected, context);
    p.assert_no_op();
}

#[test]
fn killed_builds_finish_identical_to_a_clean_build() {
    const ROUNDS: usize = 20;
    let seed = seed();
    println!("seed {seed} (replay with ASSETC_ROBUSTNESS_SEED={seed})");
    let mut rng = Rng(seed);
    let p = Project::new(CONFIG);
    let references = kill_references(&p);
    let (mut landed, mut kills, mut orphaned_temps) = (0, 0, 0);
    for round in 0..ROUNDS {
        let variant = [Variant::A, Variant::B][round % 2];
        write_sources(&p, variant);
        let fresh = rng.below(4) == 0;
        if fresh {
            wipe(&p);
        }
        let span = if fresh {
            references.clean_time
        } else {
            references.edit_time
        };
        let (round_landed, round_kills) = kill_some_builds(&p, &mut rng, span);
        landed += round_landed;
        kills += round_kills;
        orphaned_temps += p.temporary_files().len();
        let expected = match variant {
            Variant::A => &references.a,
            Variant::B => &references.b,
        };
        let context = format!("seed {seed}, round {round} ({variant:?}, fresh: {fresh})");
        assert_recovers(&p, expected, &context);
    }
    println!(
        "{landed} of {kills} kills landed before the build ended; \
         they left {orphaned_temps} temporary files for the next build to remove"
    );
}

/// A smaller project for the configure races: a few textures, an embed, a
/// mesh and the named pack.
fn small_project() -> Project {
    let p = Project::new(CONFIG);
    for i in 0..6u8 {
        p.png(&format!("assets/ui/t{i}.png"), 8, 8, i);
    }
    write_obj(&p, "assets/props/grid", 4, 3);
    p.write("assets/data/story.json", b"{}\n");
    p
}

/// What configure writes: `build.ninja` and the build folder's lists and
/// depfile (not the lock file, the fragments or Ninja's logs).
fn configured(p: &Project) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    files.insert(
        "build.ninja".to_string(),
        fs::read(p.path("build.ninja")).unwrap_or_default(),
    );
    for (path, bytes) in p.tree(BUILD_DIR) {
        // `packs/*.list.state` beside configure's lists are the pack steps'.
        let mine = ["fragments.list", "outputs.list", "configure.d"].contains(&path.as_str())
            || (path.starts_with("packs/") && !path.ends_with(".state"));
        if mine {
            files.insert(path, bytes);
        }
    }
    files
}

/// Starts `count` configures at once and waits for all; each must succeed.
fn race_configures(p: &Project, count: usize, what: &str) {
    let children: Vec<Child> = (0..count)
        .map(|_| {
            Command::new(ASSETC)
                .arg("configure")
                .current_dir(p.root())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("cannot run assetc")
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().expect("cannot wait for assetc");
        assert!(
            output.status.success(),
            "{what}: a racing configure failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// The extra source the races add and remove.
const EXTRA: &str = "assets/ui/extra.png";

/// Adds or removes the extra source (a new file, a changed folder: Ninja
/// regenerates `build.ninja`). Waits first, so the folder's new time is
/// clearly later than the last build's files.
fn set_extra(p: &Project, present: bool) {
    sleep(Duration::from_millis(20));
    if present {
        p.png(EXTRA, 8, 8, 99);
    } else if p.path(EXTRA).exists() {
        fs::remove_file(p.path(EXTRA)).unwrap();
    }
}

/// What configure writes and what the build produces, from one configure
/// and one `ninja` each, without and with the extra source.
type References = [(BTreeMap<String, Vec<u8>>, BTreeMap<String, Vec<u8>>); 2];

/// The [`References`] of `p`, built one run at a time; leaves the extra
/// source in place.
fn single_run_references(p: &Project) -> References {
    [false, true].map(|extra| {
        set_extra(p, extra);
        p.build(&[]);
        (configured(p), produced(p))
    })
}

#[test]
fn racing_configures_leave_what_a_single_run_leaves() {
    let p = small_project();
    let references = single_run_references(&p);
    for round in 0..8 {
        let extra = round % 2 == 0;
        set_extra(&p, extra);
        let fresh = round % 3 == 0;
        if fresh {
            wipe(&p);
            fs::remove_file(p.path("build.ninja")).unwrap();
        }
        let what = format!("round {round} (extra source: {extra}, fresh: {fresh})");
        race_configures(&p, 3, &what);
        let (configured_expected, built_expected) = &references[usize::from(extra)];
        assert_same_tree(&configured(&p), configured_expected, &what);
        p.ninja(&[]).expect_ok(&what);
        assert_same_tree(&produced(&p), built_expected, &what);
        assert!(
            p.temporary_files().is_empty(),
            "{what}: {:?}",
            p.temporary_files()
        );
    }
}

#[test]
fn a_configure_racing_ninja_corrupts_nothing() {
    let p = small_project();
    let references = single_run_references(&p);
    for round in 0..6 {
        // Each round changes the set of sources, so the running Ninja
        // regenerates build.ninja while the manual configures run.
        let extra = round % 2 == 1;
        set_extra(&p, extra);
        let what = format!("round {round} (extra source: {extra})");
        let ninja = Command::new(ninja_program())
            .arg("-j2")
            .current_dir(p.root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot run ninja");
        sleep(Duration::from_millis(5 * round));
        race_configures(&p, 2, &what);
        let output = ninja.wait_with_output().expect("cannot wait for ninja");
        assert!(
            output.status.success(),
            "{what}: ninja failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        p.ninja(&[]).expect_ok(&what);
        let (configured_expected, built_expected) = &references[usize::from(extra)];
        assert_same_tree(&configured(&p), configured_expected, &what);
        assert_same_tree(&produced(&p), built_expected, &what);
        assert!(
            p.temporary_files().is_empty(),
            "{what}: {:?}",
            p.temporary_files()
        );
        p.assert_no_op();
    }
}

/// The command Ninja runs to build `output` (run from the project folder).
fn edge_command(p: &Project, output: &str) -> String {
    let run = p
        .ninja(&["-t", "commands", "-s", output])
        .expect_ok("ninja -t commands");
    let command = run.stdout.trim().to_string();
    assert!(
        !command.is_empty() && !command.contains('\n'),
        "{output}: {command}"
    );
    command
}

/// No file-size limit, for [`run_limited`].
const UNLIMITED: &str = "unlimited";

/// Runs `command` through `sh` in the project folder with the file-size limit
/// (`ulimit -f`) set to `limit`; `ignore_signal` ignores SIGXFSZ, so a
/// write past the limit fails with EFBIG ("File too large"), as a write to a
/// full disk fails with ENOSPC, instead of killing the process.
fn run_limited(p: &Project, command: &str, limit: &str, ignore_signal: bool) -> Run {
    let trap = if ignore_signal { "trap '' XFSZ; " } else { "" };
    let script = format!("{trap}ulimit -c 0; ulimit -f {limit}; exec {command}");
    let output = Command::new("sh")
        .args(["-c", &script])
        .current_dir(p.root())
        .output()
        .expect("cannot run sh");
    Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `command` with no room to write anything and checks the failure:
/// non-zero exit, `<program>: error: <file>: cannot write` with the cause,
/// no temporary file anywhere and `file` absent.
fn assert_write_fails_cleanly(p: &Project, command: &str, program: &str, file: &str) {
    let _ = fs::remove_file(p.path(file));
    let run = run_limited(p, command, "0", true);
    assert_cannot_write(&run, program, file, "caused by: File too large");
    assert!(!p.path(file).exists(), "{file}: a partial file is left");
    assert!(
        p.temporary_files().is_empty(),
        "{file}: {:?}",
        p.temporary_files()
    );
}

#[test]
fn encodes_and_links_that_cannot_write_fail_cleanly() {
    let p = small_project();
    p.build(&[]);
    let built = produced(&p);
    let texture = "runtime/ui/t1.ktx2";
    let mesh = "runtime/props/grid.hmesh";
    for (file, program) in [
        (texture, "assetc-encode"),
        (mesh, "assetc-encode"),
        ("runtime/assets.hman", "assetc-link"),
        ("runtime.hpack", "assetc-link"),
        ("runtime.level.hpack", "assetc-link"),
    ] {
        let command = edge_command(&p, file);
        assert_write_fails_cleanly(&p, &command, program, file);
        // A failed encode also deletes its fragment and the link outputs:
        // rebuild before the next case runs its command.
        p.ninja(&[])
            .expect_ok(&format!("ninja after failing {file}"));
    }
    p.ninja(&[]).expect_ok("ninja after the failures");
    assert_same_tree(&produced(&p), &built, "rebuilt after the failures");
}

#[test]
fn an_encoder_killed_mid_write_leaves_a_temporary_file_the_next_write_removes() {
    let p = small_project();
    p.build(&[]);
    let texture = "runtime/ui/t1.ktx2";
    let command = edge_command(&p, texture);
    fs::remove_file(p.path(texture)).unwrap();
    // Without the trap SIGXFSZ kills the encoder inside its first write.
    let run = run_limited(&p, &command, "0", false);
    assert!(!run.ok);
    assert_eq!(
        p.temporary_files().len(),
        1,
        "a killed writer leaves its temporary file"
    );
    run_limited(&p, &command, UNLIMITED, true).expect_ok("the same encode, unlimited");
    assert!(p.temporary_files().is_empty(), "{:?}", p.temporary_files());
    assert!(p.path(texture).is_file());
}

#[test]
fn outputs_blocked_by_a_file_or_a_folder_fail_naming_them() {
    let p = small_project();
    p.assetc(&["configure"]).expect_ok("configure");
    let texture = "runtime/ui/t1.ktx2";
    let mesh = "runtime/props/grid.hmesh";
    let texture_command = edge_command(&p, texture);
    let mesh_command = edge_command(&p, mesh);
    // A file where the output folder should be: ENOTDIR below it...
    p.write("runtime", b"not a folder");
    let run = run_limited(&p, &texture_command, UNLIMITED, true);
    assert_cannot_write(
        &run,
        "assetc-encode",
        texture,
        "cannot create the folder runtime/ui: Not a directory",
    );
    assert_eq!(fs::read(p.path("runtime")).unwrap(), b"not a folder");
    // ... and EEXIST for the folder itself.
    fs::remove_file(p.path("runtime")).unwrap();
    p.write("runtime/props", b"not a folder");
    let run = run_limited(&p, &mesh_command, UNLIMITED, true);
    assert_cannot_write(
        &run,
        "assetc-encode",
        mesh,
        "cannot create the folder runtime/props: File exists",
    );
    // A folder where the output file should be: the rename fails.
    fs::remove_file(p.path("runtime/props")).unwrap();
    fs::create_dir_all(p.path(texture)).unwrap();
    let run = run_limited(&p, &texture_command, UNLIMITED, true);
    assert_cannot_write(&run, "assetc-encode", texture, "Is a directory");
    assert!(p.temporary_files().is_empty(), "{:?}", p.temporary_files());
}

/// Asserts that `program` failed with `<program>: error: <file>: cannot
/// write` and `cause` in its message.
fn assert_cannot_write(run: &Run, program: &str, file: &str, cause: &str) {
    assert!(!run.ok, "writing {file} must fail");
    let error = format!("{program}: error: {file}: cannot write");
    for expected in [error.as_str(), cause] {
        assert!(
            run.stderr.contains(expected),
            "expected '{expected}' in:\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_configure_that_cannot_write_build_ninja_fails_cleanly() {
    let p = small_project();
    let configure = format!("'{ASSETC}' configure");
    let run = run_limited(&p, &configure, "0", true);
    let build_ninja = p.path("build.ninja").display().to_string();
    assert_cannot_write(&run, "assetc", &build_ninja, "caused by: File too large");
    assert!(
        !p.path("build.ninja").exists(),
        "a partial build.ninja is left"
    );
    fs::create_dir(p.path("build.ninja")).unwrap();
    let run = p.assetc(&["configure"]);
    assert_cannot_write(&run, "assetc", &build_ninja, "Is a directory");
    assert!(p.temporary_files().is_empty(), "{:?}", p.temporary_files());
    fs::remove_dir(p.path("build.ninja")).unwrap();
    p.build(&[]);
}
