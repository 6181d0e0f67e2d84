// The rest of tf.io: weight (de)serialization, model.json <-> artifacts,
// routers, copy/move between stores, browser File handlers, synchronous
// in-memory handlers. All host-side, as in TF.js.
import {GlintError} from './core.js';
import {Tensor, tensor} from './tensor.js';
import {artifactsInfo, getLoadHandler, getSaveHandler, removeModel, http, routers} from './io.js';

const BYTES = {float32: 4, int32: 4, bool: 1};
const QUANT_BYTES = {uint8: 1, uint16: 2, float16: 2};

/** One ArrayBuffer holding the given ones back to back. */
export function concatenateArrayBuffers(buffers) {
  if (buffers instanceof ArrayBuffer) return buffers;
  const list = buffers.map((b) => (b instanceof ArrayBuffer ? new Uint8Array(b) :
      new Uint8Array(b.buffer, b.byteOffset, b.byteLength)));
  const out = new Uint8Array(list.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of list) {
    out.set(b, at);
    at += b.byteLength;
  }
  return out.buffer;
}

/** {data, specs}: the tensors' values back to back (float32, int32, bool) and their manifest entries. */
export async function encodeWeights(tensors, group) {
  const named = Array.isArray(tensors) ? tensors : Object.keys(tensors).map((name) => ({name, tensor: tensors[name]}));
  const specs = [], parts = [];
  for (const {name, tensor: t} of named) {
    if (!(t instanceof Tensor)) throw new GlintError(`[io.encodeWeights] '${name}' is not a Tensor`);
    if (!(t.dtype in BYTES)) throw new GlintError(`[io.encodeWeights] '${name}' has unsupported dtype ${t.dtype}`);
    const spec = {name, shape: t.shape, dtype: t.dtype};
    if (group != null) spec.group = group;
    specs.push(spec);
    parts.push(await t.data());
  }
  return {data: concatenateArrayBuffers(parts), specs};
}

// IEEE half to float.
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function decodeOne(bytes, spec) {
  const size = spec.shape.reduce((n, d) => n * d, 1);
  const {dtype} = spec;
  const q = spec.quantization;
  if (!q) {
    if (!(dtype in BYTES)) throw new GlintError(`[io.decodeWeights] weight '${spec.name}' has unsupported dtype ${dtype}`);
    const T = {float32: Float32Array, int32: Int32Array, bool: Uint8Array}[dtype];
    return {values: new T(bytes.slice(0, size * BYTES[dtype]).buffer), used: size * BYTES[dtype]};
  }
  if (!(q.dtype in QUANT_BYTES)) {
    throw new GlintError(`[io.decodeWeights] weight '${spec.name}' has quantization dtype ${q.dtype}: ` +
        "supported are 'uint8', 'uint16' and 'float16'");
  }
  const used = size * QUANT_BYTES[q.dtype];
  const raw = bytes.slice(0, used);
  if (q.dtype === 'float16') {
    if (dtype !== 'float32') throw new GlintError(`[io.decodeWeights] weight '${spec.name}': float16 needs dtype float32`);
    return {values: Float32Array.from(new Uint16Array(raw.buffer), halfToFloat), used};
  }
  if (!('min' in q && 'scale' in q)) {
    throw new GlintError(`[io.decodeWeights] weight '${spec.name}' with ${q.dtype} quantization needs min and scale`);
  }
  const ints = q.dtype === 'uint8' ? raw : new Uint16Array(raw.buffer);
  if (dtype === 'float32') return {values: Float32Array.from(ints, (v) => v * q.scale + q.min), used};
  if (dtype === 'int32') return {values: Int32Array.from(ints, (v) => Math.round(v * q.scale + q.min)), used};
  throw new GlintError(`[io.decodeWeights] weight '${spec.name}': quantized dtype ${dtype} is not supported`);
}

