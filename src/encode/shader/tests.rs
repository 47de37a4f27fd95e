//! Whole-folder tests: sources to named modules, and the errors on the way.

use std::path::Path;

use super::*;

const VERTEX: &str = "#version 450\n#include \"common.glsl\"\nlayout(location = 0) in vec3 p;\nvoid main() { gl_Position = vec4(p * scale(), 1.0); }\n";
const FRAGMENT: &str = "#version 450\n#include \"common.glsl\"\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(scale()); }\n";
const COMMON: &str = "#ifndef COMMON\n#define COMMON\nfloat scale() { return 0.5; }\n#endif\n";
const WGSL: &str = "@vertex fn vsMain() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n\
@fragment fn fsMain() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n\
@compute @workgroup_size(1) fn main() {}\n\
@compute @workgroup_size(8) fn blur() {}\n";

/// An input folder holding `files`, below `fx/x.shader/` unless they name
/// another folder.
fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("fx/x.shader")).unwrap();
    for (rel, bytes) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

fn compile_in(dir: &Path) -> Result<CompiledFolder, ShaderError> {
    let sources = Sources {
        input_root: dir,
        folder: "fx/x.shader",
    };
    compile_folder(sources, &dir.join("fx/x.shader"))
}

fn names(compiled: &CompiledFolder) -> Vec<&str> {
    compiled.modules.iter().map(|m| m.name.as_str()).collect()
}

#[test]
fn a_glsl_pair_compiles_per_stage_and_its_include_is_not_compiled() {
    let dir = project(&[
        ("fx/x.shader/lit.vert", VERTEX.as_bytes()),
        ("fx/x.shader/lit.frag", FRAGMENT.as_bytes()),
        ("fx/x.shader/common.glsl", COMMON.as_bytes()),
    ]);
    let compiled = compile_in(dir.path()).unwrap();
    assert_eq!(names(&compiled), ["fragment", "vertex"]);
    for module in &compiled.modules {
        assert_eq!(module.bytes[..4], spirv::MAGIC);
        let summary = validate_spirv(&module.bytes).unwrap();
        assert_eq!(summary.version, (1, 0));
        assert_eq!(
            summary.entry_points,
            [(module.name.as_str(), "main".to_string())]
        );
    }
    let inputs: Vec<String> = compiled
        .inputs
        .iter()
        .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
        .collect();
    assert_eq!(
        inputs,
        [
            "fx/x.shader/common.glsl",
            "fx/x.shader/lit.frag",
            "fx/x.shader/lit.vert"
        ]
    );
}

#[test]
fn wgsl_entry_points_follow_the_naming_rule() {
    let dir = project(&[("fx/x.shader/post.wgsl", WGSL.as_bytes())]);
    let compiled = compile_in(dir.path()).unwrap();
    assert_eq!(names(&compiled), ["blur", "compute", "fs", "vs"]);
}

#[test]
fn output_is_deterministic() {
    let dir = project(&[("fx/x.shader/post.wgsl", WGSL.as_bytes())]);
    let first = compile_in(dir.path()).unwrap();
    let second = compile_in(dir.path()).unwrap();
    for (a, b) in first.modules.iter().zip(&second.modules) {
        assert_eq!(a.bytes, b.bytes);
    }
}

#[test]
fn a_syntax_error_in_an_include_names_the_included_file() {
    let lib = b"const a = 1.0;\n\nfn broken() -> f32 {\n    return a +;\n}\n";
    let dir = project(&[
        (
            "fx/x.shader/post.wgsl",
            b"// post\n#include \"lib.wgsl\"\n@compute @workgroup_size(1) fn main() {}\n",
        ),
        ("fx/x.shader/lib.wgsl", lib),
    ]);
    let text = compile_in(dir.path()).unwrap_err().to_string();
    let lib_path = dir.path().join("fx/x.shader/lib.wgsl");
    assert!(
        text.starts_with(&format!("{}:4:15: ", lib_path.display())),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "one error, reported once: {text}");
}

