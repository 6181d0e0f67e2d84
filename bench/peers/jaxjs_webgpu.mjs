// jax-js (npm @jax-js/jax: JAX-style grad and jit, WebGPU kernels generated
// at run time) on the same Dawn GPU object as Glint, for bench/webgpu_node.mjs:
// the standard mlp's training step written with its valueAndGrad and a
// hand-written Adam (TF.js/Keras form; jax-js's optax is not on npm), jit-
// compiled, each step's loss read back; and fp32 matmul TFLOP/s. jax-js lists
// node as CPU-only; over Dawn's GPU object it runs once navigator.userAgent
// exists (it reads it to detect Firefox).
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import {CLASSES, PIXELS} from './mnist_samples.mjs';

const now = () => performance.now() / 1e3;
const timedCount = (budget, each, lo, hi) => Math.floor(Math.min(Math.max(budget / Math.max(each, 1e-9), lo), hi));

/** Runs jax-js's figures; `emit` takes each result row. */
export async function runJaxjs({gpu, globals, dir, samples, batch, batches, warmup, budget, models, matmul, emit}) {
  Object.assign(globalThis, globals);
  globalThis.navigator ??= {};
  globalThis.navigator.gpu = gpu;
  globalThis.navigator.userAgent ??= `node/${process.versions.node}`;
  const jax = await import(pathToFileURL(path.join(dir, 'dist/index.js')).href);
  const inited = await jax.init('webgpu');
  if (!inited.includes('webgpu')) throw new Error(`jax-js: no webgpu device (${inited})`);
  jax.defaultDevice('webgpu');
  emit({runner: 'jaxjs', task: 'device', devices: inited});
  const np = jax.numpy, nn = jax.nn, tree = jax.tree;

  const uniform = (shape, limit, seed) => {
    const a = new Float32Array(shape.reduce((x, y) => x * y, 1));
    let s = seed;
    for (let i = 0; i < a.length; ++i) {
      s = (s * 1103515245 + 12345) % 2147483648;
      a[i] = (s / 2147483648 * 2 - 1) * limit;
    }
    return np.array(a).reshape(shape);
  };

  if (models.includes('mlp')) {
    // Glorot-uniform kernels, zero biases: the standard mlp.
    let params = {w1: uniform([PIXELS, 128], Math.sqrt(6 / (PIXELS + 128)), 1), b1: np.zeros([128]),
                  w2: uniform([128, CLASSES], Math.sqrt(6 / (128 + CLASSES)), 2), b2: np.zeros([CLASSES])};
    let m = tree.map((p) => np.zerosLike(p.ref), params), v = tree.map((p) => np.zerosLike(p.ref), params);
    const lossFn = (p, x, y) => {
      const h = nn.relu(np.matmul(x, p.w1).add(p.b1));
      const logits = np.matmul(h, p.w2).add(p.b2);
      return np.mean(np.sum(nn.logSoftmax(logits, -1).mul(y), -1)).mul(-1);
    };
    const b1 = 0.9, b2 = 0.999, eps = 1e-7;
    // jax-js arrays are reference-counted and consumed by use: `.ref` keeps one.
    const step = jax.jit((p, m0, v0, x, y, lrt) => {
      const [loss, g] = jax.valueAndGrad(lossFn)(tree.map((q) => q.ref, p), x, y);
      const m1 = tree.map((mi, gi) => mi.mul(b1).add(gi.ref.mul(1 - b1)), m0, g);
      const v1 = tree.map((vi, gi) => vi.mul(b2).add(gi.ref.mul(gi).mul(1 - b2)), v0, g);
      const p1 = tree.map((pi, mi, vi) => pi.sub(mi.mul(lrt.ref).div(np.sqrt(vi).add(eps))), p,
                          tree.map((q) => q.ref, m1), tree.map((q) => q.ref, v1));
      lrt.dispose();
      return [loss, p1, m1, v1];
    });
    const xs = [], ys = [];
    for (let b = 0; b < batches; ++b) {
      xs.push(np.array(samples.x.slice(b * batch * PIXELS, (b + 1) * batch * PIXELS)).reshape([batch, PIXELS]));
      ys.push(np.array(samples.y.slice(b * batch * CLASSES, (b + 1) * batch * CLASSES)).reshape([batch, CLASSES]));
    }
    let t = 0, loss = NaN;
    const train = async () => {
      ++t;
      const lrt = np.array([1e-3 * Math.sqrt(1 - b2 ** t) / (1 - b1 ** t)]);
      const [l, p1, m1, v1] = step(params, m, v, xs[t % batches].ref, ys[t % batches].ref, lrt);
      params = p1;
      m = m1;
      v = v1;
      loss = (await l.data())[0];
    };
    let each = 0;
    const warm0 = now();
    for (let s = 0; s < warmup || (s < 50 && now() - warm0 < budget / 4); ++s) {
      const t0 = now();
      await train();
      each = now() - t0;
    }
    const steps = timedCount(budget, each, 3, 5000);
    const t0 = now();
    for (let s = 0; s < steps; ++s) await train();
    const seconds = now() - t0;
    emit({runner: 'jaxjs', model: 'mlp', task: 'train', steps, seconds, steps_per_s: steps / seconds, loss});
  }

  for (const {m, n, k, label} of matmul) {
    const a = uniform([m, k], 0.5, 1), b = uniform([k, n], 0.5, 2);
    // jax-js is lazy: a product nobody realises never runs. Each is realised
    // (blockUntilReady starts it) without waiting; all are awaited at the end.
    const run = async (reps) => {
      const done = [];
      for (let r = 0; r < reps; ++r) {
        const c = np.matmul(a.ref, b.ref);
        done.push(c.blockUntilReady().then(() => c.dispose()));
      }
      await Promise.all(done);
    };
    await run(2);
    let t0 = now();
    await run(3);
    const reps = timedCount(budget / 2, (now() - t0) / 3, 3, 2000);
    t0 = now();
    await run(reps);
    const seconds = now() - t0;
    emit({runner: 'jaxjs', task: 'matmul', shape: label, reps, seconds, tflops: 2 * m * n * k * reps / seconds / 1e12});
    a.dispose();
    b.dispose();
  }
}
