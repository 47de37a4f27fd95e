// The sound view: a sound record (or the sound file it names) with its
// figures, its loudness before and after the build's processing, the
// waveform with the loop shaded, and playback through WebAudio: the whole
// sound, or a few seconds across the loop's seam (the jump from the loop's
// end back to its start).

import { afterPaint, el, nextFrame } from './dom.js';
import { fmtInt, fmtNum } from './format.js';
import { apiFetch, apiGet } from './api.js';
import { showEmbed } from './embed.js';
import { assetLink, figureTable } from './widgets.js';

/** Seconds of the loop played before its end when the seam is played. */
const SEAM_LEAD = 1.5;
/** Seconds the seam is played for. */
const SEAM_LENGTH = 3;
/** Height in CSS pixels of one channel of the waveform. */
const ROW_HEIGHT = 72;

const COLOURS = { background: '#1e222a', axis: '#3b4252', wave: '#88c0d0', loop: 'rgba(235, 203, 139, 0.16)', edge: '#ebcb8b', head: '#e5e9f0' };

/** The URL of the sound as 16-bit PCM WAV. */
const wavUrl = (path) => `/api/sound/wav?path=${encodeURIComponent(path)}`;

/** Where playback is, in seconds of the sound, `elapsed` seconds after it began at `offset`. */
function playedPosition(playing, elapsed, loop) {
  const at = playing.offset + elapsed;
  if (playing.mode !== 'seam' || at < loop.end_seconds) return at;
  const length = loop.end_seconds - loop.start_seconds;
  return loop.start_seconds + ((at - loop.start_seconds) % length);
}

/** An AudioContext at the sound's own rate (so the loop ends fall on its frames), or at the default rate. */
function audioContextAt(rate) {
  try {
    return new AudioContext({ sampleRate: rate });
  } catch (_) {
    return new AudioContext();
  }
}

/** Plays one sound's WAV through WebAudio, one source node at a time. */
class SoundPlayer {
  constructor(data) {
    this.data = data;
    this.onchange = () => {}; // called when playback starts or ends
    this.audio = null;
    this.buffer = null;
    this.source = null;
    this.playing = null; // { mode, offset, startedAt } while a source plays
  }

  /** Creates the context and fetches and decodes the WAV, once (after a click, as browsers require). */
  async load() {
    if (!this.audio) this.audio = audioContextAt(this.data.rate);
    if (!this.buffer) {
      const response = await apiFetch(wavUrl(this.data.path));
      this.buffer = await this.audio.decodeAudioData(await response.arrayBuffer());
    }
    await this.audio.resume();
  }

  /** Plays the whole sound once. */
  async playAll() {
    await this.load();
    this.begin('all', 0, (source) => source.start());
  }

  /** Plays the loop from SEAM_LEAD seconds before its end, looping, for SEAM_LENGTH seconds. */
  async playSeam() {
    await this.load();
    const loop = this.data.loop;
    const from = Math.max(loop.start_seconds, loop.end_seconds - SEAM_LEAD);
    this.begin('seam', from, (source) => {
      source.loop = true;
      source.loopStart = loop.start_seconds;
      source.loopEnd = loop.end_seconds;
      source.start(0, from);
      source.stop(this.audio.currentTime + SEAM_LENGTH);
    });
  }

  /** Stops what plays, if anything. */
  stop() {
    if (this.source) this.source.stop();
  }

  /** Where playback is in seconds of the sound, or null when nothing plays. */
  position() {
    if (!this.playing) return null;
    return playedPosition(this.playing, this.audio.currentTime - this.playing.startedAt, this.data.loop);
  }

  /** Stops and releases the audio device (the view is left). */
  close() {
    this.stop();
    if (this.audio) this.audio.close().catch(() => {});
  }

  begin(mode, offset, start) {
    this.stop();
    const source = this.audio.createBufferSource();
    source.buffer = this.buffer;
    source.connect(this.audio.destination);
    source.onended = () => {
      if (this.source !== source) return;
      this.source = null;
      this.playing = null;
      this.onchange();
    };
    this.source = source;
    this.playing = { mode, offset, startedAt: this.audio.currentTime };
    start(source);
    this.onchange();
  }
}

