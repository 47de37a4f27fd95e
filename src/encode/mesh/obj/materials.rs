//! The OBJ's material libraries: which `.mtl` files, which textures in which
//! order, and the `.hmat` rows.
//!
//! **Libraries.** Each `mtllib` statement names one or more libraries,
//! relative to the OBJ's folder, and names may contain spaces
//! (`mtllib my file.mtl other.mtl`). The line is split as obj2gltf splits
//! it ([`library_names`]): from the first word, the longest run of words that
//! names an existing file is one library, and the split goes on after it. A
//! word that starts no existing name is a missing library, which runs to the
//! next word ending in `.mtl` (so `my gone.mtl` is named whole). Names are
//! found as `paths::lookup` says (also by file name beside the OBJ, and an
//! absolute name only there); a library that cannot be found is skipped with
//! a warning, so its materials fall back to the default (faces that use them
//! get none). A library named twice is read once. Materials keep library order, then file
//! order; when two share a name, `usemtl` finds the first (warning).
//!
//! **Textures.** Materials are walked in order and, within one, the slots
//! `map_Kd` (colour), `map_Bump`/`bump`/`norm` (normal map) and `map_Ke`
//! (colour, emissive). Each file, told apart by its resolved path, gets one
//! entry at its first use; a later use in another mode keeps the first mode
//! (warning). Names are relative to the library's folder, must stay inside
//! the input folder, and are also looked for by file name beside the library
//! and beside the OBJ; a texture found nowhere leaves its slot empty, with a
//! warning.
//!
//! **Rows.** Starting from the glTF defaults: `Kd` is the base colour (white
//! when absent; a `map_Kd` multiplies it); `d`, or `1 - Tr` when there is no
//! `d`, is the alpha, clamped to [0, 1], and an alpha below 1 selects
//! blending; metallic is `Pm` or 0; roughness is `Pr`, else derived from
//! `Ns` (see [`roughness_from_shininess`]), else 1; `Ke` is the emission
//! (white when only `map_Ke` is given, so the map shows); the `-bm` of the
//! normal map statement is the normal scale.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::ObjError;
use super::mtl::{MapStatement, MtlMaterial, parse_mtl};
use super::paths::{self, Folder, Lookup, Resolved};
use super::scan::{LibraryStatement, library_statements};
use super::text::decode;
use crate::encode::mesh::scene::{self, ImageSource, SourceMaterial, TextureUse};
use crate::encode::texture::TextureMode;
use crate::format::hash::asset_hash;
use crate::format::hmat::{ALPHA_MODE_SHIFT, AlphaMode, GpuMaterial};

/// Everything read from the OBJ's material libraries.
#[derive(Debug, Clone, Default)]
pub(super) struct Libraries {
    /// The `.mtl` files read, in `mtllib` order.
    pub files: Vec<PathBuf>,
    /// Every material, in library order then file order.
    pub materials: Vec<LoadedMaterial>,
    /// `usemtl` name to position in `materials` (first definition wins).
    pub index: HashMap<String, usize>,
    /// The textures, in first-use order.
    pub textures: Vec<TextureUse>,
    /// Things ignored or changed, each starting with `library:line:`.
    pub warnings: Vec<String>,
}

/// One material and the texture list entries its slots use.
#[derive(Debug, Clone)]
pub(super) struct LoadedMaterial {
    /// As parsed.
    pub mtl: MtlMaterial,
    /// Index into [`Libraries::textures`] of the `map_Kd` image.
    pub color_texture: Option<usize>,
    /// Index of the normal map.
    pub normal_texture: Option<usize>,
    /// Index of the `map_Ke` image.
    pub emissive_texture: Option<usize>,
}

/// Reads every library the OBJ names and builds the texture list.
pub(super) fn load_libraries(
    obj: &Path,
    obj_text: &str,
    input_root: &Path,
) -> Result<Libraries, ObjError> {
    let folder = paths::folder_of(obj, input_root).ok_or_else(|| {
        ObjError::new(
            obj,
            None,
            format!("is not inside the input folder {}", input_root.display()),
        )
    })?;
    let mut libraries = Libraries::default();
    let mut library_of_material = Vec::new();
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    for statement in library_statements(obj_text) {
        let named = resolve_libraries(input_root, &folder, &statement, &mut libraries.warnings)
            .map_err(|what| ObjError::new(obj, Some(statement.line), what))?;
        for resolved in named.into_iter().filter(|r| seen.insert(r.path.clone())) {
            let materials = read_library(&resolved, &mut libraries.warnings)?;
            library_of_material.extend(std::iter::repeat_n(files.len(), materials.len()));
            libraries.materials.extend(materials);
            libraries.files.push(resolved.path.clone());
            files.push(resolved);
        }
    }
    index_names(&mut libraries, &files, &library_of_material);
    let places = Places {
        input_root,
        obj_folder: &folder,
        files: &files,
        library_of: &library_of_material,
    };
    assign_textures(&places, &mut libraries)?;
    Ok(libraries)
}

