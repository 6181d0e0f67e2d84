// The TF.js names glint-ml composes in JS (ops_layout.js, ops_more.js,
// tensor_methods.js, tensor_buffer.js): each run on the same random inputs
// (random shapes too) in TF.js 4.22 (cpu) and glint-ml; values, dtypes and
// shapes compared, and gradients of the differentiable ones against tf.grad.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';
import {rng, values, int, size, flattenTensors as flatten} from './shared_cases.mjs';

await glint.ready();
await tf.setBackend('cpu');

const SEEDS = [1, 2, 3];

/** Each case: name, make(r) -> inputs (plain data), run(m, inputs) -> tensor | tensors | {..}, grad: index of the input to differentiate. */
const CASES = [
  {name: 'depthToSpace', make: (r) => {
    const s = int(r, 2, 3), shape = [int(r, 1, 2), int(r, 1, 3), int(r, 1, 3), s * s * int(r, 1, 2)];
    return {x: [values(r, size(shape)), shape], s};
  }, run: (m, {x, s}) => m.depthToSpace(m.tensor(...x), s), grad: 'x', gradRef: 'fd'},
  {name: 'spaceToBatchND', make: (r) => {
    const b = [int(r, 1, 3), int(r, 1, 2)], pads = [[int(r, 0, 2), 0], [0, int(r, 0, 1)]];
    const shape = [int(r, 1, 2), 0, 0, int(r, 1, 3)];
    shape[1] = b[0] * int(r, 1, 3) - pads[0][0] - pads[0][1];
    shape[2] = b[1] * int(r, 1, 3) - pads[1][0] - pads[1][1];
    if (shape[1] <= 0) shape[1] += b[0] * 2;
    if (shape[2] <= 0) shape[2] += b[1] * 2;
    return {x: [values(r, size(shape)), shape], b, pads};
  }, run: (m, {x, b, pads}) => m.spaceToBatchND(m.tensor(...x), b, pads), grad: 'x'},
  {name: 'batchToSpaceND', make: (r) => {
    const b = [int(r, 1, 3), int(r, 1, 2)], shape = [b[0] * b[1] * int(r, 1, 2), int(r, 1, 3), int(r, 1, 3), int(r, 1, 2)];
    const crops = [[int(r, 0, 1) * (b[0] > 1 ? 1 : 0), 0], [0, b[1] > 1 ? 1 : 0]];
    return {x: [values(r, size(shape)), shape], b, crops};
  }, run: (m, {x, b, crops}) => m.batchToSpaceND(m.tensor(...x), b, crops), grad: 'x'},
  ...['reflect', 'symmetric'].map((mode) => ({name: `mirrorPad ${mode}`, make: (r) => {
    const shape = [int(r, 2, 4), int(r, 2, 4), int(r, 2, 3)];
    const pads = shape.map((d) => [int(r, 0, d - 1), int(r, 0, d - 1)]);
    return {x: [values(r, size(shape)), shape], pads};
  }, run: (m, {x, pads}) => m.mirrorPad(m.tensor(...x), pads, mode), grad: 'x', gradRef: 'fd'})),
  {name: 'diag', make: (r) => {
    const shape = [int(r, 1, 3), int(r, 1, 3)];
    return {x: [values(r, size(shape)), shape]};
  }, run: (m, {x}) => m.diag(m.tensor(...x)), grad: 'x', gradRef: 'fd'},
  {name: 'diag int32', make: (r) => ({x: [values(r, 4, -5, 5).map(Math.round), [4], 'int32']}),
    run: (m, {x}) => m.diag(m.tensor(...x))},
  {name: 'scatterND', make: (r) => {
    const shape = [int(r, 2, 5), int(r, 1, 3)], n = int(r, 1, 6);
    const idx = Array.from({length: n}, () => [int(r, 0, shape[0] - 1)]);
    return {idx, upd: [values(r, n * shape[1]), [n, shape[1]]], shape};
  }, run: (m, {idx, upd, shape}) => m.scatterND(m.tensor(idx, undefined, 'int32'), m.tensor(...upd), shape)},
  {name: 'sparseToDense', make: (r) => {
    const n = int(r, 6, 9), pick = [...Array(n).keys()].filter(() => r() < 0.5);
    return {idx: pick, vals: values(r, pick.length), n, d: r()};
  }, run: (m, {idx, vals, n, d}) => m.sparseToDense(m.tensor(idx, [idx.length], 'int32'), m.tensor(vals, [vals.length]), [n], m.scalar(d))},
  {name: 'sparseToDense 2-D int32', make: () => ({}),
    run: (m) => m.sparseToDense(m.tensor([[0, 1], [2, 0]], [2, 2], 'int32'), m.tensor([5, 7], [2], 'int32'), [3, 2], m.scalar(-1, 'int32'))},
  {name: 'batchNorm4d', make: (r) => {
    const shape = [int(r, 1, 2), int(r, 1, 3), int(r, 1, 3), int(r, 1, 4)], c = shape[3];
    return {x: [values(r, size(shape)), shape], mean: values(r, c), v: values(r, c, 0.1, 1), off: values(r, c), sc: values(r, c)};
  }, run: (m, {x, mean, v, off, sc}) => m.batchNorm4d(m.tensor(...x), m.tensor(mean), m.tensor(v), m.tensor(off), m.tensor(sc), 1e-3), grad: 'x'},
  {name: 'separableConv2d', make: (r) => {
    const c = int(r, 1, 3), mult = int(r, 1, 2), out = int(r, 1, 3), shape = [1, int(r, 3, 5), int(r, 3, 5), c];
    return {x: [values(r, size(shape)), shape], dw: [values(r, 4 * c * mult), [2, 2, c, mult]],
      pw: [values(r, c * mult * out), [1, 1, c * mult, out]], pad: r() < 0.5 ? 'same' : 'valid'};
  }, run: (m, {x, dw, pw, pad}) => m.separableConv2d(m.tensor(...x), m.tensor(...dw), m.tensor(...pw), 1, pad), grad: 'x'},
  {name: 'localResponseNormalization', make: (r) => {
    const shape = [1, int(r, 1, 3), int(r, 1, 3), int(r, 2, 7)];
    return {x: [values(r, size(shape)), shape], rad: int(r, 1, 3), bias: 1 + r(), alpha: r(), beta: 0.25 + r() / 2};
  }, run: (m, {x, rad, bias, alpha, beta}) => m.localResponseNormalization(m.tensor(...x), rad, bias, alpha, beta), grad: 'x'},
  {name: 'movingAverage', make: (r) => {
    const n = int(r, 1, 6);
    return {v: values(r, n), x: values(r, n), decay: 0.5 + r() / 2, step: int(r, 1, 5)};
  }, run: (m, {v, x, decay, step}) => m.movingAverage(m.tensor(v), m.tensor(x), decay, step), grad: 'x'},
  {name: 'movingAverage no debias', make: (r) => ({v: values(r, 3), x: values(r, 3), decay: r()}),
    run: (m, {v, x, decay}) => m.movingAverage(m.tensor(v), m.tensor(x), decay, undefined, false)},
  ...['searchSorted', 'lowerBound', 'upperBound'].map((fn) => ({name: fn, make: (r) => {
    const rows = int(r, 1, 3), n = int(r, 1, 6), k = int(r, 1, 5);
    const sorted = Array.from({length: rows}, () => values(r, n, -3, 3).map(Math.round).sort((a, b) => a - b)).flat();
    return {s: [sorted, [rows, n]], v: [values(r, rows * k, -3, 3).map(Math.round), [rows, k]], right: r() < 0.5};
  }, run: (m, {s, v, right}) => (fn === 'searchSorted' ? m.searchSorted(m.tensor(...s), m.tensor(...v), right ? 'right' : 'left') :
      m[fn](m.tensor(...s), m.tensor(...v)))})),
  {name: 'searchSorted 1-D', make: (r) => ({s: values(r, 6).sort((a, b) => a - b), v: values(r, int(r, 1, 5))}),
    run: (m, {s, v}) => m.searchSorted(m.tensor(s), m.tensor(v))},
  {name: 'bincount', make: (r) => {
    const n = int(r, 1, 8);
    return {x: values(r, n, 0, 6).map(Math.floor), w: values(r, n), size: int(r, 3, 6)};
  }, run: (m, {x, size}) => m.bincount(m.tensor(x, [x.length], 'int32'), m.tensor([], [0]), size)},
  {name: 'bincount weighted', make: (r) => {
    const n = int(r, 1, 8);
    return {x: values(r, n, 0, 6).map(Math.floor), w: values(r, n), size: int(r, 3, 6)};
  }, run: (m, {x, w, size}) => m.bincount(m.tensor(x, [x.length], 'int32'), m.tensor(w), size)},
  {name: 'denseBincount 2-D binary', make: (r) => ({x: values(r, 12, 0, 5).map(Math.floor), size: 4}),
    run: (m, {x, size}) => m.denseBincount(m.tensor(x, [3, 4], 'int32'), m.tensor([], [0]), size, true)},
  {name: 'denseBincount 1-D weighted', make: (r) => ({x: values(r, 6, 0, 5).map(Math.floor), w: values(r, 6), size: 5}),
    run: (m, {x, w, size}) => m.denseBincount(m.tensor(x, [6], 'int32'), m.tensor(w), size)},
  {name: 'pool max dilated valid', make: (r) => {
    const shape = [1, int(r, 5, 7), int(r, 5, 7), int(r, 1, 2)];
    return {x: [values(r, size(shape)), shape], d: [int(r, 1, 2), 2]};
  }, run: (m, {x, d}) => m.pool(m.tensor(...x), [2, 2], 'max', 'valid', d), grad: 'x'},
  {name: 'pool avg dilated valid', make: (r) => {
    const shape = [1, int(r, 5, 7), int(r, 5, 7), 2];
    return {x: [values(r, size(shape)), shape]};
  }, run: (m, {x}) => m.pool(m.tensor(...x), [2, 3], 'avg', 'valid', [2, 1]), grad: 'x'},
  {name: 'unique', make: (r) => ({x: values(r, int(r, 1, 10), 0, 4).map(Math.floor)}),
    run: (m, {x}) => m.unique(m.tensor(x, [x.length], 'int32'))},
  {name: 'unique axis 1', make: (r) => ({x: values(r, 12, 0, 2).map(Math.floor)}),
    run: (m, {x}) => m.unique(m.tensor(x, [2, 6]), 1)},
  {name: 'linalg.bandPart', make: (r) => ({x: [values(r, 20), [4, 5]], lo: int(r, -1, 2), hi: int(r, -1, 2)}),
    run: (m, {x, lo, hi}) => m.linalg.bandPart(m.tensor(...x), lo, hi), grad: 'x', gradRef: 'fd'},
  {name: 'linalg.gramSchmidt', make: (r) => ({x: [values(r, 12), [3, 4]]}),
    run: (m, {x}) => m.linalg.gramSchmidt(m.tensor(...x)), grad: 'x', tol: 1e-4},
  ...[[3, 3, false], [4, 2, false], [2, 4, false], [4, 2, true], [3, 3, true]].map(([rows, cols, full]) => ({
    // TF.js 4.22 fails on batches of non-square matrices (its reshape back), so those run unbatched.
    name: `linalg.qr ${rows}x${cols}${full ? ' full' : ''}`, make: (r) => ({x: rows === cols ?
      [values(r, 2 * rows * cols), [2, rows, cols]] : [values(r, rows * cols), [rows, cols]]}),
    run: (m, {x}) => m.linalg.qr(m.tensor(...x), full), tol: 1e-4, grad: 'x', gradRef: 'fd'})),
  {name: 'signal.hannWindow', make: (r) => ({n: int(r, 1, 9)}), run: (m, {n}) => m.signal.hannWindow(n)},
  {name: 'signal.hammingWindow', make: (r) => ({n: int(r, 1, 9)}), run: (m, {n}) => m.signal.hammingWindow(n)},
  {name: 'signal.frame', make: (r) => ({x: values(r, int(r, 5, 12)), len: int(r, 1, 4), step: int(r, 1, 3), padEnd: r() < 0.5}),
    run: (m, {x, len, step, padEnd}) => m.signal.frame(m.tensor(x), len, step, padEnd), grad: 'x'},
  {name: 'image.grayscaleToRGB', make: (r) => ({x: [values(r, 6), [2, 3, 1]]}),
    run: (m, {x}) => m.image.grayscaleToRGB(m.tensor(...x)), grad: 'x'},
  {name: 'basicLSTMCell', make: (r) => {
    const b = int(r, 1, 3), i = int(r, 1, 3), u = int(r, 1, 3);
    return {k: [values(r, (i + u) * 4 * u), [i + u, 4 * u]], bias: values(r, 4 * u), x: [values(r, b * i), [b, i]],
      c: [values(r, b * u), [b, u]], h: [values(r, b * u), [b, u]]};
  }, run: (m, {k, bias, x, c, h}) => m.basicLSTMCell(m.scalar(1), m.tensor(...k), m.tensor(bias), m.tensor(...x), m.tensor(...c), m.tensor(...h)),
  grad: 'x'},
  ...['ij,jk->ik', 'ij,jk->ki', 'bij,bjk->bik', 'i,j->ij', 'i,i->', 'ij->ji', 'ij->i', 'ijk,k->ij', 'ij,ij->i']
    .map((eq) => ({name: `einsum ${eq}`, make: (r) => {
      const dims = {b: int(r, 1, 3), i: int(r, 1, 4), j: int(r, 1, 4), k: int(r, 1, 4)};
      const terms = eq.split('->')[0].split(',');
      return Object.fromEntries(terms.map((t, n) => {
        const shape = [...t].map((c) => dims[c]);
        return [`x${n}`, [values(r, size(shape)), shape]];
      }));
    }, run: (m, inputs) => m.einsum(eq, ...Object.keys(inputs).sort().map((k) => m.tensor(...inputs[k]))), grad: 'x0',
    gradRef: 'fd'})),
  {name: 'topk', make: (r) => {
    const shape = [int(r, 1, 3), int(r, 1, 6)];
    // Rounded to tenths so that ties occur.
    return {x: [values(r, size(shape)).map((v) => Math.round(v * 10) / 10), shape], k: int(r, 0, shape[1])};
  }, run: (m, {x, k}) => m.topk(m.tensor(...x), k)},
  // Values at least 0.15 apart, so the central differences never reorder them.
  {name: 'topk gradient', make: (r) => ({x: [Array.from({length: 12}, (_, i) => i * 0.15 - 0.8).sort(() => r() - 0.5), [2, 6]],
    k: int(r, 1, 6)}),
    run: (m, {x, k}) => m.topk(m.tensor(...x), k).values, grad: 'x', gradRef: 'fd'},
  {name: 'topk with -Infinity', make: () => ({x: [[-Infinity, 2, -Infinity, 1], [4]]}),
    run: (m, {x}) => m.topk(m.tensor(...x), 4)},
  {name: 'topk int32 1-D', make: (r) => ({x: [values(r, 7, -9, 9).map(Math.round), [7], 'int32'], k: int(r, 1, 7)}),
    run: (m, {x, k}) => m.topk(m.tensor(...x), k)},
  ...['same', 'valid'].map((pad) => ({name: `dilation2d ${pad}`, make: (r) => {
    const c = int(r, 1, 2), shape = [int(r, 1, 2), int(r, 4, 6), int(r, 4, 6), c];
    return {x: [values(r, size(shape)), shape], f: [values(r, 4 * c), [2, 2, c]], s: int(r, 1, 2), d: int(r, 1, 2)};
  }, run: (m, {x, f, s, d}) => (s > 1 && d > 1 ? m.dilation2d(m.tensor(...x), m.tensor(...f), s, pad) :
      m.dilation2d(m.tensor(...x), m.tensor(...f), s, pad, d)), grad: 'x'})),
  {name: 'tensorScatterUpdate', make: (r) => {
    const shape = [int(r, 2, 5), int(r, 1, 3)], n = int(r, 1, 4);
    // Distinct indices: TF.js's cpu kernel sums repeated ones, while TF (and Glint) keep the last.
    const rows = [...Array(shape[0]).keys()].sort(() => r() - 0.5).slice(0, Math.min(n, shape[0]));
    return {t: [values(r, size(shape)), shape], idx: rows.map((i) => [i]), upd: [values(r, rows.length * shape[1]), [rows.length, shape[1]]]};
  }, run: (m, {t, idx, upd}) => m.tensorScatterUpdate(m.tensor(...t), m.tensor(idx, undefined, 'int32'), m.tensor(...upd)),
  grad: 't', gradRef: 'fd'},
  ...[[false, false], [true, false], [false, true], [true, true]].map(([exclusive, reverse]) => ({
    name: `cumprod${exclusive ? ' exclusive' : ''}${reverse ? ' reverse' : ''}`, make: (r) => {
      const shape = [int(r, 1, 3), int(r, 1, 9), int(r, 1, 2)];
      // Non-negative axes: TF.js 4.22's cumprod returns a malformed shape for negative ones.
      return {x: [values(r, size(shape), -1.5, 1.5), shape], axis: int(r, 0, 2)};
    }, run: (m, {x, axis}) => m.cumprod(m.tensor(...x), axis, exclusive, reverse), grad: 'x', gradRef: 'fd'})),
  {name: 'cumprod int32 with zeros', make: (r) => ({x: [values(r, 8, -3, 3).map(Math.round), [8], 'int32']}),
    run: (m, {x}) => m.cumprod(m.tensor(...x))},
  ...[['same', false], ['valid', true]].map(([pad, batchIndex]) => ({name: `maxPoolWithArgmax ${pad}${batchIndex ? ' batch index' : ''}`,
    make: (r) => {
      const shape = [int(r, 1, 2), int(r, 3, 6), int(r, 3, 6), int(r, 1, 3)];
      return {x: [values(r, size(shape)), shape], f: [int(r, 1, 3), int(r, 1, 3)], s: [int(r, 1, 2), int(r, 1, 2)]};
    }, run: (m, {x, f, s}) => m.maxPoolWithArgmax(m.tensor(...x), f, s, pad, batchIndex)})),
  ...[['conv2d', 'relu'], ['conv2d', 'prelu'], ['depthwiseConv2d', 'leakyrelu'], ['depthwiseConv2d', 'elu']].map(([op, act]) => ({
    name: `fused.${op} ${act}`, make: (r) => {
      const c = int(r, 1, 3), o = op === 'conv2d' ? int(r, 1, 3) : c * 2, shape = [1, int(r, 3, 5), int(r, 3, 5), c];
      return {x: [values(r, size(shape)), shape], f: [values(r, 4 * c * (op === 'conv2d' ? o : 2)), [2, 2, c, op === 'conv2d' ? o : 2]],
        bias: values(r, o), alpha: values(r, o), pad: r() < 0.5 ? 'same' : 'valid'};
    }, run: (m, {x, f, bias, alpha, pad}) => m.fused[op]({x: m.tensor(...x), filter: m.tensor(...f), strides: 1, pad,
      bias: m.tensor(bias), activation: act, preluActivationWeights: m.tensor(alpha), leakyreluAlpha: 0.1}), grad: 'x'})),
  {name: 'broadcastArgs', make: (r) => ({a: [int(r, 1, 3), 1, int(r, 1, 4)], b: [1, int(r, 1, 5), 1]}),
    run: (m, {a, b}) => m.broadcastArgs(m.tensor(a, [a.length], 'int32'), m.tensor(b, undefined, 'int32'))},
  ...['binary', 'otsu'].flatMap((method) => [1, 3].map((ch) => ({name: `image.threshold ${method} ${ch}ch`,
    make: (r) => ({x: [values(r, 30 * ch, 0, 255).map(Math.round), [5, 6, ch], 'int32'], inv: r() < 0.5, tv: r()}),
    run: (m, {x, inv, tv}) => m.image.threshold(m.tensor(...x), method, inv, tv)}))),
  // Batch 1: TF.js 4.22's cpu Transform kernel returns after the first image of a batch.
  ...['nearest', 'bilinear'].flatMap((interp) => ['constant', 'reflect', 'wrap', 'nearest'].map((mode) => ({
    name: `image.transform ${interp} ${mode}`, make: (r) => {
      const shape = [1, int(r, 3, 6), int(r, 3, 6), int(r, 1, 3)];
      const t = [1 + r() * 0.4, r() * 0.5 - 0.25, r() * 4 - 2, r() * 0.5 - 0.25, 1 + r() * 0.4 - 0.2, r() * 4 - 2,
        r() * 0.02, r() * 0.02];
      return {x: [values(r, size(shape)), shape], t, fill: r(), out: r() < 0.5 ? undefined : [int(r, 2, 5), int(r, 2, 5)]};
    }, run: (m, {x, t, fill, out}) => m.image.transform(m.tensor(...x), m.tensor([t]), interp, mode, fill, out),
    grad: interp === 'bilinear' && mode === 'constant' ? 'x' : undefined, gradRef: 'fd'}))),
  {name: 'image.transform 0..255', make: (r) => ({x: [values(r, 16, 0, 255).map(Math.round), [1, 4, 4, 1]]}),
    run: (m, {x}) => m.image.transform(m.tensor(...x), m.tensor([[0.7, 0.2, 0.5, -0.1, 0.9, 0.3, 0, 0]]), 'bilinear')},
  ...[[0.5, 0], [[0.3, 0.7], [10, 20, 30]]].map(([center, fill]) => ({name: `image.rotateWithOffset center ${JSON.stringify(center)}`,
    make: (r) => {
      const shape = [int(r, 1, 2), int(r, 3, 6), int(r, 3, 6), Array.isArray(fill) ? 3 : int(r, 1, 4)];
      return {x: [values(r, size(shape), 0, 255).map(Math.round), shape], rad: r() * 6 - 3};
    }, run: (m, {x, rad}) => m.image.rotateWithOffset(m.tensor(...x), rad, fill, center)})),
  // Random arguments (values and gradients), then the edges: tiny, near 1, huge (values).
  ...[['asinh', -3, 3], ['acosh', 1.01, 50], ['atanh', -0.99, 0.99], ['asin', -0.99, 0.99],
    ['acos', -0.99, 0.99], ['atan', -20, 20], ['erf', -3, 3]].map(([fn, lo, hi]) => ({name: fn,
    make: (r) => ({x: [values(r, 9, lo, hi), [9]]}), run: (m, {x}) => m[fn](m.tensor(...x)), grad: 'x', tol: 1e-5})),
  ...[['asinh', [0, 1e-8, -3e-6, 1e12, -5e11, 1e30]], ['acosh', [1, 1 + 1e-6, 3e15, 1e30]], ['atanh', [0, 1e-7, -2e-6, 0.9999]],
    ['asin', [0, 1e-8, -1, 1, 0.9999]], ['acos', [1, -1, 0.9999, -0.9999, 0]],
    ['atan', [0, 1e-8, -3e-20, 1e30, -1e30, 0.41, 2.42, Infinity]], ['erf', [0, 1e-8, -4, 10, 0.49, 0.51]]]
    .map(([fn, edge]) => ({name: `${fn} edges`, make: () => ({}), run: (m) => m[fn](m.tensor(edge)), tol: 2e-6})),
  {name: 'acosh below 1 and atanh outside [-1, 1] are NaN', make: () => ({}),
    run: (m) => [m.acosh(m.tensor([0.5, -2])), m.atanh(m.tensor([1.5, -3]))]},
  {name: 'asin and acos outside [-1, 1] are NaN', make: () => ({}),
    run: (m) => [m.asin(m.tensor([1.5, -2])), m.acos(m.tensor([-1.01, 3]))]},
  ...['asin', 'atan', 'erf'].map((fn) => ({name: `tensor.${fn} int32`,
    make: (r) => ({x: [values(r, 4, -1, 1).map(Math.round), [4], 'int32']}), run: (m, {x}) => m.tensor(...x)[fn]()})),
  {name: 'atan2', make: (r) => ({a: [values(r, 6, -3, 3), [2, 3]], b: [values(r, 3, -3, 3), [3]]}),
    run: (m, {a, b}) => m.atan2(m.tensor(...a), m.tensor(...b)), grad: 'a', tol: 1e-5},
  {name: 'atan2 quadrants, zeros and infinities', make: () => ({}),
    run: (m) => m.atan2(m.tensor([1, -1, 1, -1, 0, 0, Infinity, -Infinity, 2]), m.tensor([1, 1, -1, -1, 1, -1, 1, -Infinity, Infinity]))},
  {name: 'atan2 int32', make: (r) => ({a: [values(r, 4, -9, 9).map(Math.round), [4], 'int32'], b: [values(r, 4, 1, 9).map(Math.round), [4], 'int32']}),
    run: (m, {a, b}) => m.tensor(...a).atan2(m.tensor(...b))},
  {name: 'tensor.asinh int32', make: (r) => ({x: [values(r, 4, -9, 9).map(Math.round), [4], 'int32']}),
    run: (m, {x}) => m.tensor(...x).asinh()},
  ...['sparseSegmentSum', 'sparseSegmentMean'].map((fn) => ({name: `sparse.${fn}`, make: (r) => {
    const rows = int(r, 2, 5), cols = int(r, 1, 3), n = int(r, 1, 7);
    let seg = 0;
    const ids = Array.from({length: n}, () => (seg += int(r, 0, 2)));
    return {d: [values(r, rows * cols), [rows, cols]], idx: Array.from({length: n}, () => int(r, 0, rows - 1)), ids};
  }, run: (m, {d, idx, ids}) => m.sparse[fn](m.tensor(...d), m.tensor(idx, [idx.length], 'int32'), m.tensor(ids, [ids.length], 'int32')),
  grad: 'd', gradRef: 'fd'})),
  {name: 'sparse.sparseReshape', make: (r) => {
    const shape = [int(r, 1, 4), int(r, 1, 4), int(r, 1, 3)], n = int(r, 1, 5), sz = size(shape);
    const lin = Array.from({length: n}, () => int(r, 0, sz - 1));
    const idx = lin.map((l) => [Math.floor(l / (shape[1] * shape[2])), Math.floor(l / shape[2]) % shape[1], l % shape[2]]);
    return {idx, shape, newShape: [shape[0] * shape[1], -1]};
  }, run: (m, {idx, shape, newShape}) => m.sparse.sparseReshape(m.tensor(idx, undefined, 'int32'), m.tensor(shape, undefined, 'int32'),
      m.tensor(newShape, undefined, 'int32'))},
  {name: 'sparse.sparseFillEmptyRows', make: (r) => {
    const rows = int(r, 2, 6), n = int(r, 0, 5);
    const idx = Array.from({length: n}, () => [int(r, 0, rows - 1), int(r, 0, 3)]).sort((a, b) => a[0] - b[0]);
    return {idx, vals: values(r, n), rows, d: r()};
  }, run: (m, {idx, vals, rows, d}) => m.sparse.sparseFillEmptyRows(m.tensor(idx.length ? idx : [], [idx.length, 2], 'int32'),
      m.tensor(vals, [vals.length]), m.tensor([rows, 4], undefined, 'int32'), m.scalar(d))},
  {name: 'bitwiseAnd', make: (r) => {
    const n = int(r, 1, 8);
    const big = () => Math.floor((r() * 2 - 1) * 2 ** 31);
    return {a: [...Array.from({length: n}, big), -1, 2147483647, -2147483648, 0], b: [...Array.from({length: n}, big), -7, -1, -2147483648, 5]};
  }, run: (m, {a, b}) => m.bitwiseAnd(m.tensor(a, undefined, 'int32'), m.tensor(b, undefined, 'int32'))},
  {name: 'raggedRange int32', make: (r) => {
    const n = int(r, 1, 5);
    return {s: Array.from({length: n}, () => int(r, -5, 5)), l: Array.from({length: n}, () => int(r, -5, 9)),
      d: Array.from({length: n}, () => (r() < 0.3 ? -1 : 1) * int(r, 1, 3))};
  }, run: (m, {s, l, d}) => m.raggedRange(m.tensor(s, undefined, 'int32'), m.tensor(l, undefined, 'int32'), m.tensor(d, undefined, 'int32'))},
  {name: 'raggedRange float32 with scalars', make: (r) => ({s: values(r, 3, -2, 2), l: 3.5, d: 0.75}),
    run: (m, {s, l, d}) => m.raggedRange(m.tensor(s), m.scalar(l), m.scalar(d))},
  {name: 'randomUniformInt dtype and shape', make: (r) => ({shape: [int(r, 1, 4), int(r, 1, 4)]}),
    run: (m, {shape}) => m.greaterEqual(m.randomUniformInt(shape, 3, 3), 3)},
  {name: 'rand', make: (r) => ({shape: [int(r, 1, 3), int(r, 1, 3)]}), run: (m, {shape}) => {
    let i = 0;
    return m.rand(shape, () => i++ * 0.5);
  }},
  {name: 'TensorBuffer set/get/toTensor', make: (r) => ({shape: [int(r, 1, 3), int(r, 1, 3)], v: values(r, 9)}), run: (m, {shape, v}) => {
    const b = m.buffer(shape, 'float32');
    for (let i = 0; i < shape[0]; ++i) for (let j = 0; j < shape[1]; ++j) b.set(v[i * 3 + j], i, j);
    b.set(b.get(0, 0) * 2, 0, 0);
    return b.toTensor();
  }},
  {name: 'tensor.bufferSync', make: (r) => ({x: [values(r, 6), [2, 3]]}), run: (m, {x}) => {
    const b = m.tensor(...x).bufferSync();
    return m.tensor([b.get(1, 2), b.get(0, 1), b.locToIndex([1, 1]), ...b.indexToLoc(4), b.rank, b.size], undefined, 'float32');
  }},
  ...[['as4D', (t) => t.as4D(1, 2, 3, 1)], ['as3D', (t) => t.as3D(2, 1, 3)], ['as5D', (t) => t.as5D(1, 1, 2, 3, 1)],
    ['toInt', (t) => t.mul(3).toInt()], ['toFloat', (t) => t.toInt().toFloat()], ['toBool', (t) => t.toBool()],
    ['reshapeAs', (t, m) => t.reshapeAs(m.zeros([3, 2]))], ['concat', (t, m) => t.concat(m.ones([2, 3]), 1)],
    ['stack', (t) => t.stack(t, 1)], ['where', (t, m) => t.where(m.tensor([[true, false, true], [false, false, true]]), m.zerosLike(t))],
    ['cumsum', (t) => t.cumsum(1)], ['isNaN', (t) => t.div(t.abs().sub(t.abs())).isNaN()], ['norm', (t) => t.norm()],
    ['expm1', (t) => t.expm1()], ['tan', (t) => t.tan()], ['sinh', (t) => t.sinh()], ['step', (t) => t.step()],
    ['mirrorPad', (t) => t.mirrorPad([[1, 1], [2, 0]], 'reflect'), 'fd'], ['broadcastTo', (t) => t.broadcastTo([2, 2, 3])],
    ['unsortedSegmentSum', (t, m) => t.unsortedSegmentSum(m.tensor([1, 1], [2], 'int32'), 3)],
    ['resizeBilinear', (t) => t.reshape([1, 2, 3, 1]).resizeBilinear([4, 5])],
    ['asScalar', (t) => t.slice([0, 0], [1, 1]).asScalar()],
  ].map(([name, f, gradRef]) => ({name: `tensor.${name}`, make: (r) => ({x: [values(r, 6), [2, 3]]}), run: (m, {x}) => f(m.tensor(...x), m), gradRef,
    grad: ['toInt', 'toBool', 'isNaN', 'toFloat', 'step', 'resizeBilinear'].includes(name) ? undefined : 'x'})),
];

