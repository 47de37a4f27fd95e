//! The two-level, incremental link through the real binaries and Ninja: after
//! an edit, an added or a removed asset in a project of several folders, the
//! manifest, the single pack, the named packs and the id files are byte for
//! byte those of a clean build of the same tree; and the incremental path was
//! really taken (the parts of untouched folders keep their time stamps, the
//! manifest step is skipped when the set of assets is kept, and the packs
//! reuse their previous entries, as the `ASSETC_LINK_STATS` lines say).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::common::{Project, Run, ninja_program};

const CONFIG: &str = r#"
pack: true
embed: ["data/*"]
default:
  texture: { compress: false, mips: false }
packs:
  first: ["ui/*"]
  data: ["data/*", "ui/icons/*"]
"#;

/// What a build produces for the game, compared byte for byte.
const LINKED: &[&str] = &[
    "runtime/assets.hman",
    "runtime.hpack",
    "runtime.first.hpack",
    "runtime.data.hpack",
    "runtime/assets.h",
    "runtime/assets.rs",
];

/// Four folders, one of them nested, two named packs (`data` takes a folder
/// and a subfolder of `ui`).
fn project() -> Project {
    let p = Project::new(CONFIG);
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        p.png(&format!("assets/ui/{name}.png"), 4, 4, i as u8);
        p.png(&format!("assets/world/{name}.png"), 4, 4, 10 + i as u8);
    }
    p.png("assets/ui/icons/x.png", 4, 4, 20);
    p.write("assets/data/story.json", b"{\"chapter\": 1}\n");
    p.write("assets/data/names.txt", b"ada\nlin\n");
    p
}

/// Runs `ninja` with the link statistics on.
fn ninja_with_stats(p: &Project) -> Run {
    let output = Command::new(ninja_program())
        .env("ASSETC_LINK_STATS", "1")
        .current_dir(p.root())
        .output()
        .expect("run ninja");
    let run = Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    run.expect_ok("ninja")
}

/// The statistics line a pack link printed for `pack`.
fn pack_stats<'a>(run: &'a Run, pack: &str) -> &'a str {
    let prefix = format!("assetc-link: {pack}: ");
    run.stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no statistics for {pack}:\n{}", run.stdout))
}

/// The entries part and the full part of every folder, by folder.
fn parts_by_folder(p: &Project) -> BTreeMap<String, (PathBuf, PathBuf)> {
    let read_list = |name: &str| -> Vec<PathBuf> {
        fs::read_to_string(p.path(&format!(".assetc/default/link/{name}")))
            .unwrap()
            .lines()
            .map(|l| p.path(l))
            .collect()
    };
    let entries = read_list("entries.list");
    let full = read_list("parts.list");
    assert_eq!(entries.len(), full.len());
    entries
        .into_iter()
        .zip(full)
        .map(|(entries, full)| {
            let text = fs::read_to_string(&entries).unwrap();
            let source = text
                .lines()
                .find_map(|l| l.strip_prefix("source "))
                .expect("a part names its sources")
                .to_owned();
            let folder = source.rsplit_once('/').map_or("", |(f, _)| f).to_owned();
            (folder, (entries, full))
        })
        .collect()
}

