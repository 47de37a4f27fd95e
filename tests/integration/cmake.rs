//! The CMake integration, `tools/AssetC.cmake`, through Debian's `cmake`
//! and real Ninja.
//!
//! The example in `tests/cmake/` (a C "engine", `main.c`, and a tiny asset
//! project with a preset) is copied to a temporary folder and built with
//! `cmake -G Ninja` against the binaries cargo built. The tests check that
//! the engine prints exactly what the pack holds (read here with
//! `assetc::format`), that a second build does nothing at all, that editing
//! one asset re-encodes that asset alone and reaches the engine without
//! recompiling it, and that a broken `assetc.yml` fails CMake with assetc's
//! error naming the file.
//!
//! `$NINJA` chooses the Ninja (else `ninja` on the PATH); `cmake` must be on
//! the PATH (`tools/ensure-deps --for-tests` installs Debian's). One more
//! test builds the example with the Makefiles generator and `make -j2`, whose
//! jobserver the assets step must share: the encoders join it, and the token
//! log never counts more than make's 2 tokens.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::common::jobserver::{LOG_VAR, TokenLog, ninja_113, without_inherited_budget};
use crate::common::{ASSETC, Run};
use assetc::format::{hman, hpack};

/// The name the example gives `assetc_add_assets`, hence its output folder.
const TARGET: &str = "game_assets";
/// The asset the edit test changes: an embedded file, copied verbatim.
const EDITED_ASSET: &str = "assets/data/settings.json";

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of `tests/cmake/` and a CMake build folder beside it.
struct Example {
    dir: tempfile::TempDir,
}

impl Example {
    /// Copies the example's committed files (not a `build.ninja` a manual
    /// run may have left there).
    fn new() -> Self {
        let example = Self {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        let from = repo().join("tests/cmake");
        for entry in walkdir::WalkDir::new(&from) {
            let entry = entry.expect("walk tests/cmake");
            let rel = entry.path().strip_prefix(&from).expect("inside");
            let target = example.source().join(rel);
            if entry.file_type().is_dir() {
                fs::create_dir_all(&target).expect("create folder");
            } else if rel != Path::new("build.ninja") {
                fs::copy(entry.path(), &target).expect("copy example file");
            }
        }
        example
    }

    /// The copied example (the CMake source folder).
    fn source(&self) -> PathBuf {
        self.dir.path().join("src")
    }

    /// The CMake build folder.
    fn build_dir(&self) -> PathBuf {
        self.dir.path().join("build")
    }

    /// A path inside the CMake build folder.
    fn built(&self, rel: &str) -> PathBuf {
        self.build_dir().join(rel)
    }

    /// `cmake -G Ninja` for the example, pointing at the binaries under test.
    fn configure(&self) -> Run {
        let mut extra = Vec::new();
        if let Ok(ninja) = std::env::var("NINJA") {
            extra.push(format!("-DCMAKE_MAKE_PROGRAM={ninja}"));
        }
        self.configure_with("Ninja", &extra)
    }

    /// `cmake -G <generator> <extra>` for the example, pointing at the
    /// binaries under test.
    fn configure_with(&self, generator: &str, extra: &[String]) -> Run {
        let assetc_dir = Path::new(ASSETC).parent().expect("binary folder");
        let mut args = vec![
            "-G".to_string(),
            generator.to_string(),
            "-S".to_string(),
            path_arg(&self.source()),
            "-B".to_string(),
            path_arg(&self.build_dir()),
            format!("-DASSETC_ROOT={}", path_arg(assetc_dir)),
            format!("-DASSETC_MODULE_DIR={}", path_arg(&repo().join("tools"))),
        ];
        args.extend_from_slice(extra);
        cmake(&args)
    }

    /// `cmake --build` of the example.
    fn build(&self) -> Run {
        cmake(&["--build".to_string(), path_arg(&self.build_dir())])
    }

    /// Runs the engine the build linked and returns what it printed.
    fn run_engine(&self) -> String {
        let output = Command::new(self.built("engine"))
            .output()
            .expect("run the engine");
        let run = run_of(output).expect_ok("the engine");
        run.stdout
    }

    /// Rewrites a file of the example after a pause, so its new
    /// modification time is clearly later than the last build's.
    fn edit(&self, rel: &str, bytes: &[u8]) {
        std::thread::sleep(Duration::from_millis(50));
        fs::write(self.source().join(rel), bytes).expect("edit the example");
    }

    /// The modification time of every asset output and of the engine.
    fn output_times(&self) -> BTreeMap<String, SystemTime> {
        let build = self.build_dir();
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(self.built(TARGET))
            .into_iter()
            .map(|entry| entry.expect("walk the output folder"))
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| entry.into_path())
            .collect();
        files
            .extend(["game_assets.hpack", "game_assets.ui.hpack", "engine"].map(|f| build.join(f)));
        files
            .into_iter()
            .map(|path| {
                let time = fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let rel = path.strip_prefix(&build).expect("inside the build");
                (rel.to_string_lossy().into_owned(), time)
            })
            .collect()
    }

