//! Joint influences in their `SKIN` form: weights summing to 1, joints checked
//! against the skeleton.

use super::BuildError;
use crate::encode::mesh::scene::{Primitive, SkinInfluence};
use crate::format::hmesh::GpuSkinVertex;

/// The bind of a vertex with no weight: all of it on joint 0.
pub(super) const RIGID_BIND: GpuSkinVertex = GpuSkinVertex {
    joints: [0; 4],
    weights: [1.0, 0.0, 0.0, 0.0],
};

/// One `SKIN` entry per vertex of the primitive.
///
/// A primitive without skin data, and a vertex whose weights sum to 0, bind
/// rigidly to joint 0. Influences with weight 0 get joint 0 whatever the
/// source says, so they never point outside the skeleton and equal vertices
/// compare equal.
pub(super) fn skin_vertices(
    primitive: &Primitive,
    joint_count: usize,
) -> Result<Vec<GpuSkinVertex>, BuildError> {
    let Some(influences) = &primitive.skin else {
        return Ok(vec![RIGID_BIND; primitive.positions.len()]);
    };
    influences
        .iter()
        .enumerate()
        .map(|(vertex, influence)| normalize_influence(primitive, vertex, influence, joint_count))
        .collect()
}

/// Scales one vertex's weights to sum 1 and checks its joints.
fn normalize_influence(
    primitive: &Primitive,
    vertex: usize,
    influence: &SkinInfluence,
    joint_count: usize,
) -> Result<GpuSkinVertex, BuildError> {
    for weight in influence.weights {
        if !weight.is_finite() {
            return Err(BuildError::NonFinite {
                label: primitive.label.clone(),
                attribute: "joint weight",
                vertex,
                value: format!("{:?}", influence.weights),
            });
        }
        if weight < 0.0 {
            return Err(BuildError::NegativeWeight {
                label: primitive.label.clone(),
                vertex,
                weight,
            });
        }
    }
    // Summed in f64: four large finite weights cannot overflow it.
    let sum: f64 = influence.weights.iter().copied().map(f64::from).sum();
    if sum <= 0.0 {
        return Ok(RIGID_BIND);
    }
    let mut bound = GpuSkinVertex::default();
    let slots = bound.joints.iter_mut().zip(bound.weights.iter_mut());
    for ((joint_out, weight_out), (&joint, &weight)) in
        slots.zip(influence.joints.iter().zip(influence.weights.iter()))
    {
        if weight == 0.0 {
            continue;
        }
        if usize::from(joint) >= joint_count {
            return Err(BuildError::JointOutOfRange {
                label: primitive.label.clone(),
                vertex,
                joint,
                weight,
                joint_count,
            });
        }
        *joint_out = joint;
        *weight_out = (f64::from(weight) / sum) as f32;
    }
    Ok(bound)
}
