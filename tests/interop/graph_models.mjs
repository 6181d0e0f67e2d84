// Small TF.js graph models written by hand (GraphDef JSON + weights), run
// with TF.js's own tf.loadGraphModel on the cpu backend. For each model it
// writes <out>/<model>/model.json + shard, and cases.json: the inputs fed,
// the tensors asked for (outputs and intermediate nodes, through execute)
// and what TF.js computed. GraphInterop.* (tests/unit/graph_model_test.cpp)
// loads the same files with Glint and compares.
//   node tests/interop/graph_models.mjs build/interop/graph
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {A, DT, F, Graph, random, randoms, record} from './graph_builder.mjs';

const out = process.argv[2] ?? 'build/interop/graph';
await tf.setBackend('cpu');
const warn = console.warn;  // executeAsync's advice to use execute, on every small model
console.warn = (...a) => { if (!String(a[0]).includes('did not contain')) warn(...a); };

// ---- convnet: convolutions, pooling, fused ops, batch norm, matmuls -------
{
  const g = new Graph();
  const T = {T: A.type('DT_FLOAT')};
  const nhwc = {data_format: A.s('NHWC')};
  g.placeholder('image', [-1, 8, 8, 3]);
  g.const('w1', randoms(3 * 3 * 3 * 4), [3, 3, 3, 4], 'float32', 'uint8');
  g.const('b1', randoms(4), [4]);
  g.node('conv1', 'Conv2D', ['image', 'w1'], {...T, ...nhwc, strides: A.ints([1, 1, 1, 1]), padding: A.s('SAME'),
    dilations: A.ints([1, 1, 1, 1])});
  g.node('bias1', 'BiasAdd', ['conv1', 'b1'], {...T, ...nhwc});
  g.node('relu1', 'Relu', ['bias1'], T);
  // NCHW: TF.js runs Conv2D in it (its depthwise, pooling and BiasAdd
  // ignore or mishandle data_format, so only Conv2D is compared), but reads
  // strides at the NHWC positions: unit strides, where that cannot matter.
  g.ints('to_nchw', [0, 3, 1, 2]);
  g.node('image_nchw', 'Transpose', ['image', 'to_nchw'], {...T, Tperm: A.type('DT_INT32')});
  g.node('conv_nchw', 'Conv2D', ['image_nchw', 'w1'], {...T, data_format: A.s('NCHW'), strides: A.ints([1, 1, 1, 1]),
    padding: A.s('SAME'), dilations: A.ints([1, 1, 1, 1])});
  g.const('w2', randoms(2 * 2 * 4 * 6), [2, 2, 4, 6], 'float32', 'float16');
  g.const('b2', randoms(6), [6], 'float32', 'uint16');
  g.node('fconv2', '_FusedConv2D', ['relu1', 'w2', 'b2'], {...T, ...nhwc, strides: A.ints([1, 2, 2, 1]),
    padding: A.s('VALID'), dilations: A.ints([1, 1, 1, 1]), fused_ops: A.strs(['BiasAdd', 'Relu6']), num_args: A.i(1)});
  g.const('dw3', randoms(3 * 3 * 6 * 1), [3, 3, 6, 1]);
  g.node('dconv3', 'DepthwiseConv2dNative', ['fconv2', 'dw3'], {...T, ...nhwc, strides: A.ints([1, 1, 1, 1]),
    padding: A.s('SAME'), dilations: A.ints([1, 2, 2, 1])});
  g.const('dw4', randoms(3 * 3 * 6 * 2), [3, 3, 6, 2]);
  g.const('b4', randoms(12), [12]);
  g.const('alpha4', randoms(12, 0, 0.5), [12]);
  g.node('fdconv4', 'FusedDepthwiseConv2dNative', ['dconv3', 'dw4', 'b4', 'alpha4'], {...T, ...nhwc,
    strides: A.ints([1, 1, 1, 1]), padding: A.s('SAME'), dilations: A.ints([1, 1, 1, 1]),
    fused_ops: A.strs(['BiasAdd', 'Prelu']), num_args: A.i(2)});
  g.const('w5', randoms(2 * 2 * 12 * 5), [2, 2, 12, 5]);
  g.node('conv5', 'Conv2D', ['fdconv4', 'w5'], {...T, ...nhwc, strides: A.ints([1, 1, 1, 1]), padding: A.s('EXPLICIT'),
    explicit_paddings: A.ints([0, 0, 1, 0, 0, 1, 0, 0]), dilations: A.ints([1, 1, 1, 1])});
  g.node('lrelu5', 'LeakyRelu', ['conv5'], {...T, alpha: A.f(0.1)});
  g.const('w6', randoms(5 * 5 * 3), [1, 1, 5, 15]);  // 1x1 conv, fused leaky relu
  g.const('b6', randoms(15), [15]);
  g.node('fconv6', '_FusedConv2D', ['lrelu5', 'w6', 'b6'], {...T, ...nhwc, strides: A.ints([1, 1, 1, 1]),
    padding: A.s('SAME'), dilations: A.ints([1, 1, 1, 1]), fused_ops: A.strs(['BiasAdd', 'LeakyRelu']),
    num_args: A.i(1), leakyrelu_alpha: A.f(0.3)});
  g.node('pool1', 'MaxPool', ['fconv6'], {...T, ...nhwc, ksize: A.ints([1, 2, 2, 1]), strides: A.ints([1, 1, 1, 1]),
    padding: A.s('SAME')});
  g.node('pool2', 'AvgPool', ['pool1'], {...T, ...nhwc, ksize: A.ints([1, 2, 2, 1]), strides: A.ints([1, 1, 1, 1]),
    padding: A.s('VALID')});
  g.const('bn_scale', randoms(15, 0.5, 1.5), [15]);
  g.const('bn_offset', randoms(15), [15]);
  g.const('bn_mean', randoms(15), [15]);
  g.const('bn_var', randoms(15, 0.5, 2), [15]);
  g.node('bn', 'FusedBatchNormV3', ['pool2', 'bn_scale', 'bn_offset', 'bn_mean', 'bn_var'], {...T, ...nhwc,
    epsilon: A.f(0.001), is_training: A.b(false)});
  g.node('elu', 'Elu', ['bn'], T);
  g.const('up_size', [6, 5], [2], 'int32');
  g.node('up', 'ResizeBilinear', ['elu', 'up_size'], {...T, align_corners: A.b(false), half_pixel_centers: A.b(true)});
  g.node('up2', 'ResizeBilinear', ['elu', 'up_size'], {...T, align_corners: A.b(true), half_pixel_centers: A.b(false)});
  g.node('up3', 'ResizeNearestNeighbor', ['elu', 'up_size'], {...T, align_corners: A.b(false), half_pixel_centers: A.b(true)});
  g.node('up4', 'ResizeNearestNeighbor', ['elu', 'up_size'], {...T, align_corners: A.b(true), half_pixel_centers: A.b(false)});
  g.node('ups', 'AddN', ['up', 'up2', 'up3', 'up4'], T);
  g.const('wt', randoms(3 * 3 * 4 * 15), [3, 3, 4, 15]);
  g.const('wt_shape', [2, 12, 10, 4], [4], 'int32');
  g.node('deconv', 'Conv2DBackpropInput', ['wt_shape', 'wt', 'ups'], {...T, ...nhwc, strides: A.ints([1, 2, 2, 1]),
    padding: A.s('SAME'), dilations: A.ints([1, 1, 1, 1])});
  g.node('sig', 'Sigmoid', ['deconv'], T);
  g.scalarInt('dummy', 0);
  g.ints('axes12', [1, 2]);
  g.node('gap', 'Mean', ['sig', 'axes12'], {...T, keep_dims: A.b(false)});
  g.const('fc_w', randoms(4 * 7), [4, 7]);
  g.node('fc', 'MatMul', ['gap', 'fc_w'], {...T, transpose_a: A.b(false), transpose_b: A.b(false)});
  g.node('tanh', 'Tanh', ['fc'], T);
  g.const('fc2_w', randoms(5 * 7), [5, 7]);
  g.const('fc2_b', randoms(5), [5]);
  g.node('fc2', '_FusedMatMul', ['tanh', 'fc2_w', 'fc2_b'], {...T, transpose_a: A.b(false), transpose_b: A.b(true),
    fused_ops: A.strs(['BiasAdd', 'Relu']), num_args: A.i(1)});
  g.node('softplus', 'Softplus', ['fc2'], T);
  g.const('bm', randoms(5 * 5), [1, 5, 5]);
  g.node('fc_e', 'ExpandDims', ['softplus', 'dummy'], {...T});
  g.node('bmm', 'BatchMatMulV2', ['fc_e', 'bm'], {...T, adj_x: A.b(false), adj_y: A.b(true)});
  g.node('selu', 'Selu', ['bmm'], T);
  g.node('probs', 'Softmax', ['selu'], T);
  g.node('logprobs', 'LogSoftmax', ['selu'], T);
  const dir = path.join(out, 'convnet');
  g.write(dir, {
    inputs: {image: {name: 'image:0', dtype: 'DT_FLOAT', tensorShape: {dim: [{size: '-1'}, {size: '8'}, {size: '8'}, {size: '3'}]}}},
    outputs: {probs: {name: 'probs:0', dtype: 'DT_FLOAT'}, logprobs: {name: 'logprobs:0', dtype: 'DT_FLOAT'}},
  });
  await record(dir, {image: F([2, 8, 8, 3], -1, 1)},
               ['relu1', 'conv_nchw', 'fconv2', 'dconv3', 'fdconv4', 'conv5', 'fconv6', 'pool1', 'pool2', 'bn', 'up', 'up2', 'up3',
                'up4', 'deconv', 'gap', 'fc2', 'bmm', 'probs']);
}

