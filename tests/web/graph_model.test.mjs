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

// HandTrack runs TensorFlow loops (Enter/Merge/Switch/NextIteration over
// TensorLists) and NMS: executeAsync, as in TF.js, on a seeded 320x320 image.
const handtrack = path.join(root, 'node_modules/@vladmandic/human/models/handtrack.json');
test('HandTrack: a control-flow model through executeAsync matches TF.js', async () => {
  const ours = await glint.loadGraphModel(handtrack);
  const theirs = await tf.loadGraphModel(tfjsHandler(handtrack));
  let seed = 7;
  const pixels = Array.from({length: 320 * 320 * 3}, () => ((seed = (seed * 1103515245 + 12345) % 2147483648) >> 16) % 256);
  const x = glint.tensor(pixels, [1, 320, 320, 3], 'int32');
  const tx = tf.tensor(pixels, [1, 320, 320, 3], 'int32');
  const names = theirs.outputs.map((o) => o.name);
  const got = await ours.executeAsync(x, names), want = await theirs.executeAsync(tx, names);
  assert.equal(got.length, want.length);
  for (let i = 0; i < got.length; ++i) assert.ok(maxRelDiff(got[i], want[i]) <= 1e-4, `output ${names[i]}`);
  glint.dispose(got);
  ours.dispose();
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

// Transfer learning, as Teachable Machine does it: a pretrained graph model as
// a frozen feature extractor (an intermediate node), a small layers head
// trained with fit on the user's samples, saved and reloaded. The same steps
// in TF.js, from the same head weights, give the same losses and predictions.
test('transfer learning: BlazeFace features, a trained head, saved and reloaded', async () => {
  const ours = await glint.loadGraphModel(blazeface);
  const theirs = await tf.loadGraphModel(tfjsHandler(blazeface));
  const topology = JSON.parse(fs.readFileSync(blazeface, 'utf8')).modelTopology.node;
  // The last _FusedConv2D before the heads: a [1, 8, 8, C] feature map.
  const node = topology.filter((n) => n.op === '_FusedConv2D').at(-1).name;
  const n = 6;
  const images = Array.from({length: n}, (_, k) =>
    Array.from({length: 256 * 256 * 3}, (_, i) => ((i * (7919 + 13 * k)) % 997) / 997));
  const feats = (model, lib) => lib.concat(images.map((v) => {
    const x = lib.tensor(v, [1, 256, 256, 3]);
    const f = model.execute(x, node);
    return lib.reshape(lib.mean(f, [1, 2]), [1, -1]);  // global average pooling of the map
  }), 0);
  const fo0 = feats(ours, glint), ft0 = feats(theirs, tf);
  assert.ok(maxRelDiff(fo0, ft0) <= 1e-4, 'features');
  // Scaled to [-1, 1] as an app would: TF.js's cross-entropy clips
  // probabilities at 1e-7, Glint's (from the logits) does not, so saturated
  // logits would compare clipping rather than training.
  const scale = Math.max(...ft0.dataSync().map(Math.abs));
  const fo = glint.div(fo0, scale), ft = tf.div(ft0, scale);
  const labels = [0, 1, 0, 1, 1, 0];
  const head = (lib) => {
    const m = lib.sequential({layers: [
      lib.layers.dense({units: 4, activation: 'relu', inputShape: [fo.shape[1]], name: 'h1'}),
      lib.layers.dense({units: 2, activation: 'softmax', name: 'h2'})]});
    m.compile({optimizer: lib.train.sgd(0.1), loss: 'categoricalCrossentropy'});
    return m;
  };
  const mine = head(glint), tfs = head(tf);
  const init = tfs.getWeights().map((w) => w.arraySync());
  mine.setWeights(init.map((w) => glint.tensor(w)));
  const yo = glint.oneHot(glint.tensor1d(labels, 'int32'), 2), yt = tf.oneHot(tf.tensor1d(labels, 'int32'), 2);
  const ho = await mine.fit(fo, yo, {epochs: 5, batchSize: 3, shuffle: false});
  const ht = await tfs.fit(ft, yt, {epochs: 5, batchSize: 3, shuffle: false});
  ho.history.loss.forEach((l, i) => assert.ok(Math.abs(l - ht.history.loss[i]) <= 1e-4 * Math.max(1, ht.history.loss[i]),
                                               `epoch ${i}: ${l} vs ${ht.history.loss[i]}`));
  assert.ok(maxRelDiff(mine.predict(fo), tfs.predict(ft)) <= 1e-4, 'head predictions');
  // Saved and reloaded: the same predictions on new features.
  let saved;
  await mine.save(glint.io.withSaveHandler(async (a) => {
    saved = a;
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
  const back = await glint.loadLayersModel(glint.io.fromMemory(saved));
  assert.ok(maxRelDiff(back.predict(fo), mine.predict(fo)) === 0, 'reloaded head');
  // The graph model's weights were not touched by training.
  assert.ok(maxRelDiff(feats(ours, glint), ft0) <= 1e-4, 'features after training');
});
