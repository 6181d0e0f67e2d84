// Loads the WebAssembly module: the pthreads build where the page is
// cross-origin isolated (SharedArrayBuffer works), the single-thread build
// otherwise and in node. Both builds export the same C ABI (web/bindings).
//
// Every file of a build is named here literally, relative to import.meta.url,
// so bundlers see them (docs/BUNDLERS.md): the single-thread glue is a static
// import (an op may start the engine synchronously: index.browser.js,
// index.node.js; a module both imported and import()ed is mis-scoped by
// Vite 8's worker bundles), the wasm files and the threads glue
// (which the page and each pthread import by URL) as hashed assets. Bundlers
// that leave `new URL` alone (esbuild, rollup without an asset plugin) still
// get a working app: the single-thread wasm also ships as a JS module (base64)
// that those bundles carry and use when the .wasm beside them is missing.

import {acquireWebGPU, nodeGPU, softwareWebGL, watchWebGPU} from './webgpu.js';
import {isNode, nodeModules, platform} from './platform.js';
import {fromBase64} from './base64.js';
import createSingleThread from '../dist/glint-st.mjs';

/** A URL, or null where import.meta.url is empty (an IIFE bundle). */
function here(make) {
  try {
    return make();
  } catch {
    return null;
  }
}

const BUILDS = {
  'glint-st': {
    glue: () => ({default: createSingleThread}),
    wasm: () => here(() => new URL('../dist/glint-st.wasm', import.meta.url)),
    // The same module with relaxed SIMD's fused multiply-add in its GEMM and
    // convolution kernels (scripts/wasm_relaxed_simd.mjs): the same glue.
    relaxedWasm: () => here(() => new URL('../dist/glint-st-relaxed.wasm', import.meta.url)),
    embedded: () => import('../dist/glint-st.wasm.mjs'),
  },
  'glint-mt': {
    wasm: () => here(() => new URL('../dist/glint-mt.wasm', import.meta.url)),
    relaxedWasm: () => here(() => new URL('../dist/glint-mt-relaxed.wasm', import.meta.url)),
    // What each pthread's worker runs: Emscripten's worker script, started
    // from a blob (a dev server would rewrite the file into a module, a CDN
    // is another origin). It imports the glue by URL, so the page does too:
    // one untouched file, fetched once, the same on every thread.
    workerSource: () => import('../dist/glint-mt.worker.js.mjs'),
    glueFile: () => here(() => new URL('../dist/glint-mt.mjs', import.meta.url)),
  },
};

export {isNode};

// A module whose one function is f32x4.relaxed_madd of three zero vectors:
// engines with relaxed SIMD validate it (Debian's Chromium 156 does; node 20
// only with --experimental-wasm-relaxed-simd).
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,        // type: [] -> [v128]
  0x03, 0x02, 0x01, 0x00,                          // function 0 has type 0
  0x0a, 0x3d, 0x01, 0x3b, 0x00,                    // code: one body of 59 bytes, no locals
  ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array(16).fill(0)]),  // v128.const 0 (x3)
  0xfd, 0x85, 0x02, 0x0b,                          // f32x4.relaxed_madd, end
]);

const NO_RELAXED_SIMD = 'this engine does not run relaxed SIMD (WebAssembly.validate refused f32x4.relaxed_madd)';

