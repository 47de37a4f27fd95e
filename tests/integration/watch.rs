//! `assetc watch` through real Ninja on a copy of the demo: each edit's
//! published block (images, meshes, materials, sounds) names exactly the
//! files whose bytes changed (checked
//! against a byte diff of the output folder), a broken `assetc.yml` keeps
//! the last good outputs and the repair recovers, a burst gives few builds,
//! and the outputs end equal to a clean build's.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::Project;
use crate::common::watch::Watch;
use assetc::encode::audio::Sound;
use assetc::encode::audio::wav::write_pcm16;
use assetc::format::hman;
use assetc::hot_reload::Build;

/// The output folder's files whose bytes differ between two snapshots, or
/// that appeared.
fn changed(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> BTreeSet<String> {
    after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(bytes))
        .map(|(path, _)| path.clone())
        .collect()
}

/// A 16-bit WAV of a 440 Hz tone, `seconds` long, at 22050 Hz.
fn tone_wav(seconds: f32) -> Vec<u8> {
    let frames = (22050.0 * seconds) as usize;
    let samples = (0..frames)
        .map(|i| 0.3 * (std::f32::consts::TAU * 440.0 * i as f32 / 22050.0).sin())
        .collect();
    write_pcm16(&Sound {
        rate: 22050,
        channels: 1,
        samples,
        looping: None,
    })
}

