// The mesh view: layout, toggles, figures and animation playback.

import { afterPaint, el } from './dom.js';
import { clamp } from './maths.js';
import { fmtInt, fmtNum, fmtVec, parseIntParam } from './format.js';
import { ApiError, apiGet, textureImageUrl } from './api.js';
import { loadImage } from './images.js';
import { updateHash } from './hash.js';
import { assetLink, checkbox, figureTable, selectBox, swatch } from './widgets.js';
import { sampleClip } from './anim.js';
import { decodeMesh, lodFigures, stalledNote } from './mesh-data.js';
import { cameraText, MeshViewer, parseCamera } from './viewer.js';
import { chosenEnvironment, ENV_MODE, environmentChoices, iblChoice, loadEnvironmentSets, loadIblCube, STUDIO } from './environment.js';
import { missingTextures } from './material.js';

/** Loads every base colour texture the materials use: {images: Map(path → img), errors}. */
async function loadBaseColourImages(mesh) {
  const rows = (mesh.material && mesh.material.rows) || [];
  const paths = new Set();
  for (const sub of mesh.submeshes) {
    const row = sub.material_slot != null ? rows[sub.material_slot] : null;
    const ref = row && row.textures && row.textures.base_color;
    if (ref && ref.path && !ref.missing) paths.add(ref.path); // a missing one is warned about, not fetched
  }
  const images = new Map();
  const errors = [];
  await Promise.all([...paths].map((p) => loadImage(textureImageUrl(p)).then(
    (img) => images.set(p, img), (err) => errors.push(err))));
  return { images, errors };
}

/** Loads the clips of every animation file of a skinned mesh: {clips: [{file, clip}], errors}. */
async function loadMeshClips(mesh) {
  const clips = [];
  const errors = [];
  if (!mesh.skin || !mesh.skeleton.length) return { clips, errors };
  const answers = await Promise.allSettled(mesh.animations.map((p) => apiGet('/api/anim', { path: p })));
  answers.forEach((a, i) => {
    if (a.status === 'rejected') errors.push(a.reason);
    else for (const clip of a.value.clips || []) clips.push({ file: mesh.animations[i], clip });
  });
  return { clips, errors };
}

function meshOptions(params, mesh) {
  const flag = (name) => params[name] === '1';
  return {
    lod: parseIntParam(params.lod, 0, mesh.lodCount, 0),
    wire: flag('wire'), normals: flag('normals'), tangents: flag('tangents') && mesh.hasTangents,
    meshlets: flag('meshlets') && mesh.meshlets.length > 0, bounds: flag('bounds'),
    cones: flag('cones'), skeleton: flag('skeleton') && mesh.skeleton.length > 0,
    submesh: params.submesh != null ? parseIntParam(params.submesh, -1, mesh.submeshes.length - 1, -1) : -1,
    clip: params.clip || '',
    env: params.env || STUDIO,
    time: params.t != null && Number.isFinite(Number.parseFloat(params.t)) ? Math.max(0, Number.parseFloat(params.t)) : null,
  };
}

function meshHash(o) {
  const bit = (b) => (b ? 1 : null);
  return {
    lod: o.lod || null, wire: bit(o.wire), normals: bit(o.normals), tangents: bit(o.tangents),
    meshlets: bit(o.meshlets), bounds: bit(o.bounds), cones: bit(o.cones), skeleton: bit(o.skeleton),
    submesh: o.submesh >= 0 ? o.submesh : null, clip: o.clip || null,
    t: o.clip && o.time != null ? Number(o.time.toFixed(3)) : null,
    env: o.env !== STUDIO ? o.env : null,
  };
}

