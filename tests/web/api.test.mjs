// The JS API in node (single-thread build, cpu backend), checked against
// TensorFlow.js 4.22 (its cpu backend) and finite differences.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

await glint.ready();
await tf.setBackend('cpu');

function close(a, b, tol = 1e-5) {
  assert.equal(a.length, b.length, `lengths ${a.length} vs ${b.length}`);
  for (let i = 0; i < a.length; ++i) {
    const err = Math.abs(a[i] - b[i]);
    assert.ok(err <= tol * Math.max(1, Math.abs(b[i])), `element ${i}: ${a[i]} vs ${b[i]}`);
  }
}

function randomValues(n, seed) {
  let s = seed;
  return Array.from({length: n}, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 * 2 - 1;
  });
}

test('ops agree with TF.js', () => {
  const a = randomValues(12, 1), b = randomValues(12, 2);
  const cases = [
    ['add', (m) => m.add(m.tensor(a, [3, 4]), m.tensor(b, [3, 4]))],
    ['broadcast mul', (m) => m.mul(m.tensor(a, [3, 4]), m.tensor(b.slice(0, 4), [4]))],
    ['matMul', (m) => m.matMul(m.tensor(a, [3, 4]), m.tensor(b, [4, 3]))],
    ['matMul transposeB', (m) => m.matMul(m.tensor(a, [3, 4]), m.tensor(b, [3, 4]), false, true)],
    ['softmax', (m) => m.softmax(m.tensor(a, [3, 4]))],
    ['sum axis', (m) => m.sum(m.tensor(a, [3, 4]), 1, true)],
    ['mean all', (m) => m.mean(m.tensor(a, [3, 4]))],
    ['transpose', (m) => m.transpose(m.tensor(a, [3, 4]))],
    ['conv2d', (m) => m.conv2d(m.tensor(a, [1, 2, 3, 2]), m.tensor(b.slice(0, 8), [2, 2, 2, 1]), 1, 'same')],
    ['maxPool', (m) => m.maxPool(m.tensor(a, [1, 2, 3, 2]), 2, 1, 'same')],
    ['concat', (m) => m.concat([m.tensor(a, [3, 4]), m.tensor(b, [3, 4])], 1)],
    ['slice', (m) => m.slice(m.tensor(a, [3, 4]), [1, 1], [2, -1])],
    ['gather', (m) => m.gather(m.tensor(a, [3, 4]), m.tensor([2, 0], [2], 'int32'))],
    ['oneHot', (m) => m.oneHot(m.tensor([1, 0, 2], [3], 'int32'), 3)],
    ['relu+exp', (m) => m.exp(m.relu(m.tensor(a, [12])))],
    ['argMax', (m) => m.argMax(m.tensor(a, [3, 4]), 1)],
  ];
  for (const [name, f] of cases) {
    const ours = glint.tidy(() => Array.from(f(glint).dataSync()));
    const theirs = tf.tidy(() => Array.from(f(tf).dataSync()));
    try {
      close(ours, theirs);
    } catch (e) {
      throw new Error(`${name}: ${e.message}`);
    }
  }
});

test('errors name the op and the shapes', () => {
  assert.throws(() => glint.matMul(glint.ones([2, 3]), glint.ones([4, 5])),
                (e) => e instanceof glint.GlintError && /\[matMul\]/.test(e.message) &&
                    /\[2,3\]/.test(e.message));
  assert.throws(() => glint.tensor([1, 2, 3], [2, 2]), /\[tensor\].*shape \[2,2\]/);
  assert.throws(() => glint.layers.dense({units: 'x'}), glint.GlintError);
  const t = glint.ones([2]);
  t.dispose();
  assert.throws(() => t.dataSync(), /disposed/);
});

