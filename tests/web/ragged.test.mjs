// tf.raggedTensorToTensor against TF.js 4.22 (cpu) on random ragged tensors:
// one to three ragged levels as ROW_SPLITS or FIRST_DIM_SIZE + VALUE_ROWIDS,
// natural and given output shapes (smaller ones drop values, larger ones
// pad), every dtype; dense inner dimensions against results worked by hand
// (TF.js 4.22 gets most of those wrong).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {rng} from './shared_cases.mjs';

await tf.setBackend('cpu');

const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

// Row lengths per level, then the partitions in either form.
function ragged(r) {
  const levels = int(r, 1, 3), rowIds = r() < 0.5;
  let rows = int(r, 0, 4);
  const first = rows, parts = [], types = [];
  if (rowIds) {
    parts.push([rows]);
    types.push('FIRST_DIM_SIZE');
  }
  for (let l = 0; l < levels; ++l) {
    const lengths = Array.from({length: rows}, () => int(r, 0, 3));
    if (rowIds && l === 0) {
      parts.push(lengths.flatMap((n, i) => new Array(n).fill(i)));
      types.push('VALUE_ROWIDS');
    } else if (rowIds) {
      parts.push(lengths.flatMap((n, i) => new Array(n).fill(i)));
      types.push('VALUE_ROWIDS');
    } else {
      const splits = [0];
      for (const n of lengths) splits.push(splits.at(-1) + n);
      parts.push(splits);
      types.push('ROW_SPLITS');
    }
    rows = lengths.reduce((a, b) => a + b, 0);
  }
  return {first, levels, parts, types, count: rows};
}

test('raggedTensorToTensor: as TF.js on random ragged tensors, natural and given shapes', () => {
  let compared = 0;
  for (let seed = 1; seed <= 120; ++seed) {
    const r = rng(seed);
    const g = ragged(r);
    // TF.js 4.22 is wrong with dense (inner) dimensions in most forms (size 1,
    // row ids, two levels, an empty tensor, values as many as the dense size:
    // [2, 2, 3, 3] for [2, 2, 3]): those are checked by hand below, 1-D values here.
    const inner = [];
    const dtype = ['float32', 'int32', 'bool'][seed % 3];
    const n = g.count * inner.reduce((a, b) => a * b, 1);
    const values = Array.from({length: n}, () => (dtype === 'bool' ? r() < 0.5 : dtype === 'int32' ? int(r, -9, 9) : r()));
    const rank = g.levels + 1 + inner.length;
    // TF.js 4.22 refuses a scalar shape and -1 for a dense dimension ("Dimension -1 must be >= 0"):
    // the dense sizes given as they are.
    const dense = (i) => inner[i - g.levels - 1];
    const shapes = [Array.from({length: rank}, (_, i) => (i > g.levels ? dense(i) : -1)),
      Array.from({length: rank}, (_, i) => (i > g.levels ? dense(i) : r() < 0.4 ? -1 : int(r, 0, 4)))];
    // (A default of the dense shape is wrong in TF.js too: it adds a dimension.)
    const dflt = dtype === 'bool' ? r() < 0.5 : int(r, -9, 9);
    for (const shape of shapes) {
      const run = (lib) => lib.tidy(() => {
        const y = lib.raggedTensorToTensor(lib.tensor(shape, undefined, 'int32'), lib.tensor(values, [g.count, ...inner], dtype),
            lib.tensor(dflt, undefined, dtype), g.parts.map((p) => lib.tensor(p, [p.length], 'int32')), g.types);
        return {shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync())};
      });
      let want;
      try {
        want = run(tf);
      } catch (e) {
        assert.throws(() => run(glint), /raggedTensorToTensor/, `seed ${seed}: TF.js refused (${e.message})`);
        continue;
      }
      assert.deepEqual(run(glint), want, `seed ${seed}: ${JSON.stringify({g, inner, shape, dflt})}`);
      ++compared;
    }
  }
  assert.ok(compared >= 150, `${compared} draws compared`);
});

test('raggedTensorToTensor with a dense dimension of size 1 (where TF.js 4.22 drops rows)', () => {
  // [[1], [2], [3]] in one row of three: TF.js gives [1, 1, 1] [[[1]]].
  const t = (p) => glint.tensor(p, [p.length], 'int32');
  const y = glint.raggedTensorToTensor(glint.tensor([-1, -1, 1], undefined, 'int32'), glint.tensor([[1], [2], [3]]), 0,
      [t([0, 3])], ['ROW_SPLITS']);
  assert.deepEqual(y.shape, [1, 3, 1]);
  assert.deepEqual(y.arraySync(), [[[1], [2], [3]]]);
  const z = glint.raggedTensorToTensor(glint.tensor([2, 2, 1], undefined, 'int32'), glint.tensor([[1], [2], [3]]), 9,
      [t([0, 1, 3])], ['ROW_SPLITS']);
  assert.deepEqual(z.arraySync(), [[[1], [9]], [[2], [3]]]);
  // Two levels by row ids and a dense pair: row 1 holds two elements, its
  // second one three pairs (TF.js gives [3, 2, 2, 2] and drops [5, 6]).
  const w = glint.raggedTensorToTensor(glint.tensor([-1, -1, -1, 2], undefined, 'int32'),
      glint.tensor([[1, 2], [3, 4], [5, 6]]), 0, [t([3]), t([1, 1]), t([1, 1, 1])],
      ['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'VALUE_ROWIDS']);
  const zeros = [[0, 0], [0, 0], [0, 0]];
  assert.deepEqual(w.arraySync(), [[zeros, zeros], [zeros, [[1, 2], [3, 4], [5, 6]]], [zeros, zeros]]);
  // A default of the dense shape fills each padded row with it.
  const p = glint.raggedTensorToTensor(glint.tensor([-1, -1, 2], undefined, 'int32'), glint.tensor([[1, 2], [3, 4], [5, 6]]),
      [7, 8], [t([0, 1, 3])], ['ROW_SPLITS']);
  assert.deepEqual(p.arraySync(), [[[1, 2], [7, 8]], [[3, 4], [5, 6]]]);
});

test('raggedTensorToTensor errors name the op and the partition', () => {
  const v = glint.tensor([1, 2, 3]);
  assert.throws(() => glint.raggedTensorToTensor(-1, v, 0, [glint.tensor([0, 2], undefined, 'int32')], ['ROW_SPLITS']),
      /\[raggedTensorToTensor\] the partitions place 2 values, values has 3/);
  assert.throws(() => glint.raggedTensorToTensor(-1, v, 0, [glint.tensor([1, 3], undefined, 'int32')], ['ROW_SPLITS']),
      /rowPartitionTensors\[0\]: row splits must start at 0/);
  assert.throws(() => glint.raggedTensorToTensor(-1, v, 0, [glint.tensor([0, 3], undefined, 'int32')], ['ROWS']),
      /first partition must be ROW_SPLITS or FIRST_DIM_SIZE/);
  assert.throws(() => glint.raggedTensorToTensor(-1, v, 0, [], []), /lists of one length/);
});
