//! Wavefront OBJ sources, with their `.mtl` material libraries, read into a
//! [`Scene`].
//!
//! Two entry points share the material reading:
//!
//! - [`obj_textures`], for configure: the textures the materials use, found
//!   by scanning the OBJ for `mtllib` statements and reading those
//!   libraries, without touching the geometry;
//! - [`import_obj`], for the mesh edge: geometry, materials and warnings.
//!
//! The pieces:
//!
//! - `mtl`: our own `.mtl` reader. MTL is small and line-based; reading it
//!   ourselves gives every error its line and handles texture options such
//!   as `-bm 0.5` (which `tobj` treats as part of the file name).
//! - `scan`: a checking pass over the OBJ lines that gives geometry errors
//!   their line, and the cleaned text handed to `tobj`.
//! - `geometry`: `tobj` (single index, triangulated) and the conversion of
//!   its models into primitives. OBJ's `v` axis points up; UVs become
//!   top-left based with `v' = 1 - v`.
//! - `materials`: library resolution, the texture list and the `.hmat` rows.
//! - `paths`: names inside OBJ/MTL files, resolved inside the input folder.
//!
//! Text that is not UTF-8 is read with replacement characters; a statement
//! may not continue onto the next line with a trailing `\`.

mod geometry;
mod materials;
mod mtl;
mod paths;
mod scan;
mod text;

use std::path::{Path, PathBuf};

use self::materials::{Libraries, load_libraries, material_rows};
use self::text::decode;
use crate::encode::mesh::scene::{Scene, TextureUse};

/// A problem with an OBJ source or one of its material libraries.
///
/// Displays as `<file>:<line>: <what>`, or `<file>: <what>` when no line
/// applies (an unreadable file, a failure inside the OBJ reader).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {what}", location(file, *line))]
pub struct ObjError {
    /// The file at fault: the `.obj` or a `.mtl`.
    pub file: PathBuf,
    /// The one-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub what: String,
}

impl ObjError {
    /// An error in `file`, at `line` when known.
    fn new(file: &Path, line: Option<usize>, what: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            line,
            what: what.into(),
        }
    }
}

/// `file` or `file:line`.
fn location(file: &Path, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", file.display()),
        None => file.display().to_string(),
    }
}

/// What configure needs from an OBJ: its textures and the files read.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjTextures {
    /// The images the materials use, in first-use order (see
    /// [`obj_textures`]); `index` is the position in this list.
    pub textures: Vec<TextureUse>,
    /// The `.mtl` files read, in `mtllib` order: extra inputs of the edges.
    pub inputs: Vec<PathBuf>,
    /// Things ignored or changed, one line each, starting with the `.mtl`
    /// file (relative to the input folder) and line.
    pub warnings: Vec<String>,
}

/// Whether a source path names an OBJ (by its extension, in any case); other
/// mesh sources are glTF or GLB.
pub fn is_obj(source: &str) -> bool {
    source.to_ascii_lowercase().ends_with(".obj")
}

/// Lists the textures an OBJ's materials use, without reading its geometry.
///
/// Scans `obj` for `mtllib` statements (names may contain spaces: from each
/// word, the longest run of words that names an existing file is one
/// library, as obj2gltf splits them; the mesh edge splits the same way) and
/// reads those libraries. The list walks the materials in library order, then file
/// order, and their slots `map_Kd` (colour), `map_Bump`/`bump`/`norm`
/// (normal) and `map_Ke` (colour); each file, by resolved path, is listed at
/// its first use, and a conflicting later mode is a warning. Texture and
/// library names are relative to the naming file's folder, may use `\`, and
/// are read only inside `input_root`: a name not found where it points (an
/// absolute one is never opened) is looked for by file name beside the file,
/// and one found nowhere is a warning (the library's materials fall back to
/// the default, the texture slot stays empty).
pub fn obj_textures(obj: &Path, input_root: &Path) -> Result<ObjTextures, ObjError> {
    let text = read_text(obj)?;
    let libraries = load_libraries(obj, &text, input_root)?;
    Ok(ObjTextures {
        textures: libraries.textures,
        inputs: libraries.files,
        warnings: libraries.warnings,
    })
}

/// Imports an OBJ for the mesh edge: one primitive per run of faces that
/// share an object or group and a material, every material of its libraries
/// (texture refs hash `<source_ref>/tex_<index>`, with the indices of
/// [`obj_textures`]), and warnings. Also returns the `.mtl` files read.
///
/// `source_ref` is the OBJ's path below the input folder, extension dropped,
/// lowercased (`models/crate`).
pub fn import_obj(
    obj: &Path,
    input_root: &Path,
    source_ref: &str,
) -> Result<(Scene, Vec<PathBuf>), ObjError> {
    let text = read_text(obj)?;
    let libraries = load_libraries(obj, &text, input_root)?;
    let prepared = scan::prepare(&text).map_err(|e| ObjError::new(obj, Some(e.line), e.what))?;
    let mut warnings = libraries.warnings.clone();
    warnings.extend(prepared.warnings.iter().cloned());
    warnings.extend(unknown_material_warnings(&prepared.materials, &libraries));

    let names: Vec<String> = libraries
        .materials
        .iter()
        .map(|m| m.mtl.name.clone())
        .collect();
    let at_file = |what: String| ObjError::new(obj, None, what);
    let models =
        geometry::load_models(&prepared.text, &names, &libraries.index).map_err(at_file)?;
    let primitives = geometry::primitives(&models, &names, &mut warnings).map_err(at_file)?;
    if primitives.is_empty() {
        return Err(at_file("no triangles: the file has no faces".into()));
    }
    let scene = Scene {
        primitives,
        materials: material_rows(&libraries, source_ref),
        skeleton: Vec::new(),
        animations: Vec::new(),
        warnings,
    };
    Ok((scene, libraries.files))
}

/// Reads a whole OBJ as text.
fn read_text(obj: &Path) -> Result<String, ObjError> {
    let bytes = std::fs::read(obj)
        .map_err(|error| ObjError::new(obj, None, format!("cannot be read: {error}")))?;
    Ok(decode(&bytes))
}

/// One warning per `usemtl` whose name no library defines.
fn unknown_material_warnings(
    statements: &[scan::MaterialStatement],
    libraries: &Libraries,
) -> Vec<String> {
    statements
        .iter()
        .filter(|s| !libraries.index.contains_key(&s.name))
        .map(|s| {
            format!(
                "line {}: usemtl {:?} names no material in the libraries; those faces get none",
                s.line, s.name
            )
        })
        .collect()
}

#[cfg(test)]
mod tests;
