//! Animations: one [`AnimClip`] per glTF animation, keeping the channels
//! that move joints of `skins[0]`.
//!
//! Morph-weight channels and channels on nodes that are not joints are
//! skipped (one warning per kind per animation). `CUBICSPLINE` samplers keep
//! the value of each (in-tangent, value, out-tangent) triple and become
//! `LINEAR`, with a warning. Rotations are renormalised. Key times must be
//! finite and never decrease. A clip left without channels is dropped.

use std::collections::HashMap;

use ::gltf::json::{
    self,
    accessor::Type,
    animation::{Interpolation as JsonInterpolation, Property},
    validation::Checked,
};

use super::GltfError;
use super::accessor::{AccessorReader, FloatEncoding};
use super::repair::Repairs;
use super::transform::unit_quaternion;
use crate::format::hanim::{AnimChannel, AnimClip, AnimPath, Interpolation};

/// Why channels of one animation were skipped or changed.
#[derive(Debug, Default)]
struct Skipped {
    morph_weights: usize,
    not_joints: usize,
    cubic: usize,
}

/// The clips of `root` that animate joints (`joint_of_node` maps a node to
/// its joint index). Messages name channels by their index in the file,
/// which `repairs` gives back after node-less channels were removed.
pub(super) fn clips(
    root: &json::Root,
    reader: &AccessorReader<'_>,
    joint_of_node: &HashMap<usize, u32>,
    repairs: &Repairs,
    warnings: &mut Vec<String>,
) -> Result<Vec<AnimClip>, GltfError> {
    let mut clips = Vec::new();
    for (a, animation) in root.animations.iter().enumerate() {
        let name = match animation.name.as_deref() {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => format!("anim_{a}"),
        };
        let mut skipped = Skipped::default();
        let mut channels = Vec::new();
        for (c, channel) in animation.channels.iter().enumerate() {
            let read = ChannelSource {
                reader,
                animation,
                a,
                c: repairs.channel_index(a, c),
            };
            if let Some(channel) = read.channel(channel, joint_of_node, &mut skipped)? {
                channels.push(channel);
            }
        }
        warnings.extend(skip_warnings(a, &skipped));
        if channels.is_empty() {
            warnings.push(format!(
                "animations[{a}] (\"{name}\") animates no joint of skins[0]; dropped"
            ));
            continue;
        }
        let duration = channels
            .iter()
            .flat_map(|ch: &AnimChannel| ch.times.last().copied())
            .fold(0.0f32, f32::max);
        clips.push(AnimClip {
            name,
            duration,
            channels,
        });
    }
    Ok(clips)
}

/// The warnings for what one animation lost.
fn skip_warnings(a: usize, skipped: &Skipped) -> Vec<String> {
    let mut out = Vec::new();
    if skipped.morph_weights > 0 {
        out.push(format!(
            "animations[{a}]: {} morph-target weight channel(s) skipped",
            skipped.morph_weights
        ));
    }
    if skipped.not_joints > 0 {
        out.push(format!(
            "animations[{a}]: {} channel(s) on nodes that are not joints of skins[0] skipped",
            skipped.not_joints
        ));
    }
    if skipped.cubic > 0 {
        out.push(format!(
            "animations[{a}]: {} CUBICSPLINE channel(s) reduced to LINEAR (tangents dropped)",
            skipped.cubic
        ));
    }
    out
}

/// Reads the channels of `animations[a]`.
struct ChannelSource<'a, 'r> {
    reader: &'a AccessorReader<'r>,
    animation: &'a json::Animation,
    a: usize,
    c: usize,
}

