// TF.js programs never await tf.ready(): in node, glint-ml's entry starts the
// engine on the first op. This file is its own process (node --test), so the
// engine is not started when it begins; nothing here calls ready() first.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';

await tf.setBackend('cpu');

test('ops, a fitted model and reads work without ready(), as in TF.js', async () => {
  assert.equal(glint.isReady(), false);
  const run = (lib) => {
    const x = lib.tensor2d([[1, 2], [3, 4], [5, 6]]);
    const y = lib.matMul(x, lib.tensor2d([[0.5], [-1]])).square().sum();
    return {value: y.dataSync()[0], shape: y.shape, dtype: y.dtype};
  };
  assert.deepEqual(run(glint), run(tf));
  assert.equal(glint.isReady(), true);
  assert.equal(glint.getBackend(), 'cpu');
  assert.equal(glint.backendInfo().build.name, 'glint-st');

  const model = glint.sequential({layers: [glint.layers.dense({units: 1, inputShape: [2]})]});
  model.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
  const xs = glint.tensor2d([[0, 1], [1, 0], [1, 1], [2, 1]]), ys = glint.tensor2d([[1], [2], [3], [5]]);
  const h = await model.fit(xs, ys, {epochs: 20, verbose: 0});
  assert.ok(h.history.loss.at(-1) < h.history.loss[0], JSON.stringify(h.history.loss));
  glint.dispose([xs, ys]);
  model.dispose();
});

test('ready() after the first op resolves; options that need another build are refused by name', async () => {
  await glint.ready();
  await glint.ready({threads: false});
  await assert.rejects(glint.ready({wasmPath: '/elsewhere/'}), /wasmPath: the engine already started.*before any op/);
});
