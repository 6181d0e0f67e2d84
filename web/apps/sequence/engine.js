// The LSTM, in a Web Worker (glint.worker()): the page only sends arrays and
// receives numbers, so training never blocks it.
import * as glint from 'glint-ml';
import {ownBuildWorker} from '../own_build.js';

export class Engine {
  static async start() {
    // The cpu backend: an LSTM is many tiny kernels per step, which WebGL
    // dispatches slowly (26x slower here than cpu with SwiftShader, 862
    // windows of 14 steps). The single-thread build: a small LSTM gains little
    // from the thread pool, and on a 2-core machine its threads plus the worker
    // would leave the page's main thread waiting for a core (long tasks).
    // The app's own build of the engine (kernels.txt: the kernels and layers of
    // stacked LSTMs, traced from model_shape.json; `make web-apps` puts it in ./glint/).
    const g = await ownBuildWorker(new URL('./glint/', import.meta.url), {backend: 'cpu', ready: {threads: false}});
    const info = {...await g.backendInfo(), version: glint.version};
    return new Engine(g, info);
  }

  /** What the worker fetched (script, package, wasm), for the offline cache. */
  async resources() {
    return this.g.loadedResources();
  }

  constructor(g, info) {
    this.g = g;
    this.info = info;
    this.model = null;
  }

  async dispose() {
    if (this.model) await this.model.dispose().catch(() => {});
    this.model = null;
  }

  /** Stacked LSTMs (all but the last return sequences) and a softmax over K classes. */
  async build({window, features, classes, units, layers, learningRate}) {
    await this.dispose();
    const g = this.g;
    const list = [];
    for (let l = 0; l < layers; ++l) {
      list.push(await g.layers.lstm({units, returnSequences: l < layers - 1,
                                     ...(l === 0 ? {inputShape: [window, features]} : {})}));
    }
    list.push(await g.layers.dense({units: classes, activation: 'softmax'}));
    this.model = await g.sequential({layers: list});
    await this.compile(learningRate);
    return this.model.countParams();
  }

  async compile(learningRate) {
    await this.model.compile({optimizer: await this.g.train.adam(learningRate),
                              loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  }

  /**
   * windows: {train, val, F, K, window} from prep.makeWindows. perEpoch (0: all)
   * caps the training windows of one epoch: the windows are shuffled once and
   * each epoch takes the next perEpoch of them, so every window is used in turn.
   * valPerEpoch (0: all) caps the validation windows scored after each epoch:
   * that many, spread evenly over the validation part (the final verdict,
   * evaluate() in app.js, scores them all).
   * The whole fit runs in the worker: one message per epoch comes back.
   */
  async train(w, {epochs, batchSize, perEpoch = 0, valPerEpoch = 0, onEpoch}) {
    const g = this.g, made = [];
    const keep = async (p) => { const t = await p; made.push(t); return t; };
    const t3 = (x, n) => keep(g.tensor(x, [n, w.window, w.F]));
    const t2 = (y, n) => keep(g.tensor(y, [n, w.K]));
    this.stopped = false;
    try {
      const xs = await t3(w.train.x, w.train.count), ys = await t2(w.train.y, w.train.count);
      let vx = await t3(w.val.x, w.val.count), vy = await t2(w.val.y, w.val.count);
      if (valPerEpoch > 0 && valPerEpoch < w.val.count) {
        const step = w.val.count / valPerEpoch;
        const at = await keep(g.tensor(Int32Array.from({length: valPerEpoch}, (_, i) => Math.floor(i * step)),
                                       [valPerEpoch], 'int32'));
        vx = await keep(g.gather(vx, at));
        vy = await keep(g.gather(vy, at));
      }
      // 'batch': the worker yields after every batch, so Stop is heard at once.
      // Only epochs are reported: a message per batch (hundreds a second) would
      // keep the page's main thread busy, and under load make it stutter.
      const fit = (x, y, more) => this.model.fit(x, y, {
        batchSize, shuffle: true, validationData: [vx, vy], yieldEvery: 'batch',
        callbacks: {onEpochEnd: (e, logs) => onEpoch?.(e, logs)}, ...more,
      });
      const n = w.train.count;
      if (!(perEpoch > 0 && perEpoch < n)) return await fit(xs, ys, {epochs});
      const order = Int32Array.from({length: n}, (_, i) => i);
      for (let i = n - 1; i > 0; --i) {
        const j = Math.floor(Math.random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (let e = 0, at = 0; e < epochs && !this.stopped; ++e) {
        const idx = new Int32Array(perEpoch);
        for (let i = 0; i < perEpoch; ++i, at = (at + 1) % n) idx[i] = order[at];
        const part = [];
        try {
          const it = await g.tensor(idx, [perEpoch], 'int32');
          part.push(it);
          const bx = await g.gather(xs, it), by = await g.gather(ys, it);
          part.push(bx, by);
          await fit(bx, by, {epochs: e + 1, initialEpoch: e});
        } finally {
          await Promise.all(part.map((t) => t.dispose()));
        }
      }
      return undefined;
    } finally {
      await Promise.all(made.map((t) => t.dispose()));
    }
  }

  stop() {
    this.stopped = true;
    if (this.model) this.model.stopTraining = true;
  }

  /** Distributions [count * K] for inputs x [count, window, F]. */
  async predict(x, count, window, F) {
    // One round trip: the calls go out together (glint.worker() pipelines them).
    const t = this.g.tensor(x, [count, window, F]);
    const out = this.model.predict(t, {batchSize: 256});
    try {
      return await out.data();
    } finally {
      await Promise.all([t.dispose(), out.dispose()]).catch(() => {});   // a failure failed the read
    }
  }

  async save(url) {
    await this.model.save(url);
  }

  async load(url) {
    await this.dispose();
    this.model = await this.g.loadLayersModel(url);
  }

  async remove(url) {
    await this.g.io.removeModel(url);
  }
}
