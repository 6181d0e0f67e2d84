// tf.linalg (bandPart, gramSchmidt, qr) and einsum, composed from Glint's ops
// so that every backend runs them and the tape differentiates them.
import {GlintError} from './core.js';
import {tensor, tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

const need = (op, arg, x) => asTensor(x, op, arg);

/** Keeps the band numLower below and numUpper above the diagonal (negative: all) of the last two axes. */
export function bandPart(a, numLower, numUpper) {
  a = need('bandPart', 'a', a);
  if (a.rank < 2) throw new GlintError(`[bandPart] a must be rank >= 2: got [${a.shape}]`);
  const [m, n] = a.shape.slice(-2);
  const lower = numLower < 0 ? m : numLower, upper = numUpper < 0 ? n : numUpper;
  if (!Number.isInteger(lower) || !Number.isInteger(upper)) {
    throw new GlintError(`[bandPart] numLower and numUpper must be integers: got ${numLower}, ${numUpper}`);
  }
  const mask = new Float32Array(m * n);
  for (let i = 0; i < m; ++i) for (let j = 0; j < n; ++j) mask[i * n + j] = i - j <= lower && j - i <= upper ? 1 : 0;
  return tidy(() => {
    const keep = ops.cast(tensor(mask, [m, n]), 'bool');
    return ops.where(keep, a, ops.zerosLike(a));
  });
}

/** Orthonormalizes the rows of a 2-D tensor (or an array of 1-D tensors) by Gram-Schmidt. */
export function gramSchmidt(xs) {
  const list = Array.isArray(xs);
  const rows = list ? xs.map((x, i) => need('gramSchmidt', `xs[${i}]`, x)) : null;
  const m = list ? null : need('gramSchmidt', 'xs', xs);
  if (list ? rows.length === 0 || rows.some((r) => r.rank !== 1 || r.shape[0] !== rows[0].shape[0]) : m.rank !== 2) {
    throw new GlintError('[gramSchmidt] expects a 2-D tensor or a non-empty array of 1-D tensors of one length');
  }
  return tidy(() => {
    const vs = list ? rows : ops.unstack(m);
    const out = [];
    for (const v of vs) {
      let x = v;
      for (const y of out) x = ops.sub(x, ops.mul(ops.sum(ops.mul(y, x)), y));
      out.push(ops.div(x, ops.sqrt(ops.sum(ops.square(x)))));
    }
    return list ? out : ops.stack(out);
  });
}

// ---- einsum ------------------------------------------------------------------------

/**
 * einsum('ij,jk->ik', a, b): one or two operands, an explicit '->', no index
 * repeated within an operand (TF.js's limits). Each operand is transposed to
 * one shared index order and given size-1 axes for the indices it lacks; their
 * broadcast product is summed over the indices the output drops.
 */
export function einsum(equation, ...tensors) {
  if (typeof equation !== 'string' || (equation.match(/->/g) ?? []).length !== 1) {
    throw new GlintError(`[einsum] the equation needs exactly one '->': got ${JSON.stringify(equation)}`);
  }
  const [lhs, out] = equation.replace(/\s/g, '').split('->');
  const terms = lhs.split(',');
  if (terms.length !== tensors.length) {
    throw new GlintError(`[einsum] '${equation}' has ${terms.length} operands, got ${tensors.length} tensors`);
  }
  if (terms.length > 2) throw new GlintError('[einsum] more than 2 operands are not supported (as in TF.js)');
  const xs = tensors.map((t, i) => need('einsum', `tensors[${i}]`, t));
  const sizes = new Map();
  terms.forEach((term, i) => {
    if (!/^[a-zA-Z]*$/.test(term) || new Set(term).size !== term.length) {
      throw new GlintError(`[einsum] operand ${i} '${term}' must be distinct letters (no repeated or ellipsis axes)`);
    }
    if (term.length !== xs[i].rank) {
      throw new GlintError(`[einsum] operand ${i} '${term}' names ${term.length} axes; its shape is [${xs[i].shape}]`);
    }
    [...term].forEach((c, d) => {
      const n = xs[i].shape[d];
      if (sizes.has(c) && sizes.get(c) !== n) {
        throw new GlintError(`[einsum] index '${c}' is ${sizes.get(c)} in one operand and ${n} in another`);
      }
      sizes.set(c, n);
    });
  });
  if (new Set(out).size !== out.length || [...out].some((c) => !sizes.has(c))) {
    throw new GlintError(`[einsum] output '${out}' must be distinct indices of the operands`);
  }
  const order = [...out, ...[...sizes.keys()].filter((c) => !out.includes(c))];
  return tidy(() => {
    const aligned = xs.map((x, i) => {
      const term = terms[i];
      const present = order.filter((c) => term.includes(c));
      const moved = ops.transpose(x, present.map((c) => term.indexOf(c)));
      return ops.reshape(moved, order.map((c) => (term.includes(c) ? sizes.get(c) : 1)));
    });
    const product = aligned.length === 1 ? aligned[0] : ops.mul(aligned[0], aligned[1]);
    const summed = order.slice(out.length).map((_, k) => out.length + k);
    const reduced = summed.length ? ops.sum(product, summed) : product;
    return ops.reshape(reduced, [...out].map((c) => sizes.get(c)));
  });
}

// ---- linalg.qr ---------------------------------------------------------------------

// Householder QR of one [m, n] matrix, with TF.js's conventions (the reflector
// makes r[j][j] = -sign(r[j][j]) * |column|, a zero diagonal counting as negative).
function qr2d(x, fullMatrices) {
  const [m, n] = x.shape;
  const k = Math.min(m, n);
  let q = ops.cast(tensor(Float32Array.from({length: m * m}, (_, i) => (i % (m + 1) === 0 ? 1 : 0)), [m, m]), 'float32');
  let r = x;
  for (let j = 0; j < k; ++j) {
    const col = ops.slice(r, [j, j], [m - j, 1]);
    const normX = ops.sqrt(ops.sum(ops.square(col)));
    const rjj = ops.slice(r, [j, j], [1, 1]);
    const s = ops.where(ops.greater(rjj, 0), ops.fill([1, 1], -1), ops.fill([1, 1], 1));
    const u1 = ops.sub(rjj, ops.mul(s, normX));
    const below = ops.div(ops.slice(col, [1, 0], [m - j - 1, 1]), u1);
    const w = ops.concat([ops.ones([1, 1]), below], 0);
    const tau = ops.div(ops.mul(ops.neg(s), u1), normX);
    const rLow = ops.slice(r, [j, 0], [m - j, n]);
    const rLowNew = ops.sub(rLow, ops.matMul(ops.mul(tau, w), ops.matMul(w, rLow, true, false)));
    r = j === 0 ? rLowNew : ops.concat([ops.slice(r, [0, 0], [j, n]), rLowNew], 0);
    const qRight = ops.slice(q, [0, j], [m, m - j]);
    const qRightNew = ops.sub(qRight, ops.matMul(ops.matMul(qRight, w), ops.mul(tau, w), false, true));
    q = j === 0 ? qRightNew : ops.concat([ops.slice(q, [0, 0], [m, j]), qRightNew], 1);
  }
  if (!fullMatrices && m > n) {
    q = ops.slice(q, [0, 0], [m, n]);
    r = ops.slice(r, [0, 0], [n, n]);
  }
  return [q, r];
}

/** [q, r] with x = q r over the last two axes: q orthonormal columns, r upper triangular. */
export function qr(x, fullMatrices = false) {
  x = need('qr', 'x', x);
  if (x.rank < 2) throw new GlintError(`[qr] x must be rank >= 2: got [${x.shape}]`);
  if (x.dtype !== 'float32') throw new GlintError(`[qr] x must be float32: got ${x.dtype}`);
  const [m, n] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  return tidy(() => {
    if (lead.length === 0) return qr2d(x, fullMatrices);
    const parts = ops.unstack(ops.reshape(x, [-1, m, n])).map((mat) => qr2d(mat, fullMatrices));
    const qs = ops.stack(parts.map((p) => p[0])), rs = ops.stack(parts.map((p) => p[1]));
    return [ops.reshape(qs, [...lead, ...qs.shape.slice(1)]), ops.reshape(rs, [...lead, ...rs.shape.slice(1)])];
  });
}
