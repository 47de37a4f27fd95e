// Pieces shared by the views: heading, figure tables, links, toggles, selects,
// button groups, sortable tables, colour swatches.

import { el } from './dom.js';
import { clamp } from './maths.js';
import { fmtBytes, fmtInt } from './format.js';
import { linearToCss } from './colour.js';

/** Names up to this long are never broken inside, not even at a `-` or `_`. */
const SHORT_NAME = 16;

/**
 * A runtime path as text that may wrap only after a `/` or, inside a name
 * longer than SHORT_NAME, after a `-` or `_`: never in the middle of a word
 * nor between a name and its suffixes (`bumps.ao.ktx2` stays whole), so a
 * narrow column shows every part of the file name.
 */
export function pathText(path) {
  const names = String(path).match(/[^/]*\/|[^/]+/g) || [''];
  const pieces = names.flatMap((name) => (name.length > SHORT_NAME ? name.match(/[^\-_]*[\-_]|[^\-_]+/g) : [name]));
  return pieces.flatMap((piece, i) => [i ? el('wbr') : null, el('span', { class: 'nobreak', text: piece })]);
}

/** The heading line of an asset view: path, type, size, id. */
export function assetHead(path, file) {
  return el('div', { class: 'asset-head' },
    el('h2', {}, pathText(path)),
    file && el('span', { class: `type type-${file.type}`, text: file.type }),
    file && el('span', { class: 'muted', title: `${fmtInt(file.bytes)} bytes`, text: fmtBytes(file.bytes) }),
    file && file.id && el('code', { class: 'muted', text: file.id }));
}

/**
 * A two-column table of label/value pairs; pairs with an undefined value are
 * skipped. Text values are kept whole, except that a path may wrap after a `/`.
 */
export function figureTable(pairs, className = 'figures') {
  const shown = (value) => (typeof value === 'string' && value.includes('/') ? pathText(value) : value ?? '—');
  return el('table', { class: className }, el('tbody', {}, pairs
    .filter(([, value]) => value !== undefined)
    .map(([label, value]) => el('tr', {}, el('th', { text: label }), el('td', {}, shown(value))))));
}

/** A link that opens an asset's view (its text, the path by default, wraps only after a `/`). */
export function assetLink(path, text) {
  return el('a', { href: `#asset=${encodeURIComponent(path)}` }, pathText(text ?? path));
}

/** A labelled checkbox calling onchange(checked). */
export function checkbox(label, checked, onchange, disabled = false, title = null) {
  const input = el('input', { type: 'checkbox', checked, disabled, onchange: () => onchange(input.checked) });
  return el('label', { class: `toggle${disabled ? ' disabled' : ''}`, title }, input, label);
}

/** A labelled select of [value, text] options calling onchange(value). */
export function selectBox(label, options, value, onchange, title = null) {
  const select = el('select', { onchange: () => onchange(select.value) },
    options.map(([v, text]) => el('option', { value: String(v), text, selected: String(v) === String(value) })));
  return el('label', { class: 'select', title }, label, select);
}

/** A row of toggle buttons, one on at a time, calling onchange(value). */
export function buttonGroup(choices, value, onchange) {
  const group = el('span', { class: 'buttons' });
  for (const [v, text] of choices) {
    group.append(el('button', {
      type: 'button', class: v === value ? 'on' : null, 'data-value': v, text,
      onclick: () => {
        for (const b of group.children) b.classList.toggle('on', b.dataset.value === v);
        onchange(v);
      },
    }));
  }
  return group;
}

/** A table with clickable headers that sort its rows. columns: [{label, key, num, render}]. */
export function sortableTable(columns, rows, initialKey) {
  let sortKey = initialKey || columns[0].key;
  let dir = 1;
  const tbody = el('tbody');
  const headCells = columns.map((c) => el('th', {
    class: c.num ? 'num' : null, text: c.label,
    onclick: () => { dir = sortKey === c.key ? -dir : 1; sortKey = c.key; fill(); },
  }));
  function fill() {
    const sorted = [...rows].sort((a, b) => {
      const x = a[sortKey];
      const y = b[sortKey];
      return dir * (typeof x === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? '')));
    });
    tbody.replaceChildren(...sorted.map((r) => el('tr', {}, columns.map((c) => el('td', { class: c.num ? 'num' : null }, c.render ? c.render(r) : String(r[c.key] ?? ''))))));
    headCells.forEach((th, i) => th.classList.toggle('sorted', columns[i].key === sortKey));
  }
  fill();
  return el('table', { class: 'grid' }, el('thead', {}, el('tr', {}, headCells)), tbody);
}

/** A colour swatch of a linear RGB(A) factor over a checkerboard. */
export function swatch(rgb, title) {
  return el('span', { class: 'swatch checker', title }, el('i', { style: { background: linearToCss(rgb), opacity: rgb.length > 3 ? clamp(rgb[3], 0, 1) : 1 } }));
}

