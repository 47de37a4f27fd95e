// Talking to the server: JSON requests, their errors, and the base64
// arrays of its answers.

/** The bytes of a base64 string (the API's binary arrays). */
export function b64Bytes(text) {
  if (!text) return new Uint8Array(0);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Little-endian typed views over a fresh (so aligned) buffer.
/** A base64 array of f32. */
export const b64F32 = (t) => { const b = b64Bytes(t); return new Float32Array(b.buffer, 0, b.length >> 2); };
/** A base64 array of u32. */
export const b64U32 = (t) => { const b = b64Bytes(t); return new Uint32Array(b.buffer, 0, b.length >> 2); };
/** A base64 array of u16. */
export const b64U16 = (t) => { const b = b64Bytes(t); return new Uint16Array(b.buffer, 0, b.length >> 1); };

/** An error answered by the server (or a failed request): shown, never logged. */
export class ApiError extends Error {
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

// The runtime paths the current view asked the server about (live refresh
// reloads the view when one of them is rebuilt).
const requested = new Set();

/** The paths the current view has requested so far. */
export const viewPaths = () => requested;

/** Forgets the paths requested (a new view begins). */
export const forgetViewPaths = () => requested.clear();

/** The `path` parameter of an API URL, or null. */
export function pathOfUrl(url) {
  const query = url.split('?')[1];
  return query ? new URLSearchParams(query).get('path') : null;
}

function notePath(url) {
  const path = pathOfUrl(url);
  if (path) requested.add(path);
}

/** Fetches a URL; an error answer or no answer throws an ApiError naming it. */
export async function apiFetch(url) {
  notePath(url);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new ApiError(`${url}: the server did not answer (${err.message})`, 0);
  }
  if (!response.ok) throw new ApiError(await errorText(response, url), response.status);
  return response;
}

/** GETs an API route with query parameters and parses its JSON answer. */
export async function apiGet(path, params) {
  const url = apiUrl(path, params);
  const response = await apiFetch(url);
  try {
    return await response.json();
  } catch (err) {
    throw new ApiError(`${url}: the answer is not JSON (${err.message})`, response.status);
  }
}

/** The URL of one image of a texture, as an RGBA8 PNG. */
export function textureImageUrl(path, level = 0, layer = 0, face = 0, slice = 0) {
  return apiUrl('/api/texture/image', { path, level, layer, face, slice });
}