/// The ids the output's manifest gives each path.
fn ids(tree: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, u64> {
    let manifest = hman::parse(&tree["assets.hman"]).unwrap();
    manifest
        .iter()
        .map(|e| (e.path.to_owned(), e.hash))
        .collect()
}

/// Checks that `build` names exactly the files that changed between the
/// snapshots, with the manifest's ids, and the manifest entries that left.
fn assert_told_exactly(
    build: &Build,
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    assert!(build.ok, "{what}: the build failed: {:?}", build.errors);
    let told: BTreeSet<String> = build.changed.iter().map(|c| c.path.clone()).collect();
    assert_eq!(told, changed(before, after), "{what}: changed files");
    let after_ids = ids(after);
    for file in &build.changed {
        assert_eq!(
            file.id,
            after_ids.get(&file.path).copied(),
            "{what}: id of {}",
            file.path
        );
    }
    let before_ids = ids(before);
    let removed: BTreeSet<(String, Option<u64>)> = build
        .removed
        .iter()
        .map(|c| (c.path.clone(), c.id))
        .collect();
    let expected: BTreeSet<(String, Option<u64>)> = before_ids
        .iter()
        .filter(|(path, _)| !after_ids.contains_key(*path))
        .map(|(path, id)| (path.clone(), Some(*id)))
        .collect();
    assert_eq!(removed, expected, "{what}: removed entries");
}

#[test]
fn every_edit_is_published_with_exactly_the_files_it_changed() {
    let p = Project::demo();
    let mut watch = Watch::start(&p);
    let out = "runtime/desktop";

    let before = p.tree(out);
    p.write(
        "assets/textures/checker.png",
        &fs::read(p.path("assets/ui/icon.png")).unwrap(),
    );
    let build = watch.next();
    let after = p.tree(out);
    assert_told_exactly(&build, &before, &after, "PNG edit");
    assert!(
        build
            .changed
            .iter()
            .any(|c| c.path == "textures/checker.ktx2")
    );
    assert_eq!(build.packs.len(), 2, "{:?}", build.packs);

    let before = after;
    let mut bin = fs::read(p.path("assets/models/crate.bin")).unwrap();
    bin[700..704].copy_from_slice(&0.25f32.to_le_bytes());
    p.write("assets/models/crate.bin", &bin);
    let build = watch.next();
    let after = p.tree(out);
    assert_told_exactly(&build, &before, &after, ".bin edit");
    assert!(build.changed.iter().any(|c| c.path == "models/crate.hmesh"));

    let before = after;
    let mtl = fs::read_to_string(p.path("assets/props/box.mtl")).unwrap();
    p.write(
        "assets/props/box.mtl",
        mtl.replace("Kd 0.8 0.2 0.1", "Kd 0.1 0.2 0.8").as_bytes(),
    );
    let build = watch.next();
    let after = p.tree(out);
    assert_told_exactly(&build, &before, &after, ".mtl edit");
    assert!(build.changed.iter().any(|c| c.path == "props/box.hmat"));

    let before = after;
    p.png("assets/ui/added.png", 8, 8, 7);
    let build = watch.next();
    let after = p.tree(out);
    assert_told_exactly(&build, &before, &after, "added PNG");
    assert!(
        build
            .changed
            .iter()
            .any(|c| c.path == "ui/added.ktx2" && c.id.is_some())
    );

    // A sound: its file and its record are published, and again when an
    // edit changes its length.
    let mut after = after;
    for (seconds, what) in [(0.5, "added sound"), (0.75, "edited sound")] {
        let before = after;
        p.write("assets/sfx/added.wav", &tone_wav(seconds));
        let build = watch.next();
        after = p.tree(out);
        assert_told_exactly(&build, &before, &after, what);
        let told: BTreeSet<&str> = build.changed.iter().map(|c| c.path.as_str()).collect();
        let both = told.contains("sfx/added.wav") && told.contains("sfx/added.hsnd");
        assert!(both, "{what}: {told:?}");
    }

    let before = after;
    fs::remove_file(p.path("assets/ui/added.png")).unwrap();
    let build = watch.next();
    let after = p.tree(out);
    assert_told_exactly(&build, &before, &after, "deleted PNG");
    assert_eq!(build.removed.len(), 1);
    assert!(!after.contains_key("ui/added.ktx2"));

    let before = after;
    let config = fs::read_to_string(p.path("assetc.yml")).unwrap();
    p.write("assetc.yml", format!("{config}\nbroken: [\n").as_bytes());
    let build = watch.next();
    assert!(!build.ok, "a broken assetc.yml fails the build");
    assert!(
        build.errors.iter().any(|e| e.contains("assetc.yml")),
        "{:?}",
        build.errors
    );
    assert!(build.changed.is_empty());
    assert_eq!(p.tree(out), before, "the last good outputs stay");
    p.write("assetc.yml", config.as_bytes());
    let build = watch.next();
    assert!(build.ok, "the repair builds: {:?}", build.errors);
    assert_eq!(p.tree(out), before, "the repair changes nothing else");

    let encoder_failure = b"not a PNG";
    p.write("assets/textures/checker.png", encoder_failure);
    let build = watch.next();
    assert!(!build.ok);
    assert!(
        build.errors.iter().any(|e| e.contains("checker.png")),
        "{:?}",
        build.errors
    );
    assert_eq!(
        p.tree(out),
        before,
        "a failed encode keeps the last good outputs"
    );
    p.write(
        "assets/textures/checker.png",
        &fs::read(p.path("assets/ui/icon.png")).unwrap(),
    );
    let build = watch.next();
    assert!(build.ok);
    assert!(
        build.changed.is_empty(),
        "the same bytes as before the failure: {:?}",
        build.changed
    );

    drop(watch);
    let watched = p.tree(out);
    fs::remove_dir_all(p.path("runtime")).unwrap();
    fs::remove_dir_all(p.path(".assetc")).unwrap();
    p.build(&[]);
    assert_eq!(
        p.tree(out),
        watched,
        "the watched outputs are a clean build's"
    );
}

#[test]
fn a_burst_of_files_gives_one_or_a_few_builds() {
    let p = Project::demo();
    let mut watch = Watch::start(&p);
    for i in 0..100 {
        p.png(&format!("assets/burst/b{i:03}.png"), 4, 4, i as u8);
    }
    let mut builds = vec![watch.next()];
    let mut built: BTreeSet<String> = BTreeSet::new();
    loop {
        built.extend(
            builds
                .last()
                .unwrap()
                .changed
                .iter()
                .map(|c| c.path.clone()),
        );
        if (0..100).all(|i| built.contains(&format!("burst/b{i:03}.ktx2"))) {
            break;
        }
        assert!(builds.len() < 4, "{} builds for one burst", builds.len());
        builds.push(watch.next());
    }
    assert!(builds.iter().all(|b| b.ok));
    assert!(builds.len() <= 3, "{} builds for one burst", builds.len());
    std::thread::sleep(Duration::from_millis(50));
}

/// The C example (`examples/c/hot_reload.c`, over `include/assetc.h`)
/// follows the feed: told of an edited texture, it reloads it as a texture.
#[test]
fn the_c_example_reloads_what_it_is_told() {
    let p = Project::demo();
    let watch = Watch::start(&p);
    let address = watch.address();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = p.path("hot_reload_c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let compiled = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(repo.join("include"))
        .arg(repo.join("examples/c/hot_reload.c"))
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("{cc} does not start: {e}"));
    assert!(
        compiled.success(),
        "examples/c/hot_reload.c does not compile"
    );
    let mut child = Command::new(&exe)
        .args([address.port().to_string().as_str(), "runtime/desktop", "1"])
        .current_dir(p.root())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let hello = lines.next().unwrap().unwrap();
    assert!(hello.starts_with("connected assetc-watch 1 "), "{hello}");
    p.write(
        "assets/textures/checker.png",
        &fs::read(p.path("assets/ui/icon.png")).unwrap(),
    );
    let printed: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(child.wait().unwrap().success());
    let id = ids(&p.tree("runtime/desktop"))["textures/checker.ktx2"];
    let expected = format!("reloaded textures/checker.ktx2 {id:#018x} (texture)");
    assert!(printed.contains(&expected), "{printed:?}");
    drop(watch);
}
