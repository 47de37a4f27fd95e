//! glTF 2.0 sources (`.gltf` with its buffers, or `.glb`) read into a
//! [`Scene`].
//!
//! The `gltf` crate is used without its `import` feature: it parses and
//! validates the JSON, and everything that touches binary data is done here
//! with every offset checked, so a malformed file becomes a [`GltfError`]
//! naming the JSON path at fault instead of a panic. The few crate calls that
//! could still panic on hostile input are pre-checked and, as a last resort,
//! run under [`std::panic::catch_unwind`].
//!
//! The pieces, in the order the encoder uses them:
//! * [`read_json`] and [`parse_document`] (module `document`) read and check
//!   the container and the JSON;
//! * [`load_buffers`] and [`image_bytes`] (module `buffers`) resolve buffers
//!   and images from the GLB, data URIs or files next to the source, refusing
//!   URIs that leave the input folder (module `uri`);
//! * [`texture_uses`] (module `materials`) lists the images the materials use
//!   and how, for configure's texture edges;
//! * [`import_gltf`] walks the scene (module `walk`), reads the primitives
//!   (modules `accessor`, `geometry`, `transform`), the skeleton (`skin`) and
//!   the clips (`animation`).
//!
//! Behaviour decisions worth knowing:
//! * Scene: the default scene, else `scenes[0]`, else every root node, else
//!   (no nodes at all) every mesh once, untransformed. An empty chosen scene
//!   gives way, with a warning, to the first scene with nodes (module
//!   `walk`); a scene without `nodes` and an animation channel without
//!   `target.node`, valid glTF the `gltf` crate cannot read, are set right
//!   first (module `repair`).
//! * Points, lines and primitives without `POSITION` are skipped with a
//!   warning (module `geometry`); only a scene left with no triangle fails.
//! * Skins: only `skins[0]` is exported. A node bound to another skin gets a
//!   warning and its mesh is treated as a static mesh (baked when merging).
//!   A primitive is skinned when its node uses `skins[0]` and it has both
//!   `JOINTS_0` and `WEIGHTS_0`.
//! * With `merge: false`, a mesh used by both skinned and static nodes is
//!   emitted once, skinned.
//! * Nodes reached twice (glTF requires trees) are visited once, with a
//!   warning; a node with a singular (zero-scale) world matrix is skipped with
//!   a warning.
//! * Non-finite normals, tangents or UVs drop that attribute (the builder
//!   regenerates normals and tangents) with a warning; a non-finite position
//!   is an error.
//! * Sparse accessors are supported.
//! * Extensions (module `extensions`): meshopt-compressed buffer views
//!   (module `compressed`) and Draco-compressed primitives (module `draco`)
//!   are decoded, quantized attributes
//!   (`KHR_mesh_quantization`) are read as floats, texture transforms are
//!   baked into the UVs (module `uv_transform`), GPU instances are baked
//!   like nodes (module `instancing`); extensions that carry what
//!   the runtime formats cannot hold are skipped with one warning each, and
//!   only those assetc cannot decode (WebP, AVIF, unknown ones) fail.

mod accessor;
mod animation;
mod buffers;
mod compressed;
mod document;
mod draco;
mod extensions;
mod geometry;
mod instancing;
mod materials;
mod repair;
mod skin;
mod transform;
mod uri;
mod uv_transform;
mod walk;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_extensions;
#[cfg(test)]
mod tests_skin;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use crate::encode::mesh::scene::Scene;

pub use buffers::{Buffers, image_bytes, load_buffers};
pub use document::{parse_document, read_json};
pub use materials::{ImageUses, texture_uses};

/// What went wrong in a glTF source, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", render(.location, .what, .file))]
pub struct GltfError {
    /// The JSON path at fault, like
    /// `meshes[2].primitives[0].attributes.POSITION`, or empty when the fault
    /// is not in the JSON (a truncated GLB, an unreadable file).
    pub location: String,
    /// What is wrong.
    pub what: String,
    /// The `.bin` or image file at fault, when it is not the source itself.
    pub file: Option<PathBuf>,
}

impl GltfError {
    /// An error at a JSON path (empty for none).
    pub fn at(location: impl Into<String>, what: impl Into<String>) -> Self {
        Self {
            location: location.into(),
            what: what.into(),
            file: None,
        }
    }

    /// The same error, blaming `file`.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }
}

/// Formats a [`GltfError`]: `<location>: <what>`, then ` (in <file>)`.
fn render(location: &str, what: &str, file: &Option<PathBuf>) -> String {
    let mut text = if location.is_empty() {
        what.to_owned()
    } else {
        format!("{location}: {what}")
    };
    if let Some(file) = file {
        text.push_str(&format!(" (in {})", file.display()));
    }
    text
}

/// `a`, `a and b`, `a, b and c`: a list in a message.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// How [`import_gltf`] lays out the scene.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Bake static nodes' world transforms into their vertices, one submesh
    /// per primitive per instance (`true`), or emit each mesh once in its own
    /// space (`false`).
    pub merge: bool,
    /// The images configure gave a texture edge (`--textures`): an image a
    /// material uses outside this list fails the import. `None` (a run by
    /// hand) checks instead that every such image's file exists.
    pub planned_textures: Option<Vec<usize>>,
}

impl Default for ImportOptions {
    /// `merge: true`, the `assetc.yml` default; images checked on disk.
    fn default() -> Self {
        Self {
            merge: true,
            planned_textures: None,
        }
    }
}

