// WebGL2 plumbing of the mesh renderer: shaders, programs, textures, buffers,
// and line lists.

const SURFACE_VS = `#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec4 a_colour;
uniform mat4 u_viewProj;
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_colour;
void main() {
  v_normal = a_normal;
  v_uv = a_uv;
  v_colour = a_colour;
  gl_Position = u_viewProj * vec4(a_position, 1.0);
}`;

const SURFACE_FS = `#version 300 es
precision highp float;
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
out vec4 o_colour;
void main() {
  vec4 base = u_factor * v_colour;
  if (u_useTexture) base *= texture(u_texture, v_uv);   // sRGB texture: sampled as linear
  if (u_alphaMode == 1 && base.a < u_cutoff) discard;
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  float diffuse = max(dot(n, u_light), 0.0);
  vec3 lit = base.rgb * (0.2 + 0.75 * diffuse) * u_dim;
  o_colour = vec4(pow(lit, vec3(1.0 / 2.2)), u_alphaMode == 2 ? base.a : 1.0);
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

/** The lit, optionally textured surface program (meshlets too, in vertex colours). */
export function surfaceProgram(gl) {
  return makeProgram(gl, SURFACE_VS, SURFACE_FS,
    ['u_viewProj', 'u_factor', 'u_texture', 'u_useTexture', 'u_alphaMode', 'u_cutoff', 'u_dim', 'u_light']);
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
