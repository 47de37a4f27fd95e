// The sidebar: totals, pack links and the sortable, filterable asset list.

import { $, el } from './dom.js';
import { fmtBytes, fmtInt } from './format.js';
import { ApiError, apiGet } from './api.js';
import { parseHash } from './hash.js';
import { assetLink } from './widgets.js';

// What the sidebar shows and how.
const list = {
  assets: null,        // /api/assets answer
  assetsPromise: null,
  packsPromise: null,
  sort: { key: 'path', dir: 1 },
  typeFilter: null,
};

/** The asset list's row of `path`, once the list has loaded. */
export function listedFile(path) {
  return list.assets && list.assets.files.find((f) => f.path === path);
}

/** Loads the asset list once and fills the sidebar with it; resolves to /api/assets' answer. */
export function loadAssetList() {
  if (!list.assetsPromise) {
    list.assetsPromise = apiGet('/api/assets').then((data) => {
      list.assets = data;
      renderSidebar(data);
      return data;
    });
    list.assetsPromise.catch((err) => {
      if (!(err instanceof ApiError)) console.error(err);
      $('#source-line').textContent = 'the asset list did not load';
      $('#list-count').replaceChildren(el('span', { class: 'bad', text: err.message }));
    });
  }
  return list.assetsPromise;
}

/** Loads the pack list once and fills the Packs links with it. */
export function loadPackList() {
  if (!list.packsPromise) {
    list.packsPromise = apiGet('/api/packs');
    list.packsPromise.then(renderPackLinks, (err) => {
      $('#pack-links').replaceChildren(el('span', { class: 'bad', title: err.message, text: 'unavailable' }));
    });
  }
  return list.packsPromise;
}

function renderPackLinks(data) {
  const packs = (data && data.packs) || [];
  const links = packs.map((p) => el('a', {
    href: `#pack=${encodeURIComponent(p.name)}`, 'data-pack': p.name, title: `${p.path}, ${fmtBytes(p.bytes)}`, text: p.name,
  }));
  $('#pack-links').replaceChildren(...(links.length ? links : [el('span', { class: 'muted', text: 'none' })]));
  $('#pack-links').classList.remove('muted');
  markNavigation(parseHash());
}

const TOTAL_FIGURES = [
  ['vertices', 'vertices'], ['triangles', 'triangles'], ['meshlets', 'meshlets'], ['submeshes', 'submeshes'],
  ['material_rows', 'material rows'], ['manifest_entries', 'manifest entries'], ['clips', 'clips'],
  ['channels', 'channels'], ['texels', 'texels'], ['glyphs', 'glyphs'],
];

function renderSidebar(data) {
  const totals = data.totals || {};
  const files = data.files || [];
  const parts = [
    el('span', {}, 'source ', el('b', { text: data.source ?? '?' }), data.source_kind ? ` (${data.source_kind})` : ''),
    `${fmtInt(totals.files ?? files.length)} files`,
    fmtBytes(totals.bytes ?? 0),
  ];
  if (totals.invalid) parts.push(el('span', { class: 'bad', text: `${fmtInt(totals.invalid)} invalid` }));
  for (const [key, label] of TOTAL_FIGURES) {
    if (totals[key]) parts.push(`${fmtInt(totals[key])} ${label}`);
  }
  // Each figure stays whole on one line; the line wraps between figures.
  const line = $('#source-line');
  line.replaceChildren();
  parts.forEach((part, i) => {
    if (i) line.append(el('span', { class: 'sep', text: ' · ' }));
    line.append(el('span', { class: 'stat' }, part));
  });
  renderTotals(totals.by_type || {});
  renderAssetRows();
}