function meshFigures(mesh, file, options) {
  const sumMeshlets = mesh.meshlets.length / 4;
  const lodRows = [];
  for (let lod = 0; lod <= mesh.lodCount; lod++) {
    const f = lodFigures(mesh, lod);
    lodRows.push(el('tr', { class: lod === options.lod ? 'current' : null },
      el('td', { text: lod === 0 ? '0 (full)' : String(lod) }), el('td', { class: 'num', text: fmtInt(f.triangles) }),
      el('td', { class: 'num', text: fmtInt(f.vertices) }),
      el('td', { class: 'muted', title: 'the simplifier stalled: these submeshes draw an earlier level' }, stalledNote(f.stalled, mesh.submeshes.length))));
  }
  const rows = (mesh.material && mesh.material.rows) || [];
  const subRows = mesh.submeshes.map((s, i) => {
    const row = s.material_slot != null ? rows[s.material_slot] : null;
    return el('tr', { class: i === options.submesh ? 'current' : null },
      el('td', { text: i }), el('td', { class: 'num', text: fmtInt(s.index_count / 3) }),
      el('td', { class: 'num', text: fmtInt(s.meshlet_count) }),
      el('td', {}, s.material_slot ?? '—', row ? swatch(row.base_color_factor || [1, 1, 1, 1], row.alpha_mode) : ''));
  });
  const b = mesh.bounds;
  return el('div', {},
    missingTextures(mesh.material),
    figureTable([
      ['vertices', fmtInt(mesh.vertexCount)], ['triangles', fmtInt(mesh.indices.length / 3)],
      ['index bits', file.index_bits], ['meshlets', fmtInt(sumMeshlets)], ['submeshes', mesh.submeshes.length],
      ['LOD levels', `${mesh.lodCount} + full`], ['joints', mesh.skeleton.length || '—'],
      ['tangents', mesh.hasTangents ? 'yes' : 'no'],
      ['bounds', `${fmtVec(b.min, 3)} – ${fmtVec(b.max, 3)}, r ${fmtNum(b.radius, 4)}`],
      ['material', mesh.material ? assetLink(mesh.material.path) : '—'],
      ['animations', mesh.animations.length ? el('span', {}, mesh.animations.map((a) => el('div', {}, assetLink(a)))) : undefined],
    ]),
    el('h4', { text: 'Levels of detail' }),
    el('table', { class: 'grid compact lods' }, el('thead', {}, el('tr', {}, ['LOD', 'tris', 'verts', ''].map((h) => el('th', { text: h })))), el('tbody', {}, lodRows)),
    el('h4', { text: 'Submeshes' }),
    el('table', { class: 'grid compact' }, el('thead', {}, el('tr', {}, ['#', 'tris', 'meshlets', 'material'].map((h) => el('th', { text: h })))), el('tbody', {}, subRows)));
}

/**
 * Clip selector, play/pause and a time slider; drives viewer.setPose.
 * options.clip names the clip; options.time, when set, holds it paused there.
 */
function animationControls(viewer, clips, options, onClipChange, onTimeChange) {
  const player = { entry: null, playing: false, time: 0, started: 0 };
  const timeLabel = el('span', { class: 'muted time', text: '' });
  const slider = el('input', { type: 'range', min: 0, max: 1000, value: 0, class: 'time-slider' });
  const playButton = el('button', { type: 'button', text: 'pause' });

  const duration = () => Math.max(1e-6, (player.entry && player.entry.clip.duration) || 0);
  const pose = () => {
    viewer.setPose(player.entry ? sampleClip(viewer.mesh.skeleton, player.entry.clip, player.time) : null);
    timeLabel.textContent = player.entry ? `${player.time.toFixed(2)} / ${duration().toFixed(2)} s` : 'bind pose';
    slider.value = String(Math.round((1000 * player.time) / duration()));
  };
  const choose = (name, time = null) => {
    player.entry = clips.find((c) => c.clip.name === name) || null;
    player.time = time == null ? 0 : clamp(time, 0, duration());
    player.playing = !!player.entry && time == null;
    player.started = performance.now();
    playButton.textContent = player.playing ? 'pause' : 'play';
    playButton.disabled = !player.entry;
    slider.disabled = !player.entry;
    pose();
  };
  viewer.beforeFrame = () => {
    if (!player.playing) return;
    player.time = ((performance.now() - player.started) / 1000) % duration();
    pose();
    viewer.requestRender(); // keep the loop going while playing
  };
  playButton.addEventListener('click', () => {
    player.playing = !player.playing;
    player.started = performance.now() - player.time * 1000;
    playButton.textContent = player.playing ? 'pause' : 'play';
    options.time = player.playing ? null : player.time;
    onTimeChange();
    viewer.requestRender();
  });
  slider.addEventListener('input', () => {
    player.playing = false;
    playButton.textContent = 'play';
    player.time = (Number(slider.value) / 1000) * duration();
    options.time = player.time;
    onTimeChange();
    pose();
  });
  const names = clips.map((c) => [c.clip.name, `${c.clip.name || '(unnamed)'} (${c.file.split('/').pop()})`]);
  const select = selectBox('clip ', [['', 'bind pose'], ...names], options.clip, (v) => {
    options.time = null;
    onClipChange(v);
    choose(v);
  });
  choose(options.clip, options.time);
  return el('span', { class: 'group' }, select, playButton, slider, timeLabel);
}

