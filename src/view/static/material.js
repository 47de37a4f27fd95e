// The material view: each row's factors, alpha mode and texture thumbnails.

import { afterPaint, el } from './dom.js';
import { fmtNum, fmtVec } from './format.js';
import { apiGet, textureImageUrl } from './api.js';
import { loadImage } from './images.js';
import { assetLink, swatch } from './widgets.js';

const TEXTURE_SLOTS = ['base_color', 'metallic_roughness', 'normal', 'occlusion', 'emissive'];

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


/** One texture slot cell; pushes its loading promise into `pending`. */
function textureCell(ref, pending) {
  if (!ref) return el('td', { class: 'muted', text: '—' });
  if (!ref.path) return el('td', { class: 'bad', title: 'this id is not in the output', text: `${ref.id} (not found)` });
  const link = assetLink(ref.path, ref.path.split('/').pop());
  link.title = ref.path;
  const cell = el('td', { class: 'tex-cell' }, el('span', { class: 'thumb-slot' }), link);
  pending.push(textureThumb(ref).then(
    (canvas) => { cell.firstChild.replaceWith(canvas); },
    (err) => { cell.firstChild.replaceWith(el('span', { class: 'bad', text: err.message })); throw err; }));
  return cell;
}

function materialTable(rows, pending) {
  const head = ['row', 'base colour', 'emissive', 'metal', 'rough', 'alpha', 'sides', 'base colour tex', 'metal-rough tex', 'normal tex', 'occlusion tex', 'emissive tex'];
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
      TEXTURE_SLOTS.map((slot) => textureCell((row.textures || {})[slot], pending))))));
}

/** The material view: the table of rows, ready once every thumbnail is drawn. */
export async function showMaterial(ctx, path) {
  const data = await apiGet('/api/material', { path });
  if (!ctx.alive()) return;
  const rows = data.rows || [];
  const pending = [];
  ctx.root.append(el('section', { class: 'panel' },
    el('h3', { text: `${rows.length} material row${rows.length === 1 ? '' : 's'}` }),
    rows.length ? el('div', { class: 'scroll-x' }, materialTable(rows, pending)) : el('p', { class: 'muted', text: 'This table has no rows.' })));
  const results = await Promise.allSettled(pending);
  if (!ctx.alive()) return;
  await afterPaint();
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) ctx.fail(failure.reason); else ctx.ready();
}
