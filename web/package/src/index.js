// Glint's JS API: TensorFlow.js's names over Glint's WebAssembly engine.
//   import * as glint from 'glint-ml';
//   await glint.ready();
//   const model = glint.sequential({layers: [glint.layers.dense({units: 10, inputShape: [4]})]});
export {ready, GlintError, isReady} from './core.js';
export {Tensor, Variable, tensor, scalar, tensor1d, tensor2d, tensor3d, tensor4d, tensor5d, tensor6d, variable,
  tidy, keep, dispose} from './tensor.js';
export {setBackend, getBackend, backendInfo, memory, disposeVariables, releaseUnusedMemory, setSeed, enableDebugMode,
  setNumThreads, getNumThreads,
  setFloat16Activations,
  loadedResources,
  kernelTable, gl, webgpu} from './engine.js';
export {runOp} from './ops.js';
import './ops_dtype_rules.js';
import './ops_arg_forms.js';
export {linspace, addN, eye, clone, print, outerProduct, norm, euclideanNorm, logSigmoid, step,
  divNoNan, isNaN, isInf, isFinite, tan, sinh, cosh, cumsum, prelu, expm1, broadcastTo, meshgrid,
  conv1d, gatherND, booleanMaskAsync, whereAsync} from './ops_composite.js';
export {initializers, regularizers, constraints} from './layer_config.js';
export {Reduction} from './tf_losses.js';
export {grad, grads, valueAndGrad, valueAndGrads, variableGrads} from './grad.js';
export {customGrad} from './custom_grad.js';
export {train, Optimizer, SGDOptimizer, MomentumOptimizer, AdamOptimizer, AdamaxOptimizer, RMSPropOptimizer,
  AdagradOptimizer, AdadeltaOptimizer, OptimizerConstructors} from './train.js';
export {TensorBuffer, buffer} from './tensor_buffer.js';
export {multinomial, randomGamma} from './ops_random.js';
export {sparse, raggedRange} from './ops_sparse.js';
export {topk, dilation2d, tensorScatterUpdate, broadcastArgs, cumprod, maxPoolWithArgmax, bitwiseAnd}
  from './ops_select.js';
import {threshold} from './ops_select.js';
export {Environment, ENV, env, disableDeprecationWarnings, deprecationWarn, enableProdMode, Rank, enclosingPowerOfTwo, cosineWindow,
  loadGraphModelSync, time} from './globals_more.js';
import './tensor_methods.js';
export {depthToSpace, spaceToBatchND, batchToSpaceND, mirrorPad, diag, scatterND, sparseToDense}
  from './ops_layout.js';
export {batchNorm2d, batchNorm3d, batchNorm4d, separableConv2d, localResponseNormalization, movingAverage,
  searchSorted, lowerBound, upperBound, bincount, denseBincount, rand, randomStandardNormal, randomUniformInt,
  upcastType, sumOutType, op, ensureShape, pool} from './ops_more.js';
export {unique, setdiff1dAsync, inTopKAsync} from './ops_host.js';
export {basicLSTMCell, multiRNNCell} from './ops_rnn_cells.js';
export {einsum} from './ops_linalg.js';
export {conv3d, conv3dTranspose, maxPool3d, avgPool3d} from './ops_conv3d.js';
export {profile} from './profile.js';
import {fusedConv2d, fusedDepthwiseConv2d} from './ops_more.js';
export {layers, input, Layer, SymbolicTensor, InputSpec} from './layers.js';
export {RNN} from './rnn.js';
export {sequential, model, LayersModel, Sequential, modelFromArtifacts, nextFrame, models} from './model.js';
export {GraphModel, loadGraphModel, graphModelFromArtifacts} from './graph_model.js';
export {io} from './io.js';
export {browser} from './browser.js';
import {image as baseImage} from './image.js';
import {transform, rotateWithOffset} from './image_warp.js';
export const image = {...baseImage, grayscaleToRGB, threshold, transform, rotateWithOffset};
import {data as baseData} from './data.js';
import {qr, bandPart, gramSchmidt} from './ops_linalg.js';
import {hannWindow, hammingWindow, frame} from './ops_signal.js';
import {grayscaleToRGB} from './ops_more.js';
/** tf.linalg and tf.signal: the parts composed from Glint's ops. */
export const linalg = {bandPart, gramSchmidt, qr};
import {complex, real, imag, installComplexOps} from './complex.js';
import {fft, ifft, rfft, irfft, stft} from './ops_fft.js';
import {installStringOps} from './string.js';
export {string} from './string.js';
export {registerOp, deregisterOp} from './register_op.js';
export {LayerVariable} from './custom_layer.js';
export {raggedTensorToTensor} from './ops_ragged.js';
export {raggedGather} from './ops_ragged_gather.js';
export {complex, real, imag, fft, ifft, rfft, irfft};
/** tf.spectral: the transforms over the innermost axis (ops_fft.js). */
export const spectral = {fft, ifft, rfft, irfft};
export const signal = {hannWindow, hammingWindow, frame, stft};
import {webcam, microphone} from './media.js';
/** tf.data: datasets, plus the browser's camera and microphone as iterators. */
import {csv, CSVDataset} from './data_csv.js';
import {FileDataSource, URLDataSource, TextLineDataset} from './data_sources.js';
export const data = {...baseData, webcam, microphone, csv, CSVDataset, FileDataSource, URLDataSource, TextLineDataset};
export {worker} from './worker_client.js';
export {callbacks, Callback, CustomCallback, EarlyStopping, History, CallbackList} from './callbacks.js';

