// WebGL2 plumbing of the mesh renderer: shaders, programs, textures, buffers,
// and line lists.

const SURFACE_VS = `#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec4 a_colour;
uniform mat4 u_viewProj;
out vec3 v_position;
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_colour;
void main() {
  v_position = a_position;
  v_normal = a_normal;
  v_uv = a_uv;
  v_colour = a_colour;
  gl_Position = u_viewProj * vec4(a_position, 1.0);
}`;

// The lighting of the environments (environment.js): 0 a head light, 1 the
// procedural studio, 2 an IBL set (prefiltered specular cube + irradiance SH).
const ENVIRONMENT_GLSL = `
const float PI = 3.14159265;
uniform int u_envMode;
uniform samplerCube u_specular;
uniform float u_specularLevels;
uniform vec3 u_sh[9];
// The studio: a bright overcast sky, a soft horizon, a darker floor.
vec3 studioRadiance(vec3 d) {
  vec3 sky = mix(vec3(0.62, 0.64, 0.68), vec3(1.0, 0.98, 0.94), smoothstep(0.0, 0.7, d.y));
  vec3 ground = mix(vec3(0.36, 0.35, 0.33), vec3(0.16, 0.15, 0.15), smoothstep(0.0, -0.5, d.y));
  return mix(ground, sky, smoothstep(-0.04, 0.04, d.y));
}
// Cosine-weighted irradiance of that gradient, close enough for a preview.
vec3 studioIrradiance(vec3 n) {
  return PI * mix(vec3(0.24, 0.23, 0.22), vec3(0.86, 0.86, 0.85), 0.5 + 0.5 * n.y);
}
// Irradiance from nine SH coefficients (docs/ibl.md, same order and constants).
vec3 shIrradiance(vec3 n) {
  return max(u_sh[0] * 0.282095
    + u_sh[1] * 0.488603 * n.y + u_sh[2] * 0.488603 * n.z + u_sh[3] * 0.488603 * n.x
    + u_sh[4] * 1.092548 * n.x * n.y + u_sh[5] * 1.092548 * n.y * n.z
    + u_sh[6] * 0.315392 * (3.0 * n.z * n.z - 1.0)
    + u_sh[7] * 1.092548 * n.x * n.z + u_sh[8] * 0.546274 * (n.x * n.x - n.y * n.y), vec3(0.0));
}
vec3 environmentRadiance(vec3 d, float roughness) {
  if (u_envMode == 2) return textureLod(u_specular, d, roughness * (u_specularLevels - 1.0)).rgb;
  return mix(studioRadiance(d), studioIrradiance(d) / PI, roughness);
}
vec3 environmentIrradiance(vec3 n) {
  return u_envMode == 2 ? shIrradiance(n) : studioIrradiance(n);
}
// Karis' analytic fit of the split-sum BRDF table (scale, bias on F0).
vec2 envBrdf(float roughness, float nDotV) {
  vec4 r = roughness * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
  float a004 = min(r.x * r.x, exp2(-9.28 * nDotV)) * r.x + r.y;
  return vec2(-1.04, 1.04) * a004 + r.zw;
}
// Narkowicz's ACES fit: HDR light to display range.
vec3 toneMap(vec3 x) {
  return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}`;

const SURFACE_FS = `#version 300 es
precision highp float;
in vec3 v_position;
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_colour;
uniform vec4 u_factor;
uniform sampler2D u_texture;
uniform bool u_useTexture;
uniform int u_alphaMode;   // 0 opaque, 1 mask, 2 blend
uniform float u_cutoff;
uniform float u_dim;
uniform vec3 u_light;
uniform vec3 u_eye;
uniform float u_metallic;
uniform float u_roughness;
out vec4 o_colour;
${ENVIRONMENT_GLSL}
vec3 environmentLit(vec3 albedo, vec3 n) {
  vec3 v = normalize(u_eye - v_position);
  float nDotV = max(dot(n, v), 1e-4);
  float roughness = clamp(u_roughness, 0.03, 1.0);
  vec3 f0 = mix(vec3(0.04), albedo, u_metallic);
  vec2 ab = envBrdf(roughness, nDotV);
  vec3 diffuse = albedo * (1.0 - u_metallic) * environmentIrradiance(n) / PI;
  vec3 specular = environmentRadiance(reflect(-v, n), roughness) * (f0 * ab.x + ab.y);
  return toneMap(diffuse + specular);
}
void main() {
  vec4 base = u_factor * v_colour;
  if (u_useTexture) base *= texture(u_texture, v_uv);   // sRGB texture: sampled as linear
  if (u_alphaMode == 1 && base.a < u_cutoff) discard;
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  vec3 lit;
  if (u_envMode == 0) {
    float diffuse = max(dot(n, u_light), 0.0);
    lit = base.rgb * (0.2 + 0.75 * diffuse);
  } else {
    lit = environmentLit(base.rgb, n);
  }
  o_colour = vec4(pow(lit * u_dim, vec3(1.0 / 2.2)), u_alphaMode == 2 ? base.a : 1.0);
}`;

