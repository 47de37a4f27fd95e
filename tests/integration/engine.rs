//! The engine's side of the crate against a real build of the bundled demo:
//! every output file and every pack entry opens through `assetc::format`, and
//! the `load_pack` example prints what an engine would upload from the pack.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use crate::common::{Project, shared};
use assetc::format::bytes::AlignedBytes;
use assetc::format::hpack::Pack;
use assetc::format::kind::AssetKind;
use assetc::format::{self, AssetFile, FileType};

/// The demo's output folder (its default preset, `desktop`, picks it).
const OUTPUT: &str = "runtime/desktop";
/// The pack written next to it.
const PACK: &str = "runtime/desktop.hpack";

#[test]
fn the_demo_output_opens_through_the_engine_api() {
    let p = shared::demo();
    assert!(p.path(PACK).is_file(), "no pack at {PACK}");
    let mut tree = p.tree(OUTPUT);
    // The id files are for the game's compiler, not runtime data (tests/integration/ids.rs).
    for id_file in ["assets.h", "assets.rs"] {
        assert!(tree.remove(id_file).is_some(), "{OUTPUT}/{id_file} missing");
    }
    let types = every_output_file_opens(&tree);
    let expected = [
        FileType::Mesh,
        FileType::Material,
        FileType::Manifest,
        FileType::Animation,
        FileType::Font,
        FileType::Ktx2,
    ];
    assert_eq!(types, BTreeSet::from(expected), "types in {OUTPUT}");
    every_pack_entry_opens(p, &tree);
    load_pack_prints_the_uploads(p, &tree);
    load_pack_fails_cleanly(p);
}

/// Opens every file of the output tree and returns the types seen. Files of
/// no known type must be the demo's embedded data or SPIR-V modules, which an
/// engine hands to the driver as they are.
fn every_output_file_opens(tree: &BTreeMap<String, Vec<u8>>) -> BTreeSet<FileType> {
    let mut types = BTreeSet::new();
    for (path, bytes) in tree {
        let Some(file_type) = format::identify(bytes) else {
            let spirv = path.ends_with(".spv") && bytes.starts_with(&[0x03, 0x02, 0x23, 0x07]);
            assert!(
                path.starts_with("data/") || spirv,
                "{path} has no known magic"
            );
            let err = format::open(bytes).unwrap_err();
            assert_eq!((err.offset, err.field), (0, "magic"), "{path}: {err}");
            continue;
        };
        assert_eq!(FileType::from_path(path), Some(file_type), "{path}");
        let aligned = AlignedBytes::copy_from(bytes);
        let opened = format::open(&aligned).unwrap_or_else(|err| panic!("{path}: {err}"));
        assert_eq!(opened.file_type(), file_type, "{path}");
        assert_eq!(format::open::validate(bytes), Ok(file_type), "{path}");
        check_contents(path, &opened, tree);
        types.insert(file_type);
    }
    types
}

/// A few facts about what was opened, beyond its type.
fn check_contents(path: &str, opened: &AssetFile<'_>, tree: &BTreeMap<String, Vec<u8>>) {
    match opened {
        AssetFile::Manifest(manifest) => {
            for entry in manifest.iter() {
                assert!(tree.contains_key(entry.path), "{path} lists {}", entry.path);
            }
        }
        AssetFile::Animation(anim) => {
            assert!(anim.clip_count() > 0, "{path} has no clips");
            let keys: usize = anim
                .clips()
                .flat_map(|clip| clip.channels())
                .map(|channel| channel.key_count())
                .sum();
            assert!(keys > 0, "{path} has no keys");
        }
        AssetFile::Mesh(mesh) => {
            assert!(
                !mesh.vertices.is_empty() && !mesh.submeshes.is_empty(),
                "{path}"
            );
            let desc = mesh.chunk(assetc::format::hmesh::chunk::DESC);
            assert_eq!(desc.map(<[u8]>::len), Some(32), "{path}");
        }
        AssetFile::Texture(texture) => assert!(!texture.levels().is_empty(), "{path}"),
        AssetFile::Font(font) => {
            assert!(font.glyphs().len() > 1, "{path} has only .notdef");
            let atlas = path.replace(".hfont", ".font.ktx2");
            assert!(tree.contains_key(&atlas), "{path} has no atlas {atlas}");
        }
        AssetFile::Atlas(atlas) => {
            let pages = path.replace(".hatlas", ".atlas.ktx2");
            assert!(tree.contains_key(&pages), "{path} has no pages {pages}");
            assert!(!atlas.sprites().is_empty(), "{path}");
        }
        AssetFile::Material(_) | AssetFile::Pack(_) | AssetFile::Sound(_) => {}
    }
}

