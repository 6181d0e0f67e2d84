// Top-level TF.js helpers that are plain host code: deprecation warnings,
// production mode, the Rank enum, cosineWindow, enclosingPowerOfTwo, and
// loading a graph model synchronously from artifacts already in memory.
import {GlintError} from './core.js';
import {tensor} from './tensor.js';
import {enableDebugMode} from './engine.js';
import {graphModelFromArtifacts} from './graph_model.js';
import {getModelArtifactsForJSONSync, getWeightSpecs, concatenateArrayBuffers} from './io_more.js';

let deprecationWarnings = true;

export function disableDeprecationWarnings() {
  deprecationWarnings = false;
}

/** Prints msg as a deprecation warning, unless disableDeprecationWarnings() was called. */
export function deprecationWarn(msg) {
  if (deprecationWarnings) {
    console.warn(`${msg} You can disable deprecation warnings with tf.disableDeprecationWarnings().`);
  }
}

/**
 * Production mode: debug mode off (no per-kernel NaN checks and synchronous
 * reads). Glint keeps validating arguments either way.
 */
export function enableProdMode() {
  enableDebugMode(false);
}

/** TF.js's Rank enum. */
export const Rank = Object.freeze({R0: 'R0', R1: 'R1', R2: 'R2', R3: 'R3', R4: 'R4', R5: 'R5', R6: 'R6'});

/** The smallest power of two >= value. */
export function enclosingPowerOfTwo(value) {
  return Math.floor(2 ** Math.ceil(Math.log(value) / Math.log(2)));
}

/** a - b cos(2πi/(N-1)) for odd N, 2πi/N for even N (TF.js's rule), i in [0, N). */
export function cosineWindow(windowLength, a, b) {
  if (!Number.isInteger(windowLength) || windowLength < 0) {
    throw new GlintError(`[cosineWindow] windowLength must be a non-negative integer: got ${windowLength}`);
  }
  const denominator = windowLength + (1 - windowLength % 2) - 1;
  const values = Float32Array.from({length: windowLength}, (_, i) => a - b * Math.cos(2 * Math.PI * i / denominator));
  return tensor(values, [windowLength]);
}

/**
 * A GraphModel built synchronously: from a handler whose load() returns
 * artifacts, from artifacts, or from [modelJSON, weightData].
 */
export function loadGraphModelSync(modelSource) {
  let artifacts;
  if (Array.isArray(modelSource)) {
    const [modelJSON, weights] = modelSource;
    if (!modelJSON) throw new GlintError('[loadGraphModelSync] modelJSON is missing');
    const data = weights == null ? undefined : concatenateArrayBuffers(Array.isArray(weights) ? weights : [weights]);
    artifacts = getModelArtifactsForJSONSync(modelJSON,
        modelJSON.weightsManifest ? getWeightSpecs(modelJSON.weightsManifest) : undefined, data);
  } else if (modelSource && typeof modelSource.load === 'function') {
    artifacts = modelSource.load();
    if (artifacts && typeof artifacts.then === 'function') {
      throw new GlintError('[loadGraphModelSync] the handler loads asynchronously: use loadGraphModel');
    }
  } else if (modelSource && modelSource.modelTopology) {
    artifacts = modelSource;
  } else {
    throw new GlintError('[loadGraphModelSync] expects a sync IOHandler, ModelArtifacts or [modelJSON, weights]');
  }
  return graphModelFromArtifacts(artifacts);
}
