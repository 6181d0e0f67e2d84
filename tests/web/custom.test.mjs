// tf.customGrad and custom layers (class extends tf.layers.Layer,
// tf.serialization.registerClass) on glint-ml, checked against TensorFlow.js
// 4.22 (cpu backend) running the same code, and finite differences.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

await glint.ready();
await tf.setBackend('cpu');

function close(a, b, tol = 1e-5) {
  assert.equal(a.length, b.length, `lengths ${a.length} vs ${b.length}`);
  for (let i = 0; i < a.length; ++i) {
    const err = Math.abs(a[i] - b[i]);
    assert.ok(err <= tol * Math.max(1, Math.abs(b[i])), `element ${i}: ${a[i]} vs ${b[i]}`);
  }
}
// TF.js's layer weights are LayerVariables: read() gives the tensor.
const flat = (t) => Array.from((t.read ? t.read() : t).dataSync());

// f(a, b) = a*b + sin(a), with its true gradient written by hand.
function productSin(m) {
  return m.customGrad((a, b, save) => {
    save([a, b]);
    return {value: a.mul(b).add(a.sin()),
      gradFunc: (dy, [sa, sb]) => [dy.mul(sb.add(sa.cos())), dy.mul(sa)]};
  });
}

test('customGrad: two inputs agree with TF.js and with finite differences', () => {
  const a0 = [0.3, -1.2, 2.5], b0 = [1.5, 0.25, -0.7];
  const run = (m) => {
    const f = productSin(m);
    const [ga, gb] = m.grads((a, b) => f(a, b).sum())([m.tensor1d(a0), m.tensor1d(b0)]);
    return {ga: flat(ga), gb: flat(gb), value: flat(f(m.tensor1d(a0), m.tensor1d(b0)))};
  };
  const ours = run(glint), theirs = run(tf);
  close(ours.value, theirs.value);
  close(ours.ga, theirs.ga);
  close(ours.gb, theirs.gb);
  // Central differences of the plain function.
  const h = 1e-3, fn = (a, b) => a * b + Math.sin(a);
  close(ours.ga, a0.map((a, i) => (fn(a + h, b0[i]) - fn(a - h, b0[i])) / (2 * h)), 1e-4);
  close(ours.gb, a0.map((a, i) => (fn(a, b0[i] + h) - fn(a, b0[i] - h)) / (2 * h)), 1e-4);
});

test('customGrad: one gradient as a tensor, through valueAndGrad, variableGrads and minimize', () => {
  const run = (m) => {
    // Deliberately not the true gradient (3x): using it shows.
    const cube = m.customGrad((x, save) => {
      save([x]);
      return {value: x.square(), gradFunc: (dy, [s]) => dy.mul(s).mul(6)};
    });
    const x = m.tensor1d([1, -2, 0.5]);
    const {value, grad} = m.valueAndGrad((t) => cube(t).sum())(x);
    const w = m.variable(m.tensor1d([0.5, -1.5]));
    const vg = m.variableGrads(() => cube(w).sum(), [w]);
    const opt = m.train.sgd(0.05);
    const losses = [];
    for (let i = 0; i < 3; ++i) losses.push(opt.minimize(() => cube(w).sum(), true).dataSync()[0]);
    return {value: flat(value), grad: flat(grad), vg: flat(Object.values(vg.grads)[0]), losses,
      w: flat(w)};
  };
  const ours = run(glint), theirs = run(tf);
  for (const k of Object.keys(theirs)) close(ours[k], theirs[k]);
  close(ours.grad, [6, -12, 3]);
});

