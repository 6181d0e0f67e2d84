// tf.raggedGather: rows of a ragged tensor (nested row splits over dense
// values) picked by indices, as TF.js 4.22's RaggedGather. The splits are
// index bookkeeping and run on the host, as TF.js's kernel does; the values
// move with one gather on the device.
import {GlintError} from './core.js';
import {asTensor, tensor, tidy} from './tensor.js';
import {ops} from './ops.js';

const fail = (msg) => {
  throw new GlintError(`[raggedGather] ${msg}`);
};

function hostInts(x, what) {
  const t = asTensor(x, 'raggedGather', what, {dtype: 'int32'});
  if (t.dtype !== 'int32') fail(`${what} must be int32, got ${t.dtype}`);
  return {shape: t.shape, values: Array.from(t.dataSync()), tensor: t};
}

function checkSplits(splits, numValues) {
  splits.forEach(({values}, dim) => {
    const what = `paramsNestedSplits[${dim}]`;
    const end = dim === splits.length - 1 ? numValues : splits[dim + 1].values.length;
    if (!values.length) fail(`${what} is empty: row splits hold at least one value`);
    if (values[0] < 0) fail(`${what} starts below 0: [${values}]`);
    if (values[values.length - 1] > end) fail(`${what} points past the ${end} entries below it: [${values}]`);
    for (let i = 1; i < values.length; ++i) {
      if (values[i] < values[i - 1]) fail(`${what} must not decrease: [${values}]`);
    }
  });
}

/**
 * {outputNestedSplits, outputDenseValues}: the rows indices picks from the
 * ragged tensor (paramsNestedSplits, paramsDenseValues). The output's splits
 * are indices' own dimensions (but the last) as uniform rows, then the
 * gathered rows' splits. outputRaggedRank is taken and, as by TF.js, not
 * needed: the output's ragged rank follows from indices and the splits.
 */
 
export function raggedGather(paramsNestedSplits, paramsDenseValues, indices, outputRaggedRank) {
  if (!Array.isArray(paramsNestedSplits) || !paramsNestedSplits.length) {
    fail('paramsNestedSplits must be a non-empty list of row-splits tensors');
  }
  const splits = paramsNestedSplits.map((s, i) => hostInts(s, `paramsNestedSplits[${i}]`));
  splits.forEach(({shape}, i) => {
    if (shape.length !== 1) fail(`paramsNestedSplits[${i}] must be rank 1, got shape [${shape}]`);
  });
  const values = asTensor(paramsDenseValues, 'raggedGather', 'paramsDenseValues');
  if (values.rank === 0) fail('paramsDenseValues must have rank >= 1, got a scalar');
  const idx = hostInts(indices, 'indices');
  const numParams = splits[0].values.length - 1;
  idx.values.forEach((v, i) => {
    if (!(v >= 0 && v < numParams)) fail(`indices[${i}] = ${v} is not in [0, ${numParams})`);
  });
  checkSplits(splits, values.shape[0]);

  // Uniform rows for indices' leading dimensions.
  const rankI = idx.shape.length;
  const out = Array.from({length: Math.max(0, rankI - 1 + splits.length)}, () => [0]);
  let rows = 1;
  for (let d = 0; d + 1 < rankI; ++d) {
    rows *= idx.shape[d];
    for (let r = 1; r <= rows; ++r) out[d].push(r * idx.shape[d + 1]);
  }
  // Each picked row, level by level: its sub-rows' lengths extend the
  // output's splits; the innermost range names the values it holds.
  const picks = [];
  for (const i of idx.values) {
    let begin = i, end = i + 1;
    splits.forEach(({values: s}, d) => {
      const level = out[d + rankI - 1];
      if (level) {
        const shift = level[level.length - 1] - s[begin];
        for (let j = begin; j < end; ++j) level.push(s[j + 1] + shift);
      }
      [begin, end] = [s[begin], s[end]];
    });
    for (let v = begin; v < end; ++v) picks.push(v);
  }
  return tidy(() => ({
    outputNestedSplits: out.map((s) => tensor(Int32Array.from(s), [s.length], 'int32')),
    outputDenseValues: ops.gather(values, tensor(Int32Array.from(picks), [picks.length], 'int32')),
  }));
}
