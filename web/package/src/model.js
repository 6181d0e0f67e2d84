// Models: compile / fit / evaluate / predict / save, with TF.js's signatures.
// fit runs batch by batch from JS so that it can yield to the event loop: a
// page stays responsive while it trains.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, scalar, dispose} from './tensor.js';
import {ops} from './ops.js';
import {Layer, SymbolicTensor, layerFromHandle} from './layers.js';
import {Optimizer} from './train.js';
import {getSaveHandler, artifactsInfo} from './io.js';
import {checkJsonDepth, checkWeightData} from './artifact_limits.js';
import {webgpuSettleVariables} from './webgpu.js';
import {fitDataset, fitTensors, nextFrame} from './fit.js';
import {backendChosenAutomatically, calibrateBackend, calibrationCandidates} from './calibrate.js';

export {nextFrame};

function asList(x) {
  return Array.isArray(x) ? x : [x];
}

function checkTensors(op, arg, list) {
  list.forEach((t, i) => {
    if (!(t instanceof Tensor)) {
      throw new GlintError(`[${op}] ${arg}${list.length > 1 ? `[${i}]` : ''} must be a Tensor`);
    }
    t._assertLive();
  });
}

// Logs from the engine; a loss that is not finite comes as "NaN",
// "Infinity" or "-Infinity" (JSON has no such numbers) and becomes that number.
function logsFrom(text) {
  return JSON.parse(text, (k, v) => (v === 'NaN' || v === 'Infinity' || v === '-Infinity' ?
    Number(v) : v));
}

/** Rows [begin, begin + size) of t (its first axis). */
function sliceRows(t, begin, size) {
  return ops.slice(t, [begin, ...Array(t.rank - 1).fill(0)], [size, ...Array(t.rank - 1).fill(-1)]);
}

export class LayersModel extends Layer {
  constructor(id) {
    super(id);
    this.isTraining = false;
    this._stopTraining = false;
  }

  _io() {
    return core.callJson(() => core.module()._glint_model_io(this.id));
  }
  /** SymbolicTensors (shape, dtype, name), usable to build a new model from this one's graph. */
  get inputs() {
    return this._endpoints(0);
  }
  get outputs() {
    return this._endpoints(1);
  }
  get metricsNames() {
    return this._io().metricsNames ?? [];
  }
  get layers() {
    const ids = core.callIds(4096, (out, max) => core.module()._glint_model_layers(this.id, out, max));
    return ids.map(layerFromHandle);
  }
  getLayer(nameOrIndex) {
    const all = this.layers;
    const found = typeof nameOrIndex === 'number' ? all[nameOrIndex] :
        all.find((l) => l.name === nameOrIndex);
    if (!found) throw new GlintError(`[getLayer] no layer ${JSON.stringify(nameOrIndex)}`);
    return found;
  }
  /** Whether a layer keeps states between calls (a stateful RNN), as TF.js's container. */
  get stateful() {
    return this.layers.some((l) => l.stateful);
  }
  /** Resets every stateful layer's states to zeros. */
  resetStates() {
    for (const l of this.layers) if (l.stateful) l.resetStates();
  }
  get stopTraining() {
    return this._stopTraining;
  }
  set stopTraining(value) {
    this._stopTraining = Boolean(value);
    core.callInt(() => core.module()._glint_model_stop_training(this.id, value ? 1 : 0));
  }
  get optimizer() {
    return new Optimizer(core.callInt(() => core.module()._glint_model_optimizer(this.id)));
  }

  /** {optimizer: name | Optimizer, loss: name | [names], metrics?: [names]} */
  compile({optimizer = 'rmsprop', loss, metrics = []} = {}) {
    // A custom loss is a JS function (yTrue, yPred) -> per-sample losses,
    // called from the C++ training step (its ops are differentiated).
    const toSpec = (l) => {
      if (typeof l === 'function') return core.registerFn(l);
      if (typeof l !== 'string') {
        throw new GlintError('[compile] each loss must be a name (e.g. ' +
            '\'categoricalCrossentropy\') or a function (yTrue, yPred) => Tensor');
      }
      return l;
    };
    loss = loss === undefined ? [] : Array.isArray(loss) ? loss.map(toSpec) : toSpec(loss);
    const optId = optimizer instanceof Optimizer ? optimizer.id : 0;
    const optName = optimizer instanceof Optimizer ? '' : String(optimizer);
    core.callInt(() => core.module()._glint_model_compile(
        this.id, optId, core.str(optName), core.json(loss), core.json(asList(metrics))));
  }

