// Colours: linear factors as CSS, and distinct colours for items.

import { clamp } from './maths.js';

/** Linear 0..1 to an sRGB CSS colour, for swatches of material factors. */
export function linearToCss(rgb) {
  const encode = (c) => {
    const x = clamp(c, 0, 1);
    return Math.round(255 * (x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055));
  };
  return `rgb(${encode(rgb[0])}, ${encode(rgb[1])}, ${encode(rgb[2])})`;
}

/** A distinct, stable colour for item i (golden-ratio hue walk), as [r, g, b] in 0..1. */
export function distinctColour(i) {
  const hue = (i * 0.618033988749895) % 1;
  const s = 0.65;
  const l = 0.55 + 0.1 * ((i >> 3) % 2);
  const k = (n) => (n + hue * 12) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return [f(0), f(8), f(4)];
}