/// Where the libraries and their textures are.
struct Places<'a> {
    input_root: &'a Path,
    /// The OBJ's folder: textures are also looked for there.
    obj_folder: &'a Folder,
    /// The libraries read.
    files: &'a [Resolved],
    /// For each material, the index of its library in `files`.
    library_of: &'a [usize],
}

/// The most words one library name may span: bounds the lookups a long
/// `mtllib` line costs (each word tries this many runs at most).
const MAX_WORDS_PER_NAME: usize = 16;

/// The libraries one `mtllib` statement names (see [`library_names`]); a
/// library that is not found is skipped with a warning in `warnings`.
fn resolve_libraries(
    input_root: &Path,
    folder: &Folder,
    statement: &LibraryStatement,
    warnings: &mut Vec<String>,
) -> Result<Vec<Resolved>, String> {
    let line = statement.line;
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for lookup in library_names(input_root, folder, &statement.names)? {
        match lookup {
            Lookup::Found(resolved, note) => {
                warnings.extend(note.map(|note| format!("line {line}: mtllib {note}")));
                found.push(resolved);
            }
            Lookup::Missing(why) => missing.push(why),
        }
    }
    if !missing.is_empty() {
        warnings.push(format!(
            "line {line}: material library {}; its materials fall back to the default",
            missing.join("; ")
        ));
    }
    Ok(found)
}

/// Splits the rest of an `mtllib` line (`names`, written in a file inside
/// `folder`) into libraries, the way obj2gltf does: from each word, the
/// longest run of words (spacing kept, at most [`MAX_WORDS_PER_NAME`]) that
/// names an existing file wins, then the split goes on after it. A word that
/// starts no existing name begins a missing one, which runs to the next word
/// ending in `.mtl`. Errors for a name that climbs out of the input folder
/// and for an empty line.
fn library_names(input_root: &Path, folder: &Folder, names: &str) -> Result<Vec<Lookup>, String> {
    let words = word_spans(names);
    if words.is_empty() {
        return Err("mtllib needs a file name".into());
    }
    let find = |name: &str| paths::lookup(input_root, folder, name, &[folder]);
    let run = |start: usize, end: usize| &names[words[start].0..words[end - 1].1];
    let mut out = Vec::new();
    let mut start = 0;
    while start < words.len() {
        let last = (start + MAX_WORDS_PER_NAME).min(words.len());
        let longest = (start + 1..=last)
            .rev()
            .find_map(|end| match find(run(start, end)) {
                Ok(found @ Lookup::Found(..)) => Some((end, found)),
                _ => None,
            });
        let (end, lookup) = match longest {
            Some(found) => found,
            None => {
                let end = (start..last)
                    .find(|&w| run(w, w + 1).to_ascii_lowercase().ends_with(".mtl"))
                    .map_or(start + 1, |w| w + 1);
                (end, find(run(start, end))?)
            }
        };
        out.push(lookup);
        start = end;
    }
    Ok(out)
}

/// The byte ranges of the whitespace-separated words of `text`.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(begin)) => {
                spans.push((begin, at));
                start = None;
            }
            (false, None) => start = Some(at),
            _ => {}
        }
    }
    if let Some(begin) = start {
        spans.push((begin, text.len()));
    }
    spans
}

/// Reads and parses one library; its warnings are appended to `warnings`.
fn read_library(
    resolved: &Resolved,
    warnings: &mut Vec<String>,
) -> Result<Vec<LoadedMaterial>, ObjError> {
    let bytes = std::fs::read(&resolved.path)
        .map_err(|error| ObjError::new(&resolved.path, None, format!("cannot be read: {error}")))?;
    let library = parse_mtl(&decode(&bytes))
        .map_err(|error| ObjError::new(&resolved.path, Some(error.line), error.what))?;
    warnings.extend(
        library
            .warnings
            .into_iter()
            .map(|(line, what)| format!("{}:{line}: {what}", resolved.relative)),
    );
    Ok(library
        .materials
        .into_iter()
        .map(|mtl| LoadedMaterial {
            mtl,
            color_texture: None,
            normal_texture: None,
            emissive_texture: None,
        })
        .collect())
}