  summary(lineLength, positions, printFn = console.log) {
    printFn(core.callString(() => core.module()._glint_model_summary(this.id, lineLength ?? 0)));
  }

  predict(x, {batchSize = 32} = {}) {
    const xs = asList(x);
    checkTensors('predict', 'x', xs);
    const ids = core.callIds(64, (out, max) => core.module()._glint_model_predict(
        this.id, core.ints(xs.map((t) => t.id)), xs.length, batchSize, out, max));
    const outs = ids.map((id) => new Tensor(id));
    return outs.length === 1 ? outs[0] : outs;
  }

  predictOnBatch(x) {
    const xs = asList(x);
    return this.predict(x, {batchSize: Math.max(1, xs[0].shape[0] ?? 1)});
  }

  _logs(fn) {
    return logsFrom(core.callString(fn));
  }

  // A step or an evaluation runs in the engine and leaves its logged values on
  // the device; they are read with dataSync where the backend can wait, with
  // data() where it cannot (WebGPU in node), then finished (which raises a
  // failed check, such as a label out of range).
  _startLogs(start) {
    const m = core.mark();
    try {
      const out = core.outInt();
      const pending = core.callInt(() => start(out));
      return {pending, values: new Tensor(core.heapI32()[out >> 2])};
    } finally {
      core.release(m);
    }
  }

  _finishLogs({pending, values}, data) {
    const M = core.module();
    values.dispose();
    if (!data) {
      M._glint_model_logs_finish(this.id, pending, 0, 0);
      return null;
    }
    return this._logs(() => M._glint_model_logs_finish(this.id, pending, core.bytes(data), data.length));
  }

  // makeStart allocates its arguments in the call arena and returns the start call.
  _readLogs(makeStart, read) {
    const m = core.mark();
    let p;
    try {
      p = this._startLogs(makeStart());
    } finally {
      core.release(m);
    }
    const finish = (data) => this._finishLogs(p, data);
    let data;
    try {
      data = read(p.values);
    } catch (e) {
      finish(null);
      throw e;
    }
    if (!(data instanceof Promise)) return finish(data);
    return data.then(finish, (e) => {
      finish(null);
      throw e;
    });
  }

  _logsSync(makeStart) {
    return this._readLogs(makeStart, (values) => values.dataSync());
  }

  async _logsAsync(makeStart) {
    return this._readLogs(makeStart, (values) =>
        core.module()._glint_backend_reads_sync() === 1 ? values.dataSync() : values.data());
  }

  _trainStart(x, y, sampleWeights) {
    const xs = asList(x), ys = asList(y);
    checkTensors('trainOnBatch', 'x', xs);
    checkTensors('trainOnBatch', 'y', ys);
    if (sampleWeights !== undefined) checkTensors('trainOnBatch', 'sampleWeights', [sampleWeights]);
    const m = core.module(), xIds = core.ints(xs.map((t) => t.id)), yIds = core.ints(ys.map((t) => t.id));
    return (out) => m._glint_model_train_on_batch_start(this.id, xIds, xs.length, yIds, ys.length,
                                                        sampleWeights ? sampleWeights.id : 0, out);
  }

  _evaluateStart(x, y, batchSize) {
    const xs = asList(x), ys = asList(y);
    checkTensors('evaluate', 'x', xs);
    checkTensors('evaluate', 'y', ys);
    return (out) => core.module()._glint_model_evaluate_start(
        this.id, core.ints(xs.map((t) => t.id)), xs.length, core.ints(ys.map((t) => t.id)),
        ys.length, batchSize, out);
  }

