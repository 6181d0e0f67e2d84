// Backend choice, memory accounting and the random seed.
import * as core from './core.js';
import {jsTensors} from './tensor.js';
import {GlintError} from './core.js';
import {isNode} from './module.js';
import {acquireWebGPU, nodeGPU, watchWebGPU} from './webgpu.js';

/**
 * Makes `name` the active backend. Returns true, or (webgpu whose adapter was
 * not asked for at ready: node, or a page whose WebGL is software) a promise
 * of true: the device is acquired then. `await` suits both, as in TF.js.
 */
export function setBackend(name) {
  const M = core.module();
  if (name === 'webgpu' && !M.glintWebGPU && M.glintWebGPUOption !== false &&
      (isNode || (M.glintWebGPUDeferred && globalThis.navigator?.gpu))) {
    return acquireLater(M).then(() => setBackend(name));
  }
  core.callInt(() => M._glint_set_backend(core.str(name)));
  return true;
}

let acquiring = null;
function acquireLater(M) {
  acquiring ??= (async () => {
    const got = await acquireWebGPU(isNode ? await nodeGPU(M.glintWebGPUOption) : globalThis.navigator.gpu);
    M.glintWebGPUDeferred = null;  // asked now: a page asks once
    if (!got) {
      throw new GlintError(isNode ?
          '[setBackend] webgpu: no WebGPU adapter in this process (Dawn found no Vulkan, Metal or ' +
          'D3D12 device; on Linux it needs libvulkan1 and a Vulkan driver)' :
          '[setBackend] webgpu: this browser gave no WebGPU adapter (requestAdapter found none: ' +
          'WebGPU disabled, unsupported or blocklisted here); the choices: ' + availableNames());
    }
    M.glintWebGPU = got;
    watchWebGPU(M);
    core.callInt(() => M._glint_backend_probe_again(core.str('webgpu')));
  })().finally(() => {
    acquiring = null;
  });
  return acquiring;
}

/**
 * Debug mode: every kernel's float outputs are checked after it runs; the first kernel that
 * produces a NaN or an infinity throws a GlintError naming it (and whether its inputs were
 * already non-finite). Each check reads back (a GPU sync): for debugging, not for speed.
 */
export function enableDebugMode(on = true) {
  core.callInt(() => core.module()._glint_set_debug_mode(on ? 1 : 0));
}

/**
 * Float16 activations (off by default): the gl backend stores float32 kernel outputs as
 * float16 (half the texture memory); kernels compute in float32, variables and optimizer
 * state stay float32. Train with loss scaling (optimizer.lossScale) so small gradients do
 * not underflow. Other backends ignore it.
 */
export function setFloat16Activations(on = true) {
  core.callInt(() => core.module()._glint_set_float16_activations(on ? 1 : 0));
}

export function getBackend() {
  return core.callString(() => core.module()._glint_get_backend());
}

/** Every registered backend: available or why not, software renderer or not. */
export function backendInfo() {
  const M = core.module();
  const info = core.callJson(() => M._glint_backend_info());
  const webgpu = info.backends.find((b) => b.name === 'webgpu');
  if (M.glintWebGPUDeferred && webgpu && !webgpu.available) webgpu.reason = M.glintWebGPUDeferred;
  info.build = core.buildInfo();
  return info;
}

function availableNames() {
  return core.callJson(() => core.module()._glint_backend_info()).backends
      .filter((b) => b.available).map((b) => b.name).join(', ');
}

/**
 * The URLs this context fetched (its script, the package's modules, the wasm build): what an
 * offline cache must hold. Called through glint.worker(), it lists the worker's own fetches,
 * which the page's performance entries do not show.
 */
export function loadedResources() {
  const urls = [...performance.getEntriesByType('resource').map((e) => e.name),
                ...core.buildInfo().files];
  if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
    urls.unshift(self.location.href);
  }
  return [...new Set(urls)];
}

/** Disposes every live variable, model weights and optimizer state included (TF.js's disposeVariables). */
export function disposeVariables() {
  core.callInt(() => core.module()._glint_dispose_variables());
}

/**
 * TF.js's memory(): the engine's tensors and bytes, with string tensors (JS
 * bytes: one tensor and one buffer each, their UTF-8 bytes) and complex64
 * tensors (two engine tensors: counted as one, without bytes of their own,
 * as TF.js counts them) as TF.js counts them.
 */
