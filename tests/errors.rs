//! Bad input through the real pipeline: clear messages, no partial output.

mod common;

use common::Project;

const CONFIG: &str = r#"
input: assets
output: runtime
pack: true
default:
  texture: { compress: false }
"#;

#[test]
fn a_corrupt_png_fails_its_edge_only_and_leaves_nothing_behind() {
    let p = Project::new(CONFIG);
    p.png("assets/good.png", 4, 4, 1);
    let mut bad = common::rgba_png(4, 4, 2);
    bad.truncate(bad.len() / 2);
    p.write("assets/bad.png", &bad);
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the build must fail");
    assert!(
        run.stdout
            .contains("assetc-encode: error: assets/bad.png: cannot encode texture"),
        "{}",
        run.stdout
    );
    assert!(
        p.path("runtime/good.ktx2").is_file(),
        "-k 0 builds the rest"
    );
    assert!(!p.path("runtime/bad.ktx2").exists());
    assert!(
        !p.path("runtime/assets.hman").exists(),
        "no manifest after a failure"
    );
    assert!(!p.path("runtime.hpack").exists());
    let leftovers: Vec<String> = p
        .tree("runtime")
        .into_keys()
        .filter(|k| k.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_source_that_turns_bad_invalidates_the_old_manifest() {
    let p = Project::new(CONFIG);
    p.png("assets/a.png", 4, 4, 1);
    p.png("assets/b.png", 4, 4, 2);
    p.build(&[]);
    assert!(p.path("runtime/assets.hman").is_file());
    p.write("assets/b.png", b"\x89PNG\r\n\x1a\nnot really");
    p.touch("assets/b.png");
    assert!(!p.ninja(&[]).ok);
    assert!(
        !p.path("runtime/b.ktx2").exists(),
        "no stale output of the bad source"
    );
    assert!(!p.path("runtime/assets.hman").exists(), "no stale manifest");
    // Fixing the source brings everything back.
    p.png("assets/b.png", 4, 4, 3);
    p.touch("assets/b.png");
    p.ninja(&[]).expect_ok("ninja after the fix");
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
}

#[test]
fn unsupported_kinds_fail_with_a_clear_message() {
    let p = Project::new(CONFIG);
    p.write("assets/materials/wood.mat", b"not yet");
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(!run.ok);
    assert!(
        run.stdout.contains(
            "assetc-encode: error: assets/materials/wood.mat: material encoding is not supported yet"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn names_ninja_cannot_express_are_refused_at_configure() {
    let p = Project::new(CONFIG);
    p.png("assets/a|b.png", 2, 2, 1);
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    assert!(run.stderr.contains("a|b.png"), "{}", run.stderr);
    assert!(run.stderr.contains("'|'"), "{}", run.stderr);
    assert!(!p.path("build.ninja").exists());
}

#[test]
fn names_a_depfile_cannot_carry_are_refused_at_configure() {
    // Ninja 1.11 splits a depfile name at `?` (and `"`, `&`, `'`, `*`, ...),
    // so such an edge would never become clean: refuse it up front.
    let p = Project::new(&format!("{CONFIG}embed: [\"data/*\"]\n"));
    p.write("assets/data/why?.txt", b"x");
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains("why?.txt") && run.stderr.contains("'?'"),
        "{}",
        run.stderr
    );
    assert!(!p.path("build.ninja").exists());
}

#[test]
fn two_sources_with_one_output_are_refused() {
    let p = Project::new(CONFIG);
    p.png("assets/logo.png", 2, 2, 1);
    p.write("assets/logo.jpg", b"");
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    assert!(run.stderr.contains("logo.ktx2"), "{}", run.stderr);
    assert!(run.stderr.contains("logo.jpg") && run.stderr.contains("logo.png"));
}

#[test]
fn ids_that_collide_across_kinds_fail_the_link_naming_both() {
    // `Icon.ktx2` as a texture has id hash("icon"); the embed "icon" has the same.
    let p = Project::new(&format!("{CONFIG}embed: [\"icon\"]\n"));
    p.png("assets/Icon.png", 2, 2, 1);
    p.build(&[]);
    assert!(p.path("runtime/assets.hman").is_file() && p.path("runtime.hpack").is_file());
    p.write("assets/icon", b"raw");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(run.stdout.contains("collides"), "{}", run.stdout);
    assert!(run.stdout.contains("Icon.ktx2") && run.stdout.contains("'icon'"));
    assert!(!p.path("runtime/assets.hman").exists(), "no stale manifest");
    assert!(!p.path("runtime.hpack").exists(), "no stale pack");
}

#[test]
fn config_errors_name_the_file_and_line() {
    let p = Project::new("input: assets\ndefault:\n  texture:\n    compress: maybe\n");
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    assert!(run.stderr.contains("assetc.yml:4"), "{}", run.stderr);
}

#[test]
fn an_unknown_preset_lists_the_available_ones() {
    let p = Project::new("presets:\n  desktop: {}\n  mobile: {}\n");
    let run = p.assetc(&["configure", "--preset", "console"]);
    assert!(!run.ok);
    assert!(run.stderr.contains("console"), "{}", run.stderr);
    assert!(run.stderr.contains("desktop") && run.stderr.contains("mobile"));
}

#[test]
fn check_reports_orphans_missing_files_and_a_stale_pack() {
    let p = Project::new(CONFIG);
    p.png("assets/a.png", 4, 4, 1);
    p.png("assets/b.png", 4, 4, 2);
    p.build(&[]);
    p.write("runtime/stray.bin", b"?");
    std::fs::remove_file(p.path("runtime/a.ktx2")).unwrap();
    p.write("runtime/b.ktx2", b"tampered");
    let run = p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"]);
    assert!(!run.ok);
    for expected in [
        "stray.bin: orphan",
        "a.ktx2: listed in the manifest but missing",
        "b.ktx2: invalid KTX2",
        "runtime.hpack: b.ktx2: differs from the file in the output folder",
    ] {
        assert!(
            run.stderr.contains(expected),
            "missing `{expected}` in:\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_symlink_loop_in_the_input_is_a_clear_error() {
    let p = Project::new(CONFIG);
    p.png("assets/a/x.png", 2, 2, 1);
    std::os::unix::fs::symlink(p.path("assets"), p.path("assets/a/loop")).unwrap();
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    assert!(run.stderr.contains("assets/a/loop"), "{}", run.stderr);
    assert!(run.stderr.contains("symbolic link loop"), "{}", run.stderr);
}

#[test]
fn an_output_folder_that_holds_the_sources_is_refused() {
    for output in ["assets", ".", "assets/.."] {
        let p = Project::new(&format!("output: \"{output}\"\n"));
        p.png("assets/a.png", 2, 2, 1);
        let run = p.assetc(&["configure"]);
        assert!(!run.ok, "output {output} must be refused");
        assert!(
            run.stderr
                .contains("must not be or contain the input folder"),
            "{}",
            run.stderr
        );
        assert!(!p.path("build.ninja").exists());
    }
}
