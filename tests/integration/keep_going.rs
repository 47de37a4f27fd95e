//! `keep_going` through the real binaries and real `ninja`: one broken asset
//! no longer hides the rest, yet the build still fails until it is fixed.

use crate::common;
use std::fs;

use crate::common::{Project, Run};
use assetc::format::{hman, hpack};

/// The project: two good textures, a good OBJ, a truncated PNG and an OBJ
/// whose face names a vertex that does not exist.
fn project(config_extra: &str) -> Project {
    let p = Project::new(&format!(
        "input: assets\noutput: runtime\npack: true\n{config_extra}default:\n  texture:\n    compress: false\n"
    ));
    p.png("assets/ui/good.png", 8, 8, 1);
    p.png("assets/ui/other.png", 8, 8, 2);
    let png = common::rgba_png(8, 8, 3);
    p.write("assets/ui/bad.png", &png[..png.len() / 2]);
    p.write(
        "assets/props/box.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    p.write("assets/props/broken.obj", b"v 0 0 0\nf 1 2 3\n");
    p
}

/// The paths the folder's manifest lists, sorted.
fn manifest_paths(p: &Project) -> Vec<String> {
    let bytes = fs::read(p.path("runtime/assets.hman")).unwrap();
    let manifest = hman::parse(&bytes).unwrap();
    let mut paths: Vec<String> = manifest.iter().map(|e| e.to_entry().path).collect();
    paths.sort();
    paths
}

/// The paths the pack holds, sorted.
fn pack_paths(p: &Project) -> Vec<String> {
    let bytes = fs::read(p.path("runtime.hpack")).unwrap();
    let pack = hpack::parse(&bytes).unwrap();
    let mut paths: Vec<String> = pack.iter().map(|e| e.path.to_string()).collect();
    paths.sort();
    paths
}

/// Both streams of a run.
fn all(run: &Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

const GOOD: [&str; 5] = [
    "props/box.hmat",
    "props/box.hmesh",
    "ui/good.ktx2",
    "ui/other.ktx2",
    "assets.hman",
];

#[test]
fn the_strict_default_still_withholds_the_manifest() {
    let p = project("");
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(!p.path("runtime/assets.hman").exists());
    assert!(!p.path("runtime.hpack").exists());
    assert!(!p.path(".assetc/default/failed.txt").exists());
}

#[test]
fn a_broken_asset_leaves_the_rest_built_reported_and_the_build_failed() {
    let p = project("");
    p.assetc(&["configure", "--keep-going"])
        .expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(!run.ok, "the build must fail:\n{}", all(&run));
    let text = all(&run);
    assert!(
        text.contains("assetc-encode: error: assets/ui/bad.png")
            && text.contains("assetc-encode: error: assets/props/broken.obj")
            && text.contains("2 asset(s) failed to build")
            && text.contains("props/broken.obj, ui/bad.png"),
        "{text}"
    );
    let report = fs::read_to_string(p.path(".assetc/default/failed.txt")).unwrap();
    assert!(
        report.starts_with("assetc-encode: error: assets/props/broken.obj")
            && report.contains("\n\nassetc-encode: error: assets/ui/bad.png")
            && report.contains("caused by:"),
        "{report}"
    );
    // The manifest and the pack hold exactly what built, and are consistent.
    let mut expected: Vec<String> = GOOD[..4].iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(manifest_paths(&p), expected);
    expected.push("assets.hman".into());
    expected.sort();
    assert_eq!(pack_paths(&p), expected);
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("the output is consistent");
    assert!(!p.path("runtime/ui/bad.ktx2").exists());
    // The check of the build names the failed sources.
    let check = p.link(&["check"]);
    assert!(!check.ok);
    assert!(
        all(&check).contains("ui/bad.png: failed to build and is not in the output"),
        "{}",
        all(&check)
    );

    // Every following build fails and reports again, rebuilding nothing
    // else.
    let again = p.ninja(&[]);
    assert!(!again.ok);
    assert!(all(&again).contains("2 asset(s) failed to build"));
    assert!(
        again
            .edges()
            .iter()
            .all(|e| !e.contains("good.png") && !e.contains("box.obj")),
        "{:?}",
        again.edges()
    );

    // Fixed, the build is green, then a no-op.
    p.png("assets/ui/bad.png", 8, 8, 3);
    p.write(
        "assets/props/broken.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    p.ninja(&[]).expect_ok("the fixed build");
    assert_eq!(
        fs::read_to_string(p.path(".assetc/default/failed.txt")).unwrap(),
        ""
    );
    assert_eq!(manifest_paths(&p).len(), 7);
    p.assert_no_op();
    p.link(&["check"]).expect_ok("check after the fix");
}

/// The project under `keep_going: true`, with its two broken sources fixed.
fn healthy_project() -> Project {
    let p = project("keep_going: true\n");
    p.write("assets/ui/bad.png", &common::rgba_png(8, 8, 3));
    p.write(
        "assets/props/broken.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    p
}

#[test]
fn breaking_a_built_asset_removes_it_from_the_folder_and_the_pack() {
    let p = healthy_project();
    p.build(&[]);
    assert!(pack_paths(&p).contains(&"ui/good.ktx2".to_string()));
    std::thread::sleep(std::time::Duration::from_millis(20));
    p.write("assets/ui/good.png", b"not a png");
    assert_good_png_left_out(&p, &p.ninja(&[]), 1);
    // The config key reaches the encoders without the flag, and the
    // regeneration keeps it.
    let ninja = fs::read_to_string(p.path("build.ninja")).unwrap();
    assert!(ninja.contains("keepgoing = --keep-going"), "{ninja}");
}

// A source is one unit: when any of its edges fails, the whole source is
// left out, and `assetc-link check` after a failed build names what failed.

use crate::fixtures;

/// `assets/models/crate.gltf`: one triangle whose material uses two image
/// files, `gone.png` (base colour, not written here) and `here.png`
/// (normal map).
fn write_gltf_with_two_images(p: &Project) {
    let mut b = fixtures::GltfBuilder::new();
    let images = ["gone.png", "here.png"].map(|uri| b.add_image_uri(uri));
    let [colour, normal] = images.map(|image| b.add_texture(Some(image)));
    let material = b.add_material(&fixtures::Material {
        base_color_texture: Some(colour),
        normal_texture: Some((normal, 1.0)),
        ..fixtures::Material::default()
    });
    let mesh = fixtures::triangle_mesh(&mut b, Some(material));
    let node = b.add_node(fixtures::Node::mesh(mesh));
    b.add_scene(&[node]);
    fs::create_dir_all(p.path("assets/models")).unwrap();
    b.write_gltf(&p.path("assets/models"), "crate").unwrap();
    p.png("assets/models/here.png", 8, 8, 5);
}

/// Whether the manifest lists a file of the crate model.
fn lists_the_crate(p: &Project) -> bool {
    manifest_paths(p)
        .iter()
        .any(|path| path.starts_with("models/crate"))
}

#[test]
fn a_gltf_with_a_missing_image_fails_and_is_left_out_whole() {
    let p =
        Project::new("input: assets\noutput: runtime\ndefault:\n  texture: { compress: false }\n");
    p.png("assets/ui/good.png", 8, 8, 1);
    write_gltf_with_two_images(&p);

    // Strict: configure warns and plans the readable image; the mesh edge
    // fails naming the missing file, and the check says the build did not
    // finish instead of calling every built file an orphan.
    let configure = p.assetc(&["configure"]).expect_ok("configure");
    assert!(
        all(&configure).contains(
            "models/crate.gltf: images[0].uri: uri \"gone.png\" names a file that does not exist"
        ),
        "{}",
        all(&configure)
    );
    let strict = p.ninja(&["-k", "0"]);
    assert!(!strict.ok);
    assert!(
        all(&strict).contains("assets/models/crate.gltf"),
        "{}",
        all(&strict)
    );
    assert!(
        p.path("runtime/models/crate/tex_1.ktx2").exists(),
        "the readable image builds"
    );
    let check = all(&p.link(&["check"]));
    assert!(
        check.contains("assets.hman: missing: the build did not finish; 1 edges failed or never ran: models/crate.gltf;"),
        "{check}"
    );
    assert!(!check.contains("orphan"), "{check}");

    // Keep going: the rest is linked, the crate is left out whole (its
    // built texture too), and the report names it.
    p.assetc(&["configure", "--keep-going"])
        .expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(
        !run.ok && all(&run).contains("1 asset(s) failed to build"),
        "{}",
        all(&run)
    );
    assert_only_the_crate_failed(&p);

    // The image appears: everything builds (and passes the check the
    // harness runs after every green build).
    p.png("assets/models/gone.png", 8, 8, 6);
    p.ninja(&[]).expect_ok("the build with every image");
    assert!(lists_the_crate(&p));
    // It goes again: configure drops its edge, the mesh edge runs again and
    // fails, and the crate leaves the manifest rather than naming a texture
    // nobody builds.
    fs::remove_file(p.path("assets/models/gone.png")).unwrap();
    let run = p.ninja(&[]);
    assert!(!run.ok, "{}", all(&run));
    assert!(!lists_the_crate(&p), "{:?}", manifest_paths(&p));
}

#[test]
fn a_failed_texture_edge_takes_its_mesh_out_of_the_manifest() {
    let p = Project::new(
        "input: assets\noutput: runtime\nkeep_going: true\ndefault:\n  texture: { compress: false }\n",
    );
    p.png("assets/ui/good.png", 8, 8, 1);
    write_gltf_with_two_images(&p);
    let png = common::rgba_png(8, 8, 3);
    p.write("assets/models/gone.png", &png[..png.len() / 2]);
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(!run.ok);
    assert!(
        all(&run).contains("assets/models/gone.png"),
        "{}",
        all(&run)
    );
    assert_only_the_crate_failed(&p);
}

/// The manifest holds the good PNG alone, and the check's one problem is
/// the crate model's failure (none of its built files is an orphan).
fn assert_only_the_crate_failed(p: &Project) {
    assert_eq!(manifest_paths(p), ["ui/good.ktx2"]);
    let check = all(&p.link(&["check"]));
    assert!(
        check.contains("models/crate.gltf: failed to build")
            && check.contains("check found 1 problem(s)"),
        "{check}"
    );
}

#[test]
fn check_after_a_failed_strict_build_names_the_failures_and_checks_what_exists() {
    let p = project("");
    p.assetc(&["configure"]).expect_ok("configure");
    assert!(!p.ninja(&["-k", "0"]).ok);
    let check = p.link(&["check"]);
    assert!(!check.ok);
    let text = all(&check);
    assert!(
        text.contains("assets.hman: missing: the build did not finish; 2 edges failed or never ran: props/broken.obj, ui/bad.png;"),
        "{text}"
    );
    assert!(
        !text.contains("orphan") && !text.contains("cannot read"),
        "{text}"
    );
    // What was built is still checked.
    fs::write(p.path("runtime/ui/good.ktx2"), b"not a texture").unwrap();
    let text = all(&p.link(&["check"]));
    assert!(
        text.contains("ui/good.ktx2: changed since the build wrote it"),
        "{text}"
    );
    assert!(text.contains("ui/good.ktx2: invalid KTX2"), "{text}");
}

// ---------------------------------------------------------------------------
// Output-name clashes under keep_going: the clashing sources are left out and
// reported, the rest builds.

/// Good sources, `ui/icon.png` beside `ui/icon.jpg` (both `ui/icon.ktx2`) and
/// `props/crate.obj` beside `props/crate.gltf` (both `.hmesh` and `.hmat`).
fn clashing_project() -> Project {
    let p = healthy_project();
    p.png("assets/ui/icon.png", 8, 8, 4);
    // Images are told apart by their bytes, so a PNG named .jpg decodes.
    p.png("assets/ui/icon.jpg", 8, 8, 5);
    p.write(
        "assets/props/crate.obj",
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    p.write("assets/props/crate.gltf", br#"{"asset":{"version":"2.0"}}"#);
    p
}

#[test]
fn clashing_sources_are_left_out_reported_and_the_rest_builds() {
    let p = clashing_project();
    let configure = p.assetc(&["configure"]).expect_ok("configure");
    assert!(
        configure.stderr.contains(
            "assetc: warning: assets/props/crate.gltf: props/crate.gltf and props/crate.obj both \
             write props/crate.hmat, props/crate.hmesh (a runtime path drops the source's \
             extension); left out of the build and reported in .assetc/default/failed.txt"
        ) && configure.stderr.contains(
            "assetc: warning: assets/ui/icon.jpg: ui/icon.jpg and ui/icon.png both write ui/icon.ktx2"
        ),
        "{}",
        configure.stderr
    );
    let run = p.ninja(&[]);
    assert!(!run.ok, "the build must fail:\n{}", all(&run));
    assert!(
        all(&run).contains("4 asset(s) failed to build"),
        "{}",
        all(&run)
    );
    assert!(
        run.edges()
            .iter()
            .all(|e| !e.contains("icon") && !e.contains("crate")),
        "{:?}",
        run.edges()
    );
    let report = fs::read_to_string(p.path(".assetc/default/failed.txt")).unwrap();
    for source in [
        "props/crate.gltf",
        "props/crate.obj",
        "ui/icon.jpg",
        "ui/icon.png",
    ] {
        assert!(
            report.contains(&format!("assetc: error: assets/{source}: ")),
            "{source}:\n{report}"
        );
    }
    assert!(report.contains("Rename one of them"), "{report}");
    let mut expected: Vec<String> = GOOD[..4].iter().map(|s| (*s).to_owned()).collect();
    expected.extend(["props/broken.hmat", "props/broken.hmesh", "ui/bad.ktx2"].map(String::from));
    expected.sort();
    assert_eq!(manifest_paths(&p), expected);
    // What was built is consistent, and the build's own check names the
    // left-out sources as failed, not their absence as orphans.
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("the output is consistent");
    let check = p.link(&["check"]);
    assert!(!check.ok);
    assert!(
        all(&check).contains("ui/icon.png: failed to build and is not in the output")
            && all(&check).contains("props/crate.gltf: failed to build")
            && !all(&check).contains("orphan"),
        "{}",
        all(&check)
    );

    // Renaming one of each pair reconfigures; the build is green, then a
    // no-op, and passes the check.
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::rename(p.path("assets/ui/icon.jpg"), p.path("assets/ui/photo.jpg")).unwrap();
    fs::rename(
        p.path("assets/props/crate.gltf"),
        p.path("assets/props/crate.gltf.orig"),
    )
    .unwrap();
    p.ninja(&[]).expect_ok("the build after the renames");
    assert_eq!(
        fs::read_to_string(p.path(".assetc/default/failed.txt")).unwrap(),
        ""
    );
    let paths = manifest_paths(&p);
    for built in ["ui/icon.ktx2", "ui/photo.ktx2", "props/crate.hmesh"] {
        assert!(paths.contains(&built.to_string()), "{built}: {paths:?}");
    }
    assert!(!p.path(".assetc/default/clash").exists());
    p.assert_no_op();
    p.link(&["check"]).expect_ok("check after the renames");
}

#[test]
fn a_clash_appearing_in_a_built_project_removes_the_sources_outputs() {
    let p = healthy_project();
    p.build(&[]);
    assert!(p.path("runtime/ui/good.ktx2").is_file());
    p.png("assets/ui/good.jpg", 8, 8, 6);
    assert_good_png_left_out(&p, &p.ninja(&[]), 2);
}

/// Asserts that `run` failed naming `failed` assets, and that `ui/good.png`'s
/// texture is gone from the folder, the manifest and the pack, which stay
/// consistent.
fn assert_good_png_left_out(p: &Project, run: &Run, failed: usize) {
    assert!(!run.ok, "{}", all(run));
    let count = format!("{failed} asset(s) failed to build");
    assert!(all(run).contains(&count), "{}", all(run));
    assert!(!p.path("runtime/ui/good.ktx2").exists());
    assert!(!manifest_paths(p).contains(&"ui/good.ktx2".to_string()));
    assert!(!pack_paths(p).contains(&"ui/good.ktx2".to_string()));
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("the output is consistent");
}

#[test]
fn assetc_build_takes_keep_going_and_configure_remembers_it() {
    let p = project("");
    let run = p.assetc(&["build", "--keep-going"]);
    assert!(!run.ok, "the build must fail:\n{}", all(&run));
    assert!(
        all(&run).contains("2 asset(s) failed to build"),
        "{}",
        all(&run)
    );
    assert!(p.path("runtime/ui/good.ktx2").is_file());
    assert_eq!(manifest_paths(&p), GOOD[..4].to_vec());
    let report = fs::read_to_string(p.path(".assetc/default/failed.txt")).unwrap();
    assert!(report.contains("assets/ui/bad.png"), "{report}");
    // A later plain build keeps going too: configure remembered the flag.
    let again = p.assetc(&["build"]);
    assert!(!again.ok);
    assert!(
        all(&again).contains("2 asset(s) failed to build"),
        "{}",
        all(&again)
    );
    // `--no-keep-going` drops it: the manifest is withheld again.
    fs::remove_file(p.path("runtime/assets.hman")).unwrap();
    let strict = p.assetc(&["build", "--no-keep-going"]);
    assert!(!strict.ok);
    assert!(!p.path("runtime/assets.hman").exists());
}
