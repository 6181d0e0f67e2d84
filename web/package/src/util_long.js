// tf.util.fingerPrint64 and tf.util.hexToLong, which TF.js returns as Long
// values (long.js, TF.js's 64-bit integer type). The hash is Farmhash's
// Fingerprint64 (fingerprint64.js, also behind string.stringToHashBucketFast).
//
// Long here is glint-ml's own, on BigInt: glint-ml has no bare imports, so
// that a page loads it without a bundler or an import map (the apps and the
// test pages do), and long.js is a bare import. It has long.js's fields
// (low, high, unsigned) and the methods programs use on these values.
import {GlintError} from './core.js';
import {fingerprint64} from './fingerprint64.js';

const wrap = (v, unsigned) => (unsigned ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v));

export class Long {
  /** low, high: the 32-bit halves (signed ints, as long.js keeps them). */
  constructor(low, high, unsigned = false) {
    this.low = low | 0;
    this.high = high | 0;
    this.unsigned = !!unsigned;
  }
  static fromBigInt(v, unsigned = false) {
    const u = BigInt.asUintN(64, v);
    return new Long(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0, unsigned);
  }
  static fromBits(low, high, unsigned) { return new Long(low, high, unsigned); }
  static fromNumber(n, unsigned) { return Long.fromBigInt(BigInt(Math.trunc(n)), unsigned); }
  static fromString(s, unsigned = false, radix = 10) {
    if (typeof unsigned === 'number') [radix, unsigned] = [unsigned, false];
    const str = String(s).toLowerCase(), neg = str.startsWith('-');
    const digits = neg ? str.slice(1) : str;
    if (!/^[0-9a-z]+$/.test(digits)) throw new GlintError(`[Long.fromString] not a number: '${s}'`);
    let v = 0n;
    for (const c of digits) {
      const d = parseInt(c, radix);
      if (Number.isNaN(d)) throw new GlintError(`[Long.fromString] '${s}' is not in radix ${radix}`);
      v = v * BigInt(radix) + BigInt(d);
    }
    return Long.fromBigInt(neg ? -v : v, unsigned);
  }
  static fromValue(v, unsigned) {
    if (v instanceof Long) return v;
    if (typeof v === 'bigint') return Long.fromBigInt(v, unsigned);
    if (typeof v === 'string') return Long.fromString(v, unsigned);
    if (typeof v === 'number') return Long.fromNumber(v, unsigned);
    return new Long(v.low, v.high, v.unsigned ?? unsigned);
  }
  toBigInt() { return wrap((BigInt(this.high >>> 0) << 32n) | BigInt(this.low >>> 0), this.unsigned); }
  toNumber() { return Number(this.toBigInt()); }
  toString(radix = 10) { return this.toBigInt().toString(radix); }
  toSigned() { return new Long(this.low, this.high, false); }
  toUnsigned() { return new Long(this.low, this.high, true); }
  isZero() { return this.low === 0 && this.high === 0; }
  isNegative() { return !this.unsigned && this.high < 0; }
  equals(o) { return this.toBigInt() === Long.fromValue(o, this.unsigned).toBigInt(); }
  compare(o) {
    const a = this.toBigInt(), b = Long.fromValue(o, this.unsigned).toBigInt();
    return a === b ? 0 : a < b ? -1 : 1;
  }
  _op(f, o) { return Long.fromBigInt(f(this.toBigInt(), Long.fromValue(o, this.unsigned).toBigInt()), this.unsigned); }
  add(o) { return this._op((a, b) => a + b, o); }
  subtract(o) { return this._op((a, b) => a - b, o); }
  multiply(o) { return this._op((a, b) => a * b, o); }
  divide(o) { return this._op((a, b) => a / b, o); }
  modulo(o) { return this._op((a, b) => a % b, o); }
  and(o) { return this._op((a, b) => a & b, o); }
  or(o) { return this._op((a, b) => a | b, o); }
  xor(o) { return this._op((a, b) => a ^ b, o); }
  not() { return Long.fromBigInt(~this.toBigInt(), this.unsigned); }
  negate() { return Long.fromBigInt(-this.toBigInt(), this.unsigned); }
  shiftLeft(n) { return Long.fromBigInt(this.toBigInt() << BigInt(Number(n) & 63), this.unsigned); }
  // Arithmetic on the bits' signed reading, unsigned or not (as long.js).
  shiftRight(n) {
    return Long.fromBigInt(BigInt.asIntN(64, this.toBigInt()) >> BigInt(Number(n) & 63), this.unsigned);
  }
  shiftRightUnsigned(n) {
    return Long.fromBigInt(BigInt.asUintN(64, this.toBigInt()) >> BigInt(Number(n) & 63), this.unsigned);
  }
}
// long.js's short names.
Object.assign(Long.prototype, {
  sub: Long.prototype.subtract, mul: Long.prototype.multiply, div: Long.prototype.divide,
  mod: Long.prototype.modulo, eq: Long.prototype.equals, comp: Long.prototype.compare,
  neg: Long.prototype.negate, shl: Long.prototype.shiftLeft, shr: Long.prototype.shiftRight,
  shru: Long.prototype.shiftRightUnsigned,
});

/** An unsigned Long from hexadecimal digits, as TF.js's. */
export function hexToLong(hex) {
  return Long.fromString(hex, true, 16);
}

/** Fingerprint64 of the first len bytes of s (a Uint8Array or a list of bytes), as an unsigned Long. */
export function fingerPrint64(s, len = s?.length) {
  const isBytes = (v) => Number.isInteger(v) && v >= 0 && v <= 255;
  if (Array.isArray(s) && s.every(isBytes)) s = Uint8Array.from(s);
  if (!(s instanceof Uint8Array)) {
    throw new GlintError('[util.fingerPrint64] s must be a Uint8Array or a list of bytes, got ' +
        (s?.constructor?.name ?? typeof s));
  }
  if (!Number.isInteger(len) || len < 0 || len > s.length) {
    throw new GlintError(`[util.fingerPrint64] len must be an integer in [0, ${s.length}], got ${len}`);
  }
  return Long.fromBigInt(fingerprint64(s.subarray(0, len)), true);
}
