//! The `assetc` command line outside the build: init, presets, discovery.

use crate::common;
use crate::common::Project;

#[test]
fn init_writes_a_starter_that_configures_and_never_overwrites() {
    let p = Project::new("");
    std::fs::remove_file(p.path("assetc.yml")).unwrap();
    let run = p.assetc(&["init"]).expect_ok("init");
    assert!(run.stdout.contains("assetc.yml"), "{}", run.stdout);
    let first = std::fs::read(p.path("assetc.yml")).unwrap();
    p.write("assetc.yml", b"# mine\n");
    let again = p.assetc(&["init"]);
    assert!(!again.ok, "init must refuse to overwrite");
    assert_eq!(std::fs::read(p.path("assetc.yml")).unwrap(), b"# mine\n");
    p.write("assetc.yml", &first);
    let configured = p.assetc(&["configure"]).expect_ok("configure the starter");
    assert!(
        !configured.stderr.contains("warning"),
        "{}",
        configured.stderr
    );
}

/// The texel format name of the KTX2 file `rel`, through the crate's reader.
fn format_name(p: &Project, rel: &str) -> String {
    let bytes = std::fs::read(p.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let view = assetc::format::ktx2::parse(&bytes).unwrap();
    view.texel_format()
        .map_or_else(|| "uastc?".into(), |f| f.name().to_owned())
}

#[test]
fn init_then_build_writes_each_platforms_native_formats() {
    let p = Project::new("");
    std::fs::remove_file(p.path("assetc.yml")).unwrap();
    p.assetc(&["init"]).expect_ok("init");
    // A smooth colour picture and a normal map, both 32x32.
    let smooth = |x: u32, y: u32| [(40 + x * 5) as u8, (30 + y * 6) as u8, 120, 255];
    let normal = |x: u32, y: u32| [(112 + x) as u8, (112 + y) as u8, 250, 255];
    p.write("assets/wall.png", &common::png_of(32, 32, smooth));
    p.write("assets/wall_normal.png", &common::png_of(32, 32, normal));
    let run = p.assetc(&["build"]).expect_ok("assetc build, desktop");
    assert!(run.stdout.contains("preset 'desktop'"), "{}", run.stdout);
    assert_eq!(format_name(&p, "runtime/desktop/wall.ktx2"), "bc7");
    assert_eq!(format_name(&p, "runtime/desktop/wall_normal.ktx2"), "bc5");
    p.assetc(&["build", "--preset", "mobile"])
        .expect_ok("assetc build, mobile");
    assert_eq!(format_name(&p, "runtime/mobile/wall.ktx2"), "astc-6x6");
    assert_eq!(
        format_name(&p, "runtime/mobile/wall_normal.ktx2"),
        "astc-4x4"
    );
}

#[test]
fn list_presets_prints_them_in_file_order() {
    let p = Project::new("preset: mobile\npresets:\n  desktop: {}\n  mobile: {}\n");
    let run = p.assetc(&["configure", "--list-presets"]).expect_ok("list");
    assert_eq!(run.stdout, "desktop\nmobile  (default)\n");
    let bare = p.assetc(&["--list-presets"]).expect_ok("list");
    assert_eq!(bare.stdout, run.stdout);
}

#[test]
fn unknown_keys_warn_with_file_and_line() {
    let p = Project::new("input: assets\ndefault:\n  texure:\n    compress: false\n");
    let run = p.assetc(&["configure"]).expect_ok("configure");
    assert!(run.stderr.contains("assetc: warning:"), "{}", run.stderr);
    assert!(run.stderr.contains("assetc.yml:3"), "{}", run.stderr);
}

#[test]
fn configure_from_a_subfolder_finds_the_project() {
    let p = Project::new("default:\n  texture: { compress: false }\n");
    p.png("assets/deep/a.png", 2, 2, 1);
    let run = std::process::Command::new(common::ASSETC)
        .arg("configure")
        .current_dir(p.path("assets/deep"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(p.path("build.ninja").is_file());
    p.ninja(&[]).expect_ok("ninja");
    assert!(p.path("runtime/deep/a.ktx2").is_file());
}

#[test]
fn a_missing_config_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let run = std::process::Command::new(common::ASSETC)
        .arg("configure")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("assetc: error:") && stderr.contains("assetc.yml"),
        "{stderr}"
    );
}
