// Ops with TF.js names and argument orders. Each forwards to the C++ op of the
// same name (glint_op), which validates its arguments and names them in errors.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, asTensor, tidy, dispose} from './tensor.js';

/** Marks an input that, given as numbers or an array, becomes an int32 tensor (indices). */
class IntInput {
  constructor(value) {
    this.value = value;
  }
}
const ints = (x) => (x instanceof Tensor ? x : new IntInput(x));
const INT32_LIKE = {dtype: 'int32'};

// complex64 and string tensors (complex.js, string.js) live in JS, with no
// engine handle: the ops that take them are diverted there (divertOp);
// every other op refuses them by name.
function refuseHostTensors(name, inputs) {
  const at = inputs.findIndex((x) => x instanceof Tensor && x.id === null);
  if (at < 0) return;
  const dtype = inputs[at].dtype;
  throw new GlintError(`[${name}] input ${at} is ${dtype}, which ${name} does not take` +
      (dtype === 'complex64' ? ' (take real(), imag() or abs() of it first)' : ''));
}

/**
 * Replaces ops[name] with a form that hands the calls `test(args)` picks to
 * other(base, ...args), base being the op it replaces.
 */
export function divertOp(ops, name, test, other) {
  const base = ops[name];
  if (typeof base !== 'function') throw new GlintError(`[divertOp] no op ${name}`);
  ops[name] = (...args) => (test(args) ? other(base, ...args) : base(...args));
}

/** Runs an op; inputs may be numbers or arrays (converted, then freed). */
export function runOp(name, inputs, attrs, maxOut = 1) {
  refuseHostTensors(name, inputs);
  const temps = [];
  const like = inputs.find((v) => v instanceof Tensor);
  const tensors = inputs.map((x, i) => {
    const t = x instanceof IntInput ?
        asTensor(x.value, name, `input ${i}`, INT32_LIKE) :
        asTensor(x, name, `input ${i}`, like);
    if (t !== x) temps.push(t);
    return t;
  });
  let ids;
  try {
    ids = core.callIds(maxOut, (out, max) => core.module()._glint_op(
        core.str(name), core.ints(tensors.map((t) => t.id)), tensors.length,
        attrs === undefined ? 0 : core.json(attrs), out, max));
  } finally {
    dispose(temps);
  }
  return ids.map((id) => new Tensor(id));
}

const one = (name, inputs, attrs) => runOp(name, inputs, attrs)[0];

// ---- Element-wise ------------------------------------------------------------------

const UNARY = ['neg', 'abs', 'exp', 'log', 'log1p', 'sqrt', 'rsqrt', 'square', 'reciprocal',
  'relu', 'relu6', 'elu', 'selu', 'sigmoid', 'tanh', 'softplus', 'sin', 'cos', 'sign', 'floor',
  'ceil', 'round', 'logicalNot', 'zerosLike', 'onesLike'];
const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'squaredDifference',
  'atan2', 'floorDiv', 'mod', 'equal', 'notEqual', 'less', 'lessEqual', 'greater', 'greaterEqual',
  'logicalAnd', 'logicalOr', 'logicalXor'];
const REDUCE = ['sum', 'mean', 'max', 'min', 'prod', 'logSumExp', 'any', 'all'];

// TF.js's dtype rules for two operands: numbers and arrays are inferred on
// their own (a number is float32), then the lower dtype is cast up
// (bool < int32 < float32), so int32 + 1.5 is float32 [.., 2.5], as in TF.js.
// Arithmetic takes numbers: bool operands count as int32 there. int32 / int32
// divides as floorDiv, as TF.js's div does. The logical ops stay bool-only.
const DTYPE_ORDER = ['bool', 'int32', 'float32'];
const LOGICAL = new Set(['logicalAnd', 'logicalOr', 'logicalXor']);
const COMPARISON = new Set(['equal', 'notEqual', 'less', 'lessEqual', 'greater', 'greaterEqual']);

function binaryOp(name) {
  if (LOGICAL.has(name)) return (a, b) => one(name, [a, b]);
  return (a, b) => {
    refuseHostTensors(name, [a, b]);
    const temps = [];
    const operand = (x, arg) => {
      const t = asTensor(x, name, arg);
      if (t !== x) temps.push(t);
      return t;
    };
    try {
      let x = operand(a, 'a'), y = operand(b, 'b');
      let dtype = DTYPE_ORDER[Math.max(DTYPE_ORDER.indexOf(x.dtype), DTYPE_ORDER.indexOf(y.dtype))];
      if (dtype === 'bool' && !COMPARISON.has(name)) dtype = 'int32';
      if (x.dtype !== dtype) temps.push(x = one('cast', [x], {dtype}));
      if (y.dtype !== dtype) temps.push(y = one('cast', [y], {dtype}));
      return one(name === 'div' && dtype === 'int32' ? 'floorDiv' : name, [x, y]);
    } finally {
      dispose(temps);
    }
  };
}

