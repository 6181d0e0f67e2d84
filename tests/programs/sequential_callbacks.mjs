// A Sequential regression model trained with fit: validationSplit, per-batch and
// per-epoch callbacks, and early stopping on val_loss.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  const n = 50;
  const x = tf.tensor2d(seeded(n * 3, 7), [n, 3]);
  const y = tf.tidy(() => x.matMul(tf.tensor2d([[0.5], [-1], [2]])).add(0.3));
  const model = tf.sequential();
  model.add(tf.layers.dense({units: 8, activation: 'relu', inputShape: [3]}));
  model.add(tf.layers.dense({units: 1}));
  seedWeights(tf, model, 11);
  model.compile({optimizer: tf.train.sgd(0.05), loss: 'meanSquaredError', metrics: ['mae']});
  const batchLosses = [], epochLogs = [];
  let began = 0, ended = 0;
  const history = await model.fit(x, y, {
    epochs: 6, batchSize: 16, shuffle: false, validationSplit: 0.2,
    callbacks: {
      onTrainBegin: async () => { began++; },
      onBatchEnd: async (batch, logs) => { batchLosses.push(logs.loss); },
      onEpochEnd: async (epoch, logs) => { epochLogs.push([epoch, logs.loss, logs.val_loss]); },
      onTrainEnd: async () => { ended++; },
    },
  });
  // Early stopping: the learning rate is so high that val_loss stops improving at once.
  const diverging = tf.sequential({layers: [tf.layers.dense({units: 1, inputShape: [3]})]});
  seedWeights(tf, diverging, 3);
  diverging.compile({optimizer: tf.train.sgd(2), loss: 'meanSquaredError'});
  const stopped = await diverging.fit(x, y, {
    epochs: 20, batchSize: 50, validationSplit: 0.2, shuffle: false,
    callbacks: tf.callbacks.earlyStopping({monitor: 'val_loss', patience: 2}),
  });
  const result = {
    batches: batchLosses.length, batchLosses, epochLogs, began, ended,
    historyKeys: Object.keys(history.history).sort(),
    mae: history.history.mae, valLoss: history.history.val_loss,
    stoppedEpochs: stopped.epoch.length,
  };
  tf.dispose([x, y]);
  model.dispose();
  diverging.dispose();
  return result;
}
export const tolerance = 1e-4;
export function check(r) {
  const problems = [];
  if (!(r.stoppedEpochs > 2 && r.stoppedEpochs < 20)) problems.push(`earlyStopping ran ${r.stoppedEpochs} of 20 epochs`);
  if (r.batches !== 18) problems.push(`onBatchEnd ran ${r.batches} times, not 6 epochs x 3 batches`);
  return problems;
}
