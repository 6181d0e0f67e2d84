// glint-ml's engine worker (src/worker_main.js) in a node worker thread: the
// `self` a dedicated Web Worker has, made of the thread's port. As a browser
// does for a module worker, messages wait until the module has run.
import {parentPort} from 'node:worker_threads';

globalThis.self = globalThis;
self.postMessage = (msg, transfer) => parentPort.postMessage(msg, transfer);
const early = [];
parentPort.on('message', (data) => (self.onmessage ? self.onmessage({data}) : early.push(data)));
await import('../../../web/package/src/worker_main.js');
for (const data of early.splice(0)) self.onmessage({data});
