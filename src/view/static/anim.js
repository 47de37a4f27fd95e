// Animation: sampling clips (shared with the mesh view) and the animation
// view, a plot of one channel.

import { afterPaint, el, setChildren } from './dom.js';
import { clamp } from './maths.js';
import { fmtNum, parseIntParam } from './format.js';
import { apiGet } from './api.js';
import { updateHash } from './hash.js';
import { selectBox } from './widgets.js';

/** The key value i of a channel; cubic keys stored as glTF triples use the middle one. */
function keyValue(channel, i) {
  const triples = channel.values.length === 3 * channel.times.length && channel.times.length > 0;
  return channel.values[triples ? 3 * i + 1 : i];
}

function lerpArray(a, b, f) {
  return a.map((x, i) => x + (b[i] - x) * f);
}

function slerp(a, b, f) {
  let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const sign = dot < 0 ? -1 : 1;
  dot *= sign;
  if (dot > 0.9995) return normalizeQuat(a.map((x, i) => x + (sign * b[i] - x) * f));
  const theta = Math.acos(dot);
  const s = Math.sin(theta);
  const wa = Math.sin((1 - f) * theta) / s;
  const wb = (sign * Math.sin(f * theta)) / s;
  return a.map((x, i) => wa * x + wb * b[i]);
}

function normalizeQuat(q) {
  const len = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  return [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
}

/** The value of one channel at a time (held before the first and after the last key). */
function sampleChannel(channel, time) {
  const times = channel.times || [];
  const n = times.length;
  if (!n) return null;
  if (n === 1 || time <= times[0]) return keyValue(channel, 0).slice();
  if (time >= times[n - 1]) return keyValue(channel, n - 1).slice();
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (times[mid] <= time) lo = mid; else hi = mid; }
  const a = keyValue(channel, lo);
  if (channel.interpolation === 'step') return a.slice();
  const b = keyValue(channel, hi);
  const f = (time - times[lo]) / (times[hi] - times[lo] || 1);
  return channel.path === 'rotation' ? slerp(a, b, f) : lerpArray(a, b, f);
}

/** Local joint transforms {t, r, s} of a clip at a time, bind pose where not animated. */
export function sampleClip(skeleton, clip, time) {
  const locals = skeleton.map((j) => ({ t: j.translation, r: j.rotation, s: j.scale }));
  if (!clip) return locals;
  for (const channel of clip.channels || []) {
    const local = locals[channel.joint];
    const value = local && sampleChannel(channel, time);
    if (!value) continue;
    if (channel.path === 'translation') local.t = value;
    else if (channel.path === 'rotation') local.r = normalizeQuat(value);
    else if (channel.path === 'scale') local.s = value;
  }
  return locals;
}

const CHANNEL_COLOURS = ['#bf616a', '#a3be8c', '#81a1c1', '#d8dee9'];