  /**
   * Synchronous one step; returns the logs object ({loss, acc, ...}).
   * sampleWeights: optional float32 [n], each sample's loss weight. Where reads
   * cannot wait (WebGPU in node) use trainOnBatchLogs.
   */
  trainOnBatchSync(x, y, sampleWeights) {
    return this._logsSync(() => this._trainStart(x, y, sampleWeights));
  }

  /** One step; resolves to the logs object. Never needs a blocking read. */
  trainOnBatchLogs(x, y, sampleWeights) {
    return this._logsAsync(() => this._trainStart(x, y, sampleWeights));
  }

  /**
   * Times a training step on (x, y) on each fast backend and keeps the fastest
   * (backendInfo().calibration says what it measured); weights and optimizer state
   * are put back. fit() does this by itself while no backend was chosen on purpose.
   */
  calibrateBackend(x, y, options) {
    return calibrateBackend(this, asList(x), asList(y), options);
  }

  /** TF.js: resolves to the loss, or [loss, ...metrics]. */
  async trainOnBatch(x, y) {
    const logs = await this.trainOnBatchLogs(x, y);
    const values = this.metricsNames.map((n) => logs[n]);
    return values.length === 1 ? values[0] : values;
  }

  evaluateLogs(x, y, {batchSize = 32} = {}) {
    return this._logsSync(() => this._evaluateStart(x, y, batchSize));
  }

  /** evaluate's logs without a blocking read (fit's validation, WebGPU in node). */
  evaluateLogsAsync(x, y, {batchSize = 32} = {}) {
    return this._logsAsync(() => this._evaluateStart(x, y, batchSize));
  }

  /** Scalars: the loss, or [loss, ...metrics], as TF.js returns them. */
  evaluate(x, y, options = {}) {
    let values;
    if (core.module()._glint_backend_reads_sync() === 1) {
      const logs = this.evaluateLogs(x, y, options);
      values = this.metricsNames.map((n) => scalar(logs[n]));
    } else {
      // No blocking read (WebGPU in node): the scalars stay on the device, as
      // TF.js returns them; evaluateLogsAsync also runs the label checks.
      const m = core.mark();
      let p;
      try {
        p = this._startLogs(this._evaluateStart(x, y, options.batchSize ?? 32));
      } finally {
        core.release(m);
      }
      values = this.metricsNames.map((_, i) => ops.reshape(ops.slice(p.values, [i], [1]), []));
      this._finishLogs(p, null);
    }
    return values.length === 1 ? values[0] : values;
  }

  /**
   * Trains for `epochs` over (x, y) in batches. Options as TF.js: batchSize,
   * epochs, shuffle, validationSplit, validationData, callbacks, initialEpoch,
   * verbose, yieldEvery ('auto' | 'batch' | 'epoch' | 'never'); plus
   * frameBudgetMs (default 12): with 'auto', at most that much work runs
   * before fit yields for an animation frame. seed makes shuffles repeatable.
   */
  /** fitDataset(dataset, {epochs, batchesPerEpoch, callbacks, validationData}), as TF.js. */
  fitDataset(dataset, options) {
    return fitDataset(this, dataset, options);
  }

  async fit(x, y, options = {}) {
    const {
      batchSize = 32, epochs = 1, validationSplit = 0, validationData, initialEpoch = 0,
      calibrate = true,
    } = options;
    if (!(batchSize >= 1) || !Number.isInteger(batchSize)) {
      throw new GlintError(`[fit] batchSize must be a positive integer: got ${batchSize}`);
    }
    if (this.isTraining) throw new GlintError('[fit] the model is already training');
    const xs = asList(x), ys = asList(y);
    checkTensors('fit', 'x', xs);
    checkTensors('fit', 'y', ys);
    const n = xs[0].shape[0];
    for (const t of [...xs, ...ys]) {
      if (t.shape[0] !== n) {
        throw new GlintError(`[fit] every x and y must have the same number of samples: ` +
            `${n} vs ${t.shape[0]} (shape [${t.shape}])`);
      }
    }
    if (!(validationSplit >= 0 && validationSplit < 1)) {
      throw new GlintError('[fit] validationSplit must be in [0, 1)');
    }
    // While the backend is the engine's guess, the first fit measures: one
    // training step on each fast backend, the fastest kept (calibrate.js).
    const trainN = validationData ? n : Math.floor(n * (1 - validationSplit));
    if (calibrate && epochs > initialEpoch && trainN > 0 && backendChosenAutomatically() &&
        calibrationCandidates().length > 1) {
      const size = Math.min(batchSize, trainN);
      const first = (t) => sliceRows(t, 0, size);
      const bx = xs.map(first), by = ys.map(first);
      try {
        await calibrateBackend(this, bx, by);
      } finally {
        dispose([bx, by]);
      }
    }
    this.stopTraining = false;
    return fitTensors(this, xs, ys, options);
  }

