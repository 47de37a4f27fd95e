//! `assetc pack diff` and `assetc pack patch` through the real binaries, over
//! two packs that real builds of one project wrote before and after an edit
//! (files embedded with `embed:` rules, a few hundred KiB of pseudo-random
//! bytes each, so the chunk figures have several chunks to count):
//!
//! - the diff of the two, text and JSON, against figures worked out by hand
//!   from the pack layout, and the diff of a pack with itself;
//! - the patch pack mounted above its base resolves exactly the new tree, in
//!   Rust (`format::patch::PatchedPack`) and in C (`tests/c/read_pack.c
//!   --patch`, through `assetc_pack_layered_find`), and the C lookup refuses
//!   exactly the damaged removed lists the Rust reader refuses;
//! - hostile inputs (a truncated base, a file that is no pack, overlapping
//!   entries, the reserved `assets.removed` in the new pack, a patch as the
//!   base, a missing file) fail naming the file and leave no output.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::c_header::sanitized_read_pack;
use crate::common::{Project, crc32, rgba_png, shared};
use crate::image_sources::noise_rgba8;
use assetc::format::hpack::{self, Pack, PackItem};
use assetc::format::patch::{Layer, PatchedPack};
use assetc::format::removed::REMOVED_LIST_PATH;

/// Every file below `assets/data/` is embedded; the build also packs.
const CONFIG: &str = "pack: true\nembed: [\"data/*\"]\n";

/// `kib` KiB of xorshift noise from `seed`: no two 64 KiB runs alike.
fn noise(kib: u32, seed: u32) -> Vec<u8> {
    noise_rgba8(256, kib, seed)
}

/// Where, in `data/edit.bin`, the edit flips a byte.
const EDITED_BYTE: usize = 100_000;

/// The project and the two packs its builds wrote: `old.hpack` from
/// `data/{edit,keep,zold}.bin`, then `new.hpack` after flipping one byte of
/// `edit.bin`, deleting `zold.bin` (64 KiB) and adding `znew.bin` (96 KiB).
struct Packs {
    project: Project,
}

impl Packs {
    /// The pack built before the edit.
    fn old_pack(&self) -> PathBuf {
        self.project.path("old.hpack")
    }

    /// The pack built after it.
    fn new_pack(&self) -> PathBuf {
        self.project.path("new.hpack")
    }

    /// Runs `assetc <args>` in the project folder.
    fn assetc(&self, args: &[&str]) -> crate::common::Run {
        self.project.assetc(args)
    }
}

/// The two builds, made once for the module's tests, which only read them.
fn packs() -> &'static Packs {
    static PACKS: OnceLock<Packs> = OnceLock::new();
    PACKS.get_or_init(|| {
        let project = Project::new(CONFIG);
        let edit = noise(192, 1);
        project.write("assets/data/edit.bin", &edit);
        project.write("assets/data/keep.bin", &noise(320, 2));
        project.write("assets/data/zold.bin", &noise(64, 3));
        project.build(&[]);
        std::fs::copy(project.path("runtime.hpack"), project.path("old.hpack")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut edited = edit;
        edited[EDITED_BYTE] ^= 0xff;
        project.write("assets/data/edit.bin", &edited);
        std::fs::remove_file(project.path("assets/data/zold.bin")).unwrap();
        project.write("assets/data/znew.bin", &noise(96, 4));
        project.ninja(&[]).expect_ok("ninja after the edit");
        std::fs::copy(project.path("runtime.hpack"), project.path("new.hpack")).unwrap();
        let root = project.root().to_owned();
        shared::at_exit(move || {
            let _ = std::fs::remove_dir_all(root);
        });
        Packs { project }
    })
}

