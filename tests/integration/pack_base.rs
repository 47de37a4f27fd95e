//! Packs laid out over the packs already shipped (`pack_base:` and
//! `--pack-base`), through the real `assetc configure`, `assetc-link pack`
//! and `ninja`: unchanged entries keep their offsets after edits, additions
//! and removals, in the single pack and a named one; the same tree over the
//! same base gives the same bytes; compaction at `pack_max_waste`; hostile
//! bases refused with their name and no pack left behind.

use std::collections::BTreeMap;
use std::fs;

use crate::common::Project;
use crate::image_sources::noise_rgba8;
use assetc::format::hpack;

const CONFIG: &str = r#"
pack: true
embed: ["data/*"]
packs:
  level1: ["data/*"]
"#;

const SINGLE: &str = "runtime.hpack";
const LEVEL1: &str = "runtime.level1.hpack";

/// `size` bytes that differ with `seed`, so no two files share a payload.
fn noise(size: usize, seed: u32) -> Vec<u8> {
    let mut bytes = noise_rgba8(size as u32, 1, seed + 1);
    bytes.truncate(size);
    bytes
}

/// Ten embedded files of 3 to 12 KiB.
fn project(config: &str) -> Project {
    let p = Project::new(config);
    for i in 0..10u32 {
        let size = 3000 + (i as usize * 977) % 9000;
        p.write(&format!("assets/data/f{i}.bin"), &noise(size, i));
    }
    p
}

/// Each entry of a pack: path to (offset, size).
fn layout(bytes: &[u8]) -> BTreeMap<String, (u64, u64)> {
    let pack = hpack::parse(bytes).expect("a valid pack");
    pack.iter()
        .map(|e| (e.path.to_owned(), (e.offset, e.size)))
        .collect()
}

/// Builds, then ships the packs: copies them into `shipped/`.
fn build_and_ship(p: &Project) {
    p.assetc(&["configure"]).expect_ok("configure");
    p.ninja(&[]).expect_ok("the first build");
    fs::create_dir_all(p.path("shipped")).unwrap();
    for pack in [SINGLE, LEVEL1] {
        fs::copy(p.path(pack), p.path(&format!("shipped/{pack}"))).unwrap();
    }
}

/// The entries of `new` that `old` has at the same offset and size.
fn unmoved(old: &BTreeMap<String, (u64, u64)>, new: &BTreeMap<String, (u64, u64)>) -> Vec<String> {
    new.iter()
        .filter(|(path, place)| old.get(*path) == Some(place))
        .map(|(path, _)| path.clone())
        .collect()
}

#[test]
fn unchanged_entries_keep_their_offsets_through_edits_additions_and_removals() {
    let p = project(CONFIG);
    build_and_ship(&p);
    let shipped = fs::read(p.path("shipped/runtime.hpack")).unwrap();
    let base = layout(&shipped);
    p.assetc(&["configure", "--pack-base", "shipped"])
        .expect_ok("configure over the shipped packs");
    p.ninja(&[]).expect_ok("the build over the base");
    assert_eq!(
        fs::read(p.path(SINGLE)).unwrap(),
        shipped,
        "the same tree over its own base is the base"
    );
    p.assert_no_op();

    // One file grows past its slot, one keeps its size.
    p.write("assets/data/f3.bin", &noise(20_000, 33));
    p.write("assets/data/f6.bin", &noise(3000 + 6 * 977, 66));
    p.ninja(&[]).expect_ok("the build after two edits");
    for pack in [SINGLE, LEVEL1] {
        let bytes = fs::read(p.path(pack)).unwrap();
        let old = layout(&fs::read(p.path(&format!("shipped/{pack}"))).unwrap());
        let new = layout(&bytes);
        let kept = unmoved(&old, &new);
        for i in [0, 1, 2, 4, 5, 7, 8, 9] {
            let path = format!("data/f{i}.bin");
            assert!(
                kept.contains(&path),
                "{pack}: {path} moved: {old:?} -> {new:?}"
            );
        }
        assert_eq!(
            new["data/f6.bin"], old["data/f6.bin"],
            "{pack}: same size, same place"
        );
        let end = old
            .values()
            .map(|(offset, size)| offset + size)
            .max()
            .unwrap();
        assert!(
            new["data/f3.bin"].0 >= end,
            "{pack}: the grown file goes after the rest"
        );
    }

    // A removal frees its slot and moves nothing else.
    fs::remove_file(p.path("assets/data/f1.bin")).unwrap();
    p.ninja(&[]).expect_ok("the build after a removal");
    let new = layout(&fs::read(p.path(SINGLE)).unwrap());
    assert!(!new.contains_key("data/f1.bin"));
    for i in [0, 2, 4, 5, 7, 8, 9] {
        let path = format!("data/f{i}.bin");
        assert_eq!(new[&path], base[&path], "{path} moved after a removal");
    }

    // An addition grows the TOC: only the payloads its region now covers
    // move, and the region gets slack for the next one.
    p.write(
        "assets/data/g-added-with-a-longer-name.bin",
        &noise(5000, 99),
    );
    p.ninja(&[]).expect_ok("the build after an addition");
    let grown = fs::read(p.path(SINGLE)).unwrap();
    let new = layout(&grown);
    let first = new.values().map(|(offset, _)| *offset).min().unwrap();
    let toc_end = hpack::parse(&grown).unwrap().toc_bytes() + hpack::HEADER_BYTES as u64;
    assert!(
        first >= toc_end + 4096,
        "slack after the TOC: {first} vs {toc_end}"
    );
    let stayed = [0, 2, 4, 5, 7, 8, 9]
        .iter()
        .filter(|i| {
            let path = format!("data/f{i}.bin");
            base[&path].0 >= first && new[&path] == base[&path]
        })
        .count();
    let beyond = [0, 2, 4, 5, 7, 8, 9]
        .iter()
        .filter(|i| base[&format!("data/f{i}.bin")].0 >= first)
        .count();
    assert_eq!(stayed, beyond, "every payload past the TOC region stays");
    assert!(
        beyond >= 4,
        "the test should keep most payloads past the region"
    );
    p.ninja(&["check"])
        .expect_ok("check accepts packs laid over a base");

    // The same tree over the same base gives the same bytes.
    fs::remove_file(p.path(SINGLE)).unwrap();
    p.ninja(&[]).expect_ok("the rebuild");
    assert_eq!(fs::read(p.path(SINGLE)).unwrap(), grown);
}

