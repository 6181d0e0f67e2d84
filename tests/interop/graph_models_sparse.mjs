// Hand-written graph models of the sparse, data-dependent, ragged and random
// ops (src/graph/graph_ops_sparse.cpp, graph_ops_ragged.cpp,
// graph_ops_random.cpp), recorded with TF.js's own tf.loadGraphModel on the
// cpu backend; GraphInterop.HandWrittenGraphModelsMatchTfjs compares Glint
// with what it wrote. Multi-output nodes are asked for output by output
// ('node:1'). Random ops draw from other generators than TF.js's, so their
// models record only what holds for any draw: shapes and range checks.
//   node tests/interop/graph_models_sparse.mjs build/interop/graph
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {A, DT, F, Graph, record} from './graph_builder.mjs';

const out = process.argv[2] ?? 'build/interop/graph';
await tf.setBackend('cpu');
const warn = console.warn;  // executeAsync's advice to use execute, on every small model
console.warn = (...a) => { if (!String(a[0]).includes('did not contain')) warn(...a); };

const T = (t = 'float32') => ({T: A.type(DT[t])});
const I = (shape, data) => ({shape, dtype: 'int32', data});

// ---- scatter: ScatterNd, TensorScatterUpdate, SparseToDense ----------------
{
  const g = new Graph();
  const names = [];
  g.placeholder('u', [4, 3]);
  g.placeholder('x', [5, 3]);
  // Row scatter with a repeated row (ScatterNd adds duplicates).
  g.const('rows', [4, 0, 4, 2], [4, 1], 'int32');
  g.ints('shape53', [5, 3]);
  names.push(g.node('scatter_rows', 'ScatterNd', ['rows', 'u', 'shape53'], {...T(), Tindices: A.type('DT_INT32')}));
  // Element scatter: full index tuples, int32 updates.
  g.const('cells', [0, 1, 3, 4, 1, 0], [3, 2], 'int32');
  g.ints('vals', [7, -2, 5]);
  g.ints('shape45', [4, 5]);
  names.push(g.node('scatter_cells', 'ScatterNd', ['cells', 'vals', 'shape45'], {...T('int32'), Tindices: A.type('DT_INT32')}));
  g.const('upd_rows', [3, 1], [2, 1], 'int32');
  g.const('two_rows', [9, 8, 7, 6, 5, 4], [2, 3]);
  names.push(g.node('update', 'TensorScatterUpdate', ['x', 'upd_rows', 'two_rows'], {...T(), Tindices: A.type('DT_INT32')}));
  g.const('upd_cells', [0, 0, 4, 2], [2, 2], 'int32');
  g.const('two_vals', [-5, 5], [2]);
  names.push(g.node('update_cells', 'TensorScatterUpdate', ['x', 'upd_cells', 'two_vals'], {...T(), Tindices: A.type('DT_INT32')}));
  // SparseToDense: [N, rank] indices with values, 1-D indices with a scalar value.
  g.const('sp_idx', [0, 1, 2, 3, 1, 0], [3, 2], 'int32');
  g.ints('dense_shape', [3, 4]);
  g.const('sp_vals', [1.5, -2, 3], [3]);
  g.scalar('sp_default', 0.25);
  names.push(g.node('to_dense', 'SparseToDense', ['sp_idx', 'dense_shape', 'sp_vals', 'sp_default'],
    {...T(), Tindices: A.type('DT_INT32'), validate_indices: A.b(true)}));
  g.ints('sp_idx1', [5, 1, 3]);
  g.ints('len7', [7]);
  g.scalarInt('one', 1);
  g.scalarInt('zero', 0);
  names.push(g.node('to_dense1', 'SparseToDense', ['sp_idx1', 'len7', 'one', 'zero'], {...T('int32'), Tindices: A.type('DT_INT32')}));
  const dir = path.join(out, 'sparse_scatter');
  g.write(dir);
  await record(dir, {u: F([4, 3], -2, 2), x: F([5, 3], -1, 1)}, names, false);
}

