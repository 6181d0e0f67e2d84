// glint.loadGraphModel against TF.js's own tf.loadGraphModel, on a published
// graph model (BlazeFace from @vladmandic/human) and a hand-written one.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

await glint.ready();
await tf.setBackend('cpu');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const blazeface = path.join(root, 'node_modules/@vladmandic/human/models/blazeface.json');

function tfjsHandler(file) {
  return {
    async load() {
      const modelJson = JSON.parse(fs.readFileSync(file, 'utf8'));
      return tf.io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const specs = [], buffers = [];
        for (const g of manifest) {
          specs.push(...g.weights);
          for (const p of g.paths) {
            const b = fs.readFileSync(path.join(path.dirname(file), p));
            buffers.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
          }
        }
        return [specs, tf.io.CompositeArrayBuffer.join(buffers)];
      });
    },
  };
}

function maxRelDiff(a, b) {
  assert.deepEqual(a.shape, b.shape);
  const x = a.dataSync(), y = b.dataSync();
  let worst = 0;
  for (let i = 0; i < x.length; ++i) worst = Math.max(worst, Math.abs(x[i] - y[i]) / Math.max(1, Math.abs(y[i])));
  return worst;
}

test('BlazeFace: predict and execute match TF.js', async () => {
  const ours = await glint.loadGraphModel(blazeface);
  const theirs = await tf.loadGraphModel(tfjsHandler(blazeface));
  assert.deepEqual(ours.inputNodes, theirs.inputs.map((i) => i.name));
  assert.deepEqual(ours.outputNodes, theirs.outputs.map((o) => o.name));
  assert.deepEqual(ours.inputs[0].shape, [1, 256, 256, 3]);
  const values = Array.from({length: 256 * 256 * 3}, (_, i) => ((i * 7919) % 1000) / 1000);
  const x = glint.tensor(values, [1, 256, 256, 3]);
  const tx = tf.tensor(values, [1, 256, 256, 3]);
  const got = ours.predict(x), want = theirs.predict(tx);
  assert.equal(got.length, want.length);
  for (let i = 0; i < got.length; ++i) assert.ok(maxRelDiff(got[i], want[i]) <= 1e-4, `output ${i}`);
  // An intermediate node, by name.
  const node = JSON.parse(fs.readFileSync(blazeface, 'utf8')).modelTopology.node
      .find((n) => n.op === '_FusedConv2D').name;
  const mid = ours.execute({[ours.inputNodes[0]]: x}, node);
  const tmid = theirs.execute({[theirs.inputs[0].name]: tx}, node);
  assert.ok(maxRelDiff(mid, tmid) <= 1e-4);
  const [again] = await ours.executeAsync(x, [node, ours.outputNodes[0]]);
  assert.ok(maxRelDiff(again, tmid) <= 1e-4);
  ours.dispose();
  assert.throws(() => ours.predict(x), /disposed/);
});

test('loadGraphModel: an unknown op names the node and the op', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-graph-'));
  const modelJson = {
    format: 'graph-model',
    modelTopology: {node: [
      {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
      {name: 'y', op: 'Frobnicate', input: ['x']},
    ]},
    weightsManifest: [],
  };
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
  await assert.rejects(glint.loadGraphModel(path.join(dir, 'model.json')), /'y'.*Frobnicate.*not supported/);
  fs.rmSync(dir, {recursive: true});
});
