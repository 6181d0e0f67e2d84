// Compiled (not run) by make test-web: the declarations cover what the README shows.
import * as glint from '../../web/package/index';
async function main() {
  await glint.ready();
  const t = glint.tensor([1, 2, 3]);
  const m = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  m.compile({optimizer: glint.train.adam(), loss: 'meanSquaredError'});
  const h = await m.fit(t.reshape([1, 3]), glint.zeros([1, 2]), {epochs: 1});
  console.log(h.history.loss, glint.tidy(() => t.add(1)).dataSync());
  const g = await glint.loadGraphModel('models/blazeface/model.json');
  const y = g.predict(t) as glint.Tensor;
  const mid = await g.executeAsync({[g.inputNodes[0]]: t}, ['conv1', 'out:1']);
  console.log(g.inputs[0].shape, g.outputs[0].dtype, y.shape, mid, g.execute(t, 'conv1'));
  g.dispose();
}
main();