function compare(label, ours, theirs, tol) {
  assert.equal(ours.length, theirs.length, `${label}: ${ours.length} outputs vs ${theirs.length}`);
  ours.forEach((o, i) => {
    const t = theirs[i];
    assert.deepEqual(o.shape, t.shape, `${label} output ${i}: shape`);
    assert.equal(o.dtype, t.dtype, `${label} output ${i}: dtype`);
    const a = o.dataSync(), b = t.dataSync();
    for (let j = 0; j < b.length; ++j) {
      const err = Math.abs(a[j] - b[j]);
      assert.ok(a[j] === b[j] || err <= tol * Math.max(1, Math.abs(b[j])) || (Number.isNaN(a[j]) && Number.isNaN(b[j])),
                `${label} output ${i} element ${j}: ${a[j]} vs TF.js ${b[j]}`);
    }
  });
}

// Inputs as TF.js gets them and as glint gets them: run() builds tensors from the plain data.
for (const c of CASES) {
  test(`${c.name} agrees with TF.js`, () => {
    for (const seed of SEEDS) {
      const inputs = c.make(rng(seed * 7919 + c.name.length));
      const label = `${c.name} (seed ${seed}, ${JSON.stringify(inputs).slice(0, 120)})`;
      const before = glint.memory().numTensors;
      glint.tidy(() => tf.tidy(() => {
        compare(label, flatten(c.run(glint, inputs)), flatten(c.run(tf, inputs)), c.tol ?? 1e-5);
      }));
      assert.equal(glint.memory().numTensors, before, `${label}: tensors leaked`);
      if (c.grad) {
        const ours = glint.tidy(() => Array.from(gradient(glint, c, inputs, seed).dataSync()));
        const theirs = c.gradRef === 'fd' ? finiteDifferences(c, inputs, seed) :
            tf.tidy(() => Array.from(gradient(tf, c, inputs, seed).dataSync()));
        const tol = c.gradRef === 'fd' ? 2e-2 : (c.tol ?? 1e-4);
        assert.equal(ours.length, theirs.length, `${label}: gradient sizes`);
        ours.forEach((v, j) => assert.ok(Math.abs(v - theirs[j]) <= tol * Math.max(1, Math.abs(theirs[j])),
                                         `${label}: gradient element ${j}: ${v} vs TF.js ${theirs[j]}`));
      }
    }
  });
}