function meshToolbar(mesh, options, apply, viewer, clips, environments) {
  const toggle = (key, label, enabled = true, title = null) => checkbox(label, options[key], (on) => { options[key] = on; apply(); }, !enabled, title);
  const lods = [];
  for (let l = 0; l <= mesh.lodCount; l++) lods.push([l, l === 0 ? '0 (full)' : String(l)]);
  const hasMeshlets = mesh.meshlets.length > 0;
  return el('div', { class: 'toolbar' },
    toggle('wire', 'wireframe'), toggle('normals', 'normals'),
    toggle('tangents', 'tangents', mesh.hasTangents, mesh.hasTangents ? null : 'this mesh has no tangents'),
    toggle('meshlets', 'meshlets', hasMeshlets, 'meshlets exist for LOD 0 only'),
    toggle('bounds', 'bounds'), toggle('cones', 'meshlet cones', hasMeshlets),
    toggle('skeleton', 'skeleton', mesh.skeleton.length > 0),
    selectBox('LOD ', lods, options.lod, (v) => { options.lod = Number(v); apply(); }),
    selectBox('submesh ', [[-1, 'all'], ...mesh.submeshes.map((_, i) => [i, String(i)])], options.submesh, (v) => { options.submesh = Number(v); apply(); }),
    selectBox('light ', environmentChoices(environments), options.env, (v) => { options.env = v; apply(); },
      'the studio, an image-based lighting set of the output (*.specular.ktx2), or one light from the camera'),
    clips.length ? animationControls(viewer, clips, options, (name) => { options.clip = name; apply(); }, () => updateHash(meshHash(options))) : null);
}