/** Whether this engine runs relaxed SIMD (the *-relaxed builds). */
export function relaxedSimdUsable() {
  try {
    return WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}

export function threadsUsable() {
  return !isNode && typeof SharedArrayBuffer === 'function' &&
      globalThis.crossOriginIsolated === true;
}

/**
 * Chooses and instantiates a build. options.threads: 'auto' | true | false;
 * options.wasmPath: a folder holding the dist/ files, overriding the bundled URLs.
 */
export async function loadModule(options = {}) {
  const want = options.threads ?? 'auto';
  const useThreads = want === 'auto' ? threadsUsable() : Boolean(want);
  if (useThreads && !threadsUsable()) {
    throw new Error('[glint.ready] threads: true needs a cross-origin-isolated page ' +
        '(COOP: same-origin, COEP: require-corp) with SharedArrayBuffer');
  }
  // The webgpu backend's device. options.webgpu: false leaves it out; a GPU
  // object is used as navigator.gpu would be. In node it is acquired here only
  // when asked for (true or a GPU object): otherwise at setBackend('webgpu').
  // In a page, 'auto' skips the adapter request where WebGL's renderer is
  // software: WebGPU there has no adapter (the browser then logs "No available
  // adapters.") or a software one, which the automatic choice passes over.
  const gpuWanted = options.webgpu ?? 'auto';
  // The .wasm downloads and compiles while the GPU is asked for (an adapter
  // and device can take a few hundred ms): only instantiation needs both.
  const first = useThreads ? 'glint-mt' : 'glint-st';
  const compiling = compileBuild(first, BUILDS[first], wasmDir(options), options);
  compiling.catch(() => {});   // awaited (and its error thrown) by instantiate
  let webgpu = null;
  let deferred = null;
  if (gpuWanted !== false && (!isNode || gpuWanted !== 'auto')) {
    const software = !isNode && gpuWanted === 'auto' && globalThis.navigator?.gpu ? softwareWebGL() : null;
    if (software) {
      deferred = `no adapter asked for: WebGL's renderer is software (${software}), where WebGPU ` +
          'has none or a software one; setBackend(\'webgpu\') or ready({webgpu: true}) asks';
    } else {
      const gpu = isNode ? await nodeGPU(gpuWanted) : typeof gpuWanted === 'object' ? gpuWanted : undefined;
      webgpu = await acquireWebGPU(gpu);
    }
  }
  let M = null;
  let fallback = null;
  if (useThreads) {
    try {
      M = await instantiate('glint-mt', options, webgpu, compiling);
    } catch (e) {
      // Asked for by name: say why. Chosen automatically: the single-thread
      // build still works, and backendInfo().build says what happened.
      if (want === true) throw e;
      fallback = `the threads build could not start (${e.message}); using the single-thread build`;
    }
  }
  if (!M) M = await instantiate('glint-st', options, webgpu, useThreads ? null : compiling);
  M.glintBuild.fallback = fallback;
  M.glintWebGPUOption = gpuWanted;
  M.glintWebGPUDeferred = deferred;
  watchWebGPU(M);
  return M;
}

/**
 * The single-thread build started synchronously from its glue's factory,
 * with ready()'s defaults, for code that never awaits ready(): the first op
 * starts it. The .wasm is read synchronously: node's file system, or in a
 * page a synchronous request (a worker takes the bytes as they are; a
 * page's main thread only as text, one byte per character). Compiling it
 * synchronously is allowed for modules this size (Chromium takes up to 8 MB
 * on the main thread). Emscripten finishes its start inside the factory
 * call once the instance is handed over at once, so the factory's argument
 * is the module.
 */
export function instantiateSync(factory = createSingleThread) {
  let read = null, relaxedWhy = NO_RELAXED_SIMD;
  const relaxedUrl = relaxedSimdUsable() ? BUILDS['glint-st'].relaxedWasm() : null;
  if (relaxedUrl) {
    try {
      read = readWasmSync(relaxedUrl);
      relaxedWhy = null;
    } catch (e) {
      relaxedWhy = `glint-st-relaxed.wasm did not load: ${e.message}`;  // the plain build below
    }
  }
  const {bytes, from} = read ?? readWasmSync(BUILDS['glint-st'].wasm());
  const module = new WebAssembly.Module(bytes);
  let failure = null;
  const M = {
    print: (s) => console.log(s),
    printErr: (s) => console.warn(s),
    locateFile: (f) => f,
    glintWebGPU: null,
    instantiateWasm(imports, receive) {
      try {
        const instance = new WebAssembly.Instance(module, imports);
        receive(instance, module);
        return instance.exports;
      } catch (e) {
        failure = e;
        throw e;
      }
    },
  };
  factory(M).then(null, () => {});  // its promise settles later; M is complete now or never
  if (failure || !M.calledRun) {
    throw new Error(`[glint] the engine did not start synchronously${failure ? ': ' + failure.message : ''}`);
  }
  M.glintBuild = {name: 'glint-st', threads: false, relaxedSimd: relaxedWhy === null, relaxedSimdWhy: relaxedWhy,
                  files: [from], wasmFrom: from, fallback: null};
  M.glintWebGPUOption = 'auto';
  // A page's adapter comes only asynchronously: setBackend('webgpu') asks for it.
  M.glintWebGPUDeferred = isNode ? null : 'the engine started at the first op, before ready(): no adapter ' +
      "asked for yet; setBackend('webgpu') or ready({webgpu: true}) asks";
  watchWebGPU(M);
  return M;
}

function readWasmSync(url) {
  if (platform.node) {
    const file = platform.node.fileURLToPath(url);
    try {
      return {bytes: platform.node.fs.readFileSync(file), from: file};
    } catch (e) {
      throw new Error(`[glint] could not read ${file}: ${e.message} (is the package installed whole? npm install glint-ml)`);
    }
  }
  if (!url || typeof XMLHttpRequest !== 'function') {
    throw new Error('[glint] the engine cannot start synchronously here (no URL for its .wasm in this bundle, ' +
        'or no XMLHttpRequest): await glint.ready() before the first op');
  }
  const xhr = new XMLHttpRequest();
  xhr.open('GET', url.href, false);
  const inPage = typeof document !== 'undefined';
  if (inPage) xhr.overrideMimeType('text/plain; charset=x-user-defined');
  else xhr.responseType = 'arraybuffer';
  try {
    xhr.send();
  } catch (e) {
    throw new Error(`[glint] could not read ${url.href} synchronously (${e.message}): await glint.ready() before the first op`);
  }
  if (xhr.status !== 200) {
    throw new Error(`[glint] ${url.href} answered ${xhr.status} ${xhr.statusText}: await glint.ready() before the ` +
        'first op (it can also use the copy of the .wasm embedded in the bundle)');
  }
  let bytes;
  if (inPage) {
    const text = xhr.responseText;
    bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i) & 0xff;
  } else {
    bytes = new Uint8Array(xhr.response);
  }
  if (bytes.length < 4 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error(`[glint] ${url.href} is not WebAssembly (${bytes.length} bytes): serve node_modules/glint-ml/dist/ ` +
        'and await glint.ready({wasmPath}) before the first op');
  }
  return {bytes, from: url.href};
}

