// fit and fitDataset stop when the loss stops being finite, with the weights
// of the last finite step (issue 31: a diverged model must not be saved).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as glint from '../../web/package/src/index.js';

await glint.ready();

function finiteWeights(model) {
  const ws = model.getWeights();
  const values = ws.flatMap((w) => Array.from(w.dataSync()));
  glint.dispose(ws);
  return values;
}

// Regression with inputs of 1e3 and SGD at 1e3: the weights pass float32's
// range within a few steps.
function blowUp() {
  const model = glint.sequential({layers: [glint.layers.dense({units: 4, inputShape: [3]}),
                                           glint.layers.dense({units: 1})]});
  model.compile({optimizer: glint.train.sgd(1e3), loss: 'meanSquaredError'});
  const x = glint.tensor(Array.from({length: 96}, (_, i) => (i % 7) * 1e3), [32, 3]);
  const y = glint.tensor(Array.from({length: 32}, (_, i) => i * 1e3), [32, 1]);
  return {model, x, y};
}

test('fit: a non-finite loss stops training with the last finite weights', async () => {
  const {model, x, y} = blowUp();
  // The weights each step starts from, and the losses of the steps that ended.
  const starts = [], losses = [];
  let error;
  try {
    await model.fit(x, y, {epochs: 50, batchSize: 8, shuffle: false, callbacks: {
      onBatchBegin: () => starts.push(finiteWeights(model)),
      onBatchEnd: (b, logs) => losses.push(logs.loss),
    }});
  } catch (e) {
    error = e;
  }
  assert.ok(error, 'fit went on past a non-finite loss');
  assert.equal(error.name, 'GlintError');
  assert.match(error.message, /\[Sequential.fit\] training diverged at epoch \d+\/50 batch \d+: loss is (nan|inf)/);
  assert.ok(losses.length > 0 && losses.every(Number.isFinite), 'a non-finite loss reached the callbacks');
  const now = finiteWeights(model);
  assert.ok(now.every(Number.isFinite), 'non-finite weights were left in the model');
  // The weights at which the loss was last finite: those the last step that
  // ended started from.
  assert.deepEqual(now, starts[losses.length - 1]);
  assert.equal(model.isTraining, false);
  glint.dispose([x, y]);
  model.dispose();
});

test('fitDataset: the same guard', async () => {
  const {model, x, y} = blowUp();
  const before = finiteWeights(model);
  const xRows = await x.array(), yRows = await y.array();
  const ds = glint.data.zip({xs: glint.data.array(xRows), ys: glint.data.array(yRows)}).batch(32);
  await assert.rejects(model.fitDataset(ds, {epochs: 50}),
                       (e) => e.name === 'GlintError' && /\[Sequential.fitDataset\] training diverged/.test(e.message));
  const now = finiteWeights(model);
  assert.ok(now.every(Number.isFinite));
  assert.notDeepEqual(now, [], 'no weights');
  assert.equal(now.length, before.length);
  glint.dispose([x, y]);
  model.dispose();
});
