// tf.image in node (single-thread build, cpu backend) against TF.js 4.22's cpu
// backend on the same inputs: resizing (every corner/centre option), crops,
// flips, grayscale, the three NMS forms; gradients of the differentiable ones
// against finite differences; bad arguments named.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';

await glint.ready();
await tf.setBackend('cpu');

function values(n, seed) {
  let s = seed;
  return Array.from({length: n}, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s / 2147483648) * 4 - 2;
  });
}
async function same(mine, theirs, tol = 1e-4) {
  assert.deepEqual(mine.shape, theirs.shape);
  assert.equal(mine.dtype, theirs.dtype);
  const a = await mine.data(), b = await theirs.data();
  for (let i = 0; i < b.length; ++i)
    assert.ok(Math.abs(a[i] - b[i]) <= tol * Math.max(1, Math.abs(b[i])), `element ${i}: ${a[i]} vs ${b[i]}`);
}
const pair = (shape, seed) => {
  const v = values(shape.reduce((a, b) => a * b, 1), seed);
  return [glint.tensor(v, shape), tf.tensor(v, shape)];
};

test('resizeBilinear and resizeNearestNeighbor, every option, up and down', async () => {
  const [g, t] = pair([2, 5, 7, 3], 1);
  for (const size of [[9, 4], [3, 3], [1, 11], [5, 7]])
    for (const alignCorners of [false, true])
      for (const halfPixelCenters of [false, true]) {
        if (alignCorners && halfPixelCenters) continue;  // TF.js refuses the pair
        await same(glint.image.resizeBilinear(g, size, alignCorners, halfPixelCenters),
                   tf.image.resizeBilinear(t, size, alignCorners, halfPixelCenters));
        await same(glint.image.resizeNearestNeighbor(g, size, alignCorners, halfPixelCenters),
                   tf.image.resizeNearestNeighbor(t, size, alignCorners, halfPixelCenters));
      }
  const [g3, t3] = pair([4, 6, 2], 2);  // one image, rank 3
  await same(glint.image.resizeBilinear(g3, [7, 3]), tf.image.resizeBilinear(t3, [7, 3]));
});

test('cropAndResize, flipLeftRight, rgbToGrayscale', async () => {
  const [g, t] = pair([2, 6, 5, 3], 3);
  // Inside, crossing the edge, flipped, a point; no sample lands half-way
  // between pixels, where float32 (Glint) and float64 (TF.js's cpu) coordinates
  // may round 'nearest' apart.
  const boxes = [[0.11, 0.2, 0.8, 0.9], [-0.3, 0.4, 0.62, 1.4], [0.93, 0.8, 0.13, 0.2], [0.52, 0.5, 0.52, 0.5]];
  for (const method of ['bilinear', 'nearest'])
    for (const size of [[3, 4], [1, 1], [5, 2]])
      await same(glint.image.cropAndResize(g, boxes, [0, 1, 1, 0], size, method, -2.5),
                 tf.image.cropAndResize(t, tf.tensor2d(boxes), tf.tensor1d([0, 1, 1, 0], 'int32'), size, method, -2.5));
  await same(glint.image.flipLeftRight(g), tf.image.flipLeftRight(t));
  await same(glint.image.rgbToGrayscale(g), tf.image.rgbToGrayscale(t));
});

// TF.js 4.22's Resizing layer cannot sit in a model (its output shape drops
// the batch), so it is compared applied eagerly.
test('the Resizing layer as TF.js computes it', async () => {
  const [g, t] = pair([2, 5, 7, 2], 4);
  for (const args of [{height: 8, width: 4}, {height: 4, width: 9, interpolation: 'nearest'},
    {height: 3, width: 3, cropToAspectRatio: true}]) {
    await same(glint.layers.resizing(args).apply(g), tf.layers.resizing(args).apply(t));
  }
  const config = glint.layers.resizing({height: 3, width: 2, cropToAspectRatio: true}).getConfig();
  assert.equal(config.cropToAspectRatio, true);
  assert.equal(config.interpolation, 'bilinear');
});

