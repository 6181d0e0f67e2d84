// Glint's JS API: TensorFlow.js's names over Glint's WebAssembly engine.
//   import * as glint from 'glint-ml';
//   await glint.ready();
//   const model = glint.sequential({layers: [glint.layers.dense({units: 10, inputShape: [4]})]});
export {ready, GlintError, isReady} from './core.js';
export {Tensor, Variable, tensor, scalar, tensor1d, tensor2d, tensor3d, tensor4d, tensor5d, tensor6d, variable,
  tidy, keep, dispose} from './tensor.js';
export {setBackend, getBackend, backendInfo, memory, releaseUnusedMemory, setSeed, enableDebugMode,
  setNumThreads, getNumThreads,
  setFloat16Activations,
  loadedResources,
  kernelTable, gl, webgpu} from './engine.js';
export {ops, metrics, runOp} from './ops.js';
export {Reduction} from './tf_losses.js';
export {grad, grads, valueAndGrad, valueAndGrads, variableGrads} from './grad.js';
export {train, Optimizer} from './train.js';
export {layers, input, Layer, SymbolicTensor} from './layers.js';
export {sequential, model, LayersModel, Sequential, modelFromArtifacts} from './model.js';
export {GraphModel, loadGraphModel, graphModelFromArtifacts} from './graph_model.js';
export {io} from './io.js';
export {data} from './data.js';
export {worker} from './worker_client.js';

import {ops, losses as kerasLosses} from './ops.js';
import {tfLosses} from './tf_losses.js';

/**
 * tf.losses: TF.js's nine (weighted, reduced), plus Glint's Keras-style per-sample
 * losses under their Keras names; where a name is in both, TF.js's form.
 */
export const losses = {...kerasLosses, ...tfLosses};
import {LayersModel, Sequential, modelFromArtifacts} from './model.js';
import {getLoadHandler} from './io.js';

// The ops at the top level, as in TF.js (glint.add, glint.matMul, ...).
export const {
  neg, abs, exp, log, log1p, sqrt, rsqrt, square, reciprocal, relu, relu6, elu, selu, sigmoid,
  tanh, softplus, sin, cos, sign, floor, ceil, round, logicalNot, zerosLike, onesLike, add, sub,
  mul, div, pow, maximum, minimum, squaredDifference, floorDiv, mod, equal, notEqual, less,
  lessEqual, greater, greaterEqual, logicalAnd, logicalOr, logicalXor, sum, mean, max, min, prod,
  logSumExp, any, all, leakyRelu, gelu, where, cast, clipByValue, argMax, argMin, softmax,
  logSoftmax, moments, batchNorm, matMul, dot, conv2d, depthwiseConv2d, conv2dTranspose, maxPool,
  avgPool, reshape, transpose, concat, stack, split, unstack, slice, stridedSlice, pad, gather,
  unsortedSegmentSum, oneHot, tile, expandDims, squeeze, reverse, fill, zeros, ones, range,
  randomUniform, randomNormal, truncatedNormal, dropout, fused,
} = ops;

/**
 * loadLayersModel(urlOrHandler, {onProgress, retries, ...}): a model saved by
 * Glint or TF.js (model.json + shards), from any handler io knows.
 */
export async function loadLayersModel(pathOrHandler, options = {}) {
  const handler = getLoadHandler(pathOrHandler, options);
  if (typeof handler._glintModelHandle === 'function') {
    const id = await handler._glintModelHandle();
    const m = new LayersModel(id);
    return m.className === 'Sequential' ? new Sequential(id) : m;
  }
  const artifacts = await handler.load();
  return modelFromArtifacts(artifacts);
}

export const version = '0.1.0';
