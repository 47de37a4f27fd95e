// The current view: its context (root element, params, loading, ready and
// failed states) and its teardown.

import { $, el } from './dom.js';
import { ApiError, forgetViewPaths } from './api.js';
import { layoutRequested, recordLayout } from './layout.js';

const current = {
  seq: 0,              // increases with every route; stale async work checks it
  cleanups: [],        // teardown of the current view
};

/** Ends the current view (its stale async work stops, its teardown runs); returns the next view's number. */
export function nextView() {
  const seq = ++current.seq;
  runCleanups();
  forgetViewPaths();
  return seq;
}

/** Per-view context: the view's root element, its params and its state helpers. */
export function makeContext(seq, root, params) {
  const body = document.body;
  const ctx = {
    root,
    params,
    alive: () => seq === current.seq,
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
      if (layoutRequested()) recordLayout(ctx.alive).catch(console.error);
    },
    fail(err) {
      if (!(err instanceof ApiError)) console.error(err);
      if (!ctx.alive()) return;
      showError(root, err);
      body.dataset.state = 'failed';
    },
    onCleanup(fn) { current.cleanups.push(fn); },
  };
  return ctx;
}

/**
 * Records where the view's main canvas (mesh, texture, text preview or
 * waveform) sits
 * on the page, as `data-canvas="x,y,width,height"` in CSS pixels, so a test
 * can find it in a screenshot.
 */
function markMainCanvas(root) {
  const canvas = root.querySelector('canvas.gl, canvas.texture-canvas, canvas.preview, canvas.waveform');
  if (!canvas) {
    delete document.body.dataset.canvas;
    return;
  }
  const r = canvas.getBoundingClientRect();
  document.body.dataset.canvas = [r.left, r.top, r.width, r.height].map(Math.round).join(',');
}

function runCleanups() {
  for (const fn of current.cleanups.splice(0)) {
    try { fn(); } catch (err) { console.error(err); }
  }
}

/** Shows an error box under the view's heading. */
function showError(root, err) {
  const message = err instanceof Error ? err.message : String(err);
  const box = el('div', { class: 'error-box', role: 'alert' },
    el('strong', { text: err instanceof ApiError ? 'Error from the server' : 'Error in the page' }),
    el('pre', { text: message }));
  const head = $('.asset-head', root);
  if (head) head.after(box); else root.prepend(box);
}

/** Removes the view's error boxes (before it draws again). */
export function clearErrors(root) {
  for (const box of root.querySelectorAll('.error-box')) box.remove();
}
