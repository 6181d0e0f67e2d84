// What TF.js example code calls beyond the core (issue 30): top-k of a
// classifier's output, tf.buffer, Tensor conveniences, tf.util shape helpers,
// weights encoded and decoded in memory, an optimizer made with `new`, and the
// layout ops (depthToSpace, mirrorPad, spaceToBatchND) with their gradients.
export async function run(tf) {
  const out = {};
  const read = (name, t) => {
    out[name] = t.arraySync();
    t.dispose();
  };
  const logits = tf.tensor2d([[0.1, 2.5, -1, 2.5, 0.3], [3, -2, 0.5, 1, 0]]);
  const {values, indices} = tf.topk(tf.softmax(logits), 3);
  read('top3', values);
  read('top3Index', indices);
  const b = tf.buffer([2, 3], 'int32');
  b.set(7, 1, 2);
  b.set(b.get(1, 2) * 2, 0, 0);
  read('buffer', b.toTensor());
  const x = tf.tensor1d([1.7, -2.2, 3.9, 0.4]);
  read('toInt', x.toInt());
  read('as4D', x.as4D(1, 2, 2, 1));
  read('concat', x.concat(tf.tensor1d([5]), 0));
  out.shapes = {
    squeeze: tf.util.squeezeShape([1, 3, 1, 2]).newShape,
    strides: tf.util.computeStrides([2, 3, 4]),
    inferred: tf.util.inferFromImplicitShape([2, -1], 8),
    loc: tf.util.indexToLoc(17, 3, [12, 4]),
  };
  const {data, specs} = await tf.io.encodeWeights({k: tf.tensor2d([[1, 2], [3, 4]]), c: tf.scalar(3, 'int32')});
  const decoded = tf.io.decodeWeights(data, specs);
  read('decodedK', decoded.k);
  read('decodedC', decoded.c);
  out.specs = specs;
  const w = tf.variable(tf.tensor1d([2, -1]));
  const opt = new tf.AdamOptimizer(0.1, 0.9, 0.999);
  for (let i = 0; i < 5; ++i) opt.minimize(() => w.sub(tf.tensor1d([0.5, 0.5])).square().sum());
  out.adam = Array.from(w.dataSync());
  w.dispose();
  opt.dispose();
  const img = tf.tensor4d(Array.from({length: 16}, (_, i) => i * 0.25 - 2), [1, 2, 2, 4]);
  read('depthToSpace', tf.depthToSpace(img, 2));
  read('mirrorPad', tf.mirrorPad(tf.tensor2d([[1, 2, 3], [4, 5, 6]]), [[1, 1], [2, 2]], 'reflect'));
  read('spaceToBatch', tf.spaceToBatchND(tf.tensor4d(Array.from({length: 16}, (_, i) => i), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]));
  read('gradSpaceToBatch', tf.grad((t) => tf.spaceToBatchND(t, [2, 1], [[1, 1], [0, 0]]).mul(3).sum())(
      tf.tensor4d(Array.from({length: 12}, (_, i) => i), [1, 2, 3, 2])));
  read('searchSorted', tf.searchSorted(tf.tensor1d([1, 3, 5, 7]), tf.tensor1d([0, 3, 6, 9]), 'right'));
  const {values: uniq, indices: where} = tf.unique(tf.tensor1d([4, 1, 4, 2, 1], 'int32'));
  read('unique', uniq);
  read('uniqueIndex', where);
  logits.dispose();
  x.dispose();
  img.dispose();
  return out;
}