// Float ops TF.js also takes int32 for: ops_dtype_rules.js adds that (and the other TF.js dtype rules).
const FLOAT_KEEPING_DTYPE = ['asin', 'acos', 'atan', 'asinh', 'acosh', 'atanh'];

export const ops = {};
for (const n of UNARY) ops[n] = (x) => one(n, [x]);
for (const n of [...FLOAT_KEEPING_DTYPE, 'erf']) ops[n] = (x) => one(n, [x]);
for (const n of BINARY) ops[n] = binaryOp(n);
for (const n of REDUCE) ops[n] = (x, axis = null, keepDims = false) => one(n, [x], {axis, keepDims});

Object.assign(ops, {
  leakyRelu: (x, alpha = 0.2) => one('leakyRelu', [x], {alpha}),
  gelu: (x, approximate = false) => one('gelu', [x], {approximate}),
  where: (condition, a, b) => one('where', [condition, a, b]),
  cast: (x, dtype) => one('cast', [x], {dtype}),
  clipByValue: (x, clipValueMin, clipValueMax) =>
    one('clipByValue', [x], {clipValueMin, clipValueMax}),
  argMax: (x, axis = 0) => one('argMax', [x], {axis}),
  argMin: (x, axis = 0) => one('argMin', [x], {axis}),
  softmax: (logits, dim = -1) => one('softmax', [logits], {dim}),
  logSoftmax: (logits, axis = -1) => one('logSoftmax', [logits], {axis}),
  moments: (x, axis = null, keepDims = false) => {
    const [mean, variance] = runOp('moments', [x], {axis, keepDims}, 2);
    return {mean, variance};
  },
  batchNorm: (x, mean, variance, offset, scale, varianceEpsilon = 1e-3) => {
    if (offset == null && scale != null) {
      throw new GlintError('[batchNorm] an offset is needed when a scale is given (pass zeros)');
    }
    const inputs = [x, mean, variance];
    if (offset != null) inputs.push(offset);
    if (scale != null) inputs.push(scale);
    return one('batchNorm', inputs, {varianceEpsilon});
  },
  matMul: (a, b, transposeA = false, transposeB = false) =>
    one('matMul', [a, b], {transposeA, transposeB}),
  dot: (a, b) => one('matMul', [a, b]),
  conv2d: (x, filter, strides = 1, pad = 'valid', dataFormat = 'NHWC', dilations = 1) => {
    nhwc('conv2d', dataFormat);
    return explicitPad('conv2d', x, pad, 0, (xp, p) => one('conv2d', [xp, filter], {strides, pad: p, dilations}));
  },
  depthwiseConv2d: (x, filter, strides = 1, pad = 'valid', dataFormat = 'NHWC', dilations = 1) => {
    nhwc('depthwiseConv2d', dataFormat);
    return explicitPad('depthwiseConv2d', x, pad, 0,
                       (xp, p) => one('depthwiseConv2d', [xp, filter], {strides, pad: p, dilations}));
  },
  conv2dTranspose: (x, filter, outputShape, strides = 1, pad = 'valid') =>
    one('conv2dTranspose', [x, filter], {outputShape, strides, pad}),
  // Padding never wins a max: pad with float32's lowest (attributes travel as
  // JSON, which has no -Infinity), as TF.js's windows skip it.
  maxPool: (x, filterSize, strides, pad = 'valid') =>
    explicitPad('maxPool', x, pad, -3.4028234663852886e38,
                (xp, p) => one('maxPool', [xp], {filterSize, strides: strides ?? filterSize, pad: p})),
  avgPool: (x, filterSize, strides, pad = 'valid') =>
    one('avgPool', [x], {filterSize, strides: strides ?? filterSize, pad}),
  reshape: (x, shape) => one('reshape', [x], {shape}),
  flatten: (x) => one('reshape', [x], {shape: [-1]}),
  transpose: (x, perm) => one('transpose', [x], {perm: perm ?? null}),
  concat: (tensors, axis = 0) => one('concat', tensors, {axis}),
  stack: (tensors, axis = 0) => one('stack', tensors, {axis}),
  split: (x, numOrSizeSplits, axis = 0) => runOp('split', [x],
      Array.isArray(numOrSizeSplits) ? {sizes: numOrSizeSplits, axis} :
                                       {numSplits: numOrSizeSplits, axis},
      Array.isArray(numOrSizeSplits) ? numOrSizeSplits.length : Math.max(1, numOrSizeSplits)),
  unstack: (x, axis = 0) => {
    const t = asTensor(x, 'unstack', 'x');
    const n = t.shape[axis < 0 ? t.rank + axis : axis] ?? 0;
    return runOp('unstack', [t], {axis}, Math.max(1, n));
  },
  slice: (x, begin, size) => {
    const b = typeof begin === 'number' ? [begin] : begin;
    const s = size === undefined ? undefined : typeof size === 'number' ? [size] : size;
    return one('slice', [x], s === undefined ? {begin: b} : {begin: b, size: s});
  },
  stridedSlice: (x, begin, end, strides, beginMask = 0, endMask = 0, ellipsisMask = 0,
                 newAxisMask = 0, shrinkAxisMask = 0) =>
    one('stridedSlice', [x], {begin, end, strides: strides ?? [], beginMask, endMask,
                              ellipsisMask, newAxisMask, shrinkAxisMask}),
  pad: (x, paddings, constantValue = 0) =>
    one('pad', [x], {paddings: paddings.flat(), constantValue}),
  gather: (x, indices, axis = 0) => one('gather', [x, ints(indices)], {axis}),
  unsortedSegmentSum: (x, segmentIds, numSegments) =>
    one('unsortedSegmentSum', [x, ints(segmentIds)], {numSegments}),
  // int32 by default, as TF.js: the engine makes float32, cast unless that was asked for.
  oneHot: (indices, depth, onValue = 1, offValue = 0, dtype = 'int32') => {
    const hot = one('oneHot', [ints(indices)], {depth, onValue, offValue});
    if (dtype === 'float32') return hot;
    try {
      return one('cast', [hot], {dtype});
    } finally {
      hot.dispose();
    }
  },
  tile: (x, reps) => one('tile', [x], {reps}),
  expandDims: (x, axis = 0) => one('expandDims', [x], {axis}),
  squeeze: (x, axis) => one('squeeze', [x], {axis: axis ?? null}),
  reverse: (x, axis) => one('reverse', [x], {axis: axis ?? null}),
  fill: (shape, value, dtype = 'float32') => one('fill', [], {shape, value, dtype}),
  zeros: (shape, dtype = 'float32') => one('zeros', [], {shape, dtype}),
  ones: (shape, dtype = 'float32') => one('ones', [], {shape, dtype}),
  range: (start, stop, step = 1, dtype = 'float32') => one('range', [], {start, stop, step, dtype}),
  // Integer draws as TF.js makes them: a uniform draw stored (truncated) in an
  // int32 or bool buffer; a normal draw rounded (Math.round).
  randomUniform: (shape, minval = 0, maxval = 1, dtype = 'float32', seed) =>
    randomAs('randomUniform', dtype, ['float32', 'int32', 'bool'], (u) => (dtype === 'bool' ?
        ops.cast(ops.cast(u, 'int32'), 'bool') : ops.cast(u, dtype)),
             () => one('randomUniform', [], {shape, minval, maxval, seed: seed ?? null})),
  randomNormal: (shape, mean = 0, stdDev = 1, dtype = 'float32', seed) =>
    randomAs('randomNormal', dtype, ['float32', 'int32'], roundToInt32,
             () => one('randomNormal', [], {shape, mean, stdDev, seed: seed ?? null})),
  truncatedNormal: (shape, mean = 0, stdDev = 1, dtype = 'float32', seed) =>
    randomAs('truncatedNormal', dtype, ['float32', 'int32'], roundToInt32,
             () => one('truncatedNormal', [], {shape, mean, stdDev, seed: seed ?? null})),
  dropout: (x, rate, noiseShape, seed) =>
    one('dropout', [x], {rate, noiseShape: noiseShape ?? null, seed: seed ?? null}),
});

