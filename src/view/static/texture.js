// The texture view: levels, layers, faces and slices, channels, zoom, the
// cube cross, and the PSNR against the source.

import { afterPaint, el, setChildren } from './dom.js';
import { fmtInt, fmtNum, parseIntParam } from './format.js';
import { ApiError, apiGet } from './api.js';
import { isolateChannel, loadTexels } from './images.js';
import { updateHash } from './hash.js';
import { clearErrors } from './context.js';
import { buttonGroup, checkbox, figureTable, selectBox } from './widgets.js';
import { FACE_NAMES, probeParam, texelProbe } from './probe.js';

// Horizontal cross, 4 × 3 cells: [face, column, row].
const CROSS_CELLS = [[2, 1, 0], [1, 0, 1], [4, 1, 1], [0, 2, 1], [5, 3, 1], [3, 1, 2]];
const CHANNELS = ['r', 'g', 'b', 'a', 'rgba'];

const uniqueSorted = (values) => [...new Set(values)].sort((a, b) => a - b);

/** An image's URL at the exposure chosen (HDR formats are tone-mapped by the server). */
const imageUrl = (image, exposure) => (exposure ? `${image.url}&exposure=${exposure}` : image.url);



function textureState(params, info) {
  return {
    level: parseIntParam(params.level, 0, 1e6, 0),
    layer: parseIntParam(params.layer, 0, 1e6, 0),
    face: parseIntParam(params.face, 0, 5, 0),
    slice: parseIntParam(params.slice, 0, 1e6, 0),
    channel: CHANNELS.includes(params.channel) ? params.channel : 'rgba',
    zoom: ['1', '2', '4', 'fit'].includes(params.zoom) ? params.zoom : 'fit',
    cross: params.cross === '1' && info.faces === 6,
    exposure: info.hdr ? Math.max(-16, Math.min(16, Number(params.exposure) || 0)) : 0,
  };
}

/** Moves each selector to a value that exists, given the ones before it. */
function clampTextureState(state, images) {
  const pick = (list, key) => {
    const values = uniqueSorted(list.map((im) => im[key]));
    if (!values.includes(state[key])) state[key] = values[0] ?? 0;
    return list.filter((im) => im[key] === state[key]);
  };
  let list = pick(images, 'level');
  list = pick(list, 'layer');
  list = pick(list, 'face');
  list = pick(list, 'slice');
  return list[0] || null;
}

/** "level 0", plus the layer, face and slice only where the texture has more than one. */
function imageName(info, image) {
  const parts = [`level ${image.level}`];
  if (info.layers > 1) parts.push(`layer ${image.layer}`);
  if (info.faces > 1) parts.push(`face ${FACE_NAMES[image.face] || image.face}`);
  if (info.depth > 1) parts.push(`slice ${image.slice}`);
  return parts.join(', ');
}

function textureFigures(info, file) {
  return figureTable([
    ['kind', info.kind],
    ['size', `${info.width} × ${info.height}${info.depth > 1 ? ` × ${info.depth}` : ''}`],
    ['layers', info.layers], ['faces', info.faces], ['mip levels', info.mips],
    ['format', info.format], ['supercompression', info.supercompression || 'none'],
    ['transfer', info.transfer], ['swizzle', info.swizzle || 'rgba'],
    ['sampler hint', info.sampler || 'linear'],
    ['format chosen because', info.choice || undefined],
    ['texels', file && file.texels != null ? fmtInt(file.texels) : undefined],
    ['source', info.source || undefined],
  ]);
}

/**
 * The PSNR line: what level 0 was compared with (the source, resized by the
 * encoder's filter when max_size shrank the texture, on the channels the
 * swizzle keeps), or why there is no PSNR.
 */
function psnrLine(info) {
  if (info.psnr == null) {
    return info.psnr_note ? el('p', { class: 'psnr muted', text: `No PSNR against ${info.source}: ${info.psnr_note}.` }) : null;
  }
  const ref = info.psnr_reference;
  const against = ref && ref.resized
    ? `${info.source} resized from ${ref.source_width}×${ref.source_height} to ${ref.width}×${ref.height} with ${ref.filter}`
    : info.source || 'the source';
  const channels = ref && ref.channels !== 'RGBA' ? `, channels ${ref.channels}` : '';
  return el('p', { class: 'psnr', text: `PSNR against ${against}${channels}: ${fmtNum(info.psnr, 4)} dB` });
}

