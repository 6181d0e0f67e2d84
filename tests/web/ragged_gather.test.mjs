// tf.raggedGather against TF.js 4.22 (cpu) on random ragged tensors: one to
// three ragged levels, dense inner dimensions, every dtype, indices of rank
// 0 to 2; and its errors.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {rng} from './shared_cases.mjs';

await tf.setBackend('cpu');

const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

function draw(r) {
  const levels = int(r, 1, 3);
  let rows = int(r, 1, 4);
  const splits = [];
  for (let l = 0; l < levels; ++l) {
    const s = [0];
    for (let i = 0; i < rows; ++i) s.push(s[i] + int(r, 0, 3));
    splits.push(s);
    rows = s[s.length - 1];
  }
  const inner = r() < 0.4 ? [int(r, 1, 3)] : [];
  const dtype = ['float32', 'int32', 'bool'][int(r, 0, 2)];
  const n = rows * (inner[0] ?? 1);
  const values = Array.from({length: n}, () => (dtype === 'bool' ? int(r, 0, 1) :
      dtype === 'int32' ? int(r, -9, 9) : Math.round((r() * 4 - 2) * 100) / 100));
  const numParams = splits[0].length - 1;
  const rank = int(r, 0, 2);
  const ishape = rank === 0 ? [] : rank === 1 ? [int(r, 0, 5)] : [int(r, 1, 3), int(r, 0, 3)];
  const indices = Array.from({length: ishape.reduce((a, b) => a * b, 1)}, () => int(r, 0, numParams - 1));
  return {splits, values, vshape: [rows, ...inner], dtype, indices, ishape};
}

function run(m, c) {
  const out = m.raggedGather(c.splits.map((s) => m.tensor(s, [s.length], 'int32')),
      m.tensor(c.values, c.vshape, c.dtype), m.tensor(c.indices, c.ishape, 'int32'), c.ishape.length + c.splits.length - 1);
  return {
    splits: out.outputNestedSplits.map((t) => ({shape: t.shape, dtype: t.dtype, v: Array.from(t.dataSync())})),
    values: {shape: out.outputDenseValues.shape, dtype: out.outputDenseValues.dtype,
      v: Array.from(out.outputDenseValues.dataSync())},
  };
}

test('raggedGather matches TF.js on 300 random ragged tensors', () => {
  const r = rng(30);
  for (let k = 0; k < 300; ++k) {
    const c = draw(r);
    const theirs = run(tf, c), ours = run(glint, c);
    assert.deepEqual(ours, theirs, `case ${k}: ${JSON.stringify(c)}`);
  }
});

test('raggedGather: bad indices and splits are named errors (TF.js throws too)', () => {
  const cases = [
    [[[0, 2, 3]], [1, 2, 3], [2]],        // index past the rows
    [[[0, 2, 3]], [1, 2, 3], [-1]],       // negative index
    [[[0, 3, 2]], [1, 2, 3], [0]],        // decreasing splits
    [[[0, 2, 5]], [1, 2, 3], [0]],        // splits past the values
  ];
  for (const [splits, values, indices] of cases) {
    const make = (m) => () => m.raggedGather(splits.map((s) => m.tensor(s, [s.length], 'int32')),
        m.tensor(values), m.tensor(indices, [indices.length], 'int32'), 1);
    assert.throws(make(tf));
    assert.throws(make(glint), /\[raggedGather\]/);
  }
  assert.throws(() => glint.raggedGather([], glint.tensor([1]), glint.tensor([0], [1], 'int32'), 1), /non-empty/);
});
