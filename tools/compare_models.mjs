// Runs TF.js models (layers or graph: model.json and its weight shards) in
// glint-ml and in TF.js 4.22 on one seeded input each, and prints how far
// apart their outputs are. For models you have on disk: a folder is searched
// for model files, so a package of published models is checked in one go.
//   node tools/compare_models.mjs [--backend cpu|webgpu|wasm] [--against tfjs|cpu]
//                                 [--filter RE] PATH...
// --against cpu compares with glint-ml's own cpu backend instead of TF.js
// (where TF.js is not installed: a GPU machine checking its webgpu backend).
// An input of unknown size gets the size its signature pins, else 1 for the
// batch and 64 elsewhere; int32 inputs get pixel values 0-255, float32 ones
// values in [0, 1); inputs of unknown rank get the scalar 0 (0.5 for a name
// with "ratio": recurrent matting models take those). Exit status 1 when a
// model fails in glint-ml where TF.js runs it, or the outputs differ by more
// than 2e-3 of the output's largest magnitude.
import fs from 'node:fs';
import path from 'node:path';
import * as glint from '../web/package/src/index.js';

const args = process.argv.slice(2);
const option = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const [, value] = args.splice(i, 2);
  return value;
};
const backend = option('--backend', 'cpu');
const against = option('--against', 'tfjs');
const filter = new RegExp(option('--filter', '.'));
if (!args.length) {
  console.error('usage: node tools/compare_models.mjs [--backend B] [--filter RE] PATH...');
  process.exit(2);
}
if (backend === 'webgpu' && !process.env.VK_DRIVER_FILES &&
    fs.existsSync('/usr/lib/chromium/vk_swiftshader_icd.json')) {
  process.env.VK_DRIVER_FILES = '/usr/lib/chromium/vk_swiftshader_icd.json';
}
await glint.ready();
// The reference library, on its cpu backend: TF.js, or glint-ml itself.
const tf = against === 'cpu' ? glint : await import('@tensorflow/tfjs');
if (against === 'tfjs') await tf.setBackend('cpu');
const warn = console.warn;  // TF.js's advice to use execute() on models without control flow
console.warn = (...a) => { if (!String(a[0]).includes('did not contain')) warn(...a); };

function modelFiles(p) {
  if (fs.statSync(p).isFile()) return [p];
  const out = [];
  for (const name of fs.readdirSync(p).sort()) {
    const f = path.join(p, name);
    if (fs.statSync(f).isDirectory()) out.push(...modelFiles(f));
    else if (name.endsWith('.json')) {
      try {
        const j = JSON.parse(fs.readFileSync(f, 'utf8'));
        if (j.modelTopology && j.weightsManifest) out.push(f);
      } catch { /* not a model file */ }
    }
  }
  return out;
}

// The artifacts of a model file, read the same way for both libraries.
function handler(file) {
  return {
    async load() {
      const json = JSON.parse(fs.readFileSync(file, 'utf8'));
      const specs = [], parts = [];
      for (const group of json.weightsManifest) {
        specs.push(...group.weights);
        for (const p of group.paths) parts.push(fs.readFileSync(path.join(path.dirname(file), p)));
      }
      const data = Buffer.concat(parts);
      return {...json, weightSpecs: specs,
              weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)};
    },
  };
}

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

// One seeded value list per input: {name: {data, shape, dtype}}.
function inputValues(json, infos) {
  const signature = json.signature?.inputs ?? {};
  const values = {};
  for (const info of infos) {
    const name = info.name.replace(/:0$/, '');
    if (!info.shape) {
      values[name] = {data: [/ratio/.test(name) ? 0.5 : 0], shape: [], dtype: 'float32'};
      continue;
    }
    const pinned = Object.values(signature).find((s) => s.name.replace(/:0$/, '') === name)
        ?.tensorShape?.dim?.map((d) => Number(d.size));
    const shape = info.shape.map((d, i) => (d == null || d < 0 ? (pinned?.[i] > 0 ? pinned[i] : i === 0 ? 1 : 64) : d));
    const dtype = info.dtype ?? 'float32';
    const size = shape.reduce((a, b) => a * b, 1);
    const data = Array.from({length: size}, () => (dtype === 'int32' ? Math.floor(random() * 256) : random()));
    values[name] = {data, shape, dtype};
  }
  return values;
}

