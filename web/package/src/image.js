// tf.image: resizing, crops, flips, colour and non-maximum suppression, with
// TF.js's names and argument orders. Each runs the engine's op of the same
// name (src/ops/image*.cpp), so they work on every backend and the
// differentiable ones have gradients.
import {GlintError} from './core.js';
import {Tensor, tensor, dispose} from './tensor.js';
import {runOp} from './ops.js';

const one = (name, inputs, attrs) => runOp(name, inputs, attrs)[0];

function sizePair(op, size) {
  if (!Array.isArray(size) || size.length !== 2 || !size.every((v) => Number.isInteger(v) && v > 0))
    throw new GlintError(`[image.${op}] size must be [newHeight, newWidth] of positive integers, got ${JSON.stringify(size)}`);
  return size;
}

/** Resizes images [batch, h, w, c] (or one image [h, w, c]) to size, bilinearly. */
function resizeBilinear(images, size, alignCorners = false, halfPixelCenters = false) {
  return one('resizeBilinear', [images], {size: sizePair('resizeBilinear', size), alignCorners, halfPixelCenters});
}

function resizeNearestNeighbor(images, size, alignCorners = false, halfPixelCenters = false) {
  return one('resizeNearestNeighbor', [images],
             {size: sizePair('resizeNearestNeighbor', size), alignCorners, halfPixelCenters});
}

/** Boxes [n, 4] (normalised y1, x1, y2, x2) cut from image[boxInd[i]], each resized to cropSize. */
function cropAndResize(image, boxes, boxInd, cropSize, method = 'bilinear', extrapolationValue = 0) {
  const temps = [];
  const asFloat = (v) => (v instanceof Tensor ? v : (temps.push(tensor(v, undefined, 'float32')), temps.at(-1)));
  const asInt = (v) => (v instanceof Tensor ? v : (temps.push(tensor(v, undefined, 'int32')), temps.at(-1)));
  try {
    return one('cropAndResize', [image, asFloat(boxes), asInt(boxInd)],
               {cropSize: sizePair('cropAndResize', cropSize), method, extrapolationValue});
  } finally {
    dispose(temps);
  }
}

const flipLeftRight = (image) => one('flipLeftRight', [image]);
const rgbToGrayscale = (image) => one('rgbToGrayscale', [image]);

function nms(op, boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, extra) {
  if (!Number.isInteger(maxOutputSize) || maxOutputSize < 0)
    throw new GlintError(`[image.${op}] maxOutputSize must be a non-negative integer, got ${maxOutputSize}`);
  return runOp('nonMaxSuppression', [boxes, scores],
               {maxOutputSize, iouThreshold, scoreThreshold: scoreThreshold ?? null, ...extra}, 3);
}

/** Indices (int32 [k]) of the boxes kept by greedy non-maximum suppression. */
function nonMaxSuppression(boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = -Infinity) {
  const [indices, scoresOut] = nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold);
  scoresOut.dispose();
  return indices;
}

/** As nonMaxSuppression, with softNmsSigma > 0 decaying overlapping scores (Soft-NMS). */
function nonMaxSuppressionWithScore(boxes, scores, maxOutputSize, iouThreshold = 0.5,
                                    scoreThreshold = -Infinity, softNmsSigma = 0) {
  const [selectedIndices, selectedScores] =
      nms('nonMaxSuppressionWithScore', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, {softNmsSigma});
  return {selectedIndices, selectedScores};
}

/** As nonMaxSuppression, padded with index 0 to maxOutputSize when padToMaxOutputSize. */
function nonMaxSuppressionPadded(boxes, scores, maxOutputSize, iouThreshold = 0.5,
                                 scoreThreshold = -Infinity, padToMaxOutputSize = false) {
  const [selectedIndices, selectedScores, validOutputs] =
      nms('nonMaxSuppressionPadded', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, {padToMaxOutputSize});
  selectedScores.dispose();
  return {selectedIndices, validOutputs};
}

// The async forms read boxes and scores as the sync ones do (NMS is a host
// algorithm); they exist so TF.js code that awaits them runs unchanged.
export const image = {
  resizeBilinear, resizeNearestNeighbor, cropAndResize, flipLeftRight, rgbToGrayscale,
  nonMaxSuppression, nonMaxSuppressionWithScore, nonMaxSuppressionPadded,
  nonMaxSuppressionAsync: async (...a) => nonMaxSuppression(...a),
  nonMaxSuppressionWithScoreAsync: async (...a) => nonMaxSuppressionWithScore(...a),
  nonMaxSuppressionPaddedAsync: async (...a) => nonMaxSuppressionPadded(...a),
};
