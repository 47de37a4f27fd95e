// The font view: a text preview set from the distance field, and the atlas
// with glyph boxes.

import { afterPaint, el } from './dom.js';
import { clamp } from './maths.js';
import { fmtInt, fmtNum, fmtVec, parseIntParam } from './format.js';
import { ApiError, apiGet } from './api.js';
import { isolateChannel, loadTexels, texelsToCanvas } from './images.js';
import { updateHash } from './hash.js';
import { assetLink, checkbox, figureTable, selectBox } from './widgets.js';

function prepareFont(data) {
  const glyphs = data.glyphs || [];
  const byCode = new Map(glyphs.map((g) => [g.codepoint, g]));
  const kerning = new Map((data.kerning || []).map(([l, r, adjust]) => [`${l}:${r}`, adjust]));
  const fallback = byCode.get(0) || glyphs[0];
  return { ...data, glyphs, byCode, kerning, fallback };
}

/** Pen positions in em: [{glyph, pen}] and the total advance. */
function layoutText(font, text) {
  const placed = [];
  let pen = 0;
  let previous = null;
  for (const ch of text) {
    const glyph = font.byCode.get(ch.codePointAt(0)) || font.fallback;
    if (!glyph) continue;
    if (previous) pen += font.kerning.get(`${previous.codepoint}:${glyph.codepoint}`) || 0;
    placed.push({ glyph, pen });
    pen += glyph.advance;
    previous = glyph;
  }
  return { placed, width: pen };
}

/**
 * One glyph quad drawn into a small canvas: a distance field turned into
 * coverage, or a bitmap atlas (flags bit 1) sampled nearest as it is, its
 * one coverage channel tinted with the text colour.
 */
function glyphInk(font, field, glyph, rect, colour) {
  const [u0, v0, u1, v1] = glyph.uv;
  const ix = Math.floor(rect.x0);
  const iy = Math.floor(rect.y0);
  const w = Math.ceil(rect.x1) - ix;
  const h = Math.ceil(rect.y1) - iy;
  if (w <= 0 || h <= 0) return null;
  const canvas = el('canvas', { width: w, height: h });
  const c2d = canvas.getContext('2d', { willReadFrequently: true });
  c2d.imageSmoothingEnabled = !font.bitmap;
  c2d.imageSmoothingQuality = 'high';
  const sw = (u1 - u0) * field.width;
  const sh = (v1 - v0) * field.height;
  c2d.drawImage(field, u0 * field.width, v0 * field.height, sw, sh, rect.x0 - ix, rect.y0 - iy, rect.x1 - rect.x0, rect.y1 - rect.y0);
  const image = c2d.getImageData(0, 0, w, h);
  const px = image.data;
  // Field units per screen pixel: atlas texels per pixel / distance range.
  const texelsPerPixel = sw / Math.max(1e-6, rect.x1 - rect.x0);
  const halfWidth = Math.max(1e-3, (0.5 * texelsPerPixel) / Math.max(1e-6, font.distance_range || 1));
  const edge = font.edge_value ?? 0.5;
  for (let i = 0; i < px.length; i += 4) {
    if (font.bitmap) {
      if (!font.msdf) {
        px[i + 3] = px[i];
        px[i] = colour[0]; px[i + 1] = colour[1]; px[i + 2] = colour[2];
      }
      continue;
    }
    const r = px[i] / 255;
    const d = font.msdf ? Math.max(Math.min(r, px[i + 1] / 255), Math.min(Math.max(r, px[i + 1] / 255), px[i + 2] / 255)) : r;
    const coverage = clamp((d - edge) / (2 * halfWidth) + 0.5, 0, 1) * (px[i + 3] / 255);
    px[i] = colour[0]; px[i + 1] = colour[1]; px[i + 2] = colour[2];
    px[i + 3] = Math.round(255 * coverage);
  }
  c2d.putImageData(image, 0, 0);
  return { canvas, x: ix, y: iy };
}

/**
 * The text cut into lines no wider than maxEm: between words where it can be,
 * inside a word only when the word alone is wider than a line.
 */
