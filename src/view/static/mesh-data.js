// Mesh data: decoding /api/mesh and the index lists of each LOD.

import { el } from './dom.js';
import { V3 } from './maths.js';
import { b64Bytes, b64F32, b64U16, b64U32 } from './api.js';

/** A typed array of exactly n elements (zero-filled or padded with `fill`). */
function sized(array, n, Type, fill = null) {
  if (array.length === n) return array;
  const out = new Type(n);
  out.set(array.subarray(0, Math.min(n, array.length)));
  if (fill) for (let i = array.length - (array.length % fill.length); i < n; i++) out[i] = fill[i % fill.length];
  return out;
}

function boundsOf(b) {
  const min = (b && b.min) || [0, 0, 0];
  const max = (b && b.max) || [0, 0, 0];
  const center = (b && b.center) || V3.scale(V3.add(min, max), 0.5);
  const radius = (b && b.radius) || Math.hypot(...V3.sub(max, min)) / 2;
  return { min, max, center, radius: Math.max(radius, 1e-4) };
}

/** Decodes /api/mesh's answer into typed arrays, every per-vertex array sized to the vertex count. */
export function decodeMesh(d) {
  const n = d.vertex_count || 0;
  const indices = b64U32(d.indices);
  const submeshes = d.submeshes && d.submeshes.length ? d.submeshes
    : [{ first_index: 0, index_count: indices.length, first_meshlet: 0, meshlet_count: 0, material_slot: null, lods: [] }];
  return {
    path: d.path,
    vertexCount: n,
    hasTangents: !!d.has_tangents,
    bounds: boundsOf(d.bounds),
    positions: sized(b64F32(d.positions), n * 3, Float32Array),
    normals: sized(b64F32(d.normals), n * 3, Float32Array, [0, 1, 0]),
    tangents: sized(b64F32(d.tangents), n * 4, Float32Array, [1, 0, 0, 1]),
    uvs: sized(b64F32(d.uvs), n * 2, Float32Array),
    indices,
    lodCount: d.lod_count || 0,
    lodIndices: b64U32(d.lod_indices),
    submeshes: submeshes.map((s) => ({ ...s, bounds: s.bounds ? boundsOf(s.bounds) : null, lods: s.lods || [] })),
    meshlets: b64U32(d.meshlets),
    meshletVertices: b64U32(d.meshlet_vertices),
    meshletTriangles: b64Bytes(d.meshlet_triangles),
    meshletBounds: b64F32(d.meshlet_bounds),
    skin: d.skin ? { joints: sized(b64U16(d.skin.joints), n * 4, Uint16Array), weights: sized(b64F32(d.skin.weights), n * 4, Float32Array) } : null,
    skeleton: d.skeleton || [],
    material: d.material || null,
    animations: d.animations || [],
  };
}

/** Where submesh s draws from at a LOD: {source: 'full'|'lod', first, count, level}. */
export function lodRange(mesh, s, lod) {
  const sub = mesh.submeshes[s];
  for (let level = Math.min(lod, mesh.lodCount); level > 0; level--) {
    const entry = sub.lods[level - 1];
    if (entry && entry.index_count > 0) return { source: 'lod', first: entry.first_index, count: entry.index_count, level };
  }
  return { source: 'full', first: sub.first_index, count: sub.index_count, level: 0 };
}

/** The indices submesh s draws at a LOD. */
export function lodIndexList(mesh, s, lod) {
  const r = lodRange(mesh, s, lod);
  return (r.source === 'lod' ? mesh.lodIndices : mesh.indices).subarray(r.first, r.first + r.count);
}

/** Triangles and distinct vertices used by a LOD, over all submeshes. */
export function lodFigures(mesh, lod) {
  const used = new Uint8Array(mesh.vertexCount);
  let triangles = 0;
  let vertices = 0;
  const stalled = [];
  mesh.submeshes.forEach((_, s) => {
    const range = lodRange(mesh, s, lod);
    if (range.level !== lod) stalled.push({ submesh: s, level: range.level });
    const list = lodIndexList(mesh, s, lod);
    triangles += Math.floor(list.length / 3);
    for (const v of list) if (v < used.length && !used[v]) { used[v] = 1; vertices++; }
  });
  return { triangles, vertices, stalled };
}

/**
 * The note of a LOD row whose simplification stalled: "stalled: as LOD 0"
 * when every submesh stalled at one level, else a count ("45 of 46 submeshes
 * stalled") that opens, as a <details>, the list "#1→0, #2→0, …" of which
 * submesh draws which earlier level. Empty when nothing stalled.
 */
export function stalledNote(stalled, submeshCount) {
  if (!stalled.length) return '';
  const levels = new Set(stalled.map((x) => x.level));
  if (stalled.length === submeshCount && levels.size === 1) return `stalled: as LOD ${stalled[0].level}`;
  return el('details', { class: 'stalled' },
    el('summary', { text: `${stalled.length} of ${submeshCount} submeshes stalled` }),
    el('div', { class: 'stalled-list', text: stalled.map((x) => `#${x.submesh}→${x.level}`).join(', ') }));
}

/** The submesh that owns each meshlet (-1 for none). */
export function meshletSubmesh(mesh) {
  const owner = new Int32Array(mesh.meshlets.length / 4).fill(-1);
  mesh.submeshes.forEach((sub, s) => {
    for (let i = 0; i < (sub.meshlet_count || 0); i++) if (sub.first_meshlet + i < owner.length) owner[sub.first_meshlet + i] = s;
  });
  return owner;
}