test('gradients match finite differences', () => {
  const xs = randomValues(6, 3);
  const f = (x) => glint.sum(glint.mul(glint.tanh(x), glint.square(x)));
  const x = glint.tensor(xs, [2, 3]);
  const g = Array.from(glint.grad(f)(x).dataSync());
  const h = 1e-2;
  const fd = xs.map((_, i) => {
    const plus = xs.slice(), minus = xs.slice();
    plus[i] += h;
    minus[i] -= h;
    return glint.tidy(() => (f(glint.tensor(plus, [2, 3])).dataSync()[0] -
                             f(glint.tensor(minus, [2, 3])).dataSync()[0]) / (2 * h));
  });
  close(g, fd, 2e-3);
});

test('tidy disposes what it does not return; memory returns to where it was', () => {
  const before = glint.memory().numTensors;
  const kept = glint.tidy(() => {
    const a = glint.ones([4, 4]);
    const b = a.add(1).mul(2);
    return b.sum();
  });
  assert.equal(glint.memory().numTensors, before + 1);
  kept.dispose();
  assert.equal(glint.memory().numTensors, before);
});

test('async data() equals dataSync()', async () => {
  const t = glint.tensor([1, 2, 3, 4], [2, 2]);
  assert.deepEqual(Array.from(await t.data()), Array.from(t.dataSync()));
  assert.deepEqual(await t.array(), [[1, 2], [3, 4]]);
  t.dispose();
});

test('optimizer.minimize reaches the minimum', () => {
  const w = glint.variable(glint.scalar(3));
  const opt = glint.train.sgd(0.1);
  for (let i = 0; i < 100; ++i) opt.minimize(() => w.sub(1).square());
  assert.ok(Math.abs(w.dataSync()[0] - 1) < 1e-3);
});

function xorLikeData(n, seed) {
  const v = randomValues(n * 2, seed);
  const xs = glint.tensor(v, [n, 2]);
  const labels = Int32Array.from({length: n}, (_, i) => (v[2 * i] * v[2 * i + 1] > 0 ? 1 : 0));
  const ys = glint.oneHot(glint.tensor(labels, [n], 'int32'), 2);
  return {xs, ys};
}

test('fit learns, with validation, callbacks and the event loop free between batches', async () => {
  glint.setSeed(7);
  const model = glint.sequential({layers: [
    glint.layers.dense({units: 16, inputShape: [2], activation: 'tanh'}),
    glint.layers.dense({units: 2, activation: 'softmax'}),
  ]});
  model.compile({optimizer: glint.train.adam(0.05), loss: 'categoricalCrossentropy',
                 metrics: ['accuracy']});
  const {xs, ys} = xorLikeData(256, 11);
  let batches = 0, ticks = 0;
  const timer = setInterval(() => ++ticks, 0);
  // The first step creates the optimizer's state; after it, fit must leave nothing.
  model.trainOnBatchSync(xs, ys);
  const before = glint.memory().numTensors;
  const h = await model.fit(xs, ys, {
    epochs: 30, batchSize: 32, validationSplit: 0.25, seed: 3, yieldEvery: 'batch',
    callbacks: {onBatchEnd: () => ++batches},
  });
  clearInterval(timer);
  assert.equal(glint.memory().numTensors, before, 'fit leaves no tensors behind');
  assert.equal(batches, 30 * 6);
  assert.ok(ticks > 0, 'timers ran during fit');
  assert.ok(h.history.loss.at(-1) < 0.5 * h.history.loss[0],
            `loss ${h.history.loss[0]} -> ${h.history.loss.at(-1)}`);
  assert.ok(h.history.val_acc.at(-1) > 0.85, `val_acc ${h.history.val_acc.at(-1)}`);
  const [loss, acc] = model.evaluate(xs, ys);
  assert.ok(acc.dataSync()[0] > 0.85);
  glint.dispose([loss, acc, xs, ys]);
});

