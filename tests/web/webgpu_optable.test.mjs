// The op table (every OpCase of tests/unit: forward and tape gradients
// against the reference backend) on webgpu in node through Dawn, where reads
// are asynchronous only: tests/optable_async runs each case and starts its
// reads, this waits for them. Twice on a software adapter (SwiftShader's
// Vulkan driver): with the kernels it gets, and with the GPU forms a real GPU
// gets (forced). On a GPU (GLINT_OPTABLE_GPU=1, the H200) once, as it comes.
// Needs build/wasm/glint_optable_async.js (make test-web builds it).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

import {acquireWebGPU, nodeGPU} from '../../web/package/src/webgpu.js';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
if (!process.env.VK_DRIVER_FILES && fs.existsSync(SWIFTSHADER)) process.env.VK_DRIVER_FILES = SWIFTSHADER;

const BUILD = fileURLToPath(new URL(process.env.GLINT_OPTABLE_JS ?? '../../build/wasm/glint_optable_async.js',
                                    import.meta.url));

async function runTable(forceGpuKernels) {
  const factory = createRequire(import.meta.url)(BUILD);
  const device = await acquireWebGPU(await nodeGPU(true));
  assert.ok(device, 'no WebGPU adapter');
  // The bytes handed over: Emscripten 3.1.6 would fetch() a path in node 18+.
  const M = await factory({glintWebGPU: device, wasmBinary: fs.readFileSync(BUILD.replace(/\.js$/, '.wasm')),
                           print: () => {}, printErr: () => {}});
  assert.equal(M._optable_setup(forceGpuKernels ? 1 : 0), 1, M.UTF8ToString(M._optable_message()));
  const failures = [];
  const n = M._optable_count();
  let compared = 0;
  for (let i = 0; i < n; ++i) {
    const name = M.UTF8ToString(M._optable_name(i));
    const reads = M._optable_start(i);
    if (reads < 0) {
      failures.push(`${name}: ${M.UTF8ToString(M._optable_message())}`);
      continue;
    }
    await M.glintWebGPUSettled();
    if (M._optable_finish() !== 0) failures.push(`${name}: ${M.UTF8ToString(M._optable_message())}`);
    compared += reads;
  }
  device.device.destroy();
  return {n, compared, failures};
}

const onGpu = process.env.GLINT_OPTABLE_GPU === '1';
for (const force of onGpu ? [false] : [false, true]) {
  test(`op table on webgpu in node${force ? ', GPU kernel forms forced' : ''}: every case within tolerance of reference`,
       async () => {
         const r = await runTable(force);
         console.log(`# ${r.n} cases, ${r.compared} results compared, ${r.failures.length} failed`);
         assert.ok(r.n > 300, `only ${r.n} cases registered`);
         assert.deepEqual(r.failures, []);
       });
}
