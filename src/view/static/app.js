// assetc view: the browser side of the local asset inspector.
// Plain ES2020, no build step. The server embeds this file and answers the
// same-origin /api/* requests used below.
'use strict';

// ===========================================================================
// Client error reporting: every unexpected error goes to the server's log.
// ===========================================================================

function postClientLog(text) {
  try {
    fetch('/api/client-log', {
      method: 'POST',
      body: String(text).slice(0, 16000),
      headers: { 'Content-Type': 'text/plain' },
      keepalive: true,
    }).catch(() => {});
  } catch (_) {
    // The logger itself must never throw.
  }
}

function describe(value) {
  if (value instanceof Error) return value.stack || `${value.name}: ${value.message}`;
  if (typeof value === 'string') return value;
  try { return JSON.stringify(value); } catch (_) { return String(value); }
}

window.addEventListener('error', (event) => {
  const where = event.filename ? ` (${event.filename}:${event.lineno}:${event.colno})` : '';
  const what = event.error ? describe(event.error) : event.message;
  postClientLog(`uncaught error: ${what}${where}`);
});

window.addEventListener('unhandledrejection', (event) => {
  postClientLog(`unhandled rejection: ${describe(event.reason)}`);
});

const originalConsoleError = console.error.bind(console);
console.error = (...args) => {
  postClientLog(`console.error: ${args.map(describe).join(' ')}`);
  originalConsoleError(...args);
};

// ===========================================================================
// Small helpers: DOM, numbers, base64.
// ===========================================================================

const PROPERTY_ATTRS = new Set(['checked', 'value', 'selected', 'disabled', 'width', 'height']);

/** Creates an element: el('a', {href: '#', class: 'x', onclick: f}, 'text', child). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (PROPERTY_ATTRS.has(key)) node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  appendChildren(node, children);
  return node;
}

/** Replaces a node's children, skipping null/false like el() does. */
function setChildren(node, ...children) {
  node.replaceChildren();
  appendChildren(node, children);
}

function appendChildren(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
}

const $ = (selector, root = document) => root.querySelector(selector);

function fmtInt(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n ?? '');
}

function fmtBytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${units[unit]}`;
}

function fmtNum(x, digits = 4) {
  if (typeof x !== 'number') return String(x ?? '');
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(digits)));
}

const fmtVec = (v, digits = 4) => (Array.isArray(v) ? `[${v.map((x) => fmtNum(x, digits)).join(', ')}]` : '');

const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

function parseIntParam(text, lo, hi, fallback) {
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? clamp(n, lo, hi) : fallback;
}

function b64Bytes(text) {
  if (!text) return new Uint8Array(0);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Little-endian typed views over a fresh (so aligned) buffer.
const b64F32 = (t) => { const b = b64Bytes(t); return new Float32Array(b.buffer, 0, b.length >> 2); };
const b64U32 = (t) => { const b = b64Bytes(t); return new Uint32Array(b.buffer, 0, b.length >> 2); };
const b64U16 = (t) => { const b = b64Bytes(t); return new Uint16Array(b.buffer, 0, b.length >> 1); };

/** Linear 0..1 to an sRGB CSS colour, for swatches of material factors. */
function linearToCss(rgb) {
  const encode = (c) => {
    const x = clamp(c, 0, 1);
    return Math.round(255 * (x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055));
  };
  return `rgb(${encode(rgb[0])}, ${encode(rgb[1])}, ${encode(rgb[2])})`;
}

/** A distinct, stable colour for item i (golden-ratio hue walk), as [r, g, b] in 0..1. */
function distinctColour(i) {
  const hue = (i * 0.618033988749895) % 1;
  const s = 0.65;
  const l = 0.55 + 0.1 * ((i >> 3) % 2);
  const k = (n) => (n + hue * 12) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return [f(0), f(8), f(4)];
}

// ===========================================================================
// Talking to the server.
// ===========================================================================

/** An error answered by the server (or a failed request): shown, never logged. */
class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

function apiUrl(path, params) {
  if (!params) return path;
  const query = Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return `${path}?${query}`;
}

async function errorText(response, url) {
  const body = await response.text().catch(() => '');
  try {
    const json = JSON.parse(body);
    if (json && typeof json.error === 'string') return json.error;
  } catch (_) {
    // Not JSON: fall through to the raw text.
  }
  return `${url}: HTTP ${response.status} ${body.slice(0, 300)}`.trim();
}

async function apiFetch(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new ApiError(`${url}: the server did not answer (${err.message})`, 0);
  }
  if (!response.ok) throw new ApiError(await errorText(response, url), response.status);
  return response;
}

async function apiGet(path, params) {
  const url = apiUrl(path, params);
  const response = await apiFetch(url);
  try {
    return await response.json();
  } catch (err) {
    throw new ApiError(`${url}: the answer is not JSON (${err.message})`, response.status);
  }
}

function textureImageUrl(path, level = 0, layer = 0, face = 0, slice = 0) {
  return apiUrl('/api/texture/image', { path, level, layer, face, slice });
}

// Decoded images, shared by every view, keyed by URL.
const imageCache = new Map();

function loadImage(url) {
  if (!imageCache.has(url)) {
    const promise = fetchImage(url);
    promise.catch(() => imageCache.delete(url)); // let a later attempt retry
    imageCache.set(url, promise);
  }
  return imageCache.get(url);
}

// Waits for `load` rather than img.decode(): headless Chromium on a virtual
// time budget does not wait for the decoder, but does wait for a load.
// Drawing the image later decodes it synchronously.
async function fetchImage(url) {
  const response = await apiFetch(url);
  const objectUrl = URL.createObjectURL(await response.blob());
  try {
    const img = new Image();
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new ApiError(`${url}: the image does not decode`, response.status));
      img.src = objectUrl;
    });
    return img;
  } finally {
    URL.revokeObjectURL(objectUrl);
  }
}

// --- Exact texels of an image --------------------------------------------
// A 2D canvas stores premultiplied alpha, which loses the colour of
// transparent texels. Uploading to a WebGL texture without premultiplying
// and reading it back gives the bytes the server sent.

let texelReader;

function createTexelReader() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const gl = canvas.getContext('webgl2');
  if (!gl) return null;
  const texture = gl.createTexture();
  const framebuffer = gl.createFramebuffer();
  return (img, width, height) => {
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
    const out = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, out);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    if (gl.getError() !== gl.NO_ERROR) return null;
    // Row 0 of the texture is the top row of the image, so no flip is needed.
    return new Uint8ClampedArray(out.buffer);
  };
}

function readTexelsWith2d(img, width, height) {
  const canvas = el('canvas', { width, height });
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(img, 0, 0);
  return ctx.getImageData(0, 0, width, height).data;
}

/** {width, height, data: RGBA8 Uint8ClampedArray, top row first} of an image. */
function readTexels(img) {
  const width = img.naturalWidth;
  const height = img.naturalHeight;
  let data = null;
  try {
    if (texelReader === undefined) texelReader = createTexelReader();
    if (texelReader) data = texelReader(img, width, height);
  } catch (_) {
    data = null; // fall back to the 2D canvas below
  }
  return { width, height, data: data || readTexelsWith2d(img, width, height) };
}

const texelCache = new Map();

async function loadTexels(url) {
  if (!texelCache.has(url)) texelCache.set(url, readTexels(await loadImage(url)));
  return texelCache.get(url);
}

/** A canvas holding the texels (alpha kept unless opaque is set). */
function texelsToCanvas(texels, opaque = false) {
  const canvas = el('canvas', { width: texels.width, height: texels.height });
  const data = new Uint8ClampedArray(texels.data);
  if (opaque) for (let i = 3; i < data.length; i += 4) data[i] = 255;
  canvas.getContext('2d').putImageData(new ImageData(data, texels.width, texels.height), 0, 0);
  return canvas;
}

// ===========================================================================
// Hash routing: #asset=PATH&opt=..., #pack=NAME, #check.
// ===========================================================================

const PRIMARY_KEYS = ['asset', 'pack', 'check'];

function decodeParam(text) {
  try { return decodeURIComponent(text); } catch (_) { return text; }
}

function parseHash() {
  const params = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = decodeParam(eq < 0 ? part : part.slice(0, eq));
    let raw = eq < 0 ? '' : part.slice(eq + 1);
    if (key === 'text') raw = raw.replace(/\+/g, ' '); // form-style spaces in preview text
    params[key] = decodeParam(raw);
  }
  return params;
}

function buildHash(params) {
  const keys = Object.keys(params).sort((a, b) => {
    const ia = PRIMARY_KEYS.indexOf(a);
    const ib = PRIMARY_KEYS.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  const parts = [];
  for (const key of keys) {
    const value = params[key];
    if (value == null || value === false) continue;
    parts.push(value === '' || value === true ? key : `${key}=${encodeURIComponent(value)}`);
  }
  return parts.length ? `#${parts.join('&')}` : '';
}

/** Merges changes into the hash without reloading the view (null removes a key). */
function updateHash(changes) {
  const params = { ...parseHash(), ...changes };
  const hash = buildHash(params);
  history.replaceState(null, '', hash || `${location.pathname}${location.search}`);
}

const app = {
  seq: 0,              // increases with every route; stale async work checks it
  cleanups: [],        // teardown of the current view
  assets: null,        // /api/assets answer
  assetsPromise: null,
  packsPromise: null,
  sort: { key: 'path', dir: 1 },
  typeFilter: null,
};

/** Per-view context: the view's root element, its params and its state helpers. */
function makeContext(seq, root, params) {
  const body = document.body;
  const ctx = {
    root,
    params,
    alive: () => seq === app.seq,
    begin(view) {
      if (!ctx.alive()) return;
      body.dataset.view = view;
      body.dataset.state = 'loading';
    },
    loading() { if (ctx.alive()) body.dataset.state = 'loading'; },
    ready() {
      if (!ctx.alive()) return;
      markMainCanvas(root);
      body.dataset.state = 'ready';
    },
    fail(err) {
      if (!(err instanceof ApiError)) console.error(err);
      if (!ctx.alive()) return;
      showError(root, err);
      body.dataset.state = 'failed';
    },
    onCleanup(fn) { app.cleanups.push(fn); },
  };
  return ctx;
}

