//! What `assetc configure` remembers (`<build-dir>/configured.json` and the
//! `.assetc/configured` pointer), and the commands that use it: plain
//! `assetc`, `assetc build`, `assetc-link check`, `assetc info`, `assetc pack
//! info` and `assetc view`, plus Ninja's regeneration edge. Also the
//! messages of the same code: stale outputs, a missing pack, `assetc init`.

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::common::watch::Watch;
use crate::common::{ASSETC, Project};

/// A project whose file says `preset: desktop`, with no `pack:`.
fn two_presets() -> Project {
    let p = Project::new(
        "preset: desktop\ndefault:\n  texture: { compress: false }\npresets:\n  desktop:\n    output: runtime/desktop\n  mobile:\n    output: runtime/mobile\n",
    );
    p.png("assets/a.png", 4, 4, 1);
    p.png("assets/b.png", 4, 4, 2);
    p
}

/// The regeneration command Ninja runs, from `build.ninja`.
fn regeneration_command(p: &Project) -> String {
    let ninja = fs::read_to_string(p.path("build.ninja")).unwrap();
    let mut lines = ninja.lines();
    lines.find(|line| *line == "rule configure");
    lines
        .next()
        .and_then(|line| line.trim().strip_prefix("command = "))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no configure rule:\n{ninja}"))
}

/// Panics showing `text` unless it contains `part`.
fn assert_has(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} not in:\n{text}");
}

/// Runs `assetc configure <args>`, which must print `note` first and leave
/// a regeneration command ending with `command_end`.
fn reconfigure(p: &Project, args: &[&str], note: &str, command_end: &str) {
    let mut all = vec!["configure"];
    all.extend_from_slice(args);
    let run = p.assetc(&all).expect_ok("configure");
    assert!(run.stdout.starts_with(note), "{}", run.stdout);
    let command = regeneration_command(p);
    assert!(command.ends_with(command_end), "{command}");
}

/// The first line `assetc view --port 0` prints in the project folder.
fn view_banner(p: &Project) -> String {
    let mut child = Command::new(ASSETC)
        .args(["view", "--port", "0"])
        .current_dir(p.root())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("assetc view starts");
    let mut line = String::new();
    let read = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let _ = child.kill();
    let _ = child.wait();
    read.expect("assetc view prints its address");
    line
}

#[test]
fn the_commands_after_configure_look_at_the_configured_preset_and_pack() {
    let p = two_presets();
    p.build(&["--preset", "mobile", "--pack"]);
    assert!(p.path("runtime/mobile.hpack").is_file());
    let pointer = fs::read_to_string(p.path(".assetc/configured")).unwrap();
    assert_eq!(pointer, ".assetc/mobile\n");
    let record = fs::read_to_string(p.path(".assetc/mobile/configured.json")).unwrap();
    assert!(
        record.contains("\"output\": \"runtime/mobile\""),
        "{record}"
    );

    let check = p.link(&["check"]).expect_ok("plain check");
    assert!(
        check.stdout.starts_with("runtime/mobile: ok") && check.stdout.contains("pack consistent"),
        "{}",
        check.stdout
    );
    let info = p.assetc(&["info"]).expect_ok("plain info");
    assert!(
        info.stdout.starts_with("runtime/mobile: "),
        "{}",
        info.stdout
    );
    let pack = p.assetc(&["pack", "info"]).expect_ok("plain pack info");
    assert!(
        pack.stdout.starts_with("runtime/mobile.hpack: HPAK"),
        "{}",
        pack.stdout
    );
    assert!(
        view_banner(&p).starts_with("assetc view: serving runtime/mobile at "),
        "the inspector serves the configured output"
    );
    // `--preset` still picks another preset's output.
    let desktop = p.assetc(&["info", "--preset", "desktop"]);
    assert!(
        desktop.stderr.contains("runtime/desktop"),
        "{}",
        desktop.stderr
    );

    // A plain `assetc` configures the same build again and keeps the pack.
    let again = p.assetc(&[]).expect_ok("plain assetc");
    assert_has(
        &again.stdout,
        "assetc: using preset mobile, --pack (from .assetc/mobile; --fresh to forget)\n",
    );
    assert!(!again.stdout.contains("removed"), "{}", again.stdout);
    assert!(
        again.stdout.contains("build.ninja unchanged"),
        "{}",
        again.stdout
    );
    assert!(p.path("runtime/mobile.hpack").is_file());
    p.assert_no_op();

    // `assetc build` without a graph configures from the record.
    fs::remove_file(p.path("build.ninja")).unwrap();
    let built = p.assetc(&["build"]).expect_ok("assetc build");
    assert!(
        built.stdout.contains("using preset mobile, --pack"),
        "{}",
        built.stdout
    );
    assert!(!p.path("runtime/desktop").exists());
    assert!(p.path("runtime/mobile.hpack").is_file());
}

