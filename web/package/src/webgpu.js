// The webgpu backend's device. navigator.gpu hands out devices asynchronously
// while the engine is synchronous, so the device is acquired before the module
// starts and passed to it as Module.glintWebGPU. When it is lost, a new one is
// requested at once; until it comes the backend throws DeviceLostError (fit
// waits for it and goes on), then it takes the new device at its next call and
// restores uploads and variables there.
//
// In node the GPU object comes from the optional package `webgpu` (Dawn), or
// from the caller (glint.ready({webgpu: gpu}) with any WebGPU implementation).
// Node has no blocking read, so the precision self-test runs here, with
// mapAsync, for every device acquired.
import {GlintError} from './core.js';

// The spec's numbers (node's bindings install no GPUBufferUsage globals).
const STORAGE = 128, COPY_SRC = 4, COPY_DST = 8, MAP_READ = 1;

// Float bits through an f32 identity: zeros of both signs, 1, the smallest
// denormal, the largest float, -inf, NaN, 1/3, pi, -100, a tiny normal, 2^24+2.
const SELF_TEST_BITS = Uint32Array.of(
    0x00000000, 0x80000000, 0x3f800000, 0x00000001, 0x7f7fffff, 0xff800000, 0x7fc00000,
    0x3eaaaaab, 0x40490fdb, 0xc2c80000, 0x33d6bf95, 0x4b800001);

/**
 * The identity and a 1000-term sum (1 + ... + 1000 = 500500, exact in f32) on
 * `device`, read back with mapAsync: {sent, back, sum} for the engine's verdict
 * (src/backends/webgpu/self_test_verdict.h).
 */
export async function selfTestDevice(device) {
  const n = SELF_TEST_BITS.length;
  const code = `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> ramp: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < ${n}u) { dst[g.x] = src[g.x]; }
  if (g.x == 0u) {
    var s = 0.0;
    for (var k = 0u; k < 1000u; k++) { s += ramp[k]; }
    dst[${n}u] = s;
  }
}`;
  const pipeline = device.createComputePipeline({
    layout: 'auto', compute: {module: device.createShaderModule({code}), entryPoint: 'main'}});
  const bytes = (n + 1) * 4;
  const src = device.createBuffer({size: n * 4, usage: STORAGE | COPY_DST});
  const ramp = device.createBuffer({size: 4000, usage: STORAGE | COPY_DST});
  const dst = device.createBuffer({size: bytes, usage: STORAGE | COPY_SRC});
  const back = device.createBuffer({size: bytes, usage: MAP_READ | COPY_DST});
  try {
    device.queue.writeBuffer(src, 0, SELF_TEST_BITS);
    device.queue.writeBuffer(ramp, 0, Float32Array.from({length: 1000}, (_, i) => i + 1));
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, device.createBindGroup({layout: pipeline.getBindGroupLayout(0), entries: [
      {binding: 0, resource: {buffer: src}}, {binding: 1, resource: {buffer: ramp}},
      {binding: 2, resource: {buffer: dst}}]}));
    pass.dispatchWorkgroups(1);
    pass.end();
    encoder.copyBufferToBuffer(dst, 0, back, 0, bytes);
    device.queue.submit([encoder.finish()]);
    await back.mapAsync(MAP_READ);
    const words = new Uint32Array(back.getMappedRange().slice(0));
    back.unmap();
    return {sent: SELF_TEST_BITS, back: words.subarray(0, n),
            sum: new Float32Array(words.buffer, n * 4, 1)[0]};
  } finally {
    for (const b of [src, ramp, dst, back]) b.destroy();
  }
}

/**
 * The GPU object for node: `option` itself when it is one (has requestAdapter),
 * else Dawn from the optional package `webgpu`.
 */
