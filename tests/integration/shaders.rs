//! `*.shader/` folders through the real pipeline: GLSL and WGSL to validated
//! SPIR-V, manifest entries that keep the case of the disk, includes in the
//! depfile, removed entry points leaving nothing behind, and broken sources
//! failing only their own edge with `file:line:column`.

use crate::common;
use crate::common::Project;
use assetc::encode::shader::validate_spirv;
use assetc::format::hash::asset_hash;
use assetc::format::hman;
use assetc::format::kind::AssetKind;

const CONFIG: &str =
    "input: assets\noutput: runtime\npack: true\ndefault:\n  texture: { compress: false }\n";

const VERTEX: &str = "#version 450\n#include \"common.glsl\"\n#include \"../shared.glsl\"\n\
layout(location = 0) in vec3 position;\n\
void main() { gl_Position = vec4(position * SCALE * shared_bias(), 1.0); }\n";
const FRAGMENT: &str = "#version 450\n#include \"common.glsl\"\n\
layout(location = 0) out vec4 color;\n\
void main() { color = vec4(SCALE); }\n";
const COMMON: &str = "#ifndef COMMON\n#define COMMON\n#define SCALE 0.5\n#endif\n";
const SHARED: &str = "float shared_bias() { return 1.0; }\n";
const POST: &str = "#include \"lib.wgsl\"\n\
@vertex fn vsMain() -> @builtin(position) vec4<f32> { return vec4<f32>(K); }\n\
@fragment fn fsMain() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n\
@compute @workgroup_size(1) fn exposure() {}\n";
const LIB: &str = "#pragma once\nconst K = 0.25;\n";

/// A project with a GLSL folder (`fx/Bloom.shader`), a WGSL folder
/// (`fx/Post.shader`) and a texture.
fn project() -> Project {
    let p = Project::new(CONFIG);
    p.write("assets/fx/Bloom.shader/bloom.vert", VERTEX.as_bytes());
    p.write("assets/fx/Bloom.shader/bloom.frag", FRAGMENT.as_bytes());
    p.write("assets/fx/Bloom.shader/common.glsl", COMMON.as_bytes());
    p.write("assets/fx/shared.glsl", SHARED.as_bytes());
    p.write("assets/fx/Post.shader/post.wgsl", POST.as_bytes());
    p.write("assets/fx/Post.shader/lib.wgsl", LIB.as_bytes());
    p.png("assets/ui/icon.png", 4, 4, 1);
    p
}

/// The manifest's entries as (path, kind, id).
fn manifest(p: &Project) -> Vec<(String, AssetKind, u64)> {
    let bytes = std::fs::read(p.path("runtime/assets.hman")).unwrap();
    hman::parse(&bytes)
        .unwrap()
        .iter()
        .map(|e| (e.path.to_string(), e.kind, e.hash))
        .collect()
}

/// The files below `runtime/<folder>`.
fn files_in(p: &Project, folder: &str) -> Vec<String> {
    p.tree(&format!("runtime/{folder}")).into_keys().collect()
}

/// The edges Ninja ran, sorted.
fn sorted_edges(run: &common::Run) -> Vec<String> {
    let mut edges = run.edges();
    edges.sort();
    edges
}