#[test]
fn watch_publishes_the_configured_output() {
    let p = two_presets();
    p.build(&["--preset", "mobile"]);
    let mut watch = Watch::start(&p);
    p.png("assets/a.png", 4, 4, 9);
    let build = watch.next();
    drop(watch);
    assert!(build.ok, "{:?}", build.errors);
    let changed: Vec<(&str, bool)> = build
        .changed
        .iter()
        .map(|file| (file.path.as_str(), file.id.is_some()))
        .collect();
    assert_eq!(
        changed,
        [("a.ktx2", true)],
        "mobile's output, its manifest ids"
    );
    assert!(!p.path("runtime/desktop").exists());
}

#[test]
fn a_flag_given_again_replaces_the_remembered_one_and_fresh_forgets() {
    let p = two_presets();
    p.assetc(&["configure", "--pack", "--keep-going", "--launcher", "env"])
        .expect_ok("configure");
    reconfigure(
        &p,
        &["-o", "elsewhere"],
        "assetc: using --pack, --keep-going, --launcher 'env' (from .assetc/desktop; --fresh to forget)\n",
        " configure -o elsewhere --pack --keep-going --launcher env",
    );
    p.ninja(&[]).expect_ok("ninja");
    assert!(p.path("elsewhere.hpack").is_file());
    reconfigure(
        &p,
        &["-o", "other", "--no-pack"],
        "assetc: using --keep-going, --launcher 'env' (from",
        " configure -o other --keep-going --launcher env",
    );

    let fresh = p.assetc(&["configure", "--fresh"]).expect_ok("--fresh");
    assert!(!fresh.stdout.contains("using"), "{}", fresh.stdout);
    assert!(regeneration_command(&p).ends_with(" configure"));
    let record = fs::read_to_string(p.path(".assetc/desktop/configured.json")).unwrap();
    assert!(record.contains("\"pack\": false"), "{record}");
    assert!(record.contains("\"launcher\": null"), "{record}");
    let plain = p.assetc(&["configure"]).expect_ok("configure");
    assert!(!plain.stdout.contains("using"), "{}", plain.stdout);
}

#[test]
fn a_preset_switch_takes_that_presets_own_record() {
    let p = two_presets();
    p.assetc(&["configure", "--preset", "mobile", "--pack"])
        .expect_ok("mobile");
    let desktop = p
        .assetc(&["configure", "--preset", "desktop"])
        .expect_ok("desktop");
    assert!(!desktop.stdout.contains("using"), "{}", desktop.stdout);
    assert!(!regeneration_command(&p).contains("--pack"));
    let back = p
        .assetc(&["configure", "--preset", "mobile"])
        .expect_ok("back");
    assert!(
        back.stdout
            .starts_with("assetc: using --pack (from .assetc/mobile;"),
        "{}",
        back.stdout
    );
}

