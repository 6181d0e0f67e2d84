// The model side of the app: Glint's engine in a Web Worker (glint.worker()),
// so drawing stays smooth while the model predicts, fine-tunes or trains.
// Every call below is a message to that worker; tensors and models stay there.
import {ownBuildWorker} from '../own_build.js';

export const SAVED = 'indexeddb://glint-digits';
const SHIPPED = new URL('./model/model.json', import.meta.url).href;
const OWN_BUILD = new URL('./glint/', import.meta.url);
const META = 'glint-digits/model';   // localStorage: what the saved model is
export const TRAIN_RATE = 1e-3;    // Adam, training from scratch (as glint train)
export const TEACH_RATE = 3e-3;    // Adam, fine-tuning on a correction: a few steps must do

export const argmax = (p) => p.reduce((best, v, i) => (v > p[best] ? i : best), 0);

export class Engine {
  /**
   * Starts the worker (threads build where the page is cross-origin isolated) on the
   * app's own build of the engine: only the kernels and layers its model uses
   * (kernels.txt; `make web-apps` builds it into ./glint/), a third smaller than the package's.
   */
  static async start({threads = 'auto', onProgress} = {}) {
    return new Engine(await ownBuildWorker(OWN_BUILD, {ready: {threads, onProgress}}));
  }

  constructor(g) {
    this.g = g;
    this.model = null;
    this.source = null;     // 'shipped' | 'fine-tuned' | 'trained here'
    this.training = false;
    this.candidate = null;  // a stopped run's model, kept aside until the user chooses it
    this.stopRequested = false;
  }

  /**
   * What the worker fetched (its script, the package, the wasm build), which the page's own
   * resource list does not show, and the shipped model, which "reset" may need offline.
   */
  async resources() {
    return [...await this.g.loadedResources(), SHIPPED];
  }

  async backendInfo() {
    return this.g.backendInfo();
  }

  async setBackend(name) {
    await this.g.setBackend(name);
    return this.g.getBackend();
  }

  async getBackend() {
    return this.g.getBackend();
  }

  /** The user's saved model where there is one, else the shipped one. */
  async load() {
    const saved = await this.g.io.listModels();
    if (saved[SAVED]) {
      try {
        await this.use(await this.g.loadLayersModel(SAVED), localStorage.getItem(META) ?? 'fine-tuned');
        return;
      } catch (e) {
        console.warn(`the saved model could not be loaded (${e.message}): using the shipped one`);
      }
    }
    await this.loadShipped();
  }

  async loadShipped() {
    let model;
    try {
      model = await this.g.loadLayersModel(SHIPPED);
    } catch (e) {
      throw new Error(`the shipped model (model/model.json) could not be loaded: ${e.message}. ` +
                      'Run `make demo` to train it.');
    }
    await this.use(model, 'shipped');
  }

  async use(model, source, rate = TEACH_RATE) {
    await this.compile(model, rate);
    const old = this.model;
    this.model = model;
    this.source = source;
    if (old) await old.dispose();
  }

