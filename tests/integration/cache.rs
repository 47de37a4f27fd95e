//! The shared cache through the real binaries and Ninja: two build folders of
//! one project share a cache folder, and the second runs no encoder at all
//! yet ends with the same bytes, depfiles and no-op rebuild as the first;
//! edits miss exactly the edges that read the edited file; corrupt entries,
//! killed writers, an unusable folder and trimming end with correct outputs
//! and at most a warning; the launcher prefixes every encode.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{ASSETC, Project, Run, ninja_program, rgba_png};

/// The encode edges of the demo (sources plus the glTF textures), which is
/// also the number of keys a clean build of it looks up; the processor edge
/// is not cached.
const DEMO_CACHED_EDGES: u64 = 22;

/// The counters `assetc cache stats` prints.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Stats {
    hits: u64,
    misses: u64,
    stores: u64,
    corrupt: u64,
    bytes: u64,
}

/// Runs `assetc cache <args> --dir <cache>`.
fn assetc_cache(args: &[&str], cache: &Path) -> std::process::Output {
    Command::new(ASSETC)
        .arg("cache")
        .args(args)
        .arg("--dir")
        .arg(cache)
        .output()
        .unwrap()
}

fn stats(cache: &Path) -> Stats {
    let out = assetc_cache(&["stats"], cache);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let value = |name: &str| -> u64 {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        line[name.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    Stats {
        hits: value("hits"),
        misses: value("misses"),
        stores: value("stores"),
        corrupt: value("corrupt entries"),
        bytes: value("size"),
    }
}

/// Ninja's recorded dependencies, per target, sorted (no times).
fn recorded_deps(p: &Project) -> BTreeMap<String, Vec<String>> {
    let run = p.ninja(&["-t", "deps"]).expect_ok("ninja -t deps");
    let mut deps = BTreeMap::new();
    let mut current = String::new();
    for line in run.stdout.lines() {
        if let Some(dep) = line.strip_prefix("    ") {
            deps.entry(current.clone())
                .or_insert_with(Vec::new)
                .push(dep.to_owned());
        } else if let Some((target, _)) = line.split_once(": #deps") {
            current = target.to_owned();
        }
    }
    deps.values_mut().for_each(|v| v.sort());
    deps
}

fn configure_with(p: &Project, cache: &Path) {
    p.assetc(&["configure", "--cache", cache.to_str().unwrap()])
        .expect_ok("configure --cache");
}

fn cache_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("shared");
    (dir, cache)
}

#[test]
fn a_second_build_folder_encodes_nothing_and_matches_the_first() {
    let (_keep, cache) = cache_dir();
    let first = Project::demo();
    configure_with(&first, &cache);
    let cold_run = first.ninja(&[]).expect_ok("cold build");
    let cold = stats(&cache);
    assert_eq!(cold.misses, DEMO_CACHED_EDGES);
    assert_eq!(cold.stores, DEMO_CACHED_EDGES);
    assert_eq!(cold.hits, 0);

    let second = Project::demo();
    configure_with(&second, &cache);
    let warm_run = second.ninja(&[]).expect_ok("warm build");
    let warm = stats(&cache);
    assert_eq!(warm.misses, cold.misses, "the second build encoded locally");
    assert_eq!(warm.hits, DEMO_CACHED_EDGES);
    // The encoders' warnings are replayed from the cache.
    let warnings = |run: &Run| -> Vec<String> {
        let mut lines: Vec<String> = run
            .stdout
            .lines()
            .filter(|l| l.contains(": warning: "))
            .map(str::to_owned)
            .collect();
        lines.sort();
        lines
    };
    assert!(!warnings(&cold_run).is_empty());
    assert_eq!(warnings(&cold_run), warnings(&warm_run));
    assert_eq!(first.demo_outputs(), second.demo_outputs());
    assert_eq!(recorded_deps(&first), recorded_deps(&second));
    second.assert_no_op();
    assert!(second.temporary_files().is_empty());

    // The depfile a hit wrote is live: editing the glTF's buffer re-runs the
    // edges that read it, and only those.
    fs::OpenOptions::new()
        .append(true)
        .open(second.path("assets/models/crate.bin"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"pad!"))
        .unwrap();
    let rerun = second.ninja(&[]).expect_ok("after the .bin edit");
    let encodes: Vec<String> = rerun
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("MESH") || e.starts_with("TEXTURE"))
        .collect();
    assert_eq!(encodes.len(), 2, "{encodes:?}");
    assert_eq!(stats(&cache).misses, warm.misses + 2);
}