/** The texture view: selectors, channels, zoom, the canvas, the figures and the PSNR. */
export async function showTexture(ctx, path, file) {
  const info = await apiGet('/api/texture', { path });
  if (!ctx.alive()) return;
  const images = info.images || [];
  if (!images.length) throw new ApiError(`${path}: the server listed no images`, 0);
  const state = textureState(ctx.params, info);
  clampTextureState(state, images);

  const toolbar = el('div', { class: 'toolbar' });
  const canvas = el('canvas', { class: 'texture-canvas' });
  const stage = el('div', { class: 'stage checker-stage' }, canvas);
  const caption = el('div', { class: 'caption muted' });
  const psnr = psnrLine(info);
  let crossCell = null; // {width, height} of a face in the cross layout
  const probe = texelProbe(path, canvas, (offsetX, offsetY) => texelAt(canvas, state, crossCell, offsetX, offsetY));
  let probeAt = probeParam(ctx.params.probe); // the hash's probe=x,y, once
  ctx.root.append(toolbar, el('div', { class: 'texture-body' },
    el('div', { class: 'texture-main' }, stage, caption, probe.element),
    el('div', { class: 'side-figures' }, psnr, textureFigures(info, file))));

  let drawToken = 0;
  let shown = null; // {width, height} of the canvas content

  const syncHash = () => updateHash({
    level: state.level || null, layer: state.layer || null, face: state.face || null, slice: state.slice || null,
    channel: state.channel === 'rgba' ? null : state.channel, zoom: state.zoom === 'fit' ? null : state.zoom,
    cross: state.cross ? 1 : null, exposure: state.exposure || null,
  });

  function applyZoom() {
    if (!shown) return;
    let scale = Number(state.zoom);
    if (state.zoom === 'fit') {
      const width = Math.max(64, stage.clientWidth - 24);
      const height = Math.max(160, window.innerHeight - stage.getBoundingClientRect().top - 48);
      scale = Math.min(width / shown.width, height / shown.height);
    }
    canvas.style.width = `${Math.max(1, Math.round(shown.width * scale))}px`;
    canvas.style.height = `${Math.max(1, Math.round(shown.height * scale))}px`;
  }

  function paint(parts, width, height) {
    canvas.width = width;
    canvas.height = height;
    const c2d = canvas.getContext('2d');
    c2d.clearRect(0, 0, width, height);
    for (const { texels, x, y } of parts) {
      const data = isolateChannel(texels.data, state.channel);
      c2d.putImageData(new ImageData(data, texels.width, texels.height), x, y);
    }
    shown = { width, height };
    applyZoom();
  }

  async function draw() {
    const token = ++drawToken;
    ctx.loading();
    clearErrors(ctx.root);
    const image = clampTextureState(state, images);
    try {
      if (state.cross) {
        const faces = images.filter((im) => im.level === state.level && im.layer === state.layer && im.slice === state.slice);
        const loaded = await Promise.all(CROSS_CELLS.map(async ([face, col, row]) => {
          const im = faces.find((f) => f.face === face);
          return im ? { texels: await loadTexels(imageUrl(im, state.exposure)), col, row } : null;
        }));
        if (token !== drawToken || !ctx.alive()) return;
        const cell = image.width;
        crossCell = { width: image.width, height: image.height };
        paint(loaded.filter(Boolean).map((p) => ({ texels: p.texels, x: p.col * cell, y: p.row * cell })), cell * 4, image.height * 3);
        caption.textContent = `level ${state.level}, layer ${state.layer}: cube cross (+Y on top; −X +Z +X −Z; −Y below), ${image.width} × ${image.height} per face`;
      } else {
        const texels = await loadTexels(imageUrl(image, state.exposure));
        if (token !== drawToken || !ctx.alive()) return;
        crossCell = null;
        paint([{ texels, x: 0, y: 0 }], texels.width, texels.height);
        caption.textContent = `${imageName(info, image)}: ${texels.width} × ${texels.height}, channel ${state.channel.toUpperCase()}`;
      }
      await probe.show(state, info, probeAt);
      probeAt = null;
      if (token !== drawToken || !ctx.alive()) return;
      await afterPaint();
      if (token === drawToken) ctx.ready();
    } catch (err) {
      if (token === drawToken) ctx.fail(err);
    }
  }

  /** The exposure control of HDR formats, in stops; the server tone-maps. */
  function exposureSlider() {
    const value = el('span', { class: 'muted', text: `${state.exposure} EV` });
    const slider = el('input', {
      type: 'range', min: '-16', max: '16', step: '0.5', value: String(state.exposure),
      class: 'exposure', title: 'exposure in stops (HDR values are scaled by 2^EV, then clamped)',
    });
    slider.addEventListener('input', () => { value.textContent = `${slider.value} EV`; });
    slider.addEventListener('change', () => { state.exposure = Number(slider.value); syncHash(); draw(); });
    return el('span', { class: 'group' }, 'exposure ', slider, value);
  }

  function buildToolbar() {
    const image = clampTextureState(state, images);
    const atLevel = images.filter((im) => im.level === state.level);
    const rebuild = (key, v) => { state[key] = Number(v); buildToolbar(); syncHash(); draw(); };
    const levels = uniqueSorted(images.map((im) => im.level));
    const layers = uniqueSorted(atLevel.map((im) => im.layer));
    const faces = uniqueSorted(atLevel.map((im) => im.face));
    const slices = uniqueSorted(atLevel.filter((im) => im.layer === state.layer && im.face === state.face).map((im) => im.slice));
    const levelSize = (l) => { const im = images.find((x) => x.level === l); return im ? `${im.width}×${im.height}` : ''; };
    setChildren(toolbar,
      levels.length > 1 && selectBox('level ', levels.map((l) => [l, `${l} (${levelSize(l)})`]), state.level, (v) => rebuild('level', v)),
      layers.length > 1 && selectBox('layer ', layers.map((l) => [l, String(l)]), state.layer, (v) => rebuild('layer', v)),
      faces.length > 1 && !state.cross && selectBox('face ', faces.map((f) => [f, FACE_NAMES[f] || String(f)]), state.face, (v) => rebuild('face', v)),
      slices.length > 1 && selectBox('slice ', slices.map((s) => [s, String(s)]), state.slice, (v) => rebuild('slice', v)),
      info.faces === 6 && checkbox('cross layout', state.cross, (on) => { state.cross = on; buildToolbar(); syncHash(); draw(); }),
      el('span', { class: 'group' }, 'channel ', buttonGroup(CHANNELS.map((c) => [c, c.toUpperCase()]), state.channel, (c) => { state.channel = c; syncHash(); draw(); })),
      el('span', { class: 'group' }, 'zoom ', buttonGroup([['1', '1x'], ['2', '2x'], ['4', '4x'], ['fit', 'fit']], state.zoom, (z) => { state.zoom = z; syncHash(); applyZoom(); })),
      info.hdr && exposureSlider(),
      el('span', { class: 'muted', text: `swizzle ${info.swizzle || 'rgba'}` }),
      image && el('span', { class: 'muted', text: `${image.width} × ${image.height}` }));
  }

  window.addEventListener('resize', applyZoom);
  ctx.onCleanup(() => window.removeEventListener('resize', applyZoom));
  buildToolbar();
  await draw();
}

/**
 * The texel under a point of the canvas (CSS pixels from its top left):
 * `{face, x, y}` of the image shown, the face found from the cross layout's
 * cell when `crossCell` is set; null off the image.
 */
function texelAt(canvas, state, crossCell, offsetX, offsetY) {
  const px = Math.floor((offsetX * canvas.width) / Math.max(1, canvas.clientWidth));
  const py = Math.floor((offsetY * canvas.height) / Math.max(1, canvas.clientHeight));
  if (px < 0 || py < 0 || px >= canvas.width || py >= canvas.height) return null;
  if (!crossCell) return { face: state.face, x: px, y: py };
  const col = Math.floor(px / crossCell.width);
  const row = Math.floor(py / crossCell.height);
  const cell = CROSS_CELLS.find(([, c, r]) => c === col && r === row);
  return cell ? { face: cell[0], x: px - col * crossCell.width, y: py - row * crossCell.height } : null;
}
