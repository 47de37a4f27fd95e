//! The skeleton of `skins[0]`: joints in skin order with inverse bind
//! matrices, local bind poses and parents.

use std::collections::HashMap;

use ::gltf::json::{self, accessor::Type};
use ::gltf::scene::Transform;

use super::GltfError;
use super::accessor::{AccessorReader, FloatEncoding, grouped};
use super::transform::unit_quaternion;
use crate::format::hmesh::GpuJoint;

/// A local transform as translation, unit quaternion `x, y, z, w` and scale.
type BindPose = ([f32; 3], [f32; 4], [f32; 3]);

/// The identity matrix, for joints without an inverse bind matrix.
const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// The most joints `SkinInfluence::joints` (`u16`) can address.
const MAX_JOINTS: usize = u16::MAX as usize + 1;

/// The skeleton of `skins[0]` and which node each joint is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Skeleton {
    /// The joints, in `skins[0].joints` order.
    pub joints: Vec<GpuJoint>,
    /// Joint index of each joint node (the first, if a node is listed twice).
    pub joint_of_node: HashMap<usize, u32>,
}

/// Reads `skins[0]`: inverse bind matrices (identity when absent), each
/// joint node's local transform as translation, unit rotation and scale,
/// and the parent as the joint index of the nearest ancestor that is a
/// joint (-1 when none is).
pub(super) fn skeleton(
    root: &json::Root,
    reader: &AccessorReader<'_>,
) -> Result<Skeleton, GltfError> {
    let skin = root
        .skins
        .first()
        .ok_or_else(|| GltfError::at("skins", "a skinned mesh needs skins[0]"))?;
    let nodes: Vec<usize> = skin.joints.iter().map(|j| j.value()).collect();
    if nodes.is_empty() {
        return Err(GltfError::at("skins[0].joints", "the skin has no joints"));
    }
    if nodes.len() > MAX_JOINTS {
        return Err(GltfError::at(
            "skins[0].joints",
            format!("{} joints; at most {MAX_JOINTS} are supported", nodes.len()),
        ));
    }
    let mut joint_of_node = HashMap::new();
    for (joint, &node) in nodes.iter().enumerate() {
        joint_of_node.entry(node).or_insert(joint as u32);
    }
    let inverse_binds = inverse_bind_matrices(skin, reader, nodes.len())?;
    let mut parents = ParentJoints::new(root, &joint_of_node);
    let mut joints = Vec::with_capacity(nodes.len());
    for (joint, (&node, inverse_bind)) in nodes.iter().zip(inverse_binds).enumerate() {
        let json_node = root.nodes.get(node).ok_or_else(|| {
            GltfError::at(
                format!("skins[0].joints[{joint}]"),
                format!("nodes[{node}] does not exist"),
            )
        })?;
        let (bind_translation, bind_rotation, bind_scale) = bind_pose(json_node, node)?;
        joints.push(GpuJoint {
            inverse_bind,
            bind_translation,
            bind_rotation,
            bind_scale,
            parent: parents.of(node),
            pad: 0,
        });
    }
    check_acyclic(&joints, &nodes)?;
    Ok(Skeleton {
        joints,
        joint_of_node,
    })
}

/// Refuses a joint hierarchy where following parents never reaches a root
/// (node hierarchies with cycles are invalid glTF, and would hang engines).
/// Each joint is walked once: a walk stops at a root or at a joint already
/// known to reach one, and meeting its own path again is a cycle.
fn check_acyclic(joints: &[GpuJoint], nodes: &[usize]) -> Result<(), GltfError> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unseen,
        OnPath,
        ReachesRoot,
    }
    let mut state = vec![State::Unseen; joints.len()];
    for start in 0..joints.len() {
        let mut path = Vec::new();
        let mut current = Some(start);
        while let Some(joint) = current {
            match state.get(joint).copied() {
                Some(State::Unseen) => {
                    if let Some(s) = state.get_mut(joint) {
                        *s = State::OnPath;
                    }
                    path.push(joint);
                    current = joints
                        .get(joint)
                        .and_then(|j| usize::try_from(j.parent).ok());
                }
                Some(State::OnPath) => {
                    let node = nodes.get(joint).copied().unwrap_or(joint);
                    return Err(GltfError::at(
                        format!("nodes[{node}]"),
                        "the joint hierarchy of skins[0] has a cycle",
                    ));
                }
                Some(State::ReachesRoot) | None => current = None,
            }
        }
        for joint in path {
            if let Some(s) = state.get_mut(joint) {
                *s = State::ReachesRoot;
            }
        }
    }
    Ok(())
}