#[test]
fn a_glsl_error_has_its_line_and_column() {
    let source = "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {\n    c = vec4(1.0) +* 2.0;\n}\n";
    let dir = project(&[("fx/x.shader/bad.frag", source.as_bytes())]);
    let text = compile_in(dir.path()).unwrap_err().to_string();
    let path = dir.path().join("fx/x.shader/bad.frag");
    assert!(
        text.starts_with(&format!("{}:4:20: ", path.display())),
        "{text}"
    );
}

#[test]
fn a_semantic_error_in_a_shared_include_is_reported_once() {
    let common = "float scale() { return undefined_thing; }\n";
    let dir = project(&[
        ("fx/x.shader/lit.vert", VERTEX.as_bytes()),
        ("fx/x.shader/lit.frag", FRAGMENT.as_bytes()),
        ("fx/x.shader/common.glsl", common.as_bytes()),
    ]);
    let text = compile_in(dir.path()).unwrap_err().to_string();
    let path = dir.path().join("fx/x.shader/common.glsl");
    assert!(
        text.starts_with(&format!("{}:1:24: ", path.display())),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn two_entry_points_with_one_name_are_refused_naming_both() {
    let dir = project(&[
        (
            "fx/x.shader/a.wgsl",
            b"@vertex fn vsMain() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n",
        ),
        (
            "fx/x.shader/b.wgsl",
            b"@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n",
        ),
    ]);
    let text = compile_in(dir.path()).unwrap_err().to_string();
    assert!(text.contains("entry point `vsMain` of "), "{text}");
    assert!(text.contains("a.wgsl and entry point `vs` of "), "{text}");
    assert!(text.contains("b.wgsl both compile to vs.spv"), "{text}");
}

#[test]
fn a_folder_without_entry_points_is_an_error_naming_it() {
    let dir = project(&[]);
    let text = compile_in(dir.path()).unwrap_err().to_string();
    let folder = dir.path().join("fx/x.shader");
    assert!(
        text.starts_with(&format!(
            "{}: holds no shader entry points",
            folder.display()
        )),
        "{text}"
    );
    let only_library = project(&[("fx/x.shader/common.glsl", COMMON.as_bytes())]);
    assert!(
        compile_in(only_library.path())
            .unwrap_err()
            .to_string()
            .contains("no shader entry points")
    );
}

#[test]
fn unknown_files_must_be_included() {
    let dir = project(&[
        (
            "fx/x.shader/post.wgsl",
            b"#include \"shared.inc\"\n@compute @workgroup_size(1) fn main() {}\n",
        ),
        ("fx/x.shader/shared.inc", b"const k = 2u;\n"),
    ]);
    assert_eq!(names(&compile_in(dir.path()).unwrap()), ["compute"]);
    std::fs::write(dir.path().join("fx/x.shader/blur.frg"), "").unwrap();
    let text = compile_in(dir.path()).unwrap_err().to_string();
    assert!(text.contains("blur.frg: is not a shader source"), "{text}");
}

#[test]
fn precompiled_modules_are_checked_and_copied_verbatim() {
    let dir = project(&[("fx/x.shader/post.wgsl", WGSL.as_bytes())]);
    let module = compile_in(dir.path()).unwrap().modules.remove(0).bytes;
    let other = project(&[("fx/x.shader/Old.SPV", &module)]);
    let compiled = compile_in(other.path()).unwrap();
    assert_eq!(names(&compiled), ["Old"]);
    assert_eq!(compiled.modules[0].bytes, module);
    std::fs::write(
        other.path().join("fx/x.shader/Old.SPV"),
        &module[..module.len() - 4],
    )
    .unwrap();
    let text = compile_in(other.path()).unwrap_err().to_string();
    assert!(text.contains("Old.SPV: cannot parse SPIR-V"), "{text}");
}
