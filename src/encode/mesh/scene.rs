//! The importer-neutral model every mesh source is read into.
//!
//! PINNED TYPES (issue 4): the glTF and OBJ importers produce a [`Scene`];
//! the geometry builder turns it into [`MeshData`](crate::format::hmesh::MeshData).
//! Importers have already applied node transforms (when merging), flipped the
//! winding of mirrored instances, converted strips and fans to lists, and
//! checked every index against the vertex count.

use std::path::PathBuf;

use crate::encode::texture::TextureMode;
use crate::format::hanim::AnimClip;
use crate::format::hmat::GpuMaterial;
use crate::format::hmesh::GpuJoint;

/// One triangle list that becomes one submesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitive {
    /// Where it came from, for messages: `meshes[2].primitives[0]`, or for
    /// OBJ `object "chair", material "Wood"`.
    pub label: String,
    /// Positions; all finite.
    pub positions: Vec<[f32; 3]>,
    /// Normals, when the source has them (the builder makes flat ones otherwise).
    pub normals: Option<Vec<[f32; 3]>>,
    /// Tangents with handedness in `w`, when the source has them (the builder
    /// runs MikkTSpace otherwise, if there are UVs).
    pub tangents: Option<Vec<[f32; 4]>>,
    /// First UV set, top-left origin.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Joints (into [`Scene::skeleton`]) and raw weights, when skinned.
    pub skin: Option<Vec<SkinInfluence>>,
    /// Triangle list; every index is below `positions.len()`.
    pub indices: Vec<u32>,
    /// Index into [`Scene::materials`], or `None`.
    pub material: Option<usize>,
}

/// Up to four joint influences of one vertex, as the source stores them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkinInfluence {
    /// Joint indices into [`Scene::skeleton`].
    pub joints: [u16; 4],
    /// Weights, not yet normalised.
    pub weights: [f32; 4],
}

/// A source material, in source order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceMaterial {
    /// The source's name for it, possibly empty.
    pub name: String,
    /// The `.hmat` row, texture refs already hashed.
    pub row: GpuMaterial,
}

/// Everything read from one mesh source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    /// The submeshes to be, in output order.
    pub primitives: Vec<Primitive>,
    /// Every source material, in source order (slots are assigned later, by
    /// first use).
    pub materials: Vec<SourceMaterial>,
    /// The first skin's joints, in skin order; empty for static sources.
    pub skeleton: Vec<GpuJoint>,
    /// Clips whose channels target skeleton joints.
    pub animations: Vec<AnimClip>,
    /// Things skipped or changed, for the user (one line each, no file name).
    pub warnings: Vec<String>,
}

/// One image a mesh source's materials use. Configure gives each its own
/// texture edge, writing `<source stem>/tex_<index>.ktx2`; the `.hmat` rows
/// refer to it by the hash of `<source ref>/tex_<index>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureUse {
    /// The glTF image index, or the OBJ texture's position in first-use order.
    pub index: usize,
    /// The mode of the material slot that uses it first.
    pub mode: TextureMode,
    /// Where the encoded bytes are.
    pub source: ImageSource,
}

/// The ref of a mesh source's image `index`, `<source_ref>/tex_<index>`:
/// its texture's manifest path without the extension, whose hash the
/// `.hmat` rows hold.
pub fn texture_ref(source_ref: &str, index: usize) -> String {
    format!("{source_ref}/tex_{index}")
}

/// Where an image's bytes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSource {
    /// A file of its own, already resolved against the source's folder and
    /// checked to lie inside the input folder.
    File(PathBuf),
    /// Inside the mesh source or its buffers (a glTF buffer view or data URI).
    Embedded,
}