impl ChannelSource<'_, '_> {
    /// The channel as an [`AnimChannel`], or `None` when it is skipped.
    fn channel(
        &self,
        channel: &json::animation::Channel,
        joint_of_node: &HashMap<usize, u32>,
        skipped: &mut Skipped,
    ) -> Result<Option<AnimChannel>, GltfError> {
        let target = format!("animations[{}].channels[{}].target", self.a, self.c);
        let path = match channel.target.path {
            Checked::Valid(Property::Translation) => AnimPath::Translation,
            Checked::Valid(Property::Rotation) => AnimPath::Rotation,
            Checked::Valid(Property::Scale) => AnimPath::Scale,
            Checked::Valid(Property::MorphTargetWeights) => {
                skipped.morph_weights += 1;
                return Ok(None);
            }
            Checked::Invalid => {
                return Err(GltfError::at(format!("{target}.path"), "is not valid"));
            }
        };
        let Some(&joint) = joint_of_node.get(&channel.target.node.value()) else {
            skipped.not_joints += 1;
            return Ok(None);
        };
        let s = channel.sampler.value();
        let sampler = self.animation.samplers.get(s).ok_or_else(|| {
            GltfError::at(
                format!("animations[{}].channels[{}].sampler", self.a, self.c),
                format!("samplers[{s}] does not exist"),
            )
        })?;
        let sampler_path = format!("animations[{}].samplers[{s}]", self.a);
        let (interpolation, cubic) = match sampler.interpolation {
            Checked::Valid(JsonInterpolation::Step) => (Interpolation::Step, false),
            Checked::Valid(JsonInterpolation::Linear) => (Interpolation::Linear, false),
            Checked::Valid(JsonInterpolation::CubicSpline) => (Interpolation::Linear, true),
            Checked::Invalid => {
                return Err(GltfError::at(
                    format!("{sampler_path}.interpolation"),
                    "is not valid",
                ));
            }
        };
        let times = self.times(sampler.input.value(), &format!("{sampler_path}.input"))?;
        if times.is_empty() {
            return Ok(None);
        }
        let output = format!("{sampler_path}.output");
        let values = self.values(sampler.output.value(), &output, path, times.len(), cubic)?;
        skipped.cubic += usize::from(cubic);
        Ok(Some(AnimChannel {
            joint,
            path,
            interpolation,
            times,
            values,
        }))
    }

    /// Key times: finite and never decreasing.
    fn times(&self, accessor: usize, path: &str) -> Result<Vec<f32>, GltfError> {
        let times = self
            .reader
            .floats(accessor, path, Type::Scalar, FloatEncoding::Float)?;
        if let Some((k, t)) = times.iter().enumerate().find(|(_, t)| !t.is_finite()) {
            return Err(GltfError::at(path, format!("key {k} has time {t}")));
        }
        let decrease = times
            .windows(2)
            .enumerate()
            .find_map(|(k, pair)| match *pair {
                [earlier, later] if later < earlier => Some((k, earlier, later)),
                _ => None,
            });
        if let Some((k, earlier, later)) = decrease {
            return Err(GltfError::at(
                path,
                format!(
                    "key {} at {later}s comes before key {k} at {earlier}s; times must not decrease",
                    k + 1
                ),
            ));
        }
        Ok(times)
    }

    /// Key values, one per key (the middle of each cubic triple), rotations
    /// renormalised, all finite.
    fn values(
        &self,
        accessor: usize,
        path: &str,
        property: AnimPath,
        keys: usize,
        cubic: bool,
    ) -> Result<Vec<f32>, GltfError> {
        let n = property.components();
        let (ty, encoding) = match property {
            AnimPath::Rotation => (Type::Vec4, FloatEncoding::FloatOrNormalized),
            AnimPath::Translation | AnimPath::Scale => (Type::Vec3, FloatEncoding::Float),
        };
        let raw = self.reader.floats(accessor, path, ty, encoding)?;
        let per_key = if cubic { 3 } else { 1 };
        let expected = keys * per_key;
        if raw.len() != expected * n {
            return Err(GltfError::at(
                path,
                format!(
                    "has {} values for {keys} keys; expected {expected}",
                    raw.len() / n
                ),
            ));
        }
        let mut values: Vec<f32> = raw
            .chunks_exact(n * per_key)
            .flat_map(|key| key.iter().skip(if cubic { n } else { 0 }).take(n).copied())
            .collect();
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(GltfError::at(path, format!("key {} is not finite", i / n)));
        }
        if property == AnimPath::Rotation {
            for q in values.chunks_exact_mut(4) {
                let mut quaternion = [0.0f64; 4];
                for (dst, src) in quaternion.iter_mut().zip(q.iter()) {
                    *dst = f64::from(*src);
                }
                for (dst, src) in q.iter_mut().zip(unit_quaternion(quaternion)) {
                    *dst = src as f32;
                }
            }
        }
        Ok(values)
    }
}
