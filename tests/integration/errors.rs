//! Bad input through the real pipeline: clear messages, no partial output.

use crate::common;
use crate::common::Project;

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

// ---------------------------------------------------------------------------
// Output-name clashes in a strict build, and the files configure ignores.

#[test]
fn a_strict_configure_names_every_clash_at_once_and_keeps_its_graph() {
    let p = Project::new(CONFIG);
    p.png("assets/ui/good.png", 2, 2, 1);
    p.build(&[]);
    let before = std::fs::read(p.path("build.ninja")).unwrap();
    p.png("assets/ui/Icon.png", 2, 2, 2);
    p.png("assets/ui/icon.jpg", 2, 2, 3);
    p.write(
        "assets/props/crate.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    p.write("assets/props/crate.glb", b"glTF");
    let run = p.assetc(&["configure"]);
    assert!(!run.ok);
    let input = p.path("assets");
    let expected = format!(
        "assetc: error: {}: 2 output clash(es): several sources would write one file, and no \
         source wins silently:\n  \
         props/crate.glb and props/crate.obj both write props/crate.hmat, props/crate.hmesh (a \
         runtime path drops the source's extension)\n  \
         ui/Icon.png and ui/icon.jpg both write ui/Icon.ktx2 (a runtime path drops the \
         source's extension, and paths and ids ignore case)\n\
         Rename one of them, or leave one out with an `exclude:` glob in assetc.yml; or build \
         the rest with `assetc configure --keep-going`\n",
        input.display()
    );
    assert!(run.stderr.ends_with(&expected), "{}", run.stderr);
    assert_eq!(std::fs::read(p.path("build.ninja")).unwrap(), before);
    // Ninja's own regeneration fails the same way and leaves the graph alone.
    let build = p.ninja(&[]);
    assert!(!build.ok);
    assert!(
        build.stderr.contains("2 output clash(es)") || build.stdout.contains("2 output clash(es)")
    );
    assert_eq!(std::fs::read(p.path("build.ninja")).unwrap(), before);
    assert!(!p.path(".assetc/default/clash").exists());
    // Ruling one of each pair out resolves them: the next build is green,
    // checked, then a no-op, and an excluded file is not listed as ignored.
    p.write(
        "assetc.yml",
        format!("{CONFIG}exclude: [\"ui/icon.jpg\", \"**/*.glb\"]\n").as_bytes(),
    );
    p.ninja(&[]).expect_ok("the build with exclude:");
    assert!(
        p.path("runtime/ui/Icon.ktx2").is_file() && p.path("runtime/props/crate.hmesh").is_file()
    );
    p.link(&["check"]).expect_ok("check");
    p.assert_no_op();
    let ignored = std::fs::read_to_string(p.path(".assetc/default/ignored.txt")).unwrap();
    assert_eq!(ignored, "");
}

#[test]
fn ignored_files_are_listed_by_extension_and_in_full() {
    let p = Project::new(CONFIG);
    p.png("assets/a.png", 2, 2, 1);
    for name in [
        "ui/d.psd",
        "ui/a.psd",
        "ui/c.psd",
        "ui/b.psd",
        "fonts/x.woff2",
        "notes.txt",
    ] {
        p.write(&format!("assets/{name}"), b"?");
    }
    let run = p.assetc(&["configure"]).expect_ok("configure");
    let expected = "assetc: ignored 6 file(s) that no kind, `embed:` glob or processor takes (all \
         listed in .assetc/default/ignored.txt):\n  \
         .psd 4 (ui/a.psd, ui/b.psd, ui/c.psd, …): `embed:` copies them verbatim, or a \
         `processors:` entry compiles them\n  \
         .txt 1 (notes.txt): `embed:` copies them verbatim, or a `processors:` entry compiles \
         them\n  \
         .woff2 1 (fonts/x.woff2): a future kind; until then `embed:` copies them verbatim, or \
         a `processors:` entry converts them\n";
    assert!(run.stdout.ends_with(expected), "{}", run.stdout);
    assert!(
        run.stdout.contains("1 assets (6 other files ignored)"),
        "{}",
        run.stdout
    );
    let list = p.path(".assetc/default/ignored.txt");
    let full = "fonts/x.woff2\nnotes.txt\nui/a.psd\nui/b.psd\nui/c.psd\nui/d.psd\n";
    assert_eq!(std::fs::read_to_string(&list).unwrap(), full);
    p.ninja(&[]).expect_ok("ninja");
    p.assert_no_op();
    // A new ignored file re-runs configure, which rewrites the list; nothing
    // else runs, and the next build is a no-op again.
    std::thread::sleep(std::time::Duration::from_millis(20));
    p.write("assets/ui/e.woff2", b"?");
    let again = p.ninja(&[]).expect_ok("ninja after a new ignored file");
    assert!(
        again
            .stdout
            .contains(".woff2 2 (fonts/x.woff2, ui/e.woff2): a future kind"),
        "{}",
        again.stdout
    );
    assert_eq!(again.edges().len(), 1, "{:?}", again.edges());
    assert!(
        std::fs::read_to_string(&list)
            .unwrap()
            .ends_with("ui/d.psd\nui/e.woff2\n")
    );
    p.assert_no_op();
}

// ---------------------------------------------------------------------------
// Messages about assetc.yml that point at the value and say what it must be.

/// `assetc configure`'s error line for `config` (the file's path shortened
/// to `assetc.yml`).
fn config_error(config: &str) -> String {
    let p = Project::new(config);
    let stderr = p.configure_error();
    let file = p.path("assetc.yml");
    stderr.replace(&file.display().to_string(), "assetc.yml")
}

#[test]
fn a_bad_value_in_assetc_yml_is_shown_at_its_value_as_written() {
    let stderr = config_error("input: assets\ndefault:\n  mesh:\n    meshlet_vertices: \"big\"\n");
    assert_eq!(
        stderr,
        "assetc: error: assetc.yml:4:23: invalid type: string \"big\", expected a number\n"
    );
}

#[test]
fn a_list_key_given_one_value_says_it_takes_a_list() {
    let stderr = config_error("input: assets\nembed: \"x\"\n");
    assert_eq!(
        stderr,
        "assetc: error: assetc.yml:2:8: 'embed' must be a list, e.g. embed: [\"x\"]\n"
    );
    let stderr = config_error("default:\n  rules: \"ui/*\"\n");
    assert!(
        stderr.starts_with(
            "assetc: error: assetc.yml:2:10: 'default.rules' must be a list of mappings"
        ),
        "{stderr}"
    );
}

#[test]
fn an_unknown_preset_in_the_file_is_shown_at_its_line_with_a_suggestion() {
    let config = "input: assets\npreset: phone\npresets:\n  desktop:\n  mobile:\n";
    assert_eq!(
        config_error(config),
        "assetc: error: assetc.yml:2:9: unknown preset 'phone'; available presets: desktop, \
         mobile\n"
    );
    assert_eq!(
        config_error(&config.replace("phone", "mobil")),
        "assetc: error: assetc.yml:2:9: unknown preset 'mobil' (did you mean 'mobile'?); \
         available presets: desktop, mobile\n"
    );
}

// ---------------------------------------------------------------------------
// A 0-byte source: every encoder that reads a file says it is empty.

#[test]
fn every_encoder_says_a_zero_byte_source_is_empty_and_an_empty_embed_builds() {
    let p = Project::new("input: assets\noutput: runtime\nembed: [\"data/*\"]\n");
    let sources = [
        "image.png",
        "font.ttf",
        "mesh.obj",
        "model.gltf",
        "grade.lut.cube",
        "sky.hdr",
        "fx.shader/main.frag",
    ];
    for source in sources {
        p.write(&format!("assets/{source}"), b"");
    }
    p.write("assets/data/blank.txt", b"");
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the empty sources must fail");
    for source in sources {
        let (file, shown) = match source.split_once('/') {
            Some((folder, _)) => (format!("assets/{folder}"), format!("assets/{source}")),
            None => (format!("assets/{source}"), format!("assets/{source}")),
        };
        assert!(
            run.stdout
                .contains(&format!("assetc-encode: error: {file}: ")),
            "{source}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains(&format!("{shown}: the file is empty")),
            "{source}: {}",
            run.stdout
        );
    }
    assert!(!run.stdout.contains("magic"), "{}", run.stdout);
    assert_eq!(
        std::fs::read(p.path("runtime/data/blank.txt")).unwrap(),
        b""
    );
}
