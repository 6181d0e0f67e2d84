// More ops users reach for: conv1d, gatherND, broadcastTo, meshgrid, prelu,
// expm1, tf.math.confusionMatrix, and the reading ones, booleanMaskAsync and
// whereAsync; with gradients where TF.js has them (not gatherND's).
import {seeded} from './seeded.mjs';

export async function run(tf) {
  const out = {};
  const read = async (name, t) => {
    out[name] = await t.array();
    t.dispose();
  };
  const signal = tf.tensor3d(seeded(2 * 7 * 3, 1), [2, 7, 3]);
  const filter = tf.tensor3d(seeded(3 * 3 * 4, 2), [3, 3, 4]);
  await read('conv1dValid', tf.conv1d(signal, filter, 1, 'valid'));
  await read('conv1dSame', tf.conv1d(signal, filter, 2, 'same'));
  await read('conv1dDilated', tf.conv1d(signal, filter, 1, 'valid', 'NWC', 2));
  await read('conv1dGrad', tf.grad((f) => tf.conv1d(signal, f, 1, 'same').square().sum())(filter));
  const table = tf.tensor3d(seeded(2 * 3 * 4, 3), [2, 3, 4]);
  await read('gatherND', tf.gatherND(table, tf.tensor2d([[1, 2], [0, 0], [1, 0]], [3, 2], 'int32')));
  await read('gatherNDScalars', tf.gatherND(table, [[1, 2, 3], [0, 1, 1]]));
  await read('broadcastTo', tf.broadcastTo(tf.tensor1d([1, 2, 3]), [2, 3]));
  await read('broadcastTo3', tf.broadcastTo(tf.tensor2d([[1], [2]]), [2, 2, 3]));
  const [gx, gy] = tf.meshgrid(tf.tensor1d([1, 2, 3]), tf.tensor1d([4, 5]));
  await read('meshX', gx);
  await read('meshY', gy);
  const [ix, iy] = tf.meshgrid(tf.tensor1d([1, 2, 3]), tf.tensor1d([4, 5]), {indexing: 'ij'});
  await read('meshIX', ix);
  await read('meshIY', iy);
  const v = tf.tensor1d([-2, -0.5, 0, 1.5]);
  await read('prelu', tf.prelu(v, tf.scalar(0.2)));
  await read('preluGrad', tf.grad((t) => tf.prelu(t, tf.scalar(0.2)).sum())(v));
  await read('expm1', tf.expm1(v));
  await read('confusion', tf.math.confusionMatrix(tf.tensor1d([0, 1, 2, 1, 0], 'int32'),
                                                  tf.tensor1d([0, 2, 2, 1, 1], 'int32'), 3));
  const mask = tf.tensor1d([true, false, true]);
  await read('booleanMask', await tf.booleanMaskAsync(tf.tensor2d([[1, 2], [3, 4], [5, 6]]), mask));
  await read('where', await tf.whereAsync(tf.tensor2d([[true, false], [false, true]])));
  tf.dispose([signal, filter, table, v, mask]);
  return out;
}