function wrapText(font, text, maxEm) {
  const lines = [];
  let line = '';
  const fits = (candidate) => layoutText(font, candidate).width <= maxEm;
  for (const token of text.split(/(\s+)/)) {
    if (!token) continue;
    if (fits(line + token)) { line += token; continue; }
    if (line.trim()) lines.push(line);
    line = '';
    const word = token.trimStart();
    for (const ch of word) {
      if (line && !fits(line + ch)) { lines.push(line); line = ''; }
      line += ch;
    }
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}

/**
 * Draws the text preview no wider than maxWidth pixels, wrapped into lines
 * `line_advance` apart; returns the glyph boxes.
 */
function renderTextPreview(canvas, font, field, text, pxPerEm, maxWidth) {
  const pad = Math.round(0.25 * pxPerEm);
  const ascent = font.ascent ?? 1;
  const descent = font.descent ?? 0;
  const advance = font.line_advance || ascent - descent;
  const lines = wrapText(font, text, Math.max(1, maxWidth - 2 * pad) / pxPerEm).map((line) => layoutText(font, line));
  const widest = Math.max(...lines.map((l) => l.width));
  canvas.width = Math.max(1, Math.min(maxWidth, Math.ceil(widest * pxPerEm + 2 * pad)));
  canvas.height = Math.max(1, Math.ceil(((lines.length - 1) * advance + ascent - descent) * pxPerEm + 2 * pad));
  const c2d = canvas.getContext('2d');
  c2d.clearRect(0, 0, canvas.width, canvas.height);
  const boxes = [];
  lines.forEach(({ placed }, row) => {
    const baseline = pad + (ascent + row * advance) * pxPerEm;
    // Guides: ascent, baseline, descent.
    c2d.fillStyle = 'rgba(136, 192, 208, 0.35)';
    for (const y of [baseline - ascent * pxPerEm, baseline, baseline - descent * pxPerEm]) c2d.fillRect(0, Math.round(y), canvas.width, 1);
    for (const { glyph, pen } of placed) {
      const [left, bottom, right, top] = glyph.plane;
      if (!(right > left && top > bottom)) continue; // blank glyph: only advances
      const rect = {
        x0: pad + (pen + left) * pxPerEm, x1: pad + (pen + right) * pxPerEm,
        y0: baseline - top * pxPerEm, y1: baseline - bottom * pxPerEm,
      };
      const ink = glyphInk(font, field, glyph, rect, [236, 239, 244]);
      if (ink) c2d.drawImage(ink.canvas, ink.x, ink.y);
      boxes.push({ glyph, rect });
    }
  });
  return boxes;
}

function drawAtlas(canvas, display, font, showBoxes, hovered) {
  const c2d = canvas.getContext('2d');
  c2d.clearRect(0, 0, canvas.width, canvas.height);
  c2d.drawImage(display, 0, 0);
  if (!showBoxes) return;
  c2d.lineWidth = 1;
  for (const g of font.glyphs) {
    const [u0, v0, u1, v1] = g.uv;
    if (!(u1 > u0 && v1 > v0)) continue;
    c2d.strokeStyle = g === hovered ? '#ebcb8b' : 'rgba(191, 97, 106, 0.8)';
    c2d.strokeRect(u0 * canvas.width + 0.5, v0 * canvas.height + 0.5, (u1 - u0) * canvas.width - 1, (v1 - v0) * canvas.height - 1);
  }
}

function glyphAt(font, u, v) {
  return font.glyphs.find((g) => u >= g.uv[0] && u <= g.uv[2] && v >= g.uv[1] && v <= g.uv[3]) || null;
}

function glyphDescription(g) {
  const ch = g.codepoint >= 32 ? ` '${String.fromCodePoint(g.codepoint)}'` : ' (fallback)';
  const hex = g.codepoint.toString(16).toUpperCase().padStart(4, '0');
  return `U+${hex}${ch}: advance ${fmtNum(g.advance)} em, plane ${fmtVec(g.plane)}, uv ${fmtVec(g.uv)}`;
}

/** What the atlas holds, from the header flags. */
function atlasKind(font) {
  if (font.bitmap) return font.msdf ? 'bitmap (RGBA, straight alpha)' : 'bitmap (coverage in one channel)';
  return font.msdf ? 'MSDF (median of R, G, B)' : 'SDF (one channel)';
}

function fontFigures(font) {
  return figureTable([
    ['glyphs', fmtInt(font.glyphs.length)], ['kerning pairs', fmtInt((font.kerning || new Map()).size)],
    ['ascent', fmtNum(font.ascent)], ['descent', fmtNum(font.descent)], ['line gap', fmtNum(font.line_gap)],
    ['line advance', fmtNum(font.line_advance)], ['distance range', fmtNum(font.distance_range)],
    ['edge value', fmtNum(font.edge_value)], ['field', atlasKind(font)],
    ['atlas', `${font.atlas_width} × ${font.atlas_height}`],
    ['atlas file', font.atlas && font.atlas.path ? assetLink(font.atlas.path) : (font.atlas && font.atlas.id) || '—'],
  ]);
}

/** The font view: text input, size and glyph-box toggles, the preview, the atlas and the metrics. */
export async function showFont(ctx, path) {
  const font = prepareFont(await apiGet('/api/font', { path }));
  if (!ctx.alive()) return;
  if (!font.atlas || !font.atlas.image_url) {
    throw new ApiError(`${path}: atlas ${font.atlas ? font.atlas.id : '?'} is not in the output, so nothing can be drawn`, 404);
  }
  const params = ctx.params;
  const state = {
    text: params.text ?? 'The quick brown fox jumps over the lazy dog 0123456789',
    size: parseIntParam(params.size, 6, 400, 48),
    boxes: params.boxes !== '0',
  };
  const texels = await loadTexels(font.atlas.image_url);
  if (!ctx.alive()) return;
  // The field keeps the raw channels (alpha forced opaque so nothing is premultiplied away);
  // the display shows a single-channel field as grey.
  // A bitmap atlas keeps its alpha, which is the glyphs' own coverage.
  const field = texelsToCanvas(texels, !font.bitmap);
  const display = font.msdf ? field : texelsToCanvas({ ...texels, data: isolateChannel(texels.data, 'r') });

  const preview = el('canvas', { class: 'preview' });
  const atlas = el('canvas', { class: 'atlas', width: texels.width, height: texels.height });
  const hoverLine = el('div', { class: 'caption muted', text: 'Hover a glyph box for its metrics.' });
  const input = el('input', { type: 'text', class: 'text-input', value: state.text, spellcheck: false });
  let hovered = null;

  const stage = el('div', { class: 'preview-stage' }, preview);
  const redrawText = () => renderTextPreview(preview, font, field, state.text, state.size, Math.max(1, stage.clientWidth));
  const redrawAtlas = () => drawAtlas(atlas, display, font, state.boxes, hovered);
  const syncHash = () => updateHash({ text: state.text, size: state.size === 48 ? null : state.size, boxes: state.boxes ? null : 0 });

  input.addEventListener('input', () => { state.text = input.value; redrawText(); syncHash(); });
  atlas.addEventListener('mousemove', (e) => {
    const box = atlas.getBoundingClientRect();
    const g = glyphAt(font, (e.clientX - box.left) / box.width, (e.clientY - box.top) / box.height);
    if (g === hovered) return;
    hovered = g;
    hoverLine.textContent = g ? glyphDescription(g) : 'Hover a glyph box for its metrics.';
    redrawAtlas();
  });

  const sizes = [16, 24, 32, 48, 64, 96, 128];
  if (!sizes.includes(state.size)) sizes.push(state.size);
  ctx.root.append(
    el('div', { class: 'toolbar' }, el('label', { class: 'grow' }, 'text ', input),
      selectBox('size ', sizes.sort((a, b) => a - b).map((s) => [s, `${s} px/em`]), state.size, (v) => { state.size = Number(v); redrawText(); syncHash(); }),
      checkbox('glyph boxes', state.boxes, (on) => { state.boxes = on; redrawAtlas(); syncHash(); })),
    el('section', { class: 'panel' }, el('h3', { text: 'Preview' }), stage),
    el('div', { class: 'font-body' },
      el('section', { class: 'panel atlas-panel' }, el('h3', { text: `Atlas ${texels.width} × ${texels.height}` }), el('div', { class: 'atlas-stage checker-stage' }, atlas), hoverLine),
      el('div', { class: 'side-figures' }, fontFigures(font))));
  redrawAtlas();
  redrawText();
  // The preview follows the width of its panel.
  let lastWidth = stage.clientWidth;
  const resized = new ResizeObserver(() => {
    if (stage.clientWidth !== lastWidth) { lastWidth = stage.clientWidth; redrawText(); }
  });
  resized.observe(stage);
  ctx.onCleanup(() => resized.disconnect());
  await afterPaint();
  ctx.ready();
}
