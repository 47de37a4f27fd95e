//! Embedded files (`embed:` globs) through real `assetc configure` and
//! `ninja`: several globs, nested folders, odd bytes and names, an embed glob
//! that wins over the image pattern, incremental edits and deletions, and
//! `assetc-link check` catching tampered copies, stale copies and a tampered
//! pack entry.

use crate::common;
use std::collections::BTreeMap;

use crate::common::{Project, rgba_png};
use assetc::format::hash::asset_hash;
use assetc::format::kind::{AssetKind, PackKind};
use assetc::format::{hman, hpack};

const CONFIG: &str = r#"
pack: true
embed:
  - "data/*"
  - "*.bin"
  - "ui/raw/*"
default:
  texture: { compress: false, mips: false }
"#;

/// Every byte value, then a CRLF, a NUL run and a lone CR.
fn odd_bytes() -> Vec<u8> {
    let mut bytes: Vec<u8> = (0..=255).collect();
    bytes.extend_from_slice(b"\r\n\0\0\0\r");
    bytes
}

/// The embedded sources of [`project`], by path below `assets/`.
fn embedded_sources() -> BTreeMap<&'static str, Vec<u8>> {
    BTreeMap::from([
        ("data/level1.json", b"{\"enemies\": 3}\n".to_vec()),
        ("data/levels/deep/er/boss.json", b"{\"hp\": 900}".to_vec()),
        ("data/my level.txt", b"a space in the name\n".to_vec()),
        ("sounds/blob.bin", odd_bytes()),
        ("ui/raw/logo.png", rgba_png(3, 2, 7)),
        ("empty.bin", Vec::new()),
    ])
}

/// A project with the sources above and one ordinary texture.
fn project() -> Project {
    let p = Project::new(CONFIG);
    for (path, bytes) in embedded_sources() {
        p.write(&format!("assets/{path}"), &bytes);
    }
    p.png("assets/ui/button.png", 4, 4, 1);
    p.write("assets/notes.txt", b"matched by no glob and no pattern");
    p
}

/// The manifest entries of the build, by path: (kind, id).
fn manifest(p: &Project) -> BTreeMap<String, (AssetKind, u64)> {
    let bytes = std::fs::read(p.path("runtime/assets.hman")).unwrap();
    hman::parse(&bytes)
        .unwrap()
        .iter()
        .map(|e| (e.path.to_string(), (e.kind, e.hash)))
        .collect()
}

/// The pack's entries, by path: (kind, bytes).
fn pack(p: &Project) -> BTreeMap<String, (PackKind, Vec<u8>)> {
    let bytes = std::fs::read(p.path("runtime.hpack")).unwrap();
    let pack = hpack::parse(&bytes).unwrap();
    pack.iter()
        .map(|e| (e.path.to_string(), (e.kind, pack.data(&e).to_vec())))
        .collect()
}

fn embed_edges(run: &common::Run) -> Vec<String> {
    run.edges()
        .into_iter()
        .filter(|e| e.starts_with("EMBED ") || e.starts_with("TEXTURE "))
        .collect()
}

#[test]
fn every_glob_copies_its_files_verbatim_into_manifest_and_pack() {
    let p = project();
    let run = p.build(&[]);
    let mut edges = embed_edges(&run);
    edges.sort();
    assert_eq!(
        edges,
        [
            "EMBED 'assets/data/my level.txt'",
            "EMBED assets/data/level1.json",
            "EMBED assets/data/levels/deep/er/boss.json",
            "EMBED assets/empty.bin",
            "EMBED assets/sounds/blob.bin",
            "EMBED assets/ui/raw/logo.png",
            "TEXTURE assets/ui/button.png",
        ]
    );
    let tree = p.tree("runtime");
    let manifest = manifest(&p);
    let pack = pack(&p);
    for (path, source) in embedded_sources() {
        assert_eq!(tree.get(path), Some(&source), "{path} is copied verbatim");
        assert_eq!(
            manifest.get(path),
            Some(&(AssetKind::Embed, asset_hash(path))),
            "{path} is an embed keyed by its whole path"
        );
        let (kind, bytes) = &pack[path];
        assert_eq!(bytes, &source, "{path} in the pack");
        assert_eq!(*kind, PackKind::from_path(path));
    }
    assert_eq!(pack["ui/raw/logo.png"].0, PackKind::Other);
    assert!(
        !tree.contains_key("ui/raw/logo.ktx2"),
        "an embed glob wins over the image pattern"
    );
    assert_eq!(manifest["ui/button.ktx2"].0, AssetKind::Texture);
    assert!(
        !tree.contains_key("notes.txt"),
        "unmatched files are skipped"
    );
    p.link(&["check"]).expect_ok("check");
    p.ninja(&["check"]).expect_ok("ninja check");
    p.assert_no_op();
}

