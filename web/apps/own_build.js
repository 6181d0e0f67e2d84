// Starts an app's engine worker on the app's own build of the engine
// (web/apps/APP/glint/: only the kernels and layers its model uses, made by
// `make web-apps` from APP/kernels.txt; docs/SIZE.md). `folder`: that folder's
// URL; `options`: glint.worker()'s, whose ready options get wasmPath.
import {worker} from 'glint-ml';

export async function ownBuildWorker(folder, options = {}) {
  const wasmPath = new URL(folder).href;
  try {
    return await worker({...options, ready: {...options.ready, wasmPath}});
  } catch (e) {
    // A clean checkout has no build in it until make web-apps runs: say so.
    if (!String(e.message).includes(wasmPath)) throw e;
    throw new Error(`${e.message}: the app's own engine build is missing (run \`make web-apps\`)`);
  }
}
