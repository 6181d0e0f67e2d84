// The draws of the op table (op_table.test.mjs) that are not compared, each
// with why: op -> [[when(args, form), reason]] (form '' or 'x.' for the method).
// A reason is 'TF.js bug: ...' with a one-line proof, 'TF.js limitation: ...'
// (TF.js refuses what glint-ml computes), or 'engine: ...' (what the C++ op does).
import {T, Raw} from './op_table_draw.mjs';

const numericPadNonSquare = (k) => (a) => typeof a[3] === 'number' && typeof a[k] !== 'number' &&
    (Array.isArray(a[k]) ? a[k][0] !== a[k][1] : a[k].shape[0] !== a[k].shape[1]);
const NUMERIC_PAD = 'TF.js bug: a numeric pad sizes the output width by the window\'s height ' +
    '(tf.conv2d(tf.ones([1, 6, 4, 2]), tf.ones([3, 2, 2, 1]), 1, 1).shape is [1, 6, 4, 1]; the explicit pad gives [1, 6, 5, 1])';
const NEGATIVE_SCAN_AXIS = 'TF.js bug: a negative axis gives a malformed shape (tf.cumsum(tf.tensor([1, 2, 3]), -1).shape is [undefined])';
const NOT_LAST = 'TF.js limitation: softmax along a non-last axis throws \'not yet supported\'; glint-ml computes it';
const int32 = (...at) => (a) => at.some((i) => a[i] instanceof T && a[i].dtype === 'int32');
const BOOL_ARITHMETIC = 'TF.js bug: arithmetic on two bool tensors returns bool holding 2 or 255 ' +
    '(tf.sub(tf.tensor([false]), tf.tensor([true])) with both bool gives bool [255]); glint-ml computes int32';
const bothBool = (a) => [a[0], a[1]].every((x) => (x instanceof T || x instanceof Raw) && x.dtype === 'bool');
const WINDOW_TOO_BIG = 'engine: a filter larger than the input with \'valid\' padding is refused, saying so ' +
    '([conv2d] filter float32 [1,3,3,2] does not fit in x float32 [1,3,2,3] with valid padding ...); TF.js returns ' +
    'an empty tensor (the pools return it, as TF.js)';
/** Whether a window [fh, fw] is larger than the (padded: a[3]) image of a[0]. */
const larger = (a, fh, fw) => {
  if (a[3] === 'same') return false;
  const [h, w] = a[0].shape.slice(-3, -1);
  const [ph, pw] = typeof a[3] === 'number' ? [2 * a[3], 2 * a[3]] :
      Array.isArray(a[3]) ? [a[3][1][0] + a[3][1][1], a[3][2][0] + a[3][2][1]] : [0, 0];
  return fh > h + ph || fw > w + pw;
};
const EMPTY = (what) => `TF.js bug: ${what} over an empty axis is NaN (float32) or 0 (int32) where TensorFlow ` +
    'gives the identity, as glint-ml (tf.max(tf.zeros([2, 0]), 1) is [NaN, NaN], not [-Infinity, -Infinity])';
