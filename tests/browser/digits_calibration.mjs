// The digits app's "not like any digit" distance (web/apps/digits/novelty.js,
// FARTHER), recomputed independently of the app: the given percentile, over the
// held-out digits of data.js's split, of the Euclidean distance (levels in
// [0, 1]) to the nearest training digit. Exact, by brute force with early exit:
// about 7 s of one core, so tests run it in a worker thread beside the page.
import fs from 'node:fs';
import path from 'node:path';
import {isMainThread, parentPort, Worker, workerData} from 'node:worker_threads';
import zlib from 'node:zlib';

export function heldOutPercentile(appDir, q) {
  const data = zlib.gunzipSync(fs.readFileSync(path.join(appDir, 'data/digits.u8.gz')));
  const count = data.length / 785, P = 784;
  // data.js's split: mulberry32(12345) shuffle, 80% train.
  let s = 12345 >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = Int32Array.from({length: count}, (_, i) => i);
  for (let i = count - 1; i > 0; --i) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const cut = Math.round(count * 0.8), train = order.subarray(0, cut), test = order.subarray(cut);
  const dist = Array.from(test, (k) => {
    let best = Infinity;
    for (const t of train) {
      let d = 0;
      for (let p = 0; p < P && d < best; ++p) {
        const e = data[k * P + p] - data[t * P + p];
        d += e * e;
      }
      best = Math.min(best, d);
    }
    return Math.sqrt(best) / 255;
  }).sort((a, b) => a - b);
  return dist[Math.ceil(q * dist.length) - 1];
}

/** heldOutPercentile in a worker thread: a Promise of the same number. */
export function heldOutPercentileInWorker(appDir, q) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {workerData: {appDir, q}});
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`digits_calibration worker exited (${code}) with no result`)));
  });
}

if (!isMainThread && workerData?.appDir) parentPort.postMessage(heldOutPercentile(workerData.appDir, workerData.q));
