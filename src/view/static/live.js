// Live refresh: while `assetc watch` runs for the same project, the server
// follows its change feed (/api/live) and the page reloads the view when a
// file it shows changed. Every view keeps its state in the hash (camera,
// zoom, level, selected asset), so reloading it loses nothing.

import { $ } from './dom.js';
import { apiGet, viewPaths } from './api.js';
import { forgetImagesOf } from './images.js';
import { parseHash, updateHash } from './hash.js';

// How often the page asks the server what the watcher built.
const POLL_MS = 1000;
// After a failed request, wait longer before asking again.
const RETRY_MS = 5000;

const state = {
  version: 0,
  reloaded: [],        // paths that made the view reload (data-live-reloaded)
};

/**
 * Starts following the server's feed. `reloadView()` shows the current hash
 * again; `reloadList()` refreshes the asset list. A `live=N` hash parameter
 * replays the builds after version N first (the tests' hook).
 */
export async function startLive({ reloadView, reloadList }) {
  const params = parseHash();
  let since = params.live != null && /^\d+$/.test(params.live) ? Number(params.live) : null;
  if (since != null) updateHash({ live: null });
  try {
    const first = await apiGet('/api/live');
    showStatus(first);
    if (!first.following) return; // a pack alone, or a folder of no project: nothing to follow
    if (since == null || since > first.version) since = first.version;
  } catch (_) {
    showStatus(null);
    return;
  }
  state.version = since;
  const poll = async () => {
    let delay = POLL_MS;
    try {
      const answer = await apiGet('/api/live', { since: state.version });
      showStatus(answer);
      // The server restarted: its versions began again.
      if (answer.version < state.version) state.version = answer.version;
      applyBuilds(answer.builds || [], { reloadView, reloadList });
    } catch (_) {
      delay = RETRY_MS;
    }
    setTimeout(poll, delay);
  };
  poll();
}

/** Reloads what the builds changed: the list when anything did, the view when one of its files did. */
function applyBuilds(builds, { reloadView, reloadList }) {
  if (!builds.length) return;
  const touched = new Set();
  for (const build of builds) {
    state.version = Math.max(state.version, build.version);
    for (const path of [...(build.changed || []), ...(build.removed || [])]) touched.add(path);
  }
  if (!touched.size) return;
  forgetImagesOf(touched);
  reloadList();
  const shown = [...touched].filter(concernsView);
  if (!shown.length) return;
  state.reloaded.push(...shown);
  document.body.dataset.liveReloaded = state.reloaded.join(' ');
  reloadView();
}

/** Whether a changed file is one the current view read, or a sibling of one (`crate.hmat` beside `crate.hmesh`). */
function concernsView(path) {
  const stem = (p) => p.replace(/\.[^./]*$/, '');
  const read = viewPaths();
  return read.has(path) || [...read].some((p) => stem(p) === stem(path));
}

/** Shows whether a watcher is followed, in the header and as `data-live`. */
function showStatus(answer) {
  const status = !answer || !answer.following ? 'off' : answer.connected ? 'connected' : 'waiting';
  document.body.dataset.live = status;
  const line = $('#live');
  if (!line) return;
  line.textContent = status === 'connected' ? 'live' : status === 'waiting' ? 'live: no watcher' : '';
  line.title = status === 'connected'
    ? `following assetc watch at ${answer.feed}: views reload when their files are rebuilt`
    : status === 'waiting' ? 'start assetc watch in this project and the views follow its builds' : '';
  line.className = status === 'connected' ? 'live on' : 'live muted';
}
