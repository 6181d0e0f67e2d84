// string tensors, as TF.js has them: UTF-8 byte strings held in JS (TF.js
// keeps them on its CPU backend whatever the backend; the engine's kernels
// are numeric). Layout ops move the strings by running the engine's own op
// on the strings' indices (an int32 tensor of the same shape), so shapes,
// broadcasting and errors are exactly the numeric op's. tf.string's four
// ops are written here. Any other op given a string tensor fails naming
// itself (ops.js).
import {GlintError} from './core.js';
import {Tensor, asTensor, tensor, tidy, setStringTensorMaker, trackJsTensor} from './tensor.js';
import {ops, divertOp} from './ops.js';
import {encodeString, decodeString, toNestedArray} from './util_more.js';
import {fingerprint64} from './fingerprint64.js';

export class StringTensor extends Tensor {
  /** @internal Owns `bytes` (one Uint8Array per element, row-major) of shape `shape`. */
  constructor(bytes, shape) {
    super(null);
    this._bytes = bytes;
    this._shape = shape.slice();
    this._dtype = 'string';
    trackJsTensor(this);
  }

  _info() {
    this._assertLive();
  }
  dataSync() {
    this._assertLive();
    return this._bytes.map((b) => decodeString(b));
  }
  async data() {
    return this.dataSync();
  }
  arraySync() {
    return toNestedArray(this.shape, this.dataSync());
  }
  async array() {
    return this.arraySync();
  }
  /** The UTF-8 bytes of each element. */
  async bytes() {
    this._assertLive();
    return this._bytes.map((b) => b.slice());
  }
  dispose() {
    this.isDisposedInternal = true;
  }
  clone() {
    this._assertLive();
    return new StringTensor(this._bytes.slice(), this._shape);
  }
  toString() {
    if (this.isDisposedInternal) return 'Tensor (disposed)';
    return `Tensor string [${this._shape}] [${this.dataSync().map((s) => `'${s}'`).join(', ')}]`;
  }
}

export const isStringTensor = (x) => x instanceof StringTensor;

function leaves(values, out) {
  if (Array.isArray(values)) for (const v of values) leaves(v, out);
  else out.push(values);
  return out;
}

function shapeOf(values) {
  const shape = [];
  for (let v = values; Array.isArray(v); v = v[0]) {
    shape.push(v.length);
    if (!v.length) break;
  }
  return shape;
}

/** tensor(values, shape, 'string'): strings, or their bytes (Uint8Arrays), nested or flat. */
function makeStringTensor(values, shape) {
  const flat = typeof values === 'string' || values instanceof Uint8Array ? [values] : leaves(values, []);
  const bytes = flat.map((v) => {
    if (typeof v === 'string') return encodeString(v);
    if (v instanceof Uint8Array) return v.slice();
    throw new GlintError(`[tensor] a string tensor's values must be strings (or their bytes): found ${typeof v}`);
  });
  shape = shape ?? (typeof values === 'string' || values instanceof Uint8Array ? [] : shapeOf(values));
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== bytes.length) {
    throw new GlintError(`[tensor] ${bytes.length} values do not fill shape [${shape}] (${size} elements)`);
  }
  return new StringTensor(bytes, shape);
}
setStringTensorMaker(makeStringTensor);

function strings(x, op, arg) {
  const t = x instanceof Tensor ? x : makeStringTensor(x);
  t._assertLive();
  if (!isStringTensor(t)) throw new GlintError(`[${op}] ${arg} must be a string tensor: got ${t.dtype}`);
  return t;
}

// The elements' indices as an int32 tensor of x's shape, from offset on.
const indicesOf = (x, offset = 0) => ops.add(ops.reshape(ops.range(0, x.size, 1, 'int32'), x.shape), offset);

function gatherStrings(pool, idx) {
  const at = idx.dataSync();
  return new StringTensor(Array.from(at, (i) => pool[i]), idx.shape);
}

// ---- The ops that take strings ---------------------------------------------------------

const firstIsString = (args) => isStringTensor(args[0]);
const listHasString = (args) => Array.isArray(args[0]) && args[0].some(isStringTensor);

