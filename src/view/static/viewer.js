// The WebGL2 mesh viewer: camera, geometry, overlays, draw calls, controls.

import { nextFrame } from './dom.js';
import { clamp, M4, V3 } from './maths.js';
import { distinctColour } from './colour.js';
import { sampleClip } from './anim.js';
import { jointGlobals, skinVertices } from './skin.js';
import { lodIndexList, lodRange, meshletSubmesh } from './mesh-data.js';
import { arrayBuffer, backgroundProgram, bindAttribute, lineProgram, LineList, surfaceProgram, uploadColourTexture } from './gl.js';
import { bindEnvironment, ENV_MODE } from './environment.js';

const FOV = (45 * Math.PI) / 180;

/** The camera that frames the whole mesh: looking at its centre from the front right, a little above. */
function framingCamera(bounds) {
  return { yaw: 0.6, pitch: 0.35, distance: bounds.radius / Math.sin(FOV / 2) * 1.1, target: [...bounds.center] };
}

/** The camera as text (`yaw,pitch,distance,x,y,z`), as the hash and `data-camera` hold it. */
export function cameraText(camera) {
  return [camera.yaw, camera.pitch, camera.distance, ...camera.target].map((v) => Number(v.toFixed(4))).join(',');
}

/** A camera read from cameraText's form, or null when the text is not one. */
export function parseCamera(text) {
  const v = String(text || '').split(',').map(Number);
  if (v.length !== 6 || !v.every(Number.isFinite) || v[2] <= 0) return null;
  return { yaw: v[0], pitch: clamp(v[1], -1.5, 1.5), distance: v[2], target: v.slice(3) };
}

/** Draws a decoded mesh with WebGL2 on a canvas: orbit camera, materials, overlays, CPU skinning. */
export class MeshViewer {
  constructor(canvas, mesh, images) {
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error('WebGL2 is not available in this browser');
    this.gl = gl;
    this.canvas = canvas;
    this.mesh = mesh;
    this.options = { lod: 0, submesh: -1 };
    this.surface = surfaceProgram(gl);
    this.lines = lineProgram(gl);
    this.background = backgroundProgram(gl);
    this.environment = { mode: ENV_MODE.studio, cube: null };
    this.textures = new Map([...images].map(([path, img]) => [path, uploadColourTexture(gl, img)]));
    this.current = { positions: mesh.positions, normals: mesh.normals, tangents: mesh.tangents };
    this.globals = mesh.skeleton.length ? jointGlobals(mesh.skeleton, sampleClip(mesh.skeleton, null, 0)) : [];
    this.camera = framingCamera(mesh.bounds);
    this.onCameraChange = null; // called after every move of the camera
    this.createBuffers();
    this.meshletDirty = true;
    this.linesDirty = true;
    this.attachControls();
  }

  createBuffers() {
    const { gl, mesh } = this;
    this.positionBuffer = arrayBuffer(gl, mesh.positions, gl.DYNAMIC_DRAW);
    this.normalBuffer = arrayBuffer(gl, mesh.normals, gl.DYNAMIC_DRAW);
    const uvBuffer = arrayBuffer(gl, mesh.uvs);
    this.baseVao = gl.createVertexArray();
    gl.bindVertexArray(this.baseVao);
    bindAttribute(gl, 0, this.positionBuffer, 3);
    bindAttribute(gl, 1, this.normalBuffer, 3);
    bindAttribute(gl, 2, uvBuffer, 2);
    // Full indices first, then the LOD indices, in one element buffer.
    const all = new Uint32Array(mesh.indices.length + mesh.lodIndices.length);
    all.set(mesh.indices);
    all.set(mesh.lodIndices, mesh.indices.length);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, all, gl.STATIC_DRAW);
    gl.bindVertexArray(null);

    this.meshletVao = gl.createVertexArray();
    this.meshletBuffers = { position: gl.createBuffer(), normal: gl.createBuffer(), colour: gl.createBuffer() };
    gl.bindVertexArray(this.meshletVao);
    bindAttribute(gl, 0, this.meshletBuffers.position, 3);
    bindAttribute(gl, 1, this.meshletBuffers.normal, 3);
    bindAttribute(gl, 3, this.meshletBuffers.colour, 4);
    gl.bindVertexArray(null);

