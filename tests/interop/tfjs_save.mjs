// TF.js 4.22 builds, briefly trains (seeded data) and saves the standard
// models (mlp, cnn, lstm) and a model with BatchNormalization, Dropout, GRU,
// Embedding and a functional branch (Add, Concatenate); next to each, a fixed
// input and TF.js's predictions for Glint to compare against.
// Usage: node tfjs_save.mjs OUT_DIR
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {fileHandler, tensorToJson} from './fs_handler.mjs';

const out = process.argv[2];
if (!out) throw new Error('usage: node tfjs_save.mjs OUT_DIR');
await tf.setBackend('cpu');

const seeded = (shape, seed) => tf.randomUniform(shape, 0, 1, 'float32', seed);
const oneHot = (n, classes, seed) =>
  tf.oneHot(tf.randomUniform([n], 0, classes, 'int32', seed), classes).toFloat();

function mlp() {
  const m = tf.sequential();
  m.add(tf.layers.dense({units: 128, activation: 'relu', inputShape: [784]}));
  m.add(tf.layers.dense({units: 10, activation: 'softmax'}));
  return {model: m, x: seeded([32, 784], 1), y: oneHot(32, 10, 2)};
}
function cnn() {
  const m = tf.sequential();
  m.add(tf.layers.conv2d({filters: 8, kernelSize: 3, activation: 'relu', inputShape: [28, 28, 1]}));
  m.add(tf.layers.maxPooling2d({poolSize: 2}));
  m.add(tf.layers.conv2d({filters: 16, kernelSize: 3, activation: 'relu'}));
  m.add(tf.layers.maxPooling2d({poolSize: 2}));
  m.add(tf.layers.flatten());
  m.add(tf.layers.dense({units: 10, activation: 'softmax'}));
  return {model: m, x: seeded([16, 28, 28, 1], 3), y: oneHot(16, 10, 4)};
}
function lstm() {
  const m = tf.sequential();
  m.add(tf.layers.lstm({units: 128, inputShape: [28, 28]}));
  m.add(tf.layers.dense({units: 10, activation: 'softmax'}));
  return {model: m, x: seeded([8, 28, 28], 5), y: oneHot(8, 10, 6)};
}
function mixed() {
  const tokens = tf.input({shape: [10]});
  const emb = tf.layers.embedding({inputDim: 20, outputDim: 8}).apply(tokens);
  const seq = tf.layers.gru({units: 6}).apply(emb);
  const a = tf.layers.dense({units: 6, activation: 'relu'}).apply(seq);
  const b = tf.layers.dense({units: 6}).apply(seq);
  const sum = tf.layers.add().apply([a, b]);
  const cat = tf.layers.concatenate().apply([sum, seq]);
  const norm = tf.layers.batchNormalization().apply(cat);
  const drop = tf.layers.dropout({rate: 0.3}).apply(norm);
  const outp = tf.layers.dense({units: 3, activation: 'softmax'}).apply(drop);
  const m = tf.model({inputs: tokens, outputs: outp});
  const x = tf.floor(tf.randomUniform([64, 10], 0, 20, 'float32', 7));
  return {model: m, x, y: oneHot(64, 3, 8)};
}

for (const [name, make] of Object.entries({mlp, cnn, lstm, mixed})) {
  const {model, x, y} = make();
  model.compile({optimizer: tf.train.adam(1e-3), loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  await model.fit(x, y, {epochs: 2, batchSize: 16, shuffle: false, verbose: 0});
  const dir = path.join(out, name);
  // The mlp also carries its optimizer state (Glint restores it).
  await model.save(fileHandler(dir, 64 << 10), {includeOptimizer: name === 'mlp'});
  const probe = x.slice(0, 2);
  fs.writeFileSync(path.join(dir, 'input.json'), JSON.stringify({inputs: [tensorToJson(probe)]}));
  fs.writeFileSync(path.join(dir, 'expected.json'),
                   JSON.stringify({outputs: [tensorToJson(model.predict(probe))]}));
  console.log(`tfjs_save: ${name} saved to ${dir}`);
}