const empty = (a) => a[0] instanceof T && a[0].shape.includes(0);
const convTooBig = (a) => larger(a, ...a[1].shape.slice(0, 2).map((k) => (k - 1) * (a[5] ?? 1) + 1));
export const KNOWN = {
  batchToSpaceND: [[(a) => a[2].some(([lo, hi], i) => lo + hi > a[1][i] * a[0].shape[i + 1]), 'TF.js bug: crops ' +
    'larger than the dimension give a made-up shape (tf.batchToSpaceND(tf.ones([6, 1, 2, 2]), [3, 2], [[2, 2], [1, 0]]) ' +
    'is [1, 1, 3, 2]: 3 rows cropped by 4); glint-ml refuses them by name']],
  variable: [[(a) => a[0] instanceof Raw, 'TF.js limitation: variable() takes a Tensor only ' +
    '(tf.variable([1, 2]) throws \'Cannot read properties of undefined\'); glint-ml takes arrays too']],
  concat: [[(a) => new Set(a[0].map((x) => (x instanceof Raw ? 'float32' : x.dtype))).size > 1, 'TF.js bug: concat of ' +
    'mixed dtypes takes the first one\'s (tf.concat([tf.tensor([1, 2], [2], \'int32\'), tf.tensor([1.5])]) is int32 ' +
    '[1, 2, 1]); glint-ml refuses them by name']],
  ensureShape: [[(a) => a[0] instanceof Raw, 'TF.js bug: given an array, ensureShape returns the array, not a tensor ' +
    '(tf.ensureShape([1, 2], [2]).dataSync is undefined)']],
  logSigmoid: [[(a) => a[0].dtype === 'bool', 'TF.js bug: logSigmoid of bool goes through bool intermediates ' +
    '(tf.logSigmoid(tf.tensor(true)).dataSync() is [1]; log(sigmoid(1)) is -0.31, stored as 0)']],
  where: [[(a) => a.some((x) => x.shape.includes(0)) && new Set(a.map((x) => String(x.shape))).size > 1,
    'TF.js bug: broadcasting a zero-size operand gives a 1 for its dimension (tf.where(tf.zeros([0, 2], \'bool\'), ' +
    'tf.ones([2]), tf.ones([0, 2])).shape is [1, 2])']],
  euclideanNorm: [[(a) => Array.isArray(a[1]) && !a[1].length && a[0].shape.length > 1, 'TF.js bug: axis [] is no ' +
    'reduction on a vector and throws \'invalid axis\' on a matrix (tf.euclideanNorm(tf.ones([1, 3]), [])); ' +
    'glint-ml reduces nothing for both'], [(a) => a[0].shape.length === 0 && a[1] != null, 'TF.js bug: a scalar with an axis gives |x| ' +
    'without keepDims and throws with it (tf.euclideanNorm(tf.scalar(3), 0) is 3)']],
  max: [[empty, EMPTY('max')]],
  min: [[empty, EMPTY('min')]],
  mean: [[empty, 'TF.js bug: the mean of no elements is 0, not NaN (tf.mean(tf.zeros([0])) is 0)']],
  moments: [[empty, 'TF.js bug: the mean of no elements is 0, not NaN (tf.mean(tf.zeros([0])) is 0)']],
  all: [[empty, 'TF.js bug: all() of no elements is false, not true (tf.all(tf.zeros([0], \'bool\')) is 0)']],
  norm: [[(a) => empty(a) && typeof a[1] === 'number', EMPTY('a max/min norm')],
    [(a) => Array.isArray(a[2]) && a[2].length === 2 && a[2].some((v) => v < 0) && [1, Infinity, -Infinity].includes(a[1]),
      'TF.js bug: ord 1 and ±Infinity matrix norms shift a negative axis out of range (tf.norm(x [2, 3], 1, [0, -1]) ' +
      'throws \'got axis -2\')']],
  stridedSlice: [[(a) => a[1].some((b, i) => {
    // An axis sliced to nothing without masks: TF.js's reshape of the empty result throws.
    if (((a[4] | a[5]) >> i) & 1) return false;
    const d = a[0].shape[i], at = (v) => (v < 0 ? v + d : v);
    return a[3][i] > 0 ? at(a[2][i]) <= at(b) : at(a[2][i]) >= at(b);
  }), 'TF.js bug: some empty slices throw (tf.stridedSlice(x [2, 4, 1], [1, 0, -1], [0, 2, 0], [1, 1, 1], 4, 4): ' +
    '\'Size(2) must match the product of shape 0,2,1\')'],[(a) => (a[8] & 1) && ((a[4] | a[5]) & 1 || a[3][0] !== 1), 'TF.js bug: shrinking an axis with a mask ' +
    'or a stride throws ' +
    '(tf.stridedSlice(tf.tensor([5]), [0], [0], [2], 1, 0, 0, 0, 1): \'The number of provided coordinates (1) must match ' +
    'the rank (0)\'; [0], [1], [1] without the mask gives 5)']],
  oneHot: [[(a, form) => form === 'x.' && a.length > 4, 'TF.js bug: the method form drops dtype ' +
    '(tf.tensor([1], [1], \'int32\').oneHot(3, 1, 0, \'float32\').dtype is int32)'],
  [(a) => a[1] < 2, 'TF.js limitation: depth 1 throws \'depth must be >=2\'; glint-ml gives the one column']],
  pool: [[(a) => a[3] === 'same' && a[4].some((d) => d > 1), 'TF.js bug: dilated \'same\' windows see zero padding ' +
    '(tf.pool(x [1, 3, 3, 1] of -1..-9, [2, 2], \'max\', \'same\', [2, 1]) has 0s); glint-ml refuses that combination by name']],
  ...Object.fromEntries(['add', 'sub', 'mul', 'div', 'divNoNan', 'mod', 'pow', 'squaredDifference', 'atan2']
    .map((op) => [op, [[bothBool, BOOL_ARITHMETIC]]])),
  logSumExp: [[(a) => a[0].shape.includes(0), 'TF.js bug: logSumExp over an empty axis is NaN, not -Infinity ' +
    '(tf.logSumExp(tf.zeros([0, 2]), 0) gives [NaN, NaN])']],
  cumsum: [[(a) => a[1] < 0, NEGATIVE_SCAN_AXIS]],
  cumprod: [[(a) => a[1] < 0, NEGATIVE_SCAN_AXIS]],
  softmax: [[(a) => a.length > 1 && a[1] !== -1 && a[1] !== a[0].shape.length - 1, NOT_LAST]],
  logSoftmax: [[(a) => a.length > 1 && a[1] !== -1 && a[1] !== a[0].shape.length - 1, NOT_LAST]],
  depthToSpace: [[int32(0), 'TF.js limitation: depthToSpace refuses int32; glint-ml moves int32 values exactly']],
  pad: [[(a) => a[1].flat().some((p) => p < 0), 'TF.js bug: negative paddings crop (tf.pad(tf.tensor([[1, 2, 3]]), ' +
    '[[0, 0], [-1, 1]]) gives [[2, 3, 0]]); TensorFlow refuses them, as glint-ml does'],
  [(a) => a[0].dtype === 'bool' && a[2] !== undefined && a[2] !== 0 && a[2] !== 1, 'TF.js bug: a bool tensor padded ' +
    'with constantValue 2 holds 2 (tf.pad(tf.tensor([true]), [[1, 0]], 2).dataSync() is [2, 1]); glint-ml pads with true']],
  range: [[(a) => a.length === 1, 'TF.js bug: range(n) without stop is empty or wrong (tf.range(-1).shape is [0]; ' +
    'its stop is required)'],
  [(a) => (a[1] - a[0]) * a[2] < 0, 'TF.js bug: a step pointing away from stop counts up anyway (tf.range(1, -1, 0.5) ' +
    'is [1, 1.5, 2, 2.5]; glint-ml gives the empty range, as TensorFlow)'],
  [(a) => a[3] === 'int32' && !Number.isInteger(a[2]), 'TF.js bug: an int32 range accumulates a fractional step in ' +
    'int32 (tf.range(-2, 2, 0.5, \'int32\') is [-2, -1, 0, 0, 0, 0, 0, 0]; glint-ml truncates start + i * step)']],
  conv2d: [[numericPadNonSquare(1), NUMERIC_PAD], [convTooBig, WINDOW_TOO_BIG]],
  depthwiseConv2d: [[numericPadNonSquare(1), NUMERIC_PAD], [convTooBig, WINDOW_TOO_BIG]],
  maxPool: [[numericPadNonSquare(1), NUMERIC_PAD]],
  avgPool: [[numericPadNonSquare(1), NUMERIC_PAD]],
  unsortedSegmentSum: [[int32(0), 'TF.js bug: an int32 x gives float32 (tf.unsortedSegmentSum(tf.tensor([[1, 2]], [1, 2], ' +
    '\'int32\'), tf.tensor([0], [1], \'int32\'), 1).dtype is float32)']],
  denseBincount: [[(a) => a[0].shape.length === 1 && a[3], 'TF.js bug: a rank-1 x ignores binaryOutput ' +
    '(tf.denseBincount(tf.tensor1d([1, 1, 2], \'int32\'), tf.tensor1d([0.5, 0.7, 2]), 3, true) gives [0, 1.2, 2])']],
};

