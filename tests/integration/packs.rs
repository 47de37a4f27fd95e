//! Named packs (`packs:` in assetc.yml) through the real `assetc configure`,
//! `assetc-link pack --own-manifest` and `ninja`: contents and embedded
//! manifests, overlap, incrementality, membership changes, failures, `check`,
//! `pack info`, config errors, and identical files stored once.

use crate::fixtures;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::{Project, Run};
use assetc::format::hman::{self, ManifestEntry};
use assetc::format::hpack;
use fixtures::{GltfBuilder, Material, Node};

const CONFIG: &str = r#"
embed: ["data/*"]
default:
  texture: { compress: false, mips: false }
packs:
  preload: ["ui/*", "data/*"]
  level1: ["models/*", "data/*"]
"#;

const PRELOAD: &str = "runtime.preload.hpack";
const LEVEL1: &str = "runtime.level1.hpack";

/// UI textures, an embedded file in both packs, and the demo's glTF crate
/// (a `.hmesh`, a `.hmat` and three textures from one source).
fn project() -> Project {
    let p = Project::new(CONFIG);
    p.png("assets/ui/a.png", 4, 4, 1);
    p.png("assets/ui/b.png", 4, 4, 2);
    p.write("assets/data/story.json", b"{\"chapter\": 1}\n");
    p.png("assets/other/loose.png", 4, 4, 3);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["crate.gltf", "crate.bin", "crate_color.png"] {
        let bytes = fs::read(repo.join("assets/models").join(name)).unwrap();
        p.write(&format!("assets/models/{name}"), &bytes);
    }
    p
}

/// The paths a pack holds, sorted.
fn toc(p: &Project, pack: &str) -> Vec<String> {
    let bytes = fs::read(p.path(pack)).unwrap_or_else(|e| panic!("{pack}: {e}"));
    let pack = hpack::parse(&bytes).unwrap();
    pack.iter().map(|e| e.path.to_string()).collect()
}

/// The entries of a pack's own `assets.hman`.
fn own_manifest(p: &Project, pack: &str) -> Vec<ManifestEntry> {
    let bytes = fs::read(p.path(pack)).unwrap();
    let pack = hpack::parse(&bytes).unwrap();
    let entry = pack
        .find("assets.hman")
        .expect("a named pack holds assets.hman");
    let manifest = hman::parse(pack.data(&entry)).unwrap();
    manifest.iter().map(|e| e.to_entry()).collect()
}

/// The entries of the folder's `assets.hman`.
fn folder_manifest(p: &Project) -> Vec<ManifestEntry> {
    let bytes = fs::read(p.path("runtime/assets.hman")).unwrap();
    let manifest = hman::parse(&bytes).unwrap();
    manifest.iter().map(|e| e.to_entry()).collect()
}

/// The pack edges a run ran.
fn pack_edges(run: &Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("PACK"))
        .collect();
    edges.sort();
    edges
}

const MODEL_FILES: [&str; 5] = [
    "models/crate.hmat",
    "models/crate.hmesh",
    "models/crate/tex_0.ktx2",
    "models/crate/tex_1.ktx2",
    "models/crate/tex_2.ktx2",
];

