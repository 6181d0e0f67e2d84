// Saving to a custom handler (tf.io.withSaveHandler) and loading back through
// tf.io.fromMemory and a hand-written {load} handler; weights must round-trip.
// (Layers are named: the libraries number unnamed layers differently.)
import {seeded, seedWeights} from './seeded.mjs';

export async function run(tf) {
  const model = tf.sequential({name: 'saver', layers: [
    tf.layers.dense({units: 5, activation: 'relu', inputShape: [4], name: 'hidden'}),
    tf.layers.dropout({rate: 0.3, name: 'drop'}),
    tf.layers.dense({units: 3, activation: 'softmax', name: 'probs'})]});
  seedWeights(tf, model, 41);
  model.compile({optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  const x = tf.tensor2d(seeded(8, 2), [2, 4]);
  const before = model.predict(x);
  let artifacts;
  const info = await model.save(tf.io.withSaveHandler(async (a) => {
    artifacts = a;
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON',
                                 weightDataBytes: a.weightData.byteLength}};
  }));
  const fromMemory = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
  const custom = await tf.loadLayersModel({load: async () => artifacts});
  const fromParts = await tf.loadLayersModel(tf.io.fromMemory(
      artifacts.modelTopology, artifacts.weightSpecs, artifacts.weightData));
  const outs = [fromMemory, custom, fromParts].map((m) => m.predict(x));
  const result = {
    weightBytes: info.modelArtifactsInfo.weightDataBytes,
    specs: artifacts.weightSpecs.map((s) => [s.name, s.shape, s.dtype]),
    layerClasses: fromMemory.layers.map((l) => l.getClassName()),
    layerNames: custom.layers.map((l) => l.name),
    before: before.arraySync(), outs: outs.map((t) => t.arraySync()),
  };
  tf.dispose([x, before, outs]);
  return result;
}
