//! The scene walk: which meshes are emitted, in which order, under which
//! transform, and whether they are skinned.
//!
//! Nodes are visited depth-first, children in order, from the scene's roots:
//! the default scene, else `scenes[0]`, else every node that is nobody's
//! child. A file without nodes emits each mesh once, untransformed.
//!
//! A scene may have no nodes at all (an extra, empty scene beside a full
//! one). When the scene chosen above is empty, the first scene that has
//! nodes is walked instead, else every node that is nobody's child, with a
//! warning: a file that holds meshes is not built into an empty `.hmesh`.

use std::collections::{BTreeMap, HashMap};

use ::gltf::json;

use super::GltfError;
use super::instancing::NAME;
use super::transform::Mat4;

/// One emission of a mesh.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Instance {
    /// `meshes[mesh]`.
    pub mesh: usize,
    /// The node it comes from, when it is baked (named in labels).
    pub node: Option<usize>,
    /// The world transform to bake, when merging a static node.
    pub world: Option<Mat4>,
    /// Whether it is bound to `skins[0]`.
    pub skinned: bool,
}

/// The result of walking the scene.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Walk {
    /// The emissions, in output order.
    pub instances: Vec<Instance>,
    /// The scene walked (`scenes[1]`), or empty when there is none.
    pub location: String,
    /// Things skipped on the way.
    pub warnings: Vec<String>,
}

/// A node met during the walk.
struct Visit {
    node: usize,
    world: Mat4,
}

/// Walks the scene of `root`. With `merge`, every static mesh node is one
/// instance carrying its world matrix (one per GPU instance for the nodes in
/// `gpu_instances`, which holds each instance's local transform); otherwise
/// each mesh is one untransformed instance, in order of first appearance.
/// Skinned meshes are always emitted once, untransformed.
pub(super) fn walk(
    root: &json::Root,
    merge: bool,
    gpu_instances: &BTreeMap<usize, Vec<Mat4>>,
) -> Result<Walk, GltfError> {
    let (location, roots, note) = scene_roots(root);
    let mut walker = Walker {
        root,
        merge,
        gpu_instances,
        instances: Vec::new(),
        emitted: HashMap::new(),
        warnings: note.into_iter().collect(),
    };
    if root.nodes.is_empty() {
        for mesh in 0..root.meshes.len() {
            walker.emit_unbaked(mesh, false);
        }
    } else {
        walker.visit_all(&roots)?;
    }
    Ok(Walk {
        instances: walker.instances,
        location,
        warnings: walker.warnings,
    })
}

/// The scene to walk (its JSON path), its root nodes, and a warning when
/// the chosen scene is empty and another one (or every root node) is walked
/// instead.
fn scene_roots(root: &json::Root) -> (String, Vec<usize>, Option<String>) {
    let chosen = root.scene.map(|s| s.value()).or(if root.scenes.is_empty() {
        None
    } else {
        Some(0)
    });
    let Some((s, scene)) = chosen.and_then(|s| root.scenes.get(s).map(|scene| (s, scene))) else {
        return (String::new(), parentless_nodes(root), None);
    };
    if !scene.nodes.is_empty() || root.nodes.is_empty() {
        return (format!("scenes[{s}]"), node_list(scene), None);
    }
    let which = if root.scene.is_some() {
        "the default scene"
    } else {
        "the first scene"
    };
    let full = root
        .scenes
        .iter()
        .enumerate()
        .find(|(_, other)| !other.nodes.is_empty());
    match full {
        Some((other, scene)) => (
            format!("scenes[{other}]"),
            node_list(scene),
            Some(format!(
                "scenes[{s}] ({which}) has no nodes; scenes[{other}] is built instead"
            )),
        ),
        None => (
            String::new(),
            parentless_nodes(root),
            Some(format!(
                "scenes[{s}] ({which}) has no nodes, nor has any other scene; every root node is built instead"
            )),
        ),
    }
}

/// The root nodes of `scene`.
fn node_list(scene: &json::Scene) -> Vec<usize> {
    scene.nodes.iter().map(|n| n.value()).collect()
}

