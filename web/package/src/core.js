// The bridge to the WebAssembly module: call helpers, strings and arrays in
// wasm memory, and errors. Everything above this file is plain JS.
import {loadModule} from './module.js';

/** Every failure the library reports: the message names the op and the shapes. */
export class GlintError extends Error {
  constructor(message, {deviceLost = false} = {}) {
    super(message);
    this.name = 'GlintError';
    /** The GPU context was lost during the call; the engine has recovered. */
    this.deviceLost = deviceLost;
  }
}

let M = null;
let loading = null;
let startSync = null;

/** The engine's JS side set up on a freshly started module. */
function adopt(m) {
  M = m;
  arenaBase = arenaTop = m._malloc(CHUNK);
  m.__glintCall = (fnId, argsPtr, n) => callRegisteredFn(fnId, argsPtr, n);
  m.__glintInvoke = invokeRegistered;
  m.__glintRelease = releaseRegistered;
  m.__glintReadShard = (path, maxBytes, lengthPtr) => readShardForEngine(path, maxBytes, lengthPtr);
  m.__glintTakeError = () => {
    const e = pendingJsError;
    pendingJsError = '';
    return e;
  };
}

/**
 * Where the engine can start synchronously (node: the entry registers it),
 * the first op starts it with ready()'s defaults, so TF.js code that never
 * awaits tf.ready() runs as written.
 */
export function setSyncStart(start) {
  startSync = start;
}

let importStartError = null;

/**
 * The browser entry's early start: the engine with ready()'s defaults, begun
 * once the importing module's first turn is over (a ready({...}) it calls
 * first still chooses how), so code that awaits something else before its
 * first op finds the engine running. An op before that starts the engine
 * synchronously (setSyncStart). A failure is kept for the first op's error.
 */
export function startSoon() {
  setTimeout(() => {
    if (M || loading) return;
    ready().then(() => {
      if (M && !M.glintStartedBy) M.glintStartedBy = 'import';
    }, (e) => {
      importStartError = e;
    });
  }, 0);
}