#[test]
fn edits_miss_exactly_the_edges_that_read_them() {
    let (_keep, cache) = cache_dir();
    let first = Project::demo();
    configure_with(&first, &cache);
    first.ninja(&[]).expect_ok("cold build");
    let before = stats(&cache);

    let edited = Project::demo();
    // One source image, one face of the cubemap, and the external buffer
    // of a glTF (read by its mesh edge and by the texture embedded in it).
    edited.write("assets/textures/checker.png", &rgba_png(16, 16, 99));
    let face = fs::read(edited.path("assets/sky.env/px.png")).unwrap();
    let size = png_size(&face);
    edited.write("assets/sky.env/px.png", &rgba_png(size.0, size.1, 7));
    let mut bin = fs::read(edited.path("assets/models/crate.bin")).unwrap();
    bin.extend_from_slice(b"pad!");
    edited.write("assets/models/crate.bin", &bin);
    configure_with(&edited, &cache);
    edited.ninja(&[]).expect_ok("edited build");
    let after = stats(&cache);
    assert_eq!(
        after.misses - before.misses,
        4,
        "checker, sky, crate mesh, crate tex_1"
    );
    assert_eq!(after.hits - before.hits, DEMO_CACHED_EDGES - 4);

    // The edited tree's outputs equal those of a build without any cache.
    let plain = Project::demo();
    for rel in [
        "assets/textures/checker.png",
        "assets/sky.env/px.png",
        "assets/models/crate.bin",
    ] {
        plain.write(rel, &fs::read(edited.path(rel)).unwrap());
    }
    plain.build(&[]);
    assert_eq!(plain.demo_outputs(), edited.demo_outputs());
}