/// Fills [`Libraries::index`], warning about repeated names.
fn index_names(libraries: &mut Libraries, files: &[Resolved], library_of: &[usize]) {
    let place = |at: usize| -> String {
        let file = library_of
            .get(at)
            .and_then(|&f| files.get(f))
            .map_or("?", |f| f.relative.as_str());
        let line = libraries.materials.get(at).map_or(0, |m| m.mtl.line);
        format!("{file}:{line}")
    };
    let mut index = HashMap::new();
    let mut warnings = Vec::new();
    for (at, material) in libraries.materials.iter().enumerate() {
        match index.get(&material.mtl.name) {
            Some(&first) => warnings.push(format!(
                "{}: material {:?} is defined again (first at {}); usemtl finds the first",
                place(at),
                material.mtl.name,
                place(first)
            )),
            None => {
                index.insert(material.mtl.name.clone(), at);
            }
        }
    }
    libraries.index = index;
    libraries.warnings.extend(warnings);
}

/// The texture list being built: entries and the entry of each path.
#[derive(Default)]
struct TextureList {
    uses: Vec<TextureUse>,
    by_path: HashMap<PathBuf, usize>,
}

/// Resolves every texture slot and builds the texture list.
fn assign_textures(places: &Places<'_>, libraries: &mut Libraries) -> Result<(), ObjError> {
    let mut list = TextureList::default();
    for (at, material) in libraries.materials.iter_mut().enumerate() {
        let Some(file) = places.library_of.get(at).and_then(|&f| places.files.get(f)) else {
            continue;
        };
        let mut slot = |map: &Option<MapStatement>, mode| match map {
            Some(map) => add_texture(places, file, map, mode, &mut list, &mut libraries.warnings),
            None => Ok(None),
        };
        material.color_texture = slot(&material.mtl.diffuse_map, TextureMode::Color)?;
        material.normal_texture = slot(&material.mtl.normal_map, TextureMode::Normal)?;
        material.emissive_texture = slot(&material.mtl.emissive_map, TextureMode::Color)?;
    }
    libraries.textures = list.uses;
    Ok(())
}

/// Resolves one texture statement and returns its list entry, or `None`
/// (with a warning) when the file is found nowhere.
fn add_texture(
    places: &Places<'_>,
    library: &Resolved,
    map: &MapStatement,
    mode: TextureMode,
    list: &mut TextureList,
    warnings: &mut Vec<String>,
) -> Result<Option<usize>, ObjError> {
    let at_line = |what: String| ObjError::new(&library.path, Some(map.line), what);
    let beside = [&library.folder, places.obj_folder];
    let place = format!("{}:{}", library.relative, map.line);
    let resolved = match paths::lookup(places.input_root, &library.folder, &map.file, &beside)
        .map_err(at_line)?
    {
        Lookup::Found(resolved, note) => {
            warnings.extend(note.map(|note| format!("{place}: texture {note}")));
            resolved
        }
        Lookup::Missing(why) => {
            warnings.push(format!("{place}: texture {why}; the slot is left empty"));
            return Ok(None);
        }
    };
    if let Some(&index) = list.by_path.get(&resolved.path) {
        let first = list.uses.get(index).map_or(mode, |u| u.mode);
        if first != mode {
            warnings.push(format!(
                "{}:{}: {:?} is used here as a {} but first as a {}; it is encoded as a {}",
                library.relative,
                map.line,
                map.file,
                mode_name(mode),
                mode_name(first),
                mode_name(first)
            ));
        }
        return Ok(Some(index));
    }
    let index = list.uses.len();
    list.by_path.insert(resolved.path.clone(), index);
    list.uses.push(TextureUse {
        index,
        mode,
        source: ImageSource::File(resolved.path),
    });
    Ok(Some(index))
}

/// How a mode reads in a message.
fn mode_name(mode: TextureMode) -> &'static str {
    match mode {
        TextureMode::Color => "colour texture",
        TextureMode::Normal => "normal map",
        TextureMode::Gray => "greyscale texture",
        TextureMode::Linear => "linear texture",
    }
}

/// The `.hmat` rows of every material, in order. `source_ref` is the OBJ's
/// ref (`models/crate`); texture refs hash `<source_ref>/tex_<index>`.
pub(super) fn material_rows(libraries: &Libraries, source_ref: &str) -> Vec<SourceMaterial> {
    libraries
        .materials
        .iter()
        .map(|material| SourceMaterial {
            name: material.mtl.name.clone(),
            row: material_row(material, source_ref),
        })
        .collect()
}

