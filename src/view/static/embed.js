// The embed view: a text embed shown as text (its first 64 KiB, as the
// server sends it), anything else as a hex dump of its first bytes.

import { afterPaint, el } from './dom.js';
import { fmtBytes, fmtInt } from './format.js';
import { apiGet } from './api.js';

/** What part of the file is shown: all of it, or the first bytes. */
function shownPart(data) {
  if (!data.truncated) return `all ${fmtInt(data.bytes)} bytes`;
  return `the first ${fmtBytes(data.shown_bytes)} of ${fmtBytes(data.bytes)}; the rest is cut`;
}

/** The embed view: text as text, binary as hex; ready once painted. */
export async function showEmbed(ctx, path) {
  const data = await apiGet('/api/embed', { path });
  if (!ctx.alive()) return;
  const heading = data.text ? 'Text (UTF-8)' : 'Binary: hex dump';
  ctx.root.append(el('section', { class: 'panel embed' },
    el('h3', { text: heading }),
    el('p', { class: `muted${data.truncated ? ' cut-note' : ''}`, text: `Showing ${shownPart(data)}.` }),
    el('pre', { class: data.text ? 'embed-text' : 'embed-hex', text: data.text ? data.content : data.hex })));
  await afterPaint();
  ctx.ready();
}
