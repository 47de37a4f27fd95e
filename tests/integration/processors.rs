//! User processors (`processors:` in assetc.yml) through the real `assetc
//! configure`, `assetc-encode process` and `ninja`: outputs in the manifest and
//! pack, incrementality (source, depfile inputs, the command template), failing
//! and lazy processors, the shipped Tiled example, and config errors.

use std::fs;
use std::path::Path;

use crate::common::{Project, Run};
use assetc::format::hman;
use assetc::format::hpack;
use assetc::format::kind::AssetKind;

/// Two processors over plain text: `upper` upper-cases `text/*.txt` and lists
/// the file named by a source's `include:` line in its depfile; `rev`
/// reverses the lines of `lines/*.txt`. Plus one ordinary texture.
const CONFIG: &str = r#"
pack: true
default:
  texture: { compress: false, mips: false }
processors:
  - name: upper
    match: "text/*.txt"
    command: >-
      inc=$(sed -n 's/^include: //p' $in);
      { tr a-z A-Z < $in; if [ -n "$inc" ]; then tr a-z A-Z < "assets/text/$inc"; fi; } > $out;
      if [ -n "$inc" ]; then printf '%s: %s\n' $out "assets/text/$inc" > $depfile; fi
    extension: .up
    kind: embed
  - name: rev
    match: ["lines/*.txt"]
    command: tac $in > $out
    output: "reversed/{dir}/{stem}.rev"
    kind: embed
"#;

/// A project with two `upper` sources, one `rev` source, a text file the
/// first `upper` source includes, and a texture.
fn project() -> Project {
    let p = Project::new(CONFIG);
    p.write("assets/text/a.txt", b"hello\ninclude: shared.inc\n");
    p.write("assets/text/b.txt", b"plain\n");
    p.write("assets/text/shared.inc", b"shared part\n");
    p.write("assets/lines/l.txt", b"one\ntwo\n");
    p.png("assets/ui/icon.png", 4, 4, 1);
    p
}

/// The edges of a run that ran a processor.
fn processed(run: &Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("PROCESS"))
        .collect();
    edges.sort();
    edges
}

/// The runtime paths below `runtime` whose name marks a scratch file.
fn scratch_leftovers(p: &Project) -> Vec<String> {
    walkdir::WalkDir::new(p.path("runtime"))
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.path().display().to_string())
        .filter(|path| path.contains(".assetc-tmp"))
        .collect()
}

#[test]
fn outputs_land_in_the_manifest_and_the_pack_with_their_kind() {
    let p = project();
    p.build(&[]);
    assert_eq!(
        fs::read(p.path("runtime/text/a.up")).unwrap(),
        b"HELLO\nINCLUDE: SHARED.INC\nSHARED PART\n"
    );
    assert_eq!(fs::read(p.path("runtime/text/b.up")).unwrap(), b"PLAIN\n");
    assert_eq!(
        fs::read(p.path("runtime/reversed/lines/l.rev")).unwrap(),
        b"two\none\n"
    );
    let manifest = fs::read(p.path("runtime/assets.hman")).unwrap();
    let manifest = hman::parse(&manifest).unwrap();
    let embedded: Vec<&str> = manifest
        .iter()
        .filter(|e| e.kind == AssetKind::Embed)
        .map(|e| e.path)
        .collect();
    assert_eq!(embedded.len(), 3, "{embedded:?}");
    for path in ["text/a.up", "text/b.up", "reversed/lines/l.rev"] {
        assert!(embedded.contains(&path), "{path} not in {embedded:?}");
    }
    assert!(
        !p.path("runtime/text/shared.up").exists(),
        "*.inc matches no processor"
    );
    let pack = fs::read(p.path("runtime.hpack")).unwrap();
    let pack = hpack::parse(&pack).unwrap();
    let packed = pack.find("text/a.up").expect("in the pack");
    assert_eq!(
        pack.data(&packed),
        fs::read(p.path("runtime/text/a.up")).unwrap()
    );
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
    assert!(scratch_leftovers(&p).is_empty());
}

#[test]
fn a_second_build_is_a_no_op_and_the_source_edit_reruns_its_edge_only() {
    let p = project();
    p.build(&[]);
    p.assert_no_op();
    p.write("assets/text/b.txt", b"changed\n");
    p.touch("assets/text/b.txt");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(processed(&run), ["PROCESS upper assets/text/b.txt"]);
    assert!(
        run.edges().iter().all(|e| e.starts_with("PROCESS")
            || e.starts_with("IDS")
            || e.starts_with("MANIFEST")
            || e.starts_with("PACK")),
        "{:?}",
        run.edges()
    );
    assert_eq!(fs::read(p.path("runtime/text/b.up")).unwrap(), b"CHANGED\n");
    p.assert_no_op();
}

