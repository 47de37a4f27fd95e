// The pack view: byte layout, payload by kind, entries.

import { afterPaint, el } from './dom.js';
import { fmtBytes, fmtInt } from './format.js';
import { distinctColour, linearToCss } from './colour.js';
import { apiGet } from './api.js';
import { loadPackList } from './sidebar.js';
import { assetLink, selectBox, sortableTable } from './widgets.js';

const SEGMENT_COLOURS = { header: '#d08770', toc: '#ebcb8b', payload: '#5e81ac', padding: '#4c566a' };

/** A horizontal bar: segments [{label, bytes, colour}], each at least minShare wide. */
function byteBar(segments, minShare = 0.05) {
  const shown = segments.filter((s) => s.bytes > 0);
  const total = shown.reduce((sum, s) => sum + s.bytes, 0) || 1;
  const widths = shown.map((s) => Math.max(s.bytes / total, minShare));
  const scale = widths.reduce((a, b) => a + b, 0);
  // A narrow segment's label is cut on purpose: the legend and the title give it whole.
  return el('div', { class: 'bar', 'data-clips': '' }, shown.map((s, i) => el('div', {
    class: 'segment',
    style: { width: `${(100 * widths[i]) / scale}%`, background: s.colour },
    title: `${s.label}: ${fmtInt(s.bytes)} bytes (${((100 * s.bytes) / total).toFixed(2)}%)`,
  }, el('span', { text: `${s.label} ${fmtBytes(s.bytes)}` }))));
}

/** The pack view: byte layout bar, payload by kind, and the sortable entry table. */
export async function showPack(ctx, name) {
  ctx.begin('pack');
  const packs = await loadPackList().catch(() => null);
  const info = await apiGet('/api/pack', { name });
  if (!ctx.alive()) return;
  const choices = ((packs && packs.packs) || []).map((p) => [p.name, `${p.name} (${p.path})`]);
  ctx.root.append(el('div', { class: 'asset-head' }, el('h2', { text: `Pack ${info.pack || name}` }),
    el('span', { class: 'muted', text: `version ${info.version ?? '?'}` }),
    choices.length > 1 && selectBox('pack ', choices, name, (v) => { location.hash = `pack=${encodeURIComponent(v)}`; })));

  const layout = info.layout || {};
  const parts = ['header', 'toc', 'payload', 'padding'].map((k) => ({ label: k, bytes: layout[k] || 0, colour: SEGMENT_COLOURS[k] }));
  const sum = parts.reduce((s, p) => s + p.bytes, 0);
  const kinds = Object.entries(info.kinds || {}).sort((a, b) => (b[1].bytes || 0) - (a[1].bytes || 0));
  const kindSegments = kinds.map(([kind, k], i) => ({ label: kind, bytes: k.bytes || 0, colour: linearToCss(distinctColour(i + 2)) }));
  const payloadBytes = kindSegments.reduce((s, k) => s + k.bytes, 0);

  ctx.root.append(el('section', { class: 'panel' },
    el('h3', {}, `File layout: ${fmtInt(layout.file ?? sum)} bytes`,
      layout.file != null && layout.file !== sum ? el('span', { class: 'bad', text: ` (parts add up to ${fmtInt(sum)})` }) : ''),
    byteBar(parts),
    el('div', { class: 'legend' }, parts.map((p) => el('span', {}, el('i', { style: { background: p.colour } }), `${p.label} ${fmtInt(p.bytes)} B`))),
    el('h3', { text: `Payload by kind: ${fmtInt(payloadBytes)} bytes` }),
    byteBar(kindSegments, 0.03),
    el('table', { class: 'grid kinds' },
      el('thead', {}, el('tr', {}, ['kind', 'entries', 'bytes', 'share'].map((h, i) => el('th', { class: i ? 'num' : null, text: h })))),
      el('tbody', {}, kinds.map(([kind, k], i) => el('tr', {},
        el('td', {}, el('i', { class: 'chip', style: { background: kindSegments[i].colour } }), kind),
        el('td', { class: 'num', text: fmtInt(k.entries) }),
        el('td', { class: 'num', text: fmtInt(k.bytes) }),
        el('td', { class: 'num', text: payloadBytes ? `${((100 * k.bytes) / payloadBytes).toFixed(1)}%` : '' })))))));

  const entries = info.entries || [];
  ctx.root.append(el('section', { class: 'panel' },
    el('h3', { text: `Entries (${entries.length})` }),
    sortableTable([
      { label: 'path', key: 'path', render: (r) => assetLink(r.path) },
      { label: 'kind', key: 'kind' },
      { label: 'size', key: 'size', num: true, render: (r) => fmtInt(r.size) },
      { label: 'offset', key: 'offset', num: true, render: (r) => fmtInt(r.offset) },
    ], entries, 'offset')));
  await afterPaint();
  ctx.ready();
}