/// The diff of the two builds, worked out by hand.
///
/// Both packs hold `assets.hman` and three files whose paths are 13 bytes
/// long, so their TOCs are 4 × 19 + 11 + 3 × 13 = 126 bytes and end at 150;
/// the manifest (16 + 3 × (12 + 13) = 91 bytes, other ids and paths after
/// the edit) sits at 160, `edit.bin` at 256 (to 196,864), `keep.bin` right
/// after it (to 524,544), then `zold.bin` or `znew.bin`. NEW is 622,848
/// bytes: ten 64 KiB chunks, the last one 33,024 bytes. Chunk 0 holds the
/// manifest, chunk 1 the flipped byte (256 + 100,000), chunks 8 and 9 the
/// start and rest of `znew.bin`; chunks 2 to 7 are bytes of `edit.bin` and
/// `keep.bin` at the same offsets in OLD. One 1 MiB chunk: the whole file.
fn expected_diff() -> serde_json::Value {
    serde_json::json!({
        "schema": "assetc-pack-diff/1",
        "old": { "pack": "old.hpack", "entries": 4, "bytes": 590_080 },
        "new": { "pack": "new.hpack", "entries": 4, "bytes": 622_848 },
        "added": [ { "path": "data/znew.bin", "kind": "other", "size": 98_304 } ],
        "removed": [ { "path": "data/zold.bin", "kind": "other", "size": 65_536 } ],
        "changed": [
            { "path": "assets.hman", "kind": "manifest", "old_size": 91, "new_size": 91 },
            { "path": "data/edit.bin", "kind": "other", "old_size": 196_608, "new_size": 196_608 }
        ],
        "unchanged": { "entries": 1, "bytes": 327_680 },
        "patch_bytes": 98_304 + 91 + 196_608,
        "chunks": [
            { "chunk_size": 65_536, "chunks": 10, "shipped": 4, "shipped_bytes": 3 * 65_536 + 33_024 },
            { "chunk_size": 1_048_576, "chunks": 1, "shipped": 1, "shipped_bytes": 622_848 }
        ]
    })
}

/// The text of the same diff.
const EXPECTED_TEXT: &str = "\
old.hpack -> new.hpack
             entries      bytes
  old              4  576.2 KiB
  new              4  608.2 KiB
  added            1   96.0 KiB
  removed          1   64.0 KiB
  changed          2  192.1 KiB (was 192.1 KiB)
  unchanged        1  320.0 KiB
patch payload (added + changed): 288.1 KiB (295003 B)
chunks of 64.0 KiB: 4 of 10 shipped, 224.2 KiB (229632 B)
chunks of 1.0 MiB: 1 of 1 shipped, 608.2 KiB (622848 B)
added:
  other      data/znew.bin  98304 B
removed:
  other      data/zold.bin  65536 B
changed:
  manifest   assets.hman    91 B -> 91 B
  other      data/edit.bin  196608 B -> 196608 B
";

#[test]
fn diff_reports_what_changed_and_what_a_chunk_patcher_ships() {
    let packs = packs();
    let run = packs
        .assetc(&["pack", "diff", "old.hpack", "new.hpack", "--json"])
        .expect_ok("pack diff --json");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report, expected_diff());
    let run = packs
        .assetc(&["pack", "diff", "old.hpack", "new.hpack"])
        .expect_ok("pack diff");
    assert_eq!(run.stdout, EXPECTED_TEXT);
}

#[test]
fn a_pack_diffed_with_itself_is_all_unchanged_and_ships_nothing() {
    let run = packs()
        .assetc(&["pack", "diff", "new.hpack", "new.hpack", "--json"])
        .expect_ok("pack diff of one pack");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for list in ["added", "removed", "changed"] {
        assert_eq!(report[list], serde_json::json!([]), "{list}");
    }
    assert_eq!(report["unchanged"]["entries"], 4);
    assert_eq!(report["patch_bytes"], 0);
    for figures in report["chunks"].as_array().unwrap() {
        assert_eq!(
            (&figures["shipped"], &figures["shipped_bytes"]),
            (&0.into(), &0.into())
        );
    }
}

