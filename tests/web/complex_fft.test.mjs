// complex64 and the Fourier transforms (tf.spectral, tf.signal.stft) as TF.js
// programs use them: values against a float64 DFT written here and against
// TF.js 4.22 (cpu) in the same run, shapes and dtypes as TF.js gives them,
// the ops TF.js takes complex64 in, gradients against central differences,
// no tensor left behind.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {randomValues} from './shared_cases.mjs';

await tf.setBackend('cpu');
await glint.ready();

// The DFT of each row of re + i im, in float64, straight from its definition.
function dft64(re, im, n, inverse) {
  const rows = re.length / n, outRe = new Float64Array(re.length), outIm = new Float64Array(re.length);
  const sign = inverse ? 1 : -1;
  for (let r = 0; r < rows; ++r) {
    for (let k = 0; k < n; ++k) {
      let sr = 0, si = 0;
      for (let j = 0; j < n; ++j) {
        const a = sign * 2 * Math.PI * ((j * k) % n) / n, xr = re[r * n + j], xi = im[r * n + j];
        sr += xr * Math.cos(a) - xi * Math.sin(a);
        si += xr * Math.sin(a) + xi * Math.cos(a);
      }
      outRe[r * n + k] = inverse ? sr / n : sr;
      outIm[r * n + k] = inverse ? si / n : si;
    }
  }
  return [outRe, outIm];
}

const interleave = (re, im) => Array.from(re, (v, i) => [v, im[i]]).flat();

// Errors relative to the largest value wanted (a transform's rounding scales with it).
function assertClose(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  let scale = 0;
  for (const w of want) scale = Math.max(scale, Math.abs(w));
  for (let i = 0; i < want.length; ++i) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * Math.max(1, scale), `${what}[${i}]: ${got[i]} vs ${want[i]}`);
  }
}

// Every form of the transform: one product (n <= 64), four-step (composite
// n > 64, nested for 4096 and 10000), Bluestein's (primes > 64; 2 * 67).
const LENGTHS = [1, 2, 3, 5, 8, 15, 16, 17, 31, 64, 65, 96, 100, 127, 128, 134, 257, 360, 1000, 1024, 1031, 4096,
  10000];

test('fft and ifft agree with the float64 DFT at every length form, and with TF.js', () => {
  for (const n of LENGTHS) {
    const rows = n > 1000 ? 1 : 3;
    const re = randomValues(rows * n, n), im = randomValues(rows * n, n + 7);
    for (const inverse of [false, true]) {
      const op = inverse ? 'ifft' : 'fft';
      const [wr, wi] = dft64(re, im, n, inverse);
      const want = interleave(wr, wi);
      // Measured: 2.6e-7 (n 64) to 6e-7 (n 1031) of the largest output; TF.js 1e-7 to 2e-7.
      const tol = 3e-7 * Math.log2(2 * n);
      const got = glint.tidy(() => {
        const y = glint[op](glint.complex(glint.tensor(re, [rows, n]), glint.tensor(im, [rows, n])));
        assert.equal(y.dtype, 'complex64');
        assert.deepEqual(y.shape, [rows, n]);
        return y.dataSync();
      });
      assertClose(got, want, tol, `${op} n=${n}`);
      if (n <= 1031) {
        const theirs = tf.tidy(() => tf[op](tf.complex(tf.tensor(re, [rows, n]), tf.tensor(im, [rows, n]))).dataSync());
        assertClose(got, theirs, 2 * tol, `${op} n=${n} vs TF.js`);
      }
    }
  }
});

