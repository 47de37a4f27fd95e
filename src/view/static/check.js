// The check view: what assetc-link check finds, each problem linked to its file.

import { afterPaint, el } from './dom.js';
import { apiGet } from './api.js';
import { assetLink } from './widgets.js';

/** The check view: assetc-link check's problems, each linked to its file. */
export async function showCheck(ctx) {
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