#[test]
fn the_regeneration_edge_configures_with_the_remembered_settings() {
    let p = two_presets();
    p.build(&["--preset", "mobile", "--pack"]);
    let record = fs::read(p.path(".assetc/mobile/configured.json")).unwrap();
    let config = fs::read_to_string(p.path("assetc.yml")).unwrap();
    p.write(
        "assetc.yml",
        config
            .replace("compress: false", "compress: false, mips: false")
            .as_bytes(),
    );
    let run = p.ninja(&[]).expect_ok("ninja after the edit");
    let edges = run.edges();
    assert!(
        edges.iter().any(|e| e.starts_with("CONFIGURE")),
        "{edges:?}"
    );
    assert!(
        edges.iter().any(|e| e.ends_with("runtime/mobile.hpack")),
        "{edges:?}"
    );
    assert!(p.path("runtime/mobile.hpack").is_file());
    assert!(!p.path("runtime/desktop").exists());
    assert_eq!(
        fs::read(p.path(".assetc/mobile/configured.json")).unwrap(),
        record
    );
    p.assert_no_op();
}

#[test]
fn stale_outputs_are_named_and_internal_files_only_counted() {
    let p = two_presets();
    p.build(&[]);
    fs::remove_file(p.path("assets/b.png")).unwrap();
    let run = p.assetc(&["configure"]).expect_ok("configure");
    assert_has(
        &run.stdout,
        "assetc: removed stale output runtime/desktop/b.ktx2\n",
    );
    assert_has(
        &run.stdout,
        "assetc: removed 1 stale build file(s) of deleted sources from .assetc/desktop\n",
    );
    assert!(!run.stdout.contains(".frag"), "{}", run.stdout);
}

#[test]
fn pack_info_without_a_pack_says_how_to_make_one() {
    let p = two_presets();
    p.build(&[]);
    let run = p.assetc(&["pack", "info"]);
    assert!(!run.ok);
    assert_eq!(
        run.stderr,
        "assetc: error: runtime/desktop.hpack: does not exist: configure with --pack \
         (or `pack: true` in assetc.yml) and build to make it\n"
    );
    p.assetc(&["configure", "--pack"])
        .expect_ok("configure --pack");
    let run = p.assetc(&["pack", "info"]);
    assert_eq!(
        run.stderr,
        "assetc: error: runtime/desktop.hpack: does not exist: build to make it \
         (`assetc build`, or `ninja`)\n"
    );
}

#[test]
fn a_broken_record_is_named_and_fresh_gets_past_it() {
    let p = two_presets();
    p.assetc(&["configure"]).expect_ok("configure");
    let ninja = fs::read(p.path("build.ninja")).unwrap();
    p.write(".assetc/desktop/configured.json", b"{ \"schema\": 1");
    let run = p.assetc(&["configure", "--pack"]);
    assert!(!run.ok);
    assert!(
        run.stderr.starts_with("assetc: error: ")
            && run
                .stderr
                .contains(".assetc/desktop/configured.json: not a configure record")
            && run.stderr.contains("`assetc configure --fresh` forgets it"),
        "{}",
        run.stderr
    );
    assert_eq!(
        fs::read(p.path("build.ninja")).unwrap(),
        ninja,
        "nothing written"
    );
    let check = p.link(&["check"]);
    assert!(
        !check.ok && check.stderr.contains("configured.json"),
        "{}",
        check.stderr
    );
    p.assetc(&["configure", "--fresh"]).expect_ok("--fresh");
}

#[test]
fn init_names_the_next_commands() {
    let p = Project::new("");
    fs::remove_file(p.path("assetc.yml")).unwrap();
    let run = p.assetc(&["init"]).expect_ok("init");
    assert_eq!(
        run.stdout,
        "assetc: wrote ./assetc.yml\nnext steps:\n  put source files under assets/ (the `input:` folder), then\n  \
         assetc build    configure and compile them (or: assetc configure && ninja)\n  \
         assetc view     browse what was built in a web page\n"
    );
}
