// How the op table (tests/web/op_table.test.mjs) draws arguments from a seeded
// generator. An argument is plain data (numbers, arrays, strings: passed as
// they are), a T (a tensor, built by the module under test) or a Raw (a
// tensor's values passed as a number, a nested array or a typed array, as
// TF.js programs do). Both modules get the same draw.
import {values, int, size} from './shared_cases.mjs';

/** A tensor argument: built with m.tensor(v, shape, dtype). */
export class T {
  constructor(v, shape, dtype) {
    Object.assign(this, {v, shape, dtype});
  }
}

/** A tensor's values passed without a tensor: 'number', 'nested' or 'typed'. */
export class Raw {
  constructor(form, v, shape, dtype) {
    Object.assign(this, {form, v, shape, dtype});
  }
  value() {
    if (this.form === 'number') return this.v[0];
    if (this.form === 'typed') return this.dtype === 'int32' ? Int32Array.from(this.v) : Float32Array.from(this.v);
    return nest(this.v, this.shape);
  }
}

export function nest(v, shape) {
  if (shape.length === 0) return v[0];
  const step = size(shape.slice(1));
  return Array.from({length: shape[0]}, (_, i) => nest(v.slice(i * step, (i + 1) * step), shape.slice(1)));
}

export const pick = (r, list) => list[Math.floor(r() * list.length)];
export const chance = (r, p) => r() < p;

/** A random shape: rank in [min, max], dims mostly 2..4, some 1, some 0 (zero). */
export function shapeOf(r, {min = 0, max = 4, zero = true, lo = 1, hi = 4} = {}) {
  return Array.from({length: int(r, min, max)}, () => {
    const u = r();
    return zero && u < 0.06 ? 0 : u < 0.25 ? lo : int(r, Math.max(lo, 2), hi);
  });
}

/** Random values of a dtype: bool 0/1, int32 integers in [lo, hi], float32 uniforms. */
export function draw(r, n, dtype, lo, hi) {
  if (dtype === 'bool') return Array.from({length: n}, () => (chance(r, 0.5) ? 1 : 0));
  if (dtype === 'int32') return Array.from({length: n}, () => int(r, Math.ceil(lo), Math.floor(hi)));
  return values(r, n, lo, hi);
}

export const tensorOnly = (r, shape, dtype = 'float32', lo = -3, hi = 3) => new T(draw(r, size(shape), dtype, lo, hi), shape, dtype);

/**
 * A tensor argument of the drawn values; one time in ten (int32 and float32, not
 * empty: a nested array cannot say [0, 3]) a nested array of them instead.
 */
export const t = (r, shape, dtype = 'float32', lo = -3, hi = 3) => {
  const x = tensorOnly(r, shape, dtype, lo, hi);
  return dtype !== 'bool' && x.v.length && chance(r, 0.1) ? new Raw('nested', x.v, shape, dtype) : x;
};

/** A tensor argument, one time in six given as a number, a nested array or a typed array instead (not when empty). */
export function operand(r, shape, dtype, lo = -3, hi = 3) {
  const x = tensorOnly(r, shape, dtype, lo, hi);
  if (dtype === 'bool' || (!x.v.length && shape.length > 1) || !chance(r, 1 / 6)) return x;
  const form = shape.length === 0 ? pick(r, ['number', 'nested']) : pick(r, ['nested', 'typed']);
  // A typed array carries no shape: only rank 1 keeps it.
  if (form === 'typed' && shape.length !== 1) return new Raw('nested', x.v, shape, dtype);
  return new Raw(form, x.v, shape, dtype);
}

/** Two shapes that broadcast (trailing dims equal or 1), one time in twelve two that do not. */
export function broadcastPair(r) {
  const a = shapeOf(r);
  const b = a.slice(int(r, 0, a.length)).map((d) => (chance(r, 0.3) ? 1 : d));
  if (b.length && chance(r, 1 / 12)) b[int(r, 0, b.length - 1)] = 5;
  return chance(r, 0.5) ? [a, b] : [b, a];
}

/** An axis of a rank (negative half the time), or null for all; for rank 0, null or 0. */
export function axisOf(r, rank, {allowNull = true, list = true} = {}) {
  if (rank === 0) return allowNull && chance(r, 0.5) ? null : 0;
  if (allowNull && chance(r, 0.2)) return null;
  if (list && chance(r, 0.25)) {
    const axes = [...Array(rank).keys()].filter(() => chance(r, 0.5));
    return axes.map((a) => (chance(r, 0.3) ? a - rank : a));
  }
  const a = int(r, 0, rank - 1);
  return chance(r, 0.4) ? a - rank : a;
}

export const DTYPES = ['float32', 'int32'];
export const ANY = [...DTYPES, 'bool'];
/** One draw in ten a bad argument (out of range, mismatched), where TF.js throws and glint-ml must too. */
export const bad = (r) => chance(r, 0.1);
