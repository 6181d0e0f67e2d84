// The LSTM, in a Web Worker (glint.worker()): the page only sends arrays and
// receives numbers, so training never blocks it.
import * as glint from '../../package/src/index.js';

export class Engine {
  static async start() {
    // The cpu backend: an LSTM is many tiny kernels per step, which WebGL
    // dispatches slowly (26x slower here than cpu with SwiftShader, 862
    // windows of 14 steps). The single-thread build: a small LSTM gains little
    // from the thread pool, and on a 2-core machine its threads plus the worker
    // would leave the page's main thread waiting for a core (long tasks).
    const g = await glint.worker({backend: 'cpu', ready: {threads: false}});
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

  /** windows: {train, val, F, K, window} from prep.makeWindows. Resolves to the history. */
  async train(w, {epochs, batchSize, onEpoch}) {
    const g = this.g, made = [];
    const t3 = async (x, n) => { const t = await g.tensor(x, [n, w.window, w.F]); made.push(t); return t; };
    const t2 = async (y, n) => { const t = await g.tensor(y, [n, w.K]); made.push(t); return t; };
    try {
      const xs = await t3(w.train.x, w.train.count), ys = await t2(w.train.y, w.train.count);
      const vx = await t3(w.val.x, w.val.count), vy = await t2(w.val.y, w.val.count);
      // 'batch': the worker yields after every batch, so Stop is heard at once.
      // Only epochs are reported: a message per batch (hundreds a second) would
      // keep the page's main thread busy, and under load make it stutter.
      return await this.model.fit(xs, ys, {
        epochs, batchSize, shuffle: true, validationData: [vx, vy], yieldEvery: 'batch',
        callbacks: {onEpochEnd: (e, logs) => onEpoch?.(e, logs)},
      });
    } finally {
      await Promise.all(made.map((t) => t.dispose()));
    }
  }

  stop() {
    if (this.model) this.model.stopTraining = true;
  }

  /** Distributions [count * K] for inputs x [count, window, F]. */
  async predict(x, count, window, F) {
    const t = await this.g.tensor(x, [count, window, F]);
    const out = await this.model.predict(t, {batchSize: 256});
    try {
      return await out.data();
    } finally {
      await Promise.all([t.dispose(), out.dispose()]);
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
