//! `assetc info`, `assetc pack info` and `assetc-link check --json` on a real
//! build of the demo project: golden outputs (re-bless with `ASSETC_BLESS=1`),
//! JSON figures cross-checked against the format readers, and corrupt files.

use std::fs;

use crate::common::{Project, Run, assert_golden, shared};
use assetc::format::{hmesh, hpack};
use serde_json::Value;

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.stdout))
}

#[test]
fn the_demo_reports_match_their_golden_files() {
    let p = shared::demo();
    let cases: [(&[&str], &str); 4] = [
        (&["info"], "inspect/info.txt"),
        (&["info", "--json"], "inspect/info.json"),
        (&["pack", "info"], "inspect/pack-info.txt"),
        (&["pack", "info", "--json"], "inspect/pack-info.json"),
    ];
    for (args, golden) in cases {
        let run = p.assetc(args).expect_ok(&args.join(" "));
        assert_golden(run.stdout.as_bytes(), golden);
    }
    let check = p.link(&["check", "--json"]).expect_ok("check --json");
    assert_golden(check.stdout.as_bytes(), "inspect/check.json");
}

#[test]
fn info_json_figures_add_up_and_agree_with_the_readers() {
    let p = shared::demo();
    let report = json(&p.assetc(&["info", "--json"]).expect_ok("info --json"));
    assert_eq!(report["schema"], "assetc-info/1");
    let files = report["files"].as_array().unwrap();
    let tree = p.tree("runtime/desktop");
    assert_eq!(files.len(), tree.len(), "one report per file");
    let totals = &report["totals"];
    assert_eq!(totals["files"], files.len());
    let bytes: u64 = files.iter().map(|f| f["bytes"].as_u64().unwrap()).sum();
    assert_eq!(totals["bytes"], bytes);
    let mut vertices = 0;
    for file in files.iter().filter(|f| f["type"] == "mesh") {
        let path = file["path"].as_str().unwrap();
        let mesh = hmesh::read_hmesh(&tree[path]).unwrap();
        assert_eq!(file["vertices"], mesh.vertices.len(), "{path}");
        assert_eq!(file["triangles"], mesh.indices.len() / 3, "{path}");
        assert_eq!(file["meshlets"], mesh.meshlets.len(), "{path}");
        assert_eq!(file["joints"], mesh.skeleton.len(), "{path}");
        vertices += mesh.vertices.len();
    }
    assert!(vertices > 0, "the demo has meshes");
    assert_eq!(totals["vertices"], vertices);
    assert_eq!(totals["invalid"], 0);
    let skybox = files.iter().find(|f| f["path"] == "sky.env.ktx2").unwrap();
    assert_eq!(skybox["faces"], 6);
    assert_eq!(skybox["transfer"], "srgb");
}

#[test]
fn pack_info_layout_adds_up_to_the_file_size() {
    let p = shared::demo();
    let report = json(&p.assetc(&["pack", "info", "--json"]).expect_ok("pack info"));
    let layout = &report["layout"];
    let part = |name: &str| layout[name].as_u64().unwrap();
    let file = fs::read(p.path("runtime/desktop.hpack")).unwrap();
    assert_eq!(part("file"), file.len() as u64);
    assert_eq!(
        part("header") + part("toc") + part("payload") + part("padding"),
        part("file")
    );
    let pack = hpack::parse(&file).unwrap();
    let entries = report["entries"].as_array().unwrap();
    assert_eq!(entries.len(), pack.len());
    for (shown, entry) in entries.iter().zip(pack.iter()) {
        assert_eq!(shown["path"], entry.path);
        assert_eq!(shown["offset"], entry.offset);
        assert_eq!(shown["size"], entry.size);
    }
}

#[test]
fn a_corrupt_mesh_fails_info_and_check_naming_the_file() {
    let p = Project::built_demo();
    let mesh = p.path("runtime/desktop/models/crate.hmesh");
    let bytes = fs::read(&mesh).unwrap();
    fs::write(&mesh, &bytes[..bytes.len() / 2]).unwrap();

    let info = p.assetc(&["info"]);
    assert!(!info.ok, "info must fail:\n{}", info.stdout);
    let line = info
        .stdout
        .lines()
        .find(|l| l.contains("models/crate.hmesh"))
        .unwrap();
    assert!(line.contains("not a valid mesh file: offset"), "{line}");
    assert!(
        info.stderr.contains("assetc: error: 1 file(s)"),
        "{}",
        info.stderr
    );

    let check = p.link(&["check", "--json"]);
    assert!(!check.ok);
    let report = json(&check);
    assert_eq!(report["ok"], false);
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|pr| pr["path"] == "models/crate.hmesh"
            && pr["what"].as_str().unwrap().contains("invalid .hmesh")),
        "{problems:?}"
    );
}

#[test]
fn a_truncated_pack_is_an_error_with_the_offset() {
    let p = Project::built_demo();
    let pack = p.path("runtime/desktop.hpack");
    let bytes = fs::read(&pack).unwrap();
    fs::write(&pack, &bytes[..100]).unwrap();
    let run = p.assetc(&["pack", "info"]);
    assert!(!run.ok);
    assert!(run.stdout.is_empty(), "no partial report: {}", run.stdout);
    assert!(
        run.stderr
            .contains("assetc: error: runtime/desktop.hpack: not a valid .hpack"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("caused by: offset"), "{}", run.stderr);
}

#[test]
fn info_before_a_build_says_what_to_do() {
    let p = Project::demo();
    let run = p.assetc(&["info"]);
    assert!(!run.ok);
    assert!(
        run.stderr
            .contains("runtime/desktop: not a folder (build first, or pass -o)"),
        "{}",
        run.stderr
    );
}

#[test]
fn pack_info_stops_quietly_when_its_reader_goes_away() {
    use std::os::unix::process::ExitStatusExt;
    let p = shared::demo();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = std::process::Command::new(crate::common::ASSETC)
        .args(["pack", "info"])
        .current_dir(p.root())
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.signal(), Some(libc::SIGPIPE), "{stderr}");
}