// ---- shapes: shape arithmetic on the host, slicing, joining, creation ------
{
  const g = new Graph();
  const T = {T: A.type('DT_FLOAT')};
  const I = {T: A.type('DT_INT32')};
  g.placeholder('x', [-1, 3, 4]);
  g.node('shape', 'Shape', ['x'], {...T, out_type: A.type('DT_INT32')});
  g.ints('s0', [0]); g.ints('s1', [1]); g.ints('s2', [2]); g.ints('s3', [3]); g.ints('one', [1]);
  g.node('batch', 'StridedSlice', ['shape', 's0', 's1', 'one'], {...I, Index: A.type('DT_INT32'),
    begin_mask: A.i(0), end_mask: A.i(0), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(1)});
  g.node('tail', 'StridedSlice', ['shape', 's1', 's3', 'one'], {...I, Index: A.type('DT_INT32'),
    begin_mask: A.i(0), end_mask: A.i(1), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(0)});
  g.scalarInt('zero_axis', 0);
  g.node('flat', 'Prod', ['tail', 'zero_axis'], {...I, keep_dims: A.b(false)});
  g.node('newshape', 'Pack', ['batch', 'flat'], {...I, axis: A.i(0), N: A.i(2)});
  g.node('reshaped', 'Reshape', ['x', 'newshape'], T);  // [-1, 12]
  g.ints('perm', [1, 0]);
  g.node('transposed', 'Transpose', ['reshaped', 'perm'], {...T, Tperm: A.type('DT_INT32')});
  g.scalarInt('ax1', 1);
  g.node('expanded', 'ExpandDims', ['transposed', 'ax1'], T);
  g.node('squeezed', 'Squeeze', ['expanded'], {...T, squeeze_dims: A.ints([1])});
  g.node('concat', 'ConcatV2', ['transposed', 'squeezed', 'ax1'], {...T, N: A.i(2), Tidx: A.type('DT_INT32')});
  g.node('stacked', 'Pack', ['transposed', 'squeezed'], {...T, axis: A.i(2), N: A.i(2)});
  g.node('unpacked', 'Unpack', ['stacked'], {...T, axis: A.i(2), num: A.i(2)});
  g.node('diff', 'Sub', ['unpacked:0', 'unpacked:1'], T);
  g.const('pads', [1, 0, 0, 2], [2, 2], 'int32');
  g.node('padded', 'Pad', ['concat', 'pads'], T);
  g.scalar('padval', 0.5);
  g.node('padded2', 'PadV2', ['concat', 'pads', 'padval'], T);
  // TF.js 4.22 mixes up the strides of the axes after a shrunk one
  // (x[1, ::2, 0] gives x[1, 0, ::2], or throws); Glint follows TensorFlow.
  // These two slices keep shrinking and strides apart, where both agree.
  g.ints('ss_b', [1, 1, 0]); g.ints('ss_e', [2, 5, 4]); g.ints('ss_s', [1, 1, 1]);
  g.node('ss3', 'StridedSlice', ['x', 'ss_b', 'ss_e', 'ss_s'], {...T, Index: A.type('DT_INT32'),
    begin_mask: A.i(0), end_mask: A.i(0), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(1)});
  g.ints('ss4_b', [0, 0, -1]); g.ints('ss4_e', [2, 5, 0]); g.ints('ss4_s', [1, 2, -2]);
  g.node('ss4', 'StridedSlice', ['x', 'ss4_b', 'ss4_e', 'ss4_s'], {...T, Index: A.type('DT_INT32'),
    begin_mask: A.i(1), end_mask: A.i(5), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(0)});
  g.ints('sl_b', [0, 1]); g.ints('sl_s', [-1, 3]);
  g.node('sliced', 'Slice', ['padded', 'sl_b', 'sl_s'], {...T, Index: A.type('DT_INT32')});
  g.node('split', 'Split', ['ax1', 'padded2'], {...T, num_split: A.i(2)});
  g.ints('sizes', [1, -1, 3]);
  g.scalarInt('ax0', 0);
  g.node('splitv', 'SplitV', ['padded2', 'sizes', 'ax0'], {...T, num_split: A.i(3), Tlen: A.type('DT_INT32')});
  g.node('sv_sum', 'AddV2', ['splitv:0', 'splitv:2'], T);
  g.node('fill', 'Fill', ['newshape', 'padval'], {...T, index_type: A.type('DT_INT32')});
  g.ints('reps', [2, 1]);
  g.node('tiled', 'Tile', ['reshaped', 'reps'], {...T, Tmultiples: A.type('DT_INT32')});
  g.ints('gidx', [3, 0, 3, 11]);
  g.node('gathered', 'GatherV2', ['reshaped', 'gidx', 'ax1'], {...T, Taxis: A.type('DT_INT32'),
    Tindices: A.type('DT_INT32'), batch_dims: A.i(0)});
  g.scalarInt('r0', 2); g.scalarInt('r1', 11); g.scalarInt('r2', 3);
  g.node('range', 'Range', ['r0', 'r1', 'r2'], {Tidx: A.type('DT_INT32')});
  g.node('rangef', 'Cast', ['range'], {SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT'), Truncate: A.b(false)});
  g.node('rangeg', 'GatherV2', ['reshaped', 'range', 'ax1'], {...T, batch_dims: A.i(0)});
  g.const('nd_idx', [1, 2, 0, 0, 1, 1], [3, 2], 'int32');
  g.node('gathernd', 'GatherNd', ['x', 'nd_idx'], {Tparams: A.type('DT_FLOAT'), Tindices: A.type('DT_INT32')});
  g.node('zl', 'ZerosLike', ['reshaped'], T);
  g.node('ol', 'OnesLike', ['reshaped'], T);
  g.node('zo', 'Add', ['zl', 'ol'], T);
  g.node('idn', 'IdentityN', ['zo', 'fill'], {T: {list: {type: ['DT_FLOAT', 'DT_FLOAT']}}});
  g.node('sg', 'StopGradient', ['idn:1'], T);
  g.node('id', 'Identity', ['sg'], T);
  g.node('xi', 'Cast', ['x'], {SrcT: A.type('DT_FLOAT'), DstT: A.type('DT_INT32')});
  g.node('xi_shape', 'Shape', ['xi'], {...I});
  g.node('shape_f', 'Cast', ['xi_shape'], {SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT')});
  const dir = path.join(out, 'shapes');
  g.write(dir);
  await record(dir, {x: F([2, 3, 4], -3, 3)},
               ['reshaped', 'transposed', 'squeezed', 'concat', 'stacked', 'diff', 'padded', 'padded2', 'ss3', 'ss4',
                'sliced', 'split:1', 'sv_sum', 'splitv:1', 'fill', 'tiled', 'gathered', 'rangef', 'rangeg', 'zo',
                'id', 'xi', 'shape_f', 'newshape', 'gathernd'], false);
}

// ---- math: element-wise, comparisons, logic, reductions -------------------
{
  const g = new Graph();
  const T = {T: A.type('DT_FLOAT')};
  g.placeholder('a', [3, 4]);
  g.placeholder('b', [3, 4]);
  g.placeholder('k', [3, 4], 'int32');
  const bin = ['Add', 'AddV2', 'Sub', 'Mul', 'RealDiv', 'Div', 'FloorDiv', 'FloorMod', 'Maximum', 'Minimum',
               'SquaredDifference'];
  const names = [];
  for (const op of bin) names.push(g.node(op.toLowerCase(), op, ['a', 'b'], T));
  // TF.js's FloorDiv of float32 gives int32 (TensorFlow's gives float32, as
  // Glint's does): compared through a cast to float32.
  names.splice(names.indexOf('floordiv'), 1,
               g.node('floordiv_f', 'Cast', ['floordiv'], {SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT')}));
  g.node('absb', 'Abs', ['b'], T);
  g.scalar('half', 0.5);
  g.node('pos', 'AddV2', ['absb', 'half'], T);
  names.push(g.node('pow', 'Pow', ['pos', 'a'], T));
  const unary = ['Rsqrt', 'Sqrt', 'Log', 'Reciprocal'];
  for (const op of unary) names.push(g.node(op.toLowerCase(), op, ['pos'], T));
  for (const op of ['Square', 'Exp', 'Neg', 'Abs', 'Floor', 'Ceil', 'Round', 'Sign', 'Sin', 'Cos', 'Relu', 'Relu6',
                    'Elu', 'Selu', 'Sigmoid', 'Tanh', 'Softplus'])
    names.push(g.node('u_' + op.toLowerCase(), op, ['a'], T));
  for (const op of ['Atan', 'Asinh', 'Erf']) names.push(g.node('u_' + op.toLowerCase(), op, ['a'], T));
  // Inside their domains: (-1, 1) through tanh, [1.5, inf) for acosh.
  for (const op of ['Asin', 'Acos', 'Atanh']) names.push(g.node('u_' + op.toLowerCase(), op, ['u_tanh'], T));
  g.scalar('one', 1.0);
  g.node('pos1', 'AddV2', ['pos', 'one'], T);
  names.push(g.node('u_acosh', 'Acosh', ['pos1'], T));
  names.push(g.node('atan2', 'Atan2', ['a', 'b'], T));
  g.const('alpha', randoms(4, 0, 0.5), [4]);
  names.push(g.node('prelu', 'Prelu', ['a', 'alpha'], T));
  names.push(g.node('lrelu', 'LeakyRelu', ['a'], {...T, alpha: A.f(0.25)}));
  g.scalar('lo', -0.3); g.scalar('hi', 0.4);
  names.push(g.node('clip', 'ClipByValue', ['a', 'lo', 'hi'], T));
  names.push(g.node('addn', 'AddN', ['a', 'b', 'a'], {...T, N: A.i(3)}));
  for (const op of ['Less', 'LessEqual', 'Greater', 'GreaterEqual', 'Equal', 'NotEqual'])
    names.push(g.node('c_' + op.toLowerCase(), op, ['a', 'b'], T));
  names.push(g.node('and', 'LogicalAnd', ['c_less', 'c_notequal'], {}));
  names.push(g.node('or', 'LogicalOr', ['c_greater', 'c_equal'], {}));
  names.push(g.node('not', 'LogicalNot', ['c_less'], {}));
  names.push(g.node('select', 'Select', ['c_less', 'a', 'b'], T));
  names.push(g.node('selectv2', 'SelectV2', ['c_greater', 'a', 'half'], T));
  g.ints('axis1', [1]);
  g.ints('axis0', [0]);
  g.ints('axes01', [0, 1]);
  for (const op of ['Mean', 'Sum', 'Max', 'Min', 'Prod'])
    names.push(g.node('r_' + op.toLowerCase(), op, ['a', op === 'Prod' ? 'axis0' : 'axis1'], {...T, keep_dims: A.b(op === 'Sum')}));
  names.push(g.node('r_all', 'Sum', ['a', 'axes01'], {...T, keep_dims: A.b(false)}));
  g.scalarInt('dim1', 1);
  g.scalarInt('dim0', 0);
  names.push(g.node('argmax', 'ArgMax', ['a', 'dim1'], {...T, output_type: A.type('DT_INT32')}));
  names.push(g.node('argmin', 'ArgMin', ['a', 'dim0'], {...T, output_type: A.type('DT_INT32')}));
  // int32 arithmetic: TF.js divides int32 by int32 with floor division.
  g.const('kd', [3], [], 'int32');
  const IT = {T: A.type('DT_INT32')};
  names.push(g.node('k_div', 'RealDiv', ['k', 'kd'], IT));
  names.push(g.node('k_floordiv', 'FloorDiv', ['k', 'kd'], IT));
  names.push(g.node('k_mod', 'FloorMod', ['k', 'kd'], IT));
  names.push(g.node('k_mul', 'Mul', ['k', 'k'], IT));
  names.push(g.node('k_cast', 'Cast', ['a'], {SrcT: A.type('DT_FLOAT'), DstT: A.type('DT_INT32')}));
  names.push(g.node('k_bool', 'Cast', ['k'], {SrcT: A.type('DT_INT32'), DstT: A.type('DT_BOOL')}));
  const dir = path.join(out, 'math');
  g.write(dir);
  const k = {shape: [3, 4], dtype: 'int32', data: randoms(12, -9, 9).map(Math.round)};
  await record(dir, {a: F([3, 4], -2, 2), b: F([3, 4], -2, 2), k}, names, false);
}

// ---- detect: boxes, NMS, TopK, Where ---------------------------------------
{
  const g = new Graph();
  g.placeholder('boxes', [-1, 4]);
  g.placeholder('scores', [-1]);
  g.scalarInt('max_out', 20);
  g.scalar('iou', 0.3);
  g.scalar('score_thr', 0.2);
  g.scalar('sigma', 0.5);
  g.node('nms2', 'NonMaxSuppressionV2', ['boxes', 'scores', 'max_out', 'iou'], {T: A.type('DT_FLOAT')});
  g.node('nms3', 'NonMaxSuppressionV3', ['boxes', 'scores', 'max_out', 'iou', 'score_thr'], {T: A.type('DT_FLOAT')});
  g.node('nms4', 'NonMaxSuppressionV4', ['boxes', 'scores', 'max_out', 'iou', 'score_thr'],
         {T: A.type('DT_FLOAT'), pad_to_max_output_size: A.b(true)});
  g.node('nms5', 'NonMaxSuppressionV5', ['boxes', 'scores', 'max_out', 'iou', 'score_thr', 'sigma'], {T: A.type('DT_FLOAT')});
  g.scalarInt('ax0', 0);
  g.node('picked', 'GatherV2', ['boxes', 'nms3', 'ax0'], {batch_dims: A.i(0)});
  g.scalarInt('k', 4);
  g.node('topk', 'TopKV2', ['scores', 'k'], {sorted: A.b(true)});
  g.scalar('thr', 0.5);
  g.node('high', 'Greater', ['scores', 'thr'], {});
  g.node('where', 'Where', ['high'], {T: A.type('DT_BOOL')});
  const dir = path.join(out, 'detect');
  g.write(dir);
  // Clusters of overlapping boxes, so suppression has work to do.
  const n = 24;
  const boxes = [];
  for (let i = 0; i < n; ++i) {
    const cy = Math.floor(i / 8) * 0.3 + random() * 0.1, cx = (i % 4) * 0.2 + random() * 0.1;
    boxes.push(cy, cx, cy + 0.2 + random() * 0.1, cx + 0.2 + random() * 0.1);
  }
  await record(dir, {boxes: {shape: [n, 4], dtype: 'float32', data: boxes}, scores: F([n], 0, 1)},
               ['nms2', 'nms3', 'nms4:0', 'nms4:1', 'nms5:0', 'nms5:1', 'picked', 'topk:0', 'topk:1',
                'where'], false);
}

// ---- control flow v1: while loops, nested frames, conds, TensorLists ------
// Written as TensorFlow 1 builds them (tf.while_loop / tf.cond lowered to
// Enter, Merge, Switch, LoopCond, NextIteration, Exit) and run by TF.js's
// executeAsync, the only TF.js path that runs them.

// A while loop in `frame`. vars: [[name, initial]]; invariants: [[name,
// value]] (is_constant Enters); cond(merges, invariants) gives the
// predicate's name, body(identities, invariants) the next values' names.
// Returns the Exit names.
function whileV1(g, frame, vars, invariants, cond, body) {
  const F = {frame_name: A.s(frame), is_constant: A.b(false), parallel_iterations: A.i(10)};
  const enters = vars.map(([n, init]) => g.node(`${frame}/enter_${n}`, 'Enter', [init], F));
  const inv = invariants.map(([n, v]) => g.node(`${frame}/inv_${n}`, 'Enter', [v], {...F, is_constant: A.b(true)}));
  const merges = vars.map(([n], k) => g.node(`${frame}/merge_${n}`, 'Merge', [enters[k], `${frame}/next_${n}`], {N: A.i(2)}));
  const lc = g.node(`${frame}/loop_cond`, 'LoopCond', [cond(merges, inv)]);
  const sw = vars.map(([n], k) => g.node(`${frame}/switch_${n}`, 'Switch', [merges[k], lc]));
  const exits = vars.map(([n], k) => g.node(`${frame}/exit_${n}`, 'Exit', [`${sw[k]}:0`]));
  const ids = vars.map(([n], k) => g.node(`${frame}/body_${n}`, 'Identity', [`${sw[k]}:1`]));
  const next = body(ids, inv);
  vars.forEach(([n], k) => g.node(`${frame}/next_${n}`, 'NextIteration', [next[k]]));
  return exits;
}

// while i < n: acc = tanh(acc * 0.5 + x); i += 1, with n fed (a predicate
// read from the device) and with n a constant (known on the host).
{
  const g = new Graph();
  g.placeholder('x', [2, 3]);
  g.placeholder('n', [], 'int32');
  g.scalarInt('zero', 0);
  g.scalarInt('one', 1);
  g.scalar('half', 0.5);
  g.scalarInt('three', 3);
  for (const [frame, limit] of [['fed', 'n'], ['host', 'three']]) {
    const [i, acc] = whileV1(g, frame, [['i', 'zero'], ['acc', 'x']], [['n', limit], ['x', 'x']],
      ([mi], [n]) => g.node(`${frame}/less`, 'Less', [mi, n]),
      ([bi, bacc], [, x]) => {
        const mul = g.node(`${frame}/mul`, 'Mul', [bacc, 'half']);
        const add = g.node(`${frame}/add`, 'AddV2', [mul, x]);
        return [g.node(`${frame}/inc`, 'AddV2', [bi, 'one']), g.node(`${frame}/tanh`, 'Tanh', [add])];
      });
    g.node(`${frame}/out`, 'Mul', [acc, 'half']);
    g.node(`${frame}/count`, 'Identity', [i]);
  }
  const dir = path.join(out, 'while_v1');
  g.write(dir);
  await record(dir, {x: F([2, 3], -2, 2), n: {shape: [], dtype: 'int32', data: [5]}},
               ['fed/out', 'fed/count', 'host/out', 'host/count', 'fed/exit_acc'], false);
}

// Nested frames: for i < 3: (for j <= i: s = s * 0.9 + x * (j + 1)); acc += s.
{
  const g = new Graph();
  g.placeholder('x', [4]);
  g.scalarInt('zero', 0);
  g.scalarInt('one', 1);
  g.scalarInt('three', 3);
  g.scalar('decay', 0.9);
  g.node('acc0', 'ZerosLike', ['x']);
  // x rides along as a loop variable: an inner Enter must hang off a value
  // of the outer body to run in every outer iteration (an is_constant Enter
  // of the outer frame is only there in its first iteration, in TF.js too).
  const [, acc] = whileV1(g, 'outer', [['i', 'zero'], ['acc', 'acc0'], ['x', 'x']], [['n', 'three']],
    ([mi], [n]) => g.node('outer/less', 'Less', [mi, n]),
    ([bi, bacc, x]) => {
      // The inner loop's start values come from the outer body, so they
      // enter the inner frame once per outer iteration.
      const j0 = g.node('outer/j0', 'ZerosLike', [bi]);
      const s0 = g.node('outer/s0', 'ZerosLike', [bacc]);
      const [, s] = whileV1(g, 'inner', [['j', j0], ['s', s0]], [['i', bi], ['x', x]],
        ([mj], [ii]) => g.node('inner/le', 'LessEqual', [mj, ii]),
        ([bj, bs], [, ix]) => {
          const j1 = g.node('inner/inc', 'AddV2', [bj, 'one']);
          const jf = g.node('inner/jf', 'Cast', [j1], {SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT')});
          const xs = g.node('inner/xs', 'Mul', [ix, jf]);
          const sd = g.node('inner/sd', 'Mul', [bs, 'decay']);
          return [j1, g.node('inner/s_next', 'AddV2', [sd, xs])];
        });
      return [g.node('outer/inc', 'AddV2', [bi, 'one']), g.node('outer/acc_next', 'AddV2', [bacc, s]), x];
    });
  g.node('result', 'Identity', [acc]);
  const dir = path.join(out, 'nested_v1');
  g.write(dir);
  await record(dir, {x: F([4], -1, 1)}, ['result'], false);
}

// tf.cond as Switch/Merge: the branch's constant hangs off the branch pivot
// by a control input, so it is dead on the untaken branch. Two conds, one
// taking each branch; a third chooses by a fed predicate.
{
  const g = new Graph();
  g.placeholder('x', [3, 2]);
  g.placeholder('p', [], 'bool');
  g.ints('all', [0, 1]);
  g.node('sum', 'Sum', ['x', 'all'], {keep_dims: A.b(false)});
  g.scalar('lo', -100);
  g.scalar('hi', 100);
  g.node('pred_true', 'Greater', ['sum', 'lo']);
  g.node('pred_false', 'Greater', ['sum', 'hi']);
  for (const [name, pred] of [['ct', 'pred_true'], ['cf', 'pred_false'], ['cp', 'p']]) {
    g.node(`${name}/sw_pred`, 'Switch', [pred, pred]);
    g.node(`${name}/switch_t`, 'Identity', [`${name}/sw_pred:1`]);
    g.node(`${name}/switch_f`, 'Identity', [`${name}/sw_pred:0`]);
    g.node(`${name}/sw_x`, 'Switch', ['x', pred]);
    g.weights.push({name: `${name}/two`, values: [2], shape: [], dtype: 'float32'});
    g.node(`${name}/two`, 'Const', [`^${name}/switch_t`], {dtype: A.type('DT_FLOAT'),
      value: {tensor: {dtype: 'DT_FLOAT', tensorShape: {}}}});
    g.node(`${name}/relu`, 'Relu', [`${name}/sw_x:1`]);
    g.node(`${name}/then`, 'Mul', [`${name}/relu`, `${name}/two`]);
    g.node(`${name}/else`, 'Square', [`${name}/sw_x:0`]);
    g.node(`${name}/merge`, 'Merge', [`${name}/else`, `${name}/then`], {N: A.i(2)});
    g.node(`${name}/out`, 'AddV2', [`${name}/merge`, 'x']);
  }
  const dir = path.join(out, 'cond_v1');
  g.write(dir);
  await record(dir, {x: F([3, 2], -1, 1), p: {shape: [], dtype: 'bool', data: [0]}},
               ['ct/out', 'cf/out', 'cp/out', 'ct/merge'], false);
}

// tf.map_fn's shape: a loop reading rows from a TensorList and writing
// results into a reserved one, stacked after the loop.
{
  const g = new Graph();
  const L = (dtype) => ({element_dtype: A.type(DT[dtype]), shape_type: A.type('DT_INT32')});
  g.placeholder('x', [5, 3]);
  g.ints('row_shape', [3]);
  g.ints('unknown_row', [-1]);
  g.scalarInt('rows', 5);
  g.scalarInt('zero', 0);
  g.scalarInt('one', 1);
  g.scalar('bias', 0.25);
  g.ints('zeros3', [0, 0, 0]);
  g.node('in_list', 'TensorListFromTensor', ['x', 'row_shape'], L('float32'));
  g.node('out_list', 'TensorListReserve', ['unknown_row', 'rows'], L('float32'));
  g.node('idx_list', 'TensorListReserve', ['row_shape', 'rows'], L('int32'));
  const [, outs, idxs] = whileV1(g, 'map', [['i', 'zero'], ['out', 'out_list'], ['idx', 'idx_list']],
    [['n', 'rows'], ['in', 'in_list']],
    ([mi], [n]) => g.node('map/less', 'Less', [mi, n]),
    ([bi, bout, bidx], [, inl]) => {
      const row = g.node('map/row', 'TensorListGetItem', [inl, bi, 'row_shape'], L('float32'));
      const sq = g.node('map/sq', 'Mul', [row, row]);
      const y = g.node('map/y', 'AddV2', [sq, 'bias']);
      const k = g.node('map/k', 'ArgMax', [row, 'zero'], {output_type: A.type('DT_INT32')});
      const kk = g.node('map/kk', 'AddV2', [k, 'zeros3']);
      return [g.node('map/inc', 'AddV2', [bi, 'one']),
              g.node('map/set', 'TensorListSetItem', [bout, bi, y], L('float32')),
              g.node('map/set_idx', 'TensorListSetItem', [bidx, bi, kk], L('int32'))];
    });
  g.node('stacked', 'TensorListStack', [outs, 'row_shape'], L('float32'));
  g.node('stacked_idx', 'TensorListStack', [idxs, 'row_shape'], L('int32'));
  const dir = path.join(out, 'list_loop_v1');
  g.write(dir);
  await record(dir, {x: F([5, 3], -2, 2)}, ['stacked', 'stacked_idx'], false);
}

// Every TensorList op outside a loop (Glint's static executor) that TF.js
// runs: it has no TensorListElementShape, and its TensorListPopBack gives
// the element as output 0 where TensorFlow gives the list; its
// TensorListSplit reshapes each piece to the element shape, which only
// works for pieces of one row.
{
  const g = new Graph();
  const L = (dtype = 'float32') => ({element_dtype: A.type(DT[dtype]), shape_type: A.type('DT_INT32')});
  g.placeholder('x', [4, 3]);
  g.placeholder('y', [2, 3]);
  g.ints('es', [3]);
  g.scalarInt('two', 2);
  g.scalarInt('four', 4);
  g.scalarInt('five', 5);
  g.scalarInt('three_i', 3);
  g.node('l', 'TensorListFromTensor', ['x', 'es'], L());
  g.ints('gidx', [3, 0, 2]);
  g.node('gathered', 'TensorListGather', ['l', 'gidx', 'es'], L());
  g.node('len', 'TensorListLength', ['l']);
  g.node('stacked', 'TensorListStack', ['l', 'es'], L());
  g.ints('sidx', [3, 1]);
  g.node('scattered', 'TensorListScatterV2', ['y', 'sidx', 'es', 'four'], L());
  g.node('sc_item', 'TensorListGetItem', ['scattered', 'three_i', 'es'], L());
  g.node('sc_len', 'TensorListLength', ['scattered']);
  g.node('concat', 'TensorListConcatV2', ['l'], {...L(), element_shape: {shape: {dim: [{size: '3'}]}}});
  g.node('pushed', 'TensorListPushBack', ['l', 'sc_item'], L());
  g.node('pushed_stack', 'TensorListStack', ['pushed', 'es'], L());
  g.node('resized', 'TensorListResize', ['l', 'two']);
  g.node('resized_stack', 'TensorListStack', ['resized', 'es'], L());
  g.node('empty', 'EmptyTensorList', ['es', 'five'], L());
  g.node('e1', 'TensorListPushBack', ['empty', 'sc_item'], L());
  g.node('e2', 'TensorListPushBack', ['e1', 'gathered_row'], L());
  g.scalarInt('zero', 0);
  g.node('gathered_row', 'TensorListGetItem', ['l', 'zero', 'es'], L());
  g.node('e_stack', 'TensorListStack', ['e2', 'es'], L());
  const dir = path.join(out, 'lists');
  g.write(dir);
  await record(dir, {x: F([4, 3], -1, 1), y: F([2, 3], -1, 1)},
               ['gathered', 'len', 'stacked', 'sc_item', 'sc_len', 'concat', 'pushed_stack',
                'resized_stack', 'e_stack'], false);
}

// ---- control flow v2: While and If with library functions -----------------
// (TF.js has no PartitionedCall: GraphControlFlow.FunctionCalls checks it.)
{
  const g = new Graph();
  const fn = (name) => ({func: {name}});
  const L = {element_dtype: A.type('DT_FLOAT'), shape_type: A.type('DT_INT32')};
  g.placeholder('x', [2, 3]);
  g.placeholder('n', [], 'int32');
  g.placeholder('p', [], 'bool');
  g.scalarInt('zero', 0);
  g.scalarInt('four', 4);
  g.ints('row_shape', [2, 3]);
  g.func('cond', [['i', 'int32'], ['acc', 'float32'], ['x', 'float32'], ['n', 'int32']], [['ok', 'bool', 'less:z:0']],
    (f) => f.node('less', 'Less', ['i', 'n']));
  g.func('body', [['i', 'int32'], ['acc', 'float32'], ['x', 'float32'], ['n', 'int32']],
    [['i1', 'int32', 'inc:z:0'], ['acc1', 'float32', 'tanh:y:0'], ['x1', 'float32', 'x'], ['n1', 'int32', 'n']], (f) => {
      f.scalarInt('body/one', 1);
      f.scalar('body/half', 0.5);
      f.node('inc', 'AddV2', ['i', 'body/one:output:0']);
      f.node('mul', 'Mul', ['acc', 'body/half:output:0']);
      f.node('add', 'AddV2', ['mul:z:0', 'x']);
      f.node('tanh', 'Tanh', ['add:z:0']);
    });
  g.node('loop', 'While', ['zero', 'x', 'x', 'n'], {cond: fn('cond'), body: fn('body'),
    T: {list: {type: ['DT_INT32', 'DT_FLOAT', 'DT_FLOAT', 'DT_INT32']}}, parallel_iterations: A.i(10)});
  g.node('loop_acc', 'Identity', ['loop:1']);
  g.node('loop_i', 'Identity', ['loop:0']);
  // A TensorList as a loop variable: row i of the list is x * i!. (The item
  // set is the body's input, not a value it computes: TF.js disposes those
  // when the body returns, list items included.)
  g.node('reserved', 'TensorListReserve', ['row_shape', 'four'], L);
  g.func('lcond', [['i', 'int32'], ['l', 'float32'], ['x', 'float32']], [['ok', 'bool', 'less:z:0']], (f) => {
    f.scalarInt('lcond/four', 4);
    f.node('less', 'Less', ['i', 'lcond/four']);
  });
  g.func('lbody', [['i', 'int32'], ['l', 'float32'], ['x', 'float32']],
    [['i1', 'int32', 'inc:z:0'], ['l1', 'float32', 'set:output_handle:0'], ['x1', 'float32', 'scaled:z:0']], (f) => {
      f.scalarInt('lbody/one', 1);
      f.node('inc', 'AddV2', ['i', 'lbody/one']);
      f.node('incf', 'Cast', ['inc:z:0'], {SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT')});
      f.node('scaled', 'Mul', ['x', 'incf:y:0']);
      f.node('set', 'TensorListSetItem', ['l', 'i', 'x'], L);
    });
  g.node('lloop', 'StatelessWhile', ['zero', 'reserved', 'x'], {cond: fn('lcond'), body: fn('lbody'),
    T: {list: {type: ['DT_INT32', 'DT_VARIANT', 'DT_FLOAT']}}});
  g.node('lstack', 'TensorListStack', ['lloop:1', 'row_shape'], L);
  // If / StatelessIf: the fed predicate and a computed one.
  g.func('then', [['x', 'float32']], [['y', 'float32', 'mul:z:0']], (f) => {
    f.scalar('then/two', 2);
    f.node('relu', 'Relu', ['x']);
    f.node('mul', 'Mul', ['relu:activations:0', 'then/two']);
  });
  g.func('else', [['x', 'float32']], [['y', 'float32', 'sq:y:0']], (f) => f.node('sq', 'Square', ['x']));
  g.node('if_p', 'If', ['p', 'x'], {then_branch: fn('then'), else_branch: fn('else'),
    Tcond: A.type('DT_BOOL'), Tin: {list: {type: ['DT_FLOAT']}}, Tout: {list: {type: ['DT_FLOAT']}}});
  g.ints('all', [0, 1]);
  g.node('sum', 'Sum', ['x', 'all'], {keep_dims: A.b(false)});
  g.scalar('lo', -100);
  g.node('big', 'Greater', ['sum', 'lo']);
  g.node('if_big', 'StatelessIf', ['big', 'x'], {then_branch: fn('then'), else_branch: fn('else'),
    Tcond: A.type('DT_BOOL'), Tin: {list: {type: ['DT_FLOAT']}}, Tout: {list: {type: ['DT_FLOAT']}}});
  const dir = path.join(out, 'functional_v2');
  g.write(dir);
  await record(dir, {x: F([2, 3], -2, 2), n: {shape: [], dtype: 'int32', data: [3]}, p: {shape: [], dtype: 'bool', data: [0]}},
               ['loop_acc', 'loop_i', 'lstack', 'if_p', 'if_big'], false);
}

// ---- TensorArray V3: a v1 loop reading one array and writing another -------
{
  const g = new Graph();
  const TA = (clear, shape) => ({dtype: A.type('DT_FLOAT'), dynamic_size: A.b(false), clear_after_read: A.b(clear),
    identical_element_shapes: A.b(true), tensor_array_name: A.s(''),
    element_shape: {shape: shape ? {dim: shape.map((d) => ({size: String(d)}))} : {unknownRank: true}}});
  g.placeholder('xs', [4, 2, 3]);
  g.placeholder('z', [5, 3]);
  g.scalarInt('four', 4);
  g.scalarInt('two', 2);
  g.scalarInt('zero', 0);
  g.scalarInt('one', 1);
  g.scalar('scale', 2);
  g.ints('all4', [0, 1, 2, 3]);
  g.node('src', 'TensorArrayV3', ['four'], TA(true, [2, 3]));
  g.node('scatter', 'TensorArrayScatterV3', ['src', 'all4', 'xs', 'src:1'], {T: A.type('DT_FLOAT')});
  g.node('dst', 'TensorArrayV3', ['four'], TA(true));
  const [, flow] = whileV1(g, 'ta', [['i', 'zero'], ['flow', 'dst:1']],
    [['n', 'four'], ['src', 'src'], ['src_flow', 'scatter'], ['dst', 'dst']],
    ([mi], [n]) => g.node('ta/less', 'Less', [mi, n]),
    ([bi, bflow], [, src, srcFlow, dst]) => {
      const r = g.node('ta/read', 'TensorArrayReadV3', [src, bi, srcFlow], {dtype: A.type('DT_FLOAT')});
      const y = g.node('ta/y', 'Mul', [g.node('ta/tanh', 'Tanh', [r]), 'scale']);
      return [g.node('ta/inc', 'AddV2', [bi, 'one']),
              g.node('ta/write', 'TensorArrayWriteV3', [dst, bi, y, bflow], {T: A.type('DT_FLOAT')})];
    });
  g.node('gathered', 'TensorArrayGatherV3', ['dst', 'all4', flow], {dtype: A.type('DT_FLOAT'),
    element_shape: {shape: {dim: [{size: '2'}, {size: '3'}]}}});
  g.node('size', 'TensorArraySizeV3', ['dst', flow]);
  // Split and concat on an array that keeps what is read.
  g.node('parts', 'TensorArrayV3', ['two'], TA(false, [-1, 3]));
  g.ints('lengths', [2, 3]);
  g.node('split', 'TensorArraySplitV3', ['parts', 'z', 'lengths', 'parts:1'], {T: A.type('DT_FLOAT')});
  g.node('concat', 'TensorArrayConcatV3', ['parts', 'split'], {dtype: A.type('DT_FLOAT'),
    element_shape_except0: {shape: {dim: [{size: '3'}]}}});
  g.node('second', 'TensorArrayReadV3', ['parts', 'one', 'split'], {dtype: A.type('DT_FLOAT')});
  // TF.js's close disposes the elements read before it, outputs included,
  // so TensorArrayCloseV3 is checked by GraphControlFlow.TensorArrayClose.
  const dir = path.join(out, 'tensor_array');
  g.write(dir);
  await record(dir, {xs: F([4, 2, 3], -2, 2), z: F([5, 3], -1, 1)}, ['gathered', 'size', 'concat', 'second'],
               false, true);
}
