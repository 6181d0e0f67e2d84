// tf.util.fingerPrint64 and tf.util.hexToLong, which TF.js returns as Long
// values (the npm package long, TF.js's own 64-bit integer type). The hash is
// Farmhash's Fingerprint64 (fingerprint64.js, also behind
// string.stringToHashBucketFast).
import Long from 'long';
import {GlintError} from './core.js';
import {fingerprint64} from './fingerprint64.js';

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
  const v = fingerprint64(s.subarray(0, len));
  return Long.fromBits(Number(v & 0xffffffffn) | 0, Number(v >> 32n) | 0, true);
}
