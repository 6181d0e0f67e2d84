// string tensors and tf.string as TF.js programs use them, against TF.js 4.22
// (cpu) in the same run: random strings (multi-byte characters too), random
// shapes, the layout ops TF.js takes strings in, the four string ops (the
// hash bucket's Fingerprint64 at every length form), errors, no engine
// tensor left behind.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {rng} from './shared_cases.mjs';

await tf.setBackend('cpu');

const ALPHABET = ['a', 'b', 'c', ' ', ',', ';', 'é', '日', '😀', 'x', ' '];
const word = (r, max = 8) => Array.from({length: Math.floor(r() * (max + 1))}, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

function same(lib, f, what) {
  const pick = (m) => m.tidy(() => {
    const y = f(m);
    const one = (t) => ({dtype: t.dtype, shape: t.shape, values: t.arraySync()});
    return Array.isArray(y) ? y.map(one) : y instanceof m.Tensor ? one(y) :
        Object.fromEntries(Object.entries(y).map(([k, t]) => [k, one(t)]));
  });
  assert.deepEqual(pick(glint), pick(tf), what);
}

test('layout ops move strings as TF.js does: random shapes, several seeds', () => {
  for (let seed = 1; seed <= 6; ++seed) {
    const r = rng(seed);
    const shape = Array.from({length: int(r, 1, 3)}, () => int(r, 1, 3));
    const size = shape.reduce((a, b) => a * b, 1);
    const values = Array.from({length: size}, () => word(r));
    const t = (m) => m.tensor(values, shape);
    const axis = int(r, 0, shape.length);
    const cases = {
      reshape: (m) => m.reshape(t(m), [size]),
      expandDims: (m) => t(m).expandDims(axis),
      squeeze: (m) => m.squeeze(m.reshape(t(m), [1, ...shape, 1])),
      concat: (m) => m.concat([t(m), t(m)], shape.length - 1),
      stack: (m) => m.stack([t(m), t(m)], 0),
      unstack: (m) => m.unstack(t(m), 0),
      slice: (m) => m.slice(t(m), shape.map(() => 0), shape.map((d) => Math.max(1, d - 1))),
      stridedSlice: (m) => m.stridedSlice(m.reshape(t(m), [size]), [0], [size], [2]),
      tile: (m) => m.tile(t(m), shape.map((_, i) => (i === 0 ? 2 : 1))),
      clone: (m) => t(m).clone(),
      gatherND: (m) => m.gatherND(t(m), [[0], [shape[0] - 1]]),
      equal: (m) => m.equal(t(m), m.tensor([values[0]])),
      notEqual: (m) => m.notEqual(t(m), m.reshape(m.tensor(values.slice().reverse()), shape)),
      fill: (m) => m.fill(shape, values[0]),
      scalar: (m) => m.scalar(values[0]),
    };
    for (const [name, f] of Object.entries(cases)) same(glint, f, `${name} seed ${seed} [${shape}]`);
  }
});

test('stringSplit, stringNGrams, staticRegexReplace: as TF.js on random text', () => {
  for (let seed = 1; seed <= 20; ++seed) {
    const r = rng(100 + seed);
    const n = int(r, 1, 5);
    const lines = Array.from({length: n}, () => word(r, 14));
    const delimiter = [' ', ',;', '', '日', ' ,'][seed % 5];
    const skipEmpty = seed % 2 === 0;
    same(glint, (m) => m.string.stringSplit(lines, delimiter, skipEmpty), `stringSplit seed ${seed}`);
    // Ragged rows of words; widths, pads and preserveShort in every combination drawn.
    const words = Array.from({length: int(r, 0, 9)}, () => word(r, 3));
    const cuts = [0, ...Array.from({length: int(r, 0, 3)}, () => int(r, 0, words.length)).sort((a, b) => a - b), words.length];
    const widths = [[1], [2], [1, 3], [4], [2, 5]][seed % 5];
    const padWidth = [-1, 0, 1, 2][seed % 4];
    const preserve = seed % 3 === 0;
    same(glint, (m) => m.string.stringNGrams(m.tensor(words, [words.length], 'string'), m.tensor(cuts, undefined, 'int32'),
        ['|', '', ' '][seed % 3], widths, '<', '>', padWidth, preserve),
    `stringNGrams seed ${seed}: ${JSON.stringify({words, cuts, widths, padWidth, preserve})}`);
    const [pattern, rewrite] = [['a+', 'A'], ['\\s+', ' '], ['(b)(c)?', '$2$1'], ['é|日', '?'], ['^', '>']][seed % 5];
    same(glint, (m) => m.string.staticRegexReplace(m.tensor(lines), pattern, rewrite, seed % 2 === 0),
        `staticRegexReplace seed ${seed} /${pattern}/`);
  }
});

test('stringToHashBucketFast: Fingerprint64 at every length form (0 to 300 bytes) as TF.js', () => {
  const r = rng(7);
  const texts = [];
  for (let len = 0; len <= 300; len += len < 70 ? 1 : 13) {
    texts.push(Array.from({length: len}, () => String.fromCharCode(int(r, 32, 126))).join(''));
  }
  texts.push('日本語のテキスト😀'.repeat(9));
  for (const buckets of [1, 3, 1000, 2147483647]) {
    same(glint, (m) => m.string.stringToHashBucketFast(m.tensor(texts), buckets), `${buckets} buckets`);
  }
});

test('string tensors: reads, bytes, printing, tidy and errors naming the op', async () => {
  const start = glint.memory().numTensors;
  const s = glint.tensor([['é', 'ab'], ['', '日本']]);
  assert.equal(s.dtype, 'string');
  assert.deepEqual(s.shape, [2, 2]);
  assert.deepEqual(await s.data(), ['é', 'ab', '', '日本']);
  assert.deepEqual(await s.array(), [['é', 'ab'], ['', '日本']]);
  assert.deepEqual((await s.bytes()).map((b) => Array.from(b)), (await tf.tensor([['é', 'ab'], ['', '日本']]).bytes()).map((b) => Array.from(b)));
  assert.match(s.toString(), /string \[2,2\] \['é', 'ab', '', '日本'\]/);
  const kept = glint.tidy(() => glint.reshape(glint.concat([s, s]), [8]));
  assert.equal(kept.size, 8);
  // One tensor each, as TF.js counts them; the engine's index work is freed.
  assert.equal(glint.memory().numTensors, start + 2, 'the two string tensors, nothing else');
  assert.throws(() => glint.exp(s), /\[exp\] input 0 is string/);
  assert.throws(() => glint.add(s, s), /\[add\] input 0 is string/);
  assert.throws(() => glint.string.stringSplit(s, ' '), /\[stringSplit\] input must be 1-D: got shape \[2,2\]/);
  assert.throws(() => glint.string.stringSplit(glint.tensor([1, 2]), ' '), /\[stringSplit\] input must be a string tensor: got float32/);
  assert.throws(() => glint.string.stringToHashBucketFast(['a'], 0), /numBuckets must be an integer >= 1/);
  assert.throws(() => glint.string.stringNGrams(['a', 'b'], [0, 3], '', [1], '', '', 0, false), /dataSplits must rise from 0 to the data's length 2/);
  assert.throws(() => glint.string.staticRegexReplace(['a'], '(', ''), /\[staticRegexReplace\] pattern "\(" is not a regular expression/);
  assert.throws(() => glint.tensor(['a', 'b'], [3]), /2 values do not fill shape \[3\]/);
  s.dispose();
  assert.throws(() => s.dataSync(), /disposed/);
});