/** Loads the module once; resolves when the engine is usable. */
export function ready(options = {}) {
  if (M) {
    // Started already (by an op, or an earlier ready()): what can still
    // apply does; what would need another build says so.
    const other = options.wasmPath != null ? 'wasmPath' :
        options.threads === true && !M.glintBuild?.threads ? 'threads' : null;
    if (other && M.glintStartedBy === 'op') {
      return Promise.reject(new GlintError(`[glint.ready] ${other}: the engine already started ` +
          'with the defaults when the first op ran; call glint.ready({...}) before any op'));
    }
    if (other && M.glintStartedBy === 'import') {
      return Promise.reject(new GlintError(`[glint.ready] ${other}: the engine already started ` +
          "with the defaults after 'glint-ml' was imported (as TF.js programs expect); to choose how it " +
          "starts, call glint.ready({...}) right after the import, or import 'glint-ml/lazy'"));
    }
    if (options.webgpu != null && !M.glintWebGPU) M.glintWebGPUOption = options.webgpu;
    return Promise.resolve();
  }
  if (!loading) {
    loading = loadModule(options).then((m) => {
      // An op may have started the engine synchronously meanwhile (the browser
      // entry); this build is then dropped, its workers with the page.
      if (!M) adopt(m);
      importStartError = null;
    }, (e) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

export function module() {
  if (!M) {
    if (!startSync) throw new GlintError('[glint] the engine is not loaded: await glint.ready() first');
    let m;
    try {
      m = startSync();
    } catch (e) {
      throw new GlintError(e.message + (importStartError ? `; its start after the import failed too: ${importStartError.message}` : ''));
    }
    m.glintStartedBy = 'op';
    adopt(m);
  }
  return M;
}

export function isReady() {
  return M !== null;
}

export function buildInfo() {
  return module().glintBuild;
}

// ---- Memory views (re-made when the wasm memory grows) ----------------------------

let u8 = null, i32 = null;
function buffer() {
  const mod = module();
  // The pthreads build shares its Memory as Module.wasmMemory (it may grow from
  // another thread); the single-thread build keeps Module.HEAPU8 current.
  return mod.wasmMemory ? mod.wasmMemory.buffer : mod.HEAPU8.buffer;
}
export function heapU8() {
  const b = buffer();
  if (!u8 || u8.buffer !== b) u8 = new Uint8Array(b);
  return u8;
}
export function heapI32() {
  const b = buffer();
  if (!i32 || i32.buffer !== b) i32 = new Int32Array(b);
  return i32;
}

// ---- A bump allocator for call arguments -----------------------------------------
// Calls nest (a JS function called back from C++ runs ops), so allocation is
// stack-like: each call takes a mark and releases back to it.

const CHUNK = 1 << 16;
let arenaBase = 0, arenaTop = 0;
const bigAllocs = [];  // [mark, ptr] for requests that do not fit

export function mark() {
  module();  // a first op may start the engine: the arena exists from then on
  return {top: arenaTop, big: bigAllocs.length};
}

export function release(m) {
  arenaTop = m.top;
  while (bigAllocs.length > m.big) module()._free(bigAllocs.pop());
}

export function alloc(bytes) {
  const mod = module();
  const size = (bytes + 7) & ~7;
  if (arenaTop + size <= arenaBase + CHUNK) {
    const p = arenaTop;
    arenaTop += size;
    return p;
  }
  const p = mod._malloc(size || 8);
  if (!p) throw new GlintError(`[glint] out of WebAssembly memory allocating ${bytes} bytes`);
  bigAllocs.push(p);
  return p;
}

export function str(s) {
  if (s === null || s === undefined) return 0;
  const mod = module();
  const n = mod.lengthBytesUTF8(s) + 1;
  const p = alloc(n);
  mod.stringToUTF8(s, p, n);
  return p;
}

export function json(value) {
  return value === undefined ? 0 : str(JSON.stringify(value));
}

export function ints(values) {
  const p = alloc(Math.max(4, values.length * 4));
  heapI32().set(values, p >> 2);
  return p;
}

export function bytes(view) {
  const u = view instanceof Uint8Array ? view :
      new Uint8Array(view.buffer ?? view, view.byteOffset ?? 0, view.byteLength);
  const p = alloc(Math.max(8, u.byteLength));
  heapU8().set(u, p);
  return p;
}

export function readInts(ptr, n) {
  return Array.from(heapI32().subarray(ptr >> 2, (ptr >> 2) + n));
}

export function readString(ptr) {
  return module().UTF8ToString(ptr);
}

/** Copies `length` bytes at ptr out of wasm memory. */
export function readBytes(ptr, length) {
  return heapU8().slice(ptr, ptr + length);
}

export function lastError() {
  return readString(module()._glint_last_error());
}

/** The engine's last error as a GlintError. */
export function engineError() {
  // Never an empty message: a call that failed without recording why says so.
  const message = lastError() ||
      '[glint] an engine call failed without a message (a bug: please report it)';
  return new GlintError(message, {deviceLost: module()._glint_last_error_device_lost() === 1});
}

export function callInt(fn) {
  const m = mark();
  try {
    const r = fn();
    if (r < 0) throw engineError();
    return r;
  } finally {
    release(m);
  }
}

export function callString(fn) {
  const m = mark();
  try {
    const p = fn();
    if (!p) throw engineError();
    return readString(p);
  } finally {
    release(m);
  }
}

/**
 * For calls that write up to maxOut handles: fn(outPtr, maxOut) returns their
 * count (negative: the C++ side threw). Returns the handles.
 */
export function callIds(maxOut, fn) {
  const m = mark();
  try {
    const out = alloc(4 * maxOut);
    const n = fn(out, maxOut);
    if (n < 0) throw engineError();
    return readInts(out, n);
  } finally {
    release(m);
  }
}

export function callJson(fn) {
  return JSON.parse(callString(fn));
}

/** A pointer to an int32 scratch cell for out-parameters. */
export function outInt() {
  return alloc(4);
}

// ---- JS functions called from C++ (grad, minimize) ------------------------------

const registered = new Map();
let nextFnId = 1;
let pendingJsError = '';
let callHandler = null;

/** Set by tensor.js: turns (fn, argument ids) into a result id. */
export function setCallHandler(h) {
  callHandler = h;
}

export function withRegisteredFn(fn, body) {
  const id = nextFnId++;
  registered.set(id, fn);
  try {
    return body(id);
  } finally {
    registered.delete(id);
  }
}

/** Registers fn for the life of the page (a model's custom loss); returns its id. */
export function registerFn(fn) {
  const id = nextFnId++;
  registered.set(id, fn);
  return id;
}

function callRegisteredFn(fnId, argsPtr, n) {
  const fn = registered.get(fnId);
  try {
    if (!fn) throw new GlintError(`[glint] function ${fnId} is no longer registered`);
    return callHandler(fn, readInts(argsPtr, n));
  } catch (e) {
    pendingJsError = e && e.message ? e.message : String(e);
    return -1;
  }
}

/**
 * Objects the engine calls by method name (custom layers, customGrad): each
 * method takes (tensor handles, JSON argument) and returns {ids, json}; ids
 * pass to C++. release() runs when the engine drops the object.
 */
function invokeRegistered(objId, methodPtr, idsPtr, n, jsonPtr, outPtr, maxOut, jsonOutPtr) {
  try {
    const obj = registered.get(objId);
    const method = readString(methodPtr);
    if (!obj || typeof obj[method] !== 'function') {
      throw new GlintError(`[glint] object ${objId} has no method '${method}' (released?)`);
    }
    const r = obj[method](readInts(idsPtr, n), jsonPtr ? JSON.parse(readString(jsonPtr)) : undefined) ?? {};
    const ids = r.ids ?? [];
    if (ids.length > maxOut) throw new GlintError(`[glint] ${method} returned ${ids.length} tensors, at most ${maxOut}`);
    let text = 0;
    if (r.json !== undefined) {
      const s = JSON.stringify(r.json);
      const size = M.lengthBytesUTF8(s) + 1;
      text = M._malloc(size);
      M.stringToUTF8(s, text, size);
    }
    heapI32().set(ids, outPtr >> 2);
    heapI32()[jsonOutPtr >> 2] = text;
    return ids.length;
  } catch (e) {
    pendingJsError = e && e.message ? e.message : String(e);
    return -1;
  }
}

function releaseRegistered(objId) {
  const obj = registered.get(objId);
  registered.delete(objId);
  try {
    obj?.release?.();
  } catch (e) {
    // Runs inside an engine destructor: nothing may unwind there.
    console.error(`[glint] releasing object ${objId}: ${e?.message ?? e}`);
  }
}

// ---- Shards read for the engine (node's file loader) ------------------------------
// The C++ loader calls back synchronously for each shard (already checked by
// io::checkShardPath) with a byte budget; the reader registered for that call
// does the file-system checks. A throw becomes the engine's error, message intact.

let shardReader = null;

/** Runs body() with reader(path, maxBytes) -> Uint8Array serving the engine's shard reads. */
export function withShardReader(reader, body) {
  const previous = shardReader;
  shardReader = reader;
  try {
    return body();
  } finally {
    shardReader = previous;
  }
}

function readShardForEngine(path, maxBytes, lengthPtr) {
  try {
    if (!shardReader) throw new GlintError(`[io.load] no shard reader for '${path}'`);
    const data = shardReader(path, maxBytes);
    if (data.byteLength > maxBytes) {
      throw new GlintError(`[io.load] the shard reader returned ${data.byteLength} bytes for ` +
          `'${path}', more than the ${maxBytes} allowed`);
    }
    const p = module()._malloc(Math.max(1, data.byteLength));
    if (!p) throw new GlintError(`[io.load] out of WebAssembly memory for ${data.byteLength} bytes`);
    heapU8().set(data, p);
    heapI32()[lengthPtr >> 2] = data.byteLength;
    return p;
  } catch (e) {
    pendingJsError = e && e.message ? e.message : String(e);
    return 0;
  }
}

/**
 * Untrusted text (a path from a file, a server's reply) made safe for a
 * message, as C++'s glint::quoteForError: at most maxBytes of it, control
 * characters written as \xNN, so a message never floods a log or carries a
 * terminal escape.
 */
export function quoteForError(text, maxBytes = 200) {
  const s = String(text);
  const bytes = new TextEncoder().encode(s);
  let cut = s;
  if (bytes.length > maxBytes) cut = new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, '');
  // eslint-disable-next-line no-control-regex
  cut = cut.replace(/[\x00-\x1f\x7f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
  return bytes.length > maxBytes ? `${cut}... (${bytes.length} bytes in all)` : cut;
}
