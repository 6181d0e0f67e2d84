// Where models are saved and loaded from. Handlers follow TF.js's IOHandler
// shape ({save(artifacts), load()}) and URL schemes:
//   indexeddb://name   one transaction per save: all of it lands or none
//   localstorage://name  pieces under a new generation, then one atomic switch
//   http(s)://...      load model.json + shards (progress, retries, size checks); save by POST
//   downloads://name   name.json + name.weights.bin as file downloads
//   file://dir         node only: dir/model.json + a weights file (atomic switch)
import {GlintError, quoteForError} from './core.js';
import {checkJsonTextDepth, weightSpecsBytes} from './artifact_limits.js';
import {fromBase64, toBase64} from './base64.js';

export function artifactsInfo(a) {
  const jsonBytes = (v) => (v == null ? 0 : new TextEncoder().encode(JSON.stringify(v)).length);
  return {
    dateSaved: new Date(),
    modelTopologyType: 'JSON',
    modelTopologyBytes: jsonBytes(a.modelTopology),
    weightSpecsBytes: jsonBytes(a.weightSpecs),
    weightDataBytes: a.weightData ? a.weightData.byteLength : 0,
  };
}

function schemeOf(url) {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  return m ? m[1].toLowerCase() : null;
}

function pathOf(url) {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
}

function validName(op, name) {
  if (!name) throw new GlintError(`[${op}] the URL has no model name`);
  return name;
}

/** io.registerSaveRouter / registerLoadRouter: (url, options) => handler | null, tried first. */
export const routers = {save: [], load: []};

function fromRouter(kind, url, options) {
  for (const r of routers[kind]) {
    const h = r(url, options);
    if (h) return h;
  }
  return null;
}

export function getSaveHandler(handlerOrUrl) {
  if (handlerOrUrl && typeof handlerOrUrl === 'object' && typeof handlerOrUrl.save === 'function') {
    return handlerOrUrl;
  }
  const url = String(handlerOrUrl);
  const routed = fromRouter('save', url);
  if (routed) return routed;
  switch (schemeOf(url)) {
    case 'indexeddb': return browserIndexedDB(validName('save', pathOf(url)));
    case 'localstorage': return browserLocalStorage(validName('save', pathOf(url)));
    case 'downloads': return browserDownloads(pathOf(url) || 'model');
    case 'http': case 'https': return http(url);
    case 'file': return fileSystem(pathOf(url));
    default:
      throw new GlintError(`[save] no handler for '${url}': use indexeddb://, localstorage://, ` +
          'downloads://, http(s):// or file:// (node)');
  }
}

export function getLoadHandler(handlerOrUrl, options = {}) {
  if (handlerOrUrl && typeof handlerOrUrl === 'object' && typeof handlerOrUrl.load === 'function') {
    return handlerOrUrl;
  }
  const url = String(handlerOrUrl);
  const routed = fromRouter('load', url, options);
  if (routed) return routed;
  switch (schemeOf(url)) {
    case 'indexeddb': return browserIndexedDB(validName('load', pathOf(url)));
    case 'localstorage': return browserLocalStorage(validName('load', pathOf(url)));
    case 'http': case 'https': return http(url, options);
    case 'file': return fileSystem(pathOf(url));
    case null:
      // A relative URL in a page (e.g. 'models/digits/model.json').
      if (typeof location !== 'undefined') return http(new URL(url, location.href).href, options);
      return fileSystem(url);
    default:
      throw new GlintError(`[loadLayersModel] no handler for '${url}'`);
  }
}

// ---- IndexedDB ------------------------------------------------------------------------

const DB_NAME = 'glint-models';
const INFO_STORE = 'model_info';
const MODEL_STORE = 'models';