// The environment behind the mesh: one triangle over the screen, each pixel
// looking along its view ray.
const BACKGROUND_VS = `#version 300 es
uniform vec3 u_right;
uniform vec3 u_up;
uniform vec3 u_forward;
out vec3 v_direction;
void main() {
  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  v_direction = u_forward + p.x * u_right + p.y * u_up;
  gl_Position = vec4(p, 1.0, 1.0);
}`;

const BACKGROUND_FS = `#version 300 es
precision highp float;
in vec3 v_direction;
out vec4 o_colour;
${ENVIRONMENT_GLSL}
void main() {
  // Slightly blurred and dimmed (the studio more), so the mesh stands out.
  vec3 radiance = environmentRadiance(normalize(v_direction), 0.2) * (u_envMode == 2 ? 0.75 : 0.4);
  o_colour = vec4(pow(toneMap(radiance), vec3(1.0 / 2.2)), 1.0);
}`;

const LINE_VS = `#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 3) in vec4 a_colour;
uniform mat4 u_viewProj;
out vec4 v_colour;
void main() {
  v_colour = a_colour;
  gl_Position = u_viewProj * vec4(a_position, 1.0);
}`;

const LINE_FS = `#version 300 es
precision mediump float;
in vec4 v_colour;
out vec4 o_colour;
void main() { o_colour = v_colour; }`;

const ENVIRONMENT_UNIFORMS = ['u_envMode', 'u_specular', 'u_specularLevels', 'u_sh'];

/** The lit, optionally textured surface program (meshlets too, in vertex colours). */
export function surfaceProgram(gl) {
  return makeProgram(gl, SURFACE_VS, SURFACE_FS,
    ['u_viewProj', 'u_factor', 'u_texture', 'u_useTexture', 'u_alphaMode', 'u_cutoff', 'u_dim', 'u_light',
      'u_eye', 'u_metallic', 'u_roughness', ...ENVIRONMENT_UNIFORMS]);
}

/** The program that draws the environment behind the mesh. */
export function backgroundProgram(gl) {
  return makeProgram(gl, BACKGROUND_VS, BACKGROUND_FS, ['u_right', 'u_up', 'u_forward', ...ENVIRONMENT_UNIFORMS]);
}

/** The program of the overlay lines, coloured per vertex. */
export function lineProgram(gl) {
  return makeProgram(gl, LINE_VS, LINE_FS, ['u_viewProj']);
}

function compileShader(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
    throw new Error(`shader does not compile: ${gl.getShaderInfoLog(shader)}`);
  }
  return shader;
}

function makeProgram(gl, vsSource, fsSource, uniformNames) {
  const program = gl.createProgram();
  gl.attachShader(program, compileShader(gl, gl.VERTEX_SHADER, vsSource));
  gl.attachShader(program, compileShader(gl, gl.FRAGMENT_SHADER, fsSource));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
    throw new Error(`shader program does not link: ${gl.getProgramInfoLog(program)}`);
  }
  const uniforms = {};
  for (const name of uniformNames) uniforms[name] = gl.getUniformLocation(program, name);
  return { program, uniforms };
}

/** Uploads an sRGB image as a mipmapped, repeating texture. */
export function uploadColourTexture(gl, img) {
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false); // uv origin is the top left, as is the image's first row
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
  gl.generateMipmap(gl.TEXTURE_2D);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT);
  return texture;
}

/** A vertex buffer holding `data`. */
export function arrayBuffer(gl, data, usage) {
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, data, usage || gl.STATIC_DRAW);
  return buffer;
}

/** Feeds vertex attribute `location` from a float buffer of `size` components. */
export function bindAttribute(gl, location, buffer, size) {
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, size, gl.FLOAT, false, 0, 0);
}

/** Collects coloured line segments for one gl.LINES draw. */
export class LineList {
  constructor() { this.positions = []; this.colours = []; }
  add(a, b, colour) {
    this.positions.push(a[0], a[1], a[2], b[0], b[1], b[2]);
    this.colours.push(...colour, ...colour);
  }
  box(min, max, colour) {
    const corner = (i) => [i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]];
    for (let i = 0; i < 8; i++) {
      for (const bit of [1, 2, 4]) if (!(i & bit)) this.add(corner(i), corner(i | bit), colour);
    }
  }
  get count() { return this.positions.length / 3; }
}
