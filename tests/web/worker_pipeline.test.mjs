// glint.worker()'s calls through a real worker (a node worker thread running
// src/worker_main.js): promise pipelining (a chain of calls sent before their
// answers, one round trip), errors carried along a chain, plain results passed
// on, and a worker that trains answering a chain within a batch or two.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {Worker} from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import {connectWorker} from '../../web/package/src/worker_client.js';

await tf.setBackend('cpu');

/** A node Worker dressed as a Web Worker, counting what the page sends and receives. */
function engineThread() {
  const w = new Worker(new URL('./support/worker_shim.mjs', import.meta.url));
  const counts = {sent: 0, replies: 0, callbacks: 0};
  let onmessage = null;
  w.on('message', (data) => {
    if (data.type === 'callback') ++counts.callbacks;
    else if (data.op !== 'release') ++counts.replies;
    onmessage?.({data});
  });
  const port = {
    counts,
    postMessage(msg, transfer) {
      if (msg.op !== 'release') ++counts.sent;
      w.postMessage(msg, transfer);
    },
    set onmessage(fn) {
      onmessage = fn;
    },
    set onerror(fn) {
      w.on('error', (e) => fn({message: e.message}));
    },
    terminate: () => w.terminate(),
  };
  return port;
}

const port = engineThread();
const g = await connectWorker(port);
after(() => g.terminate());

test('a chain of calls goes out at once and answers in one round trip', async () => {
  const before = {...port.counts};
  const x = g.tensor([1, 2, 3, 4], [2, 2]);
  const y = g.matMul(x, x);
  const data = y.add(1).data();
  // Four calls sent, nothing answered yet.
  assert.equal(port.counts.sent - before.sent, 4);
  assert.equal(port.counts.replies - before.replies, 0);
  const want = tf.add(tf.matMul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[1, 2], [3, 4]])), 1).dataSync();
  assert.deepEqual(Array.from(await data), Array.from(want));
  // An awaited result is the same object in the worker: usable, and disposable.
  const t = await x;
  assert.deepEqual(await t.shape, [2, 2]);
  await Promise.all([y.dispose(), x.dispose()]);
});

test('a pipelined call that fails fails the calls that use it, with its own error', async () => {
  // (A remote proxy is callable: assert.rejects would call it. The error, or null.)
  const failure = (p) => p.then(() => null, (e) => e);
  const bad = g.tensor([1, 2, 3], [2, 2]);
  const used = g.matMul(bad, bad);
  const [e1, e2] = [await failure(bad), await failure(used)];
  assert.equal(e1?.name, 'GlintError');
  assert.match(e1.message, /tensor/);
  assert.equal(e2?.name, 'GlintError');
  assert.equal(e2.message, e1.message);
  // Used after its failure arrived: the same error, not a released reference.
  assert.equal((await failure(g.matMul(bad, bad)))?.message, e1.message);
  assert.equal((await failure(bad.sum()))?.message, e1.message);
  // A method of a result that is not a function: the call names it.
  assert.match((await failure(g.tensor([1]).noSuchMethod()))?.message, /noSuchMethod is not a function/);
});

test('a plain result (numbers, an array) passes on, before and after it arrives', async () => {
  const values = g.tensor([1, 2, 3]).mul(2).dataSync();
  const again = g.tensor(values, [3]).sum().data();
  assert.deepEqual(Array.from(await again), [12]);
  await values;   // arrived: now the page passes the array itself
  assert.deepEqual(Array.from(await g.tensor(values, [3]).max().data()), [6]);
  const n = g.getNumThreads();
  assert.equal(typeof await n, 'number');
});

test('a worker that trains answers a chain within a batch or two, not one per call', async () => {
  const n = 4096;
  const x = g.randomNormal([n, 64], 0, 1, 'float32', 1);
  const y = g.oneHot(g.randomUniform([n], 0, 10, 'int32', 2), 10);
  const model = await g.sequential({layers: [
    await g.layers.dense({units: 1024, activation: 'relu', inputShape: [64]}),
    await g.layers.dense({units: 10, activation: 'softmax'})]});
  await model.compile({optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy']});
  let batches = 0;
  // Epochs enough to outlast the chains; stopped after them.
  const done = model.fit(x, y, {epochs: 1000, batchSize: 256, yieldEvery: 'batch',
                                callbacks: {onBatchEnd: () => ++batches}});
  while (batches < 3) await new Promise((r) => setTimeout(r, 5));
  const pipelined = [], awaited = [];
  const pageWork = () => new Promise((r) => setTimeout(r, 1));
  for (let k = 0; k < 8; ++k) {
    // Pipelined: the calls go out together.
    let b0 = batches;
    const probs = await model.predict(g.slice(x, [k, 0], [1, 64])).data();
    assert.equal(probs.length, 10);
    pipelined.push(batches - b0);
    // Awaited call by call: four round trips, with a millisecond of page work after each
    // answer (a page has some; node's event loop would otherwise take the next call
    // before the worker's next batch in any case).
    b0 = batches;
    const row = await g.slice(x, [k, 0], [1, 64]);
    await pageWork();
    const p = await model.predict(row);
    await pageWork();
    await p.data();
    await pageWork();
    await p.dispose();
    awaited.push(batches - b0);
  }
  const running = batches < 1000 * n / 256;
  model.stopTraining = true;
  await done;
  assert.ok(running, 'training outlasted the chains');
  // A batch in progress when a chain starts finishes first (its callback may come after).
  // Without the worker's wait for the next call, each call of an awaited chain waits a
  // batch (3 or 4 per chain). On a loaded machine the page can answer late now and then:
  // the median says what a chain costs.
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  assert.ok(median(pipelined) <= 1, `pipelined: ${pipelined} batches during each chain`);
  assert.ok(median(awaited) <= 1, `awaited call by call: ${awaited} batches during each chain`);
});
