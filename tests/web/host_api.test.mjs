// The host-side TF.js names glint-ml adds (tf.util, tf.io's weight and
// artifact helpers, routers, optimizer classes, callbacks, async ops): each
// called on the same inputs in TF.js 4.22 and glint-ml, results compared.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import {rng} from './shared_cases.mjs';

await glint.ready();
await tf.setBackend('cpu');

const r = rng(30);
const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
const shape = () => Array.from({length: int(0, 4)}, () => int(1, 4));

// Plain results: typed arrays as {type, values} so deepEqual compares kinds too.
function plain(v) {
  if (ArrayBuffer.isView(v)) return {type: v.constructor.name, values: Array.from(v)};
  if (v instanceof ArrayBuffer) return {type: 'ArrayBuffer', values: Array.from(new Uint8Array(v))};
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

// name -> list of argument lists (fresh per call: some functions mutate).
const UTIL_CASES = {
  nearestLargerEven: () => [[int(0, 9)], [int(0, 9)]],
  distSquared: () => [[[1, 2, 3], [r(), r(), r()]]],
  isScalarShape: () => [[[]], [shape()]],
  arraysEqualWithNull: () => [[[1, null, 3], [1, 2, 3]], [[1, 2], [1, 3]], [[null], [null, 1]]],
  isInt: () => [[3], [3.5], [-2]],
  tanh: () => [[r() * 4 - 2]],
  sizeToSquarishShape: () => [[int(1, 50)], [int(1, 50)]],
  rightPad: () => [['ab', 5], ['abcdef', 3]],
  inferFromImplicitShape: () => [[[2, -1, 3], 12], [[4, 2], 8], [[-1], 7]],
  parseAxisParam: () => [[-1, [2, 3, 4]], [null, [2, 3]], [[0, -2], [2, 3, 4]]],
  squeezeShape: () => [[[1, 2, 1, 3]], [[1, 2, 1, 3], [2]], [[1, 1], []]],
  getTypedArrayFromDType: () => [['float32', 3], ['int32', 2], ['bool', 4]],
  getArrayFromDType: () => [['float32', 2], ['bool', 1]],
  isValidDtype: () => [['float32'], ['string'], ['float64']],
  hasEncodingLoss: () => ['bool', 'int32', 'float32', 'complex64'].flatMap((a) =>
    ['bool', 'int32', 'float32', 'complex64'].map((b) => [a, b])),
  bytesPerElement: () => [['float32'], ['int32'], ['bool'], ['complex64']],
  bytesFromStringArray: () => [[[new Uint8Array(3), new Uint8Array(5)]]],
  isString: () => [['a'], [1]],
  isBoolean: () => [[true], [0]],
  isNumber: () => [[1], ['1']],
  inferDtype: () => [[[1, 2]], [new Int32Array(2)], [[[true]]], [new Uint8Array(1)], ['s'], [new Float32Array(1)]],
  isFunction: () => [[() => 1], [{}]],
  nearestDivisor: () => [[int(2, 40), int(1, 5)], [int(2, 40), int(1, 5)]],
  computeStrides: () => [[shape()], [shape()], [[5]], [[2, 3, 4]]],
  locToIndex: () => [[[1, 2, 3], 3, [20, 5]], [[4], 1, []], [[], 0, []]],
  indexToLoc: () => [[37, 3, [20, 5]], [4, 1, []], [0, 0, []]],
  toNestedArray: () => [[[2, 3], new Float32Array([1, 2, 3, 4, 5, 6])], [[], new Float32Array([7])],
    [[0, 2], new Float32Array([])], [[1, 2], new Float32Array([1, 2, 3, 4]), true]],
  makeOnesTypedArray: () => [[3, 'float32'], [2, 'int32'], [2, 'bool']],
  makeZerosTypedArray: () => [[3, 'float32'], [2, 'int32']],
  makeZerosNestedTypedArray: () => [[[2, 2], 'float32'], [[3], 'int32']],
  isPromise: () => [[Promise.resolve(1)], [{}]],
  createScalarValue: () => [[3, 'float32'], [2.7, 'int32'], [true, 'bool']],
  toTypedArray: () => [[[[1, 2], [3, 4]], 'float32'], [[1.5, 2.5], 'int32'], [[true, false, 1], 'bool']],
  convertBackendValuesAndArrayBuffer: () => [[new Float32Array([1, 2]).buffer, 'float32'], [new Int32Array([3]), 'int32']],
  encodeString: () => [['héllo']],
  decodeString: () => [[new Uint8Array([104, 195, 169])]],
  sizeFromShape: () => [[shape()], [[]]],
};

test('tf.util functions return what TF.js\'s do', () => {
  for (const [name, argLists] of Object.entries(UTIL_CASES)) {
    for (const args of argLists()) {
      const ours = glint.util[name](...args);
      let theirs = tf.util[name](...args);
      // TF.js's isPromise answers its argument's falsy value (undefined, null) for "no".
      if (name === 'isPromise') theirs = Boolean(theirs);
      assert.deepEqual(plain(ours), plain(theirs), `util.${name}(${JSON.stringify(args)})`);
    }
  }
});

test('tf.util assertions and in-place helpers behave as TF.js\'s', async () => {
  for (const fn of ['assertShapesMatch', 'assertNonNegativeIntegerDimensions', 'assertNonNull']) {
    const bad = {assertShapesMatch: [[1, 2], [2, 1]], assertNonNegativeIntegerDimensions: [[2, -1]],
      assertNonNull: [null]}[fn];
    const good = {assertShapesMatch: [[1, 2], [1, 2]], assertNonNegativeIntegerDimensions: [[2, 0]],
      assertNonNull: [0]}[fn];
    assert.throws(() => tf.util[fn](...bad));
    assert.throws(() => glint.util[fn](...bad), glint.GlintError, fn);
    tf.util[fn](...good);
    glint.util[fn](...good);
  }
  for (const [a, b] of [[[1, 2, 3], [1, 2, 3]]]) {
    tf.util.swap(a, 0, 2);
    glint.util.swap(b, 0, 2);
    assert.deepEqual(b, a);
  }
  let n = 0;
  await glint.util.repeatedTry(() => ++n === 3, () => 1);
  assert.equal(n, 3);
  await assert.rejects(glint.util.repeatedTry(() => false, () => 1, 2), glint.GlintError);
  assert.throws(() => glint.util.checkConversionForErrors([1, NaN], 'float32'), glint.GlintError);
  assert.throws(() => tf.util.checkConversionForErrors([1, NaN], 'float32'));
});

function randomTensors(m, dtypes) {
  const rr = rng(7);
  return dtypes.map((dtype, i) => {
    const s = [1 + Math.floor(rr() * 3), 1 + Math.floor(rr() * 3)];
    const n = s[0] * s[1];
    const vals = Array.from({length: n}, () => (dtype === 'bool' ? rr() < 0.5 : dtype === 'int32' ?
        Math.floor(rr() * 100 - 50) : rr() * 2 - 1));
    return {name: `w${i}`, tensor: m.tensor(vals, s, dtype)};
  });
}

test('io.encodeWeights / decodeWeights: the same bytes and specs as TF.js, each decodes the other\'s', async () => {
  const dtypes = ['float32', 'int32', 'bool', 'float32'];
  const theirs = await tf.io.encodeWeights(randomTensors(tf, dtypes), 'g');
  const ours = await glint.io.encodeWeights(randomTensors(glint, dtypes), 'g');
  assert.deepEqual(ours.specs, theirs.specs);
  assert.deepEqual(plain(ours.data), plain(theirs.data));
  const decoded = glint.io.decodeWeights(theirs.data, theirs.specs);
  const ref = tf.io.decodeWeights(ours.data, ours.specs);
  for (const spec of theirs.specs) {
    assert.equal(decoded[spec.name].dtype, ref[spec.name].dtype);
    assert.deepEqual(decoded[spec.name].shape, ref[spec.name].shape);
    assert.deepEqual(Array.from(decoded[spec.name].dataSync()), Array.from(ref[spec.name].dataSync()));
  }
  glint.dispose(Object.values(decoded));
  // Named-map form, and a list of buffers.
  const map = await glint.io.encodeWeights({a: glint.ones([2]), b: glint.zeros([3], 'int32')});
  const mapRef = await tf.io.encodeWeights({a: tf.ones([2]), b: tf.zeros([3], 'int32')});
  assert.deepEqual(map.specs, mapRef.specs);
  assert.deepEqual(plain(glint.io.concatenateArrayBuffers([map.data, theirs.data])),
                   plain(tf.io.concatenateArrayBuffers([mapRef.data, theirs.data])));
});

test('io.decodeWeights dequantizes uint8, uint16 and float16 as TF.js does', () => {
  const q8 = new Uint8Array([0, 17, 255, 128]);
  const q16 = new Uint16Array([0, 1000, 65535]);
  const f16 = new Uint16Array([0x3c00, 0xc000, 0x3555, 0x7c00, 0x0001]);
  const specs = [
    {name: 'a', shape: [4], dtype: 'float32', quantization: {dtype: 'uint8', min: -1.5, scale: 0.01}},
    {name: 'b', shape: [3], dtype: 'float32', quantization: {dtype: 'uint16', min: 2, scale: 0.001}},
    {name: 'c', shape: [5], dtype: 'float32', quantization: {dtype: 'float16'}},
    {name: 'd', shape: [4], dtype: 'int32', quantization: {dtype: 'uint8', min: -3, scale: 0.3}},
  ];
  const data = glint.io.concatenateArrayBuffers([q8, q16, f16, q8]);
  const ours = glint.io.decodeWeights(data, specs), theirs = tf.io.decodeWeights(data, specs);
  for (const {name} of specs) {
    assert.equal(ours[name].dtype, theirs[name].dtype, name);
    const a = ours[name].dataSync(), b = theirs[name].dataSync();
    b.forEach((v, i) => assert.ok(Math.abs(a[i] - v) <= 1e-6 * Math.max(1, Math.abs(v)) || a[i] === v,
                                  `${name}[${i}]: ${a[i]} vs TF.js ${v}`));
  }
  glint.dispose(Object.values(ours));
  assert.throws(() => glint.io.decodeWeights(data, [{name: 'x', shape: [1], dtype: 'float32',
                                                      quantization: {dtype: 'uint4'}}]), /uint4/);
  assert.throws(() => glint.io.decodeWeights(new ArrayBuffer(4), [{name: 'x', shape: [2], dtype: 'float32'}]),
                /'x'.*needs 8 bytes/);
});

test('io artifact helpers match TF.js', async () => {
  const modelJSON = {modelTopology: {a: 1}, format: 'layers-model', generatedBy: 'g', convertedBy: null,
    weightsManifest: [{paths: ['p1'], weights: [{name: 'w', shape: [2], dtype: 'float32'}]},
      {paths: ['p2'], weights: [{name: 'v', shape: [1], dtype: 'int32'}]}], trainingConfig: {loss: 'mse'},
    userDefinedMetadata: {x: 1}};
  assert.deepEqual(glint.io.getWeightSpecs(modelJSON.weightsManifest), tf.io.getWeightSpecs(modelJSON.weightsManifest));
  const data = new Float32Array([1, 2, 3]).buffer;
  const loader = async (m) => [tf.io.getWeightSpecs(m), data];
  assert.deepEqual(plain(await glint.io.getModelArtifactsForJSON(modelJSON, loader)),
                   plain(await tf.io.getModelArtifactsForJSON(modelJSON, loader)));
  const specs = tf.io.getWeightSpecs(modelJSON.weightsManifest);
  assert.deepEqual(plain(glint.io.getModelArtifactsForJSONSync(modelJSON, specs, data)),
                   plain(tf.io.getModelArtifactsForJSONSync(modelJSON, specs, data)));
  const artifacts = {modelTopology: {a: [1, 2]}, weightSpecs: specs, weightData: data};
  const {dateSaved: d1, ...info} = glint.io.getModelArtifactsInfoForJSON(artifacts);
  const {dateSaved: d2, ...infoRef} = tf.io.getModelArtifactsInfoForJSON(artifacts);
  assert.deepEqual(info, infoRef);
  for (const url of ['http://a/b', 'https://x', 'file://y', 'indexeddb://z']) {
    assert.equal(glint.io.isHTTPScheme(url), tf.io.isHTTPScheme(url), url);
  }
  // Sync in-memory handlers return at once, as TF.js's.
  const h = glint.io.fromMemorySync(artifacts), hRef = tf.io.fromMemorySync(artifacts);
  assert.deepEqual(plain(h.load()), plain(hRef.load()));
  let got;
  glint.io.withSaveHandlerSync((a) => {
    got = a;
  }).save(artifacts);
  assert.equal(got, artifacts);
});

test('io routers, getLoadHandlers and copyModel/moveModel through a registered store', async () => {
  const store = new Map();
  const handlerFor = (url) => (url.startsWith('mem30://') ? {
    save: async (a) => {
      store.set(url, a);
      return {modelArtifactsInfo: glint.io.getModelArtifactsInfoForJSON(a)};
    },
    load: async () => {
      if (!store.has(url)) throw new Error(`nothing at ${url}`);
      return store.get(url);
    },
  } : null);
  glint.io.registerSaveRouter(handlerFor);
  glint.io.registerLoadRouter(handlerFor);
  assert.equal(glint.io.getLoadHandlers('mem30://a').length, 1);
  assert.equal(glint.io.getSaveHandlers('nothing-known://a').length, 0);
  const m = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  await m.save('mem30://a');
  const info = await glint.io.copyModel('mem30://a', 'mem30://b');
  assert.ok(info.weightDataBytes > 0);
  const copy = await glint.loadLayersModel('mem30://b');
  const x = glint.ones([1, 3]);
  assert.deepEqual(Array.from(copy.predict(x).dataSync()), Array.from(m.predict(x).dataSync()));
  await assert.rejects(glint.io.copyModel('mem30://a', 'mem30://a'), glint.GlintError);
  glint.dispose([x]);
  m.dispose();
  copy.dispose();
});

test('io.weightsLoaderFactory and browserFiles load what encodeWeights wrote', async () => {
  const {data, specs} = await glint.io.encodeWeights({a: glint.tensor([1, 2, 3]), b: glint.tensor([4], [1], 'int32')});
  const manifest = [{paths: ['w1.bin'], weights: specs}];
  const loadTheirs = tf.io.weightsLoaderFactory(async (urls) => urls.map(() => data));
  const loadOurs = glint.io.weightsLoaderFactory(async (urls) => urls.map(() => data));
  const ours = await loadOurs(manifest, 'x/', ['b']), theirs = await loadTheirs(manifest, 'x/', ['b']);
  assert.deepEqual(Object.keys(ours), Object.keys(theirs));
  assert.deepEqual(Array.from(ours.b.dataSync()), Array.from(theirs.b.dataSync()));
  const m = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  let artifacts;
  await m.save(glint.io.withSaveHandler(async (a) => {
    artifacts = a;
  }));
  const {weightData, weightSpecs, ...rest} = artifacts;
  const json = new File([JSON.stringify({...rest, weightsManifest: [{paths: ['./m.bin'], weights: weightSpecs}]})], 'model.json');
  const loaded = await glint.loadLayersModel(glint.io.browserFiles([json, new File([weightData], 'm.bin')]));
  const x = glint.ones([2, 3]);
  assert.deepEqual(Array.from(loaded.predict(x).dataSync()), Array.from(m.predict(x).dataSync()));
  await assert.rejects(glint.io.browserFiles([json]).load(), /'m.bin' is not among the files/);
  glint.dispose([x, ours.b]);
  m.dispose();
  loaded.dispose();
});

test('optimizer classes step exactly as TF.js\'s', () => {
  const make = (m) => [
    ['SGDOptimizer', new m.SGDOptimizer(0.1)],
    ['MomentumOptimizer', new m.MomentumOptimizer(0.1, 0.9, true)],
    ['AdamOptimizer', new m.AdamOptimizer(0.05, 0.8, 0.99)],
    ['AdamaxOptimizer', new m.AdamaxOptimizer(0.05, 0.9, 0.999, null, 0)],
    ['RMSPropOptimizer', new m.RMSPropOptimizer(0.05, 0.9, 0.1, null, true)],
    ['AdagradOptimizer', new m.AdagradOptimizer(0.1, 0.2)],
  ];
  const start = [0.5, -1.5, 2];
  const run = (m) => make(m).map(([name, opt]) => {
    assert.ok(opt instanceof m[name] && opt instanceof m.Optimizer, `${name} instance`);
    const v = m.variable(m.tensor(start), true, `v_${name}_${m === tf ? 'tf' : 'g'}`);
    for (let i = 0; i < 4; ++i) opt.minimize(() => m.sum(m.mul(m.square(m.sub(v, 1)), m.tensor([1, 2, 3]))), false, [v]);
    const out = Array.from(v.dataSync());
    v.dispose();
    opt.dispose();
    return [name, out];
  });
  const theirs = run(tf), ours = run(glint);
  ours.forEach(([name, vals], i) => vals.forEach((x, j) =>
    assert.ok(Math.abs(x - theirs[i][1][j]) <= 1e-5 * Math.max(1, Math.abs(x)), `${name}[${j}]: ${x} vs TF.js ${theirs[i][1][j]}`)));
  // Glint's Adadelta follows Keras (web/package/README.md); TF.js 4.22's leaves
  // v[0] at 0.5 and sends v[1] to -201.5 in these four steps. The reference is
  // Keras's update rule, in float64.
  const rho = 0.9, eps = 1e-7, lr = 1, w = [1, 2, 3];
  const v = glint.variable(glint.tensor(start)), opt = new glint.AdadeltaOptimizer(lr, rho);
  const ref = start.slice(), accG = [0, 0, 0], accU = [0, 0, 0];
  for (let i = 0; i < 4; ++i) {
    opt.minimize(() => glint.sum(glint.mul(glint.square(glint.sub(v, 1)), glint.tensor(w))), false, [v]);
    ref.forEach((x, j) => {
      const g = 2 * w[j] * (x - 1);
      accG[j] = rho * accG[j] + (1 - rho) * g * g;
      const u = Math.sqrt(accU[j] + eps) / Math.sqrt(accG[j] + eps) * g;
      accU[j] = rho * accU[j] + (1 - rho) * u * u;
      ref[j] = x - lr * u;
    });
  }
  Array.from(v.dataSync()).forEach((x, j) => assert.ok(Math.abs(x - ref[j]) <= 1e-5, `Adadelta[${j}]: ${x} vs ${ref[j]}`));
  assert.ok(opt instanceof glint.AdadeltaOptimizer);
  v.dispose();
  opt.dispose();
  assert.ok(glint.train.adam() instanceof glint.AdamOptimizer);
  assert.ok(glint.OptimizerConstructors.sgd(0.1) instanceof glint.SGDOptimizer);
});

test('History and CallbackList record and fan out as TF.js\'s', async () => {
  const logs = [{loss: 0.5, acc: 0.25}, {loss: 0.25, acc: 0.5}];
  const drive = async (m) => {
    const h = new m.History();
    const seen = [];
    const list = new m.CallbackList([h]);
    list.append(new m.CustomCallback({onEpochEnd: async (e) => {
      seen.push(e);
    }}));
    await list.onTrainBegin();
    for (let e = 0; e < logs.length; ++e) await list.onEpochEnd(e, {...logs[e]});
    await h.syncData();
    return {epoch: h.epoch, history: h.history, seen};
  };
  assert.deepEqual(await drive(glint), await drive(tf));
  const spec = new glint.InputSpec({shape: [null, 3], dtype: 'float32'});
  const ref = new tf.InputSpec({shape: [null, 3], dtype: 'float32'});
  assert.deepEqual({...spec}, {...ref});
});

test('async ops and dtype helpers agree with TF.js', async () => {
  for (let trial = 0; trial < 5; ++trial) {
    const x = Array.from({length: int(1, 8)}, () => int(0, 5)), y = Array.from({length: int(0, 4)}, () => int(0, 5));
    const [o, i] = await glint.setdiff1dAsync(glint.tensor(x, undefined, 'int32'), glint.tensor(y, [y.length], 'int32'));
    const [oR, iR] = await tf.setdiff1dAsync(tf.tensor(x, undefined, 'int32'), tf.tensor(y, [y.length], 'int32'));
    assert.deepEqual([o.dtype, o.shape, Array.from(o.dataSync()), i.dtype, Array.from(i.dataSync())],
                     [oR.dtype, oR.shape, Array.from(oR.dataSync()), iR.dtype, Array.from(iR.dataSync())]);
    const rows = int(1, 4), classes = int(2, 5), k = int(1, classes);
    // Rounded so that ties occur.
    const p = Array.from({length: rows * classes}, () => Math.round(r() * 3));
    const t = Array.from({length: rows}, () => int(0, classes - 1));
    const ours = await glint.inTopKAsync(glint.tensor(p, [rows, classes]), glint.tensor(t, [rows], 'int32'), k);
    const theirs = await tf.inTopKAsync(tf.tensor(p, [rows, classes]), tf.tensor(t, [rows], 'int32'), k);
    assert.deepEqual([ours.dtype, ours.shape, Array.from(ours.dataSync())],
                     [theirs.dtype, theirs.shape, Array.from(theirs.dataSync())], JSON.stringify({p, t, k}));
  }
  for (const a of ['bool', 'int32', 'float32']) {
    assert.equal(glint.sumOutType(a), tf.sumOutType(a));
    for (const b of ['bool', 'int32', 'float32']) assert.equal(glint.upcastType(a, b), tf.upcastType(a, b));
  }
  assert.throws(() => glint.upcastType('string', 'int32'), glint.GlintError);
  for (const v of [1, 3, 17, 64, 1000]) assert.equal(glint.enclosingPowerOfTwo(v), tf.enclosingPowerOfTwo(v));
  for (const n of [2, 5, 8]) {
    assert.deepEqual(Array.from(glint.cosineWindow(n, 0.5, 0.5).dataSync()),
                     Array.from(tf.signal.hannWindow(n).dataSync()));
  }
  const named = glint.op({square_: (x) => glint.mul(x, x)});
  assert.deepEqual(Array.from(named(glint.tensor([3])).dataSync()), [9]);
  assert.deepEqual(Object.keys(glint.Rank), Object.keys(tf.Rank));
  const s = glint.ones([2, 3]);
  assert.equal(glint.ensureShape(s, [2, null]), s);
  assert.throws(() => glint.ensureShape(s, [3, 2]), /\[ensureShape\].*\[2,3\]/);
  const rsn = glint.randomStandardNormal([200, 3], 'float32', 5);
  assert.deepEqual([rsn.dtype, rsn.shape], ['float32', [200, 3]]);
  assert.ok(Math.abs(glint.mean(rsn).dataSync()[0]) < 0.2);
  const rui = glint.randomUniformInt([500], -2, 3, 1);
  const vals = Array.from(rui.dataSync());
  assert.equal(rui.dtype, 'int32');
  assert.deepEqual([...new Set(vals)].sort((a, b) => a - b), [-2, -1, 0, 1, 2]);
  const v = glint.variable(glint.ones([2]), false);
  assert.equal(v.trainable, false);
  glint.dispose([s, rsn, rui, v]);
});

test('data.func, models.modelFromJSON and loadGraphModelSync build what TF.js\'s do', async () => {
  let i = 0;
  const f = () => (i < 3 ? {value: i++, done: false} : {value: null, done: true});
  assert.deepEqual(await glint.data.func(f).toArray(), [0, 1, 2]);
  const m = glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
  let artifacts;
  await m.save(glint.io.withSaveHandler(async (a) => {
    artifacts = a;
  }));
  const fresh = await glint.models.modelFromJSON({modelTopology: artifacts.modelTopology});
  assert.deepEqual(fresh.outputs[0].shape, m.outputs[0].shape);
  const ref = await tf.models.modelFromJSON({modelTopology: artifacts.modelTopology});
  assert.deepEqual(fresh.outputs[0].shape, ref.outputs[0].shape);
  m.dispose();
  fresh.dispose();
});

test('env(): TF.js\'s flags that mean something here, DEBUG and PROD switching debug mode', () => {
  for (const flag of ['IS_NODE', 'IS_BROWSER', 'DEBUG', 'PROD', 'IS_TEST']) {
    assert.equal(glint.env().get(flag), tf.env().get(flag), flag);
  }
  assert.ok(glint.ENV instanceof glint.Environment);
  glint.env().set('DEBUG', true);
  // Debug mode names the kernel that made a NaN (api.test.mjs checks the message).
  assert.throws(() => glint.log(glint.tensor([-1])).dataSync(), /NaN|nan/);
  glint.enableProdMode();
  assert.equal(glint.env().getBool('PROD'), true);
  glint.log(glint.tensor([-1])).dispose();
  glint.env().set('PROD', false);
  glint.env().set('DEBUG', false);
  assert.throws(() => glint.env().set('WEBGL_PACK', false), /'WEBGL_PACK'.*not registered/);
  assert.throws(() => tf.env().set('NOT_A_FLAG_30', false));
  assert.throws(() => glint.env().get('NOT_A_FLAG_30'), glint.GlintError);
});

test('data.csv reads rows as TF.js\'s does (header, quotes, defaults, labels, dtypes)', async () => {
  const os = await import('node:os'), fs = await import('node:fs'), path = await import('node:path');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'glint-csv-')), 'rows.csv');
  fs.writeFileSync(file, 'a,b,"c d",lab\n1,2.5,x,1\n3,,"q,r",0\n-4.5,7,true,1\n');
  const url = 'file://' + file;
  for (const cfg of [{}, {columnConfigs: {lab: {isLabel: true}, b: {default: 9}}},
    {columnConfigs: {a: {dtype: 'int32'}, lab: {isLabel: true, dtype: 'bool'}}, configuredColumnsOnly: true},
    {hasHeader: false, columnNames: ['p', 'q', 'r', 's']}]) {
    const theirs = await tf.data.csv(url, cfg).toArray(), ours = await glint.data.csv(url, cfg).toArray();
    assert.deepEqual(ours, theirs, JSON.stringify(cfg));
    assert.deepEqual(await glint.data.csv(url, cfg).columnNames(), await tf.data.csv(url, cfg).columnNames());
  }
  await assert.rejects(glint.data.csv(url, {columnConfigs: {b: {required: true}}}).toArray(), /'b' is empty/);
  await assert.rejects(glint.data.csv(url, {columnConfigs: {nope: {}}}).toArray(), /'nope'/);
  // Batched into tensors for fitDataset.
  const batches = await glint.data.csv(url, {columnConfigs: {lab: {isLabel: true}}})
      .map(({xs, ys}) => ({xs: [xs.a], ys: [ys.lab]})).batch(2).toArray();
  assert.deepEqual(batches[0].xs.shape, [2, 1]);
  glint.dispose(batches.flatMap((b) => [b.xs, b.ys]));
});