/// Reads a whole glTF or GLB source (`bytes` is the file at `source`) into a
/// [`Scene`]: primitives per the scene walk, every material (texture refs
/// hashed from `<source_ref>/tex_<image>`), and, when a skinned mesh is
/// emitted, the skeleton of `skins[0]` and the clips animating it.
///
/// `source_ref` is the source's path relative to the input folder, without
/// extension, lowercased (`models/chair`). Buffers are loaded from files next
/// to the source; URIs must stay inside `input_root`. Returns the scene and
/// the extra files read (external buffers), for the depfile. Image URIs
/// must obey the buffer rules too, and every image a material uses must
/// exist, though their texture edges read them.
pub fn import_gltf(
    bytes: &[u8],
    source: &Path,
    input_root: &Path,
    source_ref: &str,
    options: &ImportOptions,
) -> Result<(Scene, Vec<PathBuf>), GltfError> {
    let (gltf, repairs) = document::parse_repairing(bytes)?;
    check_images(
        &gltf,
        source,
        input_root,
        options.planned_textures.as_deref(),
    )?;
    let compression = compressed::read(gltf.document.as_json())?;
    let mut buffers = load_buffers(&gltf, source, input_root, &compression.fallback_buffers)?;
    buffers.decoded_views = compressed::decode_views(&compression, &buffers.data)?;
    buffers.decoded_accessors = draco::decode_accessors(gltf.document.as_json(), &buffers)?;
    let scene = guarded("", || {
        build_scene(&gltf, &buffers, &repairs, source_ref, options)
    })?;
    Ok((scene, buffers.files))
}

/// Refuses an external image URI that leaves the input folder, and an image
/// a material slot uses that has no texture edge (`planned`, from
/// configure) or, without a plan, whose bytes cannot be found: the `.hmat`
/// would name a texture that is never built.
///
/// With a plan, the file system is only consulted to explain a refusal, so
/// an edge run remotely, whose sandbox holds only the files it reads, checks
/// the same as a local one. Nothing is read; the texture edges read the
/// images.
fn check_images(
    gltf: &::gltf::Gltf,
    source: &Path,
    input_root: &Path,
    planned: Option<&[usize]>,
) -> Result<(), GltfError> {
    let root = gltf.document.as_json();
    for (index, image) in root.images.iter().enumerate() {
        if let Some(uri) = image.uri.as_deref().filter(|uri| !uri::is_data_uri(uri)) {
            uri::resolve_file_uri(uri, &format!("images[{index}].uri"), source, input_root)?;
        }
    }
    let unplanned = match planned {
        Some(planned) => materials::unplanned_image(root, planned, source, input_root),
        None => texture_uses(&gltf.document, source, input_root)?
            .unusable
            .into_iter()
            .next(),
    };
    unplanned.map_or(Ok(()), Err)
}

/// Everything [`import_gltf`] does once the buffers are in memory.
fn build_scene(
    gltf: &::gltf::Gltf,
    buffers: &Buffers,
    repairs: &repair::Repairs,
    source_ref: &str,
    options: &ImportOptions,
) -> Result<Scene, GltfError> {
    let root = gltf.document.as_json();
    let mut warnings = extensions::warnings(&root.extensions_used);
    warnings.extend(repairs.warnings());
    let strengths = materials::emissive_strengths(root, &mut warnings);
    let materials = materials::source_materials(root, source_ref, &strengths, &mut warnings);
    let uv_transforms = uv_transform::material_transforms(root, &mut warnings);
    let reader = accessor::AccessorReader::new(root, buffers);
    let gpu_instances = instancing::instance_transforms(root, &reader)?;
    let walked = walk::walk(root, options.merge, &gpu_instances)?;
    warnings.extend(walked.warnings);
    let read = geometry::read_instances(root, &reader, &walked.instances, &mut warnings)?;
    let mut primitives = read.primitives;
    uv_transform::bake(&mut primitives, &uv_transforms);
    if primitives.is_empty() {
        return Err(GltfError::at(walked.location, read.skipped.no_triangles()));
    }
    warnings.extend(read.skipped.warning());
    let skinned = primitives.iter().any(|p| p.skin.is_some());
    let (skeleton, animations) = if skinned {
        let skeleton = skin::skeleton(root, &reader)?;
        let joints = &skeleton.joint_of_node;
        let clips = animation::clips(root, &reader, joints, repairs, &mut warnings)?;
        (skeleton.joints, clips)
    } else {
        if !root.animations.is_empty() {
            warnings.push("animations are ignored: the scene has no skinned mesh".to_owned());
        }
        (Vec::new(), Vec::new())
    };
    Ok(Scene {
        primitives,
        materials,
        skeleton,
        animations,
        warnings: deduplicated(warnings),
    })
}

/// `warnings` without repeats, first occurrence kept.
fn deduplicated(warnings: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    warnings
        .into_iter()
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Runs `work`, turning a panic inside the `gltf` crate (which the checks
/// before every crate call should prevent) into an error at `location`.
fn guarded<T>(location: &str, work: impl FnOnce() -> Result<T, GltfError>) -> Result<T, GltfError> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(GltfError::at(
                location,
                format!("the glTF library failed on this malformed file ({message})"),
            ))
        }
    }
}

#[cfg(test)]
mod guard_tests {
    use super::*;

    #[test]
    fn panics_become_errors_at_the_given_location() {
        let err = guarded::<()>("meshes[0]", || panic!("index out of bounds")).unwrap_err();
        assert_eq!(err.location, "meshes[0]");
        assert!(err.what.contains("index out of bounds"), "{err}");
    }

    #[test]
    fn errors_display_location_what_and_file() {
        let err = GltfError::at("buffers[0].uri", "cannot read: gone").in_file("models/a.bin");
        assert_eq!(
            err.to_string(),
            "buffers[0].uri: cannot read: gone (in models/a.bin)"
        );
        assert_eq!(
            GltfError::at("", "truncated GLB").to_string(),
            "truncated GLB"
        );
    }
}
