//! Generated asset-id files (`assetc-link ids`) through real `assetc
//! configure` and `ninja`: the C header compiled as strict C99 and C++17 next
//! to `include/assetc.h` and checked against `assetc_hash`, the Rust module
//! compiled by `rustc -D warnings`, every value against the manifest and
//! `asset_hash`, incremental behaviour, collisions, and the `ids:` key.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use crate::common::Project;
use assetc::format::hash::asset_hash;
use assetc::format::hman;
use assetc::format::kind::AssetKind;

const CONFIG: &str = r#"
embed: ["data/*"]
default:
  texture: { compress: false, mips: false }
"#;

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A project with a mesh (and its texture), standalone textures of two
/// modes, two embedded files, and names that need sanitising (a leading
/// digit, non-ASCII, spaces, `#` and `$`).
fn project(config: &str) -> Project {
    let p = Project::new(config);
    for file in ["crate.gltf", "crate.bin", "crate_color.png"] {
        let bytes = std::fs::read(repo().join("assets/models").join(file)).unwrap();
        p.write(&format!("assets/models/{file}"), &bytes);
    }
    p.png("assets/ui/button.png", 4, 4, 1);
    p.png("assets/3d/rock.n.png", 4, 4, 2);
    p.png("assets/ui/café.png", 4, 4, 3);
    p.write("assets/data/level1.json", b"{}\n");
    p.write("assets/data/odd #1 $name.bin", b"\x00\xff");
    p
}

/// `#define NAME UINT64_C(0x…)` lines of a C header, by name.
fn c_defines(header: &str) -> BTreeMap<String, u64> {
    header
        .lines()
        .filter_map(|line| line.strip_prefix("#define "))
        .filter_map(|rest| rest.split_once(" UINT64_C(0x"))
        .map(|(name, value)| {
            let hex = value.trim_end_matches(')');
            (name.to_string(), u64::from_str_radix(hex, 16).unwrap())
        })
        .collect()
}

/// `pub const NAME: u64 = 0x…;` lines of a Rust module, by name.
fn rust_consts(module: &str) -> BTreeMap<String, u64> {
    module
        .lines()
        .filter_map(|line| line.strip_prefix("pub const "))
        .filter_map(|rest| rest.split_once(": u64 = 0x"))
        .map(|(name, value)| {
            let hex = value.trim_end_matches(';');
            (name.to_string(), u64::from_str_radix(hex, 16).unwrap())
        })
        .collect()
}

/// Every manifest entry of `root/assets.hman`: (kind, path, id).
fn manifest_entries(p: &Project, root: &str) -> Vec<(AssetKind, String, u64)> {
    let bytes = std::fs::read(p.path(&format!("{root}/assets.hman"))).unwrap();
    let manifest = hman::parse(&bytes).unwrap();
    manifest
        .iter()
        .map(|e| (e.kind, e.path.to_string(), e.hash))
        .collect()
}