/// One material's row (see the module notes).
fn material_row(material: &LoadedMaterial, source_ref: &str) -> GpuMaterial {
    let mtl = &material.mtl;
    let alpha = opacity(mtl);
    let [red, green, blue] = mtl.diffuse.unwrap_or([1.0; 3]);
    let alpha_mode = if alpha < 1.0 {
        AlphaMode::Blend
    } else {
        AlphaMode::Opaque
    };
    let texture_ref = |index: Option<usize>| {
        index.map_or(0, |index| {
            asset_hash(&scene::texture_ref(source_ref, index))
        })
    };
    let default_emission = if mtl.emissive_map.is_some() { 1.0 } else { 0.0 };
    GpuMaterial {
        base_color_factor: [red, green, blue, alpha],
        emissive_factor: mtl.emissive.unwrap_or([default_emission; 3]),
        metallic_factor: mtl.metallic.map_or(0.0, |m| m.clamp(0.0, 1.0)),
        roughness_factor: roughness(mtl),
        normal_scale: mtl
            .normal_map
            .as_ref()
            .and_then(|map| map.bump_multiplier)
            .unwrap_or(1.0),
        flags: (alpha_mode as u32) << ALPHA_MODE_SHIFT,
        base_color_texture: texture_ref(material.color_texture),
        normal_texture: texture_ref(material.normal_texture),
        emissive_texture: texture_ref(material.emissive_texture),
        ..GpuMaterial::default()
    }
}

/// The alpha: `d`, else `1 - Tr`, else 1; clamped to [0, 1].
fn opacity(mtl: &MtlMaterial) -> f32 {
    mtl.dissolve
        .or(mtl.transparency.map(|tr| 1.0 - tr))
        .unwrap_or(1.0)
        .clamp(0.0, 1.0)
}

/// The roughness: `Pr`, else from `Ns`, else 1; clamped to [0, 1].
fn roughness(mtl: &MtlMaterial) -> f32 {
    mtl.roughness
        .or(mtl.shininess.map(roughness_from_shininess))
        .unwrap_or(1.0)
        .clamp(0.0, 1.0)
}

/// Maps a Blinn-Phong exponent to glTF perceptual roughness.
///
/// A Blinn-Phong lobe `cos^n` has about the width of a Beckmann or GGX lobe
/// with `alpha = sqrt(2 / (n + 2))` (Walter et al. 2007). glTF squares its
/// roughness to get `alpha`, so the roughness is `sqrt(alpha)`, that is
/// `(2 / (n + 2))^(1/4)`: `Ns 0` gives 1, `Ns 10` 0.64,
/// `Ns 30` 0.5, `Ns 1000` 0.21. Negative exponents count as 0.
pub(super) fn roughness_from_shininess(shininess: f32) -> f32 {
    let alpha = (2.0 / (shininess.max(0.0) + 2.0)).sqrt();
    alpha.sqrt().clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shininess_maps_through_the_ggx_alpha() {
        assert_eq!(roughness_from_shininess(0.0), 1.0);
        assert_eq!(roughness_from_shininess(-5.0), 1.0);
        assert!((roughness_from_shininess(30.0) - 0.5).abs() < 1e-6);
        assert!((roughness_from_shininess(1000.0) - 0.2113).abs() < 1e-3);
        assert!(roughness_from_shininess(1e30) >= 0.0);
    }

    #[test]
    fn rows_follow_the_statements() {
        let mut mtl = MtlMaterial {
            name: "m".into(),
            transparency: Some(0.25),
            shininess: Some(30.0),
            ..MtlMaterial::default()
        };
        let mut material = LoadedMaterial {
            mtl: mtl.clone(),
            color_texture: None,
            normal_texture: Some(3),
            emissive_texture: None,
        };
        let row = material_row(&material, "a/b");
        assert_eq!(row.base_color_factor, [1.0, 1.0, 1.0, 0.75]);
        assert_eq!(row.flags, (AlphaMode::Blend as u32) << ALPHA_MODE_SHIFT);
        assert!((row.roughness_factor - 0.5).abs() < 1e-6);
        assert_eq!(row.metallic_factor, 0.0);
        assert_eq!(row.normal_texture, asset_hash("a/b/tex_3"));
        assert_eq!(row.base_color_texture, 0);

        mtl.dissolve = Some(1.0);
        mtl.roughness = Some(0.3);
        mtl.metallic = Some(2.0);
        mtl.emissive_map = Some(MapStatement {
            line: 1,
            file: "e.png".into(),
            bump_multiplier: None,
        });
        material.mtl = mtl;
        let row = material_row(&material, "a/b");
        assert_eq!(row.base_color_factor[3], 1.0, "d wins over Tr");
        assert_eq!(row.flags, 0);
        assert_eq!((row.roughness_factor, row.metallic_factor), (0.3, 1.0));
        assert_eq!(row.emissive_factor, [1.0; 3]);
    }
}
