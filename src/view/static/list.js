// The start view: the asset counts per type, before an asset is picked.

import { afterPaint, el } from './dom.js';
import { loadAssetList } from './sidebar.js';

/** The start view: file counts per type, once the list has loaded. */
export async function showList(ctx) {
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
