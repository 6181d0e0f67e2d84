// tf.layers.RNN / RNNCell with a user's JS cell, on glint-ml and TensorFlow.js
// 4.22 (cpu backend) running the same cell class: outputs, returnSequences /
// returnState / goBackwards / stateful / masks, stacked cells, gradients
// through fit, subclasses of RNN, and models saved by one loaded by the other.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';

await glint.ready();
await tf.setBackend('cpu');

function close(a, b, tol = 1e-5, what = '') {
  assert.equal(a.length, b.length, `${what} lengths ${a.length} vs ${b.length}`);
  for (let i = 0; i < a.length; ++i) {
    const err = Math.abs(a[i] - b[i]);
    assert.ok(err <= tol * Math.max(1, Math.abs(b[i])), `${what} element ${i}: ${a[i]} vs ${b[i]}`);
  }
}
const flat = (t) => Array.from((t.read ? t.read() : t).dataSync());
const outs = (y) => (Array.isArray(y) ? y : [y]);
// A model's first layer after its input layer.
const first = (model) => model.layers.find((l) => l.getClassName() !== 'InputLayer');

// The same cell classes for either library: a one-state tanh cell and a
// two-state cell (state lists), as TF.js programs write them.
function cellClasses(m) {
  class MinimalCell extends m.layers.RNNCell {
    constructor(config) {
      super(config);
      this.units = config.units;
      this.stateSize = config.units;
    }
    build(inputShape) {
      this.kernel = this.addWeight('kernel', [inputShape[inputShape.length - 1], this.units], 'float32',
          m.initializers.glorotUniform({seed: 1}));
      this.recurrentKernel = this.addWeight('recurrent_kernel', [this.units, this.units], 'float32',
          m.initializers.glorotUniform({seed: 2}));
      this.built = true;
    }
    call(inputs) {
      return m.tidy(() => {
        const [x, h] = inputs;
        const out = m.tanh(m.add(m.matMul(x, this.kernel.read()), m.matMul(h, this.recurrentKernel.read())));
        return [out, out];
      });
    }
    getConfig() {
      return {...super.getConfig(), units: this.units};
    }
    static get className() {
      return 'MinimalCell';
    }
  }
  class LeakyCell extends m.layers.RNNCell {
    constructor(config) {
      super(config);
      this.units = config.units;
      this.stateSize = [config.units, config.units];
    }
    build(inputShape) {
      this.kernel = this.addWeight('kernel', [inputShape[inputShape.length - 1], this.units], 'float32',
          m.initializers.glorotUniform({seed: 3}));
      this.bias = this.addWeight('bias', [this.units], 'float32', m.initializers.constant({value: 0.1}));
    }
    call([x, h, c]) {
      return m.tidy(() => {
        const hNew = m.sigmoid(m.add(m.add(m.matMul(x, this.kernel.read()), this.bias.read()), h));
        const cNew = m.add(m.mul(c, 0.5), hNew);
        return [m.mul(hNew, m.tanh(cNew)), hNew, cNew];
      });
    }
    getConfig() {
      return {...super.getConfig(), units: this.units};
    }
    static get className() {
      return 'LeakyCell';
    }
  }
  m.serialization.registerClass(MinimalCell);
  m.serialization.registerClass(LeakyCell);
  return {MinimalCell, LeakyCell};
}
const cells = {tf: cellClasses(tf), glint: cellClasses(glint)};

// Deterministic inputs.
function inputs(shape, seed = 1) {
  const n = shape.reduce((a, b) => a * b, 1);
  return Float32Array.from({length: n}, (_, i) => Math.sin(seed * 7.1 + i * 1.37) * 0.9);
}

