// Hand-written graph models of the layout, math, windowed and image ops that
// published models use beyond the common convnet set (DepthToSpace in
// BlazePose, SpaceToBatchND in dilated MobileNets, BroadcastTo in FaceBoxes,
// MirrorPad, Cumsum, Einsum, ...), run by TF.js's own loadGraphModel; the
// builder and record() are graph_builder.mjs's, GraphInterop.* compares.
//   node tests/interop/graph_models_more.mjs build/interop/graph
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {A, F, Graph, randoms, record} from './graph_builder.mjs';

const out = process.argv[2] ?? 'build/interop/graph';
await tf.setBackend('cpu');
const warn = console.warn;  // executeAsync's advice to use execute, on every small model
console.warn = (...a) => { if (!String(a[0]).includes('did not contain')) warn(...a); };
const log = console.log;  // the Print node's output
const T = {T: A.type('DT_FLOAT')};
const I = {T: A.type('DT_INT32')};

// ---- layout: blocks, broadcasting, mirrored padding, reversal, einsum ------
{
  const g = new Graph();
  g.placeholder('x', [2, 4, 6, 8]);
  g.node('d2s', 'DepthToSpace', ['x'], {...T, block_size: A.i(2), data_format: A.s('NHWC')});
  g.ints('block', [2, 3]);
  g.const('pads', [1, 1, 0, 3], [2, 2], 'int32');
  g.node('s2b', 'SpaceToBatchND', ['x', 'block', 'pads'], T);
  g.const('crops', [0, 2, 1, 2], [2, 2], 'int32');
  g.node('b2s', 'BatchToSpaceND', ['s2b', 'block', 'crops'], T);
  g.placeholder('row', [1, 6, 1]);
  g.ints('target', [3, 6, 5]);
  g.node('bcast', 'BroadcastTo', ['row', 'target'], T);
  g.ints('s0', [4, 1, 5]);
  g.ints('s1', [3, 1]);
  g.node('bargs', 'BroadcastArgs', ['s0', 's1'], I);
  g.const('mpads', [0, 0, 2, 1, 3, 0, 1, 1], [4, 2], 'int32');
  g.node('reflect', 'MirrorPad', ['x', 'mpads'], {...T, mode: A.s('REFLECT')});
  g.node('symmetric', 'MirrorPad', ['x', 'mpads'], {...T, mode: A.s('SYMMETRIC')});
  g.ints('rev_axes', [1, -1]);
  g.node('rev', 'ReverseV2', ['x', 'rev_axes'], T);
  g.placeholder('m', [3, 4, 5]);
  g.scalarInt('band', 1);
  g.node('bandpart', 'MatrixBandPart', ['m', 'band', 'band'], T);
  g.ints('zshape', [2, 3]);
  g.node('zeros', 'Zeros', ['zshape'], T);
  g.node('ones', 'Ones', ['zshape'], I);
  g.placeholder('p', [3, 4]);
  g.placeholder('q', [4, 5]);
  g.node('mm', 'Einsum', ['p', 'q'], {...T, equation: A.s('ij,jk->ik'), N: A.i(2)});
  g.placeholder('bp', [2, 3, 4]);
  g.placeholder('bq', [2, 4, 5]);
  g.node('bmm', 'Einsum', ['bp', 'bq'], {...T, equation: A.s('bij,bjk->bik'), N: A.i(2)});
  g.node('outer', 'Einsum', ['p', 'p'], {...T, equation: A.s('ij,kl->ijkl'), N: A.i(2)});
  g.node('tr', 'Einsum', ['p'], {...T, equation: A.s('ij->ji'), N: A.i(1)});
  const dir = path.join(out, 'layout_more');
  g.write(dir);
  await record(dir, {x: F([2, 4, 6, 8]), row: F([1, 6, 1]), m: F([3, 4, 5]), p: F([3, 4]), q: F([4, 5]),
                     bp: F([2, 3, 4]), bq: F([2, 4, 5])},
               ['d2s', 's2b', 'b2s', 'bcast', 'bargs', 'reflect', 'symmetric', 'rev', 'bandpart', 'zeros', 'ones',
                'mm', 'bmm', 'outer', 'tr'], false);
}

