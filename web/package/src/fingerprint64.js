// Farmhash's Fingerprint64 of a byte string, as TensorFlow hashes strings
// (tf.string.stringToHashBucketFast): a fixed function of the bytes, the same
// on every platform. 64-bit arithmetic in BigInt, reduced modulo 2^64.
const MASK = (1n << 64n) - 1n;
const K0 = 0xc3a5c85c97cb3127n;
const K1 = 0xb492b66fbe98f273n;
const K2 = 0x9ae16a3b2f90404fn;
const MUL_DEFAULT = 0x9ddfea08eb382d69n;

const add = (...xs) => xs.reduce((s, x) => (s + x) & MASK, 0n);
const mul = (a, b) => (a * b) & MASK;
const rotate = (v, s) => (s === 0 ? v : ((v >> BigInt(s)) | (v << BigInt(64 - s))) & MASK);
const shiftMix = (v) => v ^ (v >> 47n);

function fetch64(s, i) {
  let v = 0n;
  for (let k = 7; k >= 0; --k) v = (v << 8n) | BigInt(s[i + k]);
  return v;
}
const fetch32 = (s, i) => BigInt((s[i] | (s[i + 1] << 8) | (s[i + 2] << 16) | (s[i + 3] << 24)) >>> 0);

function hash128to64(u, v, m = MUL_DEFAULT) {
  let a = mul(u ^ v, m);
  a ^= a >> 47n;
  let b = mul(v ^ a, m);
  b ^= b >> 47n;
  return mul(b, m);
}

function upTo16(s, n) {
  if (n >= 8) {
    const m = add(K2, BigInt(2 * n)), a = add(fetch64(s, 0), K2), b = fetch64(s, n - 8);
    return hash128to64(add(mul(rotate(b, 37), m), a), mul(add(rotate(a, 25), b), m), m);
  }
  if (n >= 4) {
    const m = add(K2, BigInt(2 * n));
    return hash128to64(add(fetch32(s, 0) << 3n, BigInt(n)), fetch32(s, n - 4), m);
  }
  if (n > 0) {
    const y = BigInt(s[0] + (s[n >> 1] << 8)), z = BigInt(n + (s[n - 1] << 2));
    return mul(shiftMix(mul(y, K2) ^ mul(z, K0)), K2);
  }
  return K2;
}

function upTo32(s, n) {
  const m = add(K2, BigInt(2 * n));
  const a = mul(fetch64(s, 0), K1), b = fetch64(s, 8), c = mul(fetch64(s, n - 8), m), d = mul(fetch64(s, n - 16), K2);
  return hash128to64(add(rotate(add(a, b), 43), rotate(c, 30), d), add(a, rotate(add(b, K2), 18), c), m);
}

function upTo64(s, n) {
  const m = add(K2, BigInt(2 * n));
  const a = mul(fetch64(s, 0), K2), b = fetch64(s, 8), c = mul(fetch64(s, n - 8), m), d = mul(fetch64(s, n - 16), K2);
  const y = add(rotate(add(a, b), 43), rotate(c, 30), d);
  const z = hash128to64(y, add(a, rotate(add(b, K2), 18), c), m);
  const e = mul(fetch64(s, 16), m), f = fetch64(s, 24);
  const g = mul(add(y, fetch64(s, n - 32)), m), h = mul(add(z, fetch64(s, n - 24)), m);
  return hash128to64(add(rotate(add(e, f), 43), rotate(g, 30), h), add(e, rotate(add(f, a), 18), g), m);
}

// Two 64-bit lanes from 32 bytes at i, seeded with a and b.
function weakPair(s, i, a, b) {
  const w = fetch64(s, i), x = fetch64(s, i + 8), y = fetch64(s, i + 16), z = fetch64(s, i + 24);
  a = add(a, w);
  b = rotate(add(b, a, z), 21);
  const c = a;
  a = add(a, x, y);
  b = add(b, rotate(a, 44));
  return [add(a, z), add(b, c)];
}

/** Fingerprint64 of the bytes s (a Uint8Array), as an unsigned BigInt. */
export function fingerprint64(s) {
  const n = s.length;
  if (n <= 16) return upTo16(s, n);
  if (n <= 32) return upTo32(s, n);
  if (n <= 64) return upTo64(s, n);
  // 64-byte blocks through a state of v, w (two lanes each), x, y and z; the
  // last block is the input's last 64 bytes, overlapping the one before.
  const seed = 81n;
  let x = add(mul(seed, K2), fetch64(s, 0));
  let y = add(mul(seed, K1), 113n);
  let z = mul(shiftMix(add(mul(y, K2), 113n)), K2);
  let v = [0n, 0n], w = [0n, 0n];
  const end = ((n - 1) >> 6) * 64;
  const block = (i, m, last) => {
    x = mul(rotate(add(x, y, v[0], fetch64(s, i + 8)), 37), m);
    y = mul(rotate(add(y, v[1], fetch64(s, i + 48)), 42), m);
    x ^= last ? mul(w[1], 9n) : w[1];
    y = add(y, last ? mul(v[0], 9n) : v[0], fetch64(s, i + 40));
    z = mul(rotate(add(z, w[0]), 33), m);
    v = weakPair(s, i, mul(v[1], m), add(x, w[0]));
    w = weakPair(s, i + 32, add(z, w[1]), add(y, fetch64(s, i + 16)));
    [x, z] = [z, x];
  };
  for (let i = 0; i < end; i += 64) block(i, K1, false);
  const m = add(K1, (z & 0xffn) << 1n);
  w[0] = add(w[0], BigInt((n - 1) & 63));
  v[0] = add(v[0], w[0]);
  w[0] = add(w[0], v[0]);
  block(n - 64, m, true);
  return hash128to64(add(hash128to64(v[0], w[0], m), mul(shiftMix(y), K0), z), add(hash128to64(v[1], w[1], m), x), m);
}