fn mtime(path: &Path) -> SystemTime {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The modification times of every part, by folder.
fn part_times(p: &Project) -> BTreeMap<String, (SystemTime, SystemTime)> {
    parts_by_folder(p)
        .into_iter()
        .map(|(folder, (entries, full))| (folder, (mtime(&entries), mtime(&full))))
        .collect()
}

/// Lets the next write get a later time stamp than the last build's files.
fn pause() {
    std::thread::sleep(Duration::from_millis(20));
}

/// Builds a fresh copy of `p`'s config and sources at `-j1` and asserts that
/// every linked file and the output folder equal `p`'s, byte for byte.
fn assert_same_as_clean_build(p: &Project) {
    let clean = Project::new(&fs::read_to_string(p.path("assetc.yml")).unwrap());
    for (rel, bytes) in p.tree("assets") {
        clean.write(&format!("assets/{rel}"), &bytes);
    }
    clean.assetc(&["configure"]).expect_ok("configure");
    clean.ninja(&["-j1"]).expect_ok("clean ninja -j1");
    for file in LINKED {
        assert!(
            fs::read(p.path(file)).unwrap() == fs::read(clean.path(file)).unwrap(),
            "{file} differs from a clean build's"
        );
    }
    assert!(p.tree("runtime") == clean.tree("runtime"));
    p.link(&["check"]).expect_ok("check");
}

#[test]
fn an_edit_re_merges_one_folder_and_reuses_every_other_pack_entry() {
    let p = project();
    p.build(&[]);
    let before = part_times(&p);
    let ids_before = mtime(&p.path("runtime/assets.h"));
    pause();
    p.png("assets/world/b.png", 4, 4, 99);
    let run = ninja_with_stats(&p);
    let edges = run.edges();
    assert!(
        edges.contains(&"MANIFEST PART assets/world/".to_string()),
        "{edges:?}"
    );
    assert!(
        !edges.iter().any(|e| e.starts_with("MANIFEST runtime")
            || e.starts_with("IDS")
            || e.starts_with("MANIFEST PART assets/ui/")),
        "the set of assets is the same, so the manifest and ids steps are skipped: {edges:?}"
    );
    // Eight files plus assets.hman; only the edited one is read. The six of
    // the untouched folders' parts are taken without hashing; the two others
    // of world/ are hashed, since world's part changed.
    assert_eq!(
        pack_stats(&run, "runtime.hpack"),
        "10 entries, 8 reused from the previous pack (6 unhashed), 1 read"
    );
    assert!(
        !edges.iter().any(|e| e.contains("runtime.first.hpack")),
        "{edges:?}"
    );
    let after = part_times(&p);
    for (folder, times) in &before {
        let (entries, full) = after[folder];
        if folder == "world" {
            assert_eq!(entries, times.0, "world's entries are unchanged");
            assert_ne!(full, times.1, "world's full part records the new hash");
        } else {
            assert_eq!((entries, full), *times, "{folder}'s parts were rewritten");
        }
    }
    assert_eq!(mtime(&p.path("runtime/assets.h")), ids_before);
    p.assert_no_op();
    assert_same_as_clean_build(&p);
}

#[test]
fn adding_and_removing_an_asset_re_merges_its_folder_alone() {
    let p = project();
    p.build(&[]);
    let before = part_times(&p);
    pause();
    p.png("assets/ui/d.png", 4, 4, 42);
    let run = ninja_with_stats(&p);
    assert_eq!(
        pack_stats(&run, "runtime.first.hpack"),
        "6 entries, 4 reused from the previous pack (1 unhashed), 1 read"
    );
    let after = part_times(&p);
    for (folder, times) in &before {
        if folder == "ui" {
            assert_ne!(after[folder], *times);
        } else {
            assert_eq!(after[folder], *times, "{folder}'s parts were rewritten");
        }
    }
    assert_same_as_clean_build(&p);

    pause();
    fs::remove_file(p.path("assets/world/a.png")).unwrap();
    let run = ninja_with_stats(&p);
    // Ten files after the addition, less one, plus assets.hman.
    assert_eq!(
        pack_stats(&run, "runtime.hpack"),
        "10 entries, 9 reused from the previous pack (7 unhashed), 0 read"
    );
    assert!(
        !run.stdout.contains("runtime.first.hpack"),
        "{}",
        run.stdout
    );
    assert_same_as_clean_build(&p);
}

#[test]
fn a_sequence_of_edits_ends_where_a_clean_build_does() {
    let p = project();
    p.build(&[]);
    let steps: [&dyn Fn(&Project); 5] = [
        &|p| p.png("assets/ui/icons/x.png", 4, 4, 77),
        &|p| p.write("assets/data/story.json", b"{\"chapter\": 2}\n"),
        &|p| p.png("assets/world/deep/new.png", 4, 4, 5),
        &|p| fs::remove_file(p.path("assets/ui/a.png")).unwrap(),
        &|p| p.png("assets/ui/icons/x.png", 4, 4, 20),
    ];
    for step in steps {
        pause();
        step(&p);
        p.ninja(&[]).expect_ok("ninja");
        assert_same_as_clean_build(&p);
    }
}

#[test]
fn a_previous_pack_entry_that_lost_its_bytes_is_read_again() {
    let p = project();
    p.build(&[]);
    // Corrupt the last byte of one entry's payload inside the single pack.
    // Writing the file changes its identity, so the pack step trusts none of
    // its entries and hashes them all.
    let mut pack = fs::read(p.path("runtime.hpack")).unwrap();
    let parsed = assetc::format::hpack::parse(&pack).unwrap();
    let entry = parsed.find("ui/a.ktx2").unwrap();
    let last = usize::try_from(entry.end() - 1).unwrap();
    pack[last] ^= 0xff;
    fs::write(p.path("runtime.hpack"), &pack).unwrap();
    pause();
    p.png("assets/world/c.png", 4, 4, 55);
    let run = ninja_with_stats(&p);
    assert_eq!(
        pack_stats(&run, "runtime.hpack"),
        "10 entries, 7 reused from the previous pack (0 unhashed), 2 read"
    );
    assert_same_as_clean_build(&p);
}
