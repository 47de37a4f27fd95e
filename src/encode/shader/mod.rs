//! `*.shader/` folders compiled to validated SPIR-V with naga.
//!
//! One folder is one set of shaders (typically one pipeline). Its GLSL and WGSL
//! sources are compiled to one `.spv` per entry point, and its precompiled
//! `.spv` files are validated and copied; `shaders/Bloom.shader/` writes into
//! `shaders/Bloom/`. The pieces:
//!
//! * [`sources`]: which files of the folder are compiled, and as what;
//! * [`mod@include`]: `#include "file"` expansion with a line map;
//! * [`mod@compile`]: naga's front ends, validator and SPIR-V back end;
//! * [`spirv`]: checking precompiled modules;
//! * [`naming`]: the `.spv` name of an entry point;
//! * [`output`]: the Ninja edge, whose set of files depends on the sources.
//!
//! Everything is computed in memory before anything is written, and any error
//! fails the whole folder: a pipeline with one stage missing is no use.

pub mod compile;
pub mod diagnostic;
pub mod include;
pub mod naming;
pub mod output;
pub mod sources;
pub mod spirv;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use compile::{Language, compile};
use diagnostic::{Diagnostic, ShaderError};
use include::{Expanded, Sources, expand};
use sources::{FileRole, FolderFile};

pub use spirv::{SpirvSummary, validate_spirv};

/// One `.spv` the folder produces.
#[derive(Debug, Clone)]
pub struct NamedModule {
    /// The file stem, case kept (`vertex`, `vs`, `bloom_down`).
    pub name: String,
    /// The SPIR-V bytes.
    pub bytes: Vec<u8>,
    /// Where it came from, for messages.
    pub origin: String,
}

/// Everything a shader folder compiles to.
#[derive(Debug, Clone)]
pub struct CompiledFolder {
    /// The modules, sorted by name.
    pub modules: Vec<NamedModule>,
    /// Every file read (sources, includes, precompiled modules), for the
    /// depfile.
    pub inputs: Vec<PathBuf>,
}

/// Compiles the shader folder `sources.folder` (found at `folder`).
pub fn compile_folder(sources: Sources<'_>, folder: &Path) -> Result<CompiledFolder, ShaderError> {
    let files = sources::list(folder, sources.folder)?;
    let mut diagnostics = Vec::new();
    let expanded = expand_sources(sources, &files, &mut diagnostics);
    let included: BTreeSet<&str> = expanded
        .iter()
        .flat_map(|source| source.text.included())
        .map(String::as_str)
        .collect();
    let mut inputs: BTreeSet<PathBuf> = files.iter().map(|f| sources.path(&f.rel)).collect();
    inputs.extend(included.iter().map(|rel| sources.path(rel)));
    let mut modules = Vec::new();
    for source in expanded.iter().filter(|s| !included.contains(s.rel)) {
        match compile(&source.text, source.language) {
            Ok(entries) => modules.extend(entries.into_iter().map(|entry| NamedModule {
                name: naming::output_name(&entry.entry, entry.stage),
                origin: format!(
                    "entry point `{}` of {}",
                    entry.entry,
                    source.text.root_path().display()
                ),
                bytes: entry.bytes,
            })),
            Err(error) => diagnostics.extend(error.diagnostics),
        }
    }
    for file in files.iter().filter(|f| !included.contains(f.rel.as_str())) {
        match non_source(sources, file) {
            Some(Ok(module)) => modules.push(module),
            Some(Err(diagnostic)) => diagnostics.push(diagnostic),
            None => {}
        }
    }
    if !diagnostics.is_empty() {
        return Err(ShaderError::of(diagnostics));
    }
    let modules = unique_names(folder, modules)?;
    if modules.is_empty() {
        return Err(Diagnostic::file(
            folder,
            "holds no shader entry points: add GLSL (.vert, .frag, .comp), WGSL (.wgsl) \
             or SPIR-V (.spv) files",
        )
        .into());
    }
    Ok(CompiledFolder {
        modules,
        inputs: inputs.into_iter().collect(),
    })
}

