// The MNIST-core pattern: a convnet written with ops (conv2d, maxPool, matMul)
// over tf.variable weights, trained with optimizer.minimize(f, true).
import {seeded} from './seeded.mjs';

export async function run(tf) {
  const n = 16, size = 8, classes = 3;
  // Images: a bright bar whose position (top, middle, bottom) is the class.
  const pixels = new Float32Array(n * size * size);
  const labels = [];
  const noise = seeded(n * size * size, 3, 0.1);
  for (let i = 0; i < n; ++i) {
    const c = i % classes;
    labels.push(c);
    for (let r = 0; r < size; ++r) {
      for (let col = 0; col < size; ++col) {
        const k = (i * size + r) * size + col;
        pixels[k] = noise[k] + (Math.floor(r / 3) === c ? 1 : 0);
      }
    }
  }
  const xs = tf.tensor4d(pixels, [n, size, size, 1]);
  const ys = tf.oneHot(tf.tensor1d(labels, 'int32'), classes);
  const w1 = tf.variable(tf.tensor4d(seeded(3 * 3 * 4, 1, 0.5), [3, 3, 1, 4]));
  const b1 = tf.variable(tf.zeros([4]));
  const w2 = tf.variable(tf.tensor2d(seeded(4 * 4 * 4 * classes, 2, 0.2), [64, classes]));
  const b2 = tf.variable(tf.zeros([classes]));
  const model = (x) => {
    const h = tf.conv2d(x, w1, 1, 'same').add(b1).relu();
    const p = tf.maxPool(h, [2, 2], 2, 'valid');
    return p.reshape([-1, 64]).matMul(w2).add(b2);
  };
  const optimizer = tf.train.sgd(0.1);
  const losses = [];
  for (let step = 0; step < 15; ++step) {
    const cost = optimizer.minimize(() => tf.losses.softmaxCrossEntropy(ys, model(xs)).mean(), true);
    losses.push(cost.dataSync()[0]);
    cost.dispose();
  }
  const acc = tf.tidy(() => model(xs).argMax(1).equal(ys.argMax(1)).cast('float32').mean().dataSync()[0]);
  tf.dispose([xs, ys, w1, b1, w2, b2]);
  return {losses, acc};
}
export const tolerance = 1e-4;