#[test]
fn each_pack_holds_exactly_its_members_and_their_manifest_subset() {
    let p = project();
    p.build(&[]);
    assert_eq!(
        toc(&p, PRELOAD),
        ["assets.hman", "data/story.json", "ui/a.ktx2", "ui/b.ktx2"]
    );
    let mut level1 = vec!["assets.hman", "data/story.json"];
    level1.extend(MODEL_FILES);
    assert_eq!(toc(&p, LEVEL1), level1, "every output of the mesh source");

    let global = folder_manifest(&p);
    for pack in [PRELOAD, LEVEL1] {
        let own = own_manifest(&p, pack);
        let files: BTreeSet<String> = toc(&p, pack)
            .into_iter()
            .filter(|f| f != "assets.hman")
            .collect();
        let listed: BTreeSet<String> = own.iter().map(|e| e.path.clone()).collect();
        assert_eq!(listed, files, "{pack}: its manifest lists its files");
        let expected: Vec<ManifestEntry> = global
            .iter()
            .filter(|e| files.contains(&e.path))
            .cloned()
            .collect();
        assert_eq!(
            own, expected,
            "{pack}: a subset of the folder manifest, same order"
        );
        let bytes = fs::read(p.path(pack)).unwrap();
        let parsed = hpack::parse(&bytes).unwrap();
        for file in &files {
            let entry = parsed.find(file).unwrap();
            assert_eq!(
                parsed.data(&entry),
                fs::read(p.path(&format!("runtime/{file}"))).unwrap()
            );
        }
    }
    assert!(
        !p.path("runtime.hpack").exists(),
        "the single pack stays off unless asked for"
    );
    let check = p.link(&["check"]).expect_ok("check from the config");
    assert!(
        check
            .stdout
            .contains("runtime.level1.hpack consistent (7 entries)"),
        "{}",
        check.stdout
    );
    p.assert_no_op();
}

#[test]
fn pack_bytes_are_deterministic() {
    let p = project();
    p.build(&[]);
    let first = fs::read(p.path(LEVEL1)).unwrap();
    fs::remove_file(p.path(LEVEL1)).unwrap();
    let run = p.ninja(&["-j", "1"]).expect_ok("ninja");
    assert_eq!(pack_edges(&run), ["PACK runtime.level1.hpack"]);
    assert_eq!(first, fs::read(p.path(LEVEL1)).unwrap());
}

#[test]
fn editing_a_member_of_one_pack_rebuilds_only_that_pack() {
    let p = project();
    p.build(&["--pack"]);
    let preload_before = fs::metadata(p.path(PRELOAD)).unwrap().modified().unwrap();
    p.png("assets/models/crate_color.png", 8, 8, 42);
    p.touch("assets/models/crate_color.png");
    let dry = p.ninja(&["-n"]).expect_ok("ninja -n");
    assert!(
        dry.edges()
            .contains(&"PACK runtime.level1.hpack".to_string()),
        "{:?}",
        dry.edges()
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        pack_edges(&run),
        ["PACK runtime.hpack", "PACK runtime.level1.hpack"],
        "the single pack holds everything; preload holds no model"
    );
    assert_eq!(
        preload_before,
        fs::metadata(p.path(PRELOAD)).unwrap().modified().unwrap()
    );
    p.link(&["check"]).expect_ok("check");
    p.assert_no_op();
}

#[test]
fn adding_and_removing_sources_updates_the_matching_packs() {
    let p = project();
    p.build(&[]);
    let level1_before = fs::read(p.path(LEVEL1)).unwrap();
    p.png("assets/ui/c.png", 4, 4, 9);
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(run.edges().iter().any(|e| e.starts_with("CONFIGURE")));
    assert_eq!(pack_edges(&run), ["PACK runtime.preload.hpack"]);
    assert!(toc(&p, PRELOAD).contains(&"ui/c.ktx2".to_string()));
    assert_eq!(level1_before, fs::read(p.path(LEVEL1)).unwrap());

    fs::remove_file(p.path("assets/ui/a.png")).unwrap();
    p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        toc(&p, PRELOAD),
        ["assets.hman", "data/story.json", "ui/b.ktx2", "ui/c.ktx2"]
    );
    p.link(&["check"]).expect_ok("check");
    p.assert_no_op();
}

#[test]
fn dropping_a_pack_from_the_config_deletes_its_file() {
    let p = project();
    p.build(&[]);
    let config = CONFIG.replace("  level1: [\"models/*\", \"data/*\"]\n", "");
    p.write("assetc.yml", config.as_bytes());
    p.touch("assetc.yml");
    p.ninja(&[]).expect_ok("ninja");
    assert!(
        !p.path(LEVEL1).exists(),
        "a pack no longer configured is removed"
    );
    assert!(p.path(PRELOAD).is_file());
    p.assert_no_op();
}