/** {name: Tensor} from weight bytes (an ArrayBuffer or a list of them) and their manifest entries. */
export function decodeWeights(weightData, specs) {
  const all = new Uint8Array(concatenateArrayBuffers(weightData));
  const out = {};
  let offset = 0;
  for (const spec of specs) {
    const {values, used} = decodeOne(all.subarray(offset), spec);
    if (offset + used > all.byteLength) {
      throw new GlintError(`[io.decodeWeights] weight '${spec.name}' [${spec.shape}] needs ${used} bytes at ` +
          `offset ${offset}: the data has ${all.byteLength}`);
    }
    out[spec.name] = tensor(values, spec.shape, spec.dtype);
    offset += used;
  }
  return out;
}

export function getModelArtifactsInfoForJSON(modelArtifacts) {
  if (modelArtifacts.modelTopology instanceof ArrayBuffer) {
    throw new GlintError('[io.getModelArtifactsInfoForJSON] expects JSON model topology, not an ArrayBuffer');
  }
  return artifactsInfo(modelArtifacts);
}

/** The weight entries of every group of a manifest. */
export function getWeightSpecs(weightsManifest) {
  return weightsManifest.flatMap((g) => g.weights);
}

function artifactsFromJson(modelJSON, weightSpecs, weightData) {
  const a = {
    modelTopology: modelJSON.modelTopology,
    format: modelJSON.format,
    generatedBy: modelJSON.generatedBy,
    convertedBy: modelJSON.convertedBy,
  };
  for (const k of ['trainingConfig', 'signature', 'userDefinedMetadata', 'modelInitializer', 'initializerSignature']) {
    if (modelJSON[k] != null) a[k] = modelJSON[k];
  }
  if (modelJSON.weightsManifest != null) {
    a.weightSpecs = weightSpecs;
    a.weightData = weightData;
  }
  return a;
}

/** ModelArtifacts from model.json's content, its weights fetched by loadWeights(manifest). */
export async function getModelArtifactsForJSON(modelJSON, loadWeights) {
  let specs, data;
  if (modelJSON.weightsManifest != null) [specs, data] = await loadWeights(modelJSON.weightsManifest);
  return artifactsFromJson(modelJSON, specs, data);
}

export function getModelArtifactsForJSONSync(modelJSON, weightSpecs, weightData) {
  return artifactsFromJson(modelJSON, weightSpecs, weightData);
}

export function isHTTPScheme(url) {
  return /^https?:\/\//.test(url);
}

/** Deprecated in TF.js: io.http. */
export const browserHTTPRequest = (path, loadOptions) => http(path, loadOptions);

/** A load handler whose load() returns the artifacts synchronously. */
export function fromMemorySync(modelArtifacts, weightSpecs, weightData, trainingConfig) {
  if (!modelArtifacts || typeof modelArtifacts !== 'object') {
    throw new GlintError('[fromMemorySync] expects ModelArtifacts ({modelTopology, weightSpecs, weightData})');
  }
  const direct = arguments.length === 1 && modelArtifacts && 'modelTopology' in modelArtifacts ?
      modelArtifacts : {modelTopology: modelArtifacts, weightSpecs, weightData, trainingConfig};
  return {load: () => direct};
}

/** A save handler calling saveFn synchronously. */
export function withSaveHandlerSync(saveFn) {
  if (typeof saveFn !== 'function') {
    throw new GlintError('[withSaveHandlerSync] expects a function (artifacts) => SaveResult');
  }
  return {save: (artifacts) => saveFn(artifacts) ?? {modelArtifactsInfo: artifactsInfo(artifacts)}};
}

// ---- Routers: functions (url, options) -> handler | null, tried before the built-in schemes.

export function registerSaveRouter(router) {
  routers.save.push(router);
}
export function registerLoadRouter(router) {
  routers.load.push(router);
}

function handlersFrom(kind, url, options) {
  const out = [];
  for (const r of routers[kind]) {
    const h = r(url, options);
    if (h) out.push(h);
  }
  if (out.length) return out;
  try {
    return [kind === 'save' ? getSaveHandler(url) : getLoadHandler(url, options)];
  } catch {
    return [];  // no scheme matches: TF.js answers an empty list too
  }
}