/** Gives the ops that take string tensors their string form (index.js calls it once `ops` is whole). */
export function installStringOps(ops) {
  for (const name of ['reshape', 'expandDims', 'squeeze', 'slice', 'stridedSlice', 'tile', 'gather', 'gatherND',
    'reverse', 'transpose', 'broadcastTo']) {
    divertOp(ops, name, firstIsString, (base, x, ...rest) => tidy(() => gatherStrings(x._bytes, base(indicesOf(x), ...rest))));
  }
  for (const name of ['unstack', 'split']) {
    divertOp(ops, name, firstIsString, (base, x, ...rest) => tidy(() => base(indicesOf(x), ...rest).map((i) =>
      gatherStrings(x._bytes, i))));
  }
  for (const name of ['concat', 'stack']) {
    divertOp(ops, name, listHasString, (base, xs, ...rest) => tidy(() => {
      const all = xs.map((x, i) => strings(x, name, `tensors[${i}]`));
      let offset = 0;
      const idx = all.map((x) => {
        const i = indicesOf(x, offset);
        offset += x.size;
        return i;
      });
      return gatherStrings(all.flatMap((x) => x._bytes), base(idx, ...rest));
    }));
  }
  divertOp(ops, 'where', (args) => isStringTensor(args[1]) || isStringTensor(args[2]), (base, c, a, b) => tidy(() => {
    const sa = strings(a, 'where', 'a'), sb = strings(b, 'where', 'b');
    return gatherStrings([...sa._bytes, ...sb._bytes], base(c, indicesOf(sa), indicesOf(sb, sa.size)));
  }));
  // Equality of the bytes, broadcast as the numeric op broadcasts.
  for (const [name, same] of [['equal', true], ['notEqual', false]]) {
    divertOp(ops, name, (args) => isStringTensor(args[0]) || isStringTensor(args[1]), (base, a, b) => tidy(() => {
      const sa = strings(a, name, 'a'), sb = strings(b, name, 'b');
      const ia = indicesOf(sa), ib = indicesOf(sb, sa.size);
      // Both index tensors broadcast to the output's shape: add zeros of the other's shape.
      const wa = ops.add(ia, ops.zerosLike(ib)), pa = wa.dataSync(), pb = ops.add(ib, ops.zerosLike(ia)).dataSync();
      const pool = [...sa._bytes, ...sb._bytes];
      const out = new Uint8Array(pa.length);
      for (let i = 0; i < pa.length; ++i) out[i] = bytesEqual(pool[pa[i]], pool[pb[i]]) === same ? 1 : 0;
      return tensor(out, wa.shape, 'bool');
    }));
  }
  divertOp(ops, 'fill', (args) => typeof args[1] === 'string', (base, shape, value) =>
    makeStringTensor(new Array(shape.reduce((a, b) => a * b, 1)).fill(value), shape));
}

function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return false;
  return true;
}

// ---- tf.string ------------------------------------------------------------------------------

const asBytes = (s) => (typeof s === 'string' ? encodeString(s) : s);

function indexOfByte(hay, byte, from) {
  for (let i = from; i < hay.length; ++i) if (hay[i] === byte) return i;
  return -1;
}

/**
 * Splits each element of a 1-D string tensor at every byte of delimiter (an
 * empty delimiter: at every byte), as a sparse result {indices, values, shape}.
 */
function stringSplit(input, delimiter, skipEmpty = true) {
  const x = strings(input, 'stringSplit', 'input');
  if (x.rank !== 1) throw new GlintError(`[stringSplit] input must be 1-D: got shape [${x.shape}]`);
  const d = isStringTensor(delimiter) ? delimiter : makeStringTensor(delimiter);
  if (d.rank !== 0) throw new GlintError(`[stringSplit] delimiter must be a scalar: got shape [${d.shape}]`);
  const delims = d._bytes[0];
  const tokens = [], where = [];
  let widest = 0;
  x._bytes.forEach((s, row) => {
    let count = 0;
    const take = (token) => {
      if (skipEmpty && token.length === 0) return;
      tokens.push(token);
      where.push(row, count++);
    };
    if (s.length > 0) {
      if (delims.length === 0) {
        for (let i = 0; i < s.length; ++i) take(s.subarray(i, i + 1));
      } else {
        let start = 0;
        for (let i = 0; i <= s.length; ++i) {
          if (i === s.length || indexOfByte(delims, s[i], 0) >= 0) {
            take(s.subarray(start, i));
            start = i + 1;
          }
        }
      }
    }
    widest = Math.max(widest, count);
  });
  return {
    indices: tensor(Int32Array.from(where), [tokens.length, 2], 'int32'),
    values: new StringTensor(tokens.map((t) => t.slice()), [tokens.length]),
    shape: tensor([x.shape[0], widest], [2], 'int32'),
  };
}

/**
 * The n-grams of each row of a ragged string tensor (data, with row starts
 * dataSplits), for each width, joined by separator; rows padded with
 * leftPad / rightPad (padWidth of them, or width - 1 when negative).
 */