/// Runs `assetc pack patch --base BASE NEW -o OUTPUT` in the project.
fn patch_run(base: &Path, new: &Path, output: &Path) -> crate::common::Run {
    let [base, new, output] = [base, new, output].map(|p| p.to_str().unwrap().to_owned());
    packs().assetc(&["pack", "patch", "--base", &base, &new, "-o", &output])
}

/// Every path either pack holds, and two that neither does.
fn candidate_paths(packs: &[&Pack<'_>]) -> BTreeSet<String> {
    let mut paths: BTreeSet<String> = packs
        .iter()
        .flat_map(|pack| pack.iter().map(|entry| entry.path.to_owned()))
        .collect();
    paths.extend([REMOVED_LIST_PATH.to_owned(), "data/nowhere.bin".to_owned()]);
    paths
}

/// What `read_pack --patch` prints for `paths`, from the Rust lookup.
fn expected_lookups(mounted: &PatchedPack<'_>, paths: &BTreeSet<String>) -> String {
    let mut out = String::new();
    for path in paths {
        let _ = match mounted.find(path) {
            None => writeln!(out, "missing {path}"),
            Some(found) => writeln!(
                out,
                "found {} {} {} {:08x} {path}",
                if found.layer == Layer::Patch {
                    "patch"
                } else {
                    "base"
                },
                found.entry.offset,
                found.entry.size,
                crc32(found.data)
            ),
        };
    }
    out
}

/// Runs `read_pack --patch PATCH BASE` with `paths` on standard input:
/// its exit code and output.
fn c_lookups(exe: &Path, patch: &Path, base: &Path, paths: &BTreeSet<String>) -> (i32, String) {
    let mut child = Command::new(exe)
        .arg("--patch")
        .args([patch, base])
        .env("ASAN_OPTIONS", "detect_leaks=0:exitcode=86")
        .env("UBSAN_OPTIONS", "halt_on_error=1:exitcode=87")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = paths.iter().map(|path| format!("{path}\n")).collect();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let code = output.status.code().expect("read_pack ended by a signal");
    assert!(
        code == 0 || (code == 1 && output.stderr.starts_with(b"read_pack: ")),
        "read_pack ended with {code}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (code, String::from_utf8(output.stdout).unwrap())
}

#[test]
fn a_patch_over_its_base_resolves_exactly_the_new_tree_in_rust_and_in_c() {
    let packs = packs();
    let scratch = tempfile::tempdir().unwrap();
    let output = scratch.path().join("patch.hpack");
    let run = patch_run(&packs.old_pack(), &packs.new_pack(), &output).expect_ok("pack patch");
    let summary = format!("{}: 1 added, 2 changed, 1 removed, ", output.display());
    assert!(
        run.stdout.starts_with(&format!("assetc: wrote {summary}")),
        "{}",
        run.stdout
    );
    let again =
        patch_run(&packs.old_pack(), &packs.new_pack(), &output).expect_ok("pack patch again");
    assert!(
        again
            .stdout
            .starts_with(&format!("assetc: unchanged {summary}")),
        "{}",
        again.stdout
    );

    let [old_bytes, new_bytes, patch_bytes] = [packs.old_pack(), packs.new_pack(), output.clone()]
        .map(|path| std::fs::read(path).unwrap());
    let (old, new) = (
        hpack::parse(&old_bytes).unwrap(),
        hpack::parse(&new_bytes).unwrap(),
    );
    let patch = hpack::parse(&patch_bytes).unwrap();
    let held: Vec<&str> = patch.iter().map(|entry| entry.path).collect();
    assert_eq!(
        held,
        [
            "assets.hman",
            "assets.removed",
            "data/edit.bin",
            "data/znew.bin"
        ]
    );
    let list = patch.find(REMOVED_LIST_PATH).unwrap();
    assert_eq!(patch.data(&list), b"data/zold.bin\n");

    let mounted = PatchedPack::new(patch.clone(), old.clone()).unwrap();
    let paths = candidate_paths(&[&old, &new, &patch]);
    for path in &paths {
        let resolved = mounted.find(path).map(|f| (f.entry.kind, f.data));
        let wanted = new.find(path).map(|e| (e.kind, new.data(&e)));
        assert!(
            resolved == wanted,
            "{path} resolves to another entry than NEW's"
        );
    }
    assert_eq!(mounted.find("data/keep.bin").unwrap().layer, Layer::Base);

    let exe = sanitized_read_pack(scratch.path());
    let (code, listing) = c_lookups(&exe, &output, &packs.old_pack(), &paths);
    assert_eq!(code, 0);
    assert_eq!(listing, expected_lookups(&mounted, &paths));
    packs
        .assetc(&["pack", "info", output.to_str().unwrap()])
        .expect_ok("pack info of the patch");
}

/// `patch` with `list` as its removed list.
fn patch_with_list(patch: &Pack<'_>, list: &[u8]) -> Vec<u8> {
    let items: Vec<PackItem<'_>> = patch
        .iter()
        .map(|entry| PackItem {
            path: entry.path,
            kind: entry.kind,
            data: if entry.path == REMOVED_LIST_PATH {
                list
            } else {
                patch.data(&entry)
            },
        })
        .collect();
    hpack::write_pack(&items).unwrap()
}

#[test]
fn the_c_lookup_refuses_exactly_the_removed_lists_rust_refuses() {
    let packs = packs();
    let scratch = tempfile::tempdir().unwrap();
    let exe = sanitized_read_pack(scratch.path());
    let [old_bytes, new_bytes] =
        [packs.old_pack(), packs.new_pack()].map(|p| std::fs::read(p).unwrap());
    let (old, new) = (
        hpack::parse(&old_bytes).unwrap(),
        hpack::parse(&new_bytes).unwrap(),
    );
    let list = b"data/gone.bin\ndata/zold.bin\n";
    let mut lists: Vec<Vec<u8>> = (0..list.len()).map(|len| list[..len].to_vec()).collect();
    for at in 0..list.len() {
        for value in [0x00, b'\n', b'.', 0xff, b'A'] {
            let mut damaged = list.to_vec();
            damaged[at] = value;
            lists.push(damaged);
        }
    }
    let real_patch = assetc::format::patch::write_patch(&old, &new)
        .unwrap()
        .bytes;
    let real_patch = hpack::parse(&real_patch).unwrap();
    let file = scratch.path().join("patch.hpack");
    let (mut accepted, mut refused) = (0, 0);
    for bytes in &lists {
        let patch_bytes = patch_with_list(&real_patch, bytes);
        std::fs::write(&file, &patch_bytes).unwrap();
        let patch = hpack::parse(&patch_bytes).unwrap();
        let paths = candidate_paths(&[&old, &new, &patch]);
        let (code, listing) = c_lookups(&exe, &file, &packs.old_pack(), &paths);
        let shown = String::from_utf8_lossy(bytes);
        match PatchedPack::new(patch, old.clone()) {
            Ok(mounted) => {
                assert_eq!(code, 0, "C refuses the list {shown:?}");
                assert_eq!(listing, expected_lookups(&mounted, &paths), "{shown:?}");
                accepted += 1;
            }
            Err(error) => {
                assert_eq!(code, 1, "C accepts the list {shown:?}, Rust: {error}");
                refused += 1;
            }
        }
    }
    assert!(
        accepted > 5 && refused > lists.len() / 2,
        "{accepted} accepted, {refused} refused"
    );
}

/// One hostile case: the base and new packs' bytes, the file an error must
/// name (`"base"` or `"new"`), and what it must say.
struct Hostile {
    name: &'static str,
    base: Vec<u8>,
    new: Vec<u8>,
    blamed: &'static str,
    says: &'static str,
    /// Whether `pack diff` refuses it too (the reserved name is no fault of
    /// a pack as such).
    diff_refuses: bool,
}

/// The hostile cases, built from the two packs.
fn hostile_cases(old: &[u8], new: &[u8]) -> Vec<Hostile> {
    let case = |name, base: &[u8], new: &[u8], blamed, says, diff_refuses| Hostile {
        name,
        base: base.to_vec(),
        new: new.to_vec(),
        blamed,
        says,
        diff_refuses,
    };
    // The second TOC record (after the 30-byte record of `assets.hman`)
    // pointed at the manifest's payload with its own size: an overlap.
    let mut overlapping = new.to_vec();
    overlapping[24 + 30..][..8].copy_from_slice(&160u64.to_le_bytes());
    let new_pack = hpack::parse(new).unwrap();
    let mut items: Vec<PackItem<'_>> = new_pack
        .iter()
        .map(|e| PackItem {
            path: e.path,
            kind: e.kind,
            data: new_pack.data(&e),
        })
        .collect();
    items.push(PackItem::new(REMOVED_LIST_PATH, b"data/x.bin\n"));
    let reserved = hpack::write_pack(&items).unwrap();
    let old_pack = hpack::parse(old).unwrap();
    let a_patch = assetc::format::patch::write_patch(&old_pack, &new_pack)
        .unwrap()
        .bytes;
    vec![
        case(
            "truncated base",
            &old[..old.len() / 2],
            new,
            "base",
            "PackEntry.size",
            true,
        ),
        case(
            "not a pack",
            old,
            &rgba_png(4, 4, 1),
            "new",
            "PackHeader.magic",
            true,
        ),
        case(
            "overlapping entries",
            old,
            &overlapping,
            "new",
            "overlaps",
            true,
        ),
        case(
            "reserved name in new",
            old,
            &reserved,
            "new",
            "reserved",
            false,
        ),
        case(
            "a patch as base",
            &a_patch,
            new,
            "base",
            "patch pack itself",
            false,
        ),
    ]
}

#[test]
fn hostile_inputs_fail_naming_the_file_and_leave_no_output() {
    let packs = packs();
    let [old, new] = [packs.old_pack(), packs.new_pack()].map(|p| std::fs::read(p).unwrap());
    for case in hostile_cases(&old, &new) {
        let scratch = tempfile::tempdir().unwrap();
        let base = scratch.path().join("base.hpack");
        let new = scratch.path().join("new.hpack");
        std::fs::write(&base, &case.base).unwrap();
        std::fs::write(&new, &case.new).unwrap();
        let blamed = if case.blamed == "base" { &base } else { &new };
        let output = scratch.path().join("out/patch.hpack");
        let run = patch_run(&base, &new, &output);
        let name = case.name;
        assert!(!run.ok, "{name}: pack patch succeeded");
        let error = format!("assetc: error: {}: ", blamed.display());
        assert!(run.stderr.starts_with(&error), "{name}: {}", run.stderr);
        assert!(run.stderr.contains(case.says), "{name}: {}", run.stderr);
        assert!(
            !output.exists() && !output.parent().unwrap().exists(),
            "{name}: output left"
        );
        let [base, new] = [&base, &new].map(|p| p.to_str().unwrap());
        let diff = packs.assetc(&["pack", "diff", base, new]);
        assert_eq!(
            !diff.ok, case.diff_refuses,
            "{name}: pack diff\n{}",
            diff.stderr
        );
        if case.diff_refuses {
            assert!(diff.stderr.starts_with(&error), "{name}: {}", diff.stderr);
            assert!(diff.stderr.contains("offset "), "{name}: {}", diff.stderr);
            assert!(diff.stdout.is_empty(), "{name}: {}", diff.stdout);
        }
    }
    let scratch = tempfile::tempdir().unwrap();
    let missing = scratch.path().join("missing.hpack");
    let output = scratch.path().join("patch.hpack");
    let run = patch_run(&missing, &packs.new_pack(), &output);
    assert!(
        !run.ok && run.stderr.contains("missing.hpack: cannot read"),
        "{}",
        run.stderr
    );
    assert!(!output.exists());
}