// ---- math: hyperbolic and tangent, NaN tests, scans, norms, one-hot --------
{
  const g = new Graph();
  g.placeholder('x', [3, 5]);
  for (const op of ['Cosh', 'Sinh', 'Tan', 'Expm1']) g.node(op.toLowerCase(), op, ['x'], T);
  // NaN (log of a negative) and infinities (a division by zero) to test for;
  // the outputs are bools, since JSON cannot carry NaN.
  g.node('logx', 'Log', ['x'], T);
  g.const('zero', [0], [], 'float32');
  g.node('inf', 'RealDiv', ['x', 'zero'], T);
  g.node('isnan', 'IsNan', ['logx'], T);
  g.node('isinf', 'IsInf', ['inf'], T);
  g.node('isfinite', 'IsFinite', ['logx'], T);
  g.node('isfinite_inf', 'IsFinite', ['inf'], T);
  g.placeholder('d', [3, 5]);
  g.node('divnonan', 'DivNoNan', ['x', 'd'], T);
  g.const('mod_by', [1.5, -1.25, 0.75, 2, -0.5], [5]);
  g.node('mod', 'Mod', ['x', 'mod_by'], T);
  g.ints('axes1', [1]);
  g.node('norm', 'EuclideanNorm', ['x', 'axes1'], {...T, keep_dims: A.b(true)});
  g.scalarInt('ax1', 1);
  g.scalarInt('ax0', 0);
  g.node('cumsum', 'Cumsum', ['x', 'ax1'], {...T, exclusive: A.b(false), reverse: A.b(false)});
  g.node('cumsum_ex_rev', 'Cumsum', ['x', 'ax0'], {...T, exclusive: A.b(true), reverse: A.b(true)});
  g.node('cumprod', 'Cumprod', ['x', 'ax1'], {...T, exclusive: A.b(true), reverse: A.b(false)});
  g.placeholder('ix', [2, 3], 'int32');
  g.node('icumsum', 'Cumsum', ['ix', 'ax1'], {...I, exclusive: A.b(false), reverse: A.b(true)});
  g.const('lin_start', [-1], [], 'float32');
  g.const('lin_stop', [2], [], 'float32');
  g.scalarInt('lin_num', 7);
  g.node('linspace', 'LinSpace', ['lin_start', 'lin_stop', 'lin_num'], T);
  g.scalarInt('depth', 4);
  g.const('on', [2], [], 'float32');
  g.const('off', [-1], [], 'float32');
  g.node('onehot', 'OneHot', ['ix', 'depth', 'on', 'off'], {...T, axis: A.i(-1)});
  g.placeholder('img', [2, 3, 3, 7]);
  g.node('lrn', 'LRN', ['img'], {...T, depth_radius: A.i(2), bias: A.f(1.5), alpha: A.f(0.3), beta: A.f(0.75)});
  g.node('print', 'Print', ['x', 'x'], {message: A.s('graph Print:'), first_n: A.i(-1), summarize: A.i(3)});
  const dir = path.join(out, 'math_more');
  g.write(dir);
  console.log = () => {};
  await record(dir, {x: F([3, 5], -2, 2), d: {shape: [3, 5], dtype: 'float32', data: randoms(15).map((v, i) => (i % 4 ? v : 0))},
                     ix: {shape: [2, 3], dtype: 'int32', data: [0, 3, 1, 5, -1, 2]},
                     img: F([2, 3, 3, 7])},
               ['cosh', 'sinh', 'tan', 'expm1', 'isnan', 'isinf', 'isfinite', 'isfinite_inf', 'divnonan', 'mod', 'norm',
                'cumsum', 'cumsum_ex_rev', 'cumprod', 'icumsum', 'linspace', 'onehot', 'lrn',
                'print'], false);
  console.log = log;
  console.log('math_more: recorded');
}