function stringNGrams(data, dataSplits, separator, nGramWidths, leftPad, rightPad, padWidth, preserveShortSequences) {
  const x = strings(data, 'stringNGrams', 'data');
  if (x.rank !== 1) throw new GlintError(`[stringNGrams] data must be 1-D: got shape [${x.shape}]`);
  const splitsT = asTensor(dataSplits, 'stringNGrams', 'dataSplits', {dtype: 'int32'});
  if (splitsT.dtype !== 'int32' || splitsT.rank !== 1) {
    throw new GlintError(`[stringNGrams] dataSplits must be a 1-D int32 tensor: got ${splitsT.dtype} [${splitsT.shape}]`);
  }
  const splits = Array.from(splitsT.dataSync());
  if (splitsT !== dataSplits) splitsT.dispose();
  const n = x.size;
  splits.forEach((v, i) => {
    const lo = i === 0 ? 0 : splits[i - 1];
    if ((i === 0 && v !== 0) || v < lo || v > n || (i === splits.length - 1 && v !== n)) {
      throw new GlintError(`[stringNGrams] dataSplits must rise from 0 to the data's length ${n}: got [${splits}]`);
    }
  });
  if (!Array.isArray(nGramWidths) || nGramWidths.some((w) => !Number.isInteger(w) || w < 1)) {
    throw new GlintError(`[stringNGrams] nGramWidths must be positive integers: got ${JSON.stringify(nGramWidths)}`);
  }
  const sep = asBytes(separator), left = asBytes(leftPad), right = asBytes(rightPad);
  const padFor = (width) => Math.min(padWidth < 0 ? width - 1 : padWidth, width - 1);
  const join = (parts) => {
    const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0) + sep.length * Math.max(0, parts.length - 1));
    let at = 0;
    parts.forEach((p, i) => {
      if (i > 0) {
        out.set(sep, at);
        at += sep.length;
      }
      out.set(p, at);
      at += p.length;
    });
    return out;
  };
  // The n-grams of one row: windows of `width` over [pad x left] + row + [pad x right].
  const windows = (row, width, pad) => {
    const padded = [...new Array(pad).fill(left), ...row, ...new Array(pad).fill(right)];
    const out = [];
    for (let i = 0; i + width <= padded.length; ++i) out.push(join(padded.slice(i, i + width)));
    return out;
  };
  const grams = [], outSplits = [0];
  for (let r = 0; r + 1 < splits.length; ++r) {
    const row = x._bytes.slice(splits[r], splits[r + 1]);
    const before = grams.length;
    for (const width of nGramWidths) grams.push(...windows(row, width, padFor(width)));
    if (preserveShortSequences && row.length > 0 && grams.length === before) {
      const pad = Math.max(0, padWidth);
      grams.push(...windows(row, row.length + 2 * pad, pad));
    }
    outSplits.push(grams.length);
  }
  if (splits.length === 0) outSplits.length = 0;
  return {nGrams: new StringTensor(grams, [grams.length]), nGramsSplits: tensor(Int32Array.from(outSplits), [outSplits.length], 'int32')};
}

/** Each string's Fingerprint64 modulo numBuckets (int32, the input's shape). */
function stringToHashBucketFast(input, numBuckets) {
  const x = strings(input, 'stringToHashBucketFast', 'input');
  if (!Number.isInteger(numBuckets) || numBuckets < 1) {
    throw new GlintError(`[stringToHashBucketFast] numBuckets must be an integer >= 1: got ${numBuckets}`);
  }
  const buckets = BigInt(numBuckets);
  return tensor(Int32Array.from(x._bytes, (b) => Number(fingerprint64(b) % buckets)), x.shape, 'int32');
}

/** Each string with pattern (a JS regular expression) replaced by rewrite, everywhere or once. */
function staticRegexReplace(input, pattern, rewrite, replaceGlobal = true) {
  const x = strings(input, 'staticRegexReplace', 'input');
  let re;
  try {
    re = new RegExp(pattern, replaceGlobal ? 'g' : '');
  } catch (e) {
    throw new GlintError(`[staticRegexReplace] pattern ${JSON.stringify(pattern)} is not a regular expression: ${e.message}`);
  }
  return new StringTensor(x._bytes.map((b) => encodeString(decodeString(b).replace(re, rewrite))), x.shape);
}

/** tf.string. */
export const string = {stringSplit, stringNGrams, stringToHashBucketFast, staticRegexReplace};