/// Every node no other node lists as a child, in index order.
fn parentless_nodes(root: &json::Root) -> Vec<usize> {
    let mut is_child = vec![false; root.nodes.len()];
    for node in &root.nodes {
        for child in node.children.iter().flatten() {
            if let Some(flag) = is_child.get_mut(child.value()) {
                *flag = true;
            }
        }
    }
    is_child
        .iter()
        .enumerate()
        .filter(|(_, child)| !**child)
        .map(|(n, _)| n)
        .collect()
}

/// The walk's state.
struct Walker<'a> {
    root: &'a json::Root,
    merge: bool,
    gpu_instances: &'a BTreeMap<usize, Vec<Mat4>>,
    instances: Vec<Instance>,
    /// For each mesh emitted unbaked, its position in `instances`.
    emitted: HashMap<usize, usize>,
    warnings: Vec<String>,
}

impl Walker<'_> {
    /// Visits the trees under `roots`, depth-first, each node at most once.
    fn visit_all(&mut self, roots: &[usize]) -> Result<(), GltfError> {
        let mut visited = vec![false; self.root.nodes.len()];
        let mut stack: Vec<Visit> = roots
            .iter()
            .rev()
            .map(|&node| Visit {
                node,
                world: Mat4::IDENTITY,
            })
            .collect();
        while let Some(Visit {
            node,
            world: parent,
        }) = stack.pop()
        {
            let Some(json_node) = self.root.nodes.get(node) else {
                return Err(GltfError::at("", format!("nodes[{node}] does not exist")));
            };
            let seen = visited.get_mut(node).map(|v| std::mem::replace(v, true));
            if seen != Some(false) {
                self.warnings.push(format!(
                    "nodes[{node}] is reached more than once (glTF nodes must form trees); later visits are ignored"
                ));
                continue;
            }
            let world = parent.mul(&Mat4::of_node(json_node));
            if !world.is_finite() {
                return Err(GltfError::at(
                    format!("nodes[{node}]"),
                    "the node's transform is not finite",
                ));
            }
            if let Some(mesh) = json_node.mesh {
                self.emit_node(node, json_node, mesh.value(), world);
            }
            for child in json_node.children.iter().flatten().rev() {
                stack.push(Visit {
                    node: child.value(),
                    world,
                });
            }
        }
        Ok(())
    }

    /// Emits the mesh of `nodes[node]`.
    fn emit_node(&mut self, node: usize, json_node: &json::scene::Node, mesh: usize, world: Mat4) {
        let skin = json_node.skin.map(|s| s.value());
        let skinned = match skin {
            Some(0) => true,
            Some(other) => {
                self.warnings.push(format!(
                    "nodes[{node}] uses skins[{other}], but only skins[0] is exported; its mesh is treated as static"
                ));
                false
            }
            None => false,
        };
        let gpu_instances = self.gpu_instances.get(&node);
        if skinned || !self.merge {
            if let Some(locals) = gpu_instances {
                self.warnings.push(format!(
                    "nodes[{node}]: its {} GPU instances ({NAME}) are only expanded when merging; the mesh is emitted once",
                    locals.len()
                ));
            }
            self.emit_unbaked(mesh, skinned);
            return;
        }
        match gpu_instances {
            Some(locals) => {
                for local in locals {
                    self.emit_baked(node, mesh, world.mul(local));
                }
            }
            None => self.emit_baked(node, mesh, world),
        }
    }

    /// Emits `meshes[mesh]` of `nodes[node]` baked with `world`, unless the
    /// transform is singular.
    fn emit_baked(&mut self, node: usize, mesh: usize, world: Mat4) {
        if world.determinant() == 0.0 {
            self.warnings.push(format!(
                "nodes[{node}] has a zero scale (its world transform is singular); its mesh is skipped"
            ));
            return;
        }
        self.instances.push(Instance {
            mesh,
            node: Some(node),
            world: Some(world),
            skinned: false,
        });
    }

    /// Emits `meshes[mesh]` untransformed, once: a later skinned use makes
    /// the earlier emission skinned.
    fn emit_unbaked(&mut self, mesh: usize, skinned: bool) {
        if let Some(&at) = self.emitted.get(&mesh) {
            if let Some(instance) = self.instances.get_mut(at) {
                instance.skinned |= skinned;
            }
            return;
        }
        self.emitted.insert(mesh, self.instances.len());
        self.instances.push(Instance {
            mesh,
            node: None,
            world: None,
            skinned,
        });
    }
}
