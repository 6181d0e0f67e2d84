#!/usr/bin/env node
// The kernels a model needs: runs it through glint-ml (the full build) on every
// backend node has (cpu; webgpu through Dawn where an adapter exists), records
// the kernels each step dispatches (glint.profile), and prints their names, one
// per line, then its layer classes as layer:Name (from the model's topology)
// and, for a graph model, feature:graph-models:
// the list a build for that model takes (GLINT_KERNELS, docs/SIZE.md).
//
// A model.json without weights (a topology alone) stands for a model an app
// builds in code. What runs, per model and backend: loading it with its weights; a fresh copy
// from its topology (the initializers); predict on one sample and on a batch;
// and, unless --no-train, compile (the model's own training config, else the
// options below), trainOnBatch, fit with a validation split, and evaluate.
//
//   node tools/kernels_for.mjs [options] MODEL.json... > kernels.txt
//   --add K1,K2      kernels the app runs itself, beside the model's
//   --loss L --optimizer O --metrics m1,m2   training config where the model has none
//   --batch N        batch size (default 8)
//   --no-train       predict only
//   --check FILE     instead of printing: fail (exit 1) naming each needed
//                    kernel that FILE does not list
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const ROOT = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const o = {models: [], add: [], batch: 8, train: true, loss: null, optimizer: null, metrics: null, check: null};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--add') o.add.push(...value().split(',').map((s) => s.trim()).filter(Boolean));
    else if (a === '--batch') o.batch = Number(value());
    else if (a === '--no-train') o.train = false;
    else if (a === '--loss') o.loss = value();
    else if (a === '--optimizer') o.optimizer = value();
    else if (a === '--metrics') o.metrics = value().split(',');
    else if (a === '--check') o.check = value();
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else o.models.push(a);
  }
  if (!o.models.length) throw new Error('name at least one model.json');
  if (!(Number.isInteger(o.batch) && o.batch >= 2)) throw new Error('--batch must be a whole number >= 2');
  return o;
}