/** makeLayers(m, C) -> layers of a sequential model; both libraries, TF.js's weights copied over. */
function pair(makeLayers, inputShape, opts = {}) {
  const build = (m, C) => {
    const model = m.sequential();
    makeLayers(m, C).forEach((l, i) => {
      if (i === 0 && opts.batchInputShape) model.add(m.layers.inputLayer({batchInputShape: opts.batchInputShape}));
      else if (i === 0) model.add(m.layers.inputLayer({inputShape}));
      model.add(l);
    });
    return model;
  };
  const theirs = build(tf, cells.tf), ours = build(glint, cells.glint);
  const w = theirs.getWeights();
  ours.setWeights(w.map((t) => glint.tensor(t.dataSync(), t.shape)));
  return {theirs, ours};
}

function predictBoth({theirs, ours}, shape, seed = 1) {
  const data = inputs(shape, seed);
  const a = outs(ours.predict(glint.tensor(data, shape)));
  const b = outs(theirs.predict(tf.tensor(data, shape)));
  assert.equal(a.length, b.length, 'output count');
  a.forEach((t, i) => assert.deepEqual(t.shape, b[i].shape, `output ${i} shape`));
  return {ours: a.map(flat), theirs: b.map(flat)};
}

test('RNN with a JS cell: outputs as TF.js over returnSequences, returnState and goBackwards', () => {
  for (const returnSequences of [false, true]) {
    for (const goBackwards of [false, true]) {
      for (const Cell of ['MinimalCell', 'LeakyCell']) {
        const p = pair((m, C) => [m.layers.rnn({cell: new C[Cell]({units: 3}), returnSequences, goBackwards})], [5, 2]);
        const r = predictBoth(p, [4, 5, 2]);
        r.ours.forEach((o, i) => close(o, r.theirs[i], 1e-5, `${Cell} seq=${returnSequences} back=${goBackwards}`));
      }
    }
  }
  // returnState: a functional model with the output and the states as outputs.
  const both = {};
  for (const [name, m] of [['theirs', tf], ['ours', glint]]) {
    const C = name === 'ours' ? cells.glint : cells.tf;
    const x = m.input({shape: [5, 2]});
    const ys = m.layers.rnn({cell: new C.LeakyCell({units: 3}), returnState: true, returnSequences: true}).apply(x);
    assert.equal(ys.length, 3, 'output and two states');
    both[name] = m.model({inputs: x, outputs: ys});
  }
  both.ours.setWeights(both.theirs.getWeights().map((t) => glint.tensor(t.dataSync(), t.shape)));
  const r = predictBoth(both, [2, 5, 2], 3);
  r.ours.forEach((o, i) => close(o, r.theirs[i], 1e-5, `returnState output ${i}`));
});

test('RNN with a list of cells (JS and built-in, stacked): outputs and weight names as TF.js', () => {
  const p = pair((m, C) => [m.layers.rnn({cell: [new C.MinimalCell({units: 4}), m.layers.lstmCell({units: 3}),
    new C.LeakyCell({units: 2})], returnSequences: true})], [6, 3]);
  // Named after each library's layer name (TF.js's names carry a class suffix): the rest is equal.
  const after = (name, layer) => name.slice(layer.name.length);
  assert.deepEqual(p.ours.weights.map((w) => after(w.name, first(p.ours))),
      p.theirs.weights.map((w) => after(w.originalName, first(p.theirs))));
  assert.equal(after(p.ours.weights[0].name, first(p.ours)), '/RNNCell_0/kernel');
  const r = predictBoth(p, [3, 6, 3]);
  close(r.ours[0], r.theirs[0], 1e-5, 'stacked');
  // tf.layers.stackedRNNCells keeps the cell objects themselves, as TF.js.
  const a = new cells.glint.MinimalCell({units: 2}), b = new cells.glint.MinimalCell({units: 2});
  const stack = glint.layers.stackedRNNCells({cells: [a, b]});
  const layer = glint.layers.rnn({cell: stack});
  layer.apply(glint.zeros([1, 2, 2]));
  assert.ok(a.built && b.built, 'the given cells were built');
  assert.equal(layer.cell.getClassName(), 'StackedRNNCells');
  assert.equal(glint.layers.rnn({cell: a}).cell, a, 'rnn.cell is the given JS cell');
});

