// complex64 tensors, as TF.js has them: a pair of float32 engine tensors (the
// real and imaginary parts) behind one Tensor. The engine's kernels stay
// real; the ops that take complex64 here act on the parts with those kernels,
// so they run on every backend and record on the tape (gradients of a real
// result flow through them, where TF.js has none for real/imag/fft).
//
// The ops TF.js 4.22 takes complex64 in (add, sub, mul, abs, reshape,
// transpose, expandDims, squeeze, concat, stack, cast, clone, zerosLike,
// onesLike, complex, real, imag and the FFTs: ops_fft.js) plus those that are exact on
// the parts (neg, div, slice, unstack, split, reverse, gather, tile, sum).
// Any other op given a complex64 tensor fails naming itself (runOp).
import {GlintError} from './core.js';
import {Tensor, asTensor, adopt, tidy, dispose, trackJsTensor} from './tensor.js';
import {ops, divertOp} from './ops.js';
import {toNestedArray} from './util_more.js';

export class ComplexTensor extends Tensor {
  /** @internal Takes ownership of two float32 tensors of one shape. */
  constructor(re, im) {
    super(null);
    adopt(re);
    adopt(im);
    this._parts = [re, im];
    trackJsTensor(this);
  }

  _info() {
    if (this._shape) return;
    this._assertLive();
    this._shape = this._parts[0].shape;
    this._dtype = 'complex64';
  }

  /** Real and imaginary parts interleaved, as TF.js returns them. */
  dataSync() {
    this._assertLive();
    return interleave(this._parts[0].dataSync(), this._parts[1].dataSync());
  }
  async data() {
    this._assertLive();
    const [re, im] = await Promise.all(this._parts.map((p) => p.data()));
    return interleave(re, im);
  }
  arraySync() {
    return toNestedArray(this.shape, Array.from(this.dataSync()), true);
  }
  async array() {
    return toNestedArray(this.shape, Array.from(await this.data()), true);
  }

  dispose() {
    if (this.isDisposedInternal) return;
    this.isDisposedInternal = true;
    dispose(this._parts);
  }
  clone() {
    this._assertLive();
    return new ComplexTensor(this._parts[0].clone(), this._parts[1].clone());
  }
  toString() {
    if (this.isDisposedInternal) return 'Tensor (disposed)';
    const v = this.dataSync(), items = [];
    for (let i = 0; i < v.length; i += 2) items.push(`${v[i]} + ${v[i + 1]}j`);
    return `Tensor complex64 [${this.shape}] [${items.join(', ')}]`;
  }
}

function interleave(re, im) {
  const out = new Float32Array(2 * re.length);
  for (let i = 0; i < re.length; ++i) {
    out[2 * i] = re[i];
    out[2 * i + 1] = im[i];
  }
  return out;
}

export const isComplex = (x) => x instanceof ComplexTensor;

function floatPart(x, op, arg) {
  const t = asTensor(x, op, arg);
  if (isComplex(t)) throw new GlintError(`[${op}] ${arg} must be real: got complex64`);
  return t.dtype === 'float32' ? t.clone() : ops.cast(t, 'float32');
}

/** complex(real, imag): a complex64 tensor from two real ones of one shape. */
export function complex(real, imag) {
  return tidy(() => {
    const re = floatPart(real, 'complex', 'real'), im = floatPart(imag, 'complex', 'imag');
    if (re.shape.join() !== im.shape.join()) {
      throw new GlintError(`[complex] real and imag must have one shape: got [${re.shape}] and [${im.shape}]`);
    }
    return new ComplexTensor(re, im);
  });
}

/** The real part (a real tensor: itself, as float32). */
export function real(input) {
  const x = asTensor(input, 'real', 'input');
  return isComplex(x) ? x._parts[0].clone() : floatPart(x, 'real', 'input');
}

/** The imaginary part (a real tensor: zeros). */
export function imag(input) {
  const x = asTensor(input, 'imag', 'input');
  return isComplex(x) ? x._parts[1].clone() : tidy(() => ops.zerosLike(floatPart(x, 'imag', 'input')));
}