function openDb() {
  if (typeof indexedDB === 'undefined') {
    throw new GlintError('[indexeddb] IndexedDB is not available in this environment');
  }
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      db.createObjectStore(INFO_STORE, {keyPath: 'modelPath'});
      db.createObjectStore(MODEL_STORE, {keyPath: 'modelPath'});
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new GlintError(`[indexeddb] cannot open the database: ${req.error}`));
  });
}

function transact(db, mode, body) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction([INFO_STORE, MODEL_STORE], mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onabort = tx.onerror = () => reject(new GlintError(
        `[indexeddb] transaction failed: ${tx.error ?? 'aborted'}`));
    body(tx, (r) => {
      result = r;
    });
  });
}

export function browserIndexedDB(name) {
  return {
    async save(artifacts) {
      const db = await openDb();
      try {
        const info = artifactsInfo(artifacts);
        // One transaction over both stores: a failure midway leaves the previous model.
        await transact(db, 'readwrite', (tx) => {
          tx.objectStore(MODEL_STORE).put({modelPath: name, modelArtifacts: artifacts});
          tx.objectStore(INFO_STORE).put({modelPath: name, modelArtifactsInfo: info});
        });
        return {modelArtifactsInfo: info};
      } finally {
        db.close();
      }
    },
    async load() {
      const db = await openDb();
      try {
        const rec = await transact(db, 'readonly', (tx, done) => {
          const req = tx.objectStore(MODEL_STORE).get(name);
          req.onsuccess = () => done(req.result);
        });
        if (!rec) throw new GlintError(`[indexeddb] no model named '${name}' in IndexedDB`);
        return rec.modelArtifacts;
      } finally {
        db.close();
      }
    },
  };
}

// ---- localStorage ---------------------------------------------------------------------

const LS_PREFIX = 'glint_models/';

export function browserLocalStorage(name) {
  const store = () => {
    if (typeof localStorage === 'undefined') {
      throw new GlintError('[localstorage] localStorage is not available in this environment');
    }
    return localStorage;
  };
  const infoKey = LS_PREFIX + 'info/' + name;
  return {
    async save(artifacts) {
      const ls = store();
      const prev = ls.getItem(infoKey);
      const generation = (prev ? JSON.parse(prev).generation + 1 : 1);
      const key = (part) => `${LS_PREFIX}${part}/${name}/${generation}`;
      const info = artifactsInfo(artifacts);
      const {weightData, ...rest} = artifacts;
      try {
        ls.setItem(key('artifacts'), JSON.stringify(rest));
        ls.setItem(key('weights'), toBase64(new Uint8Array(weightData ?? new ArrayBuffer(0))));
      } catch (e) {
        ls.removeItem(key('artifacts'));
        ls.removeItem(key('weights'));
        throw new GlintError(`[localstorage] saving '${name}' failed (the previous model is ` +
            `intact): ${e.message}`);
      }
      // The switch: one setItem, atomic. Then the old generation goes. A
      // switch that fails (quota) leaves the previous model, and no debris.
      try {
        ls.setItem(infoKey, JSON.stringify({generation, modelArtifactsInfo: info}));
      } catch (e) {
        ls.removeItem(key('artifacts'));
        ls.removeItem(key('weights'));
        throw new GlintError(`[localstorage] saving '${name}' failed (the previous model is ` +
            `intact): ${e.message}`);
      }
      if (prev) {
        const old = JSON.parse(prev).generation;
        ls.removeItem(`${LS_PREFIX}artifacts/${name}/${old}`);
        ls.removeItem(`${LS_PREFIX}weights/${name}/${old}`);
      }
      return {modelArtifactsInfo: info};
    },
    async load() {
      const ls = store();
      const infoText = ls.getItem(infoKey);
      if (!infoText) throw new GlintError(`[localstorage] no model named '${name}'`);
      const {generation} = JSON.parse(infoText);
      const a = ls.getItem(`${LS_PREFIX}artifacts/${name}/${generation}`);
      const w = ls.getItem(`${LS_PREFIX}weights/${name}/${generation}`);
      if (a === null || w === null) {
        throw new GlintError(`[localstorage] model '${name}' is incomplete in localStorage`);
      }
      return {...JSON.parse(a), weightData: fromBase64(w).buffer};
    },
  };
}

