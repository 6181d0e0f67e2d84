// Transfer learning with a layers model, as the Teachable Machine tutorials
// write it: a "pretrained" convnet cut at an inner layer (tf.model on
// getLayer(...).output), frozen, under a new trainable head; fit on a few
// samples, then saved and loaded back.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  const base = tf.sequential({layers: [
    tf.layers.conv2d({filters: 4, kernelSize: 3, activation: 'relu', inputShape: [8, 8, 1], name: 'c1'}),
    tf.layers.maxPooling2d({poolSize: 2, name: 'p1'}),
    tf.layers.flatten({name: 'features'}),
    tf.layers.dense({units: 5, activation: 'softmax', name: 'old_head'})]});
  seedWeights(tf, base, 31);
  const truncated = tf.model({inputs: base.inputs, outputs: base.getLayer('features').output});
  // Freezing each layer: TF.js 4.22 still trains a nested model whose own
  // trainable flag alone is false (Glint does not, as Keras).
  for (const layer of truncated.layers) layer.trainable = false;
  truncated.trainable = false;
  const model = tf.sequential();
  model.add(truncated);
  model.add(tf.layers.dense({units: 6, activation: 'relu', name: 'new_1'}));
  model.add(tf.layers.dense({units: 2, activation: 'softmax', name: 'new_2'}));
  const headWeights = model.getLayer('new_1').getWeights().concat(model.getLayer('new_2').getWeights())
      .map((w, i) => tf.tensor(seeded(w.size, 40 + i, 0.3), w.shape));
  model.getLayer('new_1').setWeights(headWeights.slice(0, 2));
  model.getLayer('new_2').setWeights(headWeights.slice(2));
  model.compile({optimizer: tf.train.sgd(0.2), loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  const n = 12;
  const xs = tf.tensor4d(seeded(n * 64, 7), [n, 8, 8, 1]);
  const ys = tf.oneHot(tf.tensor1d(Array.from({length: n}, (_, i) => i % 2), 'int32'), 2).cast('float32');
  const frozenBefore = truncated.getWeights().map((w) => Array.from(w.dataSync()));
  const h = await model.fit(xs, ys, {epochs: 4, batchSize: 4, shuffle: false});
  const frozenAfter = truncated.getWeights().map((w) => Array.from(w.dataSync()));
  let saved;
  await model.save(tf.io.withSaveHandler(async (artifacts) => {
    saved = artifacts;
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
  const back = await tf.loadLayersModel(tf.io.fromMemory(saved));
  const p = model.predict(xs), q = back.predict(xs);
  const result = {
    loss: h.history.loss,
    trainableWeights: model.trainableWeights.length,
    frozenUnchanged: JSON.stringify(frozenBefore) === JSON.stringify(frozenAfter),
    prediction: p.arraySync(),
    reloadedSame: JSON.stringify(p.arraySync()) === JSON.stringify(q.arraySync()),
  };
  tf.dispose([xs, ys, p, q, ...headWeights]);
  model.dispose();
  return result;
}
export const tolerance = 1e-4;