// The inputs as tensors of `lib`, made on its current backend.
const tensorsOf = (lib, values) =>
  Object.fromEntries(Object.entries(values).map(([n, v]) => [n, lib.tensor(v.data, v.shape, v.dtype)]));

let agree = 0, differ = 0;
for (const file of args.flatMap(modelFiles).filter((f) => filter.test(f))) {
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const graph = json.format === 'graph-model' || Array.isArray(json.modelTopology?.node);
  const started = Date.now();
  let theirs;
  if (against === 'cpu') await glint.setBackend('cpu');
  try {
    theirs = graph ? await tf.loadGraphModel(handler(file)) : await tf.loadLayersModel(handler(file));
  } catch (e) {
    console.log(`${file}: TF.js cannot load it (${e.message.slice(0, 120)}): skipped`);
    continue;
  }
  try {
    const values = inputValues(json, theirs.inputs);
    const inT = tensorsOf(tf, values);
    let yT;
    if (graph) {
      yT = await theirs.executeAsync(inT, theirs.outputs.map((o) => o.name));
    } else {
      const order = theirs.inputs.map((i) => i.name.replace(/:0$/, ''));
      yT = theirs.predict(order.length === 1 ? inT[order[0]] : order.map((n) => inT[n]));
    }
    // Read before the backend changes: the reference may be glint-ml's cpu.
    yT = await Promise.all([yT].flat().map(async (t) => ({shape: t.shape, values: await t.data()})));
    await glint.setBackend(backend);
    const inG = tensorsOf(glint, values);
    const ours = graph ? await glint.loadGraphModel(handler(file)) : await glint.loadLayersModel(handler(file));
    let yG;
    if (graph) {
      yG = await ours.executeAsync(inG, theirs.outputs.map((o) => o.name));
    } else {
      const order = theirs.inputs.map((i) => i.name.replace(/:0$/, ''));
      yG = ours.predict(order.length === 1 ? inG[order[0]] : order.map((n) => inG[n]));
    }
    yG = [yG].flat();
    let worst = 0, note = '';
    for (let k = 0; k < yT.length; k++) {
      if (String(yT[k].shape) !== String(yG[k]?.shape)) note += ` output ${k}: shape [${yT[k].shape}] vs [${yG[k]?.shape}]`;
      const a = yT[k].values, b = await yG[k].data();
      let scale = 1;
      for (const v of a) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
      for (let i = 0; i < a.length; i++) {
        const d = Math.abs(a[i] - b[i]) / scale;
        if (!(d <= worst)) worst = Number.isNaN(d) && !(Number.isNaN(a[i]) && Number.isNaN(b[i])) ? Infinity : Math.max(worst, d || 0);
      }
    }
    const ok = worst <= 2e-3 && !note;
    ok ? agree++ : differ++;
    console.log(`${file}: ${graph ? 'graph' : 'layers'} model, ${yT.length} outputs, worst ${worst.toExponential(2)}` +
                `${note} ${ok ? 'agree' : 'DIFFER'} (${Date.now() - started} ms)`);
  } catch (e) {
    differ++;
    console.log(`${file}: FAILS in glint-ml: ${e.message.slice(0, 400)}`);
  }
}
console.log(`${agree} agree with ${against === 'cpu' ? "glint-ml's cpu" : 'TF.js'}, ${differ} do not ` +
            `(glint-ml on ${backend})`);
process.exit(differ ? 1 : 0);
