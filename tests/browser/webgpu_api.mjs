#!/usr/bin/env node
// The JS API on the webgpu backend, in Debian's headless Chromium with WebGPU
// on SwiftShader (tests/browser/run.mjs's WEBGPU_FLAGS): the device acquired
// by glint.ready, ops and gradients, the three standard models following cpu
// from the same seed, memory flat over 500 steps, data() against dataSync(),
// the automatic choice on a software adapter, and fit going on through ten
// forced device losses at random batches. Needs `make web`.
// Last line: "N passed, N failed".
import {check, openPage, runMain, withBrowser} from './harness.mjs';
import {WEBGPU_FLAGS} from './run.mjs';

const run = (page, name, args = {}) =>
  page.evaluate(([n, a]) => window.glintSuite[n](a), [name, args]);

function relClose(a, b, tol) {
  return a.length === b.length &&
      a.every((v, i) => Math.abs(v - b[i]) <= tol * Math.max(1, Math.abs(b[i])));
}

async function openApi(context, base, query) {
  const {page, errors} = await openPage(context, `${base}/tests/browser/pages/api.html?${query}`,
                                        {viewport: null, echoPageErrors: true});
  await page.waitForFunction(() => window.glintReady || window.glintReadyError, null,
                             {timeout: 60000});
  const err = await page.evaluate(() => window.glintReadyError);
  if (err) throw new Error(`glint.ready failed: ${err}`);
  return {page, errors};
}

runMain(() => withBrowser(async ({base, context}) => {
  // 'auto' on a page whose WebGL is software (SwiftShader here): no adapter is
  // asked for at ready (no "No available adapters." where there is none), and
  // setBackend('webgpu') asks then.
  {
    const {page} = await openApi(context, base, 'threads=0');
    const before = (await run(page, 'info')).backendInfo.backends.find((b) => b.name === 'webgpu');
    check('auto, software WebGL: no adapter asked for at ready, and it says why',
          before && !before.available && /no adapter asked for.*software/.test(before.reason),
          before && before.reason);
    const after = await page.evaluate(async () => {
      await window.glint.setBackend('webgpu');
      return {active: window.glint.getBackend(),
              gpu: window.glint.backendInfo().backends.find((b) => b.name === 'webgpu')};
    });
    check('then setBackend(\'webgpu\') asks for the adapter and runs on it',
          after.active === 'webgpu' && after.gpu.available, JSON.stringify(after));
    await page.close();
  }
  const {page} = await openApi(context, base, 'threads=1&webgpu=1');
  const info = await run(page, 'info');
  const gpu = info.backendInfo.backends.find((b) => b.name === 'webgpu');
  check('webgpu backend available, SwiftShader flagged as a software adapter',
        gpu && gpu.available && gpu.software && /WebGPU/.test(gpu.reason), gpu && gpu.reason);
  check('automatic choice on a software adapter: wasm cpu, and it says why',
        info.backendInfo.active === 'cpu' && /webgpu: a software renderer/.test(info.backendInfo.why),
        info.backendInfo.why);

  const r = await run(page, 'ops', {backend: 'webgpu'});
  const worst = Object.entries(r).sort((x, y) => y[1] - x[1])[0];
  check('ops on webgpu (vs plain JS, and vs cpu)', worst[1] < 1e-4,
        `worst ${worst[0]} ${worst[1].toExponential(2)}`);
  const g = await run(page, 'grads', {backend: 'webgpu'});
  check('gradient on webgpu vs finite differences', g.maxErr < 5e-3, g.maxErr.toExponential(2));
  const reads = await run(page, 'webgpuReads');
  check('data() (mapAsync) equals dataSync() (canvas read) equals the values',
        reads.every((x) => x.same), JSON.stringify(reads));

  for (const model of ['mlp', 'cnn', 'lstm']) {
    const steps = model === 'mlp' ? 12 : 6;
    const ref = await run(page, 'trainModel', {backend: 'cpu', model, steps});
    const t = await run(page, 'trainModel', {backend: 'webgpu', model, steps});
    check(`${model} on webgpu follows cpu from the same seed`,
          t.losses.at(-1) < t.losses[0] && relClose(t.losses, ref.losses, 1e-2) &&
          Math.abs(t.acc - ref.acc) <= 0.05,
          `loss ${t.losses.at(-1).toFixed(4)} vs ${ref.losses.at(-1).toFixed(4)}, acc ` +
          `${t.acc.toFixed(3)} vs ${ref.acc.toFixed(3)}, ${t.msPerStep.toFixed(1)} ms/step`);
  }
  const before = await page.evaluate(() => window.glint.webgpu.stats());
  const m = await run(page, 'memoryFlat', {backend: 'webgpu', steps: 500});
  const after = await page.evaluate(() => window.glint.webgpu.stats());
  check('memory() flat over 500 steps on webgpu',
        JSON.stringify(m.after5) === JSON.stringify(m.atEnd),
        `${JSON.stringify(m.after5)} -> ${JSON.stringify(m.atEnd)}`);
  check('GPU buffers back where they were after the 500 steps (the rest pooled)',
        after.buffers === before.buffers,
        `live ${before.buffers} -> ${after.buffers}, pooled ${after.pooledBuffers}, ${after.bytes} bytes`);

  const dl = await run(page, 'deviceLoss', {});
  const inBand = (l, ref) => l.backend === 'webgpu' && l.batches === ref.batches - l.skipped &&
      Math.abs(l.acc - ref.acc) <= 0.1 && l.loss < 1.5 * ref.loss;
  check('forced WebGPU device loss mid-fit: a new device, training goes on, nothing lost',
        dl.lost.losses === 2 && dl.lost.variablesRestored > 0 && inBand(dl.lost, dl.reference),
        JSON.stringify(dl));
  const failures = [], at = [];
  let seed = 7;
  for (let trial = 0; trial < 10; ++trial) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const k = 1 + (seed % 15);
    at.push(k);
    try {
      const t = await run(page, 'deviceLoss', {loseAfter: [k], withReference: false});
      if (!(t.lost.losses === 1 && inBand(t.lost, dl.reference)))
        failures.push(`batch ${k}: ${JSON.stringify(t.lost)}`);
    } catch (e) {
      failures.push(`batch ${k}: ${e.message.split('\n')[0]}`);
    }
  }
  check('10 WebGPU device losses at random batches: each run completes in the accuracy band',
        failures.length === 0, failures.length ? failures.join('; ') : `lost after batches ${at.join(', ')}`);
}, WEBGPU_FLAGS));