  /** Saves through a handler or URL (indexeddb://, localstorage://, downloads://, http(s)://, file://). */
  async save(handlerOrUrl, config = {}) {
    const handler = getSaveHandler(handlerOrUrl);
    await webgpuSettleVariables(core.module());  // node's webgpu reads weights from snapshots
    const artifacts = this.toArtifacts(config);
    const result = await handler.save(artifacts);
    return result ?? {modelArtifactsInfo: artifactsInfo(artifacts)};
  }

  /** TF.js ModelArtifacts: {modelTopology, weightSpecs, weightData, ...}. */
  toArtifacts({includeOptimizer = false, quantize, userDefinedMetadata} = {}) {
    const modelJson = JSON.parse(core.callString(() => core.module()._glint_model_to_artifacts(
        this.id, core.json({includeOptimizer, quantize: quantize ?? '',
                            ...(userDefinedMetadata ? {userDefinedMetadata} : {})}))));
    const m = core.mark();
    let weightData;
    try {
      const lenPtr = core.outInt();
      const p = core.module()._glint_last_bytes(lenPtr);
      weightData = core.readBytes(p, core.heapI32()[lenPtr >> 2]).buffer;
    } finally {
      core.release(m);
    }
    return artifactsFromEngineJson(modelJson, weightData);
  }

  /** Frees the weights and optimizer state now (as TF.js's model.dispose()). */
  dispose() {
    if (!this.id) return;
    core.callInt(() => core.module()._glint_model_dispose(this.id));
    this.id = 0;
  }

  /** Sets this model's weights from artifacts of the same architecture. */
  loadWeightsFromArtifacts(artifacts) {
    const {json, data} = artifactsToModelJson(artifacts);
    core.callInt(() => core.module()._glint_model_load_weights(
        this.id, core.str(json), core.bytes(data), data.byteLength));
  }
}

export class Sequential extends LayersModel {
  add(layer) {
    if (!(layer instanceof Layer)) throw new GlintError('[Sequential.add] expects a Layer');
    core.callInt(() => core.module()._glint_sequential_add(this.id, layer.id));
  }
  pop() {
    core.callInt(() => core.module()._glint_sequential_pop(this.id));
  }
}

/** sequential({layers?: [...], name?}) */
export function sequential(config = {}) {
  const {layers: list = [], ...rest} = config;
  const model = new Sequential(core.callInt(() => core.module()._glint_sequential(core.json(rest))));
  for (const l of list) model.add(l);
  return model;
}

/** model({inputs, outputs, name?}) for functional graphs. */
export function model({inputs, outputs, ...rest}) {
  const ins = asList(inputs), outs = asList(outputs);
  for (const s of [...ins, ...outs]) {
    if (!(s instanceof SymbolicTensor)) {
      throw new GlintError('[model] inputs and outputs must be symbolic tensors (glint.input, layer.apply)');
    }
  }
  return new LayersModel(core.callInt(() => core.module()._glint_model(
      core.ints(ins.map((s) => s.id)), ins.length, core.ints(outs.map((s) => s.id)), outs.length,
      core.json(rest))));
}