/// Opens the pack and every entry in it; entries must match the output tree
/// and meshes must be lent straight out of the pack buffer.
fn every_pack_entry_opens(p: &Project, tree: &BTreeMap<String, Vec<u8>>) {
    let bytes = AlignedBytes::read(p.path(PACK)).unwrap();
    let pack = match format::open(&bytes) {
        Ok(AssetFile::Pack(pack)) => pack,
        other => panic!("{PACK}: expected a pack, got {other:?}"),
    };
    let paths: BTreeSet<&str> = pack.iter().map(|entry| entry.path).collect();
    let files: BTreeSet<&str> = tree.keys().map(String::as_str).collect();
    assert_eq!(paths, files, "the pack holds the output tree");
    for entry in pack.iter() {
        assert_eq!(
            pack.data(&entry),
            tree[entry.path].as_slice(),
            "{}",
            entry.path
        );
        let opened = pack.open(entry.path).unwrap();
        match format::identify(pack.data(&entry)) {
            Some(file_type) => {
                let file = opened.unwrap_or_else(|err| panic!("{}: {err}", entry.path));
                assert_eq!(file.file_type(), file_type, "{}", entry.path);
                assert_lent_in_place(&pack, entry.path, &file);
            }
            None => assert_eq!(opened.unwrap_err().field, "magic", "{}", entry.path),
        }
    }
}

/// Requires the arrays of an opened mesh to point into the pack buffer.
fn assert_lent_in_place(pack: &Pack<'_>, path: &str, file: &AssetFile<'_>) {
    let AssetFile::Mesh(mesh) = file else {
        return;
    };
    let entry = pack.find(path).unwrap();
    let payload = pack.data(&entry).as_ptr_range();
    let vertices = mesh.vertices.as_ptr().cast::<u8>();
    assert!(payload.contains(&vertices), "{path}: vertices were copied");
}

/// `target/<profile>/examples/load_pack`, next to this test's own binary
/// (`target/<profile>/deps/engine-…`). Cargo is asked to bring it up to date
/// every time (a no-op when `cargo test --all-targets` built it), so a binary
/// left from older sources is never run.
fn load_pack_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let binary = profile_dir
        .join("examples")
        .join(format!("load_pack{}", std::env::consts::EXE_SUFFIX));
    build_example(profile_dir);
    assert!(
        binary.is_file(),
        "no example binary at {}",
        binary.display()
    );
    binary
}

/// Builds the example into the target folder that holds `profile_dir`.
fn build_example(profile_dir: &std::path::Path) {
    let target_dir = profile_dir.parent().unwrap();
    let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
        Some("debug") | None => "dev",
        Some(name) => name,
    };
    let mut cargo = Command::new(env!("CARGO"));
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(describes_the_package_under_test) {
            cargo.env_remove(name);
        }
    }
    let status = cargo
        .args(["build", "--example", "load_pack", "--profile", profile])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .status()
        .unwrap();
    assert!(status.success(), "cargo build --example load_pack failed");
}

