// assetc view: the browser side of the local asset inspector. Plain ES2020
// modules, no build step; the server embeds every file of static/ and
// answers the same-origin /api/* requests. This module starts the page and
// routes the hash to a view.

import './log.js';
import { $ } from './dom.js';
import { apiGet } from './api.js';
import { parseHash } from './hash.js';
import { makeContext, nextView } from './context.js';
import { listedFile, loadAssetList, loadPackList, markNavigation, reloadAssetList, setupSidebar } from './sidebar.js';
import { startLive } from './live.js';
import { assetHead } from './widgets.js';
import { showList } from './list.js';
import { showCheck } from './check.js';
import { showFile } from './file.js';
import { showPack } from './pack.js';
import { showMaterial } from './material.js';
import { showTexture } from './texture.js';
import { showFont } from './font.js';
import { showAtlas } from './atlas.js';
import { showAnimation } from './anim.js';
import { showMesh } from './mesh.js';
import { showEmbed } from './embed.js';
import { showShader } from './shader.js';
import { showSound } from './sound.js';

/** Shows the view the hash names, replacing the current one. */
async function route() {
  const seq = nextView();
  const params = parseHash();
  const root = $('#view');
  root.replaceChildren();
  root.scrollTop = 0;
  const ctx = makeContext(seq, root, params);
  markNavigation(params);
  try {
    if ('asset' in params) await openAsset(ctx, params.asset);
    else if ('pack' in params) await showPack(ctx, params.pack);
    else if ('check' in params) await showCheck(ctx);
    else await showList(ctx);
  } catch (err) {
    ctx.fail(err);
  }
}

// The view of each file type; any other type gets the generic file view.
const VIEW_BY_TYPE = {
  mesh: 'mesh', texture: 'texture', font: 'font', material: 'material', animation: 'animation',
  embed: 'embed', shader: 'shader', sound: 'sound', atlas: 'atlas',
};

// A sound file is an embed; the sound view shows it with its record.
const SOUND_FILE = /\.(wav|qoa|ogg|opus)$/i;

/** The view of a file (`file` is its /api/file or asset list row, or undefined). */
function viewOf(path, file) {
  if (file && file.type === 'embed' && SOUND_FILE.test(path)) return 'sound';
  return (file && VIEW_BY_TYPE[file.type]) || 'file';
}

/** Opens one file in the view of its type. */
async function openAsset(ctx, path) {
  const listed = listedFile(path);
  ctx.begin(viewOf(path, listed));
  ctx.root.append(assetHead(path, listed));
  const file = await apiGet('/api/file', { path });
  if (!ctx.alive()) return;
  const view = viewOf(path, file);
  ctx.begin(view);
  ctx.root.replaceChildren(assetHead(path, file));
  const show = {
    mesh: showMesh, texture: showTexture, font: showFont, material: showMaterial, animation: showAnimation,
    embed: showEmbed, shader: showShader, sound: showSound, atlas: showAtlas,
  }[view] || showFile;
  await show(ctx, path, file);
}

/** Fills the sidebar and shows the first view; every hash change routes again. */
function start() {
  setupSidebar();
  const assets = loadAssetList();
  loadPackList();
  window.addEventListener('hashchange', route);
  // Repaint the list's current row once it exists.
  assets.then(() => markNavigation(parseHash()), () => {});
  route();
  startLive({ reloadView: route, reloadList: reloadAssetList });
}

start();
