// The inverse hyperbolic functions from their closed forms over log1p and sqrt
// (exact identities, arranged to keep float32 accuracy near 0 and 1 and to
// avoid overflow for large arguments). The tape differentiates them; the
// branch not taken by a `where` is given a harmless input so its gradient
// stays finite. int32 inputs give int32 results (truncated), as in TF.js.
import {tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

const LN2 = Math.LN2;
const BIG = 1e10;  // beyond this, sqrt(x² ± 1) is |x| in float32: use log(2|x|)

function unary(op, fn) {
  return (x) => tidy(() => {
    const t = asTensor(x, op, 'x');
    const y = fn(t.dtype === 'float32' ? t : ops.cast(t, 'float32'));
    return t.dtype === 'int32' ? ops.cast(y, 'int32') : y;
  });
}

/** asinh(x) = log1p(u + u² / (1 + sqrt(1 + u²))) for u = |x|, odd in x. */
export const asinh = unary('asinh', (t) => {
  const negative = ops.less(t, 0);
  const u = ops.where(negative, ops.neg(t), t);
  const big = ops.greater(u, BIG);
  const us = ops.where(big, ops.zerosLike(u), u);
  const near = ops.log1p(ops.add(us, ops.div(ops.square(us), ops.add(1, ops.sqrt(ops.add(1, ops.square(us)))))));
  const far = ops.add(ops.log(ops.where(big, u, ops.onesLike(u))), LN2);
  const g = ops.where(big, far, near);
  return ops.where(negative, ops.neg(g), g);
});

/** acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))), NaN below 1. */
export const acosh = unary('acosh', (t) => {
  const big = ops.greater(t, BIG);
  const safe = ops.where(big, ops.fill(t.shape, 2), t);
  const d = ops.sub(safe, 1);
  const near = ops.log1p(ops.add(d, ops.sqrt(ops.mul(d, ops.add(safe, 1)))));
  const far = ops.add(ops.log(ops.where(big, t, ops.onesLike(t))), LN2);
  return ops.where(big, far, near);
});

/** atanh(x) = log1p(2x / (1 - x)) / 2, NaN outside [-1, 1]. */
export const atanh = unary('atanh', (t) => ops.mul(ops.log1p(ops.div(ops.mul(t, 2), ops.sub(1, t))), 0.5));