test('RNN with a JS cell: masked steps keep the states, as TF.js', () => {
  const p = pair((m, C) => [m.layers.masking({maskValue: 0}),
    m.layers.rnn({cell: new C.LeakyCell({units: 3}), returnSequences: true})], [5, 2]);
  const data = inputs([3, 5, 2], 4);
  for (const [b, t] of [[0, 1], [1, 4], [2, 0], [2, 2]]) data.fill(0, (b * 5 + t) * 2, (b * 5 + t) * 2 + 2);
  const a = flat(p.ours.predict(glint.tensor(data, [3, 5, 2])));
  const b = flat(p.theirs.predict(tf.tensor(data, [3, 5, 2])));
  close(a, b, 1e-5, 'masked');
});

test('RNN with a JS cell trains through fit as TF.js (gradients through the cell\'s ops)', async () => {
  const make = (m, C) => [m.layers.rnn({cell: [new C.MinimalCell({units: 4}), new C.LeakyCell({units: 3})]}),
    m.layers.dense({units: 2, kernelInitializer: m.initializers.glorotUniform({seed: 5})})];
  const p = pair(make, [4, 2]);
  const x = inputs([8, 4, 2], 6), y = inputs([8, 2], 7);
  p.theirs.compile({optimizer: tf.train.sgd(0.5), loss: 'meanSquaredError'});
  p.ours.compile({optimizer: glint.train.sgd(0.5), loss: 'meanSquaredError'});
  const hb = await p.theirs.fit(tf.tensor(x, [8, 4, 2]), tf.tensor(y, [8, 2]), {epochs: 3, batchSize: 4, shuffle: false});
  const ha = await p.ours.fit(glint.tensor(x, [8, 4, 2]), glint.tensor(y, [8, 2]), {epochs: 3, batchSize: 4, shuffle: false});
  close(ha.history.loss, hb.history.loss, 1e-4, 'losses');
  assert.ok(ha.history.loss[2] < ha.history.loss[0], 'the loss went down');
  const wa = p.ours.getWeights(), wb = p.theirs.getWeights();
  assert.equal(wa.length, 6);
  wa.forEach((w, i) => close(flat(w), flat(wb[i]), 1e-4, `weight ${i} after fit`));
  // The cells' weights moved: the gradients reached them.
  const before = pair(make, [4, 2]).theirs.getWeights();
  assert.ok(flat(wa[0]).some((v, i) => Math.abs(v - flat(before[0])[i]) > 1e-4), 'the first cell trained');
});

test('stateful RNN with a JS cell: states carry across calls, resetStates as TF.js', () => {
  const p = pair((m, C) => [m.layers.rnn({cell: new C.LeakyCell({units: 3}), stateful: true})], [3, 2],
      {batchInputShape: [2, 3, 2]});
  assert.equal(first(p.ours).stateful, true);
  assert.equal(p.ours.stateful, true);
  const once = predictBoth(p, [2, 3, 2], 1), twice = predictBoth(p, [2, 3, 2], 1);
  close(once.ours[0], once.theirs[0], 1e-5, 'first call');
  close(twice.ours[0], twice.theirs[0], 1e-5, 'second call (kept states)');
  assert.ok(once.ours[0].some((v, i) => Math.abs(v - twice.ours[0][i]) > 1e-4), 'the states carried');
  const states = first(p.ours).states;
  assert.equal(states.length, 2);
  close(flat(states[0]), flat(first(p.theirs).states[0]), 1e-5, 'kept state');
  p.ours.resetStates();
  p.theirs.resetStates();
  close(predictBoth(p, [2, 3, 2], 1).ours[0], once.theirs[0], 1e-5, 'after resetStates');
  // Given states, then a call from them.
  const h = inputs([2, 3], 9), c = inputs([2, 3], 10);
  first(p.ours).resetStates([glint.tensor(h, [2, 3]), glint.tensor(c, [2, 3])]);
  first(p.theirs).resetStates([tf.tensor(h, [2, 3]), tf.tensor(c, [2, 3])]);
  const r = predictBoth(p, [2, 3, 2], 2);
  close(r.ours[0], r.theirs[0], 1e-5, 'from given states');
  assert.throws(() => first(p.ours).resetStates([glint.zeros([2, 4]), glint.zeros([2, 3])]), /shape \[2,3\]/);
  // Not stateful: resetStates fails, as TF.js's.
  const plain = glint.layers.rnn({cell: new cells.glint.MinimalCell({units: 2})});
  assert.throws(() => plain.resetStates(), /not stateful/);
  assert.throws(() => tf.layers.rnn({cell: new cells.tf.MinimalCell({units: 2})}).resetStates(), /not stateful/);
  // A stateful RNN needs its batch size: building it without fails, in both.
  for (const [m, C] of [[glint, cells.glint], [tf, cells.tf]]) {
    assert.throws(() => m.sequential({layers: [m.layers.rnn({cell: new C.MinimalCell({units: 2}), stateful: true,
      inputShape: [3, 2]})]}), /batch size/);
  }
});

