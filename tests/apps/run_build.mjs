// One engine build in this process, for tests/apps/own_build.test.mjs: prints
// JSON. --wasm-path DIR: that build (else the package's); --model FILE: the
// model's predictions of 2 fixed inputs and its losses over 3 Adam steps;
// --left-out GRAPH_MODEL: the errors of an op (sin), a layer (lstm) and a graph
// model, which the digits app never uses.
import * as glint from '../../web/package/src/index.node.js';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? null : process.argv[i + 1];
};
const wasmPath = arg('--wasm-path');
await glint.ready(wasmPath ? {wasmPath} : {});
const out = {kernels: Object.keys(glint.kernelTable()).sort()};

// Deterministic inputs: no kernel makes them.
const pixels = (n, seed) => Float32Array.from({length: n * 784}, (_, i) => ((i * 7919 + seed * 104729) % 997) / 996);

const modelFile = arg('--model');
if (modelFile) {
  const m = await glint.loadLayersModel(new URL(`file://${modelFile}`).href);
  const x = glint.tensor(pixels(2, 1), [2, 28, 28, 1]);
  out.probs = Array.from(await m.predict(x).data());
  m.compile({optimizer: glint.train.adam(1e-3), loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  const y = glint.tensor(Float32Array.from({length: 20}, (_, i) => (i % 10 === (i < 10 ? 3 : 7) ? 1 : 0)), [2, 10]);
  out.losses = [];
  for (let s = 0; s < 3; ++s) {
    const r = await m.trainOnBatch(x, y);
    out.losses.push(Array.isArray(r) ? r[0] : r);
  }
}
if (process.argv.includes('--left-out')) {
  const message = (f) => {
    try {
      f();
      return null;
    } catch (e) {
      return e.message;
    }
  };
  out.kernel = message(() => glint.sin(glint.tensor([1, 2])).dataSync());
  out.layer = message(() => glint.layers.lstm({units: 2}));
  try {
    (await glint.loadGraphModel(arg('--left-out'))).dispose();
    out.graph = null;
  } catch (e) {
    out.graph = e.message;
  }
}
process.stdout.write(JSON.stringify(out));
