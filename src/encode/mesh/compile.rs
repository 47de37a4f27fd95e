//! The mesh edge: import a source, build its geometry, write its files.
//!
//! `assetc-encode mesh` writes, in the order configure lists them, the
//! `.hmesh`, the `.hmat` (one row per material slot of the mesh) and, for a
//! skinned and animated glTF, the `.hanim`. The images the materials use are
//! not touched here: each has its own texture edge, and the `.hmat` rows only
//! hold their ids.
//!
//! Configure tells the edge which images got a texture edge
//! (`--textures 0,2`, or `none`); a material row naming any other texture is
//! refused, so a green build never ships a `.hmat` pointing at a texture no
//! edge built. The list is on the command line, so an image appearing or
//! disappearing (which re-runs configure) re-runs the mesh edge too.

use std::collections::HashSet;
use std::path::Path;

use super::args::{MeshArgs, TextureList};
use super::build::{BuildOptions, build_mesh};
use super::scene::{Scene, texture_ref};
use super::{gltf as gltf_source, obj as obj_source};
use crate::encode::job::{self, EncodeError, Encoded, JobArgs, OutputFile};
use crate::format::hash::asset_hash;
use crate::format::kind::{AssetKind, ColorSpace};
use crate::format::{hanim, hmat, hmesh};
use crate::fsutil;

/// Compiles the mesh source of `job`.
pub fn compile_mesh(job: &JobArgs, args: &MeshArgs) -> Result<Encoded, EncodeError> {
    let input_root = job.input_root()?;
    let source_ref = source_ref(&job.source);
    let imported = if obj_source::is_obj(&job.source) {
        import_obj(job, &input_root, &source_ref)?
    } else {
        import_gltf(job, &input_root, &source_ref, args)?
    };
    // Configure decided from the same glTF whether the source is skinned and
    // animated (it is a regeneration input, so the two cannot disagree): the
    // edge lists a `.hanim` exactly when one is due.
    let animated = job
        .outputs
        .iter()
        .any(|o| o.extension().is_some_and(|e| e == "hanim"));
    for warning in &imported.scene.warnings {
        crate::cli::warn(
            "assetc-encode",
            &format!("{}: {warning}", job.input.display()),
        );
    }
    let options = BuildOptions {
        meshlets: args.meshlets,
        meshlet_max_vertices: args.meshlet_vertices.0,
        meshlet_max_triangles: args.meshlet_triangles.0,
        cone_weight: args.cone_weight.0,
        lod_ratios: args.lods.0.clone(),
        lod_error: args.lod_error.0,
    };
    let built = build_mesh(&imported.scene, &source_ref, &options)
        .map_err(|e| invalid(job, "cannot build the mesh", e))?;
    if let Some(planned) = &args.textures {
        check_texture_refs(job, &built.materials, &source_ref, planned)?;
    }
    let mut files = vec![
        output(hmesh::write_hmesh(&built.mesh), AssetKind::Mesh, job)?,
        output(
            Ok(hmat::write_hmat(&built.materials)),
            AssetKind::Material,
            job,
        )?,
    ];
    if animated {
        let bytes = hanim::write_hanim(&imported.scene.animations);
        files.push(output(bytes, AssetKind::Animation, job)?);
    }
    Ok(Encoded {
        files,
        extra_inputs: imported.inputs,
        copies_source: false,
    })
}

/// A source read into a scene, with what else the edge depends on.
struct Imported {
    scene: Scene,
    /// Files read besides the source, for the depfile.
    inputs: Vec<std::path::PathBuf>,
}

fn import_gltf(
    job: &JobArgs,
    input_root: &Path,
    source_ref: &str,
    args: &MeshArgs,
) -> Result<Imported, EncodeError> {
    let bytes = job::read_source(&job.input)?;
    let options = gltf_source::ImportOptions {
        merge: args.merge,
        planned_textures: args.textures.as_ref().map(|list| list.0.clone()),
    };
    let (scene, inputs) =
        gltf_source::import_gltf(&bytes, &job.input, input_root, source_ref, &options)
            .map_err(|e| invalid(job, "cannot read glTF", e))?;
    Ok(Imported { scene, inputs })
}

fn import_obj(job: &JobArgs, input_root: &Path, source_ref: &str) -> Result<Imported, EncodeError> {
    job::refuse_empty(&job.input)?;
    let (scene, inputs) = obj_source::import_obj(&job.input, input_root, source_ref)
        .map_err(|e| invalid(job, "cannot read OBJ", e))?;
    Ok(Imported { scene, inputs })
}

/// One written file, or the format's refusal as an error naming the source.
fn output(
    bytes: Result<Vec<u8>, crate::format::error::FormatError>,
    kind: AssetKind,
    job: &JobArgs,
) -> Result<OutputFile, EncodeError> {
    let bytes = bytes.map_err(|e| invalid(job, "cannot write the mesh files", e))?;
    Ok(OutputFile {
        bytes,
        kind,
        colorspace: ColorSpace::Linear,
    })
}

fn invalid(
    job: &JobArgs,
    what: &str,
    error: impl std::error::Error + Send + Sync + 'static,
) -> EncodeError {
    EncodeError::Invalid {
        path: job.input.clone(),
        what: what.into(),
        source: Some(Box::new(error)),
    }
}

/// Refuses a material row naming a texture outside `planned`, the images
/// configure gave a texture edge.
fn check_texture_refs(
    job: &JobArgs,
    rows: &[hmat::GpuMaterial],
    source_ref: &str,
    planned: &TextureList,
) -> Result<(), EncodeError> {
    let built: HashSet<u64> = planned
        .0
        .iter()
        .map(|index| asset_hash(&texture_ref(source_ref, *index)))
        .collect();
    let unbuilt = rows
        .iter()
        .enumerate()
        .flat_map(|(slot, row)| row.texture_refs().map(move |id| (slot, id)))
        .find(|(_, id)| *id != 0 && !built.contains(id));
    match unbuilt {
        None => Ok(()),
        Some((slot, id)) => Err(EncodeError::Invalid {
            path: job.input.clone(),
            what: format!(
                "material slot {slot} names texture {id:#018x}, which no texture edge of this source builds (planned: {planned}); run `assetc configure` again"
            ),
            source: None,
        }),
    }
}

/// The reference's canonical source ref: the path below the input folder,
/// extension dropped, lowercased (`Models/Chair.GLB` is `models/chair`).
pub fn source_ref(source: &str) -> String {
    fsutil::without_extension(source).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_refs_drop_the_extension_and_fold_case() {
        assert_eq!(source_ref("Models/Chair.GLB"), "models/chair");
        assert_eq!(source_ref("a.b/c.gltf"), "a.b/c");
        assert_eq!(source_ref("noext"), "noext");
        assert!(obj_source::is_obj("m/Crate.OBJ"));
        assert!(!obj_source::is_obj("m/crate.glb"));
    }
}