test('subclass of tf.layers.RNN with a JS cell: outputs, weight names, save and load as TF.js', async () => {
  const subclass = (m, C) => {
    class MinimalRNN extends m.layers.RNN {
      constructor(args) {
        super({...args, cell: new C.MinimalCell({units: args.units})});
        this.units = args.units;
      }
      getConfig() {
        const config = super.getConfig();
        delete config.cell;
        return {...config, units: this.units};
      }
      // The cell comes from the config's units (RNN.fromConfig would look for a cell).
      static fromConfig(cls, config) {
        return new cls(config);
      }
      static get className() {
        return 'MinimalRNN';
      }
    }
    m.serialization.registerClass(MinimalRNN);
    return MinimalRNN;
  };
  const R = {tf: subclass(tf, cells.tf), glint: subclass(glint, cells.glint)};
  const p = pair((m) => [new (m === tf ? R.tf : R.glint)({units: 3, returnSequences: true})], [4, 2]);
  assert.ok(first(p.ours) instanceof glint.layers.RNN);
  assert.ok(first(p.ours) instanceof R.glint, 'model.layers gives the subclass instance');
  assert.equal(first(p.ours).getClassName(), 'MinimalRNN');
  const after = (name, layer) => name.slice(layer.name.length);
  assert.deepEqual(p.ours.weights.map((w) => after(w.name, first(p.ours))),
      p.theirs.weights.map((w) => after(w.originalName, first(p.theirs))));
  assert.equal(p.ours.weights[0].name, `${first(p.ours).name}/kernel`, 'the cell\'s weights are named after the subclass layer');
  const r = predictBoth(p, [2, 4, 2]);
  close(r.ours[0], r.theirs[0], 1e-5, 'subclass');
  const cfg = first(p.ours).getConfig(), tcfg = first(p.theirs).getConfig();
  for (const k of ['units', 'returnSequences', 'returnState', 'goBackwards', 'stateful', 'unroll']) {
    assert.deepEqual(cfg[k], tcfg[k], `config ${k}`);
  }
  // Ours saved, TF.js loads; TF.js's saved, ours loads.
  let saved;
  await p.ours.save(glint.io.withSaveHandler(async (a) => {
    saved = a;
    return {modelArtifactsInfo: {}};
  }));
  const back = await tf.loadLayersModel(tf.io.fromMemory(saved));
  const x = inputs([2, 4, 2], 5);
  close(flat(back.predict(tf.tensor(x, [2, 4, 2]))), flat(p.ours.predict(glint.tensor(x, [2, 4, 2]))), 1e-5, 'TF.js loads ours');
  let theirs;
  await p.theirs.save(tf.io.withSaveHandler(async (a) => {
    theirs = a;
    return {modelArtifactsInfo: {}};
  }));
  const loaded = await glint.loadLayersModel(glint.io.fromMemory(theirs));
  assert.equal(first(loaded).getClassName(), 'MinimalRNN');
  close(flat(loaded.predict(glint.tensor(x, [2, 4, 2]))), flat(p.theirs.predict(tf.tensor(x, [2, 4, 2]))), 1e-5,
      'ours loads TF.js\'s');
});