/** TF.js ModelArtifacts from a model.json the engine wrote (one manifest group) and its weight bytes. */
export function artifactsFromEngineJson(modelJson, weightData) {
  const artifacts = {
    modelTopology: modelJson.modelTopology,
    format: modelJson.format,
    generatedBy: modelJson.generatedBy,
    convertedBy: modelJson.convertedBy ?? null,
    weightSpecs: modelJson.weightsManifest?.[0]?.weights ?? [],
    weightData,
  };
  if (modelJson.trainingConfig) artifacts.trainingConfig = modelJson.trainingConfig;
  if (modelJson.userDefinedMetadata) artifacts.userDefinedMetadata = modelJson.userDefinedMetadata;
  if (modelJson.signature) artifacts.signature = modelJson.signature;  // graph models
  return artifacts;
}

export function artifactsToModelJson(artifacts) {
  if (!artifacts || typeof artifacts !== 'object' || !artifacts.modelTopology) {
    throw new GlintError('[loadLayersModel] the artifacts have no modelTopology');
  }
  // Limits before serializing and copying into wasm memory (artifact_limits.js).
  const {weightData: _, ...described} = artifacts;
  checkJsonDepth(described, 'artifacts');
  const wd = artifacts.weightData;
  const weightBytes = wd == null ? 0 : Array.isArray(wd) ?
      wd.reduce((a, b) => a + (b?.byteLength ?? 0), 0) : (wd.byteLength ?? 0);
  checkWeightData(artifacts.weightSpecs, weightBytes);
  const json = JSON.stringify({
    modelTopology: artifacts.modelTopology,
    format: artifacts.format ?? 'layers-model',
    generatedBy: artifacts.generatedBy ?? '',
    convertedBy: artifacts.convertedBy ?? null,
    weightsManifest: [{paths: ['weights.bin'], weights: artifacts.weightSpecs ?? []}],
    ...(artifacts.trainingConfig ? {trainingConfig: artifacts.trainingConfig} : {}),
    ...(artifacts.userDefinedMetadata ? {userDefinedMetadata: artifacts.userDefinedMetadata} : {}),
  });
  const data = wd == null ? new Uint8Array(0) :
      Array.isArray(wd) ? concatBuffers(wd) :
      wd instanceof ArrayBuffer ? new Uint8Array(wd) :
      new Uint8Array(wd.buffer, wd.byteOffset, wd.byteLength);
  return {json, data};
}

function concatBuffers(list) {
  const total = list.reduce((a, b) => a + b.byteLength, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const b of list) {
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return out;
}

/** A model from TF.js-style artifacts (validated: manifest, sizes, limits). */
export function modelFromArtifacts(artifacts) {
  const {json, data} = artifactsToModelJson(artifacts);
  const id = core.callInt(() => core.module()._glint_model_from_artifacts(
      core.str(json), core.bytes(data), data.byteLength));
  const cls = artifacts.modelTopology.class_name === 'Sequential' ? Sequential : LayersModel;
  return new cls(id);
}

/**
 * tf.models.modelFromJSON({modelTopology, weightsManifest?, pathPrefix?} | topology):
 * a LayersModel from model.json's content; weights fetched from pathPrefix when
 * a manifest is given, fresh (initialized) otherwise.
 */
async function modelFromJSON(modelAndWeightsConfig, customObjects) {
  if (customObjects != null) {
    throw new GlintError('[models.modelFromJSON] customObjects: register custom classes with ' +
        'serialization.registerClass instead');
  }
  const cfg = modelAndWeightsConfig ?? {};
  const topology = cfg.modelTopology ?? cfg;
  const artifacts = {modelTopology: topology.model_config ?? topology};
  if (cfg.modelTopology != null && cfg.weightsManifest != null) {
    const prefix = cfg.pathPrefix ?? '';
    const buffers = [];
    for (const g of cfg.weightsManifest) {
      for (const p of g.paths) {
        const r = await fetch(prefix + p);
        if (!r.ok) throw new GlintError(`[models.modelFromJSON] weight shard '${prefix + p}': HTTP ${r.status}`);
        buffers.push(new Uint8Array(await r.arrayBuffer()));
      }
    }
    const all = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
    let at = 0;
    for (const b of buffers) {
      all.set(b, at);
      at += b.byteLength;
    }
    artifacts.weightSpecs = cfg.weightsManifest.flatMap((g) => g.weights);
    artifacts.weightData = all.buffer;
  }
  return modelFromArtifacts(artifacts);
}

export const models = {modelFromJSON};
