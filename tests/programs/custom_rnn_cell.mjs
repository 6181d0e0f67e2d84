// A recurrent cell written as TF.js users write one (class extends
// tf.layers.RNNCell with stateSize and call([x, ...states])), in
// tf.layers.rnn on its own and stacked with a built-in cell, trained with fit
// (gradients through the cell's ops), saved and loaded; then a stateful RNN
// over it, fed a sequence in pieces.
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  // A minimal gated cell: h' = z * h + (1 - z) * tanh(x W + h U), z = sigmoid(x Wz + b).
  class GatedCell extends tf.layers.RNNCell {
    constructor(config) {
      super(config);
      this.units = config.units;
      this.stateSize = config.units;
    }
    build(inputShape) {
      const d = inputShape[inputShape.length - 1];
      this.w = this.addWeight('w', [d, this.units], 'float32', tf.initializers.glorotUniform({}));
      this.u = this.addWeight('u', [this.units, this.units], 'float32', tf.initializers.glorotUniform({}));
      this.wz = this.addWeight('wz', [d, this.units], 'float32', tf.initializers.glorotUniform({}));
      this.b = this.addWeight('b', [this.units], 'float32', tf.initializers.zeros());
      this.built = true;
    }
    call(inputs) {
      return tf.tidy(() => {
        const [x, h] = inputs;
        const z = tf.sigmoid(tf.add(tf.matMul(x, this.wz.read()), this.b.read()));
        const candidate = tf.tanh(tf.add(tf.matMul(x, this.w.read()), tf.matMul(h, this.u.read())));
        const next = tf.add(tf.mul(z, h), tf.mul(tf.sub(1, z), candidate));
        return [next, next];
      });
    }
    getConfig() {
      return {...super.getConfig(), units: this.units};
    }
    static get className() {
      return 'GatedCell';
    }
  }
  tf.serialization.registerClass(GatedCell);

  const model = tf.sequential({layers: [
    tf.layers.rnn({cell: [new GatedCell({units: 4}), tf.layers.gruCell({units: 3})], inputShape: [5, 2],
      returnSequences: true}),
    tf.layers.rnn({cell: new GatedCell({units: 3}), goBackwards: true}),
    tf.layers.dense({units: 1})]});
  seedWeights(tf, model, 7);
  const x = tf.tensor(seeded(6 * 5 * 2, 3), [6, 5, 2]);
  const y = tf.tensor(seeded(6, 4), [6, 1]);
  const before = model.predict(x);
  model.compile({optimizer: tf.train.sgd(0.3), loss: 'meanSquaredError'});
  const history = await model.fit(x, y, {epochs: 4, batchSize: 3, shuffle: false});
  const after = model.predict(x);

  let saved;
  await model.save(tf.io.withSaveHandler(async (artifacts) => {
    saved = artifacts;
    return {modelArtifactsInfo: {}};
  }));
  const loaded = await tf.loadLayersModel(tf.io.fromMemory(saved));

  // Stateful: the sequence in two halves gives the whole sequence's last output.
  const stateful = tf.sequential({layers: [
    tf.layers.rnn({cell: new GatedCell({units: 3}), stateful: true, batchInputShape: [2, 3, 2]})]});
  seedWeights(tf, stateful, 11);
  const whole = tf.sequential({layers: [tf.layers.rnn({cell: new GatedCell({units: 3}), inputShape: [6, 2]})]});
  whole.setWeights(stateful.getWeights());
  const seq = tf.tensor(seeded(2 * 6 * 2, 5), [2, 6, 2]);
  stateful.predict(seq.slice([0, 0, 0], [2, 3, 2]));
  const second = stateful.predict(seq.slice([0, 3, 0], [2, 3, 2]));
  stateful.resetStates();
  const fresh = stateful.predict(seq.slice([0, 0, 0], [2, 3, 2]));

  return {
    weightNames: model.weights.map((w) => w.name.replace(/^[^/]*/, '')),
    before: Array.from(before.dataSync()),
    loss: history.history.loss,
    after: Array.from(after.dataSync()),
    loaded: Array.from(loaded.predict(x).dataSync()),
    inPieces: Array.from(second.dataSync()),
    whole: Array.from(whole.predict(seq).dataSync()),
    afterReset: Array.from(fresh.dataSync()),
  };
}

export const tolerance = 1e-4;

export function check(r) {
  const problems = [];
  if (!(r.loss[3] < r.loss[0])) problems.push(`the loss did not fall: ${r.loss}`);
  r.loaded.forEach((v, i) => {
    if (Math.abs(v - r.after[i]) > 1e-5) problems.push(`loaded model differs at ${i}`);
  });
  r.inPieces.forEach((v, i) => {
    if (Math.abs(v - r.whole[i]) > 1e-5) problems.push(`the stateful halves differ from the whole at ${i}`);
  });
  return problems;
}
