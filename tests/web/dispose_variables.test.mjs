// tf.disposeVariables() on glint-ml and TensorFlow.js 4.22 (cpu backend)
// running the same program: every live variable goes, model weights
// included, memory().numTensors drops by as much, and a model whose weights
// went fails on predict naming the weight, not with garbage.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';

await glint.ready();
await tf.setBackend('cpu');

// The program, for either library: variables, a built model, a trained one.
async function program(m) {
  const counts = {};
  const start = m.memory().numTensors;
  const v = m.variable(m.tensor([1, 2, 3]), true, 'dv_plain');
  const model = m.sequential({layers: [m.layers.dense({units: 3, inputShape: [2]}), m.layers.dense({units: 1})]});
  model.compile({optimizer: m.train.sgd(0.1), loss: 'meanSquaredError'});
  await model.fit(m.ones([4, 2]), m.zeros([4, 1]), {epochs: 1, batchSize: 4});
  m.dispose(model.predict(m.ones([1, 2])));
  counts.made = m.memory().numTensors - start;
  const live = m.memory().numTensors;
  m.disposeVariables();
  counts.dropped = live - m.memory().numTensors;
  counts.plainDisposed = v.isDisposed;
  counts.weightDisposed = model.weights[0].isDisposed;
  let error = null;
  try {
    model.predict(m.ones([1, 2]));
  } catch (e) {
    error = e;
  }
  counts.predictThrows = error !== null;
  counts.error = error?.message;
  // Variables can be made again after (names freed).
  const again = m.variable(m.tensor([4, 5]), true, 'dv_plain');
  counts.again = Array.from(again.dataSync());
  m.disposeVariables();
  return counts;
}

test('disposeVariables frees every variable, model weights included, as TF.js', async () => {
  const theirs = await program(tf);
  const ours = await program(glint);
  assert.equal(theirs.dropped, 5, 'TF.js: the plain variable and four weights');
  assert.equal(ours.dropped, theirs.dropped, 'numTensors drops by as much');
  // TF.js bug: its disposed variables still say isDisposed false (and read as
  // garbage); glint-ml's say true and fail on reading.
  assert.equal(theirs.plainDisposed, false);
  assert.equal(ours.plainDisposed, true);
  assert.equal(ours.weightDisposed, true);
  assert.equal(theirs.predictThrows, true, 'TF.js throws on predict');
  assert.equal(ours.predictThrows, true, 'glint-ml throws on predict');
  assert.match(ours.error, /variable '.*dense.*kernel' .* was disposed/, ours.error);
  assert.deepEqual(ours.again, theirs.again);
});

test('disposeVariables: reading a disposed weight is an error; a new model works', () => {
  const model = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  const [kernel] = model.weights;
  glint.disposeVariables();
  assert.throws(() => kernel.dataSync(), /disposed/);
  assert.throws(() => model.getWeights()[0].dataSync(), /disposed/);
  const fresh = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  assert.deepEqual(fresh.predict(glint.ones([1, 3])).shape, [1, 2]);
});