// Draws where TF.js's gradient is wrong: central differences of its forward pass are the reference instead.
const AVG_GRADIENT = 'TF.js bug: AvgPool\'s gradient divides by the whole window where its forward pass divides by ' +
    'the pixels inside the image (avgPool(x [1, 5, 4, 2], 2, 1, \'same\'): 1.97 off central differences; glint-ml 0.0000)';
export const WRONG_TFJS_GRADIENT = {
  avgPool: [[(a) => a[3] !== 'valid', AVG_GRADIENT]],
  avgPool3d: [[(a) => a[3] !== 'valid', AVG_GRADIENT]],
  cumsum: [[(a) => ((a[1] ?? 0) + a[0].shape.length) % a[0].shape.length !== a[0].shape.length - 1, 'TF.js bug: ' +
    'Cumsum\'s gradient along an inner axis is wrong or throws (cumsum(x [4, 2, 2], 1): 1.08 off central differences, glint-ml 0.0000; ' +
    'axis 0: \'The gradient of input x has shape 2,2,4\')']],
  mirrorPad: [[() => true, 'TF.js bug: MirrorPad\'s gradient drops the mirrored parts (symmetric [[2, 0], [2, 0], ' +
    '[4, 0]] on [2, 4, 4]: 12.0 off central differences of its own forward pass; glint-ml 0.0003)']],
  resizeBilinear: [[(a) => a[3] === true, 'TF.js bug: ResizeBilinear\'s gradient ignores halfPixelCenters ' +
    '([2, 3, 3, 2] to [5, 5]: 1.55 off central differences; glint-ml 0.0001)']],
  pool: [[(a) => a[2] === 'avg' && a[3] === 'same', AVG_GRADIENT]],
};

