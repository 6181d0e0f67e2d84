// conv3d, conv3dTranspose, maxPool3d and avgPool3d as TF.js programs call
// them, against TF.js 4.22 (cpu) in the same run: values, shapes and the
// gradients of sum(w * f).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {randomValues} from './shared_cases.mjs';

await tf.setBackend('cpu');

function near(got, want, tol, what) {
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  const g = got.dataSync(), w = want.dataSync();
  for (let i = 0; i < w.length; ++i)
    assert.ok(Math.abs(g[i] - w[i]) <= tol * Math.max(1, Math.abs(w[i])), `${what}[${i}]: ${g[i]} vs ${w[i]}`);
}

// Central differences of sum(w * f) in glint-ml, for each element of input k.
function differences(f, values, shapes, w, k, h = 1e-3) {
  const at = (v) => glint.tidy(() => {
    const xs = values.map((u, i) => glint.tensor(i === k ? v : u, shapes[i]));
    return f(glint, ...xs).mul(w).sum().dataSync()[0];
  });
  return values[k].map((_, j) => {
    const p = values[k].slice(), m = values[k].slice();
    p[j] += h;
    m[j] -= h;
    return (at(p) - at(m)) / (2 * h);
  });
}

// f(lib, ...inputs) on both libraries; forward, then the gradients of
// sum(w * f) with respect to every input: against TF.js's when `grads` is
// 'tfjs', against central differences when 'differences' (where TF.js's
// gradient is wrong or missing).
function compare(what, shapes, f, {grads = 'tfjs', tol = 1e-4} = {}) {
  const values = shapes.map((s, i) => randomValues(s.reduce((a, b) => a * b, 1), 31 + i));
  const run = (lib) => {
    const xs = values.map((v, i) => lib.tensor(v, shapes[i]));
    const y = f(lib, ...xs);
    if (grads !== 'tfjs' && lib === tf) return {y};
    const w = lib.tensor(randomValues(y.size, 97), y.shape);
    const g = lib.grads((...args) => f(lib, ...args).mul(w).sum())(xs);
    return {y, g};
  };
  const mine = run(glint), theirs = run(tf);
  near(mine.y, theirs.y, tol, what);
  if (grads === 'tfjs') mine.g.forEach((g, i) => near(g, theirs.g[i], tol, `${what}: gradient of input ${i}`));
  if (grads === 'differences') {
    const w = glint.tensor(randomValues(mine.y.size, 97), mine.y.shape);
    mine.g.forEach((g, i) => {
      const want = differences(f, values, shapes, w, i);
      const got = g.dataSync();
      for (let j = 0; j < want.length; ++j)
        assert.ok(Math.abs(got[j] - want[j]) <= 1e-2 * Math.max(1, Math.abs(want[j])),
                  `${what}: gradient of input ${i}[${j}]: ${got[j]} vs differences ${want[j]}`);
    });
  }
}

test('conv3d matches TF.js: strides, same and valid, dilations, a rank-4 x, numeric pad', () => {
  compare('valid', [[2, 5, 6, 4, 3], [2, 3, 2, 3, 4]], (lib, x, f) => lib.conv3d(x, f, 1, 'valid'));
  compare('same stride 2', [[1, 5, 5, 5, 2], [3, 3, 3, 2, 3]], (lib, x, f) => lib.conv3d(x, f, 2, 'same'));
  compare('same strides [1,2,3]', [[2, 4, 7, 6, 1], [2, 3, 2, 1, 2]], (lib, x, f) => lib.conv3d(x, f, [1, 2, 3], 'same'));
  compare('rank 4', [[4, 5, 6, 2], [2, 2, 2, 2, 3]], (lib, x, f) => lib.conv3d(x, f, 1, 'same'));
  // TF.js 4.22 has no gradient for dilated conv3d: differences.
  compare('dilated', [[1, 7, 7, 7, 2], [2, 3, 2, 2, 2]], (lib, x, f) => lib.conv3d(x, f, 1, 'valid', 'NDHWC', [2, 1, 2]),
          {grads: 'differences'});
  // TF.js's conv3d takes 'same' and 'valid' only: a numeric pad is checked
  // against conv3d of the explicitly padded input.
  const x = glint.tensor(randomValues(2 * 3 * 4 * 3 * 2, 5), [2, 3, 4, 3, 2]);
  const f = glint.tensor(randomValues(2 * 2 * 2 * 2 * 3, 6), [2, 2, 2, 2, 3]);
  const want = tf.conv3d(tf.pad(tf.tensor(x.dataSync(), x.shape), [[0, 0], [1, 1], [1, 1], [1, 1], [0, 0]]),
                         tf.tensor(f.dataSync(), f.shape), 2, 'valid');
  near(glint.conv3d(x, f, 2, 1), want, 1e-4, 'numeric pad');
});