function renderTotals(byType) {
  const table = $('#totals');
  const rows = Object.entries(byType).sort((a, b) => (b[1].bytes || 0) - (a[1].bytes || 0));
  table.replaceChildren(
    el('thead', {}, el('tr', {}, el('th', { text: 'type' }), el('th', { class: 'num', text: 'files' }), el('th', { class: 'num', text: 'bytes' }))),
    el('tbody', {}, rows.map(([type, t]) => el('tr', {
      class: `clickable${list.typeFilter === type ? ' current' : ''}`,
      title: `show only ${type} files (click again for all)`,
      onclick: () => { list.typeFilter = list.typeFilter === type ? null : type; renderTotals(byType); renderAssetRows(); },
    }, el('td', {}, el('span', { class: `type type-${type}`, text: type })),
    el('td', { class: 'num', text: fmtInt(t.files) }),
    el('td', { class: 'num', title: `${fmtInt(t.bytes)} bytes`, text: fmtBytes(t.bytes) })))),
  );
}

function compareAssets(a, b, key) {
  if (key === 'bytes') return (a.bytes || 0) - (b.bytes || 0);
  const x = a[key] ?? '';
  const y = b[key] ?? '';
  if (x === y) return a.path < b.path ? -1 : 1;
  if (x === '') return 1;  // empty values last
  if (y === '') return -1;
  return x < y ? -1 : 1;
}

function visibleAssets() {
  const files = (list.assets && list.assets.files) || [];
  const needle = $('#search').value.trim().toLowerCase();
  const { key, dir } = list.sort;
  return files
    .filter((f) => (!needle || f.path.toLowerCase().includes(needle)) && (!list.typeFilter || f.type === list.typeFilter))
    .sort((a, b) => dir * compareAssets(a, b, key));
}

/** An asset id cut in the middle, `0xa725…3416`: the full id is the cell's title. */
function shortId(id) {
  return id && id.length > 12 ? `${id.slice(0, 6)}…${id.slice(-4)}` : id || '';
}

function renderAssetRows() {
  if (!list.assets) return;
  const current = parseHash().asset;
  const rows = visibleAssets().map((f) => el('tr', {
    class: f.path === current ? 'current' : null,
    'data-path': f.path,
    title: f.type === 'invalid' ? `${f.path}\n${f.error || ''}` : f.path,
    onclick: (e) => { if (e.target.tagName !== 'A') location.hash = `asset=${encodeURIComponent(f.path)}`; },
  },
  el('td', { class: 'path' }, assetLink(f.path)),
  el('td', {}, el('span', { class: `type type-${f.type}`, text: f.type })),
  el('td', { class: 'kind', text: f.kind || '' }),
  el('td', { class: 'num', title: `${fmtInt(f.bytes)} bytes`, text: fmtBytes(f.bytes) }),
  el('td', { class: 'id', title: f.id || '', text: shortId(f.id) })));
  $('#assets tbody').replaceChildren(...rows);
  const total = list.assets.files.length;
  $('#list-count').textContent = rows.length === total ? `${total} files` : `${rows.length} of ${total}`;
  for (const th of document.querySelectorAll('#assets th')) {
    th.classList.toggle('sorted', th.dataset.sort === list.sort.key);
    th.dataset.dir = list.sort.dir > 0 ? 'asc' : 'desc';
  }
}

/** Highlights the current asset row and navigation link. */
export function markNavigation(params) {
  for (const row of document.querySelectorAll('#assets tbody tr')) {
    const on = row.dataset.path === params.asset;
    row.classList.toggle('current', on);
    if (on) row.scrollIntoView({ block: 'nearest' });
  }
  const active = 'asset' in params ? null : 'pack' in params ? 'pack' : 'check' in params ? 'check' : 'list';
  for (const a of document.querySelectorAll('#nav a')) {
    const on = a.dataset.nav === active || (active === 'pack' && a.dataset.pack === params.pack);
    a.classList.toggle('active', on);
  }
}

/** Wires the sidebar's search box and sortable headers. */
export function setupSidebar() {
  $('#search').addEventListener('input', renderAssetRows);
  for (const th of document.querySelectorAll('#assets th')) {
    th.addEventListener('click', () => {
      const key = th.dataset.sort;
      list.sort = { key, dir: list.sort.key === key ? -list.sort.dir : 1 };
      renderAssetRows();
    });
  }
}

/** Loads the asset list again (live refresh: the watcher rebuilt files). */
export function reloadAssetList() {
  list.assetsPromise = null;
  return loadAssetList().then(() => markNavigation(parseHash()), () => {});
}
