// The URL hash: #asset=PATH&opt=..., #pack=NAME, #check.

const PRIMARY_KEYS = ['asset', 'pack', 'check'];

function decodeParam(text) {
  try { return decodeURIComponent(text); } catch (_) { return text; }
}

/** The hash parameters, decoded (`+` is a space in the preview text). */
export function parseHash() {
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
export function updateHash(changes) {
  const params = { ...parseHash(), ...changes };
  const hash = buildHash(params);
  history.replaceState(null, '', hash || `${location.pathname}${location.search}`);
}
