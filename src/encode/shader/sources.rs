//! Which files of a `*.shader/` folder are compiled, and as what.
//!
//! Only the folder's own files are looked at (subfolders are for included
//! files); hidden files (a leading `.`) and editor backups (a trailing `~`)
//! are skipped, as the scan does. By name, case-insensitively:
//!
//! | name | what |
//! |---|---|
//! | `*.vert`, `*.frag`, `*.comp` (also `*.vert.glsl` …) | GLSL of that stage, entry point `main` |
//! | `*.wgsl` | WGSL, any number of entry points |
//! | `*.spv` | precompiled SPIR-V, validated and copied |
//! | `*.glsl` (no stage) | a GLSL library: only ever included |
//!
//! A file that another file of the folder includes (directly or through
//! others) is a library and is not compiled on its own, whatever its name. A
//! file of any other name is an error unless something includes it, so a
//! misspelt stage (`blur.frg`) is never silently dropped.

use std::fs;
use std::path::{Path, PathBuf};

use naga::ShaderStage;

use super::diagnostic::{Diagnostic, ShaderError};

/// GLSL stage suffixes naga's GLSL front end compiles.
const GLSL_STAGES: [(&str, ShaderStage); 3] = [
    ("vert", ShaderStage::Vertex),
    ("frag", ShaderStage::Fragment),
    ("comp", ShaderStage::Compute),
];

/// What a file of the folder is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// GLSL source of one stage.
    Glsl(ShaderStage),
    /// WGSL source.
    Wgsl,
    /// A precompiled SPIR-V module.
    Spirv,
    /// A GLSL file without a stage: include-only.
    GlslLibrary,
    /// Anything else: must be included by a source.
    Other,
}

/// One file of the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderFile {
    /// Its name inside the folder.
    pub name: String,
    /// Its path relative to the input folder (`/`-separated).
    pub rel: String,
    /// What its name makes it.
    pub role: FileRole,
}

/// The role a file name gives.
pub fn role_of(name: &str) -> FileRole {
    let lower = name.to_ascii_lowercase();
    let base = lower.strip_suffix(".glsl").unwrap_or(&lower);
    for (suffix, stage) in GLSL_STAGES {
        if base
            .strip_suffix(suffix)
            .is_some_and(|stem| stem.ends_with('.') && stem.len() > 1)
        {
            return FileRole::Glsl(stage);
        }
    }
    if lower.ends_with(".glsl") {
        FileRole::GlslLibrary
    } else if lower.ends_with(".wgsl") {
        FileRole::Wgsl
    } else if lower.ends_with(".spv") {
        FileRole::Spirv
    } else {
        FileRole::Other
    }
}

/// The files directly inside `folder` (whose path below the input folder is
/// `folder_rel`), sorted by name so the build is deterministic.
pub fn list(folder: &Path, folder_rel: &str) -> Result<Vec<FolderFile>, ShaderError> {
    let read_error = |error: std::io::Error| {
        ShaderError::from(Diagnostic::file(folder, format!("cannot list: {error}")))
    };
    let mut files = Vec::new();
    for entry in fs::read_dir(folder).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let path: PathBuf = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(Diagnostic::file(&path, "has a name that is not UTF-8").into());
        };
        if name.starts_with('.') || name.ends_with('~') || !path.is_file() {
            continue;
        }
        files.push(FolderFile {
            rel: format!("{folder_rel}/{name}"),
            role: role_of(&name),
            name,
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pick_the_role() {
        assert_eq!(role_of("lit.vert"), FileRole::Glsl(ShaderStage::Vertex));
        assert_eq!(role_of("Lit.FRAG"), FileRole::Glsl(ShaderStage::Fragment));
        assert_eq!(
            role_of("blur.comp.glsl"),
            FileRole::Glsl(ShaderStage::Compute)
        );
        assert_eq!(role_of("common.glsl"), FileRole::GlslLibrary);
        assert_eq!(role_of("vert.glsl"), FileRole::GlslLibrary);
        assert_eq!(role_of("post.wgsl"), FileRole::Wgsl);
        assert_eq!(role_of("old.SPV"), FileRole::Spirv);
        assert_eq!(role_of("notes.md"), FileRole::Other);
        assert_eq!(role_of("lit.vertex"), FileRole::Other);
        assert_eq!(role_of(".vert"), FileRole::Other);
    }

    #[test]
    fn listing_skips_hidden_files_backups_and_folders() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.frag", "a.vert", ".swp", "a.vert~", "common.glsl"] {
            fs::write(dir.path().join(name), "").unwrap();
        }
        fs::create_dir(dir.path().join("lib.wgsl")).unwrap();
        let files = list(dir.path(), "fx/x.shader").unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a.vert", "b.frag", "common.glsl"]);
        assert_eq!(files[0].rel, "fx/x.shader/a.vert");
    }
}
