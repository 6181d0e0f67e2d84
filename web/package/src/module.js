// Loads the WebAssembly module: the pthreads build where the page is
// cross-origin isolated (SharedArrayBuffer works), the single-thread build
// otherwise and in node. Both builds export the same C ABI (web/bindings).

import {acquireWebGPU, nodeGPU, watchWebGPU} from './webgpu.js';

const isNode = typeof process === 'object' && process.versions != null &&
    process.versions.node != null && typeof window === 'undefined';

export function threadsUsable() {
  return !isNode && typeof SharedArrayBuffer === 'function' &&
      globalThis.crossOriginIsolated === true;
}

/** Chooses and instantiates a build. options.threads: 'auto' | true | false. */
export async function loadModule(options = {}) {
  const want = options.threads ?? 'auto';
  const useThreads = want === 'auto' ? threadsUsable() : Boolean(want);
  if (useThreads && !threadsUsable()) {
    throw new Error('[glint.ready] threads: true needs a cross-origin-isolated page ' +
        '(COOP: same-origin, COEP: require-corp) with SharedArrayBuffer');
  }
  const name = useThreads ? 'glint-mt' : 'glint-st';
  const base = options.wasmPath ?? new URL(`../dist/`, import.meta.url).href;
  const dir = base.endsWith('/') ? base : base + '/';
  const moduleArgs = {
    locateFile: (file) => dir + file,
    print: options.print ?? ((s) => console.log(s)),
    printErr: options.printErr ?? ((s) => console.warn(s)),
  };
  if (isNode) await prepareNode(dir, name, moduleArgs);
  // The webgpu backend's device. options.webgpu: false leaves it out; a GPU
  // object is used as navigator.gpu would be. In node it is acquired here only
  // when asked for (true or a GPU object): otherwise at setBackend('webgpu').
  const gpuWanted = options.webgpu ?? 'auto';
  if (gpuWanted !== false && (!isNode || gpuWanted !== 'auto')) {
    const gpu = isNode ? await nodeGPU(gpuWanted) : typeof gpuWanted === 'object' ? gpuWanted : undefined;
    moduleArgs.glintWebGPU = await acquireWebGPU(gpu);
  }
  let factory;
  try {
    factory = (await import(/* webpackIgnore: true */ dir + name + '.mjs')).default;
  } catch (e) {
    throw new Error(`[glint.ready] could not load ${dir}${name}.mjs: ${e.message}`);
  }
  const M = await factory(moduleArgs);
  // The files this build is made of (the pthreads build starts workers from *.worker.js).
  const files = [dir + name + '.mjs', dir + name + '.wasm'];
  if (useThreads) files.push(dir + name + '.worker.js');
  M.glintBuild = {name, threads: useThreads, files};
  M.glintWebGPUOption = gpuWanted;
  watchWebGPU(M);
  return M;
}

// Emscripten 3.1.6's ES-module output reads the wasm file with fetch and
// uses require/__dirname in node; give it the bytes and those two names.
async function prepareNode(dir, name, moduleArgs) {
  const {createRequire} = await import('node:module');
  const {fileURLToPath} = await import('node:url');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const wasmUrl = new URL(name + '.wasm', dir);
  globalThis.require ??= createRequire(import.meta.url);
  globalThis.__dirname ??= path.dirname(fileURLToPath(wasmUrl));
  moduleArgs.wasmBinary = fs.readFileSync(fileURLToPath(wasmUrl));
}

export {isNode};