/// One inverse bind matrix per joint: from the accessor (at least one per
/// joint, all finite), or identities.
fn inverse_bind_matrices(
    skin: &json::Skin,
    reader: &AccessorReader<'_>,
    joint_count: usize,
) -> Result<Vec<[f32; 16]>, GltfError> {
    let Some(accessor) = skin.inverse_bind_matrices else {
        return Ok(vec![IDENTITY; joint_count]);
    };
    let path = "skins[0].inverseBindMatrices";
    let matrices =
        grouped::<16>(&reader.floats(accessor.value(), path, Type::Mat4, FloatEncoding::Float)?);
    if matrices.len() < joint_count {
        return Err(GltfError::at(
            path,
            format!("has {} matrices for {joint_count} joints", matrices.len()),
        ));
    }
    if let Some(i) = matrices
        .iter()
        .position(|m| !m.iter().all(|v| v.is_finite()))
    {
        return Err(GltfError::at(path, format!("matrix {i} is not finite")));
    }
    Ok(matrices.into_iter().take(joint_count).collect())
}

/// A joint node's local transform as translation, unit quaternion and scale.
fn bind_pose(node: &json::scene::Node, index: usize) -> Result<BindPose, GltfError> {
    let transform = match node.matrix {
        Some(m) => Transform::Matrix {
            matrix: [
                [m[0], m[1], m[2], m[3]],
                [m[4], m[5], m[6], m[7]],
                [m[8], m[9], m[10], m[11]],
                [m[12], m[13], m[14], m[15]],
            ],
        },
        None => Transform::Decomposed {
            translation: node.translation.unwrap_or([0.0; 3]),
            rotation: node.rotation.as_ref().map_or([0.0, 0.0, 0.0, 1.0], |q| q.0),
            scale: node.scale.unwrap_or([1.0; 3]),
        },
    };
    let (t, r, s) = transform.decomposed();
    let r = unit_quaternion(r.map(f64::from)).map(|v| v as f32);
    let finite = t.iter().chain(&r).chain(&s).all(|v| v.is_finite());
    if !finite {
        return Err(GltfError::at(
            format!("nodes[{index}]"),
            "the joint's transform cannot be split into translation, rotation and scale",
        ));
    }
    Ok((t, r, s))
}

/// The parent of every node (the first, if a node is listed twice).
fn parent_of_each_node(root: &json::Root) -> Vec<Option<usize>> {
    let mut parents = vec![None; root.nodes.len()];
    for (parent, node) in root.nodes.iter().enumerate() {
        for child in node.children.iter().flatten() {
            if let Some(slot) = parents.get_mut(child.value()) {
                slot.get_or_insert(parent);
            }
        }
    }
    parents
}

/// Finds, for a node, the joint index of its nearest ancestor that is a
/// joint (-1 when none is), remembering answers so every node is walked
/// at most once overall.
struct ParentJoints<'a> {
    parents: Vec<Option<usize>>,
    joint_of_node: &'a HashMap<usize, u32>,
    known: Vec<Option<i32>>,
}

impl<'a> ParentJoints<'a> {
    /// Prepares the search over `root`'s hierarchy.
    fn new(root: &json::Root, joint_of_node: &'a HashMap<usize, u32>) -> Self {
        let parents = parent_of_each_node(root);
        let known = vec![None; parents.len()];
        Self {
            parents,
            joint_of_node,
            known,
        }
    }

    /// The parent joint of `node`. A cycle among non-joint ancestors ends
    /// the search with -1.
    fn of(&mut self, node: usize) -> i32 {
        let mut path = vec![node];
        let mut current = node;
        let answer = loop {
            let Some(parent) = self.parents.get(current).copied().flatten() else {
                break -1;
            };
            if let Some(&joint) = self.joint_of_node.get(&parent) {
                break joint as i32;
            }
            if let Some(known) = self.known.get(parent).copied().flatten() {
                break known;
            }
            if path.len() > self.parents.len() {
                break -1;
            }
            path.push(parent);
            current = parent;
        };
        for n in path {
            if let Some(slot) = self.known.get_mut(n) {
                *slot = Some(answer);
            }
        }
        answer
    }
}