// ---- Listing and removing ---------------------------------------------------------------

/** {'indexeddb://name': info, 'localstorage://name': info} */
export async function listModels() {
  const out = {};
  if (typeof indexedDB !== 'undefined') {
    const db = await openDb();
    try {
      const all = await transact(db, 'readonly', (tx, done) => {
        const req = tx.objectStore(INFO_STORE).getAll();
        req.onsuccess = () => done(req.result);
      });
      for (const r of all) out['indexeddb://' + r.modelPath] = r.modelArtifactsInfo;
    } finally {
      db.close();
    }
  }
  if (typeof localStorage !== 'undefined') {
    for (let i = 0; i < localStorage.length; ++i) {
      const k = localStorage.key(i);
      if (k.startsWith(LS_PREFIX + 'info/')) {
        out['localstorage://' + k.slice((LS_PREFIX + 'info/').length)] =
            JSON.parse(localStorage.getItem(k)).modelArtifactsInfo;
      }
    }
  }
  return out;
}

export async function removeModel(url) {
  const name = validName('removeModel', pathOf(url));
  switch (schemeOf(url)) {
    case 'indexeddb': {
      const db = await openDb();
      try {
        const existed = await transact(db, 'readwrite', (tx, done) => {
          const req = tx.objectStore(INFO_STORE).get(name);
          req.onsuccess = () => {
            done(req.result?.modelArtifactsInfo);
            tx.objectStore(INFO_STORE).delete(name);
            tx.objectStore(MODEL_STORE).delete(name);
          };
        });
        if (!existed) throw new GlintError(`[removeModel] no model at '${url}'`);
        return existed;
      } finally {
        db.close();
      }
    }
    case 'localstorage': {
      const infoKey = LS_PREFIX + 'info/' + name;
      const text = localStorage.getItem(infoKey);
      if (!text) throw new GlintError(`[removeModel] no model at '${url}'`);
      const {generation, modelArtifactsInfo} = JSON.parse(text);
      localStorage.removeItem(infoKey);
      localStorage.removeItem(`${LS_PREFIX}artifacts/${name}/${generation}`);
      localStorage.removeItem(`${LS_PREFIX}weights/${name}/${generation}`);
      return modelArtifactsInfo;
    }
    default:
      throw new GlintError(`[removeModel] only indexeddb:// and localstorage:// models: '${url}'`);
  }
}

// ---- Downloads --------------------------------------------------------------------------

export function browserDownloads(name) {
  return {
    async save(artifacts) {
      if (typeof document === 'undefined') {
        throw new GlintError('[downloads] downloads:// needs a page (document)');
      }
      const {weightData, weightSpecs, ...rest} = artifacts;
      const modelJson = {...rest, weightsManifest: [{paths: [`./${name}.weights.bin`],
                                                    weights: weightSpecs}]};
      const files = [[`${name}.json`, new Blob([JSON.stringify(modelJson)],
                                              {type: 'application/json'})],
                     [`${name}.weights.bin`, new Blob([weightData],
                                                     {type: 'application/octet-stream'})]];
      for (const [file, blob] of files) {
        const a = document.createElement('a');
        a.download = file;
        a.href = URL.createObjectURL(blob);
        a.click();
        setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      }
      return {modelArtifactsInfo: artifactsInfo(artifacts)};
    },
  };
}

// ---- HTTP ----------------------------------------------------------------------------------

