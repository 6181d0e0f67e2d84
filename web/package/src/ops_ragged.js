// tf.raggedTensorToTensor: a ragged tensor (flat values and a row partition
// per ragged dimension) as a dense one, padded with defaultValue. The
// partitions are index bookkeeping, so it runs on the host as TF.js's does:
// each value row's position in the output is found by walking its
// partitions, then written where the output shape has room for it (values
// past it are dropped, as in TensorFlow).
import {GlintError} from './core.js';
import {asTensor, tensor, tidy} from './tensor.js';
import {ops} from './ops.js';

const fail = (msg) => {
  throw new GlintError(`[raggedTensorToTensor] ${msg}`);
};

function ints(x, what) {
  const t = asTensor(x, 'raggedTensorToTensor', what, {dtype: 'int32'});
  if (t.dtype !== 'int32') fail(`${what} must be int32, got ${t.dtype}`);
  return {shape: t.shape, values: Array.from(t.dataSync())};
}

// One ragged level: for each element of the level below, its row and its
// position in that row; and the widest row.
function level(type, values, rows, what) {
  const parent = [], position = [];
  let widest = 0;
  if (type === 'ROW_SPLITS') {
    if (values.length !== rows + 1 || values[0] !== 0) fail(`${what}: row splits must start at 0 and hold ${rows + 1} values, got [${values}]`);
    for (let r = 0; r < rows; ++r) {
      if (values[r + 1] < values[r]) fail(`${what}: row splits must not decrease, got [${values}]`);
      for (let e = values[r]; e < values[r + 1]; ++e) {
        parent.push(r);
        position.push(e - values[r]);
      }
      widest = Math.max(widest, values[r + 1] - values[r]);
    }
  } else if (type === 'VALUE_ROWIDS') {
    let run = 0;
    values.forEach((r, e) => {
      if (r < 0 || r >= rows || (e > 0 && r < values[e - 1])) fail(`${what}: value row ids must rise within [0, ${rows}), got [${values}]`);
      run = e > 0 && values[e - 1] === r ? run + 1 : 0;
      parent.push(r);
      position.push(run);
      widest = Math.max(widest, run + 1);
    });
  } else {
    fail(`${what}: partition type '${type}' (ROW_SPLITS or VALUE_ROWIDS; FIRST_DIM_SIZE only first)`);
  }
  return {parent, position, widest, count: parent.length};
}

export function raggedTensorToTensor(shape, values, defaultValue, rowPartitionTensors, rowPartitionTypes) {
  if (!Array.isArray(rowPartitionTensors) || !Array.isArray(rowPartitionTypes) ||
      rowPartitionTensors.length !== rowPartitionTypes.length || rowPartitionTensors.length === 0) {
    fail('rowPartitionTensors and rowPartitionTypes must be lists of one length (at least 1)');
  }
  return tidy(() => {
    const v = asTensor(values, 'raggedTensorToTensor', 'values');
    if (v.rank < 1) fail(`values must have rank >= 1, got shape [${v.shape}]`);
    if (v.id === null) fail(`values must be float32, int32 or bool, got ${v.dtype}`);
    const d = asTensor(defaultValue, 'raggedTensorToTensor', 'defaultValue', v);
    const parts = rowPartitionTensors.map((t, i) => ints(t, `rowPartitionTensors[${i}]`));
    const types = rowPartitionTypes.slice();
    // The rows of the first dimension.
    let rows;
    if (types[0] === 'FIRST_DIM_SIZE') {
      if (parts[0].values.length !== 1) fail('the FIRST_DIM_SIZE partition must be one number');
      rows = parts[0].values[0];
      types.shift();
      parts.shift();
      if (!types.length || types[0] !== 'VALUE_ROWIDS') fail('FIRST_DIM_SIZE must be followed by VALUE_ROWIDS');
    } else if (types[0] === 'ROW_SPLITS') {
      rows = parts[0].values.length - 1;
    } else {
      fail(`the first partition must be ROW_SPLITS or FIRST_DIM_SIZE, got '${types[0]}'`);
    }
    const levels = [];
    let above = rows;
    types.forEach((type, i) => {
      const l = level(type, parts[i].values, above, `rowPartitionTensors[${i}]`);
      levels.push(l);
      above = l.count;
    });
    if (above !== v.shape[0]) fail(`the partitions place ${above} values, values has ${v.shape[0]}`);
    const inner = v.shape.slice(1), innerSize = inner.reduce((a, b) => a * b, 1);
    const natural = [rows, ...levels.map((l) => l.widest), ...inner];
    // shape: -1 (or [] or a -1 entry) takes the natural size; dense dimensions cannot change.
    const wanted = shape == null ? {values: [], shape: [0]} : ints(shape, 'shape');
    const outShape = wanted.shape.length === 0 || wanted.values.length === 0 ? natural :
        natural.map((n, i) => {
          const w = wanted.values[i];
          if (wanted.values.length !== natural.length) fail(`shape must have ${natural.length} entries, got [${wanted.values}]`);
          if (w < -1) fail(`shape entries must be >= -1, got [${wanted.values}]`);
          if (i > levels.length && w !== -1 && w !== n) fail(`shape [${wanted.values}] changes the dense dimension ${i} of values (${n})`);
          return w === -1 ? n : w;
        });
    const outer = outShape.slice(0, levels.length + 1);
    const out = ops.broadcastTo(ops.cast(d, v.dtype), [outer.reduce((a, b) => a * b, 1), ...inner]);
    // Each value row's index in the output (null when it falls outside).
    const flat = v.dataSync(), target = out.dataSync().slice();
    for (let e = 0; e < v.shape[0]; ++e) {
      const index = new Array(levels.length + 1);
      let at = e;
      for (let k = levels.length - 1; k >= 0; --k) {
        index[k + 1] = levels[k].position[at];
        at = levels[k].parent[at];
      }
      index[0] = at;
      if (index.some((p, k) => p >= outer[k])) continue;
      const row = index.reduce((acc, p, k) => acc * outer[k] + p, 0);
      target.set(flat.subarray(e * innerSize, (e + 1) * innerSize), row * innerSize);
    }
    return tensor(target, outShape, v.dtype);
  });
}
