// Hand-written TF.js graph models (GraphDef JSON + weights): the builder the
// interop generators share (graph_models.mjs, graph_models_more.mjs,
// graph_models_sparse.mjs), and record(), which runs a model with TF.js's own
// tf.loadGraphModel and writes what it computed beside it.
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {fileHandler} from './fs_handler.mjs';

let seed = 12345;
export function random() {  // a fixed LCG, so every run writes the same values
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
export const randoms = (n, lo = -1, hi = 1) => Array.from({length: n}, () => lo + (hi - lo) * random());
export const size = (shape) => shape.reduce((a, b) => a * b, 1);

export const b64 = (s) => Buffer.from(s).toString('base64');
export const A = {
  type: (t) => ({type: t}),
  ints: (v) => ({list: {i: v.map(String)}}),
  strs: (v) => ({list: {s: v.map(b64)}}),
  s: (v) => ({s: b64(v)}),
  b: (v) => ({b: v}),
  f: (v) => ({f: v}),
  i: (v) => ({i: String(v)}),
};
export const DT = {float32: 'DT_FLOAT', int32: 'DT_INT32', bool: 'DT_BOOL'};

function toHalf(f) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, f);
  const x = view.getUint32(0);
  const sign = (x >>> 16) & 0x8000;
  const e = ((x >>> 23) & 0xff) - 127 + 15;
  const m = x & 0x7fffff;
  if (e <= 0) return sign;
  if (e >= 31) return sign | 0x7c00;
  return (sign | (e << 10) | (m >>> 13)) + ((m & 0x1000) ? 1 : 0);
}

export class Graph {
  constructor() {
    this.nodes = [];
    this.weights = [];
    this.functions = [];
  }
  // A library function (control flow v2): args [[name, dtype]], rets
  // [[name, dtype, 'node:arg:index']]; build(f) adds its nodes to `f`, a
  // Graph whose weights join this one's manifest.
  func(name, args, rets, build) {
    const f = new Graph();
    f.weights = this.weights;
    build(f);
    this.functions.push({
      signature: {name, inputArg: args.map(([n, t]) => ({name: n, type: DT[t]})),
                  outputArg: rets.map(([n, t]) => ({name: n, type: DT[t]}))},
      nodeDef: f.nodes,
      ret: Object.fromEntries(rets.map(([n, , r]) => [n, r])),
    });
    return name;
  }
  node(name, op, inputs = [], attr = {}) {
    this.nodes.push({name, op, input: inputs, attr});
    return name;
  }
  placeholder(name, shape, dtype = 'float32') {
    return this.node(name, 'Placeholder', [], {
      dtype: A.type(DT[dtype]),
      shape: {shape: {dim: shape.map((d) => ({size: String(d)}))}},
    });
  }
  // quantize: undefined, 'uint8', 'uint16' or 'float16' (float32 weights).
  const(name, values, shape, dtype = 'float32', quantize) {
    this.weights.push({name, values, shape, dtype, quantize});
    return this.node(name, 'Const', [], {
      dtype: A.type(DT[dtype]),
      value: {tensor: {dtype: DT[dtype], tensorShape: {dim: shape.map((d) => ({size: String(d)}))}}},
    });
  }
  ints(name, values) {
    return this.const(name, values, [values.length], 'int32');
  }
  scalarInt(name, v) {
    return this.const(name, [v], [], 'int32');
  }
  scalar(name, v) {
    return this.const(name, [v], [], 'float32');
  }
  write(dir, signature) {
    fs.mkdirSync(dir, {recursive: true});
    const specs = [];
    const chunks = [];
    for (const w of this.weights) {
      const spec = {name: w.name, shape: w.shape, dtype: w.dtype};
      if (w.quantize === 'float16') {
        spec.quantization = {dtype: 'float16'};
        chunks.push(Buffer.from(new Uint16Array(w.values.map(toHalf)).buffer));
      } else if (w.quantize === 'uint8' || w.quantize === 'uint16') {
        const top = w.quantize === 'uint8' ? 255 : 65535;
        const min = Math.min(...w.values), max = Math.max(...w.values);
        const scale = (max - min) / top || 1;
        spec.quantization = {dtype: w.quantize, min, scale};
        const codes = w.values.map((v) => Math.round((v - min) / scale));
        chunks.push(Buffer.from((w.quantize === 'uint8' ? new Uint8Array(codes) : new Uint16Array(codes)).buffer));
      } else if (w.dtype === 'float32') {
        chunks.push(Buffer.from(new Float32Array(w.values).buffer));
      } else if (w.dtype === 'int32') {
        chunks.push(Buffer.from(new Int32Array(w.values).buffer));
      } else {
        chunks.push(Buffer.from(new Uint8Array(w.values)));
      }
      specs.push(spec);
    }
    fs.writeFileSync(path.join(dir, 'weights.bin'), Buffer.concat(chunks));
    const modelJson = {
      format: 'graph-model',
      generatedBy: 'glint tests/interop/graph_models.mjs',
      convertedBy: null,
      modelTopology: {node: this.nodes, library: this.functions.length ? {function: this.functions} : {},
                      versions: {producer: 1}},
      weightsManifest: [{paths: ['weights.bin'], weights: specs}],
    };
    if (signature) modelJson.signature = signature;
    fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
  }
}

export const toJson = async (t) => ({shape: t.shape, dtype: t.dtype, data: Array.from(await t.data())});

// Runs the model in TF.js: predict (when `predict`), and execute of every
// name in `names`; writes cases.json beside it. `reload` loads the model
// afresh for each name (TF.js's TensorArrays dispose tensors that a later
// execution of the same model still needs).
export async function record(dir, feeds, names, predict = true, reload = false) {
  let model = await tf.loadGraphModel(fileHandler(dir));
  const inputs = Object.entries(feeds).map(([name, t]) => ({name, ...t}));
  const tensors = {};
  for (const i of inputs) tensors[i.name] = tf.tensor(i.data, i.shape, i.dtype);
  const cases = [];
  if (predict) {
    const ordered = model.inputs.map((i) => tensors[i.name.replace(/:0$/, '')]);
    let y = model.predict(ordered.length === 1 ? ordered[0] : ordered);
    if (!Array.isArray(y)) y = [y];
    cases.push({kind: 'predict', outputs: model.outputs.map((o) => o.name), expected: await Promise.all(y.map(toJson))});
  }
  for (const name of names) {
    if (reload) model = await tf.loadGraphModel(fileHandler(dir));
    for (const i of inputs) tensors[i.name] = tf.tensor(i.data, i.shape, i.dtype);
    const y = await model.executeAsync(tensors, [name]);
    cases.push({kind: 'execute', outputs: [name], expected: [await toJson(Array.isArray(y) ? y[0] : y)]});
  }
  fs.writeFileSync(path.join(dir, 'cases.json'), JSON.stringify({inputs, cases}));
  console.log(`${path.basename(dir)}: ${cases.length} cases`);
}

export const F = (shape, lo, hi) => ({shape, dtype: 'float32', data: randoms(size(shape), lo, hi)});