test('nonMaxSuppression, WithScore (soft-NMS) and Padded', async () => {
  const boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
    [0, 100, 1, 101], [1, 1, 0, 0]];
  const scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.8];
  const gb = glint.tensor2d(boxes), gs = glint.tensor1d(scores);
  const tb = tf.tensor2d(boxes), ts = tf.tensor1d(scores);
  for (const [max, iou, thr] of [[3, 0.5, -Infinity], [10, 0.3, 0.4], [0, 0.5, -Infinity], [10, 1, 0]]) {
    await same(glint.image.nonMaxSuppression(gb, gs, max, iou, thr), tf.image.nonMaxSuppression(tb, ts, max, iou, thr));
    await same(await glint.image.nonMaxSuppressionAsync(gb, gs, max, iou, thr),
               await tf.image.nonMaxSuppressionAsync(tb, ts, max, iou, thr));
  }
  const mine = glint.image.nonMaxSuppressionWithScore(gb, gs, 5, 0.5, 0.1, 0.5);
  const theirs = tf.image.nonMaxSuppressionWithScore(tb, ts, 5, 0.5, 0.1, 0.5);
  await same(mine.selectedIndices, theirs.selectedIndices);
  await same(mine.selectedScores, theirs.selectedScores, 1e-5);
  const padMine = glint.image.nonMaxSuppressionPadded(gb, gs, 6, 0.5, 0.5, true);
  const padTheirs = tf.image.nonMaxSuppressionPadded(tb, ts, 6, 0.5, 0.5, true);
  await same(padMine.selectedIndices, padTheirs.selectedIndices);
  assert.equal((await padMine.validOutputs.data())[0], (await padTheirs.validOutputs.data())[0]);
});

test('gradients of resizeBilinear and cropAndResize against finite differences', async () => {
  const x0 = values(1 * 4 * 5 * 2, 9);
  const w = glint.tensor(values(1 * 3 * 7 * 2, 10), [1, 3, 7, 2]);
  const wc = glint.tensor(values(2 * 3 * 2 * 2, 11), [2, 3, 2, 2]);
  const boxes = [[0.12, 0.07, 0.83, 0.91], [0.31, 0.22, 0.77, 0.58]];
  const fns = [
    (x) => glint.sum(glint.mul(glint.image.resizeBilinear(x, [3, 7], false, true), w)),
    (x) => glint.sum(glint.mul(glint.image.cropAndResize(x, boxes, [0, 0], [3, 2]), wc)),
  ];
  for (const f of fns) {
    const x = glint.tensor(x0, [1, 4, 5, 2]);
    const g = await glint.grad(f)(x).data();
    const eps = 1e-2;
    for (const i of [0, 7, 13, 22, 39]) {
      const plus = x0.slice(), minus = x0.slice();
      plus[i] += eps;
      minus[i] -= eps;
      const fp = (await f(glint.tensor(plus, [1, 4, 5, 2])).data())[0];
      const fm = (await f(glint.tensor(minus, [1, 4, 5, 2])).data())[0];
      const numeric = (fp - fm) / (2 * eps);
      assert.ok(Math.abs(g[i] - numeric) <= 2e-2 * Math.max(1, Math.abs(numeric)), `element ${i}: ${g[i]} vs ${numeric}`);
    }
  }
});

test('bad arguments are named errors', () => {
  const x = glint.zeros([1, 4, 4, 3]);
  assert.throws(() => glint.image.resizeBilinear(x, [0, 3]), /resizeBilinear.*size/);
  assert.throws(() => glint.image.resizeBilinear(glint.zeros([4, 3]), [2, 2]), /resizeBilinear/);
  assert.throws(() => glint.image.cropAndResize(x, [[0, 0, 1, 1]], [3], [2, 2]), /cropAndResize.*boxInd holds 3/);
  assert.throws(() => glint.image.cropAndResize(x, [[0, 0, 1]], [0], [2, 2]), /cropAndResize.*boxes/);
  assert.throws(() => glint.image.rgbToGrayscale(glint.zeros([2, 2, 4])), /rgbToGrayscale.*3 channels/);
  assert.throws(() => glint.image.nonMaxSuppression(glint.zeros([3, 4]), glint.zeros([2]), 2), /nonMaxSuppression/);
  assert.throws(() => glint.image.nonMaxSuppression(glint.zeros([3, 4]), glint.zeros([3]), -1), /maxOutputSize/);
});
