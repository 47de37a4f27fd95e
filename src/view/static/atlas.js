// The atlas view: one page of the texture array at a time, every sprite's
// rect outlined and named, the hovered sprite's row, and the table's figures.

import { afterPaint, el } from './dom.js';
import { fmtInt, fmtNum, fmtVec, parseIntParam } from './format.js';
import { ApiError, apiGet } from './api.js';
import { loadTexels, texelsToCanvas } from './images.js';
import { updateHash } from './hash.js';
import { assetLink, checkbox, figureTable, selectBox } from './widgets.js';

/** Draws page `index` at `scale` with the outlines and names of its sprites. */
function drawPage(canvas, image, atlas, index, scale, showNames, hovered) {
  canvas.width = image.width * scale;
  canvas.height = image.height * scale;
  const c2d = canvas.getContext('2d');
  c2d.imageSmoothingEnabled = false;
  c2d.clearRect(0, 0, canvas.width, canvas.height);
  c2d.drawImage(image, 0, 0, canvas.width, canvas.height);
  c2d.lineWidth = 1;
  c2d.font = '11px sans-serif';
  for (const s of atlas.sprites) {
    const [x, y, w, h] = s.rect;
    if (s.page !== index || !(w > 0 && h > 0)) continue;
    c2d.strokeStyle = s === hovered ? '#ebcb8b' : 'rgba(191, 97, 106, 0.9)';
    c2d.strokeRect(x * scale + 0.5, y * scale + 0.5, w * scale - 1, h * scale - 1);
    if (showNames || s === hovered) {
      c2d.fillStyle = s === hovered ? '#ebcb8b' : 'rgba(236, 239, 244, 0.9)';
      c2d.fillText(s.name, x * scale + 2, y * scale + 11, Math.max(8, w * scale - 4));
    }
  }
}

function spriteAt(atlas, index, x, y) {
  return atlas.sprites.find((s) => s.page === index && x >= s.rect[0] && y >= s.rect[1]
    && x < s.rect[0] + s.rect[2] && y < s.rect[1] + s.rect[3]) || null;
}

function spriteDescription(s) {
  const turned = s.rotated ? ', stored turned 90° clockwise' : '';
  const frame = s.duration_ms ? `, ${s.duration_ms} ms` : '';
  return `${s.name}: page ${s.page}, rect ${fmtVec(s.rect, 0)}, trim ${fmtVec(s.trim, 0)} in ${s.source[0]} × ${s.source[1]}, pivot ${fmtVec(s.pivot)}${turned}${frame}`;
}

function atlasFigures(atlas) {
  const content = atlas.sprites.reduce((sum, s) => sum + s.rect[2] * s.rect[3], 0);
  const pages = atlas.pages.length * atlas.page_width * atlas.page_height;
  return figureTable([
    [atlas.animation ? 'frames' : 'sprites', fmtInt(atlas.sprites.length)],
    ['pages', `${fmtInt(atlas.pages.length)} of ${atlas.page_width} × ${atlas.page_height}`],
    ['packed', `${fmtNum((100 * content) / Math.max(1, pages), 3)} %`],
    ['turned', fmtInt(atlas.sprites.filter((s) => s.rotated).length)],
    ['filter', atlas.nearest ? 'nearest' : 'linear'],
    ['pages file', atlas.texture.path ? assetLink(atlas.texture.path) : atlas.texture.id],
  ]);
}

/** The atlas view: page and zoom choices, the page with its sprites, and the figures. */
export async function showAtlas(ctx, path) {
  const atlas = await apiGet('/api/atlas', { path });
  if (!ctx.alive()) return;
  if (!atlas.texture.path) {
    throw new ApiError(`${path}: pages ${atlas.texture.id} are not in the output, so nothing can be drawn`, 404);
  }
  const params = ctx.params;
  const state = {
    page: parseIntParam(params.page, 0, atlas.pages.length - 1, 0),
    scale: parseIntParam(params.zoom, 1, 8, atlas.page_width <= 256 ? 4 : 1),
    names: params.names !== '0',
  };
  const images = [];
  for (const url of atlas.pages) {
    images.push(texelsToCanvas(await loadTexels(url)));
    if (!ctx.alive()) return;
  }
  const canvas = el('canvas', { class: 'atlas' });
  const hoverLine = el('div', { class: 'caption muted', text: 'Hover a sprite for its row.' });
  let hovered = null;
  const redraw = () => drawPage(canvas, images[state.page], atlas, state.page, state.scale, state.names, hovered);
  const syncHash = () => updateHash({ page: state.page || null, zoom: state.scale, names: state.names ? null : 0 });
  canvas.addEventListener('mousemove', (e) => {
    const box = canvas.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * atlas.page_width;
    const y = ((e.clientY - box.top) / box.height) * atlas.page_height;
    const s = spriteAt(atlas, state.page, x, y);
    if (s === hovered) return;
    hovered = s;
    hoverLine.textContent = s ? spriteDescription(s) : 'Hover a sprite for its row.';
    redraw();
  });
  const pageChoices = atlas.pages.map((_, i) => [i, `page ${i}`]);
  ctx.root.append(
    el('div', { class: 'toolbar' },
      selectBox('page ', pageChoices, state.page, (v) => { state.page = Number(v); hovered = null; redraw(); syncHash(); }),
      selectBox('zoom ', [1, 2, 4, 8].map((z) => [z, `${z}×`]), state.scale, (v) => { state.scale = Number(v); redraw(); syncHash(); }),
      checkbox('names', state.names, (on) => { state.names = on; redraw(); syncHash(); })),
    el('div', { class: 'font-body' },
      el('section', { class: 'panel atlas-panel' }, el('h3', { text: `Page ${atlas.page_width} × ${atlas.page_height}` }),
        el('div', { class: 'atlas-stage checker-stage' }, canvas), hoverLine),
      el('div', { class: 'side-figures' }, atlasFigures(atlas))));
  redraw();
  await afterPaint();
  ctx.ready();
}
