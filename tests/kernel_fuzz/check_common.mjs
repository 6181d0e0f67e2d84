// What check_tfjs.mjs shares: the fuzzer's comparison rule, the decoding of
// the emitted floats, and the intended differences between TF.js and
// reference (docs/TESTING.md's table), each narrow: one semantic of one op.

/// differential.cpp's close(): NaN only matches NaN, an infinity only itself.
export function close(got, want, rtol, atol) {
  if (Number.isNaN(got) || Number.isNaN(want)) return Number.isNaN(got) && Number.isNaN(want);
  if (!Number.isFinite(got) || !Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= atol + rtol * Math.max(Math.abs(got), Math.abs(want));
}

/// emit.h writes non-finite floats as strings.
export const decode = (v) => (typeof v === 'string' ? Number(v) : v);

const op = (c) => c.spec.op;
const isGrad = (what) => what.startsWith('gradient');
const batchOf = (s) => s.slice(0, -2).join(',');
const anyValue = (c, input, test) => c.inputs[input].values.some((v) => test(decode(v)));
const message = (e) => String(e && e.message);
const shrinksStrided = (c) => c.spec.attrs.shrinkAxisMask !== 0 && c.spec.attrs.strides.some((s) => s !== 1);

/// Where TF.js 4.22's cpu backend differs from reference by design or by its
/// own bug, each narrow: one semantic of one op. Each has name and why (the
/// table in docs/TESTING.md) and applies(call, what, element, got, want) for
/// an element that differs, or refuses(call, error) for a call or gradient
/// TF.js will not compute. TF.js does not judge these calls: check_tfjs.mjs
/// hands them to check_torch.py (--defer), which compares them with PyTorch.
export const intendedTfjs = [
  { name: 'maxPool and NaN',
    why: "TF.js's cpu maxPool skips NaN; reference (every Glint backend) takes the first maximal tap by v > best, so NaN wins only as a window's first tap (torch propagates any NaN: check_torch.py's table)",
    applies: (c, what, i, got, want) => op(c) === 'maxPool' && !isGrad(what) && Number.isNaN(want) },
  { name: "avgPool gradient on 'same' padding",
    why: "TF.js's cpu avgPool gradient divides by the whole window where 'same' padding cuts it; its forward (and reference's) divides by the taps inside, so TF.js's gradient is not its forward's",
    applies: (c, what) => op(c) === 'avgPool' && isGrad(what) && c.spec.attrs.pad === 'same' },
  { name: 'matMul broadcast over batch dims',
    why: "TF.js's cpu batchMatMul flattens the batch dims before broadcasting (wrong where a and b broadcast different dims) and does not sum its gradients over broadcast batch dims",
    applies: (c) => op(c) === 'matMul' && batchOf(c.inputs[0].shape) !== batchOf(c.inputs[1].shape),
    refuses: (c) => op(c) === 'matMul' && batchOf(c.inputs[0].shape) !== batchOf(c.inputs[1].shape) },
  { name: 'no gradient of a dilated convolution',
    why: 'TF.js has no conv2d or depthwiseConv2d gradient for dilations > 1',
    refuses: (c, e) => (op(c) === 'conv2d' || op(c) === 'depthwiseConv2d') &&
                       c.spec.attrs.dilations.some((d) => d > 1) && /dilation/.test(message(e)) },
  { name: 'maximum/minimum/squaredDifference gradient under broadcasting',
    why: "TF.js's Maximum, Minimum and SquaredDifference gradients are not summed over broadcast dims",
    refuses: (c, e) => ['maximum', 'minimum', 'squaredDifference'].includes(op(c)) &&
                       /does not match the shape of the input/.test(message(e)) },
  { name: 'no stridedSlice gradient',
    why: 'TF.js registers no StridedSlice gradient',
    refuses: (c, e) => op(c) === 'stridedSlice' && /gradient function not found for StridedSlice/.test(message(e)) },
  { name: 'no tile gradient past rank 4',
    why: "TF.js's Tile gradient stops at rank 4",
    refuses: (c, e) => op(c) === 'tile' && /not implemented for rank-/.test(message(e)) },
  { name: 'prod gradient over negative axes',
    why: "TF.js's Prod gradient builds a transpose from the negative axis as given and throws",
    refuses: (c, e) => op(c) === 'prod' && c.spec.attrs.axis?.some((a) => a < 0) && /transpose/.test(message(e)) },
  { name: 'unstack gradient of one piece',
    why: "TF.js's Unpack gradient fails when the axis has size 1",
    refuses: (c, e) => op(c) === 'unstack' && /passed to stack/.test(message(e)) },
  { name: 'sign(NaN)',
    why: 'TF.js: sign(NaN) = 0; reference, TensorFlow and torch: NaN',
    applies: (c, what, i, got, want) => op(c) === 'sign' && !isGrad(what) && Number.isNaN(want) && got === 0 },
  { name: 'abs gradient at 0',
    why: "TF.js's abs gradient at x = 0 is -dy (step(x, -1)); reference's is 0 (sign(0), as TensorFlow and torch)",
    applies: (c, what, i, got, want) => op(c) === 'abs' && isGrad(what) && want === 0 &&
                                         decode(c.inputs[0].values[i]) === 0 },
  { name: 'acosh gradient at -1',
    why: "outside acosh's domain (forward NaN) the gradient's infinity takes the sign of a zero: reference's dy / sqrt((x - 1)(x + 1)) divides by -0 at x = -1, TF.js's dy / sqrt(x^2 - 1) by +0",
    applies: (c, what, i, got, want) => op(c) === 'acosh' && isGrad(what) && decode(c.inputs[0].values[i]) === -1 &&
                                         Math.abs(got) === Infinity && Math.abs(want) === Infinity },
  { name: 'logSumExp over +Inf',
    why: 'TF.js computes max + log(sum(exp(x - max))): Inf - Inf = NaN where a reduced row holds +Inf; reference gives +Inf (torch.logsumexp too)',
    applies: (c, what, i, got, want) => op(c) === 'logSumExp' && !isGrad(what) && Number.isNaN(got) &&
                                         anyValue(c, 0, (v) => v === Infinity) },
  { name: 'logSoftmax of a row holding +Inf',
    why: "TF.js (and torch) compute x - max first: NaN for a whole row holding +Inf; reference computes x - logSumExp(row): -Inf for the finite entries (their limit), NaN for the +Inf one",
    applies: (c, what, i, got, want) => op(c) === 'logSoftmax' && !isGrad(what) && Number.isNaN(got) &&
                                         want === -Infinity && anyValue(c, 0, (v) => v === Infinity) },
  { name: 'mod with a special operand',
    why: "TF.js's mod is ((a % b) + b) % b: NaN or 0 where b is infinite or a large; reference's is fmod corrected to b's sign (TensorFlow's FloorMod, torch.remainder, Python's %)",
    applies: (c, what) => op(c) === 'mod' && !isGrad(what) && c.tags.includes('specials') },
  { name: 'floorDiv of float32 is int32',
    why: "TF.js's cpu FloorDiv returns int32 whatever its inputs; reference keeps float32 (as TensorFlow)",
    dtype: (c, got) => op(c) === 'floorDiv' && got === 'int32' && c.output.dtype === 'float32' },
  { name: 'stridedSlice shrinking with strides',
    why: "TF.js's stridedSlice reads the wrong elements (or past its buffer) where shrinkAxisMask is set and a stride is not 1 (x [7,18], begin [1,0], end [4,3], strides [1,3], shrink axis 0: [1] for [18])",
    applies: (c) => op(c) === 'stridedSlice' && shrinksStrided(c),
    refuses: (c) => op(c) === 'stridedSlice' && shrinksStrided(c) },
];