export async function nodeGPU(option) {
  if (option && typeof option === 'object' && typeof option.requestAdapter === 'function') return option;
  let dawn;
  try {
    // Built at run time: Vite's dependency optimizer folds a constant into
    // the import, then finds `webgpu` as a new dependency in the page and
    // re-optimizes mid-load (504 Outdated Optimize Dep).
    const name = ['web', 'gpu'].join('');
    dawn = await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
  } catch (e) {
    throw new GlintError('[glint] webgpu in node needs the optional package `webgpu` (npm install ' +
        `webgpu), or a GPU object passed as glint.ready({webgpu: gpu}): ${e.message}`);
  }
  return dawn.create([]);
}

/**
 * The page's WebGL renderer when it is a software one (SwiftShader, llvmpipe,
 * ...), else null (a GPU, or no WebGL to ask). The context is let go at once.
 */
export function softwareWebGL() {
  try {
    const canvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(1, 1) :
        globalThis.document?.createElement('canvas');
    const gl = canvas?.getContext('webgl2') ?? canvas?.getContext('webgl');
    if (!gl) return null;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer) ? renderer : null;
  } catch {
    return null;
  }
}

/**
 * {adapter, device, selfTest}, or null where there is no usable WebGPU.
 * gpu: the GPU object (navigator.gpu in a page).
 */
export async function acquireWebGPU(gpu = globalThis.navigator?.gpu) {
  if (!gpu) return null;
  try {
    const adapter = await gpu.requestAdapter({powerPreference: 'high-performance'});
    if (!adapter) return null;
    // Kernels bind up to 9 storage buffers; the default limit is 8.
    const requiredLimits = {};
    for (const k of ['maxStorageBuffersPerShaderStage', 'maxStorageBufferBindingSize', 'maxBufferSize'])
      requiredLimits[k] = adapter.limits[k];
    // timestamp-query where there is one: glint.webgpu.startKernelTiming.
    const requiredFeatures = adapter.features?.has('timestamp-query') ? ['timestamp-query'] : [];
    const device = await adapter.requestDevice({requiredLimits, requiredFeatures});
    const selfTest = await selfTestDevice(device);
    return {adapter, device, selfTest, gpu};
  } catch (e) {
    return null;
  }
}

/** On the loss of M's device, asks for a new one and hands it over. */
export function watchWebGPU(M) {
  const current = M.glintWebGPU;
  if (!current) return;
  M.glintWebGPUWatched = true;
  M.glintWebGPURecovery = current.device.lost.then(async () => {
    const next = await acquireWebGPU(current.gpu);
    if (M.glintWebGPU !== current) return M.glintWebGPU;
    if (next) {
      M.glintWebGPU = next;
      watchWebGPU(M);
    } else {
      M.glintWebGPUWatched = false;  // the backend gives up: variables move to the next one
    }
    return next;
  });
}

/** After a DeviceLostError: waits for the replacement device, if one is coming. */
export async function webgpuRecovered(M) {
  if (M.glintWebGPULost && M.glintWebGPURecovery) await M.glintWebGPURecovery;
}

/**
 * After a training step on webgpu: starts the reads of the variables it
 * changed and waits for them (one event-loop turn: the step's loss read has
 * waited for the GPU already), so that a device lost next restores them as
 * they are now.
 */
export async function webgpuSnapshot(M) {
  if (!M.glintWebGPUSettled || !M._glint_webgpu_snapshot) return;
  // Twice at most: a read started before the step (at its loss read) may hold
  // back the read of a variable's newest value until it lands.
  for (let i = 0; i < 2 && M._glint_webgpu_snapshot() > 0; ++i) await M.glintWebGPUSettled();
}

/**
 * Before a read that must not wait (a save's toArtifacts, in node): reads every
 * variable changed on webgpu back into its host snapshot.
 */
export async function webgpuSettleVariables(M) {
  if (!M.glintWebGPUSettled || !M._glint_webgpu_snapshot) return;
  for (let i = 0; i < 8 && M._glint_webgpu_snapshot() > 0; ++i) await M.glintWebGPUSettled();
}
