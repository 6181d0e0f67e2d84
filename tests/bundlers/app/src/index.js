// The app's page: the task on the main thread, in glint.worker(), and in the
// app's own worker (which imports glint-ml itself). The results land in
// window.appResult for the test driver (tests/bundlers/run.mjs).
import * as tf from 'glint-ml';
import {learnLine} from './task.js';

async function inGlintWorker() {
  const g = await tf.worker();
  try {
    const model = await g.sequential({layers: [await g.layers.dense({units: 1, inputShape: [1]})]});
    await model.compile({optimizer: await g.train.sgd(0.05), loss: 'meanSquaredError'});
    const xs = await g.tensor2d([-1, 0, 1, 2, 3, 4], [6, 1]);
    const ys = await g.tensor2d([-3, -1, 1, 3, 5, 7], [6, 1]);
    await model.fit(xs, ys, {epochs: 300, verbose: 0});
    const out = await model.predict(await g.tensor2d([10], [1, 1]));
    const y = (await out.data())[0];
    return {y, ok: Math.abs(y - 19) < 0.1};
  } finally {
    g.terminate();
  }
}

function inOwnWorker() {
  const w = new Worker(new URL('./own_worker.js', import.meta.url), {type: 'module'});
  return new Promise((resolve) => {
    w.onmessage = (e) => {
      w.terminate();
      resolve(e.data);
    };
    w.onerror = (e) => resolve({error: `own worker: ${e.message ?? 'failed to start'}`});
  });
}

async function settle(p) {
  try {
    return await p;
  } catch (e) {
    return {error: String(e && e.stack || e)};
  }
}

const result = {crossOriginIsolated: globalThis.crossOriginIsolated === true};
result.main = await settle(learnLine());
result.glintWorker = await settle(inGlintWorker());
result.ownWorker = await settle(inOwnWorker());
window.appResult = result;
document.getElementById('out').textContent = JSON.stringify(result);