  async compile(model, rate) {
    await model.compile({optimizer: await this.g.train.adam(rate),
                         loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  }

  /** The shipped architecture (glint's standard cnn), freshly initialised. */
  async architecture() {
    const L = this.g.layers;
    const layers = await Promise.all([
      L.conv2d({filters: 8, kernelSize: 3, activation: 'relu', inputShape: [28, 28, 1]}),
      L.maxPooling2d({poolSize: 2}),
      L.conv2d({filters: 16, kernelSize: 3, activation: 'relu'}),
      L.maxPooling2d({poolSize: 2}),
      L.flatten(),
      L.dense({units: 10, activation: 'softmax'}),
    ]);
    return this.g.sequential({layers, name: 'cnn'});
  }

  /**
   * The first training steps of a session are several times slower than the
   * next ones (memory pools, first-use paths): a throwaway model of the same
   * shape takes them at start-up, so the first correction is as quick as the rest.
   */
  async warmUp(x, y, n) {
    const model = await this.architecture();
    const [xt, yt] = await Promise.all([this.g.tensor(x, [n, 28, 28, 1]), this.g.tensor(y, [n, 10])]);
    try {
      await this.compile(model, TEACH_RATE);
      for (let i = 0; i < 3; ++i) await model.trainOnBatch(xt, yt);
      (await model.predict(xt)).dispose();
    } finally {
      xt.dispose();
      yt.dispose();
      model.dispose();
    }
  }

  /** pixels: Float32Array(784) -> the 10 probabilities. */
  async predict(pixels) {
    return this.probsOf(pixels, 1, this.model);
  }

  /** Probabilities of n pictures (pixels: [n*784] in [0, 1]) by the model (the current one), one array each. */
  async predictMany(pixels, n, model = this.model) {
    if (n === 0) return [];
    const flat = await this.probsOf(pixels, n, model);
    return Array.from({length: n}, (_, i) => flat.slice(10 * i, 10 * i + 10));
  }

  // One round trip: the calls go out together, each using the last one's result
  // before it arrives (glint.worker() pipelines them). While training runs, the
  // worker answers between two batches: a chain awaited call by call would wait a
  // batch for each call.
  async probsOf(pixels, n, model) {
    const x = this.g.tensor(pixels, [n, 28, 28, 1]);
    try {
      return await this.probs(x, model);
    } finally {
      x.dispose().catch(() => {});   // a failed x failed the read already
    }
  }

  async probs(x, model = this.model) {
    const y = model.predict(x);
    try {
      return Array.from(await y.data());
    } finally {
      y.dispose().catch(() => {});
    }
  }

  /**
   * Fine-tunes on one batch (the user's samples mixed with replayed originals,
   * x: [n*784], y: one-hot [n*10]) until `target` reads as `label` with at
   * least `confident` probability (at least minSteps, at most maxSteps steps
   * or budgetMs). Resolves to {steps, probs, loss}.
   */
  async fineTune({x, y, n, target, label, confident = 0.8, minSteps = 2, maxSteps = 12,
                  budgetMs = 180}) {
    const t0 = performance.now();
    const g = this.g;
    const [xt, yt, one] = await Promise.all([g.tensor(x, [n, 28, 28, 1]), g.tensor(y, [n, 10]),
                                             g.tensor(target, [1, 28, 28, 1])]);
    try {
      let steps = 0, probs, loss;
      for (;;) {
        const r = await this.model.trainOnBatch(xt, yt);
        loss = Array.isArray(r) ? r[0] : r;
        ++steps;
        probs = await this.probs(one);
        const learned = argmax(probs) === label && probs[label] >= confident;
        if ((learned && steps >= minSteps) || steps >= maxSteps ||
            performance.now() - t0 > budgetMs) break;
      }
      return {steps, probs, loss};
    } finally {
      for (const t of [xt, yt, one]) t.dispose();
    }
  }

  async save(source) {
    await this.model.save(SAVED);
    this.source = source;
    localStorage.setItem(META, source);
  }

  /** Forgets the user's model: back to the shipped one. */
  async reset() {
    const saved = await this.g.io.listModels();
    if (saved[SAVED]) await this.g.io.removeModel(SAVED);
    localStorage.removeItem(META);
    await this.loadShipped();
  }

  /**
   * A fresh model of the shipped architecture (the standard cnn), trained on
   * (x, y) [n] with (xv, yv) [nv] held out. Predictions use it as it learns.
   * onBatch(batch, logs), onEpoch(epoch, logs). Resolves to {history, stopped}.
   * The model it replaces is kept until the run ends: a run that finishes
   * replaces it; a stopped run puts it back and keeps the new one aside as
   * `candidate` (adoptCandidate / dropCandidate), so a Stop never costs the
   * user the model they had.
   */
  async trainFromScratch({x, y, n, xv, yv, nv, epochs, batchSize = 64, onBatch, onEpoch}) {
    const g = this.g;
    await this.dropCandidate();
    const model = await this.architecture();
    const tensors = await Promise.all([g.tensor(x, [n, 28, 28, 1]), g.tensor(y, [n, 10]),
                                       g.tensor(xv, [nv, 28, 28, 1]), g.tensor(yv, [nv, 10])]);
    const [xt, yt, xvt, yvt] = tensors;
    const previous = {model: this.model, source: this.source};
    let kept = false;
    // Training leaves one core to the page and to reading drawings meanwhile.
    const threads = await g.getNumThreads();
    if (threads > 1) await g.setNumThreads(threads - 1);
    try {
      await this.compile(model, TRAIN_RATE);
      this.model = model;
      this.source = 'training';
      this.training = true;
      this.stopRequested = false;
      // yieldEvery 'batch': a reading asked for meanwhile waits one batch at most, not a frame.
      const history = await model.fit(xt, yt, {epochs, batchSize, shuffle: true, validationData: [xvt, yvt],
                                               yieldEvery: 'batch',
                                               callbacks: {onBatchEnd: onBatch, onEpochEnd: onEpoch}});
      await this.compile(model, TEACH_RATE);   // from now on it learns from corrections
      kept = true;
      if (this.stopRequested && previous.model) {
        this.candidate = model;
        return {history, stopped: true};
      }
      if (previous.model) await previous.model.dispose();
      previous.model = null;
      return {history, stopped: this.stopRequested};
    } finally {
      if (threads > 1) await g.setNumThreads(threads);
      this.training = false;
      for (const t of tensors) t.dispose();
      if (previous.model) {
        this.model = previous.model;
        this.source = previous.source;
        if (!kept) await model.dispose();
      }
    }
  }

  stop() {
    this.stopRequested = true;
    if (this.model) this.model.stopTraining = true;
  }

  /** The stopped run's model replaces the current one (which is disposed). */
  async adoptCandidate() {
    const old = this.model;
    this.model = this.candidate;
    this.candidate = null;
    this.source = 'trained here';
    if (old) await old.dispose();
  }

  async dropCandidate() {
    const c = this.candidate;
    this.candidate = null;
    if (c) await c.dispose();
  }

  /** Accuracy of the current model (or the candidate) on pictures [n*784] with labels [n]. */
  async accuracy(pixels, labels, n, {candidate = false} = {}) {
    const probs = await this.predictMany(pixels, n, candidate ? this.candidate : this.model);
    return probs.filter((p, i) => argmax(p) === labels[i]).length / n;
  }

  /** TF.js model artifacts of the current model (weights included). */
  async artifacts() {
    return this.model.toArtifacts();
  }
}