async function fetchWithRetry(url, init, {retries = 3, backoffMs = 200, fetchFunc} = {}) {
  const f = fetchFunc ?? globalThis.fetch;
  if (typeof f !== 'function') throw new GlintError('[http] fetch is not available');
  let last;
  for (let attempt = 0; attempt <= retries; ++attempt) {
    try {
      const r = await f(url, init);
      if (r.ok) return r;
      last = new GlintError(`[http] ${url}: HTTP ${r.status}`);
      if (r.status < 500 && r.status !== 429) throw last;  // not worth retrying
    } catch (e) {
      last = e instanceof GlintError ? e : new GlintError(`[http] ${url}: ${e.message}`);
      if (e instanceof GlintError && !/HTTP (5\d\d|429)/.test(e.message)) throw e;
    }
    if (attempt < retries) await new Promise((r) => setTimeout(r, backoffMs * 2 ** attempt));
  }
  throw last;
}

/** io::LoadOptions::maxModelJsonBytes, for model.json fetched over http. */
const MAX_MODEL_JSON_BYTES = 64 * 1024 * 1024;

/**
 * A response's body, at most `budget` bytes: a Content-Length over it is
 * refused before reading, and a body streamed past it (no or a lying
 * Content-Length) is cancelled as soon as it passes, so a huge or endless
 * shard never fills memory. `tooBig(n)` words the error.
 */
async function readBody(r, budget, tooBig) {
  const declared = Number(r.headers?.get?.('content-length'));
  if (Number.isFinite(declared) && declared > budget) throw new GlintError(tooBig(declared));
  const reader = r.body?.getReader?.();
  if (!reader) {
    const b = new Uint8Array(await r.arrayBuffer());
    if (b.byteLength > budget) throw new GlintError(tooBig(b.byteLength));
    return b;
  }
  const chunks = [];
  let got = 0;
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    got += value.byteLength;
    if (got > budget) {
      reader.cancel().catch(() => {});
      throw new GlintError(tooBig(`more than ${got}`));
    }
    chunks.push(value);
  }
  const out = new Uint8Array(got);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * http(url, {onProgress, retries, backoffMs, requestInit, fetchFunc}):
 * load() reads model.json and its shards; save() POSTs multipart form data
 * (model.json + model.weights.bin), as TF.js's http handler does.
 */
export function http(url, options = {}) {
  return {
    async load() {
      const init = options.requestInit ?? {};
      const res = await fetchWithRetry(url, init, options);
      const where = quoteForError(url);
      const text = await readBody(res, MAX_MODEL_JSON_BYTES, (n) => `[io.load] ${where} is ${n} ` +
          `bytes, more than LoadOptions.maxModelJsonBytes (${MAX_MODEL_JSON_BYTES})`);
      const jsonText = new TextDecoder().decode(text);
      checkJsonTextDepth(jsonText, where);
      let modelJson;
      try {
        modelJson = JSON.parse(jsonText);
      } catch (e) {
        throw new GlintError(`[http] ${where} is not JSON: ${e.message}`);
      }
      const manifest = modelJson.weightsManifest ?? [];
      if (!Array.isArray(manifest)) {
        throw new GlintError(`[io.load] ${where}: "weightsManifest" must be an array of groups`);
      }
      const base = url.slice(0, url.lastIndexOf('/') + 1);
      const groups = manifest.map((g, i) => {
        if (!g || !Array.isArray(g.paths) || !Array.isArray(g.weights)) {
          throw new GlintError(`[io.load] ${where}: weightsManifest[${i}] needs "paths" and ` +
              '"weights" arrays');
        }
        const expected = weightSpecsBytes(g.weights);
        if (expected === null) {
          throw new GlintError(`[io.load] ${where}: weightsManifest[${i}] has a weight entry ` +
              'without a known dtype and a shape of non-negative integers');
        }
        return {paths: g.paths, expected};
      });
      const totalShards = groups.reduce((a, g) => a + g.paths.length, 0);
      let done = 0;
      const buffers = [];
      for (const g of groups) {
        let got = 0;
        for (const p of g.paths) {
          const shardUrl = new URL(p, base).href;
          const r = await fetchWithRetry(shardUrl, init, options);
          const left = g.expected - got;
          const b = await readBody(r, left, (n) => `[io.load] ${where}: weight shard ` +
              `'${quoteForError(shardUrl)}' is ${n} bytes, more than the ${left} bytes the ` +
              'manifest has left for it');
          got += b.byteLength;
          buffers.push(b);
          options.onProgress?.(++done / totalShards);
        }
        if (got !== g.expected) {
          throw new GlintError(`[http] ${url}: the shards hold ${got} bytes but the manifest ` +
              `describes ${g.expected}: truncated or corrupt download`);
        }
      }
      const weightSpecs = manifest.flatMap((g) => g.weights);
      const total = buffers.reduce((a, b) => a + b.byteLength, 0);
      const weightData = new Uint8Array(total);
      let at = 0;
      for (const b of buffers) {
        weightData.set(b, at);
        at += b.byteLength;
      }
      const {weightsManifest, ...rest} = modelJson;
      return {...rest, weightSpecs, weightData: weightData.buffer};
    },
    async save(artifacts) {
      const {weightData, weightSpecs, ...rest} = artifacts;
      const form = new FormData();
      const modelJson = {...rest, weightsManifest: [{paths: ['./model.weights.bin'],
                                                    weights: weightSpecs}]};
      form.append('model.json', new Blob([JSON.stringify(modelJson)], {type: 'application/json'}),
                  'model.json');
      form.append('model.weights.bin', new Blob([weightData], {type: 'application/octet-stream'}),
                  'model.weights.bin');
      const res = await fetchWithRetry(url, {method: 'POST', body: form,
                                             ...(options.requestInit ?? {})}, options);
      return {modelArtifactsInfo: artifactsInfo(artifacts), responses: [res]};
    },
  };
}