/** The mesh view: toolbar, WebGL2 canvas and figures; ready once the first frame is drawn. */
export async function showMesh(ctx, path, file) {
  const mesh = decodeMesh(await apiGet('/api/mesh', { path }));
  if (!ctx.alive()) return;
  const [textures, anims, environments] = await Promise.all([
    loadBaseColourImages(mesh), loadMeshClips(mesh), loadEnvironmentSets().catch((err) => { console.error(err); return []; })]);
  if (!ctx.alive()) return;

  const canvas = el('canvas', { class: 'gl', title: 'drag: orbit; right-, middle- or shift-drag: pan; wheel: zoom; double-click: reset' });
  const figures = el('div', { class: 'side-figures' });
  const toolbarSlot = el('div');
  ctx.root.append(toolbarSlot, el('div', { class: 'mesh-body' }, el('div', { class: 'canvas-wrap' }, canvas), figures));

  const viewer = new MeshViewer(canvas, mesh, textures.images);
  ctx.onCleanup(() => viewer.destroy());
  const options = meshOptions(ctx.params, mesh);
  options.env = chosenEnvironment(options.env, environments);
  const saved = parseCamera(ctx.params.cam);
  if (saved) viewer.setCamera(saved);
  const showCamera = () => { document.body.dataset.camera = cameraText(viewer.camera); };
  // The hash follows once the camera rests: browsers refuse hundreds of
  // history updates a second, which a drag would ask for.
  let hashTimer = null;
  viewer.onCameraChange = () => {
    showCamera();
    clearTimeout(hashTimer);
    hashTimer = setTimeout(() => { if (ctx.alive()) updateHash({ cam: cameraText(viewer.camera) }); }, 150);
  };
  ctx.onCleanup(() => {
    clearTimeout(hashTimer);
    delete document.body.dataset.camera;
    delete document.body.dataset.environment;
  });
  showCamera();
  const lighting = environmentLoader(ctx, viewer, environments);
  const apply = () => {
    viewer.setOptions(options);
    figures.replaceChildren(meshFigures(mesh, file, options));
    updateHash(meshHash(options));
    return lighting(options.env);
  };
  // After the first frame, a light that fails to load shows its error.
  const applyLater = () => { apply().catch((err) => ctx.fail(err)); };
  toolbarSlot.append(meshToolbar(mesh, options, applyLater, viewer, anims.clips, environments));
  const lit = await apply().then(() => null, (err) => err);
  if (!ctx.alive()) return;

  // Ready (or failed) once the first frame with every loaded texture is drawn:
  // drawn here at once rather than on an animation frame, which may be late.
  viewer.render();
  if (ctx.params.drag) simulateDrag(canvas, ctx.params.drag);
  await afterPaint();
  if (!ctx.alive()) return;
  // The mesh is drawn even when its material, a texture or an animation failed;
  // those errors are shown and make the view `failed`.
  const errors = [...textures.errors, ...anims.errors, ...(lit ? [lit] : [])];
  const material = mesh.material;
  if (material && material.error) {
    const named = material.error.includes(material.path) ? material.error : `${material.path}: ${material.error}`;
    errors.unshift(new ApiError(named, 422));
  }
  for (const err of errors) if (!(err instanceof ApiError)) console.error(err);
  if (errors.length) ctx.fail(new ApiError(errors.map((e) => e.message).join('\n'), errors[0].status));
  else ctx.ready();
}

/**
 * Lights the viewer with the environment named by a choice (environment.js),
 * loading an IBL cube once; resolves when it is applied and records it as
 * `data-environment`.
 */
function environmentLoader(ctx, viewer, sets) {
  const cubes = new Map();
  ctx.onCleanup(() => { for (const cube of cubes.values()) cube.then((c) => viewer.gl.deleteTexture(c.texture), () => {}); });
  return async (choice) => {
    const set = sets.find((s) => iblChoice(s) === choice);
    if (!set) {
      viewer.setEnvironment(ENV_MODE[choice] ?? ENV_MODE.studio);
      document.body.dataset.environment = choice;
      return;
    }
    if (!cubes.has(choice)) cubes.set(choice, loadIblCube(viewer.gl, set));
    const cube = await cubes.get(choice);
    if (!ctx.alive()) return;
    viewer.setEnvironment(ENV_MODE.ibl, cube);
    document.body.dataset.environment = choice;
  };
}

/**
 * Drags across the canvas as a user would, through the viewer's own pointer
 * handlers: `orbit,dx,dy` with the left button, `pan,dx,dy` with the right.
 * The tests' hook (`drag=` in the hash, removed once done).
 */
function simulateDrag(canvas, spec) {
  const [kind, dx, dy] = String(spec).split(',');
  const [x, y] = [Number(dx) || 0, Number(dy) || 0];
  const r = canvas.getBoundingClientRect();
  const start = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  const button = kind === 'pan' ? 2 : 0;
  const send = (type, px, py) => canvas.dispatchEvent(new PointerEvent(type, {
    clientX: px, clientY: py, button, buttons: button === 2 ? 2 : 1, pointerId: 1, bubbles: true,
  }));
  send('pointerdown', start.x, start.y);
  for (let step = 1; step <= 4; step++) send('pointermove', start.x + (x * step) / 4, start.y + (y * step) / 4);
  send('pointerup', start.x + x, start.y + y);
  updateHash({ drag: null });
}