// ---- windows: Conv1D, 3-D convolution and pools, argmax pooling, dilation --
{
  const g = new Graph();
  g.placeholder('seq', [2, 9, 3]);
  g.const('k1', randoms(3 * 3 * 4), [3, 3, 4]);
  g.node('conv1d', 'Conv1D', ['seq', 'k1'], {...T, stride: A.i(2), padding: A.s('SAME'), data_format: A.s('NWC'),
    dilation: A.i(1)});
  g.node('conv1d_dil', 'Conv1D', ['seq', 'k1'], {...T, stride: A.i(1), padding: A.s('VALID'), data_format: A.s('NWC'),
    dilation: A.i(2)});
  g.placeholder('vol', [1, 4, 5, 6, 2]);
  g.const('k3', randoms(2 * 3 * 2 * 2 * 3), [2, 3, 2, 2, 3]);
  g.node('conv3d', 'Conv3D', ['vol', 'k3'], {...T, strides: A.ints([1, 1, 2, 1, 1]), padding: A.s('SAME'),
    data_format: A.s('NDHWC'), dilations: A.ints([1, 1, 1, 1, 1])});
  g.node('maxpool3d', 'MaxPool3D', ['vol'], {...T, ksize: A.ints([1, 2, 2, 2, 1]), strides: A.ints([1, 2, 1, 2, 1]),
    padding: A.s('SAME'), data_format: A.s('NDHWC')});
  g.node('avgpool3d', 'AvgPool3D', ['vol'], {...T, ksize: A.ints([1, 2, 3, 2, 1]), strides: A.ints([1, 1, 2, 2, 1]),
    padding: A.s('VALID'), data_format: A.s('NDHWC')});
  g.placeholder('img', [2, 5, 6, 3]);
  for (const [name, pad, batch] of [['argmax_same', 'SAME', true], ['argmax_valid', 'VALID', false]]) {
    g.node(name, 'MaxPoolWithArgmax', ['img'], {T: A.type('DT_FLOAT'), Targmax: A.type('DT_INT32'),
      ksize: A.ints([1, 3, 2, 1]), strides: A.ints([1, 2, 2, 1]), padding: A.s(pad), include_batch_in_index: A.b(batch)});
  }
  g.const('dk', randoms(2 * 3 * 3), [2, 3, 3]);
  g.node('dilation', 'Dilation2D', ['img', 'dk'], {...T, strides: A.ints([1, 1, 2, 1]), rates: A.ints([1, 2, 1, 1]),
    padding: A.s('SAME')});
  g.node('dilation_valid', 'Dilation2D', ['img', 'dk'], {...T, strides: A.ints([1, 1, 1, 1]),
    rates: A.ints([1, 1, 1, 1]), padding: A.s('VALID')});
  const dir = path.join(out, 'windows_more');
  g.write(dir);
  await record(dir, {seq: F([2, 9, 3]), vol: F([1, 4, 5, 6, 2]), img: F([2, 5, 6, 3])},
               ['conv1d', 'conv1d_dil', 'conv3d', 'maxpool3d', 'avgpool3d', 'argmax_same', 'argmax_same:1',
                'argmax_valid', 'argmax_valid:1', 'dilation', 'dilation_valid'], false);
}

// ---- image sampling: crops and projective transforms ---------------------
// TF.js's transform reads the wrong pixels for images after the first of a
// batch (GraphOpsMore.ProjectiveTransformOfABatch checks batches), so the
// transforms here see one image.
{
  const g = new Graph();
  g.placeholder('img', [2, 6, 7, 3]);
  g.placeholder('one', [1, 6, 7, 3]);
  // Box corners chosen so that no sample falls on a pixel midpoint, where
  // float32 and float64 arithmetic may round to different neighbours.
  g.const('boxes', [0.13, 0.2, 0.8, 0.9, -0.2, 0.0, 0.57, 1.3, 0.6, 0.73, 0.2, 0.1], [3, 4]);
  g.const('box_ind', [1, 0, 1], [3], 'int32');
  g.ints('crop', [4, 5]);
  g.node('crop_bilinear', 'CropAndResize', ['img', 'boxes', 'box_ind', 'crop'], {...T, method: A.s('bilinear'),
    extrapolation_value: A.f(0.5)});
  g.node('crop_nearest', 'CropAndResize', ['img', 'boxes', 'box_ind', 'crop'], {...T, method: A.s('nearest'),
    extrapolation_value: A.f(0)});
  g.const('transforms', [0.9, 0.2, 1.3, -0.15, 1.1, -0.7, 0.01, -0.02], [1, 8]);
  g.ints('out_size', [5, 8]);
  g.const('fill', [0.25], [], 'float32');
  const names = ['crop_bilinear', 'crop_nearest'];
  for (const mode of ['CONSTANT', 'REFLECT', 'WRAP', 'NEAREST']) {
    for (const interp of ['NEAREST', 'BILINEAR']) {
      const name = `transform_${mode}_${interp}`.toLowerCase();
      g.node(name, 'ImageProjectiveTransformV3', ['one', 'transforms', 'out_size', 'fill'],
             {dtype: A.type('DT_FLOAT'), interpolation: A.s(interp), fill_mode: A.s(mode)});
      names.push(name);
    }
  }
  const dir = path.join(out, 'image_more');
  g.write(dir);
  await record(dir, {img: F([2, 6, 7, 3], 0, 1), one: F([1, 6, 7, 3], 0, 1)}, names, false);
}
