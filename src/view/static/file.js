// The generic file view: the figures of a file with no view of its own.

import { afterPaint, el } from './dom.js';
import { fmtBytes, fmtInt, fmtNum } from './format.js';
import { ApiError } from './api.js';
import { figureTable } from './widgets.js';

/** A figure value rendered for the generic table: nested objects become small tables. */
function figureValue(key, value) {
  if (key === 'bytes' && typeof value === 'number') return value < 1024 ? `${value} bytes` : `${fmtInt(value)} (${fmtBytes(value)})`;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) return value.map((v) => fmtNum(v)).join(', ');
    return el('div', {}, value.map((v) => (typeof v === 'object' && v ? figureTable(Object.entries(v).map(([k, x]) => [k, figureValue(k, x)]), 'figures nested') : String(v))));
  }
  if (value && typeof value === 'object') return figureTable(Object.entries(value).map(([k, v]) => [k, figureValue(k, v)]), 'figures nested');
  if (typeof value === 'number') return fmtNum(value, 6);
  return String(value ?? '—');
}

/** The generic view: every figure of the file as a table. */
export async function showFile(ctx, path, file) {
  if (file.type === 'invalid') {
    ctx.fail(new ApiError(file.error || `${path} does not parse`, 422));
  }
  const pairs = Object.entries(file).filter(([k]) => k !== 'path').map(([k, v]) => [k, figureValue(k, v)]);
  ctx.root.append(el('section', { class: 'panel' }, el('h3', { text: 'Figures' }), figureTable(pairs)));
  if (file.type === 'invalid') return;
  await afterPaint();
  ctx.ready();
}
