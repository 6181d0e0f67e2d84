// A hand-written training loop as in the tfjs-examples: trainOnBatch over slices,
// `await tf.nextFrame()` between steps, then fit with validationData and
// yieldEvery, and the model's weight lists.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  await tf.ready();
  const n = 48;
  const x = tf.tensor2d(seeded(n * 4, 13), [n, 4]);
  const labels = tf.tidy(() => x.slice([0, 0], [n, 1]).greater(x.slice([0, 1], [n, 1])).cast('float32'));
  const model = tf.sequential({layers: [
    tf.layers.dense({units: 6, activation: 'relu', inputShape: [4]}),
    tf.layers.dense({units: 1, activation: 'sigmoid'})]});
  seedWeights(tf, model, 61);
  model.compile({optimizer: tf.train.sgd(0.5), loss: 'binaryCrossentropy', metrics: ['accuracy']});
  const stepLogs = [];
  for (let epoch = 0; epoch < 3; ++epoch) {
    for (let begin = 0; begin < n; begin += 16) {
      const [loss, acc] = tf.tidy(() => [x.slice([begin, 0], [16, 4]), labels.slice([begin, 0], [16, 1])]);
      stepLogs.push(await model.trainOnBatch(loss, acc));
      tf.dispose([loss, acc]);
      await tf.nextFrame();
    }
  }
  const valX = tf.tensor2d(seeded(8 * 4, 14), [8, 4]);
  const valY = tf.tidy(() => valX.slice([0, 0], [8, 1]).greater(valX.slice([0, 1], [8, 1])).cast('float32'));
  const h = await model.fit(x, labels, {epochs: 2, batchSize: 24, shuffle: false,
                                        validationData: [valX, valY], yieldEvery: 'epoch'});
  const result = {
    stepLogs, history: h.history, epochs: h.epoch,
    weights: model.weights.length, trainable: model.trainableWeights.length,
    kernelShape: model.layers[0].getWeights()[0].shape,
  };
  tf.dispose([x, labels, valX, valY]);
  model.dispose();
  return result;
}
export const tolerance = 1e-4;