// ---- sets: Unique, UniqueV2, ListDiff, LowerBound, UpperBound --------------
{
  const g = new Graph();
  const names = [];
  g.placeholder('k', [9], 'int32');
  g.placeholder('m', [4, 3]);
  names.push(g.node('uniq', 'Unique', ['k'], {...T('int32'), out_idx: A.type('DT_INT32')}), 'uniq:1');
  g.ints('axis0', [0]);
  g.ints('axis1', [1]);
  names.push(g.node('uniq_rows', 'UniqueV2', ['m', 'axis0'], {...T(), Taxis: A.type('DT_INT32'), out_idx: A.type('DT_INT32')}), 'uniq_rows:1');
  names.push(g.node('uniq_cols', 'UniqueV2', ['m', 'axis1'], {...T(), Taxis: A.type('DT_INT32'), out_idx: A.type('DT_INT32')}), 'uniq_cols:1');
  g.ints('drop', [3, 0, 8, 100]);
  names.push(g.node('diff', 'ListDiff', ['k', 'drop'], {...T('int32'), out_idx: A.type('DT_INT32')}), 'diff:1');
  // Sorted rows with ties, probed below, between, on and above their values.
  g.const('sorted', [-1, 0, 0, 2, 5, 1, 1, 1, 3, 4], [2, 5]);
  g.placeholder('probe', [2, 4]);
  names.push(g.node('lower', 'LowerBound', ['sorted', 'probe'], {...T(), out_type: A.type('DT_INT32')}));
  names.push(g.node('upper', 'UpperBound', ['sorted', 'probe'], {...T(), out_type: A.type('DT_INT32')}));
  g.ints('sorted_ints', [1, 3, 3, 3, 9]);
  g.ints('probe_ints', [3, 0, 10, 4, 1]);
  names.push(g.node('lower_int', 'LowerBound', ['sorted_ints', 'probe_ints'], {...T('int32'), out_type: A.type('DT_INT32')}));
  names.push(g.node('upper_int', 'UpperBound', ['sorted_ints', 'probe_ints'], {...T('int32'), out_type: A.type('DT_INT32')}));
  const dir = path.join(out, 'sparse_sets');
  g.write(dir);
  const rows = [1, 2, 3, -1, 0.5, 2, 1, 2, 3, 7, 7, 7];  // rows 0 and 2 repeat; columns 0 and 2 differ
  await record(dir, {k: I([9], [3, 1, 4, 1, 5, 9, 2, 6, 5]), m: {shape: [4, 3], dtype: 'float32', data: rows},
    probe: {shape: [2, 4], dtype: 'float32', data: [0, -2, 1.5, 6, 1, 0, 4, 3]}}, names, false);
}

// ---- counting: Bincount, DenseBincount, SparseSegmentSum / Mean -------------
{
  const g = new Graph();
  const names = [];
  g.placeholder('ids', [8], 'int32');
  g.placeholder('w', [8]);
  g.placeholder('data', [5, 3]);
  g.scalarInt('size5', 5);
  names.push(g.node('bincount_w', 'Bincount', ['ids', 'size5', 'w'], T()));
  g.const('no_w', [], [0], 'int32');
  names.push(g.node('bincount', 'Bincount', ['ids', 'size5', 'no_w'], T('int32')));
  g.const('ids2', [0, 1, 1, 3, 2, 2, 2, 6], [2, 4], 'int32');
  g.const('w2', [1, 2, 3, 4, 5, 6, 7, 8], [2, 4]);
  names.push(g.node('dense_w', 'DenseBincount', ['ids2', 'size5', 'w2'], {...T(), Tidx: A.type('DT_INT32'), binary_output: A.b(false)}));
  g.const('no_w2', [], [0]);
  names.push(g.node('dense_binary', 'DenseBincount', ['ids2', 'size5', 'no_w2'], {...T(), Tidx: A.type('DT_INT32'), binary_output: A.b(true)}));
  names.push(g.node('dense_1d', 'DenseBincount', ['ids', 'size5', 'w'], {...T(), Tidx: A.type('DT_INT32'), binary_output: A.b(false)}));
  // Segment 1 gets no rows; rows repeat across segments.
  g.ints('seg_rows', [0, 2, 1, 4, 3, 2]);
  g.ints('seg_ids', [0, 0, 2, 2, 2, 3]);
  names.push(g.node('seg_sum', 'SparseSegmentSum', ['data', 'seg_rows', 'seg_ids'], {...T(), Tidx: A.type('DT_INT32'), Tsegmentids: A.type('DT_INT32')}));
  names.push(g.node('seg_mean', 'SparseSegmentMean', ['data', 'seg_rows', 'seg_ids'], {...T(), Tidx: A.type('DT_INT32'), Tsegmentids: A.type('DT_INT32')}));
  const dir = path.join(out, 'sparse_counts');
  g.write(dir);
  await record(dir, {ids: I([8], [1, 4, 1, 0, 7, 4, 4, 2]), w: F([8], 0, 2), data: F([5, 3], -2, 2)}, names, false);
}