#[test]
fn editing_a_file_from_the_users_depfile_reruns_the_edge() {
    let p = project();
    p.build(&[]);
    let deps = p
        .ninja(&["-t", "deps", "runtime/text/a.up"])
        .expect_ok("deps");
    assert!(deps.stdout.contains("assets/text/a.txt"), "{}", deps.stdout);
    assert!(
        deps.stdout.contains("assets/text/shared.inc"),
        "{}",
        deps.stdout
    );
    p.write("assets/text/shared.inc", b"new part\n");
    p.touch("assets/text/shared.inc");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(processed(&run), ["PROCESS upper assets/text/a.txt"]);
    assert!(
        fs::read_to_string(p.path("runtime/text/a.up"))
            .unwrap()
            .ends_with("NEW PART\n")
    );
    p.assert_no_op();
}

#[test]
fn an_unchanged_output_is_not_rewritten_and_prunes_the_link() {
    let p = project();
    p.build(&[]);
    p.touch("assets/lines/l.txt");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(processed(&run), ["PROCESS rev assets/lines/l.txt"]);
    assert!(
        !run.edges()
            .iter()
            .any(|e| e.starts_with("MANIFEST") || e.starts_with("PACK")),
        "same bytes, so restat prunes the link: {:?}",
        run.edges()
    );
}

#[test]
fn changing_a_command_template_reruns_exactly_that_processors_edges() {
    let p = project();
    p.build(&[]);
    let config = CONFIG.replace("tac $in > $out", "tac $in > $out && true");
    p.write("assetc.yml", config.as_bytes());
    p.touch("assetc.yml");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(
        run.edges().iter().any(|e| e.starts_with("CONFIGURE")),
        "{:?}",
        run.edges()
    );
    assert_eq!(processed(&run), ["PROCESS rev assets/lines/l.txt"]);
    assert!(
        !run.edges().iter().any(|e| e.starts_with("TEXTURE")),
        "{:?}",
        run.edges()
    );
    p.assert_no_op();
}

#[test]
fn processors_win_over_embed_and_the_built_in_suffixes() {
    let p = Project::new(
        "embed: [\"raw/*\"]\nprocessors:\n  - name: copy\n    match: \"raw/*.png\"\n    command: cp $in $out\n    extension: .bin\n    kind: embed\n",
    );
    p.png("assets/raw/pic.png", 2, 2, 1);
    p.write("assets/raw/notes.txt", b"n");
    p.build(&[]);
    let tree = p.tree("runtime");
    let names: Vec<&str> = tree.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "assets.h",
            "assets.hman",
            "assets.rs",
            "raw/notes.txt",
            "raw/pic.bin"
        ]
    );
    assert_eq!(
        tree["raw/pic.bin"],
        fs::read(p.path("assets/raw/pic.png")).unwrap()
    );
}

#[test]
fn a_failing_processor_fails_its_edge_only_and_leaves_nothing_behind() {
    let config = CONFIG.replace(
        "tac $in > $out",
        "if grep -q BAD $in; then echo \"rev cannot reverse $in\" >&2; exit 3; fi; tac $in > $out",
    );
    let p = project();
    p.write("assetc.yml", config.as_bytes());
    p.write("assets/lines/bad.txt", b"BAD\n");
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the build must fail");
    assert!(
        run.stdout
            .contains("rev cannot reverse assets/lines/bad.txt"),
        "the processor's stderr is shown:\n{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "assetc-encode: error: assets/lines/bad.txt: processor 'rev' failed: exit status 3"
        ),
        "{}",
        run.stdout
    );
    assert!(
        p.path("runtime/reversed/lines/l.rev").is_file(),
        "-k 0 builds the rest"
    );
    assert!(p.path("runtime/text/a.up").is_file());
    assert!(!p.path("runtime/reversed/lines/bad.rev").exists());
    assert!(
        !p.path("runtime/assets.hman").exists(),
        "no manifest after a failure"
    );
    assert!(!p.path("runtime.hpack").exists());
    assert!(
        scratch_leftovers(&p).is_empty(),
        "{:?}",
        scratch_leftovers(&p)
    );
}

