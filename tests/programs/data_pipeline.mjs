// tf.data: array, generator, zip, map, batch, a seeded shuffle, fitDataset.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  const n = 40;
  const raw = Array.from(seeded(n * 2, 9));
  const features = tf.data.array(Array.from({length: n}, (_, i) => [raw[2 * i], raw[2 * i + 1]]));
  function* labels() {
    for (let i = 0; i < n; ++i) yield raw[2 * i] + raw[2 * i + 1] > 0 ? 1 : 0;
  }
  const zipped = tf.data.zip({xs: features, ys: tf.data.generator(labels)})
      .map(({xs, ys}) => ({xs, ys: [ys]}));
  // The shuffled order depends on the library's generator; its contents do not.
  const shuffled = await zipped.shuffle(n, 42).toArray();
  const sameSeed = await zipped.shuffle(n, 42).toArray();
  const batches = await zipped.batch(16).toArray();
  const batchShapes = batches.map((b) => [b.xs.shape, b.ys.shape]);
  const firstBatch = batches[0].xs.arraySync();
  tf.dispose(batches);

  const model = tf.sequential({layers: [
    tf.layers.dense({units: 8, activation: 'relu', inputShape: [2]}),
    tf.layers.dense({units: 1, activation: 'sigmoid'})]});
  seedWeights(tf, model, 4);
  model.compile({optimizer: tf.train.adam(0.05), loss: 'binaryCrossentropy', metrics: ['accuracy']});
  const ds = zipped.shuffle(n, 1).batch(8);
  let epochsSeen = 0;
  const h = await model.fitDataset(ds, {epochs: 25, callbacks: {onEpochEnd: () => { epochsSeen++; }}});
  const accs = h.history.acc ?? h.history.accuracy;
  return {
    count: shuffled.length,
    shuffledSum: Math.round(shuffled.reduce((s, e) => s + e.xs[0] + 2 * e.xs[1] + 3 * e.ys[0], 0) * 1e4),
    isPermutation: shuffled.map((e) => e.xs[0]).sort().join() === raw.filter((_, i) => i % 2 === 0).sort().join(),
    seedRepeats: shuffled.every((e, i) => e.xs[0] === sameSeed[i].xs[0]),
    moved: shuffled.some((e, i) => e.xs[0] !== raw[2 * i]),
    batchShapes, firstBatch, epochsSeen,
    firstLoss: h.history.loss[0], lastLoss: h.history.loss.at(-1), lastAcc: accs.at(-1),
  };
}
export const tolerance = 1e-5;
// Different RNGs shuffle differently, so training is compared by ranges.
export const loose = ['firstLoss', 'lastLoss', 'lastAcc'];
export function check(r) {
  const problems = [];
  if (!(r.lastLoss < 0.6 * r.firstLoss)) problems.push(`loss ${r.firstLoss} -> ${r.lastLoss}: not down 40%`);
  if (!(r.lastAcc >= 0.85)) problems.push(`final accuracy ${r.lastAcc} < 0.85`);
  return problems;
}
