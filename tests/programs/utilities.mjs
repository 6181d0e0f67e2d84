// Memory management and utilities: tidy/keep/dispose/memory, tf.util, oneHot,
// tf.metrics and tf.losses.
export async function run(tf) {
  const start = tf.memory().numTensors;
  let kept;
  const inside = tf.tidy(() => {
    const a = tf.tensor1d([1, 2, 3]);
    kept = tf.keep(a.square());
    a.add(1);
    return a.mul(2);
  });
  const afterTidy = tf.memory().numTensors - start;  // inside and kept survive
  tf.dispose([inside, kept]);
  const afterDispose = tf.memory().numTensors - start;

  const arr = [1, 2, 3, 4, 5, 6, 7, 8];
  tf.util.shuffle(arr);
  const idx = Array.from(tf.util.createShuffledIndices(10));
  const yTrue = tf.tensor2d([[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0]]);
  const yPred = tf.tensor2d([[0.1, 0.8, 0.1], [0.3, 0.5, 0.2], [0.2, 0.2, 0.6], [0.6, 0.3, 0.1]]);
  const labels = tf.tensor1d([1, 0, 2, 1], 'int32');
  const oh = tf.oneHot(labels, 3);
  const read = (t) => {
    const v = Array.from(t.dataSync());
    t.dispose();
    return v;
  };
  const result = {
    afterTidy, afterDispose,
    shuffledSorted: arr.slice().sort((p, q) => p - q), idxSorted: idx.sort((p, q) => p - q),
    size: tf.util.sizeFromShape([2, 3, 4]), oneHot: oh.arraySync(), oneHotDtype: oh.dtype,
    catAcc: read(tf.metrics.categoricalAccuracy(yTrue, yPred)),
    binAcc: read(tf.metrics.binaryAccuracy(tf.tensor1d([1, 0, 1, 1]), tf.tensor1d([0.7, 0.2, 0.4, 0.9]))),
    precision: read(tf.metrics.precision(tf.tensor1d([1, 0, 1, 1]), tf.tensor1d([1, 1, 0, 1]))),
    mse: read(tf.metrics.meanSquaredError(yTrue, yPred)),
    lossMse: read(tf.losses.meanSquaredError(yTrue, yPred)),
    lossSoftmax: read(tf.losses.softmaxCrossEntropy(yTrue, yPred)),
    lossLog: read(tf.losses.logLoss(yTrue, yPred)),
    lossHuber: read(tf.losses.huberLoss(yTrue, yPred)),
    lossAbs: read(tf.losses.absoluteDifference(yTrue, yPred)),
  };
  tf.dispose([yTrue, yPred, labels, oh]);
  result.leaked = tf.memory().numTensors - start;
  return result;
}
