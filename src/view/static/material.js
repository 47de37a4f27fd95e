// The material view: each row's factors, alpha mode and texture slots, with
// the slots whose texture the output lacks shown in red. `missingTextures`
// gives the mesh view the same warning.

import { afterPaint, el } from './dom.js';
import { fmtNum, fmtVec } from './format.js';
import { apiGet, textureImageUrl } from './api.js';
import { loadImage } from './images.js';
import { assetLink, swatch } from './widgets.js';

const TEXTURE_SLOTS = [
  ['base_color', 'base colour'], ['metallic_roughness', 'metal-rough'], ['normal', 'normal'],
  ['occlusion', 'occlusion'], ['emissive', 'emissive'],
];

/** A small checkerboard-backed thumbnail of texture level 0; resolves once drawn. */
async function textureThumb(ref, size = 48) {
  const canvas = el('canvas', { class: 'thumb checker', width: size, height: size });
  const img = await loadImage(textureImageUrl(ref.path));
  const scale = Math.min(size / img.naturalWidth, size / img.naturalHeight);
  const w = Math.max(1, Math.round(img.naturalWidth * scale));
  const h = Math.max(1, Math.round(img.naturalHeight * scale));
  const ctx2d = canvas.getContext('2d');
  ctx2d.imageSmoothingEnabled = scale < 1;
  ctx2d.drawImage(img, (size - w) / 2, (size - h) / 2, w, h);
  return canvas;
}

/** Why a slot's texture cannot be drawn, as the server says (older answers: no path). */
function slotProblem(ref) {
  if (ref.missing) return ref.problem || `texture ${ref.id} is missing`;
  return ref.path ? null : `texture ${ref.id} is not in the manifest`;
}

/** One used texture slot: thumbnail and file name, or the dangling reference in red. */
function textureSlot(ref, label, pending) {
  const problem = slotProblem(ref);
  if (problem) {
    return el('div', { class: 'slot missing', title: problem },
      el('span', { class: 'thumb-slot' }, 'missing'), el('span', { class: 'slot-label', text: label }),
      el('span', { class: 'bad', text: ref.path ? ref.path.split('/').pop() : ref.id }));
  }
  const link = assetLink(ref.path, ref.path.split('/').pop());
  link.title = ref.path;
  const slot = el('div', { class: 'slot' }, el('span', { class: 'thumb-slot' }), el('span', { class: 'slot-label', text: label }), link);
  pending.push(textureThumb(ref).then(
    (canvas) => { slot.firstChild.replaceWith(canvas); },
    (err) => { slot.firstChild.replaceWith(el('span', { class: 'bad', text: err.message })); throw err; }));
  return slot;
}

/** The cell of a row's textures: one slot per texture it uses, wrapping to the cell's width. */
function texturesCell(textures, pending) {
  const used = TEXTURE_SLOTS.filter(([key]) => textures[key]);
  if (!used.length) return el('td', { class: 'muted', text: 'none' });
  return el('td', {}, el('div', { class: 'slots' }, used.map(([key, label]) => textureSlot(textures[key], label, pending))));
}

function materialTable(rows, pending) {
  const head = ['row', 'base colour', 'emissive', 'metal', 'rough', 'alpha', 'sides', 'textures'];
  return el('table', { class: 'grid materials' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { text: h })))),
    el('tbody', {}, rows.map((row, i) => el('tr', {},
      el('td', { class: 'num', text: i }),
      el('td', { class: 'factor' }, swatch(row.base_color_factor || [1, 1, 1, 1]), el('small', { text: fmtVec(row.base_color_factor, 3) })),
      el('td', { class: 'factor' }, swatch(row.emissive_factor || [0, 0, 0]), el('small', { text: fmtVec(row.emissive_factor, 3) })),
      el('td', { class: 'num', text: fmtNum(row.metallic_factor, 3) }),
      el('td', { class: 'num', text: fmtNum(row.roughness_factor, 3) }),
      el('td', { text: row.alpha_mode === 'mask' ? `mask < ${fmtNum(row.alpha_cutoff, 3)}` : row.alpha_mode }),
      el('td', { text: row.double_sided ? 'double' : 'single' }),
      texturesCell(row.textures || {}, pending)))));
}

/**
 * A red box listing each texture slot of a material table that the output
 * cannot supply (`row 0 base colour: …: listed in the manifest but missing`),
 * as `assetc-link check` reports it; null when every slot resolves.
 */
export function missingTextures(material) {
  const lines = [];
  ((material && material.rows) || []).forEach((row, i) => {
    for (const [key, label] of TEXTURE_SLOTS) {
      const ref = (row.textures || {})[key];
      const problem = ref && slotProblem(ref);
      if (problem) lines.push(`row ${i} ${label}: ${problem}`);
    }
  });
  if (!lines.length) return null;
  return el('div', { class: 'missing-box' },
    el('strong', { text: `${material.path}: ${lines.length} texture${lines.length === 1 ? '' : 's'} missing (drawn without them)` }),
    el('pre', { text: lines.join('\n') }));
}

/** The material view: the table of rows, ready once every thumbnail is drawn. */
export async function showMaterial(ctx, path) {
  const data = await apiGet('/api/material', { path });
  if (!ctx.alive()) return;
  const rows = data.rows || [];
  const pending = [];
  ctx.root.append(
    missingTextures(data) || '',
    el('section', { class: 'panel' },
      el('h3', { text: `${rows.length} material row${rows.length === 1 ? '' : 's'}` }),
      rows.length ? el('div', { class: 'scroll-x' }, materialTable(rows, pending)) : el('p', { class: 'muted', text: 'This table has no rows.' })));
  const results = await Promise.allSettled(pending);
  if (!ctx.alive()) return;
  await afterPaint();
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) ctx.fail(failure.reason); else ctx.ready();
}