/** How long the threads build may take to start its workers before the single-thread one is used. */
const THREADS_START_MS = 30000;

/**
 * options.relaxedSimd: 'auto' (the relaxed build where the engine runs it and
 * its file loads, else the plain one) | true (the relaxed build or an error) |
 * false (the plain build).
 */
function wantRelaxed(options) {
  const want = options.relaxedSimd ?? 'auto';
  if (want === true && !relaxedSimdUsable()) {
    throw new Error(`[glint.ready] relaxedSimd: true, but ${NO_RELAXED_SIMD} (node 20 needs ` +
        '--experimental-wasm-relaxed-simd)');
  }
  return want === 'auto' ? relaxedSimdUsable() : Boolean(want);
}

/**
 * {module, from, relaxed, relaxedWhy}: the relaxed build's .wasm where wanted,
 * else (or, under 'auto', when it does not load) the plain one; relaxedWhy
 * says why the relaxed one is not running (null when it is).
 */
async function compileBuild(name, build, dir, options) {
  const plain = () => compileWasm(name, build, dir ? new URL(name + '.wasm', dir) : build.wasm(), options);
  if (!wantRelaxed(options)) {
    const relaxedWhy = options.relaxedSimd === false ? 'relaxedSimd: false' : NO_RELAXED_SIMD;
    return {...await plain(), relaxed: false, relaxedWhy};
  }
  const url = dir ? new URL(name + '-relaxed.wasm', dir) : build.relaxedWasm();
  try {
    return {...await compileWasm(name + '-relaxed', {}, url, options), relaxed: true, relaxedWhy: null};
  } catch (e) {
    // A bundle that copies no assets has neither .wasm; the plain one then
    // comes from the copy embedded in the bundle.
    if (options.relaxedSimd === true) throw e;
    return {...await plain(), relaxed: false, relaxedWhy: `${name}-relaxed.wasm did not load: ${e.message}`};
  }
}

