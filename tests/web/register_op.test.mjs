// tf.registerOp as TF.js programs use it: a graph model with an op neither
// library has loads once the op is registered, in both; both get the same
// inputs and attributes and predict the same values; a registered op runs in
// place of a built-in one; deregisterOp undoes it. Against TF.js 4.22 (cpu).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';

await tf.setBackend('cpu');
await glint.ready();

// out = Relu(ScaleShift(x)) with attributes of every kind the converter writes.
const topology = {node: [
  {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}, shape: {shape: {dim: [{size: '-1'}, {size: '3'}]}}}},
  {name: 'scaled', op: 'ScaleShift', input: ['x'], attr: {
    factor: {f: 2.5}, shift: {i: '-3'}, label: {s: 'aGVsbG8='}, T: {type: 'DT_FLOAT'}, on: {b: true},
    dims: {list: {i: ['1', '2']}}}},
  {name: 'out', op: 'Relu', input: ['scaled'], attr: {T: {type: 'DT_FLOAT'}}}], versions: {producer: 1286}};
const artifacts = () => ({modelTopology: JSON.parse(JSON.stringify(topology)), format: 'graph-model',
  weightSpecs: [], weightData: new ArrayBuffer(0)});
const handler = () => ({load: async () => artifacts()});
const xs = [0, 1, 2, 3, -1, 1.5];

test('an op neither library has: registered, the model loads and predicts as in TF.js', async () => {
  await assert.rejects(glint.loadGraphModel(handler()), /ScaleShift.*not supported.*registerOp/s);
  const seen = {};
  for (const lib of [glint, tf]) {
    lib.registerOp('ScaleShift', (node) => {
      seen[lib === tf ? 'tf' : 'glint'] = {n: node.inputs.length, attrs: node.attrs};
      return lib.add(lib.mul(node.inputs[0], node.attrs.factor), node.attrs.shift);
    });
  }
  try {
    const ours = await glint.loadGraphModel(handler()), theirs = await tf.loadGraphModel(handler());
    const got = ours.predict(glint.tensor(xs, [2, 3])), want = theirs.predict(tf.tensor(xs, [2, 3]));
    assert.deepEqual(got.shape, want.shape);
    assert.deepEqual(Array.from(got.dataSync()), Array.from(want.dataSync()));
    assert.deepEqual(Array.from(got.dataSync()), xs.map((v) => Math.max(0, v * 2.5 - 3)));
    // The attributes the op function is given: those TF.js gives, by name and value.
    assert.equal(seen.glint.n, 1);
    for (const [k, v] of Object.entries(seen.tf.attrs)) {
      if (k in topology.node[1].attr) assert.deepEqual(seen.glint.attrs[k], v, `attribute ${k}`);
    }
    assert.deepEqual(seen.glint.attrs, {factor: 2.5, shift: -3, label: 'hello', T: 'float32', on: true, dims: [1, 2]});
    // Gradients go through the op's ops.
    const g = glint.grad((v) => glint.sum(ours.predict(v)))(glint.tensor(xs, [2, 3]));
    assert.deepEqual(Array.from(g.dataSync()), xs.map((v) => (v * 2.5 - 3 > 0 ? 2.5 : 0)));
  } finally {
    glint.deregisterOp('ScaleShift');
    tf.deregisterOp('ScaleShift');
  }
});

test('a registered op runs in place of the built-in one until deregistered, as in TF.js', async () => {
  for (const lib of [glint, tf]) {
    lib.registerOp('ScaleShift', (node) => node.inputs[0].clone());
    lib.registerOp('Relu', (node) => lib.neg(node.inputs[0]));
  }
  try {
    const run = async (lib) => Array.from((await lib.loadGraphModel(handler())).predict(lib.tensor([1, -2, 0], [1, 3])).dataSync());
    assert.deepEqual(await run(glint), await run(tf));
    assert.deepEqual(await run(glint), [-1, 2, -0]);
    glint.deregisterOp('Relu');
    tf.deregisterOp('Relu');
    assert.deepEqual(await run(glint), await run(tf));
    assert.deepEqual(await run(glint), [1, 0, 0]);
  } finally {
    for (const lib of [glint, tf]) lib.deregisterOp('ScaleShift');
  }
});