test('save and load: file://, and the TF.js format both ways', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-web-'));
  const model = glint.sequential({layers: [
    glint.layers.dense({units: 5, inputShape: [3], activation: 'relu'}),
    glint.layers.dense({units: 2}),
  ]});
  const x = glint.tensor(randomValues(12, 5), [4, 3]);
  const ours = Array.from(model.predict(x).dataSync());
  await model.save('file://' + dir);
  const back = await glint.loadLayersModel('file://' + dir);
  assert.deepEqual(Array.from(back.predict(x).dataSync()), ours);
  // TF.js reads Glint's artifacts, and predicts the same.
  const artifacts = model.toArtifacts();
  const tfModel = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
  close(Array.from(tfModel.predict(tf.tensor(randomValues(12, 5), [4, 3])).dataSync()), ours, 1e-5);
  // And Glint reads TF.js's.
  let saved;
  await tfModel.save(tf.io.withSaveHandler(async (a) => {
    saved = a;
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
  const fromTf = glint.modelFromArtifacts(saved);
  close(Array.from(fromTf.predict(x).dataSync()), ours, 1e-5);
  fs.rmSync(dir, {recursive: true});
});

test('corrupt artifacts give a clear error', () => {
  const model = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  const a = model.toArtifacts();
  assert.throws(() => glint.modelFromArtifacts({...a, weightData: a.weightData.slice(0, 5)}),
                glint.GlintError);
  assert.throws(() => glint.modelFromArtifacts({...a, modelTopology: undefined}), glint.GlintError);
});

test('functional model and layer.apply on tensors', () => {
  const input = glint.input({shape: [4]});
  const d1 = glint.layers.dense({units: 3, activation: 'relu'}).apply(input);
  const d2 = glint.layers.dense({units: 3}).apply(input);
  const out = glint.layers.add().apply([d1, d2]);
  const model = glint.model({inputs: input, outputs: out});
  assert.deepEqual(model.outputs[0].shape, [null, 3]);
  const y = model.predict(glint.ones([2, 4]));
  assert.deepEqual(y.shape, [2, 3]);
  const dense = glint.layers.dense({units: 2, kernelInitializer: 'ones', useBias: false});
  assert.deepEqual(Array.from(dense.apply(glint.ones([1, 3])).dataSync()), [3, 3]);
  assert.equal(dense.getWeights()[0].shape.join(), '3,2');
});

test('datasets feed fitDataset', async () => {
  const {xs, ys} = xorLikeData(64, 2);
  const xRows = xs.arraySync(), yRows = ys.arraySync();
  const ds = glint.data.zip({xs: glint.data.array(xRows), ys: glint.data.array(yRows)}).batch(16);
  const model = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [2],
                                                               activation: 'softmax'})]});
  model.compile({optimizer: 'sgd', loss: 'categoricalCrossentropy'});
  const h = await model.fitDataset(ds, {epochs: 2});
  assert.equal(h.history.loss.length, 2);
  glint.dispose([xs, ys]);
});

test('model.dispose frees the weights and the optimizer state', async () => {
  const before = glint.memory().numTensors;
  const model = glint.sequential({layers: [glint.layers.dense({units: 4, inputShape: [3]})]});
  model.compile({optimizer: 'adam', loss: 'meanSquaredError'});
  const x = glint.ones([2, 3]), y = glint.zeros([2, 4]);
  model.trainOnBatchSync(x, y);
  glint.dispose([x, y]);
  assert.ok(glint.memory().numTensors > before);
  model.dispose();
  assert.equal(glint.memory().numTensors, before);
  assert.throws(() => model.predict(glint.ones([1, 3])), glint.GlintError);
});