test('rfft (fftLength cut, padded, odd) and irfft: values and shapes as TF.js', () => {
  for (const [shape, fftLength] of [[[8], undefined], [[3, 10], undefined], [[2, 3, 12], undefined], [[2, 9], 16],
    [[2, 9], 5], [[4, 7], 7], [[1, 200], 150], [[2, 96], undefined], [[1, 131], undefined]]) {
    const size = shape.reduce((a, b) => a * b, 1), x = randomValues(size, size + 3);
    const got = glint.tidy(() => {
      const y = glint.rfft(glint.tensor(x, shape), fftLength);
      return {shape: y.shape, dtype: y.dtype, values: y.dataSync()};
    });
    const want = tf.tidy(() => {
      const y = tf.rfft(tf.tensor(x, shape), fftLength);
      return {shape: y.shape, dtype: y.dtype, values: y.dataSync()};
    });
    assert.deepEqual(got.shape, want.shape, `rfft [${shape}] ${fftLength}`);
    assert.equal(got.dtype, want.dtype);
    assertClose(got.values, want.values, 4e-6, `rfft [${shape}] ${fftLength}`);
  }
  // irfft: TF.js's shapes ([1, n] for one row), m <= 2 as TF.js (a plain inverse).
  for (const shape of [[5], [2, 5], [2, 3, 6], [3, 2], [2, 1], [1, 65]]) {
    const size = shape.reduce((a, b) => a * b, 1);
    const re = randomValues(size, size), im = randomValues(size, size + 1);
    const got = glint.tidy(() => {
      const y = glint.irfft(glint.complex(glint.tensor(re, shape), glint.tensor(im, shape)));
      return {shape: y.shape, dtype: y.dtype, values: y.dataSync()};
    });
    const want = tf.tidy(() => {
      const y = tf.irfft(tf.complex(tf.tensor(re, shape), tf.tensor(im, shape)));
      return {shape: y.shape, dtype: y.dtype, values: y.dataSync()};
    });
    assert.deepEqual(got.shape, want.shape, `irfft [${shape}]`);
    assert.equal(got.dtype, 'float32');
    assertClose(got.values, want.values, 2e-6, `irfft [${shape}]`);
  }
  // A real signal's rfft, then irfft, gives the signal back.
  const x = randomValues(2 * 1000, 5);
  const back = glint.tidy(() => glint.irfft(glint.rfft(glint.tensor(x, [2, 1000]))).dataSync());
  assertClose(back, x, 2e-6, 'irfft(rfft(x))');
});

test('signal.stft: frames, windows and fftLength as TF.js', () => {
  const x = randomValues(300, 11);
  for (const [frameLength, frameStep, fftLength, win] of [[16, 8, undefined, undefined], [25, 10, undefined, undefined],
    [32, 16, 64, 'hammingWindow'], [20, 7, 20, undefined]]) {
    const got = glint.tidy(() => {
      const y = glint.signal.stft(glint.tensor(x), frameLength, frameStep, fftLength, win && glint.signal[win]);
      return {shape: y.shape, dtype: y.dtype, values: y.dataSync()};
    });
    const want = tf.tidy(() => {
      const y = tf.signal.stft(tf.tensor(x), frameLength, frameStep, fftLength, win && tf.signal[win]);
      return {shape: y.shape, dtype: y.dtype, values: y.dataSync()};
    });
    assert.deepEqual(got.shape, want.shape, `stft ${frameLength} ${frameStep} ${fftLength}`);
    assert.equal(got.dtype, 'complex64');
    assertClose(got.values, want.values, 4e-6, `stft ${frameLength} ${frameStep} ${fftLength}`);
  }
});

test('complex64 in the ops TF.js takes it in: same values, shapes and dtypes', () => {
  const re = randomValues(6, 1), im = randomValues(6, 2), r2 = randomValues(6, 3), i2 = randomValues(6, 4);
  const real = randomValues(6, 5);
  const cases = {
    complex: (t) => t.complex(t.tensor(re, [2, 3]), t.tensor(im, [2, 3])),
    add: (t, a, b) => t.add(a, b), sub: (t, a, b) => t.sub(a, b), mul: (t, a, b) => t.mul(a, b),
    addReal: (t, a) => t.add(a, t.tensor(real, [2, 3])), mulReal: (t, a) => t.mul(a, t.tensor(real, [2, 3])),
    abs: (t, a) => t.abs(a), real: (t, a) => t.real(a), imag: (t, a) => t.imag(a),
    reshape: (t, a) => t.reshape(a, [3, 2]), transpose: (t, a) => t.transpose(a), expandDims: (t, a) => a.expandDims(1),
    squeeze: (t, a) => t.squeeze(t.reshape(a, [1, 6])), concat: (t, a, b) => t.concat([a, b], 1),
    stack: (t, a, b) => t.stack([a, b]), castFloat: (t, a) => t.cast(a, 'float32'), clone: (t, a) => a.clone(),
    castComplex: (t) => t.cast(t.tensor(real, [2, 3]), 'complex64'), zerosLike: (t, a) => t.zerosLike(a),
    onesLike: (t, a) => t.onesLike(a), fftMethod: (t, a) => a.fft(), irfftMethod: (t, a) => a.irfft(),
  };
  for (const [name, f] of Object.entries(cases)) {
    const run = (t) => t.tidy(() => {
      const a = t.complex(t.tensor(re, [2, 3]), t.tensor(im, [2, 3]));
      const b = t.complex(t.tensor(r2, [2, 3]), t.tensor(i2, [2, 3]));
      const y = f(t, a, b);
      return {shape: y.shape, dtype: y.dtype, values: Array.from(y.dataSync()), array: y.arraySync()};
    });
    const got = run(glint), want = run(tf);
    assert.deepEqual(got.shape, want.shape, name);
    assert.equal(got.dtype, want.dtype, name);
    assertClose(got.values, want.values, 1e-6, name);
    assert.equal(JSON.stringify(got.array).replace(/[0-9.e-]+/g, '#'), JSON.stringify(want.array).replace(/[0-9.e-]+/g, '#'),
        `${name}: arraySync's nesting`);
  }
});

