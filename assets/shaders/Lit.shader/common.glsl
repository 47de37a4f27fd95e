// Shared by lit.vert and lit.frag: the camera block and the lighting model.
#ifndef LIT_COMMON_GLSL
#define LIT_COMMON_GLSL

layout(set = 0, binding = 0) uniform Camera {
    mat4 viewProjection;
    mat4 model;
    vec4 lightDirection;
} camera;

float lambert(vec3 normal, vec3 toLight) {
    return max(dot(normal, toLight), 0.0) * 0.9 + 0.1;
}

#endif