test('multinomial and randomGamma draw TF.js\'s distributions (frequencies and moments compared)', () => {
  const logits = [[0.5, -1, 2, 0], [1, 1, 1, -3]];
  const n = 4000;
  const freq = (m) => m.tidy(() => {
    const s = m.multinomial(m.tensor(logits), n, 3);
    assert.deepEqual([s.dtype, s.shape], ['int32', [2, n]]);
    const v = s.dataSync();
    return logits.map((row, b) => row.map((_, c) => v.slice(b * n, (b + 1) * n).filter((x) => x === c).length / n));
  });
  const ours = freq(glint), theirs = freq(tf);
  const probs = logits.map((row) => {
    const e = row.map(Math.exp), z = e.reduce((a, b) => a + b);
    return e.map((x) => x / z);
  });
  ours.forEach((row, b) => row.forEach((f, c) => {
    // 4000 draws: 5 standard errors of a frequency is at most 0.04.
    assert.ok(Math.abs(f - probs[b][c]) < 0.04, `multinomial[${b}][${c}]: ${f} vs p ${probs[b][c]}`);
    assert.ok(Math.abs(f - theirs[b][c]) < 0.05, `multinomial[${b}][${c}]: ${f} vs TF.js ${theirs[b][c]}`);
  }));
  const p1d = glint.multinomial(glint.tensor([0.2, 0.8]), 50, 1, true);
  assert.deepEqual(p1d.shape, [50]);
  p1d.dispose();
  for (const [alpha, beta] of [[0.5, 1], [2, 3], [5, 0.5]]) {
    const moments = (m) => m.tidy(() => {
      const g = m.randomGamma([20000], alpha, beta, 'float32', 7);
      const {mean, variance} = m.moments(g);
      return [mean.dataSync()[0], variance.dataSync()[0], g.min().dataSync()[0]];
    });
    const [mu, v, lo] = moments(glint), [muRef, vRef] = moments(tf);
    assert.ok(lo > 0);
    assert.ok(Math.abs(mu - muRef) < 0.05 * muRef + 0.02, `gamma(${alpha}, ${beta}) mean ${mu} vs TF.js ${muRef}`);
    assert.ok(Math.abs(v - vRef) < 0.12 * vRef + 0.02, `gamma(${alpha}, ${beta}) variance ${v} vs TF.js ${vRef}`);
  }
  const gi = glint.randomGamma([3, 2], 4, 2, 'int32', 1);
  assert.deepEqual([gi.dtype, gi.shape], ['int32', [3, 2]]);
  assert.deepEqual(Array.from(gi.dataSync()), Array.from(glint.randomGamma([3, 2], 4, 2, 'int32', 1).dataSync()));
  gi.dispose();
});