test('complex64 in the ops TF.js lacks it for: against the parts computed in float64', () => {
  const re = randomValues(12, 1), im = randomValues(12, 2), r2 = randomValues(12, 3), i2 = randomValues(12, 4);
  const pair = (t) => [glint.complex(glint.tensor(re, [3, 4]), glint.tensor(im, [3, 4])),
    glint.complex(glint.tensor(r2, [3, 4]), glint.tensor(i2, [3, 4]))];
  const f32 = (v) => v.map(Math.fround);
  const parts = (y) => {
    const v = y.dataSync();
    return [Array.from(v).filter((_, i) => i % 2 === 0), Array.from(v).filter((_, i) => i % 2 === 1)];
  };
  glint.tidy(() => {
    const [a, b] = pair();
    // division: (a b*) / |b|^2
    const [dr, di] = parts(glint.div(a, b));
    for (let i = 0; i < 12; ++i) {
      const n = r2[i] * r2[i] + i2[i] * i2[i];
      assert.ok(Math.abs(dr[i] - (re[i] * r2[i] + im[i] * i2[i]) / n) < 1e-4 * Math.max(1, Math.abs(dr[i])));
      assert.ok(Math.abs(di[i] - (im[i] * r2[i] - re[i] * i2[i]) / n) < 1e-4 * Math.max(1, Math.abs(di[i])));
    }
    // TF.js 4.22 gives NaN for the imaginary parts of complex * number past the first element.
    const [mr, mi] = parts(a.mul(2));
    assert.deepEqual([mr, mi], [re.map((v) => 2 * Math.fround(v)), im.map((v) => 2 * Math.fround(v))]);
    const [nr, ni] = parts(glint.neg(a));
    assert.deepEqual([nr, ni], [re.map((v) => Math.fround(-v)), im.map((v) => Math.fround(-v))]);
    // Layout ops move both parts alike: row 2, reversed, gathered, tiled, summed.
    const [sr, si] = parts(glint.slice(a, [2, 0], [1, 4]));
    assertClose(sr, f32(re.slice(8)), 0, 'slice re');
    assertClose(si, f32(im.slice(8)), 0, 'slice im');
    const rows = glint.unstack(a);
    assert.equal(rows.length, 3);
    assertClose(parts(rows[1])[1], f32(im.slice(4, 8)), 0, 'unstack');
    const halves = glint.split(a, 2, 1);
    assert.deepEqual(halves[1].shape, [3, 2]);
    assertClose(parts(halves[1])[0], f32([re[2], re[3], re[6], re[7], re[10], re[11]]), 0, 'split');
    assertClose(parts(glint.reverse(a, 0))[0], f32([...re.slice(8), ...re.slice(4, 8), ...re.slice(0, 4)]), 0, 'reverse');
    assertClose(parts(glint.gather(a, [2, 0]))[1], f32([...im.slice(8), ...im.slice(0, 4)]), 0, 'gather');
    assert.deepEqual(glint.tile(a, [2, 1]).shape, [6, 4]);
    const [tr, ti] = parts(glint.sum(a, 0));
    for (let j = 0; j < 4; ++j) {
      assert.ok(Math.abs(tr[j] - (re[j] + re[4 + j] + re[8 + j])) < 1e-6);
      assert.ok(Math.abs(ti[j] - (im[j] + im[4 + j] + im[8 + j])) < 1e-6);
    }
  });
});

