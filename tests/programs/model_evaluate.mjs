// A classifier's everyday calls: summary(printFn), evaluate, predict in batches,
// predictOnBatch, countParams, getWeights/setWeights and layer lookup.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  const model = tf.sequential();
  model.add(tf.layers.dense({units: 6, activation: 'relu', inputShape: [5], name: 'd1'}));
  model.add(tf.layers.dense({units: 4, activation: 'softmax', name: 'd2'}));
  seedWeights(tf, model, 51);
  model.compile({optimizer: 'sgd', loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  const lines = [];
  model.summary(undefined, undefined, (line) => lines.push(line));
  const text = lines.join('\n');
  const total = /Total params:\s*([\d,]+)/.exec(text)?.[1];
  const n = 37;
  const x = tf.tensor2d(seeded(n * 5, 8), [n, 5]);
  const y = tf.tidy(() => tf.oneHot(x.argMax(1).mod(4).cast('int32'), 4).cast('float32'));
  const [loss, acc] = model.evaluate(x, y, {batchSize: 10});
  const p1 = model.predict(x, {batchSize: 5});
  const p2 = model.predictOnBatch(x.slice([0, 0], [3, 5]));
  const d1 = model.getLayer('d1');
  const result = {
    total, mentionsLayers: text.includes('d1') && text.includes('d2'),
    loss: loss.dataSync()[0], acc: acc.dataSync()[0], predShape: p1.shape,
    predRow: Array.from(p1.slice([36, 0], [1, 4]).dataSync()), onBatch: p2.arraySync(),
    params: model.countParams(), d1Params: d1.countParams(),
    d1Shapes: d1.getWeights().map((w) => w.shape),
    names: model.layers.map((l) => l.name),
  };
  tf.dispose([x, y, loss, acc, p1, p2]);
  model.dispose();
  return result;
}
