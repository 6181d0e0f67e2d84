// Fits a cubic to points with tf.variable coefficients and optimizer.minimize,
// as the "fitting a curve" tutorial does.
export async function run(tf) {
  const xs = tf.linspace(-1, 1, 40);
  const ys = tf.tidy(() => xs.pow(3).mul(0.6).sub(xs.square().mul(0.4)).add(xs.mul(0.25)).add(0.1));
  const a = tf.variable(tf.scalar(0.2));
  const b = tf.variable(tf.scalar(-0.1));
  const c = tf.variable(tf.scalar(0.3));
  const d = tf.variable(tf.scalar(0.05));
  const predict = (x) => tf.tidy(() =>
    a.mul(x.pow(tf.scalar(3, 'int32'))).add(b.mul(x.square())).add(c.mul(x)).add(d));
  const loss = (pred, label) => pred.sub(label).square().mean();
  const optimizer = tf.train.sgd(0.5);
  const losses = [];
  for (let i = 0; i < 60; ++i) {
    const cost = optimizer.minimize(() => loss(predict(xs), ys), true);
    if (i % 10 === 0) losses.push(cost.dataSync()[0]);
    cost.dispose();
  }
  const adam = tf.train.adam(0.05);
  for (let i = 0; i < 20; ++i) adam.minimize(() => loss(predict(xs), ys), false, [a, b, c, d]);
  const coeffs = [a, b, c, d].map((v) => v.dataSync()[0]);
  const curve = tf.tidy(() => predict(tf.tensor1d([-0.5, 0, 0.5])).arraySync());
  tf.dispose([xs, ys, a, b, c, d]);
  return {losses, coeffs, curve};
}
export const tolerance = 1e-4;
