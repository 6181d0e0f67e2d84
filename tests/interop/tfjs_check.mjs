// TF.js 4.22 loads each model Glint saved (DIR/<name>/model.json) and
// predicts its input.json; the result must match Glint's expected.json
// within 1e-4. Usage: node tfjs_check.mjs DIR
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {fileHandler, tensorFromJson} from './fs_handler.mjs';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node tfjs_check.mjs DIR');
await tf.setBackend('cpu');
const tolerance = 1e-4;
let failures = 0;
const names = fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, 'model.json'))).sort();
if (names.length === 0) throw new Error(`tfjs_check: no models in ${dir}`);
for (const name of names) {
  const d = path.join(dir, name);
  try {
    const model = await tf.loadLayersModel(fileHandler(d));
    const inputs = JSON.parse(fs.readFileSync(path.join(d, 'input.json'))).inputs.map(tensorFromJson);
    const expected = JSON.parse(fs.readFileSync(path.join(d, 'expected.json'))).outputs;
    let got = model.predict(inputs.length === 1 ? inputs[0] : inputs);
    if (!Array.isArray(got)) got = [got];
    let worst = 0;
    expected.forEach((e, i) => {
      if (JSON.stringify(got[i].shape) !== JSON.stringify(e.shape))
        throw new Error(`output ${i} has shape ${got[i].shape}, Glint's ${e.shape}`);
      const g = got[i].dataSync();
      e.data.forEach((v, k) => { worst = Math.max(worst, Math.abs(g[k] - v)); });
    });
    const ok = worst <= tolerance;
    if (!ok) ++failures;
    console.log(`tfjs_check: ${name}: ${ok ? 'PASS' : 'FAIL'} (max |tfjs - glint| = ${worst.toExponential(2)})`);
  } catch (e) {
    ++failures;
    console.log(`tfjs_check: ${name}: FAIL (${e.message})`);
  }
}
process.exit(failures === 0 ? 0 : 1);
