// The same least-squares problem under each optimizer TF.js users pick; from the
// same start, every step is deterministic. (Not adadelta: TF.js 4.22 scales its
// step by the previous accumulator, which makes it plain SGD; Glint follows Keras.)
export async function run(tf) {
  const a = tf.tensor2d([[1, 2], [3, 4], [5, -1], [0.5, 0.25]]);
  const target = tf.tensor2d([[1], [0], [2], [-1]]);
  const make = {
    sgd: () => tf.train.sgd(0.02),
    momentum: () => tf.train.momentum(0.02, 0.9),
    adam: () => tf.train.adam(0.1),
    rmsprop: () => tf.train.rmsprop(0.05),
    adagrad: () => tf.train.adagrad(0.3),
    adamax: () => tf.train.adamax(0.1),
  };
  const result = {};
  for (const [name, create] of Object.entries(make)) {
    const w = tf.variable(tf.tensor2d([[0.3], [-0.2]]));
    const opt = create();
    let cost;
    for (let i = 0; i < 25; ++i) {
      cost?.dispose();
      cost = opt.minimize(() => a.matMul(w).sub(target).square().mean(), true);
    }
    result[name] = {w: Array.from(w.dataSync()), cost: cost.dataSync()[0]};
    cost.dispose();
    w.dispose();
    opt.dispose();
  }
  tf.dispose([a, target]);
  return result;
}
export const tolerance = 1e-4;