/**
 * Records where the view's main canvas (mesh, texture or text preview) sits
 * on the page, as `data-canvas="x,y,width,height"` in CSS pixels, so a test
 * can find it in a screenshot.
 */
function markMainCanvas(root) {
  const canvas = root.querySelector('canvas.gl, canvas.texture-canvas, canvas.preview');
  if (!canvas) {
    delete document.body.dataset.canvas;
    return;
  }
  const r = canvas.getBoundingClientRect();
  document.body.dataset.canvas = [r.left, r.top, r.width, r.height].map(Math.round).join(',');
}

function runCleanups() {
  for (const fn of app.cleanups.splice(0)) {
    try { fn(); } catch (err) { console.error(err); }
  }
}

async function route() {
  const seq = ++app.seq;
  runCleanups();
  const params = parseHash();
  const root = $('#view');
  root.replaceChildren();
  root.scrollTop = 0;
  const ctx = makeContext(seq, root, params);
  markNavigation(params);
  try {
    if ('asset' in params) await openAsset(ctx, params.asset);
    else if ('pack' in params) await showPack(ctx, params.pack);
    else if ('check' in params) await showCheck(ctx);
    else await showList(ctx);
  } catch (err) {
    ctx.fail(err);
  }
}

function showError(root, err) {
  const message = err instanceof Error ? err.message : String(err);
  const box = el('div', { class: 'error-box', role: 'alert' },
    el('strong', { text: err instanceof ApiError ? 'Error from the server' : 'Error in the page' }),
    el('pre', { text: message }));
  const head = $('.asset-head', root);
  if (head) head.after(box); else root.prepend(box);
}

function clearErrors(root) {
  for (const box of root.querySelectorAll('.error-box')) box.remove();
}

// ===========================================================================
// Sidebar: totals, packs, asset list.
// ===========================================================================

function loadAssetList() {
  if (!app.assetsPromise) {
    app.assetsPromise = apiGet('/api/assets').then((data) => {
      app.assets = data;
      renderSidebar(data);
      return data;
    });
    app.assetsPromise.catch((err) => {
      if (!(err instanceof ApiError)) console.error(err);
      $('#source-line').textContent = 'the asset list did not load';
      $('#list-count').replaceChildren(el('span', { class: 'bad', text: err.message }));
    });
  }
  return app.assetsPromise;
}

function loadPackList() {
  if (!app.packsPromise) {
    app.packsPromise = apiGet('/api/packs');
    app.packsPromise.then(renderPackLinks, (err) => {
      $('#pack-links').replaceChildren(el('span', { class: 'bad', title: err.message, text: 'unavailable' }));
    });
  }
  return app.packsPromise;
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
  const line = $('#source-line');
  line.replaceChildren();
  parts.forEach((part, i) => { if (i) line.append(el('span', { class: 'sep', text: ' · ' })); line.append(part); });
  renderTotals(totals.by_type || {});
  renderAssetRows();
}