test('registerOp errors name the op, the node and what is wrong', async () => {
  assert.throws(() => glint.registerOp('', () => null), /\[registerOp\] name must be a non-empty string/);
  assert.throws(() => glint.registerOp('X', 3), /\[registerOp\] op 'X' needs a function/);
  assert.throws(() => glint.registerOp('Const', (n) => n.inputs[0]), /'Const' is part of the graph's structure/);
  glint.registerOp('ScaleShift', () => 'nope');
  try {
    const m = await glint.loadGraphModel(handler());
    assert.throws(() => m.predict(glint.tensor(xs, [2, 3])), /ScaleShift.*output 0 must be a float32, int32 or bool Tensor, got string/s);
    glint.registerOp('ScaleShift', () => {
      throw new Error('my op does not take this');
    });
    assert.throws(() => m.predict(glint.tensor(xs, [2, 3])), /'scaled'.*my op does not take this/s);
  } finally {
    glint.deregisterOp('ScaleShift');
  }
});

// Two async nodes in a row: each stops the run once.
const twice = {node: [topology.node[0], topology.node[1],
  {...topology.node[1], name: 'again', input: ['scaled']},
  {name: 'out', op: 'Relu', input: ['again'], attr: {T: {type: 'DT_FLOAT'}}}], versions: {producer: 1286}};
const twiceHandler = () => ({load: async () => ({modelTopology: JSON.parse(JSON.stringify(twice)),
  format: 'graph-model', weightSpecs: [], weightData: new ArrayBuffer(0)})});

test('an async op (a Promise of its tensors): executeAsync and predictAsync await it as TF.js; execute refuses it', async () => {
  for (const lib of [glint, tf]) {
    lib.registerOp('ScaleShift', async (node) => {
      await new Promise((r) => setTimeout(r, 2));
      return lib.add(lib.mul(node.inputs[0], node.attrs.factor), node.attrs.shift);
    });
  }
  try {
    for (const h of [handler, twiceHandler]) {
      const ours = await glint.loadGraphModel(h()), theirs = await tf.loadGraphModel(h());
      const want = Array.from((await theirs.executeAsync(tf.tensor(xs, [2, 3]))).dataSync());
      const got = await ours.executeAsync(glint.tensor(xs, [2, 3]));
      assert.deepEqual(got.shape, [2, 3]);
      assert.deepEqual(Array.from(got.dataSync()), want);
      assert.deepEqual(Array.from((await ours.predictAsync(glint.tensor(xs, [2, 3]))).dataSync()),
          Array.from((await theirs.predictAsync(tf.tensor(xs, [2, 3]))).dataSync()));
      // Several runs at once, each awaiting its own op.
      const both = await Promise.all([1, 2].map((k) => ours.executeAsync(glint.tensor(xs.map((v) => v * k), [2, 3]))));
      const wantBoth = await Promise.all([1, 2].map((k) => theirs.executeAsync(tf.tensor(xs.map((v) => v * k), [2, 3]))));
      both.forEach((t, k) => assert.deepEqual(Array.from(t.dataSync()), Array.from(wantBoth[k].dataSync())));
      // execute (and predict) cannot wait: TF.js's error, naming the op.
      const message = /The execution of the op 'ScaleShift' returned a promise\. Please use model\.executeAsync\(\) instead/;
      assert.throws(() => theirs.execute(tf.tensor(xs, [2, 3])), message);
      assert.throws(() => ours.execute(glint.tensor(xs, [2, 3])), message);
      assert.throws(() => ours.predict(glint.tensor(xs, [2, 3])), message);
    }
    // A Promise that rejects: executeAsync rejects with its error, in both.
    for (const lib of [glint, tf]) {
      lib.registerOp('ScaleShift', async () => {
        throw new Error('the service is down');
      });
    }
    const ours = await glint.loadGraphModel(handler()), theirs = await tf.loadGraphModel(handler());
    await assert.rejects(theirs.executeAsync(tf.tensor(xs, [2, 3])), /the service is down/);
    await assert.rejects(ours.executeAsync(glint.tensor(xs, [2, 3])), /the service is down/);
  } finally {
    glint.deregisterOp('ScaleShift');
    tf.deregisterOp('ScaleShift');
  }
});

// On a published model (BlazeFace, converted by others): its 32 depthwise
// convolutions replaced by a JS op reading the node's own attributes
// (strides, padding, dilations as the converter wrote them) predict what the
// built-in op predicts.
test('a published graph model: a built-in op replaced by registerOp, same predictions', async () => {
  const {fileURLToPath} = await import('node:url');
  const file = fileURLToPath(new URL('../../node_modules/@vladmandic/human/models/blazeface.json', import.meta.url));
  const values = Array.from({length: 256 * 256 * 3}, (_, i) => ((i * 7919) % 1000) / 1000);
  const predict = async () => {
    const m = await glint.loadGraphModel(file);
    const out = glint.tidy(() => m.predict(glint.tensor(values, [1, 256, 256, 3])).map((t) => Array.from(t.dataSync())));
    m.dispose();
    return out;
  };
  const builtIn = await predict();
  let calls = 0;
  glint.registerOp('DepthwiseConv2dNative', ({inputs, attrs}) => {
    ++calls;
    assert.equal(attrs.data_format, 'NHWC');
    const [, sh, sw] = attrs.strides, [, dh, dw] = attrs.dilations;
    return glint.depthwiseConv2d(inputs[0], inputs[1], [sh, sw], attrs.padding.toLowerCase(), 'NHWC', [dh, dw]);
  });
  try {
    const replaced = await predict();
    assert.equal(calls, 32);
    assert.equal(replaced.length, builtIn.length);
    replaced.forEach((out, k) => out.forEach((v, i) => {
      assert.ok(Math.abs(v - builtIn[k][i]) <= 1e-4 * Math.max(1, Math.abs(builtIn[k][i])), `output ${k}[${i}]: ${v} vs ${builtIn[k][i]}`);
    }));
  } finally {
    glint.deregisterOp('DepthwiseConv2dNative');
  }
});