/** sum(out * w) on TF.js's forward pass, for central differences. */
function objective(m, c, inputs, seed, vals) {
  return m.tidy(() => {
    const spec = inputs[c.grad];
    const [orig, shape, dtype] = Array.isArray(spec) && Array.isArray(spec[0]) ? spec : [spec, [spec.length]];
    const proxy = new Proxy(m, {get: (target, key) => (key === 'tensor' ?
        (v, ...rest) => (v === orig ? target.tensor(vals, shape, dtype) : target.tensor(v, ...rest)) : target[key])});
    const outs = flatten(c.run(proxy, inputs));
    return outs.map((o) => {
      const w = m.tensor(values(rng(seed + 100), o.size).map((v) => v + 1.5), o.shape);
      return m.sum(m.mul(m.cast(o, 'float32'), w)).dataSync()[0];
    }).reduce((a, b) => a + b);
  });
}

/**
 * Where TF.js has no gradient for an op (DepthToSpace, Diag, bandPart) or a
 * wrong one (MirrorPad's drops the mirrored parts), the reference is central
 * differences of TF.js's forward pass, in float64 steps of 1e-2.
 */
function finiteDifferences(c, inputs, seed) {
  const spec = inputs[c.grad];
  const orig = Array.isArray(spec) && Array.isArray(spec[0]) ? spec[0] : spec;
  const h = 1e-2;
  return orig.map((_, j) => {
    const plus = orig.slice(), minus = orig.slice();
    plus[j] += h;
    minus[j] -= h;
    return (objective(tf, c, inputs, seed, plus) - objective(tf, c, inputs, seed, minus)) / (2 * h);
  });
}

