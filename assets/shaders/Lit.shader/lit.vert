#version 450
#include "common.glsl"

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec2 inUv;

layout(location = 0) out vec3 vNormal;
layout(location = 1) out vec2 vUv;

void main() {
    vNormal = mat3(camera.model) * inNormal;
    vUv = inUv;
    gl_Position = camera.viewProjection * camera.model * vec4(inPosition, 1.0);
}