    /// What the engine must print for the pack the build wrote, computed
    /// with the Rust readers: the pack's entries, the manifest's entries,
    /// and every id of the generated `assets.h`.
    fn expected_listing(&self) -> String {
        let bytes = fs::read(self.built("game_assets.hpack")).expect("read the pack");
        let pack = hpack::parse(&bytes).expect("the pack parses");
        let mut text = format!("pack {}\n", pack.len());
        for entry in pack.iter() {
            let data = pack.data(&entry);
            let _ = writeln!(
                text,
                "entry {} {} {:016x} {}",
                entry.kind.name(),
                entry.size,
                fnv1a64(data),
                entry.path
            );
        }
        let manifest_entry = pack
            .find("assets.hman")
            .expect("the pack holds assets.hman");
        let manifest = hman::parse(pack.data(&manifest_entry)).expect("the manifest parses");
        let _ = writeln!(text, "manifest {}", manifest.len());
        for entry in manifest.iter() {
            let _ = writeln!(
                text,
                "asset {:016x} {} {}",
                entry.hash,
                entry.kind.name(),
                entry.path
            );
        }
        for (name, id) in self.generated_ids() {
            let found = manifest.find(id).is_some();
            let _ = writeln!(
                text,
                "id {name} {}",
                if found { "found" } else { "missing" }
            );
        }
        text
    }

    /// The `#define NAME UINT64_C(0x…)` lines of the generated `assets.h`,
    /// in file order (which is `ASSETC_ID_LIST`'s order).
    fn generated_ids(&self) -> Vec<(String, u64)> {
        let header = fs::read_to_string(self.built("game_assets/assets.h")).expect("assets.h");
        header
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix("#define ")?;
                let (name, value) = rest.split_once(" UINT64_C(0x")?;
                let hex = value.strip_suffix(')')?;
                Some((name.to_string(), u64::from_str_radix(hex, 16).ok()?))
            })
            .collect()
    }
}

/// A path as a command-line argument (the temp folders are UTF-8 here).
fn path_arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Runs `cmake <args>`, failing the test with a hint when it cannot start.
fn cmake(args: &[String]) -> Run {
    let output = Command::new("cmake")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run cmake ({e}); install Debian's cmake (tools/ensure-deps --for-tests)")
        });
    run_of(output)
}