#[test]
fn a_layout_past_pack_max_waste_compacts_to_the_fresh_one() {
    for (max_waste, compacts) in [("0.9", false), ("0.1", true)] {
        let config = format!("{CONFIG}pack_max_waste: {max_waste}\n");
        let p = project(&config);
        build_and_ship(&p);
        for i in [1, 3, 5, 7] {
            fs::remove_file(p.path(&format!("assets/data/f{i}.bin"))).unwrap();
        }
        p.assetc(&["configure", "--pack-base", "shipped/runtime.hpack"])
            .expect_ok("configure over the shipped pack");
        p.ninja(&[]).expect_ok("the build over the base");
        let over_base = fs::read(p.path(SINGLE)).unwrap();
        p.assetc(&["configure", "--fresh"])
            .expect_ok("configure without a base");
        p.ninja(&[]).expect_ok("the build without a base");
        let fresh = fs::read(p.path(SINGLE)).unwrap();
        assert_eq!(over_base == fresh, compacts, "pack_max_waste {max_waste}");
    }
}

#[test]
fn hostile_bases_are_refused_with_their_name_and_leave_no_pack() {
    let p = project(CONFIG);
    build_and_ship(&p);
    let shipped = fs::read(p.path("shipped/runtime.hpack")).unwrap();
    let pack = hpack::parse(&shipped).unwrap();
    let entries: Vec<_> = pack.iter().collect();
    // The second TOC record's offset, moved 16 bytes into the first payload.
    let second_record = hpack::HEADER_BYTES + hpack::TOC_ENTRY_FIXED_BYTES + entries[0].path.len();
    let mut overlapping = shipped.clone();
    overlapping[second_record..second_record + 8]
        .copy_from_slice(&(entries[0].offset + 16).to_le_bytes());
    let cases: [(&str, Vec<u8>); 3] = [
        ("truncated", shipped[..shipped.len() / 2].to_vec()),
        ("not a pack", b"PK\x03\x04 a zip file, say".to_vec()),
        ("overlapping entries", overlapping),
    ];
    for (what, bytes) in cases {
        p.write("bad/runtime.hpack", &bytes);
        p.assetc(&["configure", "--pack-base", "bad/runtime.hpack"])
            .expect_ok("configure (the base is read by the pack step)");
        let run = p.ninja(&[]);
        assert!(!run.ok, "{what}: the build passed");
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(
            said.contains("bad/runtime.hpack") && said.contains("--base"),
            "{what}: {said}"
        );
        assert!(!p.path(SINGLE).exists(), "{what}: a pack was left behind");
        assert!(
            p.temporary_files().is_empty(),
            "{what}: {:?}",
            p.temporary_files()
        );
    }
    let run = p.assetc(&["configure", "--pack-base", "no/such.hpack"]);
    assert!(!run.ok, "configure accepted a missing base");
    assert!(
        run.stderr.contains("no/such.hpack") && run.stderr.contains("no such file"),
        "{}",
        run.stderr
    );
}
