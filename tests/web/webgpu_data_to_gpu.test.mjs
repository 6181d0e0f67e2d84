// Tensor.dataToGPU, TF.js's hand-over of a tensor's values as a GPU
// resource: on the webgpu backend in node (Dawn, the npm package `webgpu`, on
// Chromium's SwiftShader Vulkan driver, as webgpu_node.test.mjs) a GPUBuffer
// of glint's device holding the values, read back here with the device's own
// copy and map; on backends without GPU buffers, an error as TF.js's cpu
// backend gives.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as tf from '@tensorflow/tfjs';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
if (!process.env.VK_DRIVER_FILES && fs.existsSync(SWIFTSHADER)) process.env.VK_DRIVER_FILES = SWIFTSHADER;

const glint = await import('../../web/package/src/index.js');
await glint.ready();
await tf.setBackend('cpu');

// The spec's numbers (node's bindings install no GPUBufferUsage / GPUMapMode globals).
const MAP_READ = 0x0001, COPY_DST = 0x0008, MODE_READ = 0x0001;

/** The first `bytes` bytes of a GPUBuffer, through a mappable copy on `device`. */
async function readBack(device, buffer, bytes) {
  const staging = device.createBuffer({size: buffer.size, usage: MAP_READ | COPY_DST});
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, buffer.size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(MODE_READ);
  const copy = staging.getMappedRange().slice(0, bytes);
  staging.unmap();
  staging.destroy();
  return copy;
}

test('dataToGPU without GPU buffers (the wasm cpu backend): an error naming it, as TF.js\'s cpu backend', () => {
  assert.notEqual(glint.getBackend(), 'webgpu');
  const x = glint.tensor([1, 2, 3]);
  assert.throws(() => x.dataToGPU(), /\[Tensor\.dataToGPU\] the \w+ backend has no GPU buffer to give .*readToGPU/);
  assert.throws(() => tf.tensor([1, 2, 3]).dataToGPU(), /readToGPU/);
  assert.equal(glint.webgpu.device(), null);
});

test('webgpu: dataToGPU gives a GPUBuffer of the values, alive with tensorRef', async () => {
  // setBackend throws where there is no device: this file, as webgpu_node.test.mjs, needs one.
  await glint.setBackend('webgpu');
  const device = glint.webgpu.device();
  assert.ok(device && typeof device.createBuffer === 'function', 'the backend\'s GPUDevice');
  const values = Array.from({length: 24}, (_, i) => Math.sin(i * 1.7) * 3);
  // A value computed on the GPU (its work still recorded when dataToGPU runs).
  const y = glint.relu(glint.mul(glint.tensor(values, [4, 6]), 2));
  const want = values.map((v) => Math.max(0, v * 2));
  const {tensorRef, buffer} = y.dataToGPU();
  assert.ok(buffer.size >= 24 * 4, `buffer size ${buffer.size}`);
  assert.deepEqual(tensorRef.shape, [4, 6]);
  assert.equal(tensorRef.dtype, 'float32');
  const got = Array.from(new Float32Array(await readBack(device, buffer, 24 * 4)));
  got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-6 * Math.max(1, Math.abs(want[i])), `element ${i}: ${v} vs ${want[i]}`));
  // A copy: the tensor it came from can go; tensorRef keeps the buffer and reads the same.
  y.dispose();
  assert.deepEqual(Array.from(await tensorRef.data()), got);
  assert.deepEqual(Array.from(new Float32Array(await readBack(device, buffer, 24 * 4))), got);
  tensorRef.dispose();
  // int32 keeps its bytes.
  const ints = glint.tensor([7, -3, 2147483647, 0, 5], [5], 'int32');
  const r = ints.dataToGPU();
  assert.deepEqual(Array.from(new Int32Array(await readBack(device, r.buffer, 20))), [7, -3, 2147483647, 0, 5]);
  r.tensorRef.dispose();
  await glint.setBackend('cpu');
});