ops.fused = {
  matMul: ({a, b, transposeA = false, transposeB = false, bias, activation = 'linear',
            leakyreluAlpha = 0.2}) =>
    one('fused.matMul', bias ? [a, b, bias] : [a, b],
        {transposeA, transposeB, activation, leakyreluAlpha}),
};

/**
 * TF.js's numeric and explicit paddings for NHWC windows: a number pads height
 * and width by it on both sides; [[0,0],[top,bottom],[left,right],[0,0]] pads
 * each side. Done as a pad op (value `fill`) and a 'valid' window, so every
 * backend and the tape have it; 'same' and 'valid' go to the op as they are.
 */
function explicitPad(op, x, pad, fill, run) {
  if (typeof pad === 'string') return run(x, pad);
  let paddings;
  if (typeof pad === 'number' && Number.isInteger(pad) && pad >= 0) {
    paddings = [[0, 0], [pad, pad], [pad, pad], [0, 0]];
  } else if (Array.isArray(pad) && pad.length === 4 && pad.every((p) => Array.isArray(p) && p.length === 2 &&
             p.every((v) => Number.isInteger(v) && v >= 0)) &&
             pad[0][0] === 0 && pad[0][1] === 0 && pad[3][0] === 0 && pad[3][1] === 0) {
    paddings = pad;
  } else {
    throw new GlintError(`[${op}] pad must be 'same', 'valid', a non-negative integer or ` +
        `[[0, 0], [top, bottom], [left, right], [0, 0]]: got ${JSON.stringify(pad)}`);
  }
  return tidy(() => run(ops.pad(x, paddings, fill), 'valid'));
}

