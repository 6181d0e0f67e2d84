// What the app does with glint-ml, the way the package's README shows it:
// build a Sequential model, fit it, predict. y = 2x - 1 is learned to within
// 0.1 at x = 10 (an independent check: the line itself).
import * as tf from 'glint-ml';

export async function learnLine() {
  await tf.ready();
  const model = tf.sequential({layers: [tf.layers.dense({units: 1, inputShape: [1]})]});
  model.compile({optimizer: tf.train.sgd(0.05), loss: 'meanSquaredError'});
  const xs = tf.tensor2d([-1, 0, 1, 2, 3, 4], [6, 1]);
  const ys = tf.tensor2d([-3, -1, 1, 3, 5, 7], [6, 1]);
  const history = await model.fit(xs, ys, {epochs: 300, verbose: 0});
  const y = (await model.predict(tf.tensor2d([10], [1, 1])).data())[0];
  const info = tf.backendInfo();
  return {y, ok: Math.abs(y - 19) < 0.1, loss: history.history.loss.at(-1),
          build: info.build.name, threads: info.build.threads, fallback: info.build.fallback ?? null,
          wasmFrom: info.build.wasmFrom === 'embedded' ? 'embedded' : 'file',
          relaxedSimd: info.build.relaxedSimd, relaxedSimdWhy: info.build.relaxedSimdWhy ?? null};
}
