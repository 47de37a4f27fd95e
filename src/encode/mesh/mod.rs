//! Meshes: glTF, GLB and OBJ sources to `.hmesh`, `.hmat` and `.hanim`.
//!
//! PINNED (issue 4). Importers ([`gltf`], [`obj`]) read a source into a
//! [`scene::Scene`]; [`build`] turns it into `.hmesh` data.

pub mod build;
pub mod obj;
pub mod gltf;
pub mod scene;

#[cfg(test)]
pub mod fixtures;
