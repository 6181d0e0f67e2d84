// glint.loadGraphModel: TF.js graph models (model.json with format
// "graph-model": a TensorFlow GraphDef plus weights), run by the engine's
// glint::GraphModel on the active backend.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, finishRead} from './tensor.js';
import {asyncRunState, resumingAsync} from './register_op.js';
import {getLoadHandler} from './io.js';
import {checkJsonDepth, checkWeightData} from './artifact_limits.js';

const isTensor = (t) => t instanceof Tensor;

export class GraphModel {
  constructor(id) {
    this.id = id;
    const info = core.callJson(() => core.module()._glint_graph_info(id));
    this._inputs = info.inputs;
    this._outputs = info.outputs;
    this._metadata = info.metadata ?? undefined;
    this._disposed = false;
  }

  /** [{name, shape (null: unknown rank; -1: unknown size), dtype}] */
  get inputs() {
    return this._inputs.map((i) => ({...i, shape: i.shape?.slice() ?? null}));
  }
  get outputs() {
    return this._outputs.map((o) => ({...o, shape: o.shape?.slice() ?? null}));
  }
  get inputNodes() {
    return this._inputs.map((i) => i.name);
  }
  get outputNodes() {
    return this._outputs.map((o) => o.name);
  }
  get metadata() {
    return this._metadata;
  }

  // Tensor | Tensor[] | {name: Tensor} -> [names, tensors].
  _feeds(inputs, op) {
    this._checkLive(op);
    let names, tensors;
    if (isTensor(inputs)) {
      names = this.inputNodes.slice(0, 1);
      tensors = [inputs];
    } else if (Array.isArray(inputs)) {
      names = this.inputNodes.slice(0, inputs.length);
      tensors = inputs;
    } else if (inputs && typeof inputs === 'object') {
      names = Object.keys(inputs);
      tensors = names.map((n) => inputs[n]);
    } else {
      throw new GlintError(`[GraphModel.${op}] inputs must be a tensor, an array of tensors or ` +
          '{name: tensor}');
    }
    tensors.forEach((t, i) => {
      if (!isTensor(t)) throw new GlintError(`[GraphModel.${op}] input '${names[i]}' is not a tensor`);
    });
    return [names, tensors];
  }

  _checkLive(op) {
    if (this._disposed) throw new GlintError(`[GraphModel.${op}] the model was disposed`);
  }

  /** model.predict(x): one tensor per output (a single one unwrapped), as TF.js. */
  predict(inputs) {
    const [names, tensors] = this._feeds(inputs, 'predict');
    let ids;
    if (!isTensor(inputs) && !Array.isArray(inputs)) {
      ids = this._run(names, tensors, this.outputNodes);
    } else {
      if (tensors.length !== this._inputs.length) {
        throw new GlintError(`[GraphModel.predict] the model takes ${this._inputs.length} inputs ` +
            `(${this.inputNodes.join(', ')}), got ${tensors.length}`);
      }
      ids = core.callIds(256, (out, max) => core.module()._glint_graph_execute(
          this.id, 0, core.ints(tensors.map((t) => t.id)), tensors.length, 0, out, max));
    }
    const outs = ids.map((id) => new Tensor(id));
    return outs.length === 1 ? outs[0] : outs;
  }

  _run(names, tensors, outputs) {
    return core.callIds(Math.max(1, outputs.length), (out, max) => core.module()._glint_graph_execute(
        this.id, core.json(names), core.ints(tensors.map((t) => t.id)), tensors.length, core.json(outputs),
        out, max));
  }

  /**
   * model.execute(inputs, outputs?): the named tensors ("node" or "node:1"),
   * intermediate nodes included; a string asks for one tensor.
   */
  execute(inputs, outputs) {
    const [names, tensors] = this._feeds(inputs, 'execute');
    const wanted = outputs === undefined ? this.outputNodes : Array.isArray(outputs) ? outputs : [outputs];
    const outs = this._run(names, tensors, wanted).map((id) => new Tensor(id));
    return typeof outputs === 'string' || outs.length === 1 ? outs[0] : outs;
  }