/// A finished command as the harness's [`Run`].
fn run_of(output: std::process::Output) -> Run {
    Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// FNV-1a 64 of a payload, as `main.c` computes it.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The inner graph's encode edges in a build's output (`EMBED assets/…`),
/// told apart from the outer build's lines by their rule word.
fn encode_edges(run: &Run) -> Vec<String> {
    const RULES: [&str; 8] = [
        "TEXTURE", "LUT", "CUBEMAP", "ARRAY", "MESH", "FONT", "SHADER", "EMBED",
    ];
    run.edges()
        .into_iter()
        .filter(|desc| {
            RULES
                .iter()
                .any(|rule| desc.starts_with(&format!("{rule} ")))
        })
        .collect()
}

/// The files whose modification time differs between two snapshots.
fn changed(
    before: &BTreeMap<String, SystemTime>,
    after: &BTreeMap<String, SystemTime>,
) -> Vec<String> {
    let mut names: Vec<String> = after
        .iter()
        .filter(|(name, time)| before.get(*name) != Some(*time))
        .map(|(name, _)| name.clone())
        .collect();
    names.extend(
        before
            .keys()
            .filter(|name| !after.contains_key(*name))
            .cloned(),
    );
    names
}

#[test]
fn engine_reads_the_pack_cmake_built_and_rebuilds_only_what_changed() {
    let example = Example::new();
    example.configure().expect_ok("cmake configure");
    let first = example.build().expect_ok("first cmake --build");
    assert_eq!(
        encode_edges(&first).len(),
        4,
        "the first build encodes the icon, the box mesh, its texture and the embed:\n{}",
        first.stdout
    );
    assert_eq!(example.run_engine(), example.expected_listing());
    assert!(
        example.source().join("build.ninja").is_file(),
        "assetc writes build.ninja next to assetc.yml"
    );

    let before = example.output_times();
    let second = example.build().expect_ok("second cmake --build");
    assert!(
        second.stdout.contains("ninja: no work to do."),
        "the outer build must be a no-op:\n{}",
        second.stdout
    );
    assert!(
        !second.stdout.contains("Building assets"),
        "{}",
        second.stdout
    );
    assert_eq!(
        changed(&before, &example.output_times()),
        Vec::<String>::new()
    );

    let edited = br#"{ "title": "edited by the test", "lives": 9 }"#;
    example.edit(EDITED_ASSET, edited);
    let third = example.build().expect_ok("cmake --build after an edit");
    assert_eq!(
        encode_edges(&third),
        vec![format!("EMBED {EDITED_ASSET}")],
        "{}",
        third.stdout
    );
    assert_eq!(
        changed(&before, &example.output_times()),
        vec!["game_assets.hpack", "game_assets/data/settings.json"],
        "only the edited file and the pack holding it change; the ids (and so the engine) do not:\n{}",
        third.stdout
    );
    let bytes = fs::read(example.built("game_assets.hpack")).expect("read the pack");
    let pack = hpack::parse(&bytes).expect("the pack parses");
    let entry = pack
        .find("data/settings.json")
        .expect("the embed is packed");
    assert_eq!(pack.data(&entry), edited);
    assert_eq!(example.run_engine(), example.expected_listing());
}

#[test]
fn a_broken_config_fails_cmake_with_assetc_naming_the_file() {
    let example = Example::new();
    let config = example.source().join("assetc.yml");
    let good = fs::read(&config).expect("read assetc.yml");
    fs::write(&config, "input: assets\npack: [oops\n").expect("break assetc.yml");
    let run = example.configure();
    assert!(!run.ok, "cmake configure must fail:\n{}", run.stdout);
    let named = format!("assetc: error: {}:2:", config.display());
    assert!(
        run.stderr.contains(&named),
        "expected `{named}` in:\n{}",
        run.stderr
    );

    // A config broken after a good build fails `cmake --build` the same way,
    // and the last good outputs stay in place.
    fs::write(&config, &good).expect("repair assetc.yml");
    example.configure().expect_ok("cmake configure");
    example.build().expect_ok("cmake --build");
    example.edit("assetc.yml", b"input: assets\npresets: 7\n");
    let run = example.build();
    assert!(!run.ok, "cmake --build must fail:\n{}", run.stdout);
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(
        output.contains(&format!("assetc: error: {}", config.display())),
        "expected assetc's error naming {} in:\n{output}",
        config.display()
    );
    assert!(example.built("game_assets.hpack").is_file());
}

#[test]
fn under_make_the_assets_step_shares_makes_jobserver() {
    let example = Example::new();
    let ninja = format!("-DASSETC_NINJA_EXECUTABLE={}", path_arg(&ninja_113()));
    example
        .configure_with("Unix Makefiles", &[ninja])
        .expect_ok("cmake -G 'Unix Makefiles'");
    let scratch = tempfile::tempdir().expect("temp dir");
    let log_path = scratch.path().join("tokens.log");
    let mut make = Command::new("make");
    make.args(["-j2", "-C"])
        .arg(example.build_dir())
        .env(LOG_VAR, &log_path);
    let output = without_inherited_budget(&mut make)
        .output()
        .expect("run make");
    let build = run_of(output).expect_ok("make -j2");
    assert_eq!(example.run_engine(), example.expected_listing());
    let detected = build
        .stdout
        .lines()
        .find(|line| line.contains("Jobserver mode detected"));
    assert!(
        detected.is_some_and(|line| !line.contains("assetc-jobserver-")),
        "the inner Ninja 1.13 must take its edges from make's jobserver, not from a pool of \
         assetc build's own:\n{}",
        build.stdout
    );
    let log = TokenLog::read(&log_path);
    let modes = log.start_modes();
    assert!(
        !modes.is_empty() && modes.values().all(|mode| mode == "jobserver"),
        "every assetc process joins make's jobserver: {modes:?}\n{}",
        build.stdout
    );
    log.assert_within(2, "make -j2");
}