function renderTotals(byType) {
  const table = $('#totals');
  const rows = Object.entries(byType).sort((a, b) => (b[1].bytes || 0) - (a[1].bytes || 0));
  table.replaceChildren(
    el('thead', {}, el('tr', {}, el('th', { text: 'type' }), el('th', { class: 'num', text: 'files' }), el('th', { class: 'num', text: 'bytes' }))),
    el('tbody', {}, rows.map(([type, t]) => el('tr', {
      class: `clickable${app.typeFilter === type ? ' current' : ''}`,
      title: `show only ${type} files (click again for all)`,
      onclick: () => { app.typeFilter = app.typeFilter === type ? null : type; renderTotals(byType); renderAssetRows(); },
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
  const files = (app.assets && app.assets.files) || [];
  const needle = $('#search').value.trim().toLowerCase();
  const { key, dir } = app.sort;
  return files
    .filter((f) => (!needle || f.path.toLowerCase().includes(needle)) && (!app.typeFilter || f.type === app.typeFilter))
    .sort((a, b) => dir * compareAssets(a, b, key));
}

/** A path as text nodes with a line-break opportunity after each slash. */
function pathWithBreaks(path) {
  const parts = path.split('/');
  return parts.flatMap((part, i) => (i < parts.length - 1 ? [`${part}/`, el('wbr')] : [part]));
}

function renderAssetRows() {
  if (!app.assets) return;
  const current = parseHash().asset;
  const rows = visibleAssets().map((f) => el('tr', {
    class: f.path === current ? 'current' : null,
    'data-path': f.path,
    title: f.type === 'invalid' ? `${f.path}\n${f.error || ''}` : f.path,
    onclick: (e) => { if (e.target.tagName !== 'A') location.hash = `asset=${encodeURIComponent(f.path)}`; },
  },
  el('td', { class: 'path' }, el('a', { href: `#asset=${encodeURIComponent(f.path)}` }, pathWithBreaks(f.path))),
  el('td', {}, el('span', { class: `type type-${f.type}`, text: f.type })),
  el('td', { title: f.kind || '', text: f.kind || '' }),
  el('td', { class: 'num', title: `${fmtInt(f.bytes)} bytes`, text: fmtBytes(f.bytes) }),
  el('td', { class: 'id', title: f.id || '', text: f.id || '' })));
  $('#assets tbody').replaceChildren(...rows);
  const total = app.assets.files.length;
  $('#list-count').textContent = rows.length === total ? `${total} files` : `${rows.length} of ${total}`;
  for (const th of document.querySelectorAll('#assets th')) {
    th.classList.toggle('sorted', th.dataset.sort === app.sort.key);
    th.dataset.dir = app.sort.dir > 0 ? 'asc' : 'desc';
  }
}

function markNavigation(params) {
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

function setupSidebar() {
  $('#search').addEventListener('input', renderAssetRows);
  for (const th of document.querySelectorAll('#assets th')) {
    th.addEventListener('click', () => {
      const key = th.dataset.sort;
      app.sort = { key, dir: app.sort.key === key ? -app.sort.dir : 1 };
      renderAssetRows();
    });
  }
}

// ===========================================================================
// Shared view pieces.
// ===========================================================================

/** The heading line of an asset view: path, type, size, id. */
function assetHead(path, file) {
  return el('div', { class: 'asset-head' },
    el('h2', { text: path }),
    file && el('span', { class: `type type-${file.type}`, text: file.type }),
    file && el('span', { class: 'muted', title: `${fmtInt(file.bytes)} bytes`, text: fmtBytes(file.bytes) }),
    file && file.id && el('code', { class: 'muted', text: file.id }));
}

/** A two-column table of label/value pairs; pairs with an undefined value are skipped. */
function figureTable(pairs, className = 'figures') {
  return el('table', { class: className }, el('tbody', {}, pairs
    .filter(([, value]) => value !== undefined)
    .map(([label, value]) => el('tr', {}, el('th', { text: label }), el('td', {}, value ?? '—')))));
}

function assetLink(path, text) {
  return el('a', { href: `#asset=${encodeURIComponent(path)}`, text: text ?? path });
}

function checkbox(label, checked, onchange, disabled = false, title = null) {
  const input = el('input', { type: 'checkbox', checked, disabled, onchange: () => onchange(input.checked) });
  return el('label', { class: `toggle${disabled ? ' disabled' : ''}`, title }, input, label);
}

function selectBox(label, options, value, onchange, title = null) {
  const select = el('select', { onchange: () => onchange(select.value) },
    options.map(([v, text]) => el('option', { value: String(v), text, selected: String(v) === String(value) })));
  return el('label', { class: 'select', title }, label, select);
}

function buttonGroup(choices, value, onchange) {
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
function sortableTable(columns, rows, initialKey) {
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

/**
 * Calls fn once, on the next animation frame or after 40 ms, whichever comes
 * first: headless browsers on virtual time run very few animation frames.
 * Returns a function that cancels the call.
 */
function nextFrame(fn) {
  let done = false;
  const cancel = () => { done = true; cancelAnimationFrame(raf); clearTimeout(timer); };
  const run = () => { if (!done) { cancel(); fn(); } };
  const raf = requestAnimationFrame(run);
  const timer = setTimeout(run, 40);
  return cancel;
}

/** Resolves after two frames, so what was just drawn is on screen. */
function afterPaint() {
  return new Promise((resolve) => nextFrame(() => nextFrame(resolve)));
}

// ===========================================================================
// List, check and generic file views.
// ===========================================================================

async function showList(ctx) {
  ctx.begin('list');
  ctx.root.append(el('div', { class: 'placeholder' }, el('p', { text: 'Loading the asset list…' })));
  const data = await loadAssetList();
  if (!ctx.alive()) return;
  const byType = (data.totals && data.totals.by_type) || {};
  ctx.root.replaceChildren(el('div', { class: 'placeholder' },
    el('h2', { text: 'Pick an asset on the left' }),
    el('p', { class: 'muted', text: 'or open the packs or the check results.' }),
    el('p', {}, Object.keys(byType).sort().map((type) => el('span', { class: `type type-${type}`, text: `${type} ${byType[type].files}` })))));
  await afterPaint();
  ctx.ready();
}

async function showCheck(ctx) {
  ctx.begin('check');
  const result = await apiGet('/api/check');
  if (!ctx.alive()) return;
  const problems = result.problems || [];
  ctx.root.append(el('div', { class: 'asset-head' }, el('h2', { text: 'Check' }),
    el('span', { class: result.ok ? 'good' : 'bad', text: result.ok ? 'passed' : `${problems.length} problem${problems.length === 1 ? '' : 's'}` })));
  if (!problems.length) {
    ctx.root.append(el('p', { class: 'ok-box', text: 'No problems' }));
  } else {
    ctx.root.append(el('ul', { class: 'problems' }, problems.map((p) => el('li', {},
      p.path ? assetLink(p.path) : el('span', { class: 'muted', text: '(whole output)' }),
      el('span', { class: 'message', text: p.message })))));
  }
  await afterPaint();
  ctx.ready();
}

const VIEW_BY_TYPE = {
  mesh: 'mesh', texture: 'texture', font: 'font', material: 'material', animation: 'animation',
};

async function openAsset(ctx, path) {
  const listed = app.assets && app.assets.files.find((f) => f.path === path);
  ctx.begin((listed && VIEW_BY_TYPE[listed.type]) || 'file');
  ctx.root.append(assetHead(path, listed));
  const file = await apiGet('/api/file', { path });
  if (!ctx.alive()) return;
  const view = VIEW_BY_TYPE[file.type] || 'file';
  ctx.begin(view);
  ctx.root.replaceChildren(assetHead(path, file));
  const show = { mesh: showMesh, texture: showTexture, font: showFont, material: showMaterial, animation: showAnimation }[view] || showFile;
  await show(ctx, path, file);
}

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

async function showFile(ctx, path, file) {
  if (file.type === 'invalid') {
    ctx.fail(new ApiError(file.error || `${path} does not parse`, 422));
  }
  const pairs = Object.entries(file).filter(([k]) => k !== 'path').map(([k, v]) => [k, figureValue(k, v)]);
  ctx.root.append(el('section', { class: 'panel' }, el('h3', { text: 'Figures' }), figureTable(pairs)));
  if (file.type === 'invalid') return;
  await afterPaint();
  ctx.ready();
}

// ===========================================================================
// Pack view.
// ===========================================================================

const SEGMENT_COLOURS = { header: '#d08770', toc: '#ebcb8b', payload: '#5e81ac', padding: '#4c566a' };

/** A horizontal bar: segments [{label, bytes, colour}], each at least minShare wide. */
function byteBar(segments, minShare = 0.05) {
  const shown = segments.filter((s) => s.bytes > 0);
  const total = shown.reduce((sum, s) => sum + s.bytes, 0) || 1;
  const widths = shown.map((s) => Math.max(s.bytes / total, minShare));
  const scale = widths.reduce((a, b) => a + b, 0);
  return el('div', { class: 'bar' }, shown.map((s, i) => el('div', {
    class: 'segment',
    style: { width: `${(100 * widths[i]) / scale}%`, background: s.colour },
    title: `${s.label}: ${fmtInt(s.bytes)} bytes (${((100 * s.bytes) / total).toFixed(2)}%)`,
  }, el('span', { text: `${s.label} ${fmtBytes(s.bytes)}` }))));
}

async function showPack(ctx, name) {
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

// ===========================================================================
// Material view.
// ===========================================================================

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

function swatch(rgb, title) {
  return el('span', { class: 'swatch checker', title }, el('i', { style: { background: linearToCss(rgb), opacity: rgb.length > 3 ? clamp(rgb[3], 0, 1) : 1 } }));
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

async function showMaterial(ctx, path) {
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

// ===========================================================================
// Texture view.
// ===========================================================================

const FACE_NAMES = ['+X', '−X', '+Y', '−Y', '+Z', '−Z'];
// Horizontal cross, 4 × 3 cells: [face, column, row].
const CROSS_CELLS = [[2, 1, 0], [1, 0, 1], [4, 1, 1], [0, 2, 1], [5, 3, 1], [3, 1, 2]];
const CHANNELS = ['r', 'g', 'b', 'a', 'rgba'];

const uniqueSorted = (values) => [...new Set(values)].sort((a, b) => a - b);

/** Copies texels, keeping one channel as grey (or all four for 'rgba'). */
function isolateChannel(src, channel) {
  const out = new Uint8ClampedArray(src);
  const k = 'rgba'.indexOf(channel);
  if (channel === 'rgba' || k < 0) return out;
  for (let i = 0; i < out.length; i += 4) {
    const v = src[i + k];
    out[i] = v; out[i + 1] = v; out[i + 2] = v; out[i + 3] = 255;
  }
  return out;
}

function textureState(params, info) {
  return {
    level: parseIntParam(params.level, 0, 1e6, 0),
    layer: parseIntParam(params.layer, 0, 1e6, 0),
    face: parseIntParam(params.face, 0, 5, 0),
    slice: parseIntParam(params.slice, 0, 1e6, 0),
    channel: CHANNELS.includes(params.channel) ? params.channel : 'rgba',
    zoom: ['1', '2', '4', 'fit'].includes(params.zoom) ? params.zoom : 'fit',
    cross: params.cross === '1' && info.faces === 6,
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

function textureFigures(info, file) {
  return figureTable([
    ['kind', info.kind],
    ['size', `${info.width} × ${info.height}${info.depth > 1 ? ` × ${info.depth}` : ''}`],
    ['layers', info.layers], ['faces', info.faces], ['mip levels', info.mips],
    ['format', info.format], ['supercompression', info.supercompression || 'none'],
    ['transfer', info.transfer], ['swizzle', info.swizzle || 'rgba'],
    ['texels', file && file.texels != null ? fmtInt(file.texels) : undefined],
    ['source', info.source || undefined],
  ]);
}

async function showTexture(ctx, path, file) {
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
  const psnr = info.psnr != null
    ? el('p', { class: 'psnr', text: `PSNR against ${info.source || 'the source'}: ${fmtNum(info.psnr, 4)} dB` }) : null;
  ctx.root.append(toolbar, el('div', { class: 'texture-body' },
    el('div', { class: 'texture-main' }, stage, caption),
    el('div', { class: 'side-figures' }, psnr, textureFigures(info, file))));

  let drawToken = 0;
  let shown = null; // {width, height} of the canvas content

  const syncHash = () => updateHash({
    level: state.level || null, layer: state.layer || null, face: state.face || null, slice: state.slice || null,
    channel: state.channel === 'rgba' ? null : state.channel, zoom: state.zoom === 'fit' ? null : state.zoom,
    cross: state.cross ? 1 : null,
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
          return im ? { texels: await loadTexels(im.url), col, row } : null;
        }));
        if (token !== drawToken || !ctx.alive()) return;
        const cell = image.width;
        paint(loaded.filter(Boolean).map((p) => ({ texels: p.texels, x: p.col * cell, y: p.row * cell })), cell * 4, image.height * 3);
        caption.textContent = `level ${state.level}, layer ${state.layer}: cube cross (+Y on top; −X +Z +X −Z; −Y below), ${image.width} × ${image.height} per face`;
      } else {
        const texels = await loadTexels(image.url);
        if (token !== drawToken || !ctx.alive()) return;
        paint([{ texels, x: 0, y: 0 }], texels.width, texels.height);
        caption.textContent = `level ${image.level}, layer ${image.layer}, face ${FACE_NAMES[image.face] || image.face}, slice ${image.slice}: ${texels.width} × ${texels.height}, channel ${state.channel.toUpperCase()}`;
      }
      await afterPaint();
      if (token === drawToken) ctx.ready();
    } catch (err) {
      if (token === drawToken) ctx.fail(err);
    }
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
      el('span', { class: 'muted', text: `swizzle ${info.swizzle || 'rgba'}` }),
      image && el('span', { class: 'muted', text: `${image.width} × ${image.height}` }));
  }

  window.addEventListener('resize', applyZoom);
  ctx.onCleanup(() => window.removeEventListener('resize', applyZoom));
  buildToolbar();
  await draw();
}

// ===========================================================================
// Font view.
// ===========================================================================

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

/** Distance field → coverage for one glyph quad, drawn into a small canvas. */
function glyphInk(font, field, glyph, rect, colour) {
  const [u0, v0, u1, v1] = glyph.uv;
  const ix = Math.floor(rect.x0);
  const iy = Math.floor(rect.y0);
  const w = Math.ceil(rect.x1) - ix;
  const h = Math.ceil(rect.y1) - iy;
  if (w <= 0 || h <= 0) return null;
  const canvas = el('canvas', { width: w, height: h });
  const c2d = canvas.getContext('2d', { willReadFrequently: true });
  c2d.imageSmoothingEnabled = true;
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
    const r = px[i] / 255;
    const d = font.msdf ? Math.max(Math.min(r, px[i + 1] / 255), Math.min(Math.max(r, px[i + 1] / 255), px[i + 2] / 255)) : r;
    const coverage = clamp((d - edge) / (2 * halfWidth) + 0.5, 0, 1) * (px[i + 3] / 255);
    px[i] = colour[0]; px[i + 1] = colour[1]; px[i + 2] = colour[2];
    px[i + 3] = Math.round(255 * coverage);
  }
  c2d.putImageData(image, 0, 0);
  return { canvas, x: ix, y: iy };
}

/** Draws the text preview; returns its size in pixels. */
function renderTextPreview(canvas, font, field, text, pxPerEm) {
  const { placed, width } = layoutText(font, text);
  const pad = Math.round(0.25 * pxPerEm);
  const ascent = font.ascent ?? 1;
  const descent = font.descent ?? 0;
  canvas.width = Math.max(1, Math.ceil(width * pxPerEm + 2 * pad));
  canvas.height = Math.max(1, Math.ceil((ascent - descent) * pxPerEm + 2 * pad));
  const c2d = canvas.getContext('2d');
  c2d.clearRect(0, 0, canvas.width, canvas.height);
  const baseline = pad + ascent * pxPerEm;
  // Guides: ascent, baseline, descent.
  c2d.fillStyle = 'rgba(136, 192, 208, 0.35)';
  for (const y of [pad, baseline, baseline - descent * pxPerEm]) c2d.fillRect(0, Math.round(y), canvas.width, 1);
  const boxes = [];
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

function fontFigures(font) {
  return figureTable([
    ['glyphs', fmtInt(font.glyphs.length)], ['kerning pairs', fmtInt((font.kerning || new Map()).size)],
    ['ascent', fmtNum(font.ascent)], ['descent', fmtNum(font.descent)], ['line gap', fmtNum(font.line_gap)],
    ['line advance', fmtNum(font.line_advance)], ['distance range', fmtNum(font.distance_range)],
    ['edge value', fmtNum(font.edge_value)], ['field', font.msdf ? 'MSDF (median of R, G, B)' : 'SDF (one channel)'],
    ['atlas', `${font.atlas_width} × ${font.atlas_height}`],
    ['atlas file', font.atlas && font.atlas.path ? assetLink(font.atlas.path) : (font.atlas && font.atlas.id) || '—'],
  ]);
}

async function showFont(ctx, path) {
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
  const field = texelsToCanvas(texels, true);
  const display = font.msdf ? field : texelsToCanvas({ ...texels, data: isolateChannel(texels.data, 'r') });

  const preview = el('canvas', { class: 'preview' });
  const atlas = el('canvas', { class: 'atlas', width: texels.width, height: texels.height });
  const hoverLine = el('div', { class: 'caption muted', text: 'Hover a glyph box for its metrics.' });
  const input = el('input', { type: 'text', class: 'text-input', value: state.text, spellcheck: false });
  let hovered = null;

  const redrawText = () => renderTextPreview(preview, font, field, state.text, state.size);
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
    el('section', { class: 'panel' }, el('h3', { text: 'Preview' }), el('div', { class: 'preview-stage' }, preview)),
    el('div', { class: 'font-body' },
      el('section', { class: 'panel atlas-panel' }, el('h3', { text: `Atlas ${texels.width} × ${texels.height}` }), el('div', { class: 'atlas-stage checker-stage' }, atlas), hoverLine),
      el('div', { class: 'side-figures' }, fontFigures(font))));
  redrawAtlas();
  redrawText();
  await afterPaint();
  ctx.ready();
}

// ===========================================================================
// Animation: sampling (shared with the mesh view) and the animation view.
// ===========================================================================

/** The key value i of a channel; cubic keys stored as glTF triples use the middle one. */
function keyValue(channel, i) {
  const triples = channel.values.length === 3 * channel.times.length && channel.times.length > 0;
  return channel.values[triples ? 3 * i + 1 : i];
}

function lerpArray(a, b, f) {
  return a.map((x, i) => x + (b[i] - x) * f);
}

function slerp(a, b, f) {
  let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const sign = dot < 0 ? -1 : 1;
  dot *= sign;
  if (dot > 0.9995) return normalizeQuat(a.map((x, i) => x + (sign * b[i] - x) * f));
  const theta = Math.acos(dot);
  const s = Math.sin(theta);
  const wa = Math.sin((1 - f) * theta) / s;
  const wb = (sign * Math.sin(f * theta)) / s;
  return a.map((x, i) => wa * x + wb * b[i]);
}

function normalizeQuat(q) {
  const len = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  return [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
}

/** The value of one channel at a time (held before the first and after the last key). */
function sampleChannel(channel, time) {
  const times = channel.times || [];
  const n = times.length;
  if (!n) return null;
  if (n === 1 || time <= times[0]) return keyValue(channel, 0).slice();
  if (time >= times[n - 1]) return keyValue(channel, n - 1).slice();
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (times[mid] <= time) lo = mid; else hi = mid; }
  const a = keyValue(channel, lo);
  if (channel.interpolation === 'step') return a.slice();
  const b = keyValue(channel, hi);
  const f = (time - times[lo]) / (times[hi] - times[lo] || 1);
  return channel.path === 'rotation' ? slerp(a, b, f) : lerpArray(a, b, f);
}

/** Local joint transforms {t, r, s} of a clip at a time, bind pose where not animated. */
function sampleClip(skeleton, clip, time) {
  const locals = skeleton.map((j) => ({ t: j.translation, r: j.rotation, s: j.scale }));
  if (!clip) return locals;
  for (const channel of clip.channels || []) {
    const local = locals[channel.joint];
    const value = local && sampleChannel(channel, time);
    if (!value) continue;
    if (channel.path === 'translation') local.t = value;
    else if (channel.path === 'rotation') local.r = normalizeQuat(value);
    else if (channel.path === 'scale') local.s = value;
  }
  return locals;
}

const CHANNEL_COLOURS = ['#bf616a', '#a3be8c', '#81a1c1', '#d8dee9'];

/** Plots one channel's components over the clip's time on a 2D canvas. */
function plotChannel(canvas, channel, duration) {
  const width = canvas.width;
  const height = canvas.height;
  const c2d = canvas.getContext('2d');
  c2d.clearRect(0, 0, width, height);
  const times = channel.times || [];
  const values = times.map((_, i) => keyValue(channel, i));
  let lo = 0;
  let hi = 0;
  for (const v of values) for (const x of v) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  if (hi - lo < 1e-6) { lo -= 1; hi += 1; }
  const margin = { left: 56, right: 12, top: 12, bottom: 24 };
  const end = Math.max(duration || 0, times[times.length - 1] || 0, 1e-3);
  const x = (t) => margin.left + (t / end) * (width - margin.left - margin.right);
  const y = (v) => margin.top + (1 - (v - lo) / (hi - lo)) * (height - margin.top - margin.bottom);

  c2d.strokeStyle = '#4c566a';
  c2d.fillStyle = '#9aa5b8';
  c2d.font = '11px sans-serif';
  c2d.strokeRect(margin.left, margin.top, width - margin.left - margin.right, height - margin.top - margin.bottom);
  c2d.fillText(fmtNum(hi, 3), 4, margin.top + 8);
  c2d.fillText(fmtNum(lo, 3), 4, height - margin.bottom);
  c2d.fillText('0 s', margin.left, height - 6);
  c2d.fillText(`${fmtNum(end, 3)} s`, width - margin.right - 40, height - 6);
  c2d.beginPath();
  c2d.moveTo(margin.left, y(0));
  c2d.lineTo(width - margin.right, y(0));
  c2d.stroke();

  const components = values.length ? values[0].length : 0;
  for (let c = 0; c < components; c++) {
    c2d.strokeStyle = CHANNEL_COLOURS[c];
    c2d.fillStyle = CHANNEL_COLOURS[c];
    c2d.beginPath();
    values.forEach((v, i) => {
      if (i === 0) c2d.moveTo(x(times[i]), y(v[c]));
      else if (channel.interpolation === 'step') { c2d.lineTo(x(times[i]), y(values[i - 1][c])); c2d.lineTo(x(times[i]), y(v[c])); }
      else c2d.lineTo(x(times[i]), y(v[c]));
    });
    c2d.stroke();
    values.forEach((v, i) => c2d.fillRect(x(times[i]) - 2, y(v[c]) - 2, 4, 4));
  }
}

async function showAnimation(ctx, path) {
  const data = await apiGet('/api/anim', { path });
  if (!ctx.alive()) return;
  const clips = data.clips || [];
  const params = ctx.params;
  let clipIndex = Math.max(0, clips.findIndex((c) => c.name === params.clip));
  let channelIndex = parseIntParam(params.channel, 0, 1e6, 0);
  const body = el('div');
  const plot = el('canvas', { class: 'plot', width: 760, height: 220 });
  ctx.root.append(
    el('div', { class: 'toolbar' },
      clips.length ? selectBox('clip ', clips.map((c, i) => [i, `${c.name || '(unnamed)'} — ${fmtNum(c.duration, 3)} s`]), clipIndex, (v) => { clipIndex = Number(v); channelIndex = 0; render(); })
        : el('span', { class: 'muted', text: 'no clips' })),
    body);

  function render() {
    const clip = clips[clipIndex];
    const channels = (clip && clip.channels) || [];
    channelIndex = clamp(channelIndex, 0, Math.max(0, channels.length - 1));
    updateHash({ clip: clip && clipIndex ? clip.name : null, channel: channelIndex || null });
    const keys = channels.reduce((s, c) => s + (c.times || []).length, 0);
    const legend = el('div', { class: 'legend' }, ['x', 'y', 'z', 'w'].map((n, i) => el('span', {}, el('i', { style: { background: CHANNEL_COLOURS[i] } }), n)));
    setChildren(body,
      el('p', { class: 'muted', text: clip ? `${channels.length} channels, ${keys} keys, ${fmtNum(clip.duration, 4)} s` : '' }),
      channels.length ? el('section', { class: 'panel' }, el('h3', { text: `Channel ${channelIndex}: joint ${channels[channelIndex].joint} ${channels[channelIndex].path}` }), plot, legend) : null,
      el('table', { class: 'grid channels' },
        el('thead', {}, el('tr', {}, ['#', 'joint', 'path', 'interpolation', 'keys', 'from', 'to'].map((h) => el('th', { text: h })))),
        el('tbody', {}, channels.map((c, i) => el('tr', {
          class: `clickable${i === channelIndex ? ' current' : ''}`,
          onclick: () => { channelIndex = i; render(); },
        }, [i, c.joint, c.path, c.interpolation, (c.times || []).length,
          fmtNum((c.times || [])[0] ?? 0), fmtNum((c.times || []).slice(-1)[0] ?? 0)].map((v) => el('td', { text: String(v) })))))));
    if (channels.length) {
      plot.width = Math.max(320, Math.min(1000, body.clientWidth - 32));
      plotChannel(plot, channels[channelIndex], clip.duration);
    }
  }
  render();
  await afterPaint();
  ctx.ready();
}

// ===========================================================================
// 4×4 matrices (column-major Float32Array(16)) and vectors.
// ===========================================================================

const M4 = {
  identity() {
    const m = new Float32Array(16);
    m[0] = m[5] = m[10] = m[15] = 1;
    return m;
  },
  multiply(a, b) {
    const out = new Float32Array(16);
    for (let col = 0; col < 4; col++) {
      for (let row = 0; row < 4; row++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) sum += a[k * 4 + row] * b[col * 4 + k];
        out[col * 4 + row] = sum;
      }
    }
    return out;
  },
  perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2);
    const m = new Float32Array(16);
    m[0] = f / aspect;
    m[5] = f;
    m[10] = (far + near) / (near - far);
    m[11] = -1;
    m[14] = (2 * far * near) / (near - far);
    return m;
  },
  lookAt(eye, target, up) {
    const z = V3.normalize(V3.sub(eye, target));
    const x = V3.normalize(V3.cross(up, z));
    const y = V3.cross(z, x);
    return new Float32Array([
      x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
      -V3.dot(x, eye), -V3.dot(y, eye), -V3.dot(z, eye), 1]);
  },
  /** Translation × rotation (unit quaternion x, y, z, w) × scale. */
  fromTRS(t, q, s) {
    const [x, y, z, w] = q;
    const m = new Float32Array(16);
    m[0] = (1 - 2 * (y * y + z * z)) * s[0];
    m[1] = 2 * (x * y + w * z) * s[0];
    m[2] = 2 * (x * z - w * y) * s[0];
    m[4] = 2 * (x * y - w * z) * s[1];
    m[5] = (1 - 2 * (x * x + z * z)) * s[1];
    m[6] = 2 * (y * z + w * x) * s[1];
    m[8] = 2 * (x * z + w * y) * s[2];
    m[9] = 2 * (y * z - w * x) * s[2];
    m[10] = (1 - 2 * (x * x + y * y)) * s[2];
    m[12] = t[0]; m[13] = t[1]; m[14] = t[2]; m[15] = 1;
    return m;
  },
  point(m, p) {
    return [
      m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
      m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
      m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]];
  },
};

const V3 = {
  add: (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]],
  sub: (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]],
  scale: (a, s) => [a[0] * s, a[1] * s, a[2] * s],
  dot: (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2],
  cross: (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
  normalize(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; },
};

/** Global joint matrices: each local transform composed up its parent chain. */
function jointGlobals(skeleton, locals) {
  const globals = new Array(skeleton.length).fill(null);
  const visit = (i, depth) => {
    if (globals[i]) return globals[i];
    const local = M4.fromTRS(locals[i].t, locals[i].r, locals[i].s);
    const parent = skeleton[i].parent;
    const hasParent = parent >= 0 && parent < skeleton.length && parent !== i && depth < skeleton.length;
    globals[i] = hasParent ? M4.multiply(visit(parent, depth + 1), local) : local;
    return globals[i];
  };
  skeleton.forEach((_, i) => visit(i, 0));
  return globals;
}

// ===========================================================================
// Mesh data: decoding and derived index lists.
// ===========================================================================

/** A typed array of exactly n elements (zero-filled or padded with `fill`). */
function sized(array, n, Type, fill = null) {
  if (array.length === n) return array;
  const out = new Type(n);
  out.set(array.subarray(0, Math.min(n, array.length)));
  if (fill) for (let i = array.length - (array.length % fill.length); i < n; i++) out[i] = fill[i % fill.length];
  return out;
}

function boundsOf(b) {
  const min = (b && b.min) || [0, 0, 0];
  const max = (b && b.max) || [0, 0, 0];
  const center = (b && b.center) || V3.scale(V3.add(min, max), 0.5);
  const radius = (b && b.radius) || Math.hypot(...V3.sub(max, min)) / 2;
  return { min, max, center, radius: Math.max(radius, 1e-4) };
}

function decodeMesh(d) {
  const n = d.vertex_count || 0;
  const indices = b64U32(d.indices);
  const submeshes = d.submeshes && d.submeshes.length ? d.submeshes
    : [{ first_index: 0, index_count: indices.length, first_meshlet: 0, meshlet_count: 0, material_slot: null, lods: [] }];
  return {
    path: d.path,
    vertexCount: n,
    hasTangents: !!d.has_tangents,
    bounds: boundsOf(d.bounds),
    positions: sized(b64F32(d.positions), n * 3, Float32Array),
    normals: sized(b64F32(d.normals), n * 3, Float32Array, [0, 1, 0]),
    tangents: sized(b64F32(d.tangents), n * 4, Float32Array, [1, 0, 0, 1]),
    uvs: sized(b64F32(d.uvs), n * 2, Float32Array),
    indices,
    lodCount: d.lod_count || 0,
    lodIndices: b64U32(d.lod_indices),
    submeshes: submeshes.map((s) => ({ ...s, bounds: s.bounds ? boundsOf(s.bounds) : null, lods: s.lods || [] })),
    meshlets: b64U32(d.meshlets),
    meshletVertices: b64U32(d.meshlet_vertices),
    meshletTriangles: b64Bytes(d.meshlet_triangles),
    meshletBounds: b64F32(d.meshlet_bounds),
    skin: d.skin ? { joints: sized(b64U16(d.skin.joints), n * 4, Uint16Array), weights: sized(b64F32(d.skin.weights), n * 4, Float32Array) } : null,
    skeleton: d.skeleton || [],
    material: d.material || null,
    animations: d.animations || [],
  };
}

/** Where submesh s draws from at a LOD: {source: 'full'|'lod', first, count, level}. */
function lodRange(mesh, s, lod) {
  const sub = mesh.submeshes[s];
  for (let level = Math.min(lod, mesh.lodCount); level > 0; level--) {
    const entry = sub.lods[level - 1];
    if (entry && entry.index_count > 0) return { source: 'lod', first: entry.first_index, count: entry.index_count, level };
  }
  return { source: 'full', first: sub.first_index, count: sub.index_count, level: 0 };
}

function lodIndexList(mesh, s, lod) {
  const r = lodRange(mesh, s, lod);
  return (r.source === 'lod' ? mesh.lodIndices : mesh.indices).subarray(r.first, r.first + r.count);
}

/** Triangles and distinct vertices used by a LOD, over all submeshes. */
function lodFigures(mesh, lod) {
  const used = new Uint8Array(mesh.vertexCount);
  let triangles = 0;
  let vertices = 0;
  const stalled = [];
  mesh.submeshes.forEach((_, s) => {
    const range = lodRange(mesh, s, lod);
    if (range.level !== lod) stalled.push({ submesh: s, level: range.level });
    const list = lodIndexList(mesh, s, lod);
    triangles += Math.floor(list.length / 3);
    for (const v of list) if (v < used.length && !used[v]) { used[v] = 1; vertices++; }
  });
  return { triangles, vertices, stalled };
}

/** "stalled: as LOD 0", or per submesh "stalled: #1→0, #3→1". */
function stalledNote(stalled, submeshCount) {
  if (!stalled.length) return '';
  const levels = new Set(stalled.map((x) => x.level));
  if (stalled.length === submeshCount && levels.size === 1) return `stalled: as LOD ${stalled[0].level}`;
  return `stalled: ${stalled.map((x) => `#${x.submesh}→${x.level}`).join(', ')}`;
}

function meshletSubmesh(mesh) {
  const owner = new Int32Array(mesh.meshlets.length / 4).fill(-1);
  mesh.submeshes.forEach((sub, s) => {
    for (let i = 0; i < (sub.meshlet_count || 0); i++) if (sub.first_meshlet + i < owner.length) owner[sub.first_meshlet + i] = s;
  });
  return owner;
}

/** Skins positions, normals and tangents on the CPU with joint matrices (global × inverse bind). */
function skinVertices(mesh, skinMatrices, out) {
  const { positions: P, normals: N, tangents: T } = mesh;
  const { joints: J, weights: W } = mesh.skin;
  const m = new Float32Array(12);
  const jointCount = skinMatrices.length / 16;
  for (let v = 0; v < mesh.vertexCount; v++) {
    m.fill(0);
    for (let k = 0; k < 4; k++) {
      const w = W[v * 4 + k];
      const j = J[v * 4 + k];
      if (!w || j >= jointCount) continue;
      const o = j * 16;
      for (let c = 0; c < 4; c++) for (let r = 0; r < 3; r++) m[c * 3 + r] += w * skinMatrices[o + c * 4 + r];
    }
    const [px, py, pz] = [P[v * 3], P[v * 3 + 1], P[v * 3 + 2]];
    for (let r = 0; r < 3; r++) out.positions[v * 3 + r] = m[r] * px + m[3 + r] * py + m[6 + r] * pz + m[9 + r];
    transformDirection(m, N, v * 3, out.normals, v * 3);
    transformDirection(m, T, v * 4, out.tangents, v * 4);
    out.tangents[v * 4 + 3] = T[v * 4 + 3];
  }
}

function transformDirection(m, src, i, dst, o) {
  const x = src[i];
  const y = src[i + 1];
  const z = src[i + 2];
  const rx = m[0] * x + m[3] * y + m[6] * z;
  const ry = m[1] * x + m[4] * y + m[7] * z;
  const rz = m[2] * x + m[5] * y + m[8] * z;
  const len = Math.hypot(rx, ry, rz) || 1;
  dst[o] = rx / len; dst[o + 1] = ry / len; dst[o + 2] = rz / len;
}

// ===========================================================================
// WebGL2 mesh renderer.
// ===========================================================================

const SURFACE_VS = `#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec4 a_colour;
uniform mat4 u_viewProj;
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_colour;
void main() {
  v_normal = a_normal;
  v_uv = a_uv;
  v_colour = a_colour;
  gl_Position = u_viewProj * vec4(a_position, 1.0);
}`;

const SURFACE_FS = `#version 300 es
precision highp float;
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_colour;
uniform vec4 u_factor;
uniform sampler2D u_texture;
uniform bool u_useTexture;
uniform int u_alphaMode;   // 0 opaque, 1 mask, 2 blend
uniform float u_cutoff;
uniform float u_dim;
uniform vec3 u_light;
out vec4 o_colour;
void main() {
  vec4 base = u_factor * v_colour;
  if (u_useTexture) base *= texture(u_texture, v_uv);   // sRGB texture: sampled as linear
  if (u_alphaMode == 1 && base.a < u_cutoff) discard;
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  float diffuse = max(dot(n, u_light), 0.0);
  vec3 lit = base.rgb * (0.2 + 0.75 * diffuse) * u_dim;
  o_colour = vec4(pow(lit, vec3(1.0 / 2.2)), u_alphaMode == 2 ? base.a : 1.0);
}`;

const LINE_VS = `#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 3) in vec4 a_colour;
uniform mat4 u_viewProj;
out vec4 v_colour;
void main() {
  v_colour = a_colour;
  gl_Position = u_viewProj * vec4(a_position, 1.0);
}`;

const LINE_FS = `#version 300 es
precision mediump float;
in vec4 v_colour;
out vec4 o_colour;
void main() { o_colour = v_colour; }`;

function compileShader(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
    throw new Error(`shader does not compile: ${gl.getShaderInfoLog(shader)}`);
  }
  return shader;
}

function makeProgram(gl, vsSource, fsSource, uniformNames) {
  const program = gl.createProgram();
  gl.attachShader(program, compileShader(gl, gl.VERTEX_SHADER, vsSource));
  gl.attachShader(program, compileShader(gl, gl.FRAGMENT_SHADER, fsSource));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
    throw new Error(`shader program does not link: ${gl.getProgramInfoLog(program)}`);
  }
  const uniforms = {};
  for (const name of uniformNames) uniforms[name] = gl.getUniformLocation(program, name);
  return { program, uniforms };
}

