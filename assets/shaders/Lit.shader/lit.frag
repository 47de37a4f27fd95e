#version 450
#include "common.glsl"

layout(set = 0, binding = 1) uniform texture2D baseColor;
layout(set = 0, binding = 2) uniform sampler baseSampler;

layout(location = 0) in vec3 vNormal;
layout(location = 1) in vec2 vUv;

layout(location = 0) out vec4 outColor;

void main() {
    vec3 albedo = texture(sampler2D(baseColor, baseSampler), vUv).rgb;
    float light = lambert(normalize(vNormal), normalize(-camera.lightDirection.xyz));
    outColor = vec4(albedo * light, 1.0);
}
