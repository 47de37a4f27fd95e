//! What configure learns from inside a mesh source before writing its edges.
//!
//! A mesh source is one `mesh` edge (writing `.hmesh`, `.hmat` and, when the
//! source is skinned and animated, `.hanim`) plus one `texture` edge per image
//! its materials use, so Ninja encodes images in parallel with the geometry and
//! re-encodes only the image that changed. To know those images configure reads
//! the material side of the source: the JSON of a `.gltf` (only the JSON chunk
//! of a `.glb`), or the `.mtl` libraries of an `.obj`.
//!
//! The files read here become inputs of the regeneration edge, so editing a
//! glTF or a material library re-runs configure. A source that cannot be read
//! is not fatal: configure warns, writes its mesh edge alone, and that edge
//! reports the problem in full when it runs, failing only itself. An image
//! of a glTF that cannot be found (a missing file) is warned about alone: the
//! source's other images still get their edges, and the mesh edge fails
//! until the image is there, since its `.hmat` would name a texture no edge
//! builds.

use std::path::{Path, PathBuf};

use crate::encode::mesh::gltf as gltf_source;
use crate::encode::mesh::obj as obj_source;
use crate::encode::mesh::scene::TextureUse;

/// The material side of one mesh source.
#[derive(Debug, Default)]
pub struct MeshInspection {
    /// The images its materials use, each compiled by its own texture edge.
    pub textures: Vec<TextureUse>,
    /// Whether the source is skinned and animated (it then also writes `.hanim`).
    pub animated: bool,
    /// Files read (the source and any material libraries), for regeneration.
    pub inputs: Vec<PathBuf>,
    /// Things the user should know, each naming the source.
    pub warnings: Vec<String>,
}

/// Reads the material side of the mesh source at `rel` below `input_root`.
pub fn inspect(input_root: &Path, rel: &str) -> MeshInspection {
    let path = input_root.join(rel);
    let mut inspection = MeshInspection {
        inputs: vec![path.clone()],
        ..MeshInspection::default()
    };
    let result = if obj_source::is_obj(rel) {
        inspect_obj(&path, input_root, rel, &mut inspection).map_err(|e| e.to_string())
    } else {
        inspect_gltf(&path, input_root, rel, &mut inspection).map_err(|e| e.to_string())
    };
    if let Err(error) = result {
        inspection.warnings.push(format!(
            "{rel}: cannot read its materials ({error}); building the mesh edge alone, which reports the problem"
        ));
    }
    inspection
}

fn inspect_gltf(
    path: &Path,
    input_root: &Path,
    rel: &str,
    inspection: &mut MeshInspection,
) -> Result<(), gltf_source::GltfError> {
    let json = gltf_source::read_json(path)?;
    let gltf = gltf_source::parse_document(&json)?;
    let document = &gltf.document;
    inspection.animated = document.skins().len() > 0 && document.animations().len() > 0;
    let found = gltf_source::texture_uses(document, path, input_root)?;
    inspection.textures = found.uses;
    inspection.warnings.extend(named(rel, found.warnings));
    inspection.warnings.extend(found.unusable.iter().map(|error| {
        format!("{rel}: {error}; its other images are built, but its mesh edge fails until this is fixed")
    }));
    Ok(())
}

fn inspect_obj(
    path: &Path,
    input_root: &Path,
    rel: &str,
    inspection: &mut MeshInspection,
) -> Result<(), obj_source::ObjError> {
    let found = obj_source::obj_textures(path, input_root)?;
    inspection.textures = found.textures;
    inspection.inputs.extend(found.inputs);
    inspection.warnings.extend(named(rel, found.warnings));
    Ok(())
}

/// Prefixes each warning with the source it is about.
fn named(rel: &str, warnings: Vec<String>) -> impl Iterator<Item = String> + '_ {
    warnings.into_iter().map(move |w| format!("{rel}: {w}"))
}