#[test]
fn a_pack_matching_nothing_is_a_warning_and_holds_an_empty_manifest() {
    let p = project();
    p.write(
        "assetc.yml",
        format!("{CONFIG}  later: \"levels/two/*\"\n").as_bytes(),
    );
    let run = p.assetc(&["configure"]).expect_ok("configure");
    assert!(
        run.stderr
            .contains("assetc.yml:8:3: pack 'later' matches no source"),
        "{}",
        run.stderr
    );
    p.ninja(&[]).expect_ok("ninja");
    assert_eq!(toc(&p, "runtime.later.hpack"), ["assets.hman"]);
    assert!(own_manifest(&p, "runtime.later.hpack").is_empty());
    p.assetc(&["pack", "info", "runtime.later.hpack"])
        .expect_ok("pack info");
}

#[test]
fn pack_info_reads_named_packs() {
    let p = project();
    p.build(&[]);
    let run = p
        .assetc(&["pack", "info", LEVEL1, "--json"])
        .expect_ok("pack info");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["schema"], "assetc-pack-info/1");
    let entries = report["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 7);
    assert_eq!(entries[0]["path"], "assets.hman");
    assert_eq!(entries[0]["kind"], "manifest");
}

#[test]
fn a_failed_member_removes_the_packs_and_check_spots_a_stale_pack() {
    let p = project();
    p.build(&[]);
    p.write("assets/models/crate_color.png", b"\x89PNG\r\n\x1a\nbroken");
    p.touch("assets/models/crate_color.png");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(!p.path(LEVEL1).exists(), "no pack outlives a failed member");

    let fixed = project();
    fixed.build(&[]);
    let stale = fs::read(fixed.path(LEVEL1)).unwrap();
    fixed.png("assets/models/crate_color.png", 8, 8, 5);
    fixed.touch("assets/models/crate_color.png");
    fixed.ninja(&[]).expect_ok("ninja");
    fs::write(fixed.path(LEVEL1), stale).unwrap();
    let check = fixed.link(&["check"]);
    assert!(!check.ok);
    assert!(
        check
            .stderr
            .contains("runtime.level1.hpack: models/crate/tex_0.ktx2: differs from the file in the output folder"),
        "{}",
        check.stderr
    );
}

/// Runs configure on `config` and returns its standard error.
fn configure_error(config: &str) -> String {
    Project::new(config).configure_error()
}

#[test]
fn bad_pack_configs_name_their_line() {
    let cases = [
        (
            "packs:\n  ok: \"a/*\"\n  Level1: \"b/*\"\n",
            "assetc.yml:3:3: packs: bad pack name 'Level1'",
        ),
        (
            "packs:\n  ok: \"a/*\"\n  lvl.1: \"b/*\"\n",
            "assetc.yml:3:3: packs: bad pack name 'lvl.1'",
        ),
        (
            "packs:\n  ok: [\"a/*\", \"b/[*\"]\n",
            "assetc.yml:2:15: bad glob 'b/[*'",
        ),
        (
            "packs:\n  ok: \"{a,b\"\n",
            "assetc.yml:2:7: bad glob '{a,b'",
        ),
        ("packs:\n  empty:\n", "packs.empty: lists no globs"),
        ("packs:\n  ok: { match: \"a/*\" }\n", "assetc.yml:2:"),
    ];
    for (config, expected) in cases {
        let stderr = configure_error(config);
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in:\n{stderr}"
        );
    }
}

/// `assetc.yml` of a single pack of raw textures.
const SHARED_IMAGE_CONFIG: &str = "pack: true\ndefault:\n  texture: { compress: false }\n";

