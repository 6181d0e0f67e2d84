// The graph models published in @vladmandic/human 3.3.6 (models/*.json),
// run with TF.js's own loadGraphModel + predict on a fixed seeded input.
// Writes <out>/<model>/cases.json (input, outputs, TF.js's values) and
// <out>/models.txt (one model.json path per line) for GraphModels.* in
// tests/unit/graph_model_test.cpp (`make test-models`).
//   node tests/interop/human_models.mjs build/models
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import * as tf from '@tensorflow/tfjs';

const out = process.argv[2] ?? 'build/models';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const modelsDir = path.join(root, 'node_modules/@vladmandic/human/models');
await tf.setBackend('cpu');
const warn = console.warn;
console.warn = (...a) => { if (!String(a[0]).includes('did not contain')) warn(...a); };

let seed = 2024;
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

function handler(file) {
  return {
    async load() {
      const modelJson = JSON.parse(fs.readFileSync(file, 'utf8'));
      return tf.io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const specs = [];
        const buffers = [];
        for (const group of manifest) {
          specs.push(...group.weights);
          for (const p of group.paths) {
            const b = fs.readFileSync(path.join(path.dirname(file), p));
            buffers.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
          }
        }
        return [specs, tf.io.CompositeArrayBuffer.join(buffers)];
      });
    },
  };
}

const toJson = async (t) => ({shape: t.shape, dtype: t.dtype, data: Array.from(await t.data())});
const list = [];
for (const name of fs.readdirSync(modelsDir).sort()) {
  if (!name.endsWith('.json') || name === 'models.json') continue;
  const file = path.join(modelsDir, name);
  const model = name.replace(/\.json$/, '');
  const started = Date.now();
  try {
    const m = await tf.loadGraphModel(handler(file));
    // A size the graph leaves open takes the signature's, when it pins one
    // (handtrack: any image size in the graph, 320 x 320 in its signature).
    const signature = JSON.parse(fs.readFileSync(file, 'utf8')).signature?.inputs ?? {};
    const inputs = m.inputs.map((info) => {
      const pinned = Object.values(signature).find((s) => s.name.replace(/:0$/, '') === info.name.replace(/:0$/, ''))
          ?.tensorShape?.dim?.map((d) => Number(d.size));
      const shape = info.shape.map((d, i) => (d == null || d < 0 ? (pinned?.[i] > 0 ? pinned[i] : 1) : d));
      const size = shape.reduce((a, b) => a * b, 1);
      const dtype = info.dtype ?? 'float32';
      // int32 inputs are uint8 images: pixel values.
      const data = Array.from({length: size}, () => (dtype === 'int32' ? Math.floor(random() * 256) : random()));
      return {name: info.name.replace(/:0$/, ''), shape, dtype, data};
    });
    const feeds = {};
    for (const i of inputs) feeds[i.name] = tf.tensor(i.data, i.shape, i.dtype);
    const names = m.outputs.map((o) => o.name);
    let y = await m.executeAsync(feeds, names);
    if (!Array.isArray(y)) y = [y];
    const dir = path.join(out, model);
    fs.mkdirSync(dir, {recursive: true});
    fs.writeFileSync(path.join(dir, 'cases.json'), JSON.stringify({
      inputs, cases: [{kind: 'execute', outputs: names, expected: await Promise.all(y.map(toJson))}],
    }));
    list.push(file);
    console.log(`${model}: ${inputs.map((i) => `${i.name} [${i.shape}]`).join(', ')} -> ${names.length} outputs ` +
                `(${Date.now() - started} ms in TF.js)`);
  } catch (e) {
    console.log(`${model}: TF.js cannot run it: ${e.message}`);
  }
}
fs.mkdirSync(out, {recursive: true});
fs.writeFileSync(path.join(out, 'models.txt'), list.join('\n') + '\n');