#[test]
fn a_processor_that_writes_nothing_or_the_wrong_kind_is_an_error() {
    let p = Project::new(
        "processors:\n  - name: lazy\n    match: \"*.a\"\n    command: \"true\"\n    extension: .out\n    kind: embed\n  - name: liar\n    match: \"*.b\"\n    command: cp $in $out\n    extension: .hmesh\n    kind: mesh\n",
    );
    p.write("assets/x.a", b"a");
    p.write("assets/y.b", b"not a mesh");
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(
        run.stdout.contains(
            "assets/x.a: processor 'lazy' exited successfully but did not write its output runtime/x.out"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("assets/y.b: processor 'liar' declared kind mesh but its output is not a valid mesh file"),
        "{}",
        run.stdout
    );
    assert!(!p.path("runtime/x.out").exists());
    assert!(!p.path("runtime/y.hmesh").exists());
    assert!(
        scratch_leftovers(&p).is_empty(),
        "{:?}",
        scratch_leftovers(&p)
    );
}

/// Copies the shipped example processor and the demo's map into a project.
fn tiled_project() -> Project {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = Project::new(
        "processors:\n  - name: tiled\n    match: \"maps/*.tmj\"\n    command: python3 tools/processors/tiled.py $in $out $depfile\n    extension: .tmap\n    kind: embed\n    inputs: [tools/processors/tiled.py]\n",
    );
    let script = fs::read(repo.join("tools/processors/tiled.py")).unwrap();
    p.write("tools/processors/tiled.py", &script);
    for name in ["level1.tmj", "terrain.tsj"] {
        let bytes = fs::read(repo.join("assets/data/maps").join(name)).unwrap();
        p.write(&format!("assets/maps/{name}"), &bytes);
    }
    p
}

#[test]
fn the_tiled_example_converts_the_map_and_tracks_its_tileset() {
    let p = tiled_project();
    p.build(&[]);
    let map = fs::read(p.path("runtime/maps/level1.tmap")).unwrap();
    assert_eq!(&map[..4], b"TMAP");
    let field = |at: usize| u32::from_le_bytes(map[at..at + 4].try_into().unwrap());
    assert_eq!((field(8), field(12)), (8, 6), "width and height in tiles");
    let text = String::from_utf8_lossy(&map);
    assert!(
        text.contains("maps/terrain"),
        "the tileset image's runtime id"
    );
    p.assert_no_op();

    p.touch("assets/maps/terrain.tsj");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(processed(&run), ["PROCESS tiled assets/maps/level1.tmj"]);
    p.touch("tools/processors/tiled.py");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(processed(&run), ["PROCESS tiled assets/maps/level1.tmj"]);
    p.assert_no_op();

    p.write("assets/maps/level1.tmj", b"{ \"width\": 1,");
    p.touch("assets/maps/level1.tmj");
    let run = p.ninja(&[]);
    assert!(!run.ok);
    assert!(
        run.stdout
            .contains("tiled.py: error: assets/maps/level1.tmj:1:14"),
        "{}",
        run.stdout
    );
    assert!(!p.path("runtime/maps/level1.tmap").exists());
}

/// Runs configure on `config` and returns its standard error.
fn configure_error(config: &str) -> String {
    Project::new(config).configure_error()
}

#[test]
fn bad_processor_configs_name_their_line() {
    let base = "processors:\n  - name: maps\n    match: \"*.tmj\"\n    command: cp $in $out\n    extension: .bin\n    kind: embed\n";
    let cases = [
        (
            base.replace("kind: embed", "kind: sprite"),
            "assetc.yml:6:11: processors[0]: unknown kind 'sprite'",
        ),
        (
            base.replace("name: maps", "name: my-maps"),
            "assetc.yml:2:11: processors[0]: bad name 'my-maps'",
        ),
        (
            base.replace("name: maps", "name: texture"),
            "assetc.yml:2:11: processor name 'texture' is taken",
        ),
        (
            base.replace("\"*.tmj\"", "\"[*.tmj\""),
            "assetc.yml:3:12: bad glob '[*.tmj'",
        ),
        (
            base.replace("kind: embed", "kind: texture"),
            "assetc.yml:5:16: processors[0]: kind texture outputs must end with '.ktx2'",
        ),
        (
            base.replace("extension: .bin", "output: \"{dir}/{base}.bin\""),
            "assetc.yml:5:13: processors[0]: bad output '{dir}/{base}.bin': unknown placeholder '{base}'",
        ),
        (
            base.replace("    extension: .bin\n", ""),
            "processors[0]: `output:` (a template such as",
        ),
        (
            base.replace("    command: cp $in $out\n", ""),
            "processors[0]: `command:` is required",
        ),
        (
            format!("{base}    inputs: [tools/missing.py]\n"),
            "assetc.yml:7:13: processors[0]: input 'tools/missing.py' is not a file",
        ),
        (
            format!(
                "{base}  - name: maps\n    match: a\n    command: c\n    extension: .x\n    kind: embed\n"
            ),
            "assetc.yml:7:11: processors[1]: processor 'maps' is defined twice",
        ),
    ];
    for (config, expected) in cases {
        let stderr = configure_error(&config);
        assert!(
            stderr.contains(expected),
            "expected {expected:?} in:\n{stderr}"
        );
    }
}

#[test]
fn unknown_processor_keys_are_warnings_with_their_line() {
    let p = Project::new(
        "processors:\n  - name: maps\n    match: \"*.tmj\"\n    comand: x\n    command: cp $in $out\n    extension: .bin\n    kind: embed\n",
    );
    let run = p.assetc(&["configure"]).expect_ok("configure");
    assert!(
        run.stderr.contains(
            "assetc.yml:4:5: unknown key 'processors[0].comand' (did you mean 'command'?)"
        ),
        "{}",
        run.stderr
    );
}