  /**
   * As execute, but a node that needs values on the host (non-maximum
   * suppression, Where, TopKV2, a loop's predicate, a shape computed on the
   * device) awaits their read where the backend has no synchronous one
   * (webgpu in node): the engine's run stops at that node, the read lands on
   * the host, and the run goes on from there.
   */
  async executeAsync(inputs, outputs) {
    const [names, tensors] = this._feeds(inputs, 'executeAsync');
    const wanted = outputs === undefined ? this.outputNodes : Array.isArray(outputs) ? outputs : [outputs];
    const M = core.module();
    const run = core.callInt(() => M._glint_graph_start(this.id, core.json(names),
        core.ints(tensors.map((t) => t.id)), tensors.length, core.json(wanted)));
    const ops = asyncRunState();  // registered ops that return a Promise wait in it
    let ids;
    try {
      // The engine checks at each resume that the model was not disposed meanwhile.
      for (;;) {
        const step = resumingAsync(ops, () => M._glint_graph_resume(run));
        if (step === 0) break;
        if (step === -2) await ops.settle();  // an op's Promise: its node runs again with the result
        else if (step < 0) throw core.engineError();
        else await finishRead(step);
      }
      ids = core.callIds(Math.max(1, wanted.length), (out, max) => M._glint_graph_run_outputs(run, out, max));
    } finally {
      M._glint_graph_run_dispose(run);
    }
    const outs = ids.map((id) => new Tensor(id));
    return typeof outputs === 'string' || outs.length === 1 ? outs[0] : outs;
  }

  /** predict, awaiting what executeAsync awaits (registered ops' Promises, reads): TF.js's predictAsync. */
  async predictAsync(inputs) {
    return this.executeAsync(inputs, this.outputNodes);
  }

  dispose() {
    if (this._disposed) return;
    core.callInt(() => core.module()._glint_graph_dispose(this.id));
    this._disposed = true;
  }
}

/** A graph model from TF.js-style artifacts (format 'graph-model'). */
export function graphModelFromArtifacts(artifacts) {
  if (!artifacts || typeof artifacts !== 'object' || !artifacts.modelTopology) {
    throw new GlintError('[loadGraphModel] the artifacts have no modelTopology');
  }
  const {weightData: wd, ...described} = artifacts;
  checkJsonDepth(described, 'artifacts');
  const weightBytes = wd == null ? 0 : Array.isArray(wd) ?
      wd.reduce((a, b) => a + (b?.byteLength ?? 0), 0) : (wd.byteLength ?? 0);
  checkWeightData(artifacts.weightSpecs, weightBytes);
  const json = JSON.stringify({
    modelTopology: artifacts.modelTopology,
    format: artifacts.format ?? 'graph-model',
    generatedBy: artifacts.generatedBy ?? '',
    convertedBy: artifacts.convertedBy ?? null,
    weightsManifest: [{paths: ['weights.bin'], weights: artifacts.weightSpecs ?? []}],
    ...(artifacts.signature ? {signature: artifacts.signature} : {}),
    ...(artifacts.userDefinedMetadata ? {userDefinedMetadata: artifacts.userDefinedMetadata} : {}),
  });
  let data;
  if (wd == null) {
    data = new Uint8Array(0);
  } else if (Array.isArray(wd)) {
    data = new Uint8Array(weightBytes);
    let at = 0;
    for (const b of wd) {
      data.set(new Uint8Array(b), at);
      at += b.byteLength;
    }
  } else {
    data = wd instanceof ArrayBuffer ? new Uint8Array(wd) : new Uint8Array(wd.buffer, wd.byteOffset, wd.byteLength);
  }
  return new GraphModel(core.callInt(() => core.module()._glint_graph_from_artifacts(
      core.str(json), core.bytes(data), data.byteLength)));
}

/**
 * loadGraphModel(urlOrHandler, {onProgress, retries, requestInit}): a model
 * converted by the TF.js converter (model.json + shards), from any handler
 * io knows (http(s), file paths in node, or an IOHandler with load()).
 */
export async function loadGraphModel(pathOrHandler, options = {}) {
  const handler = getLoadHandler(pathOrHandler, options);
  return graphModelFromArtifacts(await handler.load());
}
