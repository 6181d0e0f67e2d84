// glint-ml's fit and fitDataset in node (WebAssembly, cpu), for the native
// test IoInterop.JsFitTrainsAsNativeFit: a small model saved before and after
// training, the data and the options. The native side trains the saved
// starting model with the same options and compares weights and history:
// both drive the engine's one epoch loop, so the shuffles, the validation
// split and the logs must agree.
// Usage: node glint_fit.mjs OUT_DIR
import fs from 'node:fs';
import path from 'node:path';
import * as glint from '../../web/package/src/index.js';

const out = process.argv[2];
if (!out) throw new Error('usage: node glint_fit.mjs OUT_DIR');
await glint.ready();
await glint.setBackend('cpu');

// Deterministic data (an LCG, not the engine's generator): y = x W + noise.
let state = 12345;
const uniform = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
const rows = (n, k) => Array.from({length: n * k}, uniform);
const n = 44;
const xv = rows(n, 3);
const yv = Array.from({length: n * 2}, (_, i) => {
  const r = Math.floor(i / 2), c = i % 2;
  const w = c === 0 ? [1, -2, 0.5] : [3, -1, 1];
  return w.reduce((s, wj, j) => s + wj * xv[r * 3 + j], 0) + 0.05 * uniform();
});

function build() {
  const model = glint.sequential({layers: [
    glint.layers.dense({units: 6, activation: 'tanh', inputShape: [3],
      kernelInitializer: glint.initializers.glorotUniform({seed: 7})}),
    glint.layers.dense({units: 2, kernelInitializer: glint.initializers.glorotUniform({seed: 8})}),
  ]});
  model.compile({optimizer: glint.train.sgd(0.1), loss: 'meanSquaredError', metrics: ['mae']});
  return model;
}

const cases = {
  fit: {epochs: 3, batchSize: 8, validationSplit: 0.25, seed: 5, shuffle: true},
  fitDataset: {epochs: 2, batchSize: 8},
};
fs.mkdirSync(out, {recursive: true});
const x = glint.tensor(xv, [n, 3]), y = glint.tensor(yv, [n, 2]);
const record = {x: {shape: [n, 3], values: xv}, y: {shape: [n, 2], values: yv}, cases: {}};
for (const [name, options] of Object.entries(cases)) {
  const dir = path.join(out, name);
  const model = build();
  await model.save(`file://${dir}/initial`);
  let history;
  if (name === 'fit') {
    history = await model.fit(x, y, options);
  } else {
    // In order, batchSize rows a batch; validation: the first 12 rows as tensors.
    const ds = glint.data.zip({xs: glint.data.array(await x.array()),
      ys: glint.data.array(await y.array())}).batch(options.batchSize);
    const vx = glint.slice(x, [0, 0], [12, 3]), vy = glint.slice(y, [0, 0], [12, 2]);
    history = await model.fitDataset(ds, {epochs: options.epochs, validationData: [vx, vy]});
    glint.dispose([vx, vy]);
  }
  await model.save(`file://${dir}/trained`);
  record.cases[name] = {options, history: history.history};
  model.dispose();
}
fs.writeFileSync(path.join(out, 'fit.json'), JSON.stringify(record));
console.log(`glint_fit: fit and fitDataset trained in node, saved under ${out}`);