test('RNN with JS cells saved by TF.js loads in glint-ml and back (registerClass)', async () => {
  const p = pair((m, C) => [m.layers.rnn({cell: new C.LeakyCell({units: 3}), returnSequences: true}),
    m.layers.rnn({cell: [new C.MinimalCell({units: 3}), new C.MinimalCell({units: 2})]})], [4, 2]);
  let theirs;
  await p.theirs.save(tf.io.withSaveHandler(async (a) => {
    theirs = a;
    return {modelArtifactsInfo: {}};
  }));
  const loaded = await glint.loadLayersModel(glint.io.fromMemory(theirs));
  const x = inputs([3, 4, 2], 8);
  const want = flat(p.theirs.predict(tf.tensor(x, [3, 4, 2])));
  close(flat(loaded.predict(glint.tensor(x, [3, 4, 2]))), want, 1e-5, 'loaded from TF.js');
  assert.ok(first(loaded).cell instanceof cells.glint.LeakyCell, 'the cell is an instance of the registered class');
  let ours;
  await loaded.save(glint.io.withSaveHandler(async (a) => {
    ours = a;
    return {modelArtifactsInfo: {}};
  }));
  const again = await tf.loadLayersModel(tf.io.fromMemory(ours));
  close(flat(again.predict(tf.tensor(x, [3, 4, 2]))), want, 1e-5, 'TF.js loads it back');
});

test('RNN with a JS cell: a cell without stateSize or returning the wrong states is a named error', () => {
  class NoState extends glint.layers.RNNCell {
    call([x]) {
      return [x];
    }
    static get className() {
      return 'NoState';
    }
  }
  assert.throws(() => glint.layers.rnn({cell: new NoState({})}), /NoState.*stateSize/);
  class WrongStates extends glint.layers.RNNCell {
    constructor(c) {
      super(c);
      this.stateSize = 2;
    }
    call([x, h]) {
      return [glint.add(h, 1)];
    }
    static get className() {
      return 'WrongStates';
    }
  }
  const layer = glint.layers.rnn({cell: new WrongStates({})});
  assert.throws(() => layer.apply(glint.zeros([1, 3, 2])), /returned 1 tensors.*1 state/);
  class WrongWidth extends glint.layers.RNNCell {
    constructor(c) {
      super(c);
      this.stateSize = 3;
    }
    call([x, h]) {
      return [glint.concat([h, h], 1), h];
    }
    static get className() {
      return 'WrongWidth';
    }
  }
  assert.throws(() => glint.layers.rnn({cell: new WrongWidth({})}).apply(glint.zeros([1, 3, 2])),
      /output of shape \[1,6\], expected \[1,3\] \(the size of its first state/);
  assert.throws(() => glint.layers.rnn({}), /cell is required/);
  assert.throws(() => glint.layers.rnn({cell: 3}), /cell must be a cell Layer/);
});

test('stateful RNN over built-in cells (fused loops): states carry and reset as TF.js', () => {
  const p = pair((m) => [m.layers.rnn({cell: [m.layers.lstmCell({units: 3}), m.layers.gruCell({units: 2})],
    stateful: true, returnSequences: true})], [4, 2], {batchInputShape: [3, 4, 2]});
  for (let call = 0; call < 3; ++call) {
    const r = predictBoth(p, [3, 4, 2], call + 1);
    close(r.ours[0], r.theirs[0], 1e-5, `call ${call}`);
  }
  const ours = first(p.ours).states, theirs = first(p.theirs).states;
  assert.equal(ours.length, 3, 'GRU h, then LSTM h and c (the last cell first)');
  ours.forEach((s, i) => close(flat(s), flat(theirs[i]), 1e-5, `state ${i}`));
  p.ours.resetStates();
  p.theirs.resetStates();
  const r = predictBoth(p, [3, 4, 2], 1);
  close(r.ours[0], r.theirs[0], 1e-5, 'after resetStates');
});