/// Runs Khronos' `spirv-val` on a module when it is installed (the tests'
/// setup installs it); our own validator runs regardless.
fn khronos_validate(path: &std::path::Path) {
    let Ok(output) = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.0"])
        .arg(path)
        .output()
    else {
        return;
    };
    assert!(
        output.status.success(),
        "spirv-val rejects {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn folders_build_to_validated_spirv_registered_with_the_case_of_the_disk() {
    let p = project();
    let run = p.build(&[]);
    assert!(
        run.edges()
            .contains(&"SHADER assets/fx/Bloom.shader".to_string())
    );
    assert_eq!(files_in(&p, "fx/Bloom"), ["fragment.spv", "vertex.spv"]);
    assert_eq!(
        files_in(&p, "fx/Post"),
        ["exposure.spv", "fs.spv", "vs.spv"]
    );
    for (folder, name) in [
        ("Bloom", "vertex"),
        ("Bloom", "fragment"),
        ("Post", "vs"),
        ("Post", "fs"),
        ("Post", "exposure"),
    ] {
        let path = p.path(&format!("runtime/fx/{folder}/{name}.spv"));
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes[..4], [0x03, 0x02, 0x23, 0x07], "SPIR-V magic");
        let summary = validate_spirv(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!summary.entry_points.is_empty(), "{}", path.display());
        khronos_validate(&path);
    }
    // The manifest keeps the disk's case (the reference lowercases it, so an
    // engine on a case-sensitive file system cannot open the file), and the
    // id is the hash of the path without `.spv`.
    let shaders: Vec<(String, u64)> = manifest(&p)
        .into_iter()
        .filter(|(_, kind, _)| *kind == AssetKind::Shader)
        .map(|(path, _, id)| (path, id))
        .collect();
    let expected: Vec<(String, u64)> = [
        "fx/Bloom/fragment",
        "fx/Bloom/vertex",
        "fx/Post/exposure",
        "fx/Post/fs",
        "fx/Post/vs",
    ]
    .iter()
    .map(|stem| (format!("{stem}.spv"), asset_hash(stem)))
    .collect();
    let mut sorted = shaders.clone();
    sorted.sort();
    assert_eq!(sorted, expected);
    for (path, _) in &shaders {
        assert!(
            p.path(&format!("runtime/{path}")).is_file(),
            "{path} exists as listed"
        );
    }
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
    let info = p.assetc(&["info"]).expect_ok("info");
    assert!(
        info.stdout
            .lines()
            .any(|l| l.contains("fx/Bloom/vertex.spv") && l.contains("shader")),
        "{}",
        info.stdout
    );
    p.assert_no_op();
    let missing = p.ninja(&["-t", "missingdeps"]).expect_ok("missingdeps");
    assert!(
        missing.stdout.contains("No missing dependencies"),
        "{}",
        missing.stdout
    );

    // `check` validates shaders like every other kind.
    let mut corrupt = std::fs::read(p.path("runtime/fx/Bloom/vertex.spv")).unwrap();
    corrupt.truncate(corrupt.len() - 12);
    p.write("runtime/fx/Bloom/vertex.spv", &corrupt);
    let check = p.link(&["check", "--root", "runtime"]);
    assert!(!check.ok);
    assert!(
        check
            .stdout
            .contains("fx/Bloom/vertex.spv: cannot parse SPIR-V")
            || check
                .stderr
                .contains("fx/Bloom/vertex.spv: cannot parse SPIR-V"),
        "{}{}",
        check.stdout,
        check.stderr
    );
}

#[test]
fn editing_an_include_rebuilds_only_its_shader_and_the_link() {
    let p = project();
    p.build(&[]);
    let vertex_before = std::fs::read(p.path("runtime/fx/Bloom/vertex.spv")).unwrap();

    // An include outside the folder is in the depfile too.
    p.write(
        "assets/fx/shared.glsl",
        b"float shared_bias() { return 2.0; }\n",
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        sorted_edges(&run),
        // The folder's part is re-merged; its entries did not change, so the
        // manifest and the id files are not relinked.
        [
            "MANIFEST PART assets/fx/",
            "PACK runtime.hpack",
            "SHADER assets/fx/Bloom.shader"
        ]
    );
    assert_ne!(
        std::fs::read(p.path("runtime/fx/Bloom/vertex.spv")).unwrap(),
        vertex_before
    );
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check: the pack holds the new bytes");
    p.assert_no_op();

    // A change that leaves the SPIR-V as it was stops at the shader edge.
    p.write(
        "assets/fx/Post.shader/lib.wgsl",
        format!("{LIB}// a comment\n").as_bytes(),
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(sorted_edges(&run), ["SHADER assets/fx/Post.shader"]);
    p.assert_no_op();

    // A new file in the folder changes the folder: its edge runs again.
    p.write(
        "assets/fx/Post.shader/blur.wgsl",
        b"@compute @workgroup_size(8) fn blurMain() {}\n",
    );
    let run = p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        sorted_edges(&run),
        // A new entry point is a new manifest entry: everything relinks.
        [
            "IDS runtime/assets.h runtime/assets.rs",
            "MANIFEST PART assets/fx/",
            "MANIFEST runtime/assets.hman",
            "PACK runtime.hpack",
            "SHADER assets/fx/Post.shader"
        ]
    );
    assert_eq!(
        files_in(&p, "fx/Post"),
        ["blur.spv", "exposure.spv", "fs.spv", "vs.spv"]
    );
    p.assert_no_op();
}

#[test]
fn removed_entry_points_and_folders_leave_nothing_behind() {
    let p = project();
    p.build(&[]);
    let without_exposure = POST.replace("@compute @workgroup_size(1) fn exposure() {}\n", "");
    p.write(
        "assets/fx/Post.shader/post.wgsl",
        without_exposure.as_bytes(),
    );
    p.ninja(&[]).expect_ok("ninja");
    assert_eq!(files_in(&p, "fx/Post"), ["fs.spv", "vs.spv"]);
    assert!(
        !manifest(&p)
            .iter()
            .any(|(path, _, _)| path.contains("exposure"))
    );
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check: no orphan");
    p.assert_no_op();

    // Moving the output folder takes the modules along.
    p.build(&["-o", "elsewhere"]);
    assert_eq!(files_in(&p, "../elsewhere/fx/Post"), ["fs.spv", "vs.spv"]);
    assert!(
        p.tree("runtime").is_empty(),
        "no file is left in the old output"
    );
    // Configure remembers `-o`; `--fresh` goes back to the config's folder.
    p.build(&["--fresh"]);

    // Deleting the whole folder reconfigures and deletes its modules.
    std::fs::remove_dir_all(p.path("assets/fx/Post.shader")).unwrap();
    p.ninja(&[]).expect_ok("ninja");
    assert!(!p.path("runtime/fx/Post").exists());
    assert!(
        !manifest(&p)
            .iter()
            .any(|(path, _, _)| path.contains("Post"))
    );
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
    p.assert_no_op();
}