/// Whether `name` is one of the variables cargo sets for a test process
/// about the package under test (`CARGO_PKG_NAME`, `OUT_DIR`, …). The
/// nested cargo must not see them: build scripts that track them (ring's
/// does) would run again and rebuild half the tree, both here and in the
/// next `cargo test`, which sees them unset again.
fn describes_the_package_under_test(name: &str) -> bool {
    [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_CRATE_",
        "CARGO_BIN_",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "OUT_DIR",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
}

/// Runs the example on the pack and checks every line against the files.
fn load_pack_prints_the_uploads(p: &Project, tree: &BTreeMap<String, Vec<u8>>) {
    let output = Command::new(load_pack_binary())
        .arg(p.path(PACK))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "load_pack failed:\n{stdout}\n{stderr}"
    );
    let manifest = format::hman::parse(&tree["assets.hman"]).unwrap();
    let mut textures = Vec::new();
    let mut meshes = Vec::new();
    for line in stdout.lines() {
        let (what, rest) = line.split_once(' ').unwrap();
        let (path, facts) = rest.split_once(": ").unwrap();
        match what {
            "texture" => {
                check_texture_line(path, facts, &tree[path]);
                let id = AssetKind::Texture.id_for_path(path);
                assert_eq!(manifest.find(id).map(|entry| entry.path), Some(path));
                textures.push(path.to_owned());
            }
            "mesh" => {
                check_mesh_line(path, facts, &tree[path]);
                meshes.push(path.to_owned());
            }
            "pack" | "material" => {}
            _ => panic!("unexpected line {line:?}"),
        }
    }
    assert!(
        textures.iter().any(|path| path.starts_with("models/crate")),
        "no texture of the crate in:\n{stdout}"
    );
    assert!(
        meshes.iter().any(|path| path == "models/crate.hmesh"),
        "no crate mesh in:\n{stdout}"
    );
    let all_meshes: Vec<&String> = tree
        .keys()
        .filter(|path| path.ends_with(".hmesh"))
        .collect();
    assert_eq!(meshes.iter().collect::<Vec<_>>(), all_meshes);
}

/// Checks `<w>x<h> vkFormat N, M mips, supercompression S, B bytes`.
fn check_texture_line(path: &str, facts: &str, file: &[u8]) {
    let view = format::ktx2::parse(file).unwrap();
    let header = view.header();
    let expected = format!(
        "{}x{} vkFormat {}, {} mips, supercompression {}, {} bytes",
        header.pixel_width,
        header.pixel_height,
        header.vk_format,
        view.levels().len(),
        header.supercompression_scheme,
        view.level_bytes()
    );
    assert_eq!(facts, expected, "{path}");
    assert!(view.level_bytes() > 0, "{path}");
}

/// Checks the counts and sizes of a mesh line.
fn check_mesh_line(path: &str, facts: &str, file: &[u8]) {
    let mesh = format::hmesh::read_hmesh(file).unwrap();
    let vertices = format!(
        "{} vertices ({} bytes)",
        mesh.vertices.len(),
        28 * mesh.vertices.len()
    );
    assert!(facts.starts_with(&vertices), "{path}: {facts}");
    let indices = format!("{} indices", mesh.indices.len());
    assert!(facts.contains(&indices), "{path}: {facts}");
    let meshlets = format!("{} meshlets", mesh.meshlets.len());
    assert!(facts.contains(&meshlets), "{path}: {facts}");
    assert!(
        !mesh.meshlets.is_empty(),
        "{path}: the demo builds meshlets"
    );
}

/// Wrong input: exit status and message, never a panic.
fn load_pack_fails_cleanly(p: &Project) {
    let binary = load_pack_binary();
    let run = |args: &[PathBuf]| Command::new(&binary).args(args).output().unwrap();

    let usage = run(&[]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("usage: load_pack"));

    let manifest = p.path(&format!("{OUTPUT}/assets.hman"));
    let not_a_pack = run(&[manifest]);
    assert_eq!(not_a_pack.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&not_a_pack.stderr);
    assert!(
        stderr.contains("expected a pack file, found a manifest"),
        "{stderr}"
    );

    let missing = run(&[p.path("no/such.hpack")]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));

    // The damaged copy goes into a scratch folder: the demo is shared.
    let mut broken = std::fs::read(p.path(PACK)).unwrap();
    broken.truncate(broken.len() / 2);
    let scratch = tempfile::tempdir().unwrap();
    let broken_path = scratch.path().join("broken.hpack");
    std::fs::write(&broken_path, &broken).unwrap();
    let truncated = run(&[broken_path]);
    assert_eq!(truncated.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&truncated.stderr);
    assert!(stderr.contains("broken.hpack: offset"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
