// Layer parity with TF.js 4.22: every case module in layer_cases/ lists small
// models, each built around one layer class and configuration. TF.js builds
// each, gives its weights seeded values, saves it with a fixed input and its
// own predictions; Glint loads each, predicts on every backend and compares
// (IoInterop.TfjsLayerCasesPredictLikeTfjs), then saves it back for TF.js to
// read (tfjs_check.mjs on DIR/layers_back).
//
// A case: {name, build: (tf) => LayersModel, inputs: [{shape, dtype?, low?, high?, values?}],
//          keepWeights?: true (use TF.js's initial weights, e.g. a variance),
//          rewrite?: 'keras3' | 'keras2InnerShapes' (save in another exporter's
//          form: keras_forms.mjs)}.
// Usage: node tfjs_layers.mjs OUT_DIR [only-case-name-prefix]
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import * as tf from '@tensorflow/tfjs';
import {fileHandler} from './fs_handler.mjs';
import {toKeras3, withInnerInputShapes} from './keras_forms.mjs';

const out = process.argv[2];
const only = process.argv[3] ?? '';
if (!out) throw new Error('usage: node tfjs_layers.mjs OUT_DIR [prefix]');
await tf.setBackend('cpu');

const here = path.dirname(fileURLToPath(import.meta.url));
const caseDir = path.join(here, 'layer_cases');
const cases = [];
for (const file of fs.readdirSync(caseDir).filter((f) => f.endsWith('.mjs')).sort()) {
  const mod = await import(path.join(caseDir, file));
  for (const c of mod.cases) cases.push({...c, file});
}
const names = new Set();
for (const c of cases) {
  if (names.has(c.name)) throw new Error(`tfjs_layers: case '${c.name}' is listed twice (${c.file})`);
  names.add(c.name);
}

// Deterministic values from a seed, independent of TF.js's RNG internals.
function seededValues(n, seed, low, high) {
  let s = (seed * 2654435761) >>> 0;
  const v = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    s = (s * 1664525 + 1013904223) >>> 0;
    v[i] = low + (high - low) * (s / 4294967296);
  }
  return v;
}
function seededInput(spec, seed) {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const dtype = spec.dtype ?? 'float32';
  if (spec.values) return tf.tensor(spec.values, spec.shape, dtype);  // exact values (e.g. mask padding)
  const low = spec.low ?? -1, high = spec.high ?? 1;
  const v = seededValues(n, seed, low, high);
  if (dtype === 'int32') return tf.tensor(Int32Array.from(v, Math.floor), spec.shape, 'int32');
  return tf.tensor(v, spec.shape, 'float32');
}
const toJson = (t) => ({shape: t.shape, dtype: t.dtype, data: Array.from(t.dataSync())});

let written = 0;
for (const c of cases.filter((c) => c.name.startsWith(only))) {
  const dir = path.join(out, c.name);
  const model = c.build(tf);
  if (!c.keepWeights) {
    // Seeded values in [-0.5, 0.5]; a variance in [0.5, 1.5].
    model.setWeights(model.weights.map((w, i) => {
      if (w.dtype !== 'float32') return w.read();
      const [low, high] = /variance$/.test(w.originalName ?? w.name) ? [0.5, 1.5] : [-0.5, 0.5];
      return tf.tensor(seededValues(w.shape.reduce((a, b) => a * b, 1), 101 + i, low, high), w.shape);
    }));
  }
  const inputs = c.inputs.map((spec, i) => seededInput(spec, 7 + i));
  let outputs = model.predict(inputs.length === 1 ? inputs[0] : inputs);
  if (!Array.isArray(outputs)) outputs = [outputs];
  await model.save(fileHandler(dir));
  if (c.rewrite) {
    const rewrite = {keras3: (j) => toKeras3(j, model), keras2InnerShapes: withInnerInputShapes}[c.rewrite];
    if (!rewrite) throw new Error(`tfjs_layers: case '${c.name}' has unknown rewrite '${c.rewrite}'`);
    const file = path.join(dir, 'model.json');
    fs.writeFileSync(file, JSON.stringify(rewrite(JSON.parse(fs.readFileSync(file, 'utf8')))));
  }
  fs.writeFileSync(path.join(dir, 'input.json'), JSON.stringify({inputs: inputs.map(toJson)}));
  fs.writeFileSync(path.join(dir, 'expected.json'), JSON.stringify({outputs: outputs.map(toJson)}));
  ++written;
}
console.log(`tfjs_layers: ${written} cases written to ${out}`);