function nhwc(op, dataFormat) {
  if (dataFormat !== 'NHWC') {
    throw new GlintError(`[${op}] dataFormat must be 'NHWC' (got '${dataFormat}')`);
  }
}

// ---- Losses and metrics (per-sample values, as TF.js's tf.metrics / losses) ----------

const LOSSES = ['meanSquaredError', 'meanAbsoluteError', 'meanAbsolutePercentageError',
  'meanSquaredLogarithmicError', 'categoricalCrossentropy', 'sparseCategoricalCrossentropy',
  'binaryCrossentropy', 'huber', 'logCosh', 'cosineSimilarity', 'kullbackLeiblerDivergence',
  'poisson', 'hinge', 'squaredHinge', 'categoricalHinge'];
const METRICS = ['binaryAccuracy', 'categoricalAccuracy', 'sparseCategoricalAccuracy',
  'precision', 'recall', 'meanSquaredError', 'meanAbsoluteError', 'topKCategoricalAccuracy',
  'sparseTopKCategoricalAccuracy'];

export const losses = {};
for (const n of LOSSES) losses[n] = (yTrue, yPred) => one('loss', [yTrue, yPred], {name: n});
losses.softmaxCrossEntropy = (labels, logits) => one('softmaxCrossEntropy', [labels, logits]);
export const metrics = {};
for (const n of METRICS) metrics[n] = (yTrue, yPred) => one('metric', [yTrue, yPred], {name: n});

// ---- Tensor methods (x.add(y), x.reshape([...]), ...) ------------------------------

const METHODS = [...UNARY, ...FLOAT_KEEPING_DTYPE, 'erf', ...BINARY, ...REDUCE, 'leakyRelu', 'gelu', 'cast', 'clipByValue',
  'argMax', 'argMin', 'softmax', 'logSoftmax', 'matMul', 'dot', 'reshape', 'flatten', 'transpose',
  'slice', 'stridedSlice', 'pad', 'gather', 'oneHot', 'tile', 'expandDims', 'squeeze', 'reverse',
  'split', 'unstack', 'conv2d', 'maxPool', 'avgPool'];
for (const n of METHODS) {
  if (!(n in Tensor.prototype)) {
    Tensor.prototype[n] = function(...args) {
      return ops[n](this, ...args);
    };
  }
}
Tensor.prototype.asType = function(dtype) {
  return ops.cast(this, dtype);
};
Tensor.prototype.as1D = function() {
  return ops.reshape(this, [-1]);
};
Tensor.prototype.as2D = function(r, c) {
  return ops.reshape(this, [r, c]);
};

export {tidy};

/** A float draw, converted where dtype asks for integers; other dtypes named and refused. */
function randomAs(op, dtype, allowed, convert, draw) {
  if (dtype === undefined || dtype === null || dtype === 'float32') return draw();
  if (!allowed.includes(dtype)) {
    throw new GlintError(`[${op}] dtype must be ${allowed.map((d) => `'${d}'`).join(' or ')}: got '${dtype}'`);
  }
  return tidy(() => convert(draw()));
}

function roundToInt32(x) {
  return ops.cast(ops.floor(ops.add(x, 0.5)), 'int32');
}
