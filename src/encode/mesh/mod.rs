//! Meshes: glTF, GLB and OBJ sources to `.hmesh`, `.hmat` and `.hanim`.
//!
//! The importers ([`gltf`], [`obj`]) read a source into the importer-neutral
//! [`scene::Scene`]; [`build`] turns a scene into `.hmesh` data and `.hmat`
//! rows; [`compile`] is the mesh edge that runs them and writes the files,
//! taking the flags of [`args`].
//! Configure also uses the importers' cheap material readers to plan one
//! texture edge per image a source's materials use.

pub mod args;
pub mod build;
pub mod compile;
pub mod gltf;
pub mod obj;
pub mod scene;

#[cfg(test)]
pub mod fixtures;