/// A source of the folder with its includes expanded.
struct ExpandedSource<'a> {
    /// Its path below the input folder.
    rel: &'a str,
    /// Its language.
    language: Language,
    /// The expanded text and line map.
    text: Expanded,
}

/// Expands every GLSL and WGSL file of the folder; expansion errors go to
/// `diagnostics` so every broken file is reported in one run.
fn expand_sources<'a>(
    sources: Sources<'_>,
    files: &'a [FolderFile],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<ExpandedSource<'a>> {
    let mut expanded = Vec::new();
    for file in files {
        let Some(language) = language_of(file.role) else {
            continue;
        };
        match expand(sources, &file.rel, language.dialect()) {
            Ok(text) => expanded.push(ExpandedSource {
                rel: &file.rel,
                language,
                text,
            }),
            Err(error) => diagnostics.extend(error.diagnostics),
        }
    }
    expanded
}

/// What a file that is neither a source nor included contributes: a
/// precompiled module, an error for an unknown file, or nothing (a library).
fn non_source(sources: Sources<'_>, file: &FolderFile) -> Option<Result<NamedModule, Diagnostic>> {
    match file.role {
        FileRole::Spirv => Some(precompiled(sources, file)),
        FileRole::Other => Some(Err(Diagnostic::file(
            &sources.path(&file.rel),
            "is not a shader source (.vert, .frag, .comp, .wgsl or .spv) and no source \
             in the folder includes it",
        ))),
        FileRole::Glsl(_) | FileRole::Wgsl | FileRole::GlslLibrary => None,
    }
}

/// The language a file is compiled as, if it is a source.
fn language_of(role: FileRole) -> Option<Language> {
    match role {
        FileRole::Glsl(stage) => Some(Language::Glsl(stage)),
        FileRole::Wgsl => Some(Language::Wgsl),
        FileRole::Spirv | FileRole::GlslLibrary | FileRole::Other => None,
    }
}

/// Reads and checks a precompiled module; it keeps its file stem.
fn precompiled(sources: Sources<'_>, file: &FolderFile) -> Result<NamedModule, Diagnostic> {
    let path = sources.path(&file.rel);
    let bytes = crate::fsutil::read(&path)
        .map_err(|error| Diagnostic::file(&path, diagnostic::message_with_causes(&error)))?;
    if bytes.is_empty() {
        return Err(Diagnostic::file(&path, crate::encode::job::EMPTY_FILE));
    }
    validate_spirv(&bytes).map_err(|what| Diagnostic::file(&path, what))?;
    Ok(NamedModule {
        name: crate::fsutil::without_extension(&file.name).to_string(),
        bytes,
        origin: path.display().to_string(),
    })
}

/// Sorts the modules by name, refusing two that would share a file (names
/// compare case-insensitively, as ids and some file systems do).
fn unique_names(folder: &Path, modules: Vec<NamedModule>) -> Result<Vec<NamedModule>, ShaderError> {
    let mut by_name: BTreeMap<String, NamedModule> = BTreeMap::new();
    let mut diagnostics = Vec::new();
    for module in modules {
        let key = module.name.to_ascii_lowercase();
        if let Some(first) = by_name.get(&key) {
            diagnostics.push(Diagnostic::file(
                folder,
                format!(
                    "{} and {} both compile to {}.spv; rename one of them",
                    first.origin, module.origin, module.name
                ),
            ));
            continue;
        }
        by_name.insert(key, module);
    }
    if !diagnostics.is_empty() {
        return Err(ShaderError { diagnostics });
    }
    let mut modules: Vec<NamedModule> = by_name.into_values().collect();
    modules.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(modules)
}

#[cfg(test)]
mod tests;