test('io.CompositeArrayBuffer slices across buffers and decodeWeightsStream decodes a stream, as TF.js\'s', async () => {
  const parts = [new Uint8Array([1, 2, 3]).buffer, new Uint8Array([]).buffer, new Uint8Array([4, 5, 6, 7, 8]).buffer,
    new Uint8Array([9])];
  const ours = new glint.io.CompositeArrayBuffer(parts), theirs = new tf.io.CompositeArrayBuffer(parts);
  assert.equal(ours.byteLength, theirs.byteLength);
  for (const [a, b] of [[0, 9], [2, 5], [3, 3], [1, undefined], [undefined, undefined], [7, 100], [-3, -1], [0, 1]]) {
    assert.deepEqual(plain(ours.slice(a, b)), plain(theirs.slice(a, b)), `slice(${a}, ${b})`);
  }
  assert.deepEqual(plain(glint.io.CompositeArrayBuffer.join(parts)), plain(tf.io.CompositeArrayBuffer.join(parts)));
  const {data, specs} = await glint.io.encodeWeights({a: glint.tensor([1.5, -2, 3]), b: glint.tensor([[7, 8]], [1, 2], 'int32')});
  const bytes = new Uint8Array(data);
  const stream = () => new ReadableStream({start(c) {
    for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
    c.close();
  }});
  const got = await glint.io.decodeWeightsStream(stream(), specs), ref = await tf.io.decodeWeightsStream(stream(), specs);
  for (const k of ['a', 'b']) {
    assert.deepEqual([got[k].dtype, got[k].shape, Array.from(got[k].dataSync())],
                     [ref[k].dtype, ref[k].shape, Array.from(ref[k].dataSync())], k);
  }
  glint.dispose(Object.values(got));
});

