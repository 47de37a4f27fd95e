// Skinning on the CPU: joint matrices and skinned vertices.

import { M4 } from './maths.js';

/** Global joint matrices: each local transform composed up its parent chain. */
export function jointGlobals(skeleton, locals) {
  const globals = new Array(skeleton.length).fill(null);
  const visit = (i, depth) => {
    if (globals[i]) return globals[i];
    const local = M4.fromTRS(locals[i].t, locals[i].r, locals[i].s);
    const parent = skeleton[i].parent;
    const hasParent = parent >= 0 && parent < skeleton.length && parent !== i && depth < skeleton.length;
    globals[i] = hasParent ? M4.multiply(visit(parent, depth + 1), local) : local;
    return globals[i];
  };
  skeleton.forEach((_, i) => visit(i, 0));
  return globals;
}

/** Skins positions, normals and tangents on the CPU with joint matrices (global × inverse bind). */
export function skinVertices(mesh, skinMatrices, out) {
  const { positions: P, normals: N, tangents: T } = mesh;
  const { joints: J, weights: W } = mesh.skin;
  const m = new Float32Array(12);
  const jointCount = skinMatrices.length / 16;
  for (let v = 0; v < mesh.vertexCount; v++) {
    m.fill(0);
    for (let k = 0; k < 4; k++) {
      const w = W[v * 4 + k];
      const j = J[v * 4 + k];
      if (!w || j >= jointCount) continue;
      const o = j * 16;
      for (let c = 0; c < 4; c++) for (let r = 0; r < 3; r++) m[c * 3 + r] += w * skinMatrices[o + c * 4 + r];
    }
    const [px, py, pz] = [P[v * 3], P[v * 3 + 1], P[v * 3 + 2]];
    for (let r = 0; r < 3; r++) out.positions[v * 3 + r] = m[r] * px + m[3 + r] * py + m[6 + r] * pz + m[9 + r];
    transformDirection(m, N, v * 3, out.normals, v * 3);
    transformDirection(m, T, v * 4, out.tangents, v * 4);
    out.tangents[v * 4 + 3] = T[v * 4 + 3];
  }
}

function transformDirection(m, src, i, dst, o) {
  const x = src[i];
  const y = src[i + 1];
  const z = src[i + 2];
  const rx = m[0] * x + m[3] * y + m[6] * z;
  const ry = m[1] * x + m[4] * y + m[7] * z;
  const rz = m[2] * x + m[5] * y + m[8] * z;
  const len = Math.hypot(rx, ry, rz) || 1;
  dst[o] = rx / len; dst[o + 1] = ry / len; dst[o + 2] = rz / len;
}