/// Width and height from a PNG's IHDR.
fn png_size(png: &[u8]) -> (u32, u32) {
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn a_corrupt_entry_is_a_miss_and_one_warning() {
    let (_keep, cache) = cache_dir();
    let first = Project::demo();
    configure_with(&first, &cache);
    first.ninja(&[]).expect_ok("cold build");
    // Damage every stored blob: each hit finds its first file corrupt.
    let blobs: Vec<PathBuf> = walkdir::WalkDir::new(cache.join("v1/blobs"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    assert!(!blobs.is_empty());
    for blob in &blobs {
        let mut bytes = fs::read(blob).unwrap();
        bytes[0] ^= 0xff;
        fs::write(blob, bytes).unwrap();
    }
    let second = Project::demo();
    configure_with(&second, &cache);
    let run = second.ninja(&[]).expect_ok("build over a corrupt cache");
    assert!(
        run.stdout.contains("corrupt cache entry deleted"),
        "{}",
        run.stdout
    );
    let after = stats(&cache);
    assert_eq!(after.hits, 0);
    assert!(after.corrupt >= 1);
    assert_eq!(first.demo_outputs(), second.demo_outputs());
    // The entries were replaced by good ones: a third folder hits.
    let third = Project::demo();
    configure_with(&third, &cache);
    third.ninja(&[]).expect_ok("third build");
    assert_eq!(stats(&cache).hits, DEMO_CACHED_EDGES);
    assert_eq!(first.demo_outputs(), third.demo_outputs());
}

#[test]
fn killed_writers_leave_no_torn_entry() {
    let (_keep, cache) = cache_dir();
    let reference = Project::demo();
    reference.build(&[]);
    for round in 0..3 {
        let p = Project::demo();
        configure_with(&p, &cache);
        kill_when_the_cache_is_written(&p, &cache, round);
        p.ninja(&[]).expect_ok("build after the kill");
        assert_eq!(reference.demo_outputs(), p.demo_outputs(), "round {round}");
        p.assert_no_op();
    }
    // Every entry left reads back whole; the trim removes dead temporaries.
    let trim = assetc_cache(&["trim", "--max-size", "1G"], &cache);
    assert!(trim.status.success());
    let leftovers: Vec<_> = walkdir::WalkDir::new(&cache)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(assetc::fsutil::TEMP_PREFIX)
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let last = Project::demo();
    configure_with(&last, &cache);
    last.ninja(&[]).expect_ok("warm build");
    assert_eq!(reference.demo_outputs(), last.demo_outputs());
}

/// Starts `ninja` and kills its whole process group once the cache holds
/// `round + 1` more entry files, or a temporary file of one.
fn kill_when_the_cache_is_written(p: &Project, cache: &Path, round: u64) {
    use std::os::unix::process::CommandExt;
    let start = count_files(cache);
    let mut child = Command::new(ninja_program())
        .current_dir(p.root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() || count_files(cache) > start + round {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let group = child.id() as i32;
    // SAFETY: kill(2) on the process group this test started.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let _ = child.wait();
}

fn count_files(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .count() as u64
}

#[test]
fn an_unusable_cache_folder_costs_a_warning_not_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let blocked = dir.path().join("not-a-folder");
    fs::write(&blocked, b"a file where the cache folder should be").unwrap();
    let p = Project::demo();
    configure_with(&p, &blocked);
    let run = p.ninja(&[]).expect_ok("build with an unusable cache");
    assert!(
        run.stdout.contains("cannot store in the cache"),
        "{}",
        run.stdout
    );
    let plain = Project::demo();
    plain.build(&[]);
    assert_eq!(plain.demo_outputs(), p.demo_outputs());
}

#[test]
fn trimming_keeps_the_folder_within_its_limit() {
    let (_keep, cache) = cache_dir();
    let first = Project::demo();
    first
        .assetc(&[
            "configure",
            "--cache",
            cache.to_str().unwrap(),
            "--cache-max-size",
            "60K",
        ])
        .expect_ok("configure");
    first.ninja(&[]).expect_ok("build");
    let limited = stats(&cache);
    assert!(limited.bytes <= 2 * 60 * 1024, "{limited:?}");
    let run = assetc_cache(&["trim", "--max-size", "10K"], &cache);
    assert!(run.status.success());
    assert!(String::from_utf8_lossy(&run.stdout).contains("trimmed"));
    assert!(stats(&cache).bytes <= 10 * 1024);
    // What was trimmed is encoded again, correctly.
    let second = Project::demo();
    configure_with(&second, &cache);
    second.ninja(&[]).expect_ok("build after the trim");
    assert_eq!(first.demo_outputs(), second.demo_outputs());
}

#[test]
fn the_cache_comes_from_the_config_or_the_environment() {
    let (_keep, cache) = cache_dir();
    let p = Project::demo();
    let config = fs::read_to_string(p.path("assetc.yml")).unwrap();
    p.write(
        "assetc.yml",
        format!(
            "{config}\ncache:\n  dir: {}\n  max_size: 1G\n",
            cache.display()
        )
        .as_bytes(),
    );
    p.build(&[]);
    assert_eq!(stats(&cache).stores, DEMO_CACHED_EDGES);
    let from_config = Command::new(ASSETC)
        .args(["cache", "stats"])
        .current_dir(p.root())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&from_config.stdout).contains("limit 1G"));

    let (_keep_env, env_cache) = cache_dir();
    let q = Project::demo();
    let run = Command::new(ASSETC)
        .arg("configure")
        .env(assetc::cache::CACHE_ENV, &env_cache)
        .current_dir(q.root())
        .output()
        .unwrap();
    assert!(run.status.success());
    let ninja_file = fs::read_to_string(q.path("build.ninja")).unwrap();
    let regenerate = ninja_file
        .lines()
        .find(|l| l.trim_start().starts_with("command =") && l.contains(" configure"))
        .unwrap();
    assert!(
        regenerate.contains("--cache"),
        "Ninja's re-run keeps the cache: {regenerate}"
    );
    q.ninja(&[]).expect_ok("build");
    assert_eq!(stats(&env_cache).stores, DEMO_CACHED_EDGES);

    q.write(
        "assetc.yml",
        format!("{config}\ncache:\n  max_size: lots\n").as_bytes(),
    );
    let error = q.assetc(&["configure"]);
    assert!(!error.ok);
    assert!(
        error.stderr.contains("assetc.yml:") && error.stderr.contains("'lots' is not a size"),
        "{}",
        error.stderr
    );
}

#[test]
fn the_launcher_prefixes_every_encode_command() {
    let p = Project::demo();
    p.write(
        "launch.sh",
        b"#!/bin/sh\necho \"$2\" >> \"$(dirname \"$0\")/launched.txt\"\nexec \"$@\"\n",
    );
    p.assetc(&["configure", "--launcher", "sh launch.sh"])
        .expect_ok("configure --launcher");
    let run: Run = p.ninja(&[]).expect_ok("build through the launcher");
    let launched = fs::read_to_string(p.path("launched.txt")).unwrap();
    let kinds: Vec<&str> = launched.lines().collect();
    let encodes = run
        .edges()
        .iter()
        .filter(|e| {
            [
                "TEXTURE", "MESH", "CUBEMAP", "ARRAY", "LUT", "FONT", "SHADER", "EMBED", "PROCESS",
            ]
            .iter()
            .any(|k| e.starts_with(k))
        })
        .count();
    assert_eq!(kinds.len(), encodes, "{launched}");
    assert!(
        kinds.contains(&"texture") && kinds.contains(&"process"),
        "{launched}"
    );
    let plain = Project::demo();
    plain.build(&[]);
    assert_eq!(plain.demo_outputs(), p.demo_outputs());
    // The launcher stays through Ninja's own re-run of configure.
    let ninja_file = fs::read_to_string(p.path("build.ninja")).unwrap();
    assert!(
        ninja_file.contains("--launcher 'sh launch.sh'"),
        "{ninja_file}"
    );
}

#[test]
fn builds_sharing_a_cold_cache_at_once_both_come_out_right() {
    let (_keep, cache) = cache_dir();
    let projects: Vec<Project> = (0..3).map(|_| Project::demo()).collect();
    for p in &projects {
        configure_with(p, &cache);
    }
    let running: Vec<std::process::Child> = projects
        .iter()
        .map(|p| {
            Command::new(ninja_program())
                .current_dir(p.root())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in running {
        assert!(child.wait().unwrap().success());
    }
    let reference = Project::demo();
    reference.build(&[]);
    for p in &projects {
        assert_eq!(reference.demo_outputs(), p.demo_outputs());
        p.assert_no_op();
    }
    let after = stats(&cache);
    assert_eq!(after.hits + after.misses, 3 * DEMO_CACHED_EDGES);
    assert_eq!(after.corrupt, 0);
    // What they stored together reads back whole.
    let warm = Project::demo();
    configure_with(&warm, &cache);
    warm.ninja(&[]).expect_ok("warm build");
    assert_eq!(stats(&cache).hits, after.hits + DEMO_CACHED_EDGES);
    assert_eq!(reference.demo_outputs(), warm.demo_outputs());
}

#[test]
fn a_cache_entry_naming_a_path_outside_the_output_is_refused() {
    let (_keep, cache) = cache_dir();
    let first = Project::demo();
    configure_with(&first, &cache);
    first.ninja(&[]).expect_ok("cold build");
    // Rewrite every action record, properly sealed, so its first file
    // lands two folders above the output root.
    let records: Vec<PathBuf> = walkdir::WalkDir::new(cache.join("v1/actions"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    for path in &records {
        let text = fs::read_to_string(path).unwrap();
        let mut record = assetc::cache::record::ActionRecord::parse(&text).unwrap();
        if let Some(file) = record.files.first_mut() {
            file.0 = "../../escaped.bin".into();
        }
        fs::write(path, record.render()).unwrap();
    }
    let second = Project::demo();
    configure_with(&second, &cache);
    let run = second.ninja(&[]).expect_ok("build over forged entries");
    assert!(
        run.stdout.contains("which it has a '.' or '..' component"),
        "{}",
        run.stdout
    );
    assert!(!second.path("escaped.bin").exists());
    assert!(!second.root().parent().unwrap().join("escaped.bin").exists());
    assert_eq!(stats(&cache).hits, 0);
    assert_eq!(first.demo_outputs(), second.demo_outputs());
}