// TF.js 4.22 has no gradient for Conv3DBackpropInputV2: differences.
test('conv3dTranspose matches TF.js', () => {
  const grads = 'differences';
  compare('valid', [[1, 3, 4, 3, 3], [2, 2, 2, 2, 3]],
          (lib, x, f) => lib.conv3dTranspose(x, f, [1, 4, 5, 4, 2], 1, 'valid'), {grads});
  compare('same stride 2', [[2, 2, 3, 2, 2], [3, 3, 3, 4, 2]],
          (lib, x, f) => lib.conv3dTranspose(x, f, [2, 4, 6, 4, 4], 2, 'same'), {grads});
  compare('rank 4', [[3, 3, 3, 2], [2, 2, 2, 1, 2]], (lib, x, f) => lib.conv3dTranspose(x, f, [4, 4, 4, 1], 1, 'valid'),
          {grads});
});

test('maxPool3d and avgPool3d match TF.js', () => {
  for (const pool of ['maxPool3d', 'avgPool3d']) {
    compare(`${pool} 2 valid`, [[2, 4, 5, 6, 3]], (lib, x) => lib[pool](x, 2, 2, 'valid'));
    // TF.js 4.22's avgPool gradients with 'same' divide by the whole window,
    // where its forward divides by the taps inside (docs/TESTING.md):
    // differences.
    const same = pool === 'avgPool3d' ? 'differences' : 'tfjs';
    compare(`${pool} 3 same stride 2, odd sizes`, [[1, 5, 7, 3, 4]], (lib, x) => lib[pool](x, 3, 2, 'same'),
            {grads: same});
    // TF.js 4.22's maxPool3d gradient here sends dy to elements no window
    // takes (its element 23 gets -0.70 where differences give 0); avgPool3d
    // is 'same' too.
    compare(`${pool} [1,2,3] strides [2,1,2]`, [[2, 4, 4, 5, 1]], (lib, x) => lib[pool](x, [1, 2, 3], [2, 1, 2], 'same'),
            {grads: 'differences'});
    compare(`${pool} rank 4`, [[4, 4, 6, 2]], (lib, x) => lib[pool](x, 2, 2, 'valid'));
  }
  compare('maxPool3d numeric pad', [[1, 3, 4, 5, 2]], (lib, x) => lib.maxPool3d(x, 2, 1, 1));
});

test('bad arguments are errors naming the op and the argument', () => {
  const x = glint.zeros([1, 2, 3, 4, 1]);
  assert.throws(() => glint.conv3d(glint.zeros([2, 3, 4]), glint.zeros([1, 1, 1, 1, 1])), /\[conv3d\] x must be rank 4 .* or 5/);
  assert.throws(() => glint.maxPool3d(x, 2, 1, 'valid', undefined, 'NCDHW'), /\[maxPool3d\] dataFormat must be 'NDHWC'/);
  assert.throws(() => glint.avgPool3d(x, 2, 1, 1), /\[avgPool3d\] pad must be 'same' or 'valid'/);
  assert.throws(() => glint.maxPool3d(x, 2, 1, 1, 'ceil'), /\[maxPool3d\] dimRoundingMode 'ceil'/);
  assert.throws(() => glint.conv3d(x, glint.zeros([1, 1, 1, 2, 1])), /conv3d/);
  assert.throws(() => glint.conv3dTranspose(x, glint.zeros([1, 1, 1, 1, 1]), [1, 2, 3]), /\[conv3dTranspose\] outputShape/);
});
