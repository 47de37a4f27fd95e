// Layout facts for tests: with `?layout` in the page's address, each view,
// once ready, measures what a reader would find cut off or broken and
// records it on <body>, where `chromium --dump-dom` shows it:
//   data-layout="measured" once measured (at the width of the window),
//   data-cut   elements whose content is wider than their box and clipped or
//              scrolled sideways (a cut cell, a table wider than its panel),
//              except inside an element marked `data-clips` (labels that
//              are cut on purpose and repeated in full elsewhere),
//   data-split words broken across two lines (a path may break after a `/`).
// Each list holds `where: text` items separated by ` | `, empty when none.

import { afterPaint } from './dom.js';
import { loadAssetList, loadPackList } from './sidebar.js';

const REGIONS = ['#top', '#side', '#view'];
const CLIPPING = new Set(['hidden', 'clip', 'auto', 'scroll']);

/** Whether the page was opened to record layout facts. */
export function layoutRequested() {
  return new URLSearchParams(location.search).has('layout');
}

/** A short description of an element: its tag, id or first class, and text. */
function describe(node) {
  const name = node.id ? `#${node.id}` : node.classList.length ? `${node.tagName.toLowerCase()}.${node.classList[0]}` : node.tagName.toLowerCase();
  return `${name}: ${(node.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60)}`;
}

/** Elements that clip or scroll sideways content wider than their box. */
function cutElements() {
  const cut = [];
  for (const region of REGIONS) {
    for (const node of document.querySelectorAll(`${region}, ${region} *`)) {
      if (node instanceof HTMLCanvasElement || node.closest('[data-clips]')) continue;
      if (!CLIPPING.has(getComputedStyle(node).overflowX)) continue;
      if (node.scrollWidth > node.clientWidth + 1) cut.push(describe(node));
    }
  }
  return cut;
}

/** The pieces of a text a line may not break inside: words, paths cut after each `/`. */
function unbreakablePieces(text) {
  const pieces = [];
  const pattern = /[^\s/]+\/?|\//g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    pieces.push([match.index, match.index + match[0].length]);
  }
  return pieces;
}

/** Words laid out over more than one line. */
function splitWords() {
  const split = [];
  const range = document.createRange();
  for (const region of REGIONS) {
    const root = document.querySelector(region);
    if (!root) continue;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      if (!text.parentElement || !text.parentElement.getClientRects().length) continue;
      for (const [start, end] of unbreakablePieces(text.data)) {
        range.setStart(text, start);
        range.setEnd(text, end);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) split.push(`${describe(text.parentElement).split(':')[0]}: ${text.data.slice(start, end)}`);
      }
    }
  }
  return split;
}

/** Measures the page once the asset and pack lists are in, and records the facts on <body>. */
export async function recordLayout(alive) {
  await Promise.allSettled([loadAssetList(), loadPackList()]);
  await afterPaint();
  if (!alive()) return;
  const body = document.body;
  body.dataset.cut = cutElements().join(' | ');
  body.dataset.split = splitWords().join(' | ');
  body.dataset.layout = 'measured';
}