/**
 * The gradient of sum(out * w) with respect to input c.grad: run() is given a
 * module whose tensor() returns the differentiated tensor for that input.
 */
function gradient(m, c, inputs, seed) {
  const spec = inputs[c.grad];
  const [vals, shape, dtype] = Array.isArray(spec) && Array.isArray(spec[0]) ? spec : [spec, [spec.length]];
  const x0 = m.tensor(vals, shape, dtype);
  const g = m.grad((x) => {
    const proxy = new Proxy(m, {get: (target, key) => (key === 'tensor' ?
        (v, ...rest) => (v === vals ? x : target.tensor(v, ...rest)) : target[key])});
    const outs = flatten(c.run(proxy, inputs));
    return outs.map((o) => {
      const w = m.tensor(values(rng(seed + 100), o.size).map((v) => v + 1.5), o.shape);
      return m.sum(m.mul(m.cast(o, 'float32'), w));
    }).reduce((a, b) => m.add(a, b));
  });
  return g(x0);
}

test('random draws with an integer or bool dtype: the dtype TF.js gives, values as it converts them', () => {
  const cases = [
    ['randomUniform', [2000], -3, 3, 'int32', (v) => Number.isInteger(v) && v > -3 && v < 3],
    ['randomUniform', [2000], 0, 2, 'bool', (v) => v === 0 || v === 1],
    ['randomNormal', [2000], 0, 3, 'int32', Number.isInteger],
    ['truncatedNormal', [2000], 0, 3, 'int32', (v) => Number.isInteger(v) && Math.abs(v) <= 6],
  ];
  for (const [op, shape, a, b, dtype, ok] of cases) {
    const ours = glint[op](shape, a, b, dtype, 7), theirs = tf[op](shape, a, b, dtype, 7);
    assert.equal(ours.dtype, theirs.dtype, op);
    const got = Array.from(ours.dataSync());
    assert.ok(got.every(ok), `${op} ${dtype}: ${got.slice(0, 8)}`);
    // The same conversion of the same kind of draw: the means agree within sampling error.
    const mean = (xs) => xs.reduce((s, v) => s + v, 0) / xs.length;
    assert.ok(Math.abs(mean(got) - mean(Array.from(theirs.dataSync()))) < 0.35, `${op} ${dtype} means`);
    // Integer values spread over the range, not all one value.
    assert.ok(new Set(got).size >= 2, `${op} ${dtype}: ${new Set(got).size} distinct values`);
    glint.dispose(ours);
    theirs.dispose();
  }
  assert.throws(() => glint.randomNormal([2], 0, 1, 'bool'), /randomNormal.*dtype.*'bool'/);
  assert.throws(() => tf.randomNormal([2], 0, 1, 'bool'));
});