/** Handlers for url: the registered routers', else the built-in scheme's, else none. */
export const getSaveHandlers = (url) => handlersFrom('save', url);
export const getLoadHandlers = (url, loadOptions) => handlersFrom('load', url, loadOptions);

function oneHandler(kind, url) {
  const hs = kind === 'save' ? getSaveHandlers(url) : getLoadHandlers(url);
  if (hs.length !== 1) {
    throw new GlintError(`[io.copyModel] ${hs.length === 0 ? 'no' : 'more than one'} ` +
        `${kind} handler for '${url}'`);
  }
  return hs[0];
}

/** Copies a stored model (indexeddb://, localstorage://, ...) to another URL; resolves to its info. */
export async function copyModel(sourceURL, destURL) {
  if (sourceURL === destURL) throw new GlintError(`[io.copyModel] source and destination are both '${sourceURL}'`);
  const artifacts = await oneHandler('load', sourceURL).load();
  const result = await oneHandler('save', destURL).save(artifacts);
  return result.modelArtifactsInfo;
}

/** copyModel, then removes the source. */
export async function moveModel(sourceURL, destURL) {
  const info = await copyModel(sourceURL, destURL);
  await removeModel(sourceURL);
  return info;
}

// ---- Weights from URLs ---------------------------------------------------------------

/**
 * weightsLoaderFactory(fetchWeights)(manifest, filePathPrefix = '', weightNames?):
 * fetchWeights(urls) resolves to one ArrayBuffer per URL; the result maps names to tensors.
 */
export function weightsLoaderFactory(fetchWeightsFunction) {
  return async (manifest, filePathPrefix = '', weightNames) => {
    const wanted = weightNames == null ? null : new Set(weightNames);
    const groups = manifest.map((g) => ({g, want: wanted == null || g.weights.some((w) => wanted.has(w.name))}));
    const urls = [];
    for (const {g, want} of groups) if (want) for (const p of g.paths) urls.push(filePathPrefix + p);
    const buffers = await fetchWeightsFunction(urls);
    const out = {};
    let at = 0;
    for (const {g, want} of groups) {
      if (!want) continue;
      const data = concatenateArrayBuffers(buffers.slice(at, at + g.paths.length));
      at += g.paths.length;
      const decoded = decodeWeights(data, g.weights);
      for (const [name, t] of Object.entries(decoded)) {
        if (wanted == null || wanted.has(name)) out[name] = t;
        else t.dispose();
      }
    }
    if (wanted) {
      const missing = [...wanted].filter((n) => !(n in out));
      if (missing.length) {
        throw new GlintError(`[io.loadWeights] no weights named ${missing.join(', ')} in the manifest`);
      }
    }
    return out;
  };
}

/** Fetches a manifest's shards over http (relative to filePathPrefix) and decodes them. */
export function loadWeights(manifest, filePathPrefix = '', weightNames, requestInit) {
  const fetchAll = async (urls) => Promise.all(urls.map(async (u) => {
    const r = await fetch(u, requestInit);
    if (!r.ok) throw new GlintError(`[io.loadWeights] '${u}': HTTP ${r.status}`);
    return r.arrayBuffer();
  }));
  return weightsLoaderFactory(fetchAll)(manifest, filePathPrefix, weightNames);
}

// ---- Browser files -------------------------------------------------------------------

/**
 * browserFiles([jsonFile, ...weightFiles]): loads a model from File objects
 * (an <input type=file>): model.json and the shards its manifest names.
 */