/** Draws the waveform, one row per channel, the loop shaded and the play head at `position` seconds. */
function drawWaveform(canvas, data, position) {
  const { width, height } = canvas;
  const c2d = canvas.getContext('2d');
  c2d.fillStyle = COLOURS.background;
  c2d.fillRect(0, 0, width, height);
  const x = (seconds) => (seconds / data.seconds) * width;
  if (data.loop) {
    const [from, to] = [x(data.loop.start_seconds), x(data.loop.end_seconds)];
    c2d.fillStyle = COLOURS.loop;
    c2d.fillRect(from, 0, to - from, height);
    c2d.fillStyle = COLOURS.edge;
    c2d.fillRect(Math.min(from, width - 1), 0, 1, height);
    c2d.fillRect(Math.min(to, width - 1), 0, 1, height);
  }
  const { buckets, channels } = data.waveform;
  const row = height / Math.max(1, channels.length);
  channels.forEach((outline, channel) => {
    const middle = row * (channel + 0.5);
    const scale = row / 2 - 2;
    c2d.fillStyle = COLOURS.axis;
    c2d.fillRect(0, Math.round(middle), width, 1);
    c2d.fillStyle = COLOURS.wave;
    outline.forEach(([low, high], i) => {
      const [left, right] = [(i / buckets) * width, ((i + 1) / buckets) * width];
      const top = middle - Math.min(1, high) * scale;
      const bottom = middle - Math.max(-1, low) * scale;
      c2d.fillRect(left, top, Math.max(1, right - left), Math.max(1, bottom - top));
    });
  });
  if (position !== null) {
    c2d.fillStyle = COLOURS.head;
    c2d.fillRect(Math.min(x(position), width - 1), 0, 2, height);
  }
}

/** A loudness as text: `-16.0 LUFS`, or a dash. */
const loudnessText = (value, unit) => (Number.isFinite(value) ? `${value.toFixed(1)} ${unit}` : '—');

/** The change from before to after, signed: `+4.2 LU`. */
function changeText(before, after, unit) {
  if (!Number.isFinite(before) || !Number.isFinite(after)) return '—';
  const change = after - before;
  return `${change >= 0 ? '+' : '-'}${Math.abs(change).toFixed(1)} ${unit}`;
}

/** The loudness of the source and of the output side by side, and why one is missing. */
function loudnessPanel(loudness) {
  const before = loudness.before || {};
  const after = loudness.after || {};
  const rows = [
    ['integrated loudness', before.lufs, after.lufs, 'LUFS', 'LU'],
    ['true peak', before.true_peak, after.true_peak, 'dBTP', 'dB'],
  ];
  const notes = [
    loudness.before_note && el('p', { class: 'muted loudness-note', text: `Before: ${loudness.before_note}.` }),
    !loudness.after && el('p', { class: 'muted loudness-note', text: 'After: the sound is silent, so the record holds no loudness.' }),
  ];
  return el('section', { class: 'panel loudness' },
    el('h3', { text: 'Loudness' }),
    el('table', { class: 'grid' },
      el('thead', {}, el('tr', {}, el('th'),
        el('th', { class: 'num', title: loudness.source || '', text: 'before (source)' }),
        el('th', { class: 'num', text: 'after (output)' }),
        el('th', { class: 'num', text: 'change' }))),
      el('tbody', {}, rows.map(([label, was, is, unit, step]) => el('tr', {},
        el('th', { text: label }),
        el('td', { class: 'num before', text: loudnessText(was, unit) }),
        el('td', { class: 'num after', text: loudnessText(is, unit) }),
        el('td', { class: 'num', text: changeText(was, is, step) }))))),
    notes);
}

/** The loop as text: frames and seconds. */
function loopText(loop) {
  if (!loop) return 'none';
  return `frames ${fmtInt(loop.start)} to ${fmtInt(loop.end)} (${fmtNum(loop.start_seconds)} s to ${fmtNum(loop.end_seconds)} s)`;
}