function uploadColourTexture(gl, img) {
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false); // uv origin is the top left, as is the image's first row
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
  gl.generateMipmap(gl.TEXTURE_2D);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT);
  return texture;
}

function arrayBuffer(gl, data, usage) {
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, data, usage || gl.STATIC_DRAW);
  return buffer;
}

function bindAttribute(gl, location, buffer, size) {
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, size, gl.FLOAT, false, 0, 0);
}

/** Collects coloured line segments for one gl.LINES draw. */
class LineList {
  constructor() { this.positions = []; this.colours = []; }
  add(a, b, colour) {
    this.positions.push(a[0], a[1], a[2], b[0], b[1], b[2]);
    this.colours.push(...colour, ...colour);
  }
  box(min, max, colour) {
    const corner = (i) => [i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]];
    for (let i = 0; i < 8; i++) {
      for (const bit of [1, 2, 4]) if (!(i & bit)) this.add(corner(i), corner(i | bit), colour);
    }
  }
  get count() { return this.positions.length / 3; }
}

const FOV = (45 * Math.PI) / 180;

class MeshViewer {
  constructor(canvas, mesh, images) {
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error('WebGL2 is not available in this browser');
    this.gl = gl;
    this.canvas = canvas;
    this.mesh = mesh;
    this.options = { lod: 0, submesh: -1 };
    this.surface = makeProgram(gl, SURFACE_VS, SURFACE_FS,
      ['u_viewProj', 'u_factor', 'u_texture', 'u_useTexture', 'u_alphaMode', 'u_cutoff', 'u_dim', 'u_light']);
    this.lines = makeProgram(gl, LINE_VS, LINE_FS, ['u_viewProj']);
    this.textures = new Map([...images].map(([path, img]) => [path, uploadColourTexture(gl, img)]));
    this.current = { positions: mesh.positions, normals: mesh.normals, tangents: mesh.tangents };
    this.globals = mesh.skeleton.length ? jointGlobals(mesh.skeleton, sampleClip(mesh.skeleton, null, 0)) : [];
    this.camera = { yaw: 0.6, pitch: 0.35, distance: mesh.bounds.radius / Math.sin(FOV / 2) * 1.1 };
    this.createBuffers();
    this.meshletDirty = true;
    this.linesDirty = true;
    this.attachControls();
  }