test('http:// loading: progress, retry after a server error, truncated shards rejected', async () => {
  const http = await import('node:http');
  const model = glint.sequential({layers: [glint.layers.dense({units: 3, inputShape: [2]})]});
  const a = model.toArtifacts();
  const {weightData, weightSpecs, ...rest} = a;
  const half = Math.floor(weightData.byteLength / 2);
  const modelJson = {...rest, weightsManifest: [{paths: ['s1.bin', 's2.bin'], weights: weightSpecs}]};
  const shards = {'/m/s1.bin': weightData.slice(0, half), '/m/s2.bin': weightData.slice(half)};
  let failuresLeft = 1, truncate = false;
  const server = http.createServer((req, res) => {
    if (req.url === '/m/model.json') {
      if (failuresLeft > 0) {
        --failuresLeft;
        res.writeHead(503).end();
        return;
      }
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(modelJson));
    } else if (shards[req.url]) {
      const b = Buffer.from(shards[req.url]);
      res.writeHead(200).end(truncate && req.url === '/m/s2.bin' ? b.subarray(0, 2) : b);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/m/model.json`;
  try {
    const progress = [];
    const loaded = await glint.loadLayersModel(url, {onProgress: (f) => progress.push(f),
                                                     backoffMs: 1});
    assert.deepEqual(progress, [0.5, 1]);
    const x = glint.ones([1, 2]);
    assert.deepEqual(Array.from(loaded.predict(x).dataSync()),
                     Array.from(model.predict(x).dataSync()));
    truncate = true;
    await assert.rejects(glint.loadLayersModel(url, {backoffMs: 1}), /truncated or corrupt/);
  } finally {
    server.close();
  }
});

test('a custom JS loss trains exactly like the built-in one it restates', async () => {
  const run = (loss) => {
    glint.setSeed(21);
    const model = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
    model.compile({optimizer: 'sgd', loss});
    const x = glint.tensor(randomValues(12, 8), [4, 3]), y = glint.tensor(randomValues(8, 9), [4, 2]);
    const losses = [];
    for (let i = 0; i < 5; ++i) losses.push(model.trainOnBatchSync(x, y).loss);
    glint.dispose([x, y]);
    model.dispose();
    return losses;
  };
  const builtIn = run('meanSquaredError');
  const custom = run((yTrue, yPred) => glint.mean(glint.square(glint.sub(yTrue, yPred)), -1));
  close(custom, builtIn, 1e-6);
  assert.ok(builtIn[4] < builtIn[0]);
});

test('index inputs given as arrays become int32 and are freed after the op', () => {
  const x = glint.tensor([[1, 2], [3, 4], [5, 6]]);
  const before = glint.memory().numTensors;
  const g = glint.gather(x, [2, 0]);
  assert.deepEqual(g.arraySync(), [[5, 6], [1, 2]]);
  const h = glint.oneHot([1, 0], 2);
  assert.deepEqual(h.arraySync(), [[0, 1], [1, 0]]);
  assert.equal(glint.memory().numTensors, before + 2);
  glint.dispose([x, g, h]);
});

test('debug mode names the kernel that made a NaN; loss scaling skips non-finite steps', () => {
  const x = glint.tensor([1, -4, 9]);
  assert.ok(Number.isNaN(glint.sqrt(x).dataSync()[1]), 'off by default');
  glint.enableDebugMode(true);
  try {
    assert.throws(() => glint.exp(glint.sqrt(x)), (e) => e.name === 'GlintError' &&
        /\[Sqrt\]/.test(e.message) && /NaN at element 1/.test(e.message));
  } finally {
    glint.enableDebugMode(false);
  }
  const w = glint.variable(glint.tensor([1, 2]), true, 'lossScaleW');
  const opt = glint.train.sgd(0.1);
  opt.setLossScale({scale: 8, dynamic: true});
  let factor = 1;
  const loss = () => w.square().mul(factor).sum();
  opt.minimize(loss, false, [w]);
  const after1 = Array.from(w.dataSync());
  // SGD on sum(w^2): w - 0.1 * 2w, unscaled (computed here independently).
  close(after1, [0.8, 1.6]);
  factor = Infinity;
  opt.minimize(loss, false, [w]);
  assert.deepEqual(Array.from(w.dataSync()), after1, 'a non-finite step leaves w as it was');
  assert.equal(opt.skippedSteps, 1);
  assert.equal(opt.iterations, 1);
  assert.equal(opt.lossScale.scale, 4);
  assert.throws(() => opt.setLossScale({scale: -1}), /scale must be a finite number > 0/);
  glint.dispose([x, w]);
  opt.dispose();
});

// Issue 30: TF.js's dtype rules, run in both libraries on the same inputs:
// inference from typed arrays, tensor1d(values, dtype), and binary ops on
// mixed dtypes (upcast, numbers as float32, int32 / int32 as floorDiv).
test('dtype inference and mixed-dtype binary ops follow TF.js', () => {
  const cases = [
    ['int32 + 1.5', (m) => m.tensor([1, 2], undefined, 'int32').add(1.5)],
    ['int32 + 1', (m) => m.tensor([1, -2], undefined, 'int32').add(1)],
    ['int32 * float32 scalar', (m) => m.tensor([1, 2], undefined, 'int32').mul(m.scalar(2.5))],
    ['float32 pow int32 scalar', (m) => m.tensor([1, 2, -3]).pow(m.scalar(3, 'int32'))],
    ['int32 + bool', (m) => m.tensor([1, 2], undefined, 'int32').add(m.tensor([true, false]))],
    ['int32 < float32', (m) => m.tensor([1, 2], undefined, 'int32').less(m.scalar(1.5))],
    ['float32 >= int32', (m) => m.tensor([0.5, 3]).greaterEqual(m.tensor([1, 3], undefined, 'int32'))],
    ['int32 / int32', (m) => m.tensor([1, 2, -3, 7], undefined, 'int32').div(m.tensor([2, 2, 2, -2], undefined, 'int32'))],
    ['int32 - float32 tensor', (m) => m.sub(m.tensor([5], undefined, 'int32'), m.tensor([0.25]))],
    ['maximum int32, float32', (m) => m.maximum(m.tensor([1, 4], undefined, 'int32'), m.tensor([1.5, 2]))],
    ['tensor1d(values, "int32")', (m) => m.tensor1d([1.7, -2.7, 3], 'int32')],
    ['tensor(Uint8Array)', (m) => m.tensor(new Uint8Array([0, 7, 255]))],
    ['tensor(Uint8ClampedArray)', (m) => m.tensor(new Uint8ClampedArray([1, 2]))],
    ['tensor(Int32Array)', (m) => m.tensor(new Int32Array([1, -2]))],
    ['tensor(booleans)', (m) => m.tensor([true, false])],
    ['tensor5d', (m) => m.tensor5d([1, 2, 3, 4], [1, 1, 2, 2, 1])],
  ];
  for (const [name, f] of cases) {
    const want = f(tf), got = f(glint);
    assert.equal(got.dtype, want.dtype, `${name}: dtype`);
    assert.deepEqual(got.shape, want.shape, `${name}: shape`);
    close(Array.from(got.dataSync(), Number), Array.from(want.dataSync(), Number));
  }
  assert.throws(() => glint.logicalAnd(glint.tensor([1], undefined, 'int32'), glint.tensor([true])),
                /logicalAnd/);
});

// Issue 30: tf.losses as TF.js has them: each of the nine with no weights,
// per-example weights and per-element weights, under every Reduction, against
// TF.js in the same run; and the gradient of one through the tape.
test('tf.losses: the nine functions, weights and reductions as TF.js', () => {
  const labels01 = randomValues(12, 3).map((v) => (v > 0 ? 1 : 0));
  const probs = randomValues(12, 4).map((v) => 0.05 + 0.9 * (v + 1) / 2);
  const logits = randomValues(12, 5).map((v) => 4 * v);
  const a = randomValues(12, 6), b = randomValues(12, 7);
  const rowW = [0.5, 0, 2], elemW = randomValues(12, 8).map((v) => (v > 0.5 ? 0 : v + 1));
  const fns = [
    ['absoluteDifference', (m, w, r) => m.losses.absoluteDifference(m.tensor(a, [3, 4]), m.tensor(b, [3, 4]), w, r)],
    ['meanSquaredError', (m, w, r) => m.losses.meanSquaredError(m.tensor(a, [3, 4]), m.tensor(b, [3, 4]), w, r)],
    ['cosineDistance', (m, w, r) => m.losses.cosineDistance(m.tensor(a, [3, 4]), m.tensor(b, [3, 4]), 1,
                                                            w && w.rank === 2 && w.shape[1] === 4 ? undefined : w, r)],
    ['hingeLoss', (m, w, r) => m.losses.hingeLoss(m.tensor(labels01, [3, 4]), m.tensor(a, [3, 4]), w, r)],
    ['huberLoss', (m, w, r) => m.losses.huberLoss(m.tensor(a, [3, 4]), m.tensor(b.map((v) => 3 * v), [3, 4]), w, 0.7, r)],
    ['logLoss', (m, w, r) => m.losses.logLoss(m.tensor(labels01, [3, 4]), m.tensor(probs, [3, 4]), w, 1e-7, r)],
    ['sigmoidCrossEntropy', (m, w, r) => m.losses.sigmoidCrossEntropy(m.tensor(labels01, [3, 4]), m.tensor(logits, [3, 4]), w, 0.1, r)],
    ['softmaxCrossEntropy', (m, w, r) => m.losses.softmaxCrossEntropy(
        m.oneHot(m.tensor1d([0, 3, 1], 'int32'), 4).cast('float32'), m.tensor(logits, [3, 4]),
        w && w.size === 12 ? m.tensor(rowW) : w, 0.2, r)],
  ];
  const weightsOf = [(m) => undefined, (m) => m.tensor(rowW, [3, 1]), (m) => m.tensor(elemW, [3, 4])];
  for (const [name, f] of fns) {
    for (const r of [undefined, 0, 1, 2, 3]) {
      for (const w of weightsOf) {
        const want = f(tf, w(tf), r), got = f(glint, w(glint), r);
        const what = `${name}, reduction ${r}, weights ${weightsOf.indexOf(w)}`;
        assert.deepEqual(got.shape, want.shape, `${what}: shape`);
        try {
          close(got.dataSync(), want.dataSync(), 1e-4);
        } catch (e) {
          throw new Error(`${what}: ${e.message}`);
        }
      }
    }
  }
  // computeWeightedLoss alone, and Reduction's names.
  close(glint.losses.computeWeightedLoss(glint.tensor(a), glint.tensor(elemW), glint.Reduction.MEAN).dataSync(),
        tf.losses.computeWeightedLoss(tf.tensor(a), tf.tensor(elemW), tf.Reduction.MEAN).dataSync());
  assert.equal(glint.Reduction[glint.Reduction.SUM], 'SUM');
  // Its gradient, through the tape, against TF.js's.
  const gradOf = (m) => m.grad((x) => m.losses.softmaxCrossEntropy(
      m.tensor([[0, 1, 0, 0], [1, 0, 0, 0]]), x))(m.tensor(logits.slice(0, 8), [2, 4]));
  close(gradOf(glint).dataSync(), gradOf(tf).dataSync(), 1e-4);
});

// Issue 30: TF.js's numeric and explicit paddings (maxPool, conv2d,
// depthwiseConv2d), values and gradients against TF.js; inputs all negative,
// so a padded max that let the padding win would show.
test('numeric and explicit paddings as TF.js', () => {
  const v = randomValues(2 * 5 * 6 * 3, 9).map((x) => -1.5 - Math.abs(x));
  const f = randomValues(2 * 2 * 3 * 2, 10);
  for (const pad of [0, 1, 2, [[0, 0], [1, 0], [0, 2], [0, 0]]]) {
    const cases = [
      ['maxPool', (m, x) => m.maxPool(x, 3, 1, pad)],
      // (With a numeric pad TF.js sizes the width from the window's height and
      // the height's stride, and reads past the input where they differ; Glint
      // sizes each from its own. So numeric pads are compared on square
      // windows and equal strides, explicit ones on any.)
      ['maxPool stride 2', (m, x) => m.maxPool(x, typeof pad === 'number' ? 2 : [2, 3], 2, pad)],
      ['conv2d', (m, x) => m.conv2d(x, m.tensor(f, [2, 2, 3, 2]), 1, pad)],
      ['depthwiseConv2d', (m, x) => (typeof pad === 'number' ?
          m.depthwiseConv2d(x, m.tensor(f.slice(0, 12), [2, 2, 3, 1]), 2, pad) :
          m.depthwiseConv2d(x, m.tensor(f.slice(0, 6), [1, 2, 3, 1]), [1, 2], pad))],
    ];
    for (const [name, op] of cases) {
      const run = (m) => {
        const x = m.tensor(v, [2, 5, 6, 3]);
        const y = op(m, x);
        const g = m.grad((t) => m.sum(m.mul(op(m, t), m.tensor(randomValues(y.size, 11), y.shape))))(x);
        return {y, g};
      };
      const want = run(tf), got = run(glint);
      const what = `${name}, pad ${JSON.stringify(pad)}`;
      assert.deepEqual(got.y.shape, want.y.shape, `${what}: shape`);
      try {
        close(got.y.dataSync(), want.y.dataSync(), 1e-4);
        close(got.g.dataSync(), want.g.dataSync(), 1e-4);
      } catch (e) {
        throw new Error(`${what}: ${e.message}`);
      }
    }
  }
  assert.throws(() => glint.maxPool(glint.zeros([1, 4, 4, 1]), 2, 1, -1), /\[maxPool\] pad must be/);
});

test('setNumThreads: the single-thread build keeps one; bad counts are refused', () => {
  const info = glint.backendInfo();
  glint.setNumThreads(4);
  const n = glint.getNumThreads();
  assert.ok(info.build.threads ? n >= 1 && n <= 4 : n === 1, `getNumThreads() gave ${n}`);
  assert.throws(() => glint.setNumThreads(0),
                (e) => e instanceof glint.GlintError && /\[setNumThreads\]/.test(e.message));
  assert.throws(() => glint.setNumThreads(1.5), /\[setNumThreads\] n must be an integer/);
  glint.setNumThreads(1);
  assert.equal(glint.getNumThreads(), 1);
});

test('fit\'s validation, read in slices when it yields per batch, is evaluate\'s on the same weights', async () => {
  glint.setSeed(5);
  const n = 300, nv = 203;   // 203: a last slice shorter than the batch
  const x = glint.randomNormal([n, 6], 0, 1, 'float32', 1), xv = glint.randomNormal([nv, 6], 0, 1, 'float32', 2);
  const label = (t) => glint.oneHot(glint.cast(glint.greater(glint.sum(t, 1), 0), 'int32'), 2);
  const y = label(x), yv = label(xv);
  for (const yieldEvery of ['batch', 'auto', 'never']) {
    const model = glint.sequential({layers: [glint.layers.dense({units: 8, activation: 'tanh', inputShape: [6]}),
                                             glint.layers.dense({units: 2, activation: 'softmax'})]});
    model.compile({optimizer: 'sgd', loss: 'categoricalCrossentropy', metrics: ['accuracy']});
    const h = await model.fit(x, y, {epochs: 1, batchSize: 32, validationData: [xv, yv], yieldEvery});
    // After the one epoch the weights are those the validation pass used; evaluate reads
    // the whole held-out set in one engine call.
    const whole = model.evaluateLogs(xv, yv, {batchSize: 32});
    assert.ok(Math.abs(h.history.val_loss[0] - whole.loss) <= 1e-5 * Math.max(1, whole.loss),
              `${yieldEvery}: val_loss ${h.history.val_loss[0]} vs ${whole.loss}`);
    assert.ok(Math.abs(h.history.val_acc[0] - whole.acc) <= 1e-6, `${yieldEvery}: val_acc ${h.history.val_acc[0]} vs ${whole.acc}`);
    model.dispose();
  }
  glint.dispose([x, xv, y, yv]);
});