// ---- sparse tensors: SparseFillEmptyRows, SparseReshape ---------------------
{
  const g = new Graph();
  const names = [];
  g.placeholder('vals', [4]);
  // Rows 1 and 4 empty, entries out of row order.
  g.const('idx', [2, 1, 0, 2, 3, 0, 0, 0], [4, 2], 'int32');
  g.ints('dshape', [5, 3]);
  g.scalar('dflt', -1);
  const fill = g.node('fill', 'SparseFillEmptyRows', ['idx', 'vals', 'dshape', 'dflt'], T());
  names.push(fill, fill + ':1', fill + ':2', fill + ':3');
  g.const('idx3', [0, 0, 1, 1, 2, 3, 0, 1, 0], [3, 3], 'int32');
  g.ints('shape3', [2, 3, 4]);
  g.ints('new_shape', [4, -1]);
  names.push(g.node('reshape', 'SparseReshape', ['idx3', 'shape3', 'new_shape']), 'reshape:1');
  const dir = path.join(out, 'sparse_tensors');
  g.write(dir);
  await record(dir, {vals: F([4], -2, 2)}, names, false);
}

// ---- ragged: RaggedRange, RaggedGather, RaggedTensorToTensor ----------------
// TF.js 4.22 has these ops and their executor (ragged_executor.js), but its
// OperationMapper leaves the ragged op list out, so loadGraphModel rejects
// them; registering that executor's calls as custom ops records what TF.js's
// own kernels compute.
tf.registerOp('RaggedRange', ({inputs: [starts, limits, deltas]}) => {
  const {rtNestedSplits, rtDenseValues} = tf.raggedRange(starts, limits, deltas);
  return [rtNestedSplits, rtDenseValues];
});
tf.registerOp('RaggedGather', ({inputs, attrs}) => {
  const {outputNestedSplits, outputDenseValues} = tf.raggedGather(inputs.slice(0, -2), inputs.at(-2), inputs.at(-1),
    attrs.OUTPUT_RAGGED_RANK);
  return outputNestedSplits.concat(outputDenseValues);
});
tf.registerOp('RaggedTensorToTensor', ({inputs: [shape, values, dflt, ...parts], attrs}) =>
  [tf.raggedTensorToTensor(shape, values, dflt, parts, attrs.row_partition_types.map((t) => t.toUpperCase()))]);
{
  const g = new Graph();
  const names = [];
  g.placeholder('rv', [6]);
  g.ints('starts', [0, 5, -2]);
  g.ints('limits', [4, 5, 4]);
  g.scalarInt('delta2', 2);
  const rr = {T: A.type('DT_INT32'), Tsplits: A.type('DT_INT32')};
  names.push(g.node('range', 'RaggedRange', ['starts', 'limits', 'delta2'], rr), 'range:1');
  // Scalar bounds with no deltas: no rows.
  g.const('no_deltas', [], [0], 'int32');
  g.scalarInt('izero', 0);
  names.push(g.node('range_empty', 'RaggedRange', ['izero', 'delta2', 'no_deltas'], rr), 'range_empty:1');
  g.const('fstarts', [0.5, 3], [2]);
  g.scalar('flimit', 1.75);
  g.const('fdeltas', [0.25, -0.5], [2]);
  names.push(g.node('frange', 'RaggedRange', ['fstarts', 'flimit', 'fdeltas'], {...T(), Tsplits: A.type('DT_INT32')}), 'frange:1');
  // rv as [[v0, v1], [], [v2, v3, v4], [v5]], and a two-level version of it.
  g.ints('splits', [0, 2, 2, 5, 6]);
  g.ints('outer', [0, 1, 3, 4]);
  g.const('pick', [2, 0, 2, 3], [2, 2], 'int32');
  g.ints('pick1', [3, 1, 0]);
  g.ints('pick_outer', [2, 0, 0, 1]);
  const rg = (rank, out) => ({Tvalues: A.type('DT_FLOAT'), Tindices: A.type('DT_INT32'), Tsplits: A.type('DT_INT32'),
    PARAMS_RAGGED_RANK: A.i(rank), OUTPUT_RAGGED_RANK: A.i(out)});
  names.push(g.node('gather', 'RaggedGather', ['splits', 'rv', 'pick1'], rg(1, 1)), 'gather:1');
  names.push(g.node('gather2', 'RaggedGather', ['splits', 'rv', 'pick'], rg(1, 2)), 'gather2:1', 'gather2:2');
  // A scalar index drops the outer level: the picked row's values alone.
  g.scalarInt('pick_scalar', 2);
  names.push(g.node('gather_scalar', 'RaggedGather', ['splits', 'rv', 'pick_scalar'], rg(1, 0)));
  names.push(g.node('gather_nested', 'RaggedGather', ['outer', 'splits', 'rv', 'pick_outer'], rg(2, 2)),
    'gather_nested:1', 'gather_nested:2');
  const rt = (types) => ({T: A.type('DT_FLOAT'), Tindex: A.type('DT_INT32'), Tshape: A.type('DT_INT32'),
    num_row_partition_tensors: A.i(types.length), row_partition_types: A.strs(types)});
  g.ints('any_shape', [-1, -1]);
  g.scalar('pad', 9);
  names.push(g.node('dense', 'RaggedTensorToTensor', ['any_shape', 'rv', 'pad', 'splits'], rt(['ROW_SPLITS'])));
  g.ints('cut_shape', [3, 2]);
  names.push(g.node('dense_cut', 'RaggedTensorToTensor', ['cut_shape', 'rv', 'pad', 'splits'], rt(['ROW_SPLITS'])));
  g.ints('shape3d', [-1, -1, -1]);
  names.push(g.node('dense3', 'RaggedTensorToTensor', ['shape3d', 'rv', 'pad', 'outer', 'splits'], rt(['ROW_SPLITS', 'ROW_SPLITS'])));
  g.scalarInt('nrows', 5);
  g.ints('rowids', [0, 0, 2, 2, 2, 3]);
  g.ints('grow_shape', [5, 4]);
  names.push(g.node('dense_rowids', 'RaggedTensorToTensor', ['grow_shape', 'rv', 'pad', 'nrows', 'rowids'],
    rt(['FIRST_DIM_SIZE', 'VALUE_ROWIDS'])));
  const dir = path.join(out, 'ragged');
  g.write(dir);
  await record(dir, {rv: F([6], -2, 2)}, names, false);
}