test('time(f) reports wall and (on cpu) kernel milliseconds, as TF.js\'s cpu backend', async () => {
  const work = (m) => () => m.tidy(() => m.matMul(m.ones([200, 200]), m.ones([200, 200])).dataSync());
  const ours = await glint.time(work(glint)), theirs = await tf.time(work(tf));
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).filter((k) => ['wallMs', 'kernelMs'].includes(k)).sort());
  assert.equal(glint.getBackend(), 'cpu');
  assert.ok(typeof ours.kernelMs === 'number' && ours.kernelMs > 0 && ours.kernelMs <= ours.wallMs, JSON.stringify(ours));
});

test('data.FileDataSource, URLDataSource and TextLineDataset chunk and split as TF.js\'s', async () => {
  const text = 'héllo\nworld\r\n\nlast line é\nno newline at the end';
  const bytes = new TextEncoder().encode(text);
  const lines = (m, size) => new m.data.TextLineDataset(new m.data.FileDataSource(bytes, {chunkSize: size})).toArray();
  for (const size of [1, 2, 3, 7, 1000]) assert.deepEqual(await lines(glint, size), await lines(tf, size), `chunkSize ${size}`);
  const sizes = async (m, src) => {
    const it = await src.iterator();
    const out = [];
    for (let r = await it.next(); !r.done; r = await it.next()) out.push(Array.from(r.value));
    return out;
  };
  assert.deepEqual(await sizes(glint, new glint.data.FileDataSource(bytes, {chunkSize: 5})),
                   await sizes(tf, new tf.data.FileDataSource(bytes, {chunkSize: 5})));
  const os = await import('node:os'), fs = await import('node:fs'), path = await import('node:path');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'glint-lines-')), 'a.txt');
  fs.writeFileSync(file, text);
  assert.deepEqual(await new glint.data.TextLineDataset(new glint.data.URLDataSource('file://' + file)).toArray(),
                   await lines(tf, 4));
  const blob = new Blob([bytes]);
  assert.deepEqual(await new glint.data.TextLineDataset(new glint.data.FileDataSource(blob, {chunkSize: 4})).toArray(),
                   await lines(tf, 4));
});

test('serialization: SerializationMap lists registered classes; Serializable and getRegisteredName as TF.js', () => {
  class Doubler30 extends glint.layers.Layer {
    static get className() {
      return 'Doubler30';
    }
    call(x) {
      return glint.mul(Array.isArray(x) ? x[0] : x, 2);
    }
  }
  glint.serialization.registerClass(Doubler30);
  const entry = glint.serialization.SerializationMap.getMap().classNameMap.Doubler30;
  assert.equal(entry[0], Doubler30);
  assert.equal(glint.serialization.getRegisteredName(Doubler30), 'Doubler30');
  class Thing extends glint.serialization.Serializable {
    static className = 'Thing';
    constructor(config) {
      super();
      this.config = config;
    }
  }
  class ThingRef extends tf.serialization.Serializable {
    static className = 'Thing';
    constructor(config) {
      super();
      this.config = config;
    }
    getConfig() {
      return this.config;
    }
  }
  const a = glint.serialization.Serializable.fromConfig(Thing, {k: 1});
  const b = tf.serialization.Serializable.fromConfig(ThingRef, {k: 1});
  assert.deepEqual([a.getClassName(), a.config], [b.getClassName(), b.config]);
});