/** @internal The parts of x as float32 (a real x gets zeros for its imaginary part). */
export function parts(x, op, arg) {
  const t = asTensor(x, op, arg);
  if (isComplex(t)) return t._parts;
  const re = t.dtype === 'float32' ? t : ops.cast(t, 'float32');
  return [re, ops.zerosLike(re)];
}

/** @internal A complex result from parts made inside a tidy. */
export const fromParts = (re, im) => new ComplexTensor(re, im);

// ---- The ops that take complex64 ---------------------------------------------------

const anyComplex = (xs) => xs.some(isComplex);
const firstIsComplex = (args) => isComplex(args[0]);
const complexPair = (args) => isComplex(args[0]) || isComplex(args[1]);

/**
 * Gives the ops that take complex64 their complex form (index.js calls it
 * once `ops` holds every op, the JS-composed ones too).
 */
export function installComplexOps(ops) {
  // The same op on each part, with the same other arguments.
  for (const name of ['reshape', 'transpose', 'expandDims', 'squeeze', 'slice', 'reverse', 'gather', 'tile',
    'sum', 'neg']) {
    divertOp(ops, name, firstIsComplex, (base, x, ...rest) => tidy(() => {
      const [re, im] = x._parts;
      return fromParts(base(re, ...rest), base(im, ...rest));
    }));
  }
  for (const name of ['unstack', 'split']) {
    divertOp(ops, name, firstIsComplex, (base, x, ...rest) => tidy(() => {
      const [re, im] = x._parts;
      const res = base(re, ...rest), ims = base(im, ...rest);
      return res.map((r, i) => fromParts(r, ims[i]));
    }));
  }
  for (const name of ['concat', 'stack']) {
    divertOp(ops, name, (args) => Array.isArray(args[0]) && anyComplex(args[0]), (base, xs, ...rest) => tidy(() => {
      const ps = xs.map((x, i) => parts(x, name, `tensors[${i}]`));
      return fromParts(base(ps.map((p) => p[0]), ...rest), base(ps.map((p) => p[1]), ...rest));
    }));
  }
  divertOp(ops, 'zerosLike', firstIsComplex, (base, x) => tidy(() => fromParts(base(x._parts[0]), base(x._parts[1]))));
  divertOp(ops, 'onesLike', firstIsComplex, (base, x) => tidy(() => fromParts(base(x._parts[0]),
      ops.zerosLike(x._parts[1]))));
  // |a + bi|, as float32.
  divertOp(ops, 'abs', firstIsComplex, (base, x) => tidy(() => {
    const [re, im] = x._parts;
    return ops.sqrt(ops.add(ops.square(re), ops.square(im)));
  }));
  // To complex64: the value as the real part. From complex64: the real part, as TF.js casts.
  divertOp(ops, 'cast', (args) => isComplex(args[0]) || args[1] === 'complex64', (base, x, dtype) => tidy(() => {
    if (dtype === 'complex64') return isComplex(x) ? x.clone() : complex(x, ops.zerosLike(asTensor(x, 'cast', 'x')));
    return base(x._parts[0], dtype);
  }));
  for (const name of ['add', 'sub']) {
    divertOp(ops, name, complexPair, (base, a, b) => tidy(() => {
      const [ar, ai] = parts(a, name, 'a'), [br, bi] = parts(b, name, 'b');
      return fromParts(base(ar, br), base(ai, bi));
    }));
  }
  divertOp(ops, 'mul', complexPair, (base, a, b) => tidy(() => fromParts(...multiply(parts(a, 'mul', 'a'),
      parts(b, 'mul', 'b')))));
  divertOp(ops, 'div', complexPair, (base, a, b) => tidy(() => {
    // (a / b) = a * conj(b) / |b|^2
    const [ar, ai] = parts(a, 'div', 'a'), [br, bi] = parts(b, 'div', 'b');
    const norm = ops.add(ops.square(br), ops.square(bi));
    const [re, im] = multiply([ar, ai], [br, ops.neg(bi)]);
    return fromParts(ops.div(re, norm), ops.div(im, norm));
  }));
}

/** @internal (ar + i ai)(br + i bi) as [re, im]. */
export function multiply([ar, ai], [br, bi]) {
  return [ops.sub(ops.mul(ar, br), ops.mul(ai, bi)), ops.add(ops.mul(ar, bi), ops.mul(ai, br))];
}