    this.lineVao = gl.createVertexArray();
    this.lineBuffers = { position: gl.createBuffer(), colour: gl.createBuffer() };
    gl.bindVertexArray(this.lineVao);
    bindAttribute(gl, 0, this.lineBuffers.position, 3);
    bindAttribute(gl, 3, this.lineBuffers.colour, 4);
    gl.bindVertexArray(null);
  }

  setOptions(options) {
    const old = this.options;
    this.options = { ...options };
    if (options.submesh !== old.submesh || options.meshlets !== old.meshlets) this.meshletDirty = true;
    this.linesDirty = true;
    this.requestRender();
  }

  /** Poses the skeleton (null: bind pose) and skins the mesh on the CPU. */
  setPose(locals) {
    const { mesh, gl } = this;
    const skeleton = mesh.skeleton;
    this.globals = jointGlobals(skeleton, locals || sampleClip(skeleton, null, 0));
    if (mesh.skin && locals) {
      const skinMatrices = new Float32Array(skeleton.length * 16);
      skeleton.forEach((joint, j) => {
        const inverseBind = joint.inverse_bind && joint.inverse_bind.length === 16 ? joint.inverse_bind : M4.identity();
        skinMatrices.set(M4.multiply(this.globals[j], inverseBind), j * 16);
      });
      if (this.current.positions === mesh.positions) {
        this.current = { positions: new Float32Array(mesh.positions.length), normals: new Float32Array(mesh.normals.length), tangents: new Float32Array(mesh.tangents.length) };
      }
      skinVertices(mesh, skinMatrices, this.current);
    } else {
      this.current = { positions: mesh.positions, normals: mesh.normals, tangents: mesh.tangents };
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.positionBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.current.positions);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.normalBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.current.normals);
    this.meshletDirty = true;
    this.linesDirty = true;
    this.requestRender();
  }

  /** Expands meshlet triangles into unshared vertices, one colour per meshlet. */
  buildMeshletGeometry() {
    const { gl, mesh } = this;
    const { meshlets, meshletVertices: mv, meshletTriangles: mt } = mesh;
    const owner = meshletSubmesh(mesh);
    let count = 0;
    for (let i = 0; i < meshlets.length; i += 4) count += meshlets[i + 3] * 3;
    const positions = new Float32Array(count * 3);
    const normals = new Float32Array(count * 3);
    const colours = new Float32Array(count * 4);
    const P = this.current.positions;
    const N = this.current.normals;
    let out = 0;
    for (let m = 0; m < meshlets.length / 4; m++) {
      const [vOffset, , tOffset, tCount] = meshlets.subarray(m * 4, m * 4 + 4);
      const dim = this.options.submesh >= 0 && owner[m] !== this.options.submesh ? 0.3 : 1;
      const colour = distinctColour(m).map((c) => c * dim);
      for (let k = 0; k < tCount * 3; k++) {
        const v = mv[vOffset + mt[tOffset * 3 + k]] || 0;
        positions.set(P.subarray(v * 3, v * 3 + 3), out * 3);
        normals.set(N.subarray(v * 3, v * 3 + 3), out * 3);
        colours.set([colour[0], colour[1], colour[2], 1], out * 4);
        out++;
      }
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.meshletBuffers.position);
    gl.bufferData(gl.ARRAY_BUFFER, positions, gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.meshletBuffers.normal);
    gl.bufferData(gl.ARRAY_BUFFER, normals, gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.meshletBuffers.colour);
    gl.bufferData(gl.ARRAY_BUFFER, colours, gl.DYNAMIC_DRAW);
    this.meshletCount = out;
    this.meshletDirty = false;
  }

  /** Rebuilds the overlay lines: [depth-tested list, always-on-top list]. */
  buildLines() {
    const { mesh, options } = this;
    const tested = new LineList();
    const onTop = new LineList();
    const P = this.current.positions;
    const N = this.current.normals;
    const T = this.current.tangents;
    const point = (v) => [P[v * 3], P[v * 3 + 1], P[v * 3 + 2]];
    const length = 0.02 * mesh.bounds.radius;
    if (options.wire) this.addWireframe(tested, point);
    if (options.normals) {
      for (let v = 0; v < mesh.vertexCount; v++) {
        const p = point(v);
        tested.add(p, V3.add(p, V3.scale([N[v * 3], N[v * 3 + 1], N[v * 3 + 2]], length)), [0.4, 0.6, 1, 1]);
      }
    }
    if (options.tangents && mesh.hasTangents) {
      for (let v = 0; v < mesh.vertexCount; v++) {
        const p = point(v);
        const colour = T[v * 4 + 3] < 0 ? [1, 0.4, 0.9, 1] : [1, 0.35, 0.3, 1];
        tested.add(p, V3.add(p, V3.scale([T[v * 4], T[v * 4 + 1], T[v * 4 + 2]], length)), colour);
      }
    }
    if (options.bounds) {
      tested.box(mesh.bounds.min, mesh.bounds.max, [1, 1, 1, 1]);
      mesh.submeshes.forEach((s, i) => { if (s.bounds) tested.box(s.bounds.min, s.bounds.max, [...distinctColour(i + 1), 1]); });
    }
    if (options.cones) this.addCones(tested);
    if (options.skeleton) this.addSkeleton(onTop);
    this.lineLists = [tested, onTop].map((list) => this.uploadLines(list));
    this.linesDirty = false;
  }

  addWireframe(lines, point) {
    const { mesh, options } = this;
    mesh.submeshes.forEach((_, s) => {
      const dim = options.submesh >= 0 && options.submesh !== s;
      const colour = dim ? [0.3, 0.34, 0.42, 1] : [0.15, 0.55, 0.95, 1]; // readable on light and dark
      const list = lodIndexList(mesh, s, options.lod);
      for (let t = 0; t + 2 < list.length; t += 3) {
        const a = point(list[t]);
        const b = point(list[t + 1]);
        const c = point(list[t + 2]);
        lines.add(a, b, colour); lines.add(b, c, colour); lines.add(c, a, colour);
      }
    });
  }

  addCones(lines) {
    const B = this.mesh.meshletBounds;
    for (let m = 0; m + 7 < B.length; m += 8) {
      if (!(B[m + 7] < 1)) continue; // cutoff 1: the cone cannot cull
      const centre = [B[m], B[m + 1], B[m + 2]];
      const axis = [B[m + 4], B[m + 5], B[m + 6]];
      lines.add(centre, V3.add(centre, V3.scale(axis, Math.max(B[m + 3], 0.05 * this.mesh.bounds.radius))), [1, 0.85, 0.2, 1]);
    }
  }

  addSkeleton(lines) {
    const skeleton = this.mesh.skeleton;
    const origin = (j) => [this.globals[j][12], this.globals[j][13], this.globals[j][14]];
    const tick = 0.02 * this.mesh.bounds.radius;
    skeleton.forEach((joint, j) => {
      const p = origin(j);
      if (joint.parent >= 0 && joint.parent < skeleton.length) lines.add(origin(joint.parent), p, [1, 0.8, 0.2, 1]);
      for (let axis = 0; axis < 3; axis++) {
        const d = [0, 0, 0];
        d[axis] = tick;
        lines.add(V3.sub(p, d), V3.add(p, d), [1, 0.3, 0.6, 1]);
      }
    });
  }

  uploadLines(list) {
    const { gl } = this;
    if (!list.count) return { count: 0 };
    const buffers = { position: gl.createBuffer(), colour: gl.createBuffer() };
    gl.bindBuffer(gl.ARRAY_BUFFER, buffers.position);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(list.positions), gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, buffers.colour);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(list.colours), gl.DYNAMIC_DRAW);
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    bindAttribute(gl, 0, buffers.position, 3);
    bindAttribute(gl, 3, buffers.colour, 4);
    gl.bindVertexArray(null);
    return { count: list.count, vao, buffers };
  }

  freeLines() {
    const { gl } = this;
    for (const l of this.lineLists || []) {
      if (!l.count) continue;
      gl.deleteVertexArray(l.vao);
      gl.deleteBuffer(l.buffers.position);
      gl.deleteBuffer(l.buffers.colour);
    }
    this.lineLists = [];
  }

  /** Shows the camera `camera` (see parseCamera). */
  setCamera(camera) {
    Object.assign(this.camera, camera, { target: [...camera.target] });
    this.requestRender();
  }

  /** Sets the light: `mode` of ENV_MODE, with the IBL cube of environment.js for the IBL mode. */
  setEnvironment(mode, cube = null) {
    this.environment = { mode, cube };
    this.requestRender();
  }

  /** The camera's unit vectors: towards the eye (`dir`), right and up on screen. */
  cameraBasis() {
    const { yaw, pitch } = this.camera;
    const dir = [Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch), Math.cos(pitch) * Math.cos(yaw)];
    const right = V3.normalize(V3.cross([0, 1, 0], dir));
    return { dir, right, up: V3.cross(dir, right) };
  }

  /** Moves the target (and so the camera) by a drag of dx, dy CSS pixels: the point under the cursor follows it. */
  pan(dx, dy) {
    const { right, up } = this.cameraBasis();
    const perPixel = (2 * this.camera.distance * Math.tan(FOV / 2)) / Math.max(1, this.canvas.clientHeight);
    const move = V3.add(V3.scale(right, -dx * perPixel), V3.scale(up, dy * perPixel));
    this.camera.target = V3.add(this.camera.target, move);
  }

  /** View-projection matrix, the eye, the camera's basis and the head light's direction (from the upper left). */
  cameraMatrices() {
    const { bounds } = this.mesh;
    const { distance, target } = this.camera;
    const { dir, right, up } = this.cameraBasis();
    const eye = V3.add(target, V3.scale(dir, distance));
    const view = M4.lookAt(eye, target, [0, 1, 0]);
    const aspect = this.canvas.width / Math.max(1, this.canvas.height);
    // The target may have been panned away from the centre: keep the whole mesh between the planes.
    const reach = V3.length(V3.sub(target, bounds.center)) + bounds.radius;
    const near = Math.max(distance - 2 * reach, distance * 0.01, 1e-5);
    const far = distance + 3 * reach;
    const light = V3.normalize(V3.add(V3.add(dir, V3.scale(right, -0.45)), V3.scale(up, 0.6)));
    return { viewProj: M4.multiply(M4.perspective(FOV, aspect, near, far), view), light, eye, dir, right, up, aspect };
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.canvas.clientWidth * ratio));
    const height = Math.max(1, Math.round(this.canvas.clientHeight * ratio));
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
    }
  }

  requestRender() {
    if (this.cancelPending || this.destroyed) return;
    this.cancelPending = nextFrame(() => {
      this.cancelPending = null;
      if (this.beforeFrame) this.beforeFrame();
      this.render();
    });
  }

  render() {
    const { gl } = this;
    if (this.destroyed || gl.isContextLost()) return;
    this.resize();
    if (this.linesDirty) { this.freeLines(); this.buildLines(); }
    if (this.options.meshlets && this.meshletDirty) this.buildMeshletGeometry();
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.13, 0.15, 0.19, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL);
    gl.disable(gl.CULL_FACE);
    const camera = this.cameraMatrices();
    if (this.environment.mode !== ENV_MODE.headlight) this.drawBackground(camera);
    this.drawSurface(camera);
    this.drawLines(camera);
  }

  /** The environment behind the mesh (not for the head light, which has none). */
  drawBackground({ dir, right, up, aspect }) {
    const { gl } = this;
    const u = this.background.uniforms;
    const half = Math.tan(FOV / 2);
    gl.useProgram(this.background.program);
    gl.uniform3fv(u.u_right, V3.scale(right, half * aspect));
    gl.uniform3fv(u.u_up, V3.scale(up, half));
    gl.uniform3fv(u.u_forward, V3.scale(dir, -1));
    bindEnvironment(gl, u, this.environment.mode, this.environment.cube);
    gl.depthMask(false);
    gl.disable(gl.DEPTH_TEST);
    gl.bindVertexArray(null);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.depthMask(true);
    gl.enable(gl.DEPTH_TEST);
  }

  drawSurface({ viewProj, light, eye }) {
    const { gl } = this;
    const u = this.surface.uniforms;
    gl.useProgram(this.surface.program);
    gl.uniformMatrix4fv(u.u_viewProj, false, viewProj);
    gl.uniform3fv(u.u_light, light);
    gl.uniform3fv(u.u_eye, eye);
    gl.uniform1i(u.u_texture, 0);
    bindEnvironment(gl, u, this.environment.mode, this.environment.cube);
    gl.enable(gl.POLYGON_OFFSET_FILL); // keeps wireframe lines in front of their faces
    gl.polygonOffset(1, 1);
    if (this.options.meshlets) this.drawMeshlets();
    else this.drawSubmeshes();
    gl.disable(gl.POLYGON_OFFSET_FILL);
  }

  drawMeshlets() {
    const { gl } = this;
    const u = this.surface.uniforms;
    gl.uniform4f(u.u_factor, 1, 1, 1, 1);
    gl.uniform1f(u.u_metallic, 0);
    gl.uniform1f(u.u_roughness, 0.6);
    gl.uniform1i(u.u_useTexture, 0);
    gl.uniform1i(u.u_alphaMode, 0);
    gl.uniform1f(u.u_dim, 1);
    gl.bindVertexArray(this.meshletVao);
    gl.vertexAttrib2f(2, 0, 0);
    if (this.meshletCount) gl.drawArrays(gl.TRIANGLES, 0, this.meshletCount);
    gl.bindVertexArray(null);
  }

  materialRow(sub) {
    const rows = (this.mesh.material && this.mesh.material.rows) || [];
    return sub.material_slot != null ? rows[sub.material_slot] || null : null;
  }

  drawSubmeshes() {
    const { gl, mesh, options } = this;
    const u = this.surface.uniforms;
    gl.bindVertexArray(this.baseVao);
    gl.vertexAttrib4f(3, 1, 1, 1, 1); // no per-vertex colour: white
    for (const blendPass of [false, true]) {
      mesh.submeshes.forEach((sub, s) => {
        const row = this.materialRow(sub);
        const mode = row ? ['opaque', 'mask', 'blend'].indexOf(row.alpha_mode) : 0;
        if ((mode === 2) !== blendPass) return;
        const ref = row && row.textures && row.textures.base_color;
        const texture = ref && ref.path ? this.textures.get(ref.path) : null;
        gl.uniform4fv(u.u_factor, row && row.base_color_factor ? row.base_color_factor : [0.8, 0.8, 0.8, 1]);
        gl.uniform1f(u.u_metallic, row ? clamp(row.metallic_factor ?? 0, 0, 1) : 0);
        gl.uniform1f(u.u_roughness, row ? clamp(row.roughness_factor ?? 0.5, 0, 1) : 0.5);
        gl.uniform1i(u.u_useTexture, texture ? 1 : 0);
        gl.activeTexture(gl.TEXTURE0);
        gl.bindTexture(gl.TEXTURE_2D, texture);
        gl.uniform1i(u.u_alphaMode, Math.max(0, mode));
        gl.uniform1f(u.u_cutoff, row ? row.alpha_cutoff ?? 0.5 : 0.5);
        gl.uniform1f(u.u_dim, options.submesh >= 0 && options.submesh !== s ? 0.25 : 1);
        if (blendPass) { gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA); gl.depthMask(false); }
        const range = lodRange(mesh, s, options.lod);
        const first = range.source === 'lod' ? mesh.indices.length + range.first : range.first;
        if (range.count > 0) gl.drawElements(gl.TRIANGLES, range.count, gl.UNSIGNED_INT, first * 4);
        if (blendPass) { gl.disable(gl.BLEND); gl.depthMask(true); }
      });
    }
    gl.bindVertexArray(null);
  }

  drawLines({ viewProj }) {
    const { gl } = this;
    const [tested, onTop] = this.lineLists;
    gl.useProgram(this.lines.program);
    gl.uniformMatrix4fv(this.lines.uniforms.u_viewProj, false, viewProj);
    for (const [list, depth] of [[tested, true], [onTop, false]]) {
      if (!list.count) continue;
      if (!depth) gl.disable(gl.DEPTH_TEST);
      gl.bindVertexArray(list.vao);
      gl.drawArrays(gl.LINES, 0, list.count);
      gl.enable(gl.DEPTH_TEST);
    }
    gl.bindVertexArray(null);
  }

  /**
   * Mouse controls: drag orbits; right-drag, middle-drag or shift-drag pans;
   * the wheel zooms; a double click frames the mesh again.
   */
  attachControls() {
    const { canvas, camera } = this;
    const radius = this.mesh.bounds.radius;
    let drag = null;
    const moved = () => { this.requestRender(); if (this.onCameraChange) this.onCameraChange(); };
    canvas.addEventListener('contextmenu', (e) => e.preventDefault()); // right-drag pans
    canvas.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 1 || e.button === 2 || e.shiftKey };
      try { canvas.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic pointer has nothing to capture */ }
      e.preventDefault();
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (drag.pan) {
        this.pan(dx, dy);
      } else {
        camera.yaw -= dx * 0.01;
        camera.pitch = clamp(camera.pitch + dy * 0.01, -1.5, 1.5);
      }
      Object.assign(drag, { x: e.clientX, y: e.clientY });
      moved();
    });
    const stop = () => { drag = null; };
    canvas.addEventListener('pointerup', stop);
    canvas.addEventListener('pointercancel', stop);
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      camera.distance = clamp(camera.distance * Math.exp(e.deltaY * 0.0015), radius * 0.05, radius * 100);
      moved();
    }, { passive: false });
    canvas.addEventListener('dblclick', () => {
      Object.assign(camera, framingCamera(this.mesh.bounds));
      moved();
    });
    this.resizeObserver = new ResizeObserver(() => this.requestRender());
    this.resizeObserver.observe(canvas);
  }

  destroy() {
    this.destroyed = true;
    if (this.cancelPending) this.cancelPending();
    this.resizeObserver.disconnect();
    const lose = this.gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext(); // frees the GPU memory at once
  }
}