export function memory() {
  const info = core.callJson(() => core.module()._glint_memory());
  let strings = 0;
  for (const ref of jsTensors) {
    const t = ref.deref();
    if (!t || t.isDisposedInternal) {
      jsTensors.delete(ref);
      continue;
    }
    if (t._bytes) {
      strings++;
      info.numTensors++;
      info.numDataBuffers++;
      info.numBytes += t._bytes.reduce((n, b) => n + b.length, 0);
    } else if (t._parts) {
      // One tensor and one buffer of no bytes; the parts' own tensors and
      // buffers (not a user's real/imag, counted as theirs) are left out.
      info.numTensors++;
      info.numDataBuffers++;
      for (const p of t._parts) {
        const own = p.isDisposedInternal ? -2 : core.module()._glint_tensor_unshared_bytes(p.id);
        if (own === -2) continue;
        info.numTensors--;
        if (own >= 0) {
          info.numBytes -= own;
          info.numDataBuffers--;
        }
      }
    }
  }
  if (strings) {
    info.unreliable = true;
    (info.reasons ??= []).push('Memory usage by string tensors is approximate (2 bytes per character)');
  }
  return info;
}

/** Gives pooled (released) buffers back; live tensors are untouched. */
export function releaseUnusedMemory() {
  core.callInt(() => core.module()._glint_release_unused());
}

/**
 * Threads the cpu backend's kernels use (the calling one included), from the next kernel on.
 * The pthreads build has at most the workers it started (navigator.hardwareConcurrency);
 * the single-threaded build always 1. Throws for n < 1.
 */
export function setNumThreads(n) {
  if (!Number.isInteger(n)) throw new GlintError(`[setNumThreads] n must be an integer, got ${n}`);
  core.callInt(() => core.module()._glint_set_num_threads(n));
}

/** Threads the cpu backend's kernels use now. */
export function getNumThreads() {
  return core.callInt(() => core.module()._glint_num_threads());
}

export function setSeed(seed) {
  core.module()._glint_set_seed(seed);
}

/** kernel name -> backends that implement it. */
export function kernelTable() {
  return core.callJson(() => core.module()._glint_kernel_table());
}

/** The webgpu backend's counters, and a forced device loss (device.destroy()) for tests. */
export const webgpu = {
  /**
   * Buffers (live and pooled), the pipelines cached (at most 512: the most
   * recently used) and device losses; and, since the module started,
   * dispatches, submits and the bind groups and pipelines made.
   */
  stats: () => ({...core.callJson(() => core.module()._glint_webgpu_stats()),
                 ...(core.module().glintWebGPUCounts?.() ?? {})}),
  loseDevice: () => {
    core.callInt(() => core.module()._glint_webgpu_lose_device());
  },
  /** The GPUDevice the webgpu backend runs on (null before setBackend('webgpu')): dataToGPU's buffers are its. */
  device: () => (core.isReady() ? core.module().glintWebGPU?.device ?? null : null),
  /**
   * GPU timing (timestamp queries): from now on each dispatch is timed on the GPU under
   * the name of the kernel that made it (one compute pass per dispatch while on, so steps
   * run somewhat slower). Returns false where the device has no timestamp-query.
   */
  startKernelTiming: () => !!core.module()._glint_webgpu_timing &&
      core.callInt(() => core.module()._glint_webgpu_timing(1)) === 1,
  /**
   * Stops the timing; resolves to one row per kernel, the most GPU time first:
   * {kernel, calls, totalMs, meanUs}. Browsers may round timestamps (100 µs in Chrome
   * unless its flags say otherwise); Dawn in node gives them whole.
   */
  async stopKernelTiming() {
    const take = core.module().glintWebGPUTimes;
    core.callInt(() => core.module()._glint_webgpu_timing(0));
    const rows = take ? await take() : {};
    return Object.entries(rows)
        .map(([kernel, r]) => ({kernel, calls: r.calls, totalMs: r.ns / 1e6, meanUs: r.ns / 1e3 / r.calls}))
        .sort((a, b) => b.totalMs - a.totalMs);
  },
  /**
   * Tests: the kernels' GPU forms (workgroup memory, tiles) also on a software
   * adapter, which otherwise gets forms suited to a CPU. A real GPU always has them.
   */
  forceGpuKernels: (on = true) => {
    core.callInt(() => core.module()._glint_webgpu_force_gpu_kernels(on ? 1 : 0));
  },
  /**
   * The precision self-test's verdict on read-back float bits, as the backend
   * makes it: pairs [sent, back] and the GPU's sum of 1..1000 ->
   * {usable, why, deviations}. A lost sign of zero or a flushed denormal is a
   * deviation (WGSL allows both); a changed value or a wrong sum is not usable.
   */
  classifySelfTest: (pairs, sum) => core.callJson(() => core.module()._glint_webgpu_classify_self_test(
      core.bytes(Uint32Array.from(pairs, (p) => p[0])), core.bytes(Uint32Array.from(pairs, (p) => p[1])),
      pairs.length, sum)),
};

/** The gl backend's counters, and a forced context loss (WEBGL_lose_context) for tests. */
export const gl = {
  stats: () => core.callJson(() => core.module()._glint_gl_stats()),
  loseContext: () => {
    core.callInt(() => core.module()._glint_gl_lose_context());
  },
};