  createBuffers() {
    const { gl, mesh } = this;
    this.positionBuffer = arrayBuffer(gl, mesh.positions, gl.DYNAMIC_DRAW);
    this.normalBuffer = arrayBuffer(gl, mesh.normals, gl.DYNAMIC_DRAW);
    const uvBuffer = arrayBuffer(gl, mesh.uvs);
    this.baseVao = gl.createVertexArray();
    gl.bindVertexArray(this.baseVao);
    bindAttribute(gl, 0, this.positionBuffer, 3);
    bindAttribute(gl, 1, this.normalBuffer, 3);
    bindAttribute(gl, 2, uvBuffer, 2);
    // Full indices first, then the LOD indices, in one element buffer.
    const all = new Uint32Array(mesh.indices.length + mesh.lodIndices.length);
    all.set(mesh.indices);
    all.set(mesh.lodIndices, mesh.indices.length);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, all, gl.STATIC_DRAW);
    gl.bindVertexArray(null);

    this.meshletVao = gl.createVertexArray();
    this.meshletBuffers = { position: gl.createBuffer(), normal: gl.createBuffer(), colour: gl.createBuffer() };
    gl.bindVertexArray(this.meshletVao);
    bindAttribute(gl, 0, this.meshletBuffers.position, 3);
    bindAttribute(gl, 1, this.meshletBuffers.normal, 3);
    bindAttribute(gl, 3, this.meshletBuffers.colour, 4);
    gl.bindVertexArray(null);

