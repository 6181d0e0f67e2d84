// The measured backend choice in the JS API (web/package/src/calibrate.js), in
// node on the single-thread build: what a calibration records, that it puts
// the weights and the optimizer's state back, and when fit() calibrates by
// itself. (Which backend is faster is the machine's business: no time is
// asserted.) The same over webgpu: tests/web/webgpu_node.test.mjs.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as glint from '../../web/package/src/index.js';

await glint.ready();

function model() {
  glint.setSeed(3);
  const m = glint.sequential({layers: [glint.layers.dense({units: 8, activation: 'relu', inputShape: [4]}),
                                       glint.layers.dense({units: 3, activation: 'softmax'})]});
  m.compile({optimizer: glint.train.adam(0.05), loss: 'categoricalCrossentropy'});
  return m;
}

const x = glint.tensor(Array.from({length: 64}, (_, i) => Math.sin(i)), [16, 4]);
const y = glint.oneHot(glint.tensor(Array.from({length: 16}, (_, i) => i % 3), [16], 'int32'), 3);

test('fit calibrates nothing where only one fast backend exists (node: cpu)', async () => {
  const info = glint.backendInfo();
  assert.deepEqual(info.calibrationCandidates, ['cpu']);
  assert.equal(info.chosenAutomatically, true);
  const m = model();
  await m.fit(x, y, {epochs: 1, batchSize: 8});
  assert.equal(glint.backendInfo().calibrated, false);
  m.dispose();
});

test('calibrateBackend: the faster of what it timed, recorded, the twin model\'s history kept', async () => {
  const a = model(), b = model();
  await a.trainOnBatch(x, y);  // Adam's moments exist before the calibration
  await b.trainOnBatch(x, y);
  const before = a.getWeights().map((w) => Array.from(w.dataSync()));
  const c = await a.calibrateBackend(x, y, {candidates: ['cpu', 'reference', 'nope'], warmup: 1, runs: 2});
  assert.deepEqual(c.timings.map((t) => t.backend), ['cpu', 'reference', 'nope']);
  for (const t of c.timings.slice(0, 2)) assert.ok(t.msPerStep > 0 && t.runs >= 1 && t.error === '', JSON.stringify(t));
  assert.match(c.timings[2].error, /unknown backend 'nope'/);
  assert.equal(c.chosen, c.timings[0].msPerStep <= c.timings[1].msPerStep ? 'cpu' : 'reference');
  assert.match(c.what, /training step, batch 16$/);
  const info = glint.backendInfo();
  assert.equal(info.active, c.chosen);
  assert.equal(info.calibrated, true);
  assert.equal(info.chosenAutomatically, false);
  assert.deepEqual(info.calibration, c);
  assert.match(info.why, /^calibrated: fastest for /);
  assert.deepEqual(a.getWeights().map((w) => Array.from(w.dataSync())), before);
  // The next step continues the same history as the twin's (Adam's state included).
  glint.setBackend('cpu');
  assert.equal(glint.backendInfo().calibrated, false);
  const [la, lb] = [await a.trainOnBatch(x, y), await b.trainOnBatch(x, y)];
  assert.equal(la, lb);
  assert.deepEqual(a.getWeights().map((w) => Array.from(w.dataSync())),
                   b.getWeights().map((w) => Array.from(w.dataSync())));
  await assert.rejects(a.calibrateBackend(x, y, {candidates: ['nope']}), /failed on every backend: nope: /);
  assert.equal(glint.getBackend(), 'cpu');
  await assert.rejects(a.calibrateBackend(x, y, {candidates: []}), /candidates must be a non-empty array/);
  a.dispose();
  b.dispose();
});