export function browserFiles(files) {
  if (!Array.isArray(files) || files.length < 1) {
    throw new GlintError('[io.browserFiles] expects [model.json File, ...weight Files]');
  }
  return {
    async load() {
      const [jsonFile, ...weightFiles] = files;
      let modelJSON;
      try {
        modelJSON = JSON.parse(await jsonFile.text());
      } catch (e) {
        throw new GlintError(`[io.browserFiles] '${jsonFile.name}' is not JSON: ${e.message}`);
      }
      if (modelJSON.modelTopology == null) {
        throw new GlintError(`[io.browserFiles] '${jsonFile.name}' has no modelTopology`);
      }
      if (modelJSON.weightsManifest == null) return artifactsFromJson(modelJSON);
      const byName = new Map(weightFiles.map((f) => [f.name, f]));
      const buffers = [];
      for (const g of modelJSON.weightsManifest) {
        for (const p of g.paths) {
          const base = p.slice(p.lastIndexOf('/') + 1);
          const f = byName.get(base);
          if (!f) throw new GlintError(`[io.browserFiles] weight file '${base}' is not among the files given`);
          buffers.push(await f.arrayBuffer());
          byName.delete(base);
        }
      }
      if (byName.size) {
        throw new GlintError(`[io.browserFiles] files not named by the manifest: ${[...byName.keys()].join(', ')}`);
      }
      return artifactsFromJson(modelJSON, getWeightSpecs(modelJSON.weightsManifest), concatenateArrayBuffers(buffers));
    },
    async save() {
      throw new GlintError('[io.browserFiles] only loads: save with downloads:// instead');
    },
  };
}

// ---- CompositeArrayBuffer and streamed weights ------------------------------------------

const asBytes = (b) => (b instanceof ArrayBuffer ? new Uint8Array(b) :
    new Uint8Array(b.buffer, b.byteOffset, b.byteLength));

/** Several ArrayBuffers (or typed arrays) read as one: byteLength and slice(start, end) across them. */
export class CompositeArrayBuffer {
  /** One ArrayBuffer of them all (the buffer itself when there is one). */
  static join(buffers) {
    return new CompositeArrayBuffer(buffers).slice();
  }
  constructor(buffers = []) {
    const list = buffers == null ? [] : Array.isArray(buffers) ? buffers : [buffers];
    this.shards = [];
    let start = 0;
    for (const b of list) {
      const bytes = asBytes(b);
      this.shards.push({start, end: start + bytes.byteLength, bytes});
      start += bytes.byteLength;
    }
    this.byteLength = start;
  }
  /** A copy of bytes [start, end), both clamped to [0, byteLength] (no negative indexing, as TF.js). */
  slice(start = 0, end = this.byteLength) {
    const a = Math.min(Math.max(0, Number(start) || 0), this.byteLength);
    const z = Math.max(a, Math.min(this.byteLength, Number.isNaN(Number(end)) ? this.byteLength : Number(end)));
    if (this.shards.length === 1 && a === 0 && z === this.byteLength) {
      const only = this.shards[0].bytes;
      if (only.byteOffset === 0 && only.byteLength === only.buffer.byteLength) return only.buffer.slice(0);
    }
    const out = new Uint8Array(z - a);
    for (const s of this.shards) {
      const lo = Math.max(a, s.start), hi = Math.min(z, s.end);
      if (lo < hi) out.set(s.bytes.subarray(lo - s.start, hi - s.start), lo - a);
    }
    return out.buffer;
  }
}

/** decodeWeights over a ReadableStream of the weight bytes (read to its end first). */
export async function decodeWeightsStream(weightStream, specs) {
  const reader = weightStream.getReader();
  const chunks = [];
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return decodeWeights(chunks, specs);
}

export const ioMore = {
  CompositeArrayBuffer, decodeWeightsStream,
  concatenateArrayBuffers, encodeWeights, decodeWeights, getModelArtifactsInfoForJSON, getWeightSpecs,
  getModelArtifactsForJSON, getModelArtifactsForJSONSync, isHTTPScheme, browserHTTPRequest, fromMemorySync,
  withSaveHandlerSync, registerSaveRouter, registerLoadRouter, getSaveHandlers, getLoadHandlers, copyModel,
  moveModel, weightsLoaderFactory, loadWeights, browserFiles,
};