/** The names a kernel list file holds ('#' starts a comment). */
export function readKernelList(file) {
  return fs.readFileSync(file, 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
}

// Inputs and targets are made in JS and uploaded, so that no kernel of
// their own joins the list.
const dimsOf = (shape, n) => shape.map((d, i) => (d == null || d < 0 ? (i === 0 ? n : 1) : d));
const sizeOf = (dims) => dims.reduce((a, b) => a * b, 1);

/** Inputs of `shape` (null dims: batch n), random in [0, 1). */
function inputFor(glint, shape, n, dtype = 'float32') {
  const dims = dimsOf(shape, n);
  const v = Float32Array.from({length: sizeOf(dims)}, () => Math.random());
  return dtype === 'int32' ? glint.tensor(Int32Array.from(v, (x) => Math.floor(2 * x)), dims, 'int32') :
      glint.tensor(v, dims);
}

/** Random targets of `shape` that `loss` accepts. */
function targetFor(glint, shape, n, loss) {
  const dims = dimsOf(shape, n);
  const name = String(loss).toLowerCase();
  const classes = dims[dims.length - 1];
  const rows = sizeOf(dims) / classes;
  if (name.includes('sparse')) {
    return glint.tensor(Float32Array.from({length: rows}, () => Math.floor(Math.random() * classes)),
                        [...dims.slice(0, -1), 1]);
  }
  const v = new Float32Array(sizeOf(dims));
  if (name.includes('categorical')) {
    for (let r = 0; r < rows; ++r) v[r * classes + Math.floor(Math.random() * classes)] = 1;
  } else {
    const binary = name.includes('binary') || name.includes('hinge');
    for (let i = 0; i < v.length; ++i) v[i] = binary ? Math.round(Math.random()) : Math.random();
  }
  return glint.tensor(v, dims);
}

/** The loss and optimizer to train with: the model's training config, else the options, else a guess from its last activation. */
function trainingOf(json, model, o) {
  const tc = json.modelTopology?.training_config ?? json.trainingConfig ?? null;
  let loss = o.loss ?? tc?.loss ?? null;
  if (loss && typeof loss === 'object' && !Array.isArray(loss)) loss = Object.values(loss)[0];
  if (Array.isArray(loss)) loss = loss[0];
  if (!loss) {
    const last = model.layers[model.layers.length - 1]?.getConfig?.() ?? {};
    loss = last.activation === 'softmax' ? 'categoricalCrossentropy' :
        last.activation === 'sigmoid' ? 'binaryCrossentropy' : 'meanSquaredError';
  }
  const optimizer = o.optimizer ?? tc?.optimizer_config?.class_name?.toLowerCase() ?? 'adam';
  const metrics = o.metrics ?? (loss.toLowerCase().includes('categorical') ? ['accuracy'] : []);
  return {loss, optimizer, metrics};
}

async function runLayersModel(glint, file, json, o) {
  // A topology alone (no weightsManifest: an app that builds its model in
  // code describes its shape so) runs freshly initialised.
  const fresh = await glint.models.modelFromJSON(json.modelTopology);
  const model = json.weightsManifest ? await glint.loadLayersModel(url.pathToFileURL(file).href) : fresh;
  try {
    const shapes = model.inputs.map((t) => t.shape);
    const xs = (n) => {
      const t = shapes.map((s) => inputFor(glint, s, n));
      return t.length === 1 ? t[0] : t;
    };
    for (const n of [1, o.batch]) {
      for (const m of new Set([model, fresh])) {
        const y = m.predict(xs(n));
        for (const t of Array.isArray(y) ? y : [y]) await t.data();
      }
    }
    if (!o.train) return;
    const {loss, optimizer, metrics} = trainingOf(json, model, o);
    model.compile({optimizer, loss, metrics});
    const x = xs(o.batch);
    const outShapes = model.outputs.map((t) => t.shape);
    const ys = outShapes.map((s) => targetFor(glint, s, o.batch, loss));
    const y = ys.length === 1 ? ys[0] : ys;
    await model.trainOnBatch(x, y);
    await model.fit(x, y, {epochs: 1, batchSize: Math.max(1, Math.floor(o.batch / 2)), validationSplit: 0.25, verbose: 0});
    const ev = await model.evaluate(x, y, {batchSize: o.batch});
    for (const t of Array.isArray(ev) ? ev : [ev]) await t.data();
  } finally {
    if (model !== fresh) model.dispose();
    fresh.dispose();
  }
}

async function runGraphModel(glint, file, o) {
  const model = await glint.loadGraphModel(url.pathToFileURL(file).href);
  try {
    for (const n of [1, o.batch]) {
      const inputs = model.inputs.map((t) => inputFor(glint, t.shape ?? [null], n, t.dtype));
      const y = await model.executeAsync(inputs.length === 1 ? inputs[0] : inputs);
      for (const t of Array.isArray(y) ? y : [y]) await t.data();
    }
  } finally {
    model.dispose();
  }
}

/**
 * The layer classes a topology names: the entries of every `layers` list, a
 * wrapper's `layer`, an RNN's `cell` and `cells` (not initializers,
 * regularizers or the like, which also carry class_name).
 */
export function layerClasses(topology) {
  const found = new Set(['InputLayer']);   // a Sequential model makes one of its own
  const LAYER_KEYS = new Set(['layers', 'layer', 'cell', 'cells', 'forward_layer', 'backward_layer']);
  const visit = (v, isLayer) => {
    if (Array.isArray(v)) return v.forEach((e) => visit(e, isLayer));
    if (!v || typeof v !== 'object') return;
    if (isLayer && typeof v.class_name === 'string') found.add(v.class_name);
    for (const [k, child] of Object.entries(v)) visit(child, LAYER_KEYS.has(k));
  };
  visit(topology?.model_config ?? topology, true);
  return found;
}

/** What the models use: {names (kernels), layers (classes), features, backends (traced on)}, Sets but backends. */
export async function kernelsFor(files, options = {}) {
  const o = {add: [], batch: 8, train: true, loss: null, optimizer: null, metrics: null, ...options};
  if (!process.env.VK_DRIVER_FILES && fs.existsSync(SWIFTSHADER_ICD)) process.env.VK_DRIVER_FILES = SWIFTSHADER_ICD;
  const glint = await import(path.join(ROOT, 'web/package/src/index.node.js'));
  await glint.ready();
  const names = new Set(o.add);
  const layers = new Set();
  const features = new Set();
  const models = files.map((file) => ({file, json: JSON.parse(fs.readFileSync(file, 'utf8'))}));
  for (const {json} of models) {
    if (json.format === 'graph-model') features.add('graph-models');
    else layerClasses(json.modelTopology).forEach((c) => layers.add(c));
  }
  const backends = [];
  for (const backend of ['cpu', 'webgpu']) {
    try {
      await glint.setBackend(backend);
    } catch (e) {
      if (backend === 'cpu') throw e;
      process.stderr.write(`kernels_for: ${backend} skipped: ${e.message}\n`);
      continue;
    }
    backends.push(backend);
    for (const {file, json} of models) {
      const info = await glint.profile(() => (json.format === 'graph-model' ?
          runGraphModel(glint, file, o) : runLayersModel(glint, file, json, o)));
      info.kernelNames.forEach((k) => names.add(k));
    }
  }
  return {names, layers, features, backends};
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`kernels_for: ${e.message}\n` +
        'usage: node tools/kernels_for.mjs [--add K,..] [--loss L] [--optimizer O] [--metrics m,..] ' +
        '[--batch N] [--no-train] [--check FILE] MODEL.json...\n');
    process.exit(2);
  }
  const {names, layers, features, backends} = await kernelsFor(o.models, o);
  const sorted = [...[...names].sort(), ...[...layers].sort().map((c) => `layer:${c}`),
                  ...[...features].sort().map((f) => `feature:${f}`)];
  if (o.check) {
    const listed = new Set(readKernelList(o.check));
    const missing = sorted.filter((k) => !listed.has(k));
    if (missing.length) {
      process.stderr.write(`kernels_for: ${o.check} lacks ${missing.length} kernel(s) or layer class(es) the model(s) use: ` +
          `${missing.join(', ')}\n`);
      process.exit(1);
    }
    process.stderr.write(`kernels_for: ${o.check} holds all ${names.size} kernels (traced on ${backends.join(', ')}) ` +
        `and ${layers.size} layer classes\n`);
    return;
  }
  const command = ['node tools/kernels_for.mjs', ...process.argv.slice(2)].join(' ');
  process.stdout.write(`# The kernels of ${o.models.map((m) => path.relative(process.cwd(), m)).join(', ')}` +
      `, traced on ${backends.join(' and ')}.\n# Made by: ${command}\n${sorted.join('\n')}\n`);
}

if (import.meta.url === url.pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`kernels_for: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
