// A full-screen tone-mapping pass and the compute pass that measures the
// scene's average luminance for it. Entry points: vsMain -> vs.spv,
// fsMain -> fs.spv, exposure -> exposure.spv.
#include "tonemap.wgsl"

struct Exposure {
    scale: f32,
    average: f32,
}

@group(0) @binding(0) var scene: texture_2d<f32>;
@group(0) @binding(1) var scene_sampler: sampler;
@group(0) @binding(2) var<storage, read_write> exposure_state: Exposure;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vsMain(@builtin(vertex_index) index: u32) -> VertexOut {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOut;
    out.position = vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
    out.uv = vec2<f32>(uv.x, 1.0 - uv.y);
    return out;
}

@fragment
fn fsMain(in: VertexOut) -> @location(0) vec4<f32> {
    let hdr = textureSample(scene, scene_sampler, in.uv).rgb;
    return vec4<f32>(aces(hdr * exposure_state.scale), 1.0);
}

@compute @workgroup_size(1)
fn exposure() {
    let size = textureDimensions(scene);
    var total = 0.0;
    for (var y = 0u; y < size.y; y += 16u) {
        for (var x = 0u; x < size.x; x += 16u) {
            total += luminance(textureLoad(scene, vec2<u32>(x, y), 0).rgb);
        }
    }
    let samples = f32(((size.x + 15u) / 16u) * ((size.y + 15u) / 16u));
    exposure_state.average = total / max(samples, 1.0);
    exposure_state.scale = 0.18 / max(exposure_state.average, 0.0001);
}