// ---- random: what holds for any draw (shapes, ranges) -----------------------
{
  const g = new Graph();
  const names = [];
  g.ints('shape34', [3, 4]);
  g.ints('axes01', [0, 1]);
  const all = (name, a, b, cmpA, cmpB) => {
    g.node(name + '/a', cmpA, [name, a], T());
    g.node(name + '/b', cmpB, [name, b], T());
    g.node(name + '/and', 'LogicalAnd', [name + '/a', name + '/b']);
    return g.node(name + '/all', 'All', [name + '/and', 'axes01'], {keep_dims: A.b(false), Tidx: A.type('DT_INT32')});
  };
  const seeded = {seed: A.i(7), seed2: A.i(3)};
  g.scalar('zero', 0);
  g.scalar('onef', 1);
  g.scalar('two', 2);
  g.scalar('mtwo', -2);
  g.node('uniform', 'RandomUniform', ['shape34'], {...seeded, dtype: A.type('DT_FLOAT'), T: A.type('DT_INT32')});
  names.push(g.node('uniform_shape', 'Shape', ['uniform'], {out_type: A.type('DT_INT32')}));
  names.push(all('uniform', 'zero', 'onef', 'GreaterEqual', 'Less'));
  g.node('normal', 'RandomStandardNormal', ['shape34'], {seed: A.i(0), seed2: A.i(0), dtype: A.type('DT_FLOAT'),
    T: A.type('DT_INT32')});
  names.push(g.node('normal_shape', 'Shape', ['normal'], {out_type: A.type('DT_INT32')}));
  g.node('truncated', 'TruncatedNormal', ['shape34'], {...seeded, dtype: A.type('DT_FLOAT'), T: A.type('DT_INT32')});
  names.push(g.node('truncated_shape', 'Shape', ['truncated'], {out_type: A.type('DT_INT32')}));
  names.push(all('truncated', 'mtwo', 'two', 'GreaterEqual', 'LessEqual'));
  // TF gives the bounds as inputs; TF.js reads attrs of the same names.
  g.scalarInt('lo', -3);
  g.scalarInt('hi', 4);
  g.node('ints', 'RandomUniformInt', ['shape34', 'lo', 'hi'], {...seeded, minval: A.i(-3), maxval: A.i(4),
    Tout: A.type('DT_INT32'), T: A.type('DT_INT32')});
  names.push(g.node('ints_shape', 'Shape', ['ints'], {out_type: A.type('DT_INT32')}));
  g.node('ints/a', 'GreaterEqual', ['ints', 'lo'], T('int32'));
  g.node('ints/b', 'Less', ['ints', 'hi'], T('int32'));
  g.node('ints/and', 'LogicalAnd', ['ints/a', 'ints/b']);
  names.push(g.node('ints/all', 'All', ['ints/and', 'axes01'], {keep_dims: A.b(false), Tidx: A.type('DT_INT32')}));
  // Class 1 has no chance in row 0, class 0 none in row 1.
  g.const('logits', [0, -1e9, 1, -1e9, 2, 0.5], [2, 3]);
  g.scalarInt('samples', 6);
  g.node('draws', 'Multinomial', ['logits', 'samples'], {...seeded, T: A.type('DT_FLOAT'), output_dtype: A.type('DT_INT32')});
  names.push(g.node('draws_shape', 'Shape', ['draws'], {out_type: A.type('DT_INT32')}));
  g.const('banned', [1, 0], [2, 1], 'int32');
  g.scalarInt('izero', 0);
  g.scalarInt('three', 3);
  g.node('draws/a', 'NotEqual', ['draws', 'banned'], T('int32'));
  g.node('draws/b', 'GreaterEqual', ['draws', 'izero'], T('int32'));
  g.node('draws/c', 'Less', ['draws', 'three'], T('int32'));
  g.node('draws/ab', 'LogicalAnd', ['draws/a', 'draws/b']);
  g.node('draws/and', 'LogicalAnd', ['draws/ab', 'draws/c']);
  names.push(g.node('draws/all', 'All', ['draws/and', 'axes01'], {keep_dims: A.b(false), Tidx: A.type('DT_INT32')}));
  const dir = path.join(out, 'random');
  g.write(dir);
  await record(dir, {}, names, false);
}
