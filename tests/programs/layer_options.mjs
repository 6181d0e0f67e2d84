// Layer arguments given as objects, as TF.js programs write them:
// tf.initializers.*, tf.regularizers.*, tf.constraints.*, and tf.layers.input.
// The constant initializers make training deterministic, so losses compare exactly.
// Constraints are only configured: TF.js 4.22's fit does not apply them (Glint
// does, as Keras), so a trained constrained model differs by design.
import {seeded} from './seeded.mjs';

export async function run(tf) {
  const inp = tf.layers.input({shape: [4]});
  const hidden = tf.layers.dense({
    units: 3, activation: 'tanh',
    kernelInitializer: tf.initializers.constant({value: 0.2}),
    biasInitializer: tf.initializers.zeros(),
    kernelRegularizer: tf.regularizers.l2({l2: 0.05}),
  }).apply(inp);
  const out = tf.layers.dense({
    units: 1, kernelInitializer: tf.initializers.ones(),
    biasInitializer: tf.initializers.constant({value: -0.1}),
    kernelRegularizer: tf.regularizers.l1l2({l1: 0.01, l2: 0.02}),
  }).apply(hidden);
  const model = tf.model({inputs: inp, outputs: out});
  model.compile({optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError'});
  const x = tf.tensor2d(seeded(40, 12), [10, 4]);
  const y = tf.tidy(() => x.sum(1, true).mul(0.3));
  const h = await model.fit(x, y, {epochs: 4, batchSize: 5, shuffle: false});
  const [kernel, bias, kernel2, bias2] = model.getWeights().map((w) => w.arraySync());
  // A seeded random initializer: the libraries' generators differ, its statistics do not.
  const wide = tf.sequential({layers: [tf.layers.dense({units: 200, inputShape: [100],
    kernelInitializer: tf.initializers.varianceScaling({scale: 2, mode: 'fanIn',
                                                         distribution: 'normal', seed: 3})})]});
  const w = wide.getWeights()[0];
  const stats = tf.tidy(() => {
    const {mean, variance} = tf.moments(w);
    return {mean: mean.dataSync()[0], std: Math.sqrt(variance.dataSync()[0]),
            max: w.abs().max().dataSync()[0]};
  });
  const constrained = tf.layers.dense({units: 2, inputShape: [3],
    kernelConstraint: tf.constraints.maxNorm({maxValue: 0.5, axis: 0}),
    biasConstraint: tf.constraints.nonNeg()}).getConfig();
  const constraints = [constrained.kernelConstraint, constrained.biasConstraint]
      .map((c) => c.className ?? c.class_name);
  tf.dispose([x, y]);
  return {constraints, loss: h.history.loss, kernel, bias, kernel2, bias2, stats};
}
export const tolerance = 1e-4;
export const loose = ['stats'];
export function check(r) {
  const problems = [];
  // TF.js's 'normal': a normal of stddev sqrt(scale / fanIn) cut at 2 stddev,
  // whose spread is then 0.88 of that.
  const expected = Math.sqrt(2 / 100);
  if (!(Math.abs(r.stats.mean) < 0.01)) problems.push(`initializer mean ${r.stats.mean}`);
  if (!(Math.abs(r.stats.std / (0.8796 * expected) - 1) < 0.05)) {
    problems.push(`initializer std ${r.stats.std}, expected ${0.8796 * expected}`);
  }
  if (!(r.stats.max <= 2 * expected * 1.0001)) problems.push(`truncated normal reached ${r.stats.max} > 2 stddev`);
  return problems;
}
