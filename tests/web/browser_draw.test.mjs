// tf.browser.draw and toPixels against TF.js 4.22 (its cpu Draw kernel) in
// the same run: every channel count, float32 and int32, alpha, plain arrays,
// and the errors. Node has no canvas: a recording one stands in, with
// ImageData as the page has it.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {rng} from './shared_cases.mjs';

await tf.setBackend('cpu');

globalThis.ImageData ??= class ImageData {
  constructor(data, width, height) {
    Object.assign(this, {data, width, height});
  }
};

/** A canvas whose 2-D context records what putImageData was given. */
function recordingCanvas() {
  const canvas = {width: 0, height: 0, painted: null, asked: null};
  canvas.getContext = (type, attributes) => {
    canvas.asked = {type, attributes};
    return {putImageData: (img, x, y) => {
      canvas.painted = {data: Array.from(img.data), width: img.width, height: img.height, x, y};
    }};
  };
  return canvas;
}

test('draw paints what TF.js paints: 1, 3, 4 channels and rank 2, float32 and int32, alpha', () => {
  const r = rng(3);
  for (const shape of [[3, 4], [2, 5, 1], [4, 3, 3], [3, 2, 4]]) {
    for (const dtype of ['float32', 'int32']) {
      for (const alpha of [undefined, 0.5, 0.3]) {
        const size = shape.reduce((a, b) => a * b, 1);
        const values = Array.from({length: size}, () => (dtype === 'float32' ? r() : Math.floor(r() * 256)));
        const options = alpha === undefined ? undefined : {imageOptions: {alpha}, contextOptions: {contextAttributes: {willReadFrequently: true}}};
        const paint = (lib) => {
          const canvas = recordingCanvas();
          const t = lib.tensor(values, shape, dtype);
          lib.browser.draw(t, canvas, options);
          t.dispose();
          return {painted: canvas.painted, size: [canvas.width, canvas.height], asked: canvas.asked};
        };
        assert.deepEqual(paint(glint), paint(tf), `[${shape}] ${dtype} alpha ${alpha}`);
      }
    }
  }
});

test('toPixels gives TF.js\'s bytes, from a tensor or a plain array (int32)', async () => {
  const img = [[[0, 10, 20], [30, 40, 50]], [[255, 128, 1], [2, 3, 4]]];
  for (const make of [(lib) => img, (lib) => lib.tensor(img, undefined, 'int32'), (lib) => lib.div(lib.tensor(img), 255)]) {
    const ours = await glint.browser.toPixels(make(glint)), theirs = await tf.browser.toPixels(make(tf));
    assert.deepEqual(Array.from(ours), Array.from(theirs));
  }
});

test('draw and toPixels refuse what TF.js refuses, naming the op', async () => {
  const canvas = recordingCanvas();
  assert.throws(() => glint.browser.draw(glint.ones([2, 2, 2]), canvas), /\[browser.draw\] img must have 1, 3 or 4 channels, got 2/);
  assert.throws(() => glint.browser.draw(glint.ones([2]), canvas), /\[browser.draw\] img must be rank 2 or 3/);
  assert.throws(() => glint.browser.draw(glint.tensor([[1.5]]), canvas), /float32 values must be in \[0, 1\], found 1.5/);
  assert.throws(() => glint.browser.draw(glint.tensor([[300]], undefined, 'int32'), canvas), /int32 values must be in \[0, 255\]/);
  assert.throws(() => glint.browser.draw(glint.ones([1, 1]), canvas, {imageOptions: {alpha: 2}}), /alpha must be in \[0, 1\]/);
  assert.throws(() => glint.browser.draw(glint.ones([1, 1]), canvas, {contextOptions: {contextType: 'webgl'}}), /'2d' context/);
  assert.throws(() => glint.browser.draw(glint.ones([1, 1]), {}), /canvas must be a canvas/);
  await assert.rejects(glint.browser.toPixels(glint.tensor([[true]], undefined, 'bool')), /img must be float32 or int32, got bool/);
});
