// Drives tests/kernel_fuzz_async (build/wasm/glint_kernel_fuzz_async.js):
// the kernel fuzzer's calls on webgpu in node, each a start / await the reads
// / finish round. Used by run.mjs (the CLI) and tests/web/webgpu_fuzz.test.mjs.
import fs from 'node:fs';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

import {acquireWebGPU, nodeGPU} from '../../web/package/src/webgpu.js';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
// Dawn reads the variable when it starts: here before it is imported. On a
// GPU the caller sets it to the GPU's Vulkan driver.
if (!process.env.VK_DRIVER_FILES && fs.existsSync(SWIFTSHADER)) process.env.VK_DRIVER_FILES = SWIFTSHADER;

export const DEFAULT_BUILD = fileURLToPath(new URL('../../build/wasm/glint_kernel_fuzz_async.js', import.meta.url));
export const REGRESSIONS = fileURLToPath(new URL('../kernel_fuzz/regressions.txt', import.meta.url));

/**
 * The fuzzer on a fresh WebGPU device: {M, describeDevice, close}. With
 * forceGpuKernels, the GPU kernel forms run on a software adapter too.
 */
export async function loadFuzzer({forceGpuKernels = false, build = DEFAULT_BUILD} = {}) {
  const factory = createRequire(import.meta.url)(build);
  const device = await acquireWebGPU(await nodeGPU(true));
  if (!device) throw new Error('no WebGPU adapter (VK_DRIVER_FILES=' + (process.env.VK_DRIVER_FILES ?? '') + ')');
  // The bytes handed over: Emscripten 3.1.6 would fetch() a path in node 18+.
  const M = await factory({glintWebGPU: device, wasmBinary: fs.readFileSync(build.replace(/\.js$/, '.wasm')),
                           print: () => {}, printErr: () => {}});
  if (M._kfuzz_setup(forceGpuKernels ? 1 : 0) !== 1) throw new Error(message(M));
  return {M, close: () => device.device.destroy()};
}

const message = (M) => M.UTF8ToString(M._kfuzz_message());
const currentCase = (M) => M.UTF8ToString(M._kfuzz_case());

/** The current case, start to finish: 0 pass, 1 fail, 2 invalid. */
// Where each call is written before it runs (setLastCaseFile): a call that
// kills the process (a driver's crash, not a wrong value) leaves its replay
// line there.
let lastCaseFile = null;
export function setLastCaseFile(file) {
  lastCaseFile = file;
}

async function runCurrent(M) {
  if (lastCaseFile) {
    fs.writeFileSync(lastCaseFile, `--replay ${currentCase(M)}\n  call: ${M.UTF8ToString(M._kfuzz_describe())}\n`);
  }
  const reads = M._kfuzz_start();
  if (reads > 0) await M.glintWebGPUSettled();
  return M._kfuzz_finish();
}

/**
 * The failed current case shrunk as the native fuzzer shrinks (every knob but
 * the op and the seed lowered while the call still fails), one round a trial;
 * its report in the native fuzzer's format.
 */
async function shrunkReport(M, doShrink) {
  let detail = message(M);
  if (doShrink) {
    M._kfuzz_shrink_begin();
    while (M._kfuzz_shrink_next() === 1) await runCurrent(M);
    detail = message(M);
  }
  const line = currentCase(M);
  const name = line.slice(0, line.indexOf(':'));
  return {line, text: `FAIL ${name} on webgpu: ${detail}\n  call: ${M.UTF8ToString(M._kfuzz_describe())}\n` +
                      `  replay: --replay ${line}`};
}

/** The regression lines of a file (comments and blank lines left out). */
export function regressionLines(file) {
  return fs.readFileSync(file, 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
}

/** Replays lines ("pool:0,2,..."), unshrunk; the failures' reports. */
export async function replay(M, lines) {
  const failures = [];
  for (const line of lines) {
    const built = M.ccall('kfuzz_replay', 'number', ['string'], [line]);
    if (built < 0) throw new Error(message(M));
    if (built === 1 && await runCurrent(M) === 1) failures.push(await shrunkReport(M, false));
  }
  return failures;
}

/**
 * Draws cases for `seconds` (round-robin over the generators, or only
 * `generator`) from `seed` (a decimal string); each failure shrunk.
 */
export async function fuzz(M, {seconds, seed, generator = '', onFailure = () => {}}) {
  if (M.ccall('kfuzz_select', 'number', ['string', 'string'], [String(seed), generator]) < 0)
    throw new Error(message(M));
  const failures = [];
  const end = performance.now() + seconds * 1000;
  let drawn = 0;
  while (performance.now() < end) {
    ++drawn;
    if (M._kfuzz_draw() !== 1) continue;
    if (await runCurrent(M) === 1) {
      const f = await shrunkReport(M, true);
      failures.push(f);
      onFailure(f);
    }
  }
  return {drawn, failures};
}

/**
 * Until every kernel webgpu registers has run (or `maxDraws` per generator):
 * each generator's stream in turn, drawn on while it still reaches new
 * kernels (`patience` draws without one end it). Counted draws, not time,
 * so a budget on a slow machine reaches the same kernels. Failures shrunk.
 */
export async function cover(M, {seed, patience = 60, maxDraws = 400, onFailure = () => {}}) {
  const failures = [];
  const missing = () => {
    const t = tallies(M);
    const reached = new Set(t.reached);
    return t.webgpuKernels.filter((k) => !reached.has(k));
  };
  for (const generator of Object.keys(tallies(M).generators)) {
    if (missing().length === 0) break;
    if (M.ccall('kfuzz_select', 'number', ['string', 'string'], [String(seed), generator]) < 0)
      throw new Error(message(M));
    let left = missing().length, idle = 0;
    for (let drawn = 0; drawn < maxDraws && idle < patience && left > 0; ++drawn) {
      if (M._kfuzz_draw() === 1 && await runCurrent(M) === 1) {
        const f = await shrunkReport(M, true);
        failures.push(f);
        onFailure(f);
      }
      const now = missing().length;
      idle = now < left ? 0 : idle + 1;
      left = now;
    }
  }
  return {failures, missing: missing()};
}

/** {generators: {name: {cases, invalid, failed, tags}}, reached, webgpuKernels}. */
export function tallies(M) {
  return JSON.parse(M.UTF8ToString(M._kfuzz_tallies()));
}

/** The native fuzzer's closing table, for webgpu. */
export function summaryText(t, label) {
  const pad = (s, n, left) => (left ? String(s).padEnd(n) : String(s).padStart(n));
  const lines = [`\n${pad('family', 8, true)} ${pad('cases', 8)} ${pad('invalid', 8)} ${pad('failed', 7)}  per backend: ${label}`];
  for (const [name, g] of Object.entries(t.generators)) {
    const tags = Object.entries(g.tags).map(([k, v]) => ` ${k}=${v}`).join('');
    lines.push(`${pad(name, 8, true)} ${pad(g.cases, 8)} ${pad(g.invalid, 8)} ${pad(g.failed, 7)}  tags:${tags}`);
  }
  const reached = new Set(t.reached);
  const missing = t.webgpuKernels.filter((k) => !reached.has(k));
  lines.push(`kernels reached on webgpu (${t.reached.length} of the ${t.webgpuKernels.length} it registers): ` +
             t.reached.join(' '));
  lines.push(`webgpu kernels no generator reached yet: ${missing.join(' ')}`);
  return lines.join('\n');
}