// ---- Files (node) ---------------------------------------------------------------------------

export function fileSystem(dir) {
  // node_files.js is node-only (node:fs): imported when used, so pages never load it.
  return {
    async save(artifacts) {
      const {saveToFiles} = await import('./node_files.js');
      return saveToFiles(dir, artifacts, artifactsInfo(artifacts));
    },
    async load() {
      const {loadFromFiles} = await import('./node_files.js');
      return loadFromFiles(dir);
    },
    // loadLayersModel's shortcut: the model built in C++ from the files.
    async _glintModelHandle() {
      const {modelHandleFromFiles} = await import('./node_files.js');
      return modelHandleFromFiles(dir);
    },
  };
}

// ---- In memory -----------------------------------------------------------------------

/** A save handler that passes the artifacts to saveFn (its result, or a summary, is save's). */
export function withSaveHandler(saveFn) {
  if (typeof saveFn !== 'function') {
    throw new GlintError('[withSaveHandler] expects a function (artifacts) => SaveResult');
  }
  return {save: async (artifacts) => (await saveFn(artifacts)) ??
      {modelArtifactsInfo: artifactsInfo(artifacts)}};
}

/**
 * A load handler over artifacts already in memory: fromMemory(artifacts), or the
 * older fromMemory(modelTopology, weightSpecs, weightData, trainingConfig).
 */
export function fromMemory(modelArtifacts, weightSpecs, weightData, trainingConfig) {
  if (!modelArtifacts || typeof modelArtifacts !== 'object') {
    throw new GlintError('[fromMemory] expects ModelArtifacts ({modelTopology, weightSpecs, weightData})');
  }
  const artifacts = arguments.length === 1 && 'modelTopology' in modelArtifacts ? modelArtifacts :
      {modelTopology: modelArtifacts, weightSpecs, weightData, trainingConfig};
  return {load: async () => artifacts};
}

import {ioMore} from './io_more.js';

export const io = {
  browserIndexedDB, browserLocalStorage, browserDownloads, http, fileSystem, listModels,
  removeModel, getSaveHandler, getLoadHandler, withSaveHandler, fromMemory, ...ioMore,
};