    this.lineVao = gl.createVertexArray();
    this.lineBuffers = { position: gl.createBuffer(), colour: gl.createBuffer() };
    gl.bindVertexArray(this.lineVao);
    bindAttribute(gl, 0, this.lineBuffers.position, 3);
    bindAttribute(gl, 3, this.lineBuffers.colour, 4);
    gl.bindVertexArray(null);
  }

  setOptions(options) {
    const old = this.options;
    this.options = { ...options };
    if (options.submesh !== old.submesh || options.meshlets !== old.meshlets) this.meshletDirty = true;
    this.linesDirty = true;
    this.requestRender();
  }

  /** Poses the skeleton (null: bind pose) and skins the mesh on the CPU. */
  setPose(locals) {
    const { mesh, gl } = this;
    const skeleton = mesh.skeleton;
    this.globals = jointGlobals(skeleton, locals || sampleClip(skeleton, null, 0));
    if (mesh.skin && locals) {
      const skinMatrices = new Float32Array(skeleton.length * 16);
      skeleton.forEach((joint, j) => {
        const inverseBind = joint.inverse_bind && joint.inverse_bind.length === 16 ? joint.inverse_bind : M4.identity();
        skinMatrices.set(M4.multiply(this.globals[j], inverseBind), j * 16);
      });
      if (this.current.positions === mesh.positions) {
        this.current = { positions: new Float32Array(mesh.positions.length), normals: new Float32Array(mesh.normals.length), tangents: new Float32Array(mesh.tangents.length) };
      }
      skinVertices(mesh, skinMatrices, this.current);
    } else {
      this.current = { positions: mesh.positions, normals: mesh.normals, tangents: mesh.tangents };
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.positionBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.current.positions);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.normalBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.current.normals);
    this.meshletDirty = true;
    this.linesDirty = true;
    this.requestRender();
  }

  /** Expands meshlet triangles into unshared vertices, one colour per meshlet. */
  buildMeshletGeometry() {
    const { gl, mesh } = this;
    const { meshlets, meshletVertices: mv, meshletTriangles: mt } = mesh;
    const owner = meshletSubmesh(mesh);
    let count = 0;
    for (let i = 0; i < meshlets.length; i += 4) count += meshlets[i + 3] * 3;
    const positions = new Float32Array(count * 3);
    const normals = new Float32Array(count * 3);
    const colours = new Float32Array(count * 4);
    const P = this.current.positions;
    const N = this.current.normals;
    let out = 0;
    for (let m = 0; m < meshlets.length / 4; m++) {
      const [vOffset, , tOffset, tCount] = meshlets.subarray(m * 4, m * 4 + 4);
      const dim = this.options.submesh >= 0 && owner[m] !== this.options.submesh ? 0.3 : 1;
      const colour = distinctColour(m).map((c) => c * dim);
      for (let k = 0; k < tCount * 3; k++) {
        const v = mv[vOffset + mt[tOffset * 3 + k]] || 0;
        positions.set(P.subarray(v * 3, v * 3 + 3), out * 3);
        normals.set(N.subarray(v * 3, v * 3 + 3), out * 3);
        colours.set([colour[0], colour[1], colour[2], 1], out * 4);
        out++;
      }
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.meshletBuffers.position);
    gl.bufferData(gl.ARRAY_BUFFER, positions, gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.meshletBuffers.normal);
    gl.bufferData(gl.ARRAY_BUFFER, normals, gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.meshletBuffers.colour);
    gl.bufferData(gl.ARRAY_BUFFER, colours, gl.DYNAMIC_DRAW);
    this.meshletCount = out;
    this.meshletDirty = false;
  }

  /** Rebuilds the overlay lines: [depth-tested list, always-on-top list]. */
  buildLines() {
    const { mesh, options } = this;
    const tested = new LineList();
    const onTop = new LineList();
    const P = this.current.positions;
    const N = this.current.normals;
    const T = this.current.tangents;
    const point = (v) => [P[v * 3], P[v * 3 + 1], P[v * 3 + 2]];
    const length = 0.02 * mesh.bounds.radius;
    if (options.wire) this.addWireframe(tested, point);
    if (options.normals) {
      for (let v = 0; v < mesh.vertexCount; v++) {
        const p = point(v);
        tested.add(p, V3.add(p, V3.scale([N[v * 3], N[v * 3 + 1], N[v * 3 + 2]], length)), [0.4, 0.6, 1, 1]);
      }
    }
    if (options.tangents && mesh.hasTangents) {
      for (let v = 0; v < mesh.vertexCount; v++) {
        const p = point(v);
        const colour = T[v * 4 + 3] < 0 ? [1, 0.4, 0.9, 1] : [1, 0.35, 0.3, 1];
        tested.add(p, V3.add(p, V3.scale([T[v * 4], T[v * 4 + 1], T[v * 4 + 2]], length)), colour);
      }
    }
    if (options.bounds) {
      tested.box(mesh.bounds.min, mesh.bounds.max, [1, 1, 1, 1]);
      mesh.submeshes.forEach((s, i) => { if (s.bounds) tested.box(s.bounds.min, s.bounds.max, [...distinctColour(i + 1), 1]); });
    }
    if (options.cones) this.addCones(tested);
    if (options.skeleton) this.addSkeleton(onTop);
    this.lineLists = [tested, onTop].map((list) => this.uploadLines(list));
    this.linesDirty = false;
  }

  addWireframe(lines, point) {
    const { mesh, options } = this;
    mesh.submeshes.forEach((_, s) => {
      const dim = options.submesh >= 0 && options.submesh !== s;
      const colour = dim ? [0.3, 0.34, 0.42, 1] : [0.15, 0.55, 0.95, 1]; // readable on light and dark
      const list = lodIndexList(mesh, s, options.lod);
      for (let t = 0; t + 2 < list.length; t += 3) {
        const a = point(list[t]);
        const b = point(list[t + 1]);
        const c = point(list[t + 2]);
        lines.add(a, b, colour); lines.add(b, c, colour); lines.add(c, a, colour);
      }
    });
  }

  addCones(lines) {
    const B = this.mesh.meshletBounds;
    for (let m = 0; m + 7 < B.length; m += 8) {
      if (!(B[m + 7] < 1)) continue; // cutoff 1: the cone cannot cull
      const centre = [B[m], B[m + 1], B[m + 2]];
      const axis = [B[m + 4], B[m + 5], B[m + 6]];
      lines.add(centre, V3.add(centre, V3.scale(axis, Math.max(B[m + 3], 0.05 * this.mesh.bounds.radius))), [1, 0.85, 0.2, 1]);
    }
  }

  addSkeleton(lines) {
    const skeleton = this.mesh.skeleton;
    const origin = (j) => [this.globals[j][12], this.globals[j][13], this.globals[j][14]];
    const tick = 0.02 * this.mesh.bounds.radius;
    skeleton.forEach((joint, j) => {
      const p = origin(j);
      if (joint.parent >= 0 && joint.parent < skeleton.length) lines.add(origin(joint.parent), p, [1, 0.8, 0.2, 1]);
      for (let axis = 0; axis < 3; axis++) {
        const d = [0, 0, 0];
        d[axis] = tick;
        lines.add(V3.sub(p, d), V3.add(p, d), [1, 0.3, 0.6, 1]);
      }
    });
  }

  uploadLines(list) {
    const { gl } = this;
    if (!list.count) return { count: 0 };
    const buffers = { position: gl.createBuffer(), colour: gl.createBuffer() };
    gl.bindBuffer(gl.ARRAY_BUFFER, buffers.position);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(list.positions), gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, buffers.colour);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(list.colours), gl.DYNAMIC_DRAW);
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    bindAttribute(gl, 0, buffers.position, 3);
    bindAttribute(gl, 3, buffers.colour, 4);
    gl.bindVertexArray(null);
    return { count: list.count, vao, buffers };
  }

  freeLines() {
    const { gl } = this;
    for (const l of this.lineLists || []) {
      if (!l.count) continue;
      gl.deleteVertexArray(l.vao);
      gl.deleteBuffer(l.buffers.position);
      gl.deleteBuffer(l.buffers.colour);
    }
    this.lineLists = [];
  }

  /** View-projection matrix and the light direction (a head light from the upper left). */
  cameraMatrices() {
    const { bounds } = this.mesh;
    const { yaw, pitch, distance } = this.camera;
    const dir = [Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch), Math.cos(pitch) * Math.cos(yaw)];
    const eye = V3.add(bounds.center, V3.scale(dir, distance));
    const view = M4.lookAt(eye, bounds.center, [0, 1, 0]);
    const aspect = this.canvas.width / Math.max(1, this.canvas.height);
    const near = Math.max(distance - 2 * bounds.radius, distance * 0.01, 1e-5);
    const far = distance + 3 * bounds.radius;
    const right = V3.normalize(V3.cross([0, 1, 0], dir));
    const up = V3.cross(dir, right);
    const light = V3.normalize(V3.add(V3.add(dir, V3.scale(right, -0.45)), V3.scale(up, 0.6)));
    return { viewProj: M4.multiply(M4.perspective(FOV, aspect, near, far), view), light };
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.canvas.clientWidth * ratio));
    const height = Math.max(1, Math.round(this.canvas.clientHeight * ratio));
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
    }
  }

  requestRender() {
    if (this.cancelPending || this.destroyed) return;
    this.cancelPending = nextFrame(() => {
      this.cancelPending = null;
      if (this.beforeFrame) this.beforeFrame();
      this.render();
    });
  }

  render() {
    const { gl } = this;
    if (this.destroyed || gl.isContextLost()) return;
    this.resize();
    if (this.linesDirty) { this.freeLines(); this.buildLines(); }
    if (this.options.meshlets && this.meshletDirty) this.buildMeshletGeometry();
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.13, 0.15, 0.19, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL);
    gl.disable(gl.CULL_FACE);
    const camera = this.cameraMatrices();
    this.drawSurface(camera);
    this.drawLines(camera);
  }

  drawSurface({ viewProj, light }) {
    const { gl } = this;
    const u = this.surface.uniforms;
    gl.useProgram(this.surface.program);
    gl.uniformMatrix4fv(u.u_viewProj, false, viewProj);
    gl.uniform3fv(u.u_light, light);
    gl.uniform1i(u.u_texture, 0);
    gl.enable(gl.POLYGON_OFFSET_FILL); // keeps wireframe lines in front of their faces
    gl.polygonOffset(1, 1);
    if (this.options.meshlets) this.drawMeshlets();
    else this.drawSubmeshes();
    gl.disable(gl.POLYGON_OFFSET_FILL);
  }

  drawMeshlets() {
    const { gl } = this;
    const u = this.surface.uniforms;
    gl.uniform4f(u.u_factor, 1, 1, 1, 1);
    gl.uniform1i(u.u_useTexture, 0);
    gl.uniform1i(u.u_alphaMode, 0);
    gl.uniform1f(u.u_dim, 1);
    gl.bindVertexArray(this.meshletVao);
    gl.vertexAttrib2f(2, 0, 0);
    if (this.meshletCount) gl.drawArrays(gl.TRIANGLES, 0, this.meshletCount);
    gl.bindVertexArray(null);
  }

  materialRow(sub) {
    const rows = (this.mesh.material && this.mesh.material.rows) || [];
    return sub.material_slot != null ? rows[sub.material_slot] || null : null;
  }

  drawSubmeshes() {
    const { gl, mesh, options } = this;
    const u = this.surface.uniforms;
    gl.bindVertexArray(this.baseVao);
    gl.vertexAttrib4f(3, 1, 1, 1, 1); // no per-vertex colour: white
    for (const blendPass of [false, true]) {
      mesh.submeshes.forEach((sub, s) => {
        const row = this.materialRow(sub);
        const mode = row ? ['opaque', 'mask', 'blend'].indexOf(row.alpha_mode) : 0;
        if ((mode === 2) !== blendPass) return;
        const ref = row && row.textures && row.textures.base_color;
        const texture = ref && ref.path ? this.textures.get(ref.path) : null;
        gl.uniform4fv(u.u_factor, row && row.base_color_factor ? row.base_color_factor : [0.8, 0.8, 0.8, 1]);
        gl.uniform1i(u.u_useTexture, texture ? 1 : 0);
        gl.activeTexture(gl.TEXTURE0);
        gl.bindTexture(gl.TEXTURE_2D, texture);
        gl.uniform1i(u.u_alphaMode, Math.max(0, mode));
        gl.uniform1f(u.u_cutoff, row ? row.alpha_cutoff ?? 0.5 : 0.5);
        gl.uniform1f(u.u_dim, options.submesh >= 0 && options.submesh !== s ? 0.25 : 1);
        if (blendPass) { gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA); gl.depthMask(false); }
        const range = lodRange(mesh, s, options.lod);
        const first = range.source === 'lod' ? mesh.indices.length + range.first : range.first;
        if (range.count > 0) gl.drawElements(gl.TRIANGLES, range.count, gl.UNSIGNED_INT, first * 4);
        if (blendPass) { gl.disable(gl.BLEND); gl.depthMask(true); }
      });
    }
    gl.bindVertexArray(null);
  }

  drawLines({ viewProj }) {
    const { gl } = this;
    const [tested, onTop] = this.lineLists;
    gl.useProgram(this.lines.program);
    gl.uniformMatrix4fv(this.lines.uniforms.u_viewProj, false, viewProj);
    for (const [list, depth] of [[tested, true], [onTop, false]]) {
      if (!list.count) continue;
      if (!depth) gl.disable(gl.DEPTH_TEST);
      gl.bindVertexArray(list.vao);
      gl.drawArrays(gl.LINES, 0, list.count);
      gl.enable(gl.DEPTH_TEST);
    }
    gl.bindVertexArray(null);
  }

  attachControls() {
    const { canvas, camera } = this;
    const radius = this.mesh.bounds.radius;
    let drag = null;
    canvas.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      camera.yaw -= (e.clientX - drag.x) * 0.01;
      camera.pitch = clamp(camera.pitch + (e.clientY - drag.y) * 0.01, -1.5, 1.5);
      drag = { x: e.clientX, y: e.clientY };
      this.requestRender();
    });
    const stop = () => { drag = null; };
    canvas.addEventListener('pointerup', stop);
    canvas.addEventListener('pointercancel', stop);
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      camera.distance = clamp(camera.distance * Math.exp(e.deltaY * 0.0015), radius * 0.05, radius * 100);
      this.requestRender();
    }, { passive: false });
    canvas.addEventListener('dblclick', () => {
      Object.assign(camera, { yaw: 0.6, pitch: 0.35, distance: radius / Math.sin(FOV / 2) * 1.1 });
      this.requestRender();
    });
    this.resizeObserver = new ResizeObserver(() => this.requestRender());
    this.resizeObserver.observe(canvas);
  }

  destroy() {
    this.destroyed = true;
    if (this.cancelPending) this.cancelPending();
    this.resizeObserver.disconnect();
    const lose = this.gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext(); // frees the GPU memory at once
  }
}