/** options.wasmPath as an absolute folder URL (relative to the page, or in node the working directory), or null. */
function wasmDir(options) {
  return options.wasmPath == null ? null :
      absolute(options.wasmPath.endsWith('/') ? options.wasmPath : options.wasmPath + '/').href;
}

/** Starts build `name`; `compiled`: its compileBuild() already under way, if any. */
async function instantiate(name, options, webgpu, compiled = null) {
  const build = BUILDS[name];
  const dir = wasmDir(options);
  const threads = name === 'glint-mt';
  const {module, from, relaxed, relaxedWhy} = await (compiled ?? compileBuild(name, build, dir, options));
  const files = {wasm: from};
  // The start's failures that Emscripten would leave unhandled (the page then
  // waits forever): instantiation, a pthread's error.
  let startFailed;
  const failed = new Promise((_, reject) => {
    startFailed = reject;
  });
  const moduleArgs = {
    print: options.print ?? ((s) => console.log(s)),
    printErr: options.printErr ?? ((s) => console.warn(s)),
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module),
          (e) => startFailed(new Error(`instantiating ${name}.wasm failed: ${e.message}`)));
      return {};
    },
    glintWebGPU: webgpu,
  };
  let factory;
  let glueUrl = dir ? dir + name + '.mjs' : null;
  if (threads) {
    const glue = glueUrl ??= build.glueFile()?.href;
    if (!glue) throw new Error('the bundle gives no URL for the threads build\'s glue');
    await checkScript(glue);
    const {workerSource} = await build.workerSource();
    const worker = URL.createObjectURL(new Blob([workerSource], {type: 'text/javascript'}));
    moduleArgs.locateFile = (file) => (file.endsWith('.worker.js') ? worker : file);
    moduleArgs.mainScriptUrlOrBlob = glue;
    // A pthread that fails to start says so here: fail at once, not after the timeout.
    moduleArgs.printErr = (s) => {
      if (/^worker sent an error!/.test(s)) startFailed(new Error(`a pthread worker failed: ${s}`));
      (options.printErr ?? console.warn)(s);
    };
    files.glue = glue;
  } else {
    moduleArgs.locateFile = (file) => file;
  }
  try {
    factory = glueUrl ? (await import(/* webpackIgnore: true */ /* @vite-ignore */ glueUrl)).default :
        (await build.glue()).default;
  } catch (e) {
    throw new Error(`[glint.ready] could not load the ${name} glue${glueUrl ? ' from ' + glueUrl : ''}: ${e.message}`);
  }
  const started = Promise.race([factory(moduleArgs), failed]);
  const M = threads ? await withTimeout(started, THREADS_START_MS, 'its workers did not start') :
      await started;
  // The files this build is made of, as fetched (loadedResources lists them).
  M.glintBuild = {name, threads, relaxedSimd: relaxed, relaxedSimdWhy: relaxedWhy,
                  files: Object.values(files).filter((f) => f !== 'embedded'), wasmFrom: from};
  return M;
}

function absolute(dir) {
  if (isNode && dir.startsWith('/')) return new URL('file://' + dir);
  return new URL(dir, isNode ? 'file://' + process.cwd() + '/' : globalThis.location?.href);
}

