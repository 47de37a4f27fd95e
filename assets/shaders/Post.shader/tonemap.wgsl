// Included by post.wgsl: the tone curve, shared by the fragment and compute
// entry points.
#pragma once

fn aces(color: vec3<f32>) -> vec3<f32> {
    let a = color * (2.51 * color + 0.03);
    let b = color * (2.43 * color + 0.59) + 0.14;
    return clamp(a / b, vec3<f32>(0.0), vec3<f32>(1.0));
}

fn luminance(color: vec3<f32>) -> f32 {
    return dot(color, vec3<f32>(0.2126, 0.7152, 0.0722));
}
