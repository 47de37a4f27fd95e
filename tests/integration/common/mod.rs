//! Shared harness for the integration tests: temporary projects, generated
//! source images, and runs of the real `assetc` binaries and the real `ninja`.

pub mod jobserver;
pub mod reapi;
pub mod relay;
pub mod shared;
pub mod watch;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// The `assetc` binary under test.
pub const ASSETC: &str = env!("CARGO_BIN_EXE_assetc");
/// The `assetc-link` binary under test.
pub const LINK: &str = env!("CARGO_BIN_EXE_assetc-link");

/// A project in a temporary folder.
pub struct Project {
    dir: tempfile::TempDir,
}

/// The result of one command.
pub struct Run {
    /// Exit status was zero.
    pub ok: bool,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Self {
        Self {
            ok: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Panics with both streams unless the command succeeded.
    pub fn expect_ok(self, what: &str) -> Self {
        assert!(self.ok, "{what} failed:\n{}\n{}", self.stdout, self.stderr);
        self
    }

    /// The descriptions of the edges Ninja ran (`[1/3] TEXTURE a.png`).
    pub fn edges(&self) -> Vec<String> {
        self.stdout
            .lines()
            .filter_map(|l| l.strip_prefix('[').and_then(|r| r.split_once("] ")))
            .map(|(_, desc)| desc.to_string())
            .collect()
    }
}

impl Project {
    /// An empty project with the given config.
    pub fn new(config: &str) -> Self {
        let project = Self {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        project.write("assetc.yml", config.as_bytes());
        fs::create_dir_all(project.path("assets")).unwrap();
        project
    }

    /// A copy of the repository's demo project.
    pub fn demo() -> Self {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let project = Self::new(&fs::read_to_string(repo.join("assetc.yml")).unwrap());
        copy_tree(&repo.join("assets"), &project.path("assets"));
        copy_tree(
            &repo.join("tools/processors"),
            &project.path("tools/processors"),
        );
        project
    }

    /// A copy of the demo, configured with `--pack` and built. Tests that
    /// only read the build share one: [`shared::demo`].
    pub fn built_demo() -> Self {
        let project = Self::demo();
        project.build(&["--pack"]);
        project
    }

    /// The project folder.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the project.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a file (creating folders).
    pub fn write(&self, rel: &str, bytes: &[u8]) {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    /// Writes a generated RGBA PNG whose pixels depend on `seed`.
    pub fn png(&self, rel: &str, width: u32, height: u32, seed: u8) {
        self.write(rel, &rgba_png(width, height, seed));
    }

    /// Rewrites a file with its own bytes, as an editor save would, so the
    /// kernel stamps the new modification time. (Setting the time by hand is
    /// subtly wrong: `SystemTime::now()` reads a finer clock than the one the
    /// kernel stamps files with, and Ninja 1.12+ compares inputs with a
    /// kernel-stamped start time, so a hand-set time can look newer than a
    /// build that ran after it.)
    pub fn touch(&self, rel: &str) {
        std::thread::sleep(Duration::from_millis(20));
        let path = self.path(rel);
        fs::write(&path, fs::read(&path).unwrap()).unwrap();
    }

    /// Runs `assetc <args>` in the project folder.
    pub fn assetc(&self, args: &[&str]) -> Run {
        self.run(ASSETC, args)
    }

    /// Runs `assetc-link <args>` in the project folder.
    pub fn link(&self, args: &[&str]) -> Run {
        self.run(LINK, args)
    }

    /// Runs `ninja <args>` in the project folder. A build of the default
    /// targets that succeeds must also pass `ninja check` (`assetc-link
    /// check` with the build's own arguments): a green build never ships
    /// output that its own check refuses.
    pub fn ninja(&self, args: &[&str]) -> Run {
        self.ninja_with(&[], args)
    }

    /// [`Project::ninja`] with extra environment variables for the build.
    pub fn ninja_with(&self, env: &[(&str, &str)], args: &[&str]) -> Run {
        let run = self.run_with(&ninja_program(), env, args);
        if run.ok && builds_default_targets(args) && self.path("build.ninja").exists() {
            let check = self.run(&ninja_program(), &["check"]);
            assert!(
                check.ok,
                "ninja {args:?} succeeded but its output fails the check:\n{}{}\nthe build printed:\n{}{}",
                check.stdout, check.stderr, run.stdout, run.stderr
            );
        }
        run
    }

    /// `assetc configure` followed by `ninja`, both expected to succeed.
    pub fn build(&self, configure_args: &[&str]) -> Run {
        let mut args = vec!["configure"];
        args.extend_from_slice(configure_args);
        self.assetc(&args).expect_ok("assetc configure");
        self.ninja(&[]).expect_ok("ninja")
    }

    /// Runs `assetc configure`, which must fail without writing `build.ninja`,
    /// and returns its standard error.
    pub fn configure_error(&self) -> String {
        let run = self.assetc(&["configure"]);
        let config = fs::read_to_string(self.path("assetc.yml")).unwrap_or_default();
        assert!(!run.ok, "configure must fail for:\n{config}");
        assert!(!self.path("build.ninja").exists());
        run.stderr
    }

    /// Asserts that `ninja -n` has nothing to do.
    pub fn assert_no_op(&self) {
        let run = self.ninja(&["-n", "-d", "explain"]).expect_ok("ninja -n");
        assert!(
            run.stdout.contains("no work to do"),
            "expected a no-op build:\n{}{}",
            run.stdout,
            run.stderr
        );
    }

    /// Every file below `rel`, by relative path, with its bytes.
    pub fn tree(&self, rel: &str) -> BTreeMap<String, Vec<u8>> {
        let base = self.path(rel);
        walkdir::WalkDir::new(&base)
            .sort_by_file_name()
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let name = e.path().strip_prefix(&base).unwrap();
                (
                    name.to_string_lossy().replace('\\', "/"),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    }

    /// What a build of the demo wrote for the game, by path: the preset's
    /// output folder and its three packs.
    pub fn demo_outputs(&self) -> BTreeMap<String, Vec<u8>> {
        let mut all = self.tree("runtime");
        for name in [
            "desktop.hpack",
            "desktop.level1.hpack",
            "desktop.preload.hpack",
        ] {
            if let Ok(bytes) = fs::read(self.path("runtime").join(name)) {
                all.insert(name.to_owned(), bytes);
            }
        }
        all
    }

    /// Every file below the project, by relative path, that is a temporary
    /// file a writer should have renamed or removed: an output's
    /// `.assetc-tmp-` file, or a `*.tmp` scratch file.
    pub fn temporary_files(&self) -> Vec<String> {
        walkdir::WalkDir::new(self.root())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy();
                name.starts_with(assetc::fsutil::TEMP_PREFIX) || name.ends_with(".tmp")
            })
            .map(|e| {
                let name = e.path().strip_prefix(self.root()).unwrap();
                name.to_string_lossy().replace('\\', "/")
            })
            .collect()
    }

    fn run(&self, program: &str, args: &[&str]) -> Run {
        self.run_with(program, &[], args)
    }

    fn run_with(&self, program: &str, env: &[(&str, &str)], args: &[&str]) -> Run {
        let output = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .current_dir(self.root())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        Run::from(output)
    }
}

/// Whether `ninja <args>` builds the default targets: no target named, no
/// tool (`-t`), no dry run (`-n`).
fn builds_default_targets(args: &[&str]) -> bool {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match *word {
            "-n" | "-t" => return false,
            // Options whose value is the next word.
            "-j" | "-k" | "-l" | "-d" | "-w" => {
                words.next();
            }
            option if option.starts_with('-') => {}
            _target => return false,
        }
    }
    true
}

/// The Ninja to test with: `$NINJA` or `ninja` on the PATH.
pub fn ninja_program() -> String {
    std::env::var("NINJA").unwrap_or_else(|_| "ninja".into())
}

/// CRC-32 as PNG chunks use it (reflected, polynomial 0xEDB88320), for
/// tests that hand-edit PNG chunks.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let carry = crc & 1;
            crc = (crc >> 1) ^ (0xEDB8_8320 * carry);
        }
    }
    !crc
}

