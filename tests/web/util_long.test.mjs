// tf.util.fingerPrint64 and tf.util.hexToLong against TensorFlow.js 4.22 in
// the same run: Long values (glint-ml's own Long, long.js's API) equal to TF.js's on many
// random byte arrays of every length class Farmhash treats apart.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import {rng} from './shared_cases.mjs';

await glint.ready();

test('fingerPrint64 equals TF.js\'s on 2000 random byte arrays', () => {
  const r = rng(64);
  const lengths = [0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300, 1000];
  for (let k = 0; k < 2000; ++k) {
    const n = k < lengths.length ? lengths[k] : Math.floor(r() * 200);
    const bytes = Uint8Array.from({length: n}, () => Math.floor(r() * 256));
    const ours = glint.util.fingerPrint64(bytes), theirs = tf.util.fingerPrint64(bytes);
    assert.equal(ours.unsigned, true);
    assert.equal(ours.toString(16), theirs.toString(16), `bytes [${bytes}]`);
    assert.equal(ours.high, theirs.high);
    assert.equal(ours.low, theirs.low);
    // A prefix, through len.
    const len = Math.floor(r() * (n + 1));
    assert.equal(glint.util.fingerPrint64(bytes, len).toString(), tf.util.fingerPrint64(bytes, len).toString());
  }
});

test('hexToLong equals TF.js\'s; fingerPrint64 refuses what is not bytes', () => {
  for (const hex of ['0', 'ff', 'c3a5c85c97cb3127', 'FFFFFFFFFFFFFFFF', '8000000000000000', '123456789abcdef']) {
    const ours = glint.util.hexToLong(hex), theirs = tf.util.hexToLong(hex);
    assert.equal(ours.toString(), theirs.toString(), hex);
    assert.equal(ours.unsigned, theirs.unsigned);
  }
  // Long arithmetic as TF.js programs use it (the Long class's own methods).
  assert.equal(glint.util.hexToLong('ff').mul(2).toString(16), tf.util.hexToLong('ff').mul(2).toString(16));
  assert.equal(glint.util.fingerPrint64([1, 2, 3]).toString(), tf.util.fingerPrint64(Uint8Array.of(1, 2, 3)).toString());
  assert.throws(() => glint.util.fingerPrint64('abc'), /\[util\.fingerPrint64\] s must be a Uint8Array/);
  assert.throws(() => glint.util.fingerPrint64(Uint8Array.of(1), 2), /len must be/);
});

test('Long methods agree with long.js (TF.js\'s Long) on hashes and their combinations', () => {
  const r = rng(7);
  const ops = [['add', 1], ['sub', 1], ['mul', 1], ['and', 1], ['or', 1], ['xor', 1], ['shl', 's'], ['shr', 's'],
               ['shru', 's'], ['not', 0], ['neg', 0], ['toSigned', 0], ['toUnsigned', 0]];
  for (let k = 0; k < 300; ++k) {
    const bytes = Uint8Array.from({length: 1 + Math.floor(r() * 40)}, () => Math.floor(r() * 256));
    const more = Uint8Array.from({length: 5}, () => Math.floor(r() * 256));
    const [a, b] = [glint.util.fingerPrint64(bytes), glint.util.fingerPrint64(more)];
    const [ta, tb] = [tf.util.fingerPrint64(bytes), tf.util.fingerPrint64(more)];
    for (const [name, arg] of ops) {
      const shift = Math.floor(r() * 64);
      const ours = arg === 1 ? a[name](b) : arg === 's' ? a[name](shift) : a[name]();
      const theirs = arg === 1 ? ta[name](tb) : arg === 's' ? ta[name](shift) : ta[name]();
      assert.equal(ours.toString(16), theirs.toString(16), `${name}`);
      assert.equal(ours.unsigned, theirs.unsigned, name);
    }
    assert.equal(a.compare(b), ta.compare(tb));
    assert.equal(a.equals(b), ta.equals(tb));
    assert.equal(a.toNumber(), ta.toNumber());
    assert.equal(a.toSigned().toString(), ta.toSigned().toString());
  }
});