fn read(p: &Project, rel: &str) -> String {
    std::fs::read_to_string(p.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn mtime(p: &Project, rel: &str) -> SystemTime {
    std::fs::metadata(p.path(rel)).unwrap().modified().unwrap()
}

#[test]
fn both_files_list_every_manifest_entry_with_its_hash() {
    let p = project(CONFIG);
    p.build(&[]);
    let header = read(&p, "runtime/assets.h");
    let module = read(&p, "runtime/assets.rs");
    let c = c_defines(&header);
    assert_eq!(c, rust_consts(&module), "C and Rust list the same ids");
    let entries = manifest_entries(&p, "runtime");
    assert_eq!(c.len(), entries.len());
    for (kind, path, id) in &entries {
        assert_eq!(*id, asset_hash(kind.hash_ref(path)), "{path}");
        let name = c
            .iter()
            .find(|(_, value)| *value == id)
            .map(|(name, _)| name.as_str())
            .unwrap_or_else(|| panic!("{path} has no constant"));
        assert!(header.contains(&format!("/* {path} ({kind}) */\n#define {name} ")));
        assert!(module.contains(&format!("({name}, {path:?}),")), "{path}");
    }
    for expected in [
        "MESH_MODELS_CRATE",
        "MATERIAL_MODELS_CRATE",
        "TEXTURE_MODELS_CRATE_TEX_0",
        "TEXTURE_UI_BUTTON",
        "TEXTURE_3D_ROCK_N",
        "TEXTURE_UI_CAF_UE9",
        "EMBED_DATA_LEVEL1_JSON",
        "EMBED_DATA_ODD_1_NAME_BIN",
    ] {
        assert!(c.contains_key(expected), "{expected} missing from {c:?}");
    }
    let names: Vec<&String> = c.keys().collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "sorted by name");
    assert!(header.contains(&format!("#define ASSETC_ID_COUNT {}u", entries.len())));
    p.link(&["check"])
        .expect_ok("check with the id files in place");
    p.assert_no_op();
}

/// The C compiler: `$CC`, else `cc`.
fn c_compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// The C++ compiler: `$CXX`, else `c++`.
fn cxx_compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// Runs a command, failing the test with its output unless it succeeds.
fn run_ok(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{program}` ({e}); install it or set CC/CXX"));
    assert!(
        output.status.success(),
        "`{program} {}` failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A C program that checks every id of the header two ways: through the
/// X-macro list against `assetc_id_for_path`, and each constant against
/// `assetc_hash` of the id string computed here.
fn c_program(entries: &[(AssetKind, String, u64)], names: &BTreeMap<String, u64>) -> String {
    let mut text = String::from(
        "#include <stdio.h>\n#include <string.h>\n#include \"assetc.h\"\n#include \"assets.h\"\n\n\
         static int failures = 0;\n\
         #define CHECK_ENTRY(name, kind, path) \\\n    \
         if (assetc_id_for_path((uint8_t)(kind), (path), strlen(path)) != (name)) { \\\n        \
         printf(\"mismatch: %s\\n\", #name); ++failures; }\n\n\
         int main(void)\n{\n    ASSETC_ID_LIST(CHECK_ENTRY)\n",
    );
    for (kind, path, id) in entries {
        let name = names.iter().find(|(_, v)| *v == id).unwrap().0;
        let id_string = kind.hash_ref(path);
        let literal: String = id_string
            .bytes()
            .map(|b| match b {
                b' '..=b'~' if b != b'"' && b != b'\\' && b != b'?' => char::from(b).to_string(),
                _ => format!("\\{b:03o}"),
            })
            .collect();
        let _ = writeln!(
            text,
            "    if (assetc_hash(\"{literal}\", {}) != {name}) {{ printf(\"hash: {name}\\n\"); ++failures; }}",
            id_string.len()
        );
    }
    text.push_str(
        "    printf(\"%u ids, %d failures\\n\", (unsigned)ASSETC_ID_COUNT, failures);\n    \
         return failures != 0;\n}\n",
    );
    text
}

#[test]
fn the_c_header_compiles_strictly_and_agrees_with_assetc_hash() {
    let p = project(CONFIG);
    p.build(&[]);
    let header = read(&p, "runtime/assets.h");
    let entries = manifest_entries(&p, "runtime");
    let program = c_program(&entries, &c_defines(&header));
    p.write("c/check_ids.c", program.as_bytes());
    p.write("c/check_ids.cpp", program.as_bytes());
    let include = repo().join("include");
    let runtime = p.path("runtime");
    let expected = format!("{} ids, 0 failures\n", entries.len());
    for (compiler, standard, source) in [
        (c_compiler(), "-std=c99", "c/check_ids.c"),
        (cxx_compiler(), "-std=c++17", "c/check_ids.cpp"),
    ] {
        let exe = p.path(&format!("{source}.exe"));
        run_ok(
            &compiler,
            &[
                standard,
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-I",
                include.to_str().unwrap(),
                "-I",
                runtime.to_str().unwrap(),
                p.path(source).to_str().unwrap(),
                "-o",
                exe.to_str().unwrap(),
            ],
        );
        assert_eq!(run_ok(exe.to_str().unwrap(), &[]), expected, "{compiler}");
    }
}

/// `rustc`: `$RUSTC`, else the one on the PATH.
fn rustc() -> String {
    std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into())
}

#[test]
fn the_rust_module_compiles_without_warnings_and_lists_every_path() {
    let p = project(CONFIG);
    p.build(&[]);
    let module = p.path("runtime/assets.rs");
    let out = p.path("rust");
    std::fs::create_dir_all(&out).unwrap();
    let out_dir = out.to_str().unwrap();
    run_ok(
        &rustc(),
        &[
            "--edition",
            "2021",
            "--crate-type",
            "lib",
            "-D",
            "warnings",
            "--out-dir",
            out_dir,
            module.to_str().unwrap(),
        ],
    );
    let main = format!(
        "pub mod assets {{\n    include!({:?});\n}}\n\nfn main() {{\n    \
         for (id, path) in assets::ALL {{\n        println!(\"{{id:016x}} {{path}}\");\n    }}\n}}\n",
        module.to_str().unwrap()
    );
    p.write("rust/main.rs", main.as_bytes());
    let exe = p.path("rust/list_ids");
    run_ok(
        &rustc(),
        &[
            "--edition",
            "2021",
            "-D",
            "warnings",
            "-o",
            exe.to_str().unwrap(),
            p.path("rust/main.rs").to_str().unwrap(),
        ],
    );
    let mut listed: Vec<String> = run_ok(exe.to_str().unwrap(), &[])
        .lines()
        .map(str::to_string)
        .collect();
    listed.sort();
    let mut expected: Vec<String> = manifest_entries(&p, "runtime")
        .iter()
        .map(|(_, path, id)| format!("{id:016x} {path}"))
        .collect();
    expected.sort();
    assert_eq!(listed, expected);
}

#[test]
fn unchanged_ids_are_not_rewritten_and_a_new_asset_is_added() {
    let p = project(CONFIG);
    p.build(&[]);
    let (c_before, rust_before) = (
        mtime(&p, "runtime/assets.h"),
        mtime(&p, "runtime/assets.rs"),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    // New pixels: the texture, its fragment and its folder's part edge run
    // again, but the folder's entries part is unchanged, so the ids step is
    // skipped and neither file is written.
    p.png("assets/ui/button.png", 4, 4, 9);
    let run = p.ninja(&[]).expect_ok("ninja after an edit");
    assert!(
        !run.edges().iter().any(|e| e.starts_with("IDS ")),
        "{:?}",
        run.edges()
    );
    assert_eq!(mtime(&p, "runtime/assets.h"), c_before);
    assert_eq!(mtime(&p, "runtime/assets.rs"), rust_before);
    p.assert_no_op();

    p.png("assets/ui/new icon.png", 4, 4, 4);
    p.ninja(&[]).expect_ok("ninja after adding a source");
    for file in ["runtime/assets.h", "runtime/assets.rs"] {
        let text = read(&p, file);
        assert!(text.contains("TEXTURE_UI_NEW_ICON"), "{file}:\n{text}");
    }
    assert_ne!(mtime(&p, "runtime/assets.h"), c_before);
    p.assert_no_op();

    std::fs::remove_file(p.path("assets/data/level1.json")).unwrap();
    p.ninja(&[]).expect_ok("ninja after deleting a source");
    assert!(!read(&p, "runtime/assets.h").contains("EMBED_DATA_LEVEL1_JSON"));
    assert!(!read(&p, "runtime/assets.rs").contains("EMBED_DATA_LEVEL1_JSON"));
}

#[test]
fn two_paths_with_one_name_fail_the_ids_edge_alone() {
    let p = Project::new(CONFIG);
    p.png("assets/ui/my-logo.png", 2, 2, 1);
    p.png("assets/ui/my_logo.png", 2, 2, 2);
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the ids edge must fail");
    let message = format!("{}{}", run.stdout, run.stderr);
    for expected in [
        "runtime/assets.h: 'ui/my-logo.ktx2' (from 'ui/my-logo.png')",
        "'ui/my_logo.ktx2' (from 'ui/my_logo.png')",
        "TEXTURE_UI_MY_LOGO",
    ] {
        assert!(
            message.contains(expected),
            "missing `{expected}`:\n{message}"
        );
    }
    assert!(!p.path("runtime/assets.h").exists(), "no partial header");
    assert!(!p.path("runtime/assets.rs").exists(), "no partial module");
    assert!(
        p.path("runtime/assets.hman").is_file(),
        "the manifest still builds"
    );

    std::fs::remove_file(p.path("assets/ui/my_logo.png")).unwrap();
    p.ninja(&[]).expect_ok("ninja once the clash is gone");
    assert!(read(&p, "runtime/assets.h").contains("TEXTURE_UI_MY_LOGO"));
}

#[test]
fn the_ids_key_moves_or_removes_the_files() {
    let custom = format!("{CONFIG}ids:\n  c: include/game_assets.h\n  rust: src/game_assets.rs\n");
    let p = project(CONFIG);
    p.build(&[]);
    assert!(p.path("runtime/assets.h").is_file());

    p.write("assetc.yml", custom.as_bytes());
    p.ninja(&[]).expect_ok("ninja after moving the id files");
    assert!(
        !p.path("runtime/assets.h").exists(),
        "the old files are removed"
    );
    assert!(!p.path("runtime/assets.rs").exists());
    let header = read(&p, "include/game_assets.h");
    assert_eq!(
        c_defines(&header),
        rust_consts(&read(&p, "src/game_assets.rs"))
    );
    assert!(header.contains("MESH_MODELS_CRATE"));
    p.assert_no_op();
    p.link(&["check"]).expect_ok("check");

    p.write("assetc.yml", format!("{CONFIG}ids: false\n").as_bytes());
    let run = p.ninja(&[]).expect_ok("ninja with ids off");
    assert!(!run.edges().iter().any(|e| e.starts_with("IDS")));
    assert!(!p.path("include/game_assets.h").exists());
    assert!(!read(&p, "build.ninja").contains("link_ids "));
}

/// `assetc configure` output for `config`, expected to fail.
fn configure_error(config: &str) -> String {
    let p = Project::new(config);
    p.png("assets/a.png", 2, 2, 1);
    p.write("assets/assets.h", b"/* not ours */\n");
    p.configure_error()
}

#[test]
fn bad_ids_settings_are_config_errors_with_lines() {
    let message = configure_error("input: assets\nids:\n  c: assets/gen/ids.h\n");
    assert!(message.contains("assetc.yml:3:6: ids.c:"), "{message}");
    assert!(message.contains("inside the input folder"), "{message}");

    let message = configure_error("ids:\n  rust: runtime/gen/ids.rs\n");
    assert!(message.contains("assetc.yml:2:9: ids.rust:"), "{message}");
    assert!(message.contains("inside the output folder"), "{message}");

    let message = configure_error("ids:\n  header: x.h\n");
    assert!(message.contains("assetc.yml:2:"), "{message}");

    // An embedded source whose copy would be the header.
    let message = configure_error("embed: [\"*.h\"]\n");
    assert!(
        message.contains("assets/assets.h: output 'assets.h' is also produced by 'assetc-link ids"),
        "{message}"
    );
}

#[test]
fn the_ids_step_runs_by_hand_with_either_file() {
    let p = project(CONFIG);
    p.build(&[]);
    let list = ".assetc/default/fragments.list";
    p.link(&["ids", "--fragments", list, "--rust", "by-hand/ids.rs"])
        .expect_ok("ids --rust");
    assert_eq!(read(&p, "by-hand/ids.rs"), read(&p, "runtime/assets.rs"));
    assert!(!p.path("by-hand/assets.h").exists());
    let run = p.link(&["ids", "--fragments", list]);
    assert!(!run.ok, "at least one file is required");
    let missing = p.link(&["ids", "--fragments", "nope.list", "--c", "x.h"]);
    assert!(!missing.ok);
    assert!(missing.stderr.contains("nope.list"), "{}", missing.stderr);
    assert!(!p.path("x.h").exists());
}
