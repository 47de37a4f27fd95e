// The shader view: a SPIR-V module's entry points, resource bindings and
// push constants, as naga reflects them, and the module written back as
// WGSL by naga (a readable disassembly, not the original source).

import { afterPaint, el } from './dom.js';
import { fmtInt } from './format.js';
import { apiGet } from './api.js';
import { figureTable } from './widgets.js';

/** A plain table: the column labels and one array of cells per row. */
function table(labels, rows, className = 'grid') {
  return el('table', { class: className },
    el('thead', {}, el('tr', {}, labels.map((label) => el('th', { text: label })))),
    el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((cell) => el('td', {}, cell ?? '—'))))));
}

/** The entry points: stage, name and, for compute, the workgroup size. */
function entryTable(entries) {
  return table(['stage', 'name', 'workgroup size'], entries.map((e) => [
    e.stage, el('code', { text: e.name }), e.workgroup_size ? e.workgroup_size.join(' × ') : null,
  ]));
}

/** Resources bound to a set and binding, or push constants (no slot). */
function resourceTable(resources, slotted) {
  const labels = slotted ? ['set', 'binding', 'name', 'kind', 'type', 'size', 'used by'] : ['name', 'type', 'size', 'used by'];
  return el('div', { class: 'scroll-x' }, table(labels, resources.map((r) => [
    ...(slotted ? [String(r.set), String(r.binding)] : []),
    el('code', { text: r.name ?? '(unnamed)' }),
    ...(slotted ? [r.kind] : []),
    el('code', { class: 'shader-type', text: r.type }),
    r.size != null ? el('span', { class: 'nobreak', text: `${fmtInt(r.size)} B` }) : null,
    r.used_by.length ? r.used_by.join(', ') : el('span', { class: 'muted', text: 'none' }),
  ]), 'grid shader-resources'));
}

/** The WGSL naga writes from the module, or why it could not. */
function disassembly(dis) {
  if (dis.text == null) return el('p', { class: 'bad', text: `naga cannot write this module as ${dis.language}: ${dis.error}` });
  return el('pre', { class: 'shader-source' }, dis.text);
}

/** The shader view; ready once painted. */
export async function showShader(ctx, path) {
  const data = await apiGet('/api/shader', { path });
  if (!ctx.alive()) return;
  const dis = data.disassembly;
  ctx.root.append(
    el('section', { class: 'panel' },
      el('h3', { text: 'Module' }),
      figureTable([['SPIR-V', data.spirv], ['words', fmtInt(data.words)]]),
      el('h4', { text: `${data.entry_points.length} entry point${data.entry_points.length === 1 ? '' : 's'}` }),
      entryTable(data.entry_points),
      el('h4', { text: `${data.bindings.length} binding${data.bindings.length === 1 ? '' : 's'}` }),
      data.bindings.length ? resourceTable(data.bindings, true) : el('p', { class: 'muted', text: 'No resource bindings.' }),
      el('h4', { text: 'Push constants' }),
      data.push_constants.length ? resourceTable(data.push_constants, false) : el('p', { class: 'muted', text: 'None.' })),
    el('section', { class: 'panel' },
      el('h3', { text: `Disassembly as ${dis.language}` }),
      el('p', { class: 'muted', text: `naga's ${dis.language} rendering of the SPIR-V: the module as compiled, with naga's names, not the original source.` }),
      disassembly(dis)));
  await afterPaint();
  ctx.ready();
}