#[test]
fn editing_an_embed_rebuilds_only_it() {
    let p = project();
    p.build(&[]);
    p.write("assets/sounds/blob.bin", b"\xfe\xff new bytes \x00");
    let run = p.ninja(&[]).expect_ok("ninja after an edit");
    assert_eq!(embed_edges(&run), ["EMBED assets/sounds/blob.bin"]);
    let edges = run.edges();
    assert!(edges.iter().any(|e| e.starts_with("PACK ")), "{edges:?}");
    assert_eq!(
        std::fs::read(p.path("runtime/sounds/blob.bin")).unwrap(),
        b"\xfe\xff new bytes \x00"
    );
    assert_eq!(pack(&p)["sounds/blob.bin"].1, b"\xfe\xff new bytes \x00");
    p.link(&["check"]).expect_ok("check after the edit");
    p.assert_no_op();

    // Saving the same bytes again re-runs the copy, which writes nothing,
    // so nothing downstream runs.
    p.touch("assets/data/level1.json");
    let run = p.ninja(&[]).expect_ok("ninja after a touch");
    assert_eq!(run.edges(), ["EMBED assets/data/level1.json"]);
}

#[test]
fn deleting_an_embed_removes_it_everywhere() {
    let p = project();
    p.build(&[]);
    std::fs::remove_file(p.path("assets/data/levels/deep/er/boss.json")).unwrap();
    p.ninja(&[]).expect_ok("ninja after a deletion");
    let gone = "data/levels/deep/er/boss.json";
    assert!(!p.path(&format!("runtime/{gone}")).exists());
    assert!(
        !p.path("runtime/data/levels").exists(),
        "emptied folders go too"
    );
    assert!(!manifest(&p).contains_key(gone));
    assert!(!pack(&p).contains_key(gone));
    assert!(manifest(&p).contains_key("data/level1.json"));
    p.link(&["check"]).expect_ok("check after the deletion");
    p.assert_no_op();
}

#[test]
fn check_catches_a_tampered_copy_and_names_it() {
    let p = project();
    p.build(&[]);
    p.write("runtime/sounds/blob.bin", b"tampered");
    let run = p.link(&["check"]);
    assert!(!run.ok, "a tampered copy must fail the check");
    for expected in [
        "sounds/blob.bin: changed since the build wrote it",
        "sounds/blob.bin: differs from its source assets/sounds/blob.bin",
        "runtime.hpack: sounds/blob.bin: differs from the file in the output folder",
    ] {
        assert!(
            run.stderr.contains(expected),
            "missing `{expected}`:\n{}",
            run.stderr
        );
    }
    let json = p.link(&["check", "--json"]);
    assert!(!json.ok);
    let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let problems = report["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["path"] == "sounds/blob.bin"
        && p["what"].as_str().unwrap().starts_with("changed since")));

    // Without the build's record the folder alone cannot tell.
    let folder_only = p.link(&["check", "--root", "runtime"]);
    assert!(folder_only.ok, "{}", folder_only.stderr);
    // With it, the same verdict as through the config.
    let explicit = p.link(&[
        "check",
        "--root",
        "runtime",
        "--fragments",
        ".assetc/default/fragments.list",
        "--input",
        "assets",
    ]);
    assert!(!explicit.ok);
    assert!(
        explicit
            .stderr
            .contains("sounds/blob.bin: changed since the build wrote it")
    );
}

#[test]
fn check_reports_a_stale_copy_with_both_paths() {
    let p = project();
    p.build(&[]);
    p.write("assets/data/my level.txt", b"edited, not rebuilt\n");
    let run = p.link(&["check"]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains(
            "data/my level.txt: differs from its source assets/data/my level.txt (a stale"
        ),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("changed since the build wrote it"),
        "the copy itself is as the build wrote it:\n{}",
        run.stderr
    );
    p.ninja(&[]).expect_ok("ninja");
    p.link(&["check"]).expect_ok("check after rebuilding");
}

#[test]
fn check_verifies_the_pack_entries_against_the_record() {
    let p = project();
    p.build(&[]);
    let mut bytes = std::fs::read(p.path("runtime.hpack")).unwrap();
    let at = {
        let pack = hpack::parse(&bytes).unwrap();
        let entry = pack.find("data/level1.json").unwrap();
        pack.data(&entry).as_ptr() as usize - bytes.as_ptr() as usize
    };
    bytes[at] ^= 0x20;
    std::fs::write(p.path("runtime.hpack"), &bytes).unwrap();
    let run = p.link(&["check"]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains(
            "runtime.hpack: data/level1.json: pack entry differs from what the build recorded"
        ),
        "{}",
        run.stderr
    );
}
