// A functional model with two inputs and two outputs (a regression head and a
// classification head), trained and run on both.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  const a = tf.input({shape: [4], name: 'numbers'});
  const b = tf.input({shape: [2], name: 'flags'});
  const ha = tf.layers.dense({units: 6, activation: 'tanh'}).apply(a);
  const merged = tf.layers.concatenate().apply([ha, b]);
  const value = tf.layers.dense({units: 1, name: 'value'}).apply(merged);
  const klass = tf.layers.dense({units: 3, activation: 'softmax', name: 'klass'}).apply(merged);
  const model = tf.model({inputs: [a, b], outputs: [value, klass]});
  seedWeights(tf, model, 21);
  model.compile({optimizer: tf.train.sgd(0.1),
                 loss: ['meanSquaredError', 'categoricalCrossentropy']});
  const n = 24;
  const xa = tf.tensor2d(seeded(n * 4, 5), [n, 4]);
  const xb = tf.tensor2d(seeded(n * 2, 6), [n, 2]);
  const yv = tf.tidy(() => xa.sum(1, true).mul(0.5));
  const yc = tf.tidy(() => tf.oneHot(xa.argMax(1).mod(3).cast('int32'), 3).cast('float32'));
  const h = await model.fit([xa, xb], [yv, yc], {epochs: 3, batchSize: 8, shuffle: false});
  const [pv, pc] = model.predict([xa.slice([0, 0], [3, 4]), xb.slice([0, 0], [3, 2])]);
  const result = {
    keys: Object.keys(h.history).sort(),
    inputShapes: model.inputs.map((t) => t.shape), outputShapes: model.outputs.map((t) => t.shape),
    loss: h.history.loss, value: pv.arraySync(), klass: pc.arraySync(),
    layerCount: model.layers.length,
  };
  tf.dispose([xa, xb, yv, yc, pv, pc]);
  model.dispose();
  return result;
}
export const tolerance = 1e-4;