/// Writes `assets/models/<name>.gltf` for each of `names`: one triangle whose
/// base colour is the image file `image` beside them.
fn write_models_sharing(p: &Project, names: &[&str], image: &str) {
    let mut gltf = GltfBuilder::new();
    let texture = gltf.add_image_uri(image);
    let texture = gltf.add_texture(Some(texture));
    let base_color_texture = Some(texture);
    let material = gltf.add_material(&Material {
        base_color_texture,
        ..Material::default()
    });
    let root = fixtures::triangle_mesh(&mut gltf, Some(material));
    let root = gltf.add_node(Node::mesh(root));
    gltf.add_scene(&[root]);
    let dir = p.path("assets/models");
    fs::create_dir_all(&dir).unwrap();
    for name in names {
        gltf.write_gltf(&dir, name).unwrap();
    }
}

/// Checks the single pack of the three-model project: the models' textures
/// share one payload, every entry is the folder's file, and `pack info`
/// reports the sharing. Returns the shared texture's bytes.
fn assert_textures_stored_once(p: &Project) -> Vec<u8> {
    let bytes = fs::read(p.path("runtime.hpack")).unwrap();
    let pack = hpack::parse(&bytes).unwrap();
    for entry in pack.iter() {
        let file = fs::read(p.path(&format!("runtime/{}", entry.path))).unwrap();
        assert!(pack.data(&entry) == file, "{} differs", entry.path);
    }
    let textures: Vec<_> = ["a", "b", "c"]
        .map(|m| pack.find(&format!("models/{m}/tex_0.ktx2")).unwrap())
        .into();
    let texture = pack.data(&textures[0]).to_vec();
    assert!(textures.iter().all(|t| t.offset == textures[0].offset));
    let saved = 2 * texture.len() as u64;
    assert_eq!(pack.shared_entries(), 2);
    assert_eq!(pack.entry_bytes() - pack.payload_bytes(), saved);
    let unshared = pack.header_bytes() + pack.toc_bytes() + pack.entry_bytes();
    assert!(pack.file_bytes() < unshared, "the pack holds every copy");
    let run = p.assetc(&["pack", "info", "--json"]).expect_ok("pack info");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["shared"]["entries"], 2);
    assert_eq!(report["shared"]["bytes"], saved);
    assert_eq!(report["layout"]["payload"], pack.payload_bytes());
    texture
}

/// The three-model project, with its image, configured.
fn shared_image_project() -> Project {
    let p = Project::new(SHARED_IMAGE_CONFIG);
    p.png("assets/models/shared.png", 16, 16, 7);
    write_models_sharing(&p, &["a", "b", "c"], "shared.png");
    p.assetc(&["configure"]).expect_ok("configure");
    p
}

#[test]
fn identical_files_are_stored_once_in_a_pack() {
    let p = shared_image_project();
    p.ninja(&["-j2"]).expect_ok("ninja -j2");
    let first = assert_textures_stored_once(&p);
    let clean = fs::read(p.path("runtime.hpack")).unwrap();
    let serial = shared_image_project();
    serial.ninja(&["-j1"]).expect_ok("ninja -j1");
    assert_eq!(fs::read(serial.path("runtime.hpack")).unwrap(), clean);
    // An edit of the image reaches every model and still shares one payload.
    p.png("assets/models/shared.png", 16, 16, 8);
    p.ninja(&[]).expect_ok("the edit");
    assert_ne!(assert_textures_stored_once(&p), first);
    // Back to the first image: the incremental pack is the clean build's.
    p.png("assets/models/shared.png", 16, 16, 7);
    p.ninja(&[]).expect_ok("the edit back");
    assert_eq!(fs::read(p.path("runtime.hpack")).unwrap(), clean);
    let text = p.assetc(&["pack", "info"]).expect_ok("pack info").stdout;
    assert!(
        text.contains("shared: 2 entries reuse an identical entry's payload"),
        "{text}"
    );
}