/** {module: WebAssembly.Module, from: where its bytes came from}. */
async function compileWasm(name, build, url, options) {
  if (isNode) {
    const {fs, fileURLToPath} = await nodeModules('the engine');
    const file = url.protocol === 'file:' ? fileURLToPath(url) : url.href;
    let bytes;
    try {
      bytes = fs.readFileSync(file);
    } catch (e) {
      throw new Error(`[glint.ready] could not read ${file}: ${e.message}` +
          (options.wasmPath ? '' : ' (is the package installed whole? npm install glint-ml)'));
    }
    return {module: await WebAssembly.compile(bytes), from: file};
  }
  let why;
  if (!url) {
    why = 'this bundle has no URL for it (import.meta.url is empty in an IIFE bundle)';
  } else {
    try {
      return {module: await compileFromUrl(url.href, progressOf(options, `${name}.wasm`)), from: url.href};
    } catch (e) {
      why = e.message;
    }
  }
  // The .wasm is not where the bundle says (esbuild and rollup copy no assets).
  if (!options.wasmPath && build.embedded) {
    const {wasmBase64} = await build.embedded();
    const module = await WebAssembly.compile(fromBase64(wasmBase64));
    console.warn(`[glint] ${name}.wasm: ${why}. Using the copy embedded in the JS bundle ` +
        '(4.5 MB of JS). To load the smaller .wasm instead, copy node_modules/glint-ml/dist/ ' +
        'beside your bundle and pass glint.ready({wasmPath: \'<that folder>/\'}) ' +
        '(docs/BUNDLERS.md).');
    return {module, from: 'embedded'};
  }
  throw new Error(`[glint.ready] could not load ${name}.wasm: ${why}. Serve the files of ` +
      'node_modules/glint-ml/dist/ and pass glint.ready({wasmPath: \'<their URL>/\'}), or use a ' +
      'bundler that emits `new URL(..., import.meta.url)` assets (Vite, webpack; docs/BUNDLERS.md).');
}

/**
 * options.onProgress as a byte counter for one file: ({file, loaded, total}) on
 * each chunk (total: the Content-Length, or null when the server sends none or
 * compresses); null without a callback.
 */
function progressOf(options, file) {
  const report = options.onProgress;
  if (typeof report !== 'function') return null;
  return (loaded, total) => {
    try {
      report({file, loaded, total});
    } catch (e) {
      console.warn(`[glint.ready] onProgress threw: ${e.message}`);   // the download goes on
    }
  };
}

/** The response's body counted chunk by chunk as it streams (headers kept, for compileStreaming). */
function counted(response, progress) {
  const length = Number(response.headers.get('Content-Length'));
  // A compressed body's length is not what the stream yields: no total then.
  const total = Number.isFinite(length) && length > 0 && !response.headers.get('Content-Encoding') ? length : null;
  let loaded = 0;
  progress(0, total);
  const counter = new TransformStream({
    transform(chunk, controller) {
      loaded += chunk.byteLength;
      progress(loaded, total);
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter),
                      {status: response.status, statusText: response.statusText, headers: response.headers});
}

async function compileFromUrl(href, progress = null) {
  let response = await fetch(href, {credentials: 'same-origin'});
  if (!response.ok) throw new Error(`${href} answered ${response.status} ${response.statusText}`);
  if (progress && response.body && typeof TransformStream === 'function') response = counted(response, progress);
  // Streaming compiles while the bytes arrive; it needs application/wasm.
  if (typeof WebAssembly.compileStreaming === 'function' &&
      /^application\/wasm\b/.test(response.headers.get('Content-Type') ?? '')) {
    return WebAssembly.compileStreaming(response);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  // A server that answers every path with its index page (single-page apps) says 200.
  if (bytes.length < 4 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error(`${href} is not WebAssembly (Content-Type ` +
        `${response.headers.get('Content-Type') ?? 'none'}, ${bytes.length} bytes)`);
  }
  return WebAssembly.compile(bytes);
}

/** The threads glue answers 200 with a script (a data: URL is taken as it is), or an Error saying what came. */
async function checkScript(url) {
  if (url.startsWith('data:')) return;
  let r;
  try {
    r = await fetch(url, {credentials: 'same-origin'});
  } catch (e) {
    throw new Error(`${url}: ${e.message}`);
  }
  if (!r.ok) throw new Error(`${url} answered ${r.status}`);
  const type = r.headers.get('Content-Type') ?? '';
  if (!/javascript|ecmascript/.test(type)) throw new Error(`${url} is ${type || 'untyped'}, not a script`);
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(what + ` within ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
