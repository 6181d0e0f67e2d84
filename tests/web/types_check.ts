// Compiled (not run) by make test-web: the declarations cover what the README shows.
import * as glint from '../../web/package/index';
async function main() {
  await glint.ready();
  const t = glint.tensor([1, 2, 3]);
  const m = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  m.compile({optimizer: glint.train.adam(), loss: 'meanSquaredError'});
  const h = await m.fit(t.reshape([1, 3]), glint.zeros([1, 2]), {epochs: 1});
  console.log(h.history.loss, glint.tidy(() => t.add(1)).dataSync());
}
main();
