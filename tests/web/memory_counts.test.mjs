// tf.memory() counts string and complex64 tensors as TensorFlow.js 4.22 (cpu
// backend) does, on the same program: a string tensor is one tensor and one
// buffer of its UTF-8 bytes; a complex64 tensor is one tensor and one buffer
// without bytes of its own.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.js';

await glint.ready();
await tf.setBackend('cpu');

function program(m) {
  const steps = [];
  const base = m.memory();
  const note = () => {
    const now = m.memory();
    steps.push([now.numTensors - base.numTensors, now.numBytes - base.numBytes,
      now.numDataBuffers - base.numDataBuffers, Boolean(now.unreliable)]);
  };
  const s = m.tensor(['ab', 'cde', '']);
  note();
  const re = m.tensor([1, 2]), im = m.tensor([3, 4]);
  note();
  const c = m.complex(re, im);
  note();
  const s2 = m.tensor([['héllo', 'x']]);
  note();
  const f = m.spectral.fft(c);
  note();
  const r = m.real(f);
  note();
  s.dispose();
  note();
  c.dispose();
  note();
  m.dispose([re, im]);
  note();
  m.dispose([f, r, s2]);
  note();
  return steps;
}

test('memory() counts string and complex64 tensors as TF.js', () => {
  const theirs = program(tf), ours = program(glint);
  // TF.js marks its memory unreliable whatever the tensors (its cpu backend's
  // counts are an upper bound); glint-ml's are exact except for strings.
  const counts = (steps) => steps.map(([n, bytes, buffers]) => [n, bytes, buffers]);
  assert.deepEqual(counts(ours), counts(theirs));
  assert.deepEqual(ours.map((x) => x[3]), [true, true, true, true, true, true, true, true, true, false]);
});
