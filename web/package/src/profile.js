// tf.profile(f): the kernels f runs (sync or async), with the memory each
// added, from the engine's profile records (include/glint/profile.h).
import * as core from './core.js';
import {GlintError} from './core.js';

/**
 * Resolves to {newBytes, newTensors, peakBytes, kernels, result, kernelNames}
 * as TF.js's; each kernel {name, bytesAdded, totalBytesSnapshot, tensorsAdded,
 * totalTensorsSnapshot, inputShapes, outputShapes, kernelTimeMs, extraInfo}.
 * Kernels are the engine's (e.g. _FusedMatMul, Conv2D), where TF.js names its
 * own; each waits for the device, so the times are per kernel, not overlapped.
 */
export async function profile(f) {
  if (typeof f !== 'function') throw new GlintError('[profile] f must be a function');
  const M = core.module();
  core.callInt(() => M._glint_profile_start());
  let result, info;
  try {
    result = f();
    if (result && typeof result.then === 'function') result = await result;
  } finally {
    info = core.callJson(() => M._glint_profile_end());
  }
  const kernels = info.kernels.map((k) => ({
    name: k.name, bytesAdded: k.bytesAdded, totalBytesSnapshot: k.totalBytesSnapshot,
    tensorsAdded: k.tensorsAdded, totalTensorsSnapshot: k.totalTensorsSnapshot,
    inputShapes: k.inputShapes, outputShapes: k.outputShapes, kernelTimeMs: k.kernelTimeMs,
    extraInfo: `backend ${k.backend}`,
  }));
  return {newBytes: info.newBytes, newTensors: info.newTensors, peakBytes: info.peakBytes, kernels, result,
    kernelNames: [...new Set(kernels.map((k) => k.name))]};
}
