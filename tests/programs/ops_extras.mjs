// Everyday ops beyond the arithmetic core: linspace, addN, eye, outerProduct,
// norms, cumsum, logSigmoid, step, divNoNan, isNaN/isInf/isFinite, tan/sinh/cosh,
// the rank-checked aliases, their gradients, and tf.metrics' aliases.
export async function run(tf) {
  const out = {};
  const read = (name, t) => {
    out[name] = t.arraySync();
    t.dispose();
  };
  const m = tf.tensor2d([[1, -2, 3], [-4, 5, -6]]);
  const v = tf.tensor1d([0.5, -1.5, 2]);
  read('linspace', tf.linspace(-1, 2, 7));
  read('addN', tf.addN([m, m.mul(2), tf.onesLike(m)]));
  read('eye', tf.eye(3, 4));
  read('eyeBatch', tf.eye(2, 2, [2]));
  read('clone', tf.clone(v));
  read('outer', tf.outerProduct(v, tf.tensor1d([1, 2])));
  read('normAll', tf.norm(m));
  read('norm1', tf.norm(m, 1, 1));
  read('normInf', tf.norm(v, Infinity));
  read('normFro', tf.norm(m, 'fro', [0, 1], true));
  read('normMat1', tf.norm(m, 1, [0, 1]));
  read('euclidean', tf.euclideanNorm(m, 0));
  read('cumsum', tf.cumsum(m, 1));
  read('cumsumExclusive', tf.cumsum(m, 0, true));
  read('cumsumReverse', tf.cumsum(v, 0, false, true));
  read('cumsumInt', tf.cumsum(tf.tensor1d([1, 2, 3], 'int32')));
  read('logSigmoid', tf.logSigmoid(tf.tensor1d([-30, -1, 0, 2, 30])));
  read('step', tf.step(v, 0.1));
  read('divNoNan', tf.divNoNan(tf.tensor1d([1, 2, 3]), tf.tensor1d([2, 0, -3])));
  const odd = tf.tensor1d([1, NaN, Infinity, -Infinity, 0]);
  read('isNaN', tf.isNaN(odd));
  read('isInf', tf.isInf(odd));
  read('isFinite', tf.isFinite(odd));
  read('tan', tf.tan(tf.tensor1d([0.1, -0.7, 1.2])));
  read('sinh', tf.sinh(v));
  read('cosh', tf.cosh(v));
  read('slice2d', tf.slice2d(m, [0, 1], [2, 2]));
  read('concat1d', tf.concat1d([v, v]));
  read('gradCumsum', tf.grad((x) => tf.cumsum(x).mul(tf.tensor1d([1, 2, 3])).sum())(v));
  read('gradNorm', tf.grad((x) => tf.norm(x))(v));
  read('gradLogSigmoid', tf.grad((x) => tf.logSigmoid(x).sum())(v));
  const yTrue = tf.tensor2d([[0, 1], [1, 0], [1, 1]]);
  const yPred = tf.tensor2d([[0.2, 0.7], [0.6, 0.3], [0.9, 0.8]]);
  read('mse', tf.metrics.mse(yTrue, yPred));
  read('MSE', tf.metrics.MSE(yTrue, yPred));
  read('mape', tf.metrics.mape(yTrue.add(1), yPred.add(1)));
  read('binaryCrossentropy', tf.metrics.binaryCrossentropy(yTrue, yPred));
  read('categoricalCrossentropy', tf.metrics.categoricalCrossentropy(yTrue, yPred));
  read('cosineProximity', tf.metrics.cosineProximity(yTrue, yPred));
  read('r2Score', tf.metrics.r2Score(yTrue, yPred));
  tf.dispose([m, v, odd, yTrue, yPred]);
  return out;
}