// ===========================================================================
// Mesh view: layout, toggles, figures and animation playback.
// ===========================================================================

/** Loads every base colour texture the materials use: {images: Map(path → img), errors}. */
async function loadBaseColourImages(mesh) {
  const rows = (mesh.material && mesh.material.rows) || [];
  const paths = new Set();
  for (const sub of mesh.submeshes) {
    const row = sub.material_slot != null ? rows[sub.material_slot] : null;
    const ref = row && row.textures && row.textures.base_color;
    if (ref && ref.path) paths.add(ref.path);
  }
  const images = new Map();
  const errors = [];
  await Promise.all([...paths].map((p) => loadImage(textureImageUrl(p)).then(
    (img) => images.set(p, img), (err) => errors.push(err))));
  return { images, errors };
}

/** Loads the clips of every animation file of a skinned mesh: {clips: [{file, clip}], errors}. */
async function loadMeshClips(mesh) {
  const clips = [];
  const errors = [];
  if (!mesh.skin || !mesh.skeleton.length) return { clips, errors };
  const answers = await Promise.allSettled(mesh.animations.map((p) => apiGet('/api/anim', { path: p })));
  answers.forEach((a, i) => {
    if (a.status === 'rejected') errors.push(a.reason);
    else for (const clip of a.value.clips || []) clips.push({ file: mesh.animations[i], clip });
  });
  return { clips, errors };
}