/// Encodes an RGBA8 PNG with a deterministic pattern.
pub fn rgba_png(width: u32, height: u32, seed: u8) -> Vec<u8> {
    let pixels = pattern(width, height, seed);
    png_of(width, height, |x, y| {
        let at = ((y * width + x) * 4) as usize;
        [pixels[at], pixels[at + 1], pixels[at + 2], pixels[at + 3]]
    })
}

/// Two presets that differ only in the platform `format: auto` targets.
pub const NATIVE_PRESETS: &str = r#"
input: assets
output: runtime
embed: ["data/*.json"]
default:
  texture: { zstd_level: 3 }
presets:
  desktop:
    output: runtime/desktop
    texture: { format: auto, platform: desktop }
  mobile:
    output: runtime/mobile
    texture: { format: auto, platform: mobile }
"#;

/// An RGBA PNG of `width` x `height` whose texel at (x, y) is `texel(x, y)`.
pub fn png_of(width: u32, height: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| texel(i % width, i / width))
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&pixels).unwrap();
    writer.finish().unwrap();
    out
}

/// The RGBA pixels [`rgba_png`] encodes.
pub fn pattern(width: u32, height: u32, seed: u8) -> Vec<u8> {
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let (x, y) = (x as u8, y as u8);
            pixels.extend_from_slice(&[
                x.wrapping_mul(7) ^ seed,
                y.wrapping_mul(13).wrapping_add(seed),
                x ^ y,
                255 - seed,
            ]);
        }
    }
    pixels
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Compares `actual` with `tests/data/golden/<name>`, or rewrites the golden
/// file first when `ASSETC_BLESS` is set. Text files report the first line
/// that differs.
pub fn assert_golden(actual: &[u8], name: &str) {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/golden")
        .join(name);
    if std::env::var_os("ASSETC_BLESS").is_some() {
        fs::create_dir_all(golden.parent().unwrap()).unwrap();
        fs::write(&golden, actual).unwrap();
    }
    let expected = fs::read(&golden).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with ASSETC_BLESS=1 to create it)",
            golden.display()
        )
    });
    if actual == expected {
        return;
    }
    let first_difference = std::str::from_utf8(actual)
        .ok()
        .zip(std::str::from_utf8(&expected).ok())
        .and_then(|(a, e)| {
            a.lines()
                .zip(e.lines())
                .enumerate()
                .find(|(_, (a, e))| a != e)
                .map(|(n, (a, e))| format!("\nline {}:\n  got:      {a}\n  expected: {e}", n + 1))
        })
        .unwrap_or_default();
    panic!(
        "output differs from {} ({} vs {} bytes); if the change is intended, re-run with ASSETC_BLESS=1{first_difference}",
        golden.display(),
        actual.len(),
        expected.len()
    );
}