export {util} from './util.js';
export {serialization} from './serialization.js';

import {ops as engineOps, metrics as engineMetrics, losses as kerasLosses} from './ops.js';
import * as composite from './ops_composite.js';

// glint.ops: the engine's ops and those composed in JS (ops_composite.js).
const {rankedAliases, r2Score: _, confusionMatrix, ...compositeOps} = composite;
/** tf.math: confusionMatrix. */
export const math = {confusionMatrix};
export const ops = Object.assign(engineOps, compositeOps, rankedAliases);
// The ops that take complex64 and string tensors (held in JS) get those forms.
installComplexOps(ops);
installStringOps(ops);
export const {slice1d, slice2d, slice3d, slice4d, concat1d, concat2d, concat3d, concat4d,
  reverse1d, reverse2d, reverse3d, reverse4d, pad1d, pad2d, pad3d, pad4d} = rankedAliases;

// TF.js's metric aliases and the metrics that are its per-sample losses.
const meanSquaredError = engineMetrics.meanSquaredError;
const meanAbsoluteError = engineMetrics.meanAbsoluteError;
export const metrics = Object.assign(engineMetrics, {
  MSE: meanSquaredError, mse: meanSquaredError, MAE: meanAbsoluteError, mae: meanAbsoluteError,
  meanAbsolutePercentageError: kerasLosses.meanAbsolutePercentageError,
  MAPE: kerasLosses.meanAbsolutePercentageError, mape: kerasLosses.meanAbsolutePercentageError,
  binaryCrossentropy: kerasLosses.binaryCrossentropy,
  categoricalCrossentropy: kerasLosses.categoricalCrossentropy,
  sparseCategoricalCrossentropy: kerasLosses.sparseCategoricalCrossentropy,
  cosineProximity: kerasLosses.cosineSimilarity,
  r2Score: composite.r2Score,
});

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
  tanh, softplus, sin, cos, asin, acos, atan, asinh, acosh, atanh, erf, atan2, sign, floor, ceil, round, logicalNot, zerosLike, onesLike, add, sub,
  mul, div, pow, maximum, minimum, squaredDifference, floorDiv, mod, equal, notEqual, less,
  lessEqual, greater, greaterEqual, logicalAnd, logicalOr, logicalXor, sum, mean, max, min, prod,
  logSumExp, any, all, leakyRelu, gelu, where, cast, clipByValue, argMax, argMin, softmax,
  logSoftmax, moments, batchNorm, matMul, dot, conv2d, depthwiseConv2d, conv2dTranspose, maxPool,
  avgPool, reshape, transpose, concat, stack, split, unstack, slice, stridedSlice, pad, gather,
  unsortedSegmentSum, oneHot, tile, expandDims, squeeze, reverse, fill, zeros, ones, range,
  randomUniform, randomNormal, truncatedNormal, dropout, fused,
} = ops;
// tf.fused's windowed ops: the op, the bias and the activation composed (fused.matMul is the engine's).
Object.assign(fused, {conv2d: fusedConv2d, depthwiseConv2d: fusedDepthwiseConv2d});

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
