// tf.losses as TF.js 4.22 has them: (labels, predictions, weights?, ...,
// reduction = Reduction.SUM_BY_NONZERO_WEIGHTS), each reduced as
// computeWeightedLoss does. Written with the ops, so every backend and the
// tape (gradients) get them. Keras-style per-sample functions of the same
// family stay in ops.js's `losses` under their Keras names.
import {GlintError} from './core.js';
import {tidy} from './tensor.js';
import {ops} from './ops.js';

/** TF.js's Reduction enum (its numeric values, and the names). */
export const Reduction = Object.freeze({NONE: 0, MEAN: 1, SUM: 2, SUM_BY_NONZERO_WEIGHTS: 3,
  0: 'NONE', 1: 'MEAN', 2: 'SUM', 3: 'SUM_BY_NONZERO_WEIGHTS'});

/** losses (per element), weighted (broadcast), then reduced. */
export function computeWeightedLoss(losses, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  return tidy(() => {
    const weighted = weights == null ? losses : ops.mul(losses, weights);
    switch (reduction) {
      case Reduction.NONE:
        return weighted;
      case Reduction.SUM:
        return ops.sum(weighted);
      case Reduction.MEAN: {
        if (weights == null) return ops.mean(weighted);
        // TF.js's rule: over the weights' sum, scaled down by how often they repeat.
        const mean = ops.div(ops.sum(weighted), ops.sum(weights));
        const repeat = losses.size / (weights.size ?? 1);
        return repeat > 1 ? ops.div(mean, repeat) : mean;
      }
      case Reduction.SUM_BY_NONZERO_WEIGHTS: {
        if (weights == null) return ops.div(ops.sum(weighted), losses.size);
        const nonZero = ops.cast(ops.notEqual(ops.mul(weights, ops.onesLike(losses)), 0), 'float32');
        return ops.div(ops.sum(weighted), ops.sum(nonZero));
      }
      default:
        throw new GlintError(`[computeWeightedLoss] unknown reduction ${reduction} ` +
            '(tf.Reduction.NONE, MEAN, SUM or SUM_BY_NONZERO_WEIGHTS)');
    }
  });
}

function sameShape(op, labels, predictions) {
  const a = labels.shape, b = predictions.shape;
  if (a.length !== b.length || a.some((d, i) => d !== b[i])) {
    throw new GlintError(`[${op}] labels [${a}] and predictions [${b}] must have the same shape`);
  }
}

export function absoluteDifference(labels, predictions, weights, reduction) {
  sameShape('absoluteDifference', labels, predictions);
  return tidy(() => computeWeightedLoss(ops.abs(ops.sub(labels, predictions)), weights, reduction));
}

export function meanSquaredError(labels, predictions, weights, reduction) {
  sameShape('meanSquaredError', labels, predictions);
  return tidy(() => computeWeightedLoss(ops.squaredDifference(labels, predictions), weights, reduction));
}

export function cosineDistance(labels, predictions, axis, weights, reduction) {
  sameShape('cosineDistance', labels, predictions);
  return tidy(() => computeWeightedLoss(
      ops.sub(1, ops.sum(ops.mul(labels, predictions), axis, true)), weights, reduction));
}

export function hingeLoss(labels, predictions, weights, reduction) {
  sameShape('hingeLoss', labels, predictions);
  return tidy(() => {
    const signs = ops.sub(ops.mul(2, labels), 1);
    return computeWeightedLoss(ops.relu(ops.sub(1, ops.mul(signs, predictions))), weights, reduction);
  });
}

export function huberLoss(labels, predictions, weights, delta = 1.0, reduction) {
  sameShape('huberLoss', labels, predictions);
  return tidy(() => {
    const error = ops.abs(ops.sub(predictions, labels));
    const quadratic = ops.minimum(error, delta);
    const linear = ops.sub(error, quadratic);
    return computeWeightedLoss(ops.add(ops.mul(0.5, ops.square(quadratic)), ops.mul(delta, linear)),
                               weights, reduction);
  });
}

export function logLoss(labels, predictions, weights, epsilon = 1e-7, reduction) {
  sameShape('logLoss', labels, predictions);
  return tidy(() => {
    const pos = ops.mul(labels, ops.log(ops.add(predictions, epsilon)));
    const neg = ops.mul(ops.sub(1, labels), ops.log(ops.add(ops.sub(1, predictions), epsilon)));
    return computeWeightedLoss(ops.sub(ops.neg(pos), neg), weights, reduction);
  });
}

export function sigmoidCrossEntropy(multiClassLabels, logits, weights, labelSmoothing = 0, reduction) {
  sameShape('sigmoidCrossEntropy', multiClassLabels, logits);
  return tidy(() => {
    let labels = multiClassLabels;
    if (labelSmoothing > 0) labels = ops.add(ops.mul(labels, 1 - labelSmoothing), 0.5 * labelSmoothing);
    // max(x, 0) - x * z + log(1 + exp(-|x|)): no overflow for large |x|.
    const losses = ops.add(ops.sub(ops.relu(logits), ops.mul(logits, labels)),
                           ops.log1p(ops.exp(ops.neg(ops.abs(logits)))));
    return computeWeightedLoss(losses, weights, reduction);
  });
}

export function softmaxCrossEntropy(onehotLabels, logits, weights, labelSmoothing = 0, reduction) {
  sameShape('softmaxCrossEntropy', onehotLabels, logits);
  return tidy(() => {
    let labels = onehotLabels;
    if (labelSmoothing > 0) {
      const classes = logits.shape[logits.shape.length - 1];
      labels = ops.add(ops.mul(labels, 1 - labelSmoothing), labelSmoothing / classes);
    }
    const perExample = ops.neg(ops.sum(ops.mul(labels, ops.logSoftmax(logits, -1)), -1));
    return computeWeightedLoss(perExample, weights, reduction);
  });
}

export const tfLosses = {absoluteDifference, computeWeightedLoss, cosineDistance, hingeLoss,
  huberLoss, logLoss, meanSquaredError, sigmoidCrossEntropy, softmaxCrossEntropy};

