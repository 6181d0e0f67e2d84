// Top-level TF.js helpers that are plain host code: deprecation warnings,
// production mode, the Rank enum, cosineWindow, enclosingPowerOfTwo, and
// loading a graph model synchronously from artifacts already in memory.
import {GlintError} from './core.js';
import {tensor} from './tensor.js';
import {enableDebugMode, getBackend} from './engine.js';
import {now} from './util.js';
import {graphModelFromArtifacts} from './graph_model.js';
import {getModelArtifactsForJSONSync, getWeightSpecs, concatenateArrayBuffers} from './io_more.js';

import {isNode} from './platform.js';

/**
 * tf.env(): TF.js's flag registry, holding the flags that mean something to
 * Glint. get() evaluates a flag once and caches it; set() runs the flag's
 * hook (DEBUG and PROD switch Glint's debug mode). Unregistered flags throw,
 * as in TF.js (WebGL flags do not exist here: configure glint.gl instead).
 */
export class Environment {
  constructor(global) {
    this.global = global;
    this.flags = {};
    this.flagRegistry = {};
  }
  registerFlag(flagName, evaluationFn, setHook) {
    this.flagRegistry[flagName] = {evaluationFn, setHook};
  }
  get(flagName) {
    if (!(flagName in this.flags)) {
      const entry = this.flagRegistry[flagName];
      if (!entry) {
        throw new GlintError(`[env] cannot evaluate flag '${flagName}': it is not registered ` +
            `(Glint's flags: ${Object.keys(this.flagRegistry).join(', ')})`);
      }
      this.flags[flagName] = entry.evaluationFn();
    }
    return this.flags[flagName];
  }
  async getAsync(flagName) {
    return this.get(flagName);
  }
  getBool(flagName) {
    return this.get(flagName);
  }
  getNumber(flagName) {
    return this.get(flagName);
  }
  getString(flagName) {
    return this.get(flagName);
  }
  getFlags() {
    return this.flags;
  }
  get features() {
    return this.flags;
  }
  set(flagName, value) {
    const entry = this.flagRegistry[flagName];
    if (!entry) {
      throw new GlintError(`[env] cannot set flag '${flagName}': it is not registered ` +
          `(Glint's flags: ${Object.keys(this.flagRegistry).join(', ')})`);
    }
    this.flags[flagName] = value;
    entry.setHook?.(value);
  }
  setFlags(flags) {
    this.flags = {...flags};
  }
  reset() {
    this.flags = {};
  }
}

const nav = () => (typeof navigator !== 'undefined' ? navigator : null);
export const ENV = new Environment(globalThis);
ENV.registerFlag('DEBUG', () => false, (on) => enableDebugMode(Boolean(on)));
ENV.registerFlag('PROD', () => false, (on) => {
  if (on) enableDebugMode(false);
});
ENV.registerFlag('IS_BROWSER', () => typeof window !== 'undefined' || typeof WorkerGlobalScope !== 'undefined');
ENV.registerFlag('IS_NODE', () => isNode);
ENV.registerFlag('IS_CHROME', () => /Chrome/.test(nav()?.userAgent ?? '') && /Google Inc/.test(nav()?.vendor ?? ''));
ENV.registerFlag('IS_SAFARI', () => /Safari/.test(nav()?.userAgent ?? '') && /Apple/.test(nav()?.vendor ?? ''));
ENV.registerFlag('IS_TEST', () => false);
ENV.registerFlag('DEPRECATION_WARNINGS_ENABLED', () => true);

export function env() {
  return ENV;
}

export function disableDeprecationWarnings() {
  ENV.set('DEPRECATION_WARNINGS_ENABLED', false);
}

/** Prints msg as a deprecation warning, unless disableDeprecationWarnings() was called. */
export function deprecationWarn(msg) {
  if (ENV.getBool('DEPRECATION_WARNINGS_ENABLED')) {
    console.warn(`${msg} You can disable deprecation warnings with tf.disableDeprecationWarnings().`);
  }
}

/**
 * Production mode (env flag PROD): debug mode off (no per-kernel NaN checks).
 * Glint keeps validating arguments either way.
 */
export function enableProdMode() {
  ENV.set('PROD', true);
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

/**
 * time(f): {wallMs, kernelMs}. On the CPU backends kernels run while f runs,
 * so kernelMs is f's own time (as TF.js's cpu backend measures it); on GPU
 * backends Glint has no kernel timers and kernelMs is {error}, the form TF.js
 * gives where WebGL timer queries are missing.
 */
export async function time(f) {
  const start = now();
  f();
  const ran = now() - start;
  const backend = getBackend();
  const kernelMs = backend === 'cpu' || backend === 'reference' ? ran :
      {error: `kernel timing is not available on the '${backend}' backend (Glint has no GPU timer queries)`};
  return {kernelMs, wallMs: now() - start};
}