test('customGrad: errors name customGrad and say what was wrong', () => {
  const x = glint.tensor1d([1, 2]), y = glint.tensor1d([3, 4]);
  const oneForTwo = glint.customGrad((a, b) => ({value: a.add(b), gradFunc: (dy) => [dy]}));
  assert.throws(() => glint.grads((a, b) => oneForTwo(a, b).sum())([x, y]),
      /^GlintError: \[customGrad\] gradFunc returned 1 gradient\(s\) for 2 input\(s\)/);
  const badShape = glint.customGrad((a) => ({value: a.square(), gradFunc: (dy) => dy.sum()}));
  assert.throws(() => glint.grad((a) => badShape(a).sum())(x),
      /\[customGrad\] gradFunc's gradient 0 has shape \[\], its input \[2\]/);
  const noValue = glint.customGrad((a) => ({gradFunc: (dy) => dy}));
  assert.throws(() => noValue(x), /\[customGrad\] f must return \{value: Tensor, gradFunc\}/);
  const noGradFunc = glint.customGrad((a) => ({value: a}));
  assert.throws(() => noGradFunc(x), /\[customGrad\] f's gradFunc must be a function/);
  const throwing = glint.customGrad((a) => ({value: a.neg(), gradFunc: () => {
    throw new Error('boom in gradFunc');
  }}));
  assert.throws(() => glint.grad((a) => throwing(a).sum())(x), /boom in gradFunc/);
  assert.throws(() => glint.customGrad(3), /\[customGrad\] expects a function/);
  // The engine is usable afterwards.
  close(flat(glint.grad((a) => a.square().sum())(x)), [2, 4]);
});

test('customGrad: nothing leaks over many steps, with or without a tape', () => {
  const f = productSin(glint);
  const a = glint.tensor1d([0.1, 0.2]), b = glint.tensor1d([0.3, 0.4]);
  const w = glint.variable(glint.tensor1d([1, 2]));
  const opt = glint.train.adam(0.01);
  const before = glint.memory().numTensors;
  for (let i = 0; i < 100; ++i) {
    glint.dispose(glint.grads((p, q) => f(p, q).sum())([a, b]));
    f(a, b).dispose();
    glint.tidy(() => opt.minimize(() => f(w, b).sum()));
  }
  const afterFirst = glint.memory().numTensors;
  for (let i = 0; i < 100; ++i) glint.tidy(() => opt.minimize(() => f(w, b).sum()));
  // Adam's slots appear on the first step; after that the count is flat.
  assert.equal(glint.memory().numTensors, afterFirst, 'the tensor count grows with steps');
  assert.ok(afterFirst - before <= 4, `${afterFirst - before} tensors left after 100 steps`);
});

// y = tanh(x * scale + shift) per feature: two trainable weights.
function defineScaleShift(m) {
  class ScaleShift extends m.layers.Layer {
    constructor(config = {}) {
      super(config);
      this.useTanh = config.useTanh ?? true;
    }
    build(inputShape) {
      const d = inputShape[inputShape.length - 1];
      this.scale = this.addWeight('scale', [d], 'float32', m.initializers.ones());
      this.shift = this.addWeight('shift', [d], 'float32', m.initializers.zeros());
    }
    call(inputs) {
      return m.tidy(() => {
        const x = Array.isArray(inputs) ? inputs[0] : inputs;
        const y = x.mul(this.scale.read()).add(this.shift.read());
        return this.useTanh ? y.tanh() : y;
      });
    }
    getConfig() {
      return {...super.getConfig(), useTanh: this.useTanh};
    }
    static get className() {
      return 'ScaleShift';
    }
  }
  m.serialization.registerClass(ScaleShift);
  return ScaleShift;
}

const X = [[0.5, -1, 2], [1, 0.5, -0.5], [-1.5, 2, 0.25], [0.1, 0.2, 0.3]];
const Y = [[0.2, -0.1], [0.4, 0.3], [-0.5, 0.6], [0.05, 0.0]];
const denseKernel = [0.3, -0.2, 0.1, 0.4, -0.5, 0.25];

function customModel(m, ScaleShift) {
  const model = m.sequential({layers: [
    new ScaleShift({inputShape: [3], name: 'ss'}),
    m.layers.dense({units: 2, name: 'out'})]});
  model.layers[1].setWeights([m.tensor2d(denseKernel, [3, 2]), m.tensor1d([0.1, -0.1])]);
  return model;
}

test('custom layer: fit trains its weights as TF.js does', async () => {
  const run = async (m) => {
    const model = customModel(m, defineScaleShift(m));
    model.compile({optimizer: m.train.sgd(0.1), loss: 'meanSquaredError'});
    const h = await model.fit(m.tensor2d(X), m.tensor2d(Y), {epochs: 5, batchSize: 4, shuffle: false, verbose: 0});
    const custom = model.layers[0];
    const out = {loss: h.history.loss, scale: flat(custom.weights[0]), shift: flat(custom.weights[1]),
      names: custom.weights.map((w) => w.name), trainable: custom.trainableWeights.length};
    // Disposed here, not left to the garbage collector: a later test counts tensors.
    model.dispose();
    return out;
  };
  const ours = await run(glint), theirs = await run(tf);
  close(ours.loss, theirs.loss);
  close(ours.scale, theirs.scale);
  close(ours.shift, theirs.shift);
  assert.equal(ours.trainable, 2);
  assert.ok(theirs.scale.some((v) => v !== 1), 'training moved the weights');
  assert.deepEqual(ours.names, ['ss/scale', 'ss/shift']);
});

test('custom layer: eager apply, functional model and computeOutputShape', () => {
  const run = (m) => {
    const ScaleShift = defineScaleShift(m);
    const layer = new ScaleShift({useTanh: false});
    const eager = layer.apply(m.tensor2d(X));
    const input = m.input({shape: [3]});
    const out = new ScaleShift({}).apply(input);
    const model = m.model({inputs: input, outputs: out});
    const result = {eager: flat(eager), symbolicShape: out.shape, predicted: flat(model.predict(m.tensor2d(X))),
      className: layer.getClassName(), useTanh: layer.getConfig().useTanh,
      shape: layer.computeOutputShape([null, 3])};
    model.dispose();
    layer.dispose();
    return result;
  };
  const ours = run(glint), theirs = run(tf);
  close(ours.eager, theirs.eager);
  close(ours.predicted, theirs.predicted);
  assert.deepEqual(ours.symbolicShape, theirs.symbolicShape);
  assert.equal(ours.className, 'ScaleShift');
  assert.equal(ours.useTanh, false);
  assert.deepEqual(ours.shape, theirs.shape);
});

test('custom layer: save to disk and load back, weights and predictions kept', async () => {
  const ScaleShift = defineScaleShift(glint);
  const model = customModel(glint, ScaleShift);
  model.compile({optimizer: glint.train.sgd(0.1), loss: 'meanSquaredError'});
  await model.fit(glint.tensor2d(X), glint.tensor2d(Y), {epochs: 2, batchSize: 4, verbose: 0});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-custom-'));
  await model.save(`file://${dir}`);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const entry = json.modelTopology.config.layers.find((l) => l.class_name === 'ScaleShift');
  assert.ok(entry, 'model.json names the class');
  assert.equal(entry.config.use_tanh, true);
  const loaded = await glint.loadLayersModel(`file://${dir}/model.json`);
  assert.ok(loaded.layers[0] instanceof ScaleShift, 'the loaded layer is an instance of the class');
  close(flat(loaded.layers[0].weights[0]), flat(model.layers[0].weights[0]));
  close(flat(loaded.predict(glint.tensor2d(X))), flat(model.predict(glint.tensor2d(X))));
  // TF.js reads the same files with its own class registered.
  defineScaleShift(tf);
  const theirs = await tf.loadLayersModel(tf.io.fromMemory(
      json.modelTopology, json.weightsManifest[0].weights,
      new Uint8Array(fs.readFileSync(path.join(dir, json.weightsManifest[0].paths[0]))).buffer));
  close(flat(theirs.predict(tf.tensor2d(X))), flat(model.predict(glint.tensor2d(X))));
  fs.rmSync(dir, {recursive: true});
  model.dispose();
  loaded.dispose();
});

test('custom layer: training leaks no tensors', async () => {
  const model = customModel(glint, defineScaleShift(glint));
  model.compile({optimizer: glint.train.sgd(0.05), loss: 'meanSquaredError'});
  const x = glint.tensor2d(X), y = glint.tensor2d(Y);
  await model.fit(x, y, {epochs: 1, batchSize: 2, verbose: 0});
  const before = glint.memory().numTensors;
  await model.fit(x, y, {epochs: 30, batchSize: 2, verbose: 0});
  for (let i = 0; i < 20; ++i) model.predict(x).dispose();
  // At most the count before: tensors earlier tests left to the garbage
  // collector may be finalized meanwhile (a few); a leak in fit or predict
  // would add one or more per step (80 steps and predictions here).
  const after = glint.memory().numTensors;
  assert.ok(after <= before, `${after} tensors after, ${before} before`);
});

test('custom layer: errors name the class, the layer and the file', async () => {
  class Unregistered extends glint.layers.Layer {
    static get className() {
      return 'NeverRegistered';
    }
  }
  const model = glint.sequential({layers: [new Unregistered({inputShape: [2], name: 'mystery'})]});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-custom-'));
  await model.save(`file://${dir}`);
  await assert.rejects(glint.loadLayersModel(`file://${dir}/model.json`),
      (e) => /NeverRegistered/.test(e.message) && /mystery/.test(e.message) && /model\.json/.test(e.message));
  fs.rmSync(dir, {recursive: true});

  class BadShape extends glint.layers.Layer {
    computeOutputShape() {
      return 'wide';
    }
    static get className() {
      return 'BadShape';
    }
  }
  assert.throws(() => new BadShape({}).apply(glint.input({shape: [2]})), /computeOutputShape must return a shape/);
  class NoTensor extends glint.layers.Layer {
    call() {
      return 42;
    }
    static get className() {
      return 'NoTensor';
    }
  }
  assert.throws(() => new NoTensor({name: 'nt'}).apply(glint.tensor2d([[1, 2]])),
      /\[NoTensor 'nt'\] call must return a tensor or a list of tensors/);
  class TwoWeights extends glint.layers.Layer {
    build() {
      this.addWeight('w', [2], 'float32', 'zeros');
      this.addWeight('w', [2], 'float32', 'zeros');
    }
    static get className() {
      return 'TwoWeights';
    }
  }
  assert.throws(() => new TwoWeights({name: 'tw'}).apply(glint.tensor2d([[1, 2]])),
      /TwoWeights 'tw'.*a weight named 'w' exists already/);
  assert.throws(() => glint.serialization.registerClass(class MyInit {}),
      /\[serialization.registerClass\] 'MyInit': only layers/);
  assert.throws(() => new glint.layers.Layer({}), /extend it/);
});

test('custom layer: two inputs, two outputs, customGrad inside call, fit and reload in tf.model', async () => {
  const run = async (m) => {
    // The clip's gradient is deliberately 0.5 everywhere: using it shows in the losses.
    const clip = m.customGrad((x, save) => {
      save([x]);
      return {value: x.clipByValue(-1, 1), gradFunc: (dy) => dy.mul(0.5)};
    });
    class Pair extends m.layers.Layer {
      build(shapes) {
        this.k = this.addWeight('k', [shapes[0][1]], 'float32', m.initializers.constant({value: 0.5}));
      }
      computeOutputShape(shapes) {
        return [shapes[0], shapes[1]];
      }
      call([a, b]) {
        return m.tidy(() => [clip(a.mul(this.k.read())), b.add(a.mul(this.k.read()))]);
      }
      static get className() {
        return 'Pair';
      }
    }
    m.serialization.registerClass(Pair);
    const i1 = m.input({shape: [3]}), i2 = m.input({shape: [3]});
    const [o1, o2] = new Pair({name: 'pair'}).apply([i1, i2]);
    const model = m.model({inputs: [i1, i2], outputs: m.layers.add().apply([o1, o2])});
    model.compile({optimizer: m.train.sgd(0.1), loss: 'meanSquaredError'});
    const a = m.tensor2d([[1, 2, -3], [0.5, 0.1, 4]]), b = m.tensor2d([[0, 1, 0], [1, 0, 1]]);
    const h = await model.fit([a, b], m.tensor2d([[1, 1, 1], [0, 0, 0]]),
        {epochs: 3, batchSize: 2, shuffle: false, verbose: 0});
    let saved;
    await model.save(m.io.withSaveHandler(async (x) => {
      saved = x;
      return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
    }));
    const loaded = await m.loadLayersModel(m.io.fromMemory(saved));
    return {loss: h.history.loss, trained: flat(model.predict([a, b])), loaded: flat(loaded.predict([a, b]))};
  };
  const ours = await run(glint), theirs = await run(tf);
  close(ours.loss, theirs.loss);
  close(ours.trained, theirs.trained);
  close(ours.loaded, theirs.trained);
});

test('new LayerVariable(value, dtype, name, trainable) as TF.js makes it: value, name, trainable, write', () => {
  const make = (lib) => {
    const v = new lib.LayerVariable(lib.tensor([[1, 2], [3, 4]]), 'float32', 'kernel', false);
    const before = {values: Array.from(v.read().dataSync()), shape: v.shape, dtype: v.dtype,
      originalName: v.originalName, trainable: v.trainable};
    v.write(lib.tensor([[5, 6], [7, 8]]));
    const after = Array.from(v.read().dataSync());
    const asInt = new lib.LayerVariable(lib.tensor([1.5, 2]), 'int32', 'ints');
    const cast = {dtype: asInt.dtype, values: Array.from(asInt.read().dataSync()), trainable: asInt.trainable};
    return {before, after, cast};
  };
  assert.deepEqual(make(glint), make(tf));
  assert.throws(() => new glint.LayerVariable(glint.tensor([1]), 'float32', 42), /\[LayerVariable\] name must be a string/);
});