/** The record's figures. */
function soundFigures(data) {
  const channels = { 1: '1 (mono)', 2: '2 (stereo)' }[data.channels] || String(data.channels);
  return figureTable([
    ['codec', data.codec], ['rate', `${fmtInt(data.rate)} Hz`], ['channels', channels],
    ['frames', fmtInt(data.frames)], ['length', `${fmtNum(data.seconds)} s`], ['loop', loopText(data.loop)],
    ['sound file', assetLink(data.sound_path)], ['record', assetLink(data.path)],
    ['source', data.loudness.source ?? '—'],
  ]);
}

/** The waveform canvas, following the width of its stage, with the play head while something plays. */
function waveformStage(ctx, data, player) {
  const canvas = el('canvas', { class: 'waveform', height: ROW_HEIGHT * Math.max(1, data.waveform.channels.length) });
  const stage = el('div', { class: 'waveform-stage' }, canvas);
  const draw = () => {
    canvas.width = Math.max(1, stage.clientWidth);
    drawWaveform(canvas, data, player.position());
  };
  const follow = () => {
    if (!ctx.alive()) return;
    draw();
    if (player.playing) nextFrame(follow);
  };
  const resized = new ResizeObserver(draw);
  resized.observe(stage);
  ctx.onCleanup(() => resized.disconnect());
  return { stage, draw, follow };
}

/** The Play and (for a looping sound) seam buttons, and a status line. */
function playControls(data, player, follow) {
  const status = el('span', { class: 'muted play-status' });
  const play = el('button', { type: 'button', class: 'play', text: 'Play' });
  const seam = data.loop && el('button', {
    type: 'button', class: 'seam', text: 'Play the loop seam',
    title: `plays the loop from ${SEAM_LEAD} s before its end for ${SEAM_LENGTH} s, so the jump back to its start is heard`,
  });
  const run = (action) => {
    status.textContent = 'loading…';
    status.classList.remove('bad');
    action().catch((err) => { status.textContent = err.message; status.classList.add('bad'); });
  };
  const toggle = (mode, action) => () => (player.playing && player.playing.mode === mode ? player.stop() : run(action));
  play.addEventListener('click', toggle('all', () => player.playAll()));
  if (seam) seam.addEventListener('click', toggle('seam', () => player.playSeam()));
  player.onchange = () => {
    const mode = player.playing && player.playing.mode;
    play.textContent = mode === 'all' ? 'Stop' : 'Play';
    if (seam) seam.textContent = mode === 'seam' ? 'Stop' : 'Play the loop seam';
    status.textContent = mode ? `playing ${mode === 'seam' ? 'across the seam' : 'the whole sound'}` : '';
    follow();
  };
  return el('div', { class: 'play-controls' }, play, seam, status);
}

/**
 * The sound view of a record or of a sound file. A sound file without a
 * record beside it (an embed that happens to be audio) gets the embed view.
 */
export async function showSound(ctx, path, file) {
  let data;
  try {
    data = await apiGet('/api/sound', { path });
  } catch (err) {
    if (err.status !== 404 || file.type !== 'embed') throw err;
    ctx.begin('embed');
    return showEmbed(ctx, path);
  }
  if (!ctx.alive()) return;
  const player = new SoundPlayer(data);
  ctx.onCleanup(() => player.close());
  const wave = waveformStage(ctx, data, player);
  const caption = data.loop
    ? `Shaded: the loop, ${loopText(data.loop)}.`
    : 'The sound does not loop.';
  ctx.root.append(
    el('section', { class: 'panel sound' },
      el('h3', { text: `Waveform of ${data.sound_path}` }),
      wave.stage,
      el('div', { class: 'caption muted', text: `${caption} Each channel's lowest and highest sample per column.` }),
      playControls(data, player, wave.follow)),
    el('div', { class: 'sound-body' }, loudnessPanel(data.loudness), el('div', { class: 'side-figures' }, soundFigures(data))));
  wave.draw();
  await afterPaint();
  ctx.ready();
}
