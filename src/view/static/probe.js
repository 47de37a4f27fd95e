// The texel probe of the texture view: the value and coordinates of the
// texel under the cursor, as the format stores it (floats for HDR, 0–255 or
// 0–65535 for UNORM), and the range of each channel over the image shown.
// The values come from the server (/api/texture/texel and /range), decoded
// from the file, not read back from the tone-mapped PNG on screen.

import { el } from './dom.js';
import { fmtNum } from './format.js';
import { apiGet } from './api.js';

const CHANNEL_NAMES = ['R', 'G', 'B', 'A'];
/** The cube faces in KTX2's order, as the texture view and the probe name them. */
export const FACE_NAMES = ['+X', '−X', '+Y', '−Y', '+Z', '−Z'];

/** A stored value as text: floats with six significant digits, UNORM integers with their fraction of full scale. */
function valueText(value, encoding) {
  if (typeof value !== 'number') return String(value); // NaN, inf
  if (encoding === 'float') return fmtNum(value, 6);
  const full = encoding === 'unorm16' ? 65535 : 255;
  return `${value} (${fmtNum(value / full, 3)})`;
}

/** The stored channels of an answer as `R v  G v …`. */
function channelsText(values, answer) {
  return values.slice(0, answer.channels || 4)
    .map((v, c) => `${CHANNEL_NAMES[c]} ${valueText(v, answer.encoding)}`).join('  ');
}

/**
 * The probe of one texture view. `texelAt(offsetX, offsetY)` maps a point
 * of the canvas (CSS pixels) to `{face, x, y}` of the shown image, or null.
 * Returns {element, show(image, state)}: the readout, and what to call
 * when the view draws another image.
 */
export function texelProbe(path, canvas, texelAt) {
  const position = el('div', { class: 'probe-texel', text: 'texel: move the cursor over the image' });
  const range = el('div', { class: 'probe-range muted' });
  const element = el('div', { class: 'probe' }, position, range);
  let shown = null; // {image, state} on screen
  let pending = null; // the latest texel asked while a request runs
  let busy = false;

  const query = (face, x, y) => ({
    path, level: shown.state.level, layer: shown.state.layer, face, slice: shown.state.slice, x, y,
  });

  async function probe(face, x, y) {
    if (busy) { pending = [face, x, y]; return; }
    busy = true;
    try {
      const texel = await apiGet('/api/texture/texel', query(face, x, y));
      position.textContent = `x ${texel.x}, y ${texel.y}, level ${texel.level}`
        + `${shown.faces > 1 ? `, face ${FACE_NAMES[texel.face]}` : ''}${shown.layers > 1 ? `, layer ${texel.layer}` : ''}`
        + `${shown.depth > 1 ? `, slice ${texel.slice}` : ''}: ${channelsText(texel.value, texel)}`;
      document.body.dataset.probe = [texel.x, texel.y, texel.level, texel.layer, texel.face, texel.slice].join(',')
        + `:${texel.value.join(',')}`;
    } catch (err) {
      position.textContent = `texel: ${err.message}`;
    } finally {
      busy = false;
      if (pending) { const next = pending; pending = null; probe(...next); }
    }
  }

  canvas.addEventListener('mousemove', (e) => {
    if (!shown) return;
    const at = texelAt(e.offsetX, e.offsetY);
    if (at) probe(at.face, at.x, at.y);
  });

  /** Shows the range of the image `state` selects, and probes `probeAt` ([x, y]) when given. */
  async function show(state, info, probeAt) {
    shown = { state: { ...state }, faces: info.faces, layers: info.layers, depth: info.depth };
    const answer = await apiGet('/api/texture/range', {
      path, level: state.level, layer: state.layer, face: state.face, slice: state.slice,
    });
    const lows = answer.min.slice(0, answer.channels);
    const highs = answer.max.slice(0, answer.channels);
    range.textContent = `range of this image: ${lows.map((low, c) => `${CHANNEL_NAMES[c]} ${valueText(low, answer.encoding)} to ${valueText(highs[c], answer.encoding)}`).join(', ')}`;
    document.body.dataset.range = `${answer.min.join(',')};${answer.max.join(',')}`;
    if (probeAt) await probe(state.face, probeAt[0], probeAt[1]);
  }

  return { element, show };
}

/** The `probe=x,y` hash parameter as [x, y], or null. */
export function probeParam(text) {
  const v = String(text || '').split(',').map(Number);
  return v.length === 2 && v.every((n) => Number.isInteger(n) && n >= 0) ? v : null;
}
