// Numbers as text, and integer parameters read from the hash.

import { clamp } from './maths.js';

/** An integer with thousands separators. */
export function fmtInt(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n ?? '');
}

/** A byte count in B, KiB, MiB, GiB or TiB. */
export function fmtBytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${units[unit]}`;
}

/** A number with at most `digits` significant digits (integers as they are). */
export function fmtNum(x, digits = 4) {
  if (typeof x !== 'number') return String(x ?? '');
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(digits)));
}

/** An array of numbers as `[a, b, c]`. */
export const fmtVec = (v, digits = 4) => (Array.isArray(v) ? `[${v.map((x) => fmtNum(x, digits)).join(', ')}]` : '');

/** An integer hash parameter clamped to lo..hi, or the fallback when it is not one. */
export function parseIntParam(text, lo, hi, fallback) {
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? clamp(n, lo, hi) : fallback;
}