/** Plots one channel's components over the clip's time on a 2D canvas. */
function plotChannel(canvas, channel, duration) {
  const width = canvas.width;
  const height = canvas.height;
  const c2d = canvas.getContext('2d');
  c2d.clearRect(0, 0, width, height);
  const times = channel.times || [];
  const values = times.map((_, i) => keyValue(channel, i));
  let lo = 0;
  let hi = 0;
  for (const v of values) for (const x of v) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  if (hi - lo < 1e-6) { lo -= 1; hi += 1; }
  const margin = { left: 56, right: 12, top: 12, bottom: 24 };
  const end = Math.max(duration || 0, times[times.length - 1] || 0, 1e-3);
  const x = (t) => margin.left + (t / end) * (width - margin.left - margin.right);
  const y = (v) => margin.top + (1 - (v - lo) / (hi - lo)) * (height - margin.top - margin.bottom);

  c2d.strokeStyle = '#4c566a';
  c2d.fillStyle = '#9aa5b8';
  c2d.font = '11px sans-serif';
  c2d.strokeRect(margin.left, margin.top, width - margin.left - margin.right, height - margin.top - margin.bottom);
  c2d.fillText(fmtNum(hi, 3), 4, margin.top + 8);
  c2d.fillText(fmtNum(lo, 3), 4, height - margin.bottom);
  c2d.fillText('0 s', margin.left, height - 6);
  c2d.fillText(`${fmtNum(end, 3)} s`, width - margin.right - 40, height - 6);
  c2d.beginPath();
  c2d.moveTo(margin.left, y(0));
  c2d.lineTo(width - margin.right, y(0));
  c2d.stroke();

  const components = values.length ? values[0].length : 0;
  for (let c = 0; c < components; c++) {
    c2d.strokeStyle = CHANNEL_COLOURS[c];
    c2d.fillStyle = CHANNEL_COLOURS[c];
    c2d.beginPath();
    values.forEach((v, i) => {
      if (i === 0) c2d.moveTo(x(times[i]), y(v[c]));
      else if (channel.interpolation === 'step') { c2d.lineTo(x(times[i]), y(values[i - 1][c])); c2d.lineTo(x(times[i]), y(v[c])); }
      else c2d.lineTo(x(times[i]), y(v[c]));
    });
    c2d.stroke();
    values.forEach((v, i) => c2d.fillRect(x(times[i]) - 2, y(v[c]) - 2, 4, 4));
  }
}

/** The animation view: clip selector, channel table and a plot of one channel. */
export async function showAnimation(ctx, path) {
  const data = await apiGet('/api/anim', { path });
  if (!ctx.alive()) return;
  const clips = data.clips || [];
  const params = ctx.params;
  let clipIndex = Math.max(0, clips.findIndex((c) => c.name === params.clip));
  let channelIndex = parseIntParam(params.channel, 0, 1e6, 0);
  const body = el('div');
  const plot = el('canvas', { class: 'plot', width: 760, height: 220 });
  ctx.root.append(
    el('div', { class: 'toolbar' },
      clips.length ? selectBox('clip ', clips.map((c, i) => [i, `${c.name || '(unnamed)'} — ${fmtNum(c.duration, 3)} s`]), clipIndex, (v) => { clipIndex = Number(v); channelIndex = 0; render(); })
        : el('span', { class: 'muted', text: 'no clips' })),
    body);

  function render() {
    const clip = clips[clipIndex];
    const channels = (clip && clip.channels) || [];
    channelIndex = clamp(channelIndex, 0, Math.max(0, channels.length - 1));
    updateHash({ clip: clip && clipIndex ? clip.name : null, channel: channelIndex || null });
    const keys = channels.reduce((s, c) => s + (c.times || []).length, 0);
    const legend = el('div', { class: 'legend' }, ['x', 'y', 'z', 'w'].map((n, i) => el('span', {}, el('i', { style: { background: CHANNEL_COLOURS[i] } }), n)));
    setChildren(body,
      el('p', { class: 'muted', text: clip ? `${channels.length} channels, ${keys} keys, ${fmtNum(clip.duration, 4)} s` : '' }),
      channels.length ? el('section', { class: 'panel' }, el('h3', { text: `Channel ${channelIndex}: joint ${channels[channelIndex].joint} ${channels[channelIndex].path}` }), plot, legend) : null,
      el('table', { class: 'grid channels' },
        el('thead', {}, el('tr', {}, ['#', 'joint', 'path', 'interpolation', 'keys', 'from', 'to'].map((h) => el('th', { text: h })))),
        el('tbody', {}, channels.map((c, i) => el('tr', {
          class: `clickable${i === channelIndex ? ' current' : ''}`,
          onclick: () => { channelIndex = i; render(); },
        }, [i, c.joint, c.path, c.interpolation, (c.times || []).length,
          fmtNum((c.times || [])[0] ?? 0), fmtNum((c.times || []).slice(-1)[0] ?? 0)].map((v) => el('td', { text: String(v) })))))));
    if (channels.length) {
      plot.width = Math.max(320, Math.min(1000, body.clientWidth - 32));
      plotChannel(plot, channels[channelIndex], clip.duration);
    }
  }
  render();
  await afterPaint();
  ctx.ready();
}