function meshOptions(params, mesh) {
  const flag = (name) => params[name] === '1';
  return {
    lod: parseIntParam(params.lod, 0, mesh.lodCount, 0),
    wire: flag('wire'), normals: flag('normals'), tangents: flag('tangents') && mesh.hasTangents,
    meshlets: flag('meshlets') && mesh.meshlets.length > 0, bounds: flag('bounds'),
    cones: flag('cones'), skeleton: flag('skeleton') && mesh.skeleton.length > 0,
    submesh: params.submesh != null ? parseIntParam(params.submesh, -1, mesh.submeshes.length - 1, -1) : -1,
    clip: params.clip || '',
    time: params.t != null && Number.isFinite(Number.parseFloat(params.t)) ? Math.max(0, Number.parseFloat(params.t)) : null,
  };
}

function meshHash(o) {
  const bit = (b) => (b ? 1 : null);
  return {
    lod: o.lod || null, wire: bit(o.wire), normals: bit(o.normals), tangents: bit(o.tangents),
    meshlets: bit(o.meshlets), bounds: bit(o.bounds), cones: bit(o.cones), skeleton: bit(o.skeleton),
    submesh: o.submesh >= 0 ? o.submesh : null, clip: o.clip || null,
    t: o.clip && o.time != null ? Number(o.time.toFixed(3)) : null,
  };
}

function meshFigures(mesh, file, options) {
  const sumMeshlets = mesh.meshlets.length / 4;
  const lodRows = [];
  for (let lod = 0; lod <= mesh.lodCount; lod++) {
    const f = lodFigures(mesh, lod);
    lodRows.push(el('tr', { class: lod === options.lod ? 'current' : null },
      el('td', { text: lod === 0 ? '0 (full)' : String(lod) }), el('td', { class: 'num', text: fmtInt(f.triangles) }),
      el('td', { class: 'num', text: fmtInt(f.vertices) }),
      el('td', { class: 'muted', title: 'the simplifier stalled: these submeshes draw an earlier level', text: stalledNote(f.stalled, mesh.submeshes.length) })));
  }
  const rows = (mesh.material && mesh.material.rows) || [];
  const subRows = mesh.submeshes.map((s, i) => {
    const row = s.material_slot != null ? rows[s.material_slot] : null;
    return el('tr', { class: i === options.submesh ? 'current' : null },
      el('td', { text: i }), el('td', { class: 'num', text: fmtInt(s.index_count / 3) }),
      el('td', { class: 'num', text: fmtInt(s.meshlet_count) }),
      el('td', {}, s.material_slot ?? '—', row ? swatch(row.base_color_factor || [1, 1, 1, 1], row.alpha_mode) : ''));
  });
  const b = mesh.bounds;
  return el('div', {},
    figureTable([
      ['vertices', fmtInt(mesh.vertexCount)], ['triangles', fmtInt(mesh.indices.length / 3)],
      ['index bits', file.index_bits], ['meshlets', fmtInt(sumMeshlets)], ['submeshes', mesh.submeshes.length],
      ['LOD levels', `${mesh.lodCount} + full`], ['joints', mesh.skeleton.length || '—'],
      ['tangents', mesh.hasTangents ? 'yes' : 'no'],
      ['bounds', `${fmtVec(b.min, 3)} – ${fmtVec(b.max, 3)}, r ${fmtNum(b.radius, 4)}`],
      ['material', mesh.material ? assetLink(mesh.material.path) : '—'],
      ['animations', mesh.animations.length ? el('span', {}, mesh.animations.map((a) => el('div', {}, assetLink(a)))) : undefined],
    ]),
    el('h4', { text: 'Levels of detail' }),
    el('table', { class: 'grid compact' }, el('thead', {}, el('tr', {}, ['LOD', 'tris', 'verts', ''].map((h) => el('th', { text: h })))), el('tbody', {}, lodRows)),
    el('h4', { text: 'Submeshes' }),
    el('table', { class: 'grid compact' }, el('thead', {}, el('tr', {}, ['#', 'tris', 'meshlets', 'material'].map((h) => el('th', { text: h })))), el('tbody', {}, subRows)));
}

/**
 * Clip selector, play/pause and a time slider; drives viewer.setPose.
 * options.clip names the clip; options.time, when set, holds it paused there.
 */
function animationControls(viewer, clips, options, onClipChange, onTimeChange) {
  const player = { entry: null, playing: false, time: 0, started: 0 };
  const timeLabel = el('span', { class: 'muted time', text: '' });
  const slider = el('input', { type: 'range', min: 0, max: 1000, value: 0, class: 'time-slider' });
  const playButton = el('button', { type: 'button', text: 'pause' });

  const duration = () => Math.max(1e-6, (player.entry && player.entry.clip.duration) || 0);
  const pose = () => {
    viewer.setPose(player.entry ? sampleClip(viewer.mesh.skeleton, player.entry.clip, player.time) : null);
    timeLabel.textContent = player.entry ? `${player.time.toFixed(2)} / ${duration().toFixed(2)} s` : 'bind pose';
    slider.value = String(Math.round((1000 * player.time) / duration()));
  };
  const choose = (name, time = null) => {
    player.entry = clips.find((c) => c.clip.name === name) || null;
    player.time = time == null ? 0 : clamp(time, 0, duration());
    player.playing = !!player.entry && time == null;
    player.started = performance.now();
    playButton.textContent = player.playing ? 'pause' : 'play';
    playButton.disabled = !player.entry;
    slider.disabled = !player.entry;
    pose();
  };
  viewer.beforeFrame = () => {
    if (!player.playing) return;
    player.time = ((performance.now() - player.started) / 1000) % duration();
    pose();
    viewer.requestRender(); // keep the loop going while playing
  };
  playButton.addEventListener('click', () => {
    player.playing = !player.playing;
    player.started = performance.now() - player.time * 1000;
    playButton.textContent = player.playing ? 'pause' : 'play';
    options.time = player.playing ? null : player.time;
    onTimeChange();
    viewer.requestRender();
  });
  slider.addEventListener('input', () => {
    player.playing = false;
    playButton.textContent = 'play';
    player.time = (Number(slider.value) / 1000) * duration();
    options.time = player.time;
    onTimeChange();
    pose();
  });
  const names = clips.map((c) => [c.clip.name, `${c.clip.name || '(unnamed)'} (${c.file.split('/').pop()})`]);
  const select = selectBox('clip ', [['', 'bind pose'], ...names], options.clip, (v) => {
    options.time = null;
    onClipChange(v);
    choose(v);
  });
  choose(options.clip, options.time);
  return el('span', { class: 'group' }, select, playButton, slider, timeLabel);
}

function meshToolbar(mesh, options, apply, viewer, clips) {
  const toggle = (key, label, enabled = true, title = null) => checkbox(label, options[key], (on) => { options[key] = on; apply(); }, !enabled, title);
  const lods = [];
  for (let l = 0; l <= mesh.lodCount; l++) lods.push([l, l === 0 ? '0 (full)' : String(l)]);
  const hasMeshlets = mesh.meshlets.length > 0;
  return el('div', { class: 'toolbar' },
    toggle('wire', 'wireframe'), toggle('normals', 'normals'),
    toggle('tangents', 'tangents', mesh.hasTangents, mesh.hasTangents ? null : 'this mesh has no tangents'),
    toggle('meshlets', 'meshlets', hasMeshlets, 'meshlets exist for LOD 0 only'),
    toggle('bounds', 'bounds'), toggle('cones', 'meshlet cones', hasMeshlets),
    toggle('skeleton', 'skeleton', mesh.skeleton.length > 0),
    selectBox('LOD ', lods, options.lod, (v) => { options.lod = Number(v); apply(); }),
    selectBox('submesh ', [[-1, 'all'], ...mesh.submeshes.map((_, i) => [i, String(i)])], options.submesh, (v) => { options.submesh = Number(v); apply(); }),
    clips.length ? animationControls(viewer, clips, options, (name) => { options.clip = name; apply(); }, () => updateHash(meshHash(options))) : null);
}

async function showMesh(ctx, path, file) {
  const mesh = decodeMesh(await apiGet('/api/mesh', { path }));
  if (!ctx.alive()) return;
  const [textures, anims] = await Promise.all([loadBaseColourImages(mesh), loadMeshClips(mesh)]);
  if (!ctx.alive()) return;

  const canvas = el('canvas', { class: 'gl', title: 'drag: orbit, wheel: zoom, double-click: reset' });
  const figures = el('div', { class: 'side-figures' });
  const toolbarSlot = el('div');
  ctx.root.append(toolbarSlot, el('div', { class: 'mesh-body' }, el('div', { class: 'canvas-wrap' }, canvas), figures));

  const viewer = new MeshViewer(canvas, mesh, textures.images);
  ctx.onCleanup(() => viewer.destroy());
  const options = meshOptions(ctx.params, mesh);
  const apply = () => {
    viewer.setOptions(options);
    figures.replaceChildren(meshFigures(mesh, file, options));
    updateHash(meshHash(options));
  };
  toolbarSlot.append(meshToolbar(mesh, options, apply, viewer, anims.clips));
  apply();

  // Ready (or failed) once the first frame with every loaded texture is drawn:
  // drawn here at once rather than on an animation frame, which may be late.
  viewer.render();
  await afterPaint();
  if (!ctx.alive()) return;
  // The mesh is drawn even when its material, a texture or an animation failed;
  // those errors are shown and make the view `failed`.
  const errors = [...textures.errors, ...anims.errors];
  const material = mesh.material;
  if (material && material.error) {
    const named = material.error.includes(material.path) ? material.error : `${material.path}: ${material.error}`;
    errors.unshift(new ApiError(named, 422));
  }
  for (const err of errors) if (!(err instanceof ApiError)) console.error(err);
  if (errors.length) ctx.fail(new ApiError(errors.map((e) => e.message).join('\n'), errors[0].status));
  else ctx.ready();
}

// ===========================================================================
// Start.
// ===========================================================================

function start() {
  setupSidebar();
  loadAssetList();
  loadPackList();
  window.addEventListener('hashchange', route);
  // Repaint the list's current row once it exists.
  app.assetsPromise.then(() => markNavigation(parseHash()), () => {});
  route();
}

start();
