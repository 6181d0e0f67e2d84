// The webgpu backend's device. navigator.gpu hands out devices asynchronously
// while the engine is synchronous, so the device is acquired before the module
// starts and passed to it as Module.glintWebGPU. When it is lost, a new one is
// requested at once; until it comes the backend throws DeviceLostError (fit
// waits for it and goes on), then it takes the new device at its next call and
// restores uploads and variables there.

/** {adapter, device}, or null where the browser has no usable WebGPU. */
export async function acquireWebGPU() {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return null;
    // Kernels bind up to 9 storage buffers; the default limit is 8.
    const requiredLimits = {};
    for (const k of ['maxStorageBuffersPerShaderStage', 'maxStorageBufferBindingSize', 'maxBufferSize'])
      requiredLimits[k] = adapter.limits[k];
    const device = await adapter.requestDevice({requiredLimits});
    return {adapter, device};
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
    const next = await acquireWebGPU();
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
