// tf.profile as TF.js programs use it: the same program profiled on TF.js
// 4.22 (cpu) and glint-ml; the memory figures agree, the kernel list has
// TF.js's fields, async functions are profiled through their awaits.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';

await tf.setBackend('cpu');

const FIELDS = ['name', 'bytesAdded', 'totalBytesSnapshot', 'tensorsAdded', 'totalTensorsSnapshot', 'inputShapes',
  'outputShapes', 'kernelTimeMs', 'extraInfo'];

test('profile reports what TF.js reports for the same program', async () => {
  const program = (lib) => () => {
    const a = lib.tensor2d([[1, 2, 3], [4, 5, 6]]);
    const b = lib.tensor2d([[1, -1], [0, 2], [3, 1]]);
    return lib.matMul(a, b).relu();
  };
  const glintStart = glint.memory().numBytes, tfStart = tf.memory().numBytes;
  const mine = await glint.profile(program(glint)), theirs = await tf.profile(program(tf));
  for (const key of ['newBytes', 'newTensors']) assert.equal(mine[key], theirs[key], key);
  // peakBytes is the engine's whole count: each library's own start set apart.
  assert.equal(mine.peakBytes - glintStart, theirs.peakBytes - tfStart, 'peakBytes');
  assert.deepEqual(Array.from(mine.result.dataSync()), Array.from(theirs.result.dataSync()));
  assert.deepEqual(Object.keys(mine).sort(), Object.keys(theirs).sort());
  for (const k of mine.kernels) assert.deepEqual(Object.keys(k).sort(), [...FIELDS].sort());
  // The kernels that compute (TF.js also lists its tensor creations).
  const last = mine.kernels.at(-1);
  assert.equal(last.name, 'Relu');
  assert.deepEqual(last.outputShapes, [[2, 2]]);
  assert.equal(last.bytesAdded, 16);
  assert.equal(last.tensorsAdded, 1);
  assert.deepEqual(mine.kernelNames, [...new Set(mine.kernels.map((k) => k.name))]);
  assert.ok(mine.kernelNames.includes('BatchMatMul'), mine.kernelNames.join());
});

test('profile waits for an async function and records the kernels after its awaits', async () => {
  const x = glint.tensor1d([1, 2, 3]);
  const info = await glint.profile(async () => {
    const y = x.square();
    await new Promise((r) => setTimeout(r, 5));
    return y.add(1);
  });
  assert.deepEqual(info.kernelNames, ['Square', 'Add']);
  assert.deepEqual(Array.from(info.result.dataSync()), [2, 5, 10]);
  assert.equal(info.newTensors, 2);
});

test('a function that throws still ends the profile', async () => {
  await assert.rejects(glint.profile(() => glint.matMul(glint.tensor1d([1]), glint.tensor1d([1]))), /matMul/);
  const info = await glint.profile(() => glint.tensor1d([1, -1]).abs());
  assert.deepEqual(info.kernelNames, ['Abs']);
});
