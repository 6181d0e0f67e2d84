// A custom layer written as TF.js users write one (class extends tf.layers.Layer,
// registered for serialization), used inside a model that is saved and loaded.
import {seedWeights} from './seeded.mjs';

export async function run(tf) {
  // Centres each row, then keeps its positive and its negative part side by side:
  // the output has twice the input's features.
  class CentredSplit extends tf.layers.Layer {
    constructor(config = {}) {
      super(config);
      this.gain = config.gain ?? 1;
    }
    computeOutputShape(inputShape) {
      return [inputShape[0], inputShape[1] * 2];
    }
    call(inputs) {
      return tf.tidy(() => {
        const x = Array.isArray(inputs) ? inputs[0] : inputs;
        const centred = x.sub(x.mean(1, true)).mul(this.gain);
        return tf.concat([tf.relu(centred), tf.relu(tf.neg(centred))], 1);
      });
    }
    getConfig() {
      return {...super.getConfig(), gain: this.gain};
    }
    static get className() {
      return 'CentredSplit';
    }
  }
  tf.serialization.registerClass(CentredSplit);

  const model = tf.sequential({layers: [
    tf.layers.dense({units: 4, inputShape: [3]}),
    new CentredSplit({gain: 2}),
    tf.layers.dense({units: 2})]});
  seedWeights(tf, model, 31);
  const x = tf.tensor2d([[1, 2, 3], [-1, 0.5, 2], [0, 0, 1]]);
  const before = model.predict(x);
  let saved;
  await model.save(tf.io.withSaveHandler(async (artifacts) => {
    saved = artifacts;
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
  const loaded = await tf.loadLayersModel(tf.io.fromMemory(saved));
  const after = loaded.predict(x);
  const result = {
    hiddenShape: model.layers[1].computeOutputShape([null, 4]),
    className: loaded.layers[1].getClassName(), gain: loaded.layers[1].getConfig().gain,
    before: before.arraySync(), after: after.arraySync(),
  };
  tf.dispose([x, before, after]);
  return result;
}