test('complex64 where it does not belong: errors naming the op, as TF.js refuses it', () => {
  glint.tidy(() => {
    const a = glint.complex([1, 2], [3, 4]);
    assert.throws(() => glint.exp(a), /\[exp\] input 0 is complex64/);
    assert.throws(() => glint.pow(a, 2), /\[pow\] input 0 is complex64/);
    assert.throws(() => glint.matMul(glint.reshape(a, [1, 2]), glint.ones([2, 1])), /\[matMul\] input 0 is complex64/);
    assert.throws(() => glint.tensor([1, 2], [1], 'complex64'), /use complex\(real, imag\)/);
    assert.throws(() => glint.complex([1, 2], [1, 2, 3]), /\[complex\] real and imag must have one shape: got \[2\] and \[3\]/);
    assert.throws(() => glint.rfft(a), /\[rfft\] input must be real/);
    assert.throws(() => glint.fft(glint.scalar(1)), /\[fft\] input needs rank >= 1/);
    assert.throws(() => glint.variable(a), /\[variable\] initialValue is complex64/);
    assert.throws(() => glint.grad((x) => glint.complex(x, x))(glint.ones([2])), /must return a real tensor/);
  });
});

test('gradients through the transforms agree with central differences', () => {
  const n = 70;  // four-step (7 x 10): products, twiddles, transposes
  const x0 = randomValues(n, 9), w = randomValues(n / 2 + 1, 10);
  // f(x) = sum(w * |rfft(x)|^2) + sum(real(ifft(fft(x) * x)))
  const f = (x) => glint.tidy(() => {
    const s = glint.rfft(x), p = glint.add(glint.square(glint.real(s)), glint.square(glint.imag(s)));
    return glint.add(glint.sum(glint.mul(p, glint.tensor(w))), glint.sum(glint.real(glint.ifft(glint.mul(glint.fft(x), x)))));
  });
  const g = glint.tidy(() => glint.grad(f)(glint.tensor(x0)).dataSync());
  const at = (v) => glint.tidy(() => f(glint.tensor(v)).dataSync()[0]);
  const h = 1e-2;
  for (let i = 0; i < n; ++i) {
    const p = x0.slice(), m = x0.slice();
    p[i] += h;
    m[i] -= h;
    const fd = (at(p) - at(m)) / (2 * h);
    assert.ok(Math.abs(g[i] - fd) <= 2e-2 * Math.max(1, Math.abs(fd)), `d/dx[${i}]: ${g[i]} vs ${fd}`);
  }
});

test('complex64 tensors: tidy keeps what it returns, dispose frees both parts, nothing leaks', () => {
  const start = glint.memory().numTensors;
  const kept = glint.tidy(() => {
    glint.signal.stft(glint.randomNormal([500]), 64, 32);
    glint.irfft(glint.rfft(glint.randomNormal([3, 257])));
    glint.fft(glint.complex(glint.randomNormal([2, 4096]), glint.randomNormal([2, 4096])));
    return glint.complex([1, 2], [3, 4]);
  });
  assert.equal(kept.isDisposed, false);
  assert.deepEqual(Array.from(kept.dataSync()), [1, 3, 2, 4]);
  // One tensor, as TF.js counts it (its two engine tensors are its own: not counted apart).
  assert.equal(glint.memory().numTensors, start + 1, 'a complex64 tensor counts as one');
  kept.dispose();
  assert.equal(kept.isDisposed, true);
  assert.equal(glint.memory().numTensors, start);
  assert.throws(() => kept.dataSync(), /disposed/);
});

test('async reads and printing', async () => {
  const c = glint.complex([1.5, -2], [0, 4]);
  assert.deepEqual(Array.from(await c.data()), [1.5, 0, -2, 4]);
  assert.deepEqual(await c.array(), [1.5, 0, -2, 4]);
  assert.match(c.toString(), /complex64 \[2\] \[1.5 \+ 0j, -2 \+ 4j\]/);
  c.dispose();
});
