//! Animation clips (`.hanim`) as the page plays them.

use serde_json::{Value, json};

use crate::format::hanim::{AnimPath, HAnim, Interpolation};

/// Every clip with its channels' keys.
pub fn clips_json(anim: &HAnim<'_>) -> Value {
    let clips = anim.clips().map(|clip| {
        let channels: Vec<Value> = clip
            .channels()
            .map(|channel| {
                let width = channel.components();
                let (times, values): (Vec<f32>, Vec<Vec<f32>>) = channel
                    .keys()
                    .map(|(time, value)| (time, value.iter().take(width).copied().collect()))
                    .unzip();
                json!({
                    "joint": channel.joint,
                    "path": path_name(channel.path),
                    "interpolation": interpolation_name(channel.interpolation),
                    "times": times,
                    "values": values,
                })
            })
            .collect();
        json!({ "name": clip.name, "duration": clip.duration, "channels": channels })
    });
    Value::Array(clips.collect())
}

/// The glTF name of a channel's property.
fn path_name(path: AnimPath) -> &'static str {
    match path {
        AnimPath::Translation => "translation",
        AnimPath::Rotation => "rotation",
        AnimPath::Scale => "scale",
    }
}

/// The glTF name of an interpolation.
fn interpolation_name(interpolation: Interpolation) -> &'static str {
    match interpolation {
        Interpolation::Step => "step",
        Interpolation::Linear => "linear",
    }
}