#[test]
fn a_syntax_error_names_file_line_and_column_and_fails_only_its_edge() {
    let p = project();
    p.build(&[]);
    // Line 3 of the included file, the `;` that follows a dangling `+`.
    p.write(
        "assets/fx/Post.shader/lib.wgsl",
        b"#pragma once\nconst K = 0.25;\nconst J = K +;\n",
    );
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(
        run.stdout
            .contains("assetc-encode: error: assets/fx/Post.shader: cannot compile shaders"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("caused by: assets/fx/Post.shader/lib.wgsl:3:14: "),
        "{}",
        run.stdout
    );
    // Nothing of the failing folder is left, nor a manifest claiming it.
    assert!(!p.path("runtime/fx/Post").exists());
    assert!(!p.path("runtime/assets.hman").exists());
    assert!(!p.path("runtime.hpack").exists());
    assert_eq!(files_in(&p, "fx/Bloom"), ["fragment.spv", "vertex.spv"]);

    // A clean build with the broken folder still builds everything else.
    let fresh = project();
    fresh.write(
        "assets/fx/Bloom.shader/bloom.frag",
        b"#version 450\nvoid main() {\n  float x = ;\n}\n",
    );
    fresh.assetc(&["configure"]).expect_ok("configure");
    let run = fresh.ninja(&["-k", "0"]);
    assert!(!run.ok);
    assert!(
        run.stdout
            .contains("assets/fx/Bloom.shader/bloom.frag:3:13: "),
        "{}",
        run.stdout
    );
    assert!(!fresh.path("runtime/fx/Bloom").exists());
    assert_eq!(
        files_in(&fresh, "fx/Post"),
        ["exposure.spv", "fs.spv", "vs.spv"]
    );
    assert!(fresh.path("runtime/ui/icon.ktx2").is_file());

    // Fixing the source brings everything back.
    p.write("assets/fx/Post.shader/lib.wgsl", LIB.as_bytes());
    p.ninja(&[]).expect_ok("ninja");
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
}

#[test]
fn precompiled_modules_are_validated_and_copied_verbatim() {
    let p = project();
    p.build(&[]);
    let module = std::fs::read(p.path("runtime/fx/Post/vs.spv")).unwrap();
    p.write("assets/fx/Pre.shader/Blit.spv", &module);
    p.ninja(&[]).expect_ok("ninja");
    assert_eq!(
        std::fs::read(p.path("runtime/fx/Pre/Blit.spv")).unwrap(),
        module
    );
    assert!(
        manifest(&p)
            .iter()
            .any(|(path, kind, id)| path == "fx/Pre/Blit.spv"
                && *kind == AssetKind::Shader
                && *id == asset_hash("fx/pre/blit"))
    );

    let mut bad_magic = module.clone();
    bad_magic[0] = 0;
    p.write("assets/fx/Pre.shader/Blit.spv", &bad_magic);
    let run = p.ninja(&[]);
    assert!(!run.ok);
    assert!(
        run.stdout
            .contains("assets/fx/Pre.shader/Blit.spv: does not start with the SPIR-V magic"),
        "{}",
        run.stdout
    );
    assert!(
        !p.path("runtime/fx/Pre").exists(),
        "the old copy is gone too"
    );

    p.write("assets/fx/Pre.shader/Blit.spv", &module[..module.len() - 8]);
    let run = p.ninja(&[]);
    assert!(
        run.stdout
            .contains("assets/fx/Pre.shader/Blit.spv: cannot parse SPIR-V"),
        "{}",
        run.stdout
    );
}

#[test]
fn folders_without_entry_points_and_clashing_names_are_errors() {
    let p = Project::new(CONFIG);
    std::fs::create_dir_all(p.path("assets/fx/Empty.shader")).unwrap();
    p.write("assets/fx/Lib.shader/common.glsl", COMMON.as_bytes());
    p.write(
        "assets/fx/Clash.shader/a.wgsl",
        b"@compute @workgroup_size(1) fn blurMain() {}\n",
    );
    p.write(
        "assets/fx/Clash.shader/b.wgsl",
        b"@compute @workgroup_size(1) fn blur() {}\n",
    );
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    for expected in [
        "assets/fx/Empty.shader: holds no shader entry points",
        "assets/fx/Lib.shader: holds no shader entry points",
        "assets/fx/Clash.shader: entry point `blurMain` of assets/fx/Clash.shader/a.wgsl \
         and entry point `blur` of assets/fx/Clash.shader/b.wgsl both compile to blur.spv",
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{}", run.stdout);
    }
    assert!(!p.path("runtime/fx").exists());
}
