#!/usr/bin/env node
// The JS API (web/package) in Debian's headless Chromium: ops and gradients on
// every browser backend (cpu = wasm, gl = WebGL2), the three standard models
// training on each (gl against cpu from the same seed), memory() flat over 500
// steps, save -> page reload -> load from IndexedDB, training in a worker with
// no main-thread task over 50 ms of CPU, and both builds (threads and not). Faults:
// ten WebGL context losses at random batches, ten pages closed mid-save.
// Needs `make web` (both builds in web/package/dist). Last line: "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import {check, contentEncoding, openPage, repo, runMain, tasksDuring, traceMainThread, withBrowser} from './harness.mjs';

/// The API test page, glint loaded (threads build or not); page errors are printed.
async function openApiPage(context, base, threads) {
  const {page} = await openPage(context, `${base}/tests/browser/pages/api.html?threads=${threads}`,
                                {viewport: null, echoPageErrors: true});
  await page.waitForFunction(() => window.glintReady || window.glintReadyError, null,
                             {timeout: 60000});
  const err = await page.evaluate(() => window.glintReadyError);
  if (err) throw new Error(`glint.ready failed: ${err}`);
  return page;
}

const run = (page, name, args = {}) =>
  page.evaluate(([n, a]) => window.glintSuite[n](a), [name, args]);

function relClose(a, b, tol) {
  return a.length === b.length &&
      a.every((v, i) => Math.abs(v - b[i]) <= tol * Math.max(1, Math.abs(b[i])));
}

/// A TF.js program with only the import changed, no ready(), both habits: ops right after the
/// import (the first op starts the single-thread engine synchronously) and ops after another await
/// (the engine, the threads build on this isolated page, started by itself meanwhile).
async function noReady(context, base) {
  for (const [flow, build, late] of [['first', 'glint-st', /before any op/], ['later', 'glint-mt', /glint-ml\/lazy/]]) {
    const {page, errors} = await openPage(context, `${base}/tests/browser/pages/no_ready.html?flow=${flow}`,
                                          {viewport: null, echoPageErrors: true});
    await page.waitForFunction(() => window.noReadyResult, null, {timeout: 90000});
    const r = await page.evaluate(() => window.noReadyResult);
    check(`no ready(), ops ${flow === 'first' ? 'right after the import' : 'after another await'}: values, fit and ` +
          'predict as in TF.js', !r.error && r.readyBeforeFirstOp === (flow === 'later') &&
          r.matMulSum === 7 + 10 + 15 + 22 &&  // [[1, 2], [3, 4]] squared
          JSON.stringify(r.square) === JSON.stringify([2.25, 4, 9]) && r.loss[1] < r.loss[0] &&
          Math.abs(r.y10 - 19) < 0.1 && errors.length === 0, JSON.stringify(r) + ' ' + errors.join(' | '));
    check(`no ready(), ${flow}: the ${build} build; ready() resolves; a late wasmPath says what to do`,
          r.build === build && r.lateReady === 'resolved' && late.test(r.lateWasmPath),
          `${r.build}; ${r.lateReady}; ${r.lateWasmPath}`);
    await page.close();
  }
}

runMain(() => withBrowser(async ({base, context}) => {
  await noReady(context, base);
  const page = await openApiPage(context, base, 1);
  const info = await run(page, 'info');
  check('page is cross-origin isolated, pthreads build loaded',
        info.crossOriginIsolated && info.backendInfo.build.threads,
        JSON.stringify(info.backendInfo.build));
  const progress = await page.evaluate(() => window.glintProgress);
  // The relaxed-SIMD build where Chromium validates relaxed SIMD (Debian's 156 does).
  const wasmFile = info.backendInfo.build.relaxedSimd ? 'glint-mt-relaxed.wasm' : 'glint-mt.wasm';
  check('Chromium runs relaxed SIMD: the relaxed build loaded', info.backendInfo.build.relaxedSimd &&
        info.backendInfo.build.wasmFrom.endsWith('/' + wasmFile), JSON.stringify(info.backendInfo.build));
  const wasmBytes = fs.statSync(path.join(repo, 'web/package/dist', wasmFile)).size;
  const lastReport = progress.at(-1);
  const coding = await contentEncoding(page, `/web/package/dist/${wasmFile}`);
  const total = coding ? null : wasmBytes;
  check(`ready({onProgress}): the .wasm's bytes as they arrive, rising to its size (${coding ?? 'not'} compressed)`,
        progress.length >= 2 &&
        progress.every((p, i) => p.file === wasmFile && p.total === total &&
                                 (i === 0 || p.loaded >= progress[i - 1].loaded)) &&
        lastReport.loaded === wasmBytes, `${progress.length} reports, last ${JSON.stringify(lastReport)}, ` +
        `file ${wasmBytes} bytes`);
  const gl = info.backendInfo.backends.find((b) => b.name === 'gl');
  check('gl backend available on WebGL2', gl && gl.available, gl && gl.reason);
  check('automatic choice: wasm cpu over gl on a software renderer, and says why',
        info.backendInfo.active === 'cpu' && /gl: a software renderer/.test(info.backendInfo.why),
        info.backendInfo.why);
  const backends = ['cpu', 'gl'];
  for (const backend of backends) {
    const r = await run(page, 'ops', {backend});
    const worst = Object.entries(r).sort((x, y) => y[1] - x[1])[0];
    check(`ops on ${backend} (vs plain JS, and vs cpu)`, worst[1] < 1e-4,
          `worst ${worst[0]} ${worst[1].toExponential(2)}`);
    const g = await run(page, 'grads', {backend});
    check(`gradient on ${backend} vs finite differences`, g.maxErr < 5e-3, g.maxErr.toExponential(2));
  }
  for (const model of ['mlp', 'cnn', 'lstm']) {
    const steps = model === 'mlp' ? 12 : 6;
    const ref = await run(page, 'trainModel', {backend: 'cpu', model, steps});
    check(`${model} trains on cpu`, ref.losses.at(-1) < ref.losses[0],
          `loss ${ref.losses[0].toFixed(3)} -> ${ref.losses.at(-1).toFixed(3)}, ` +
          `${ref.msPerStep.toFixed(1)} ms/step`);
    const r = await run(page, 'trainModel', {backend: 'gl', model, steps});
    check(`${model} on gl follows cpu from the same seed`, relClose(r.losses, ref.losses, 1e-2) &&
          Math.abs(r.acc - ref.acc) <= 0.05,
          `loss ${r.losses.at(-1).toFixed(4)} vs ${ref.losses.at(-1).toFixed(4)}, acc ` +
          `${r.acc.toFixed(3)} vs ${ref.acc.toFixed(3)}, ${r.msPerStep.toFixed(1)} ms/step`);
  }
  for (const backend of backends) {
    const r = await run(page, 'memoryFlat', {backend, steps: 500});
    check(`memory() flat over 500 steps on ${backend}`,
          JSON.stringify(r.after5) === JSON.stringify(r.atEnd),
          `${JSON.stringify(r.after5)} -> ${JSON.stringify(r.atEnd)}`);
  }
  const cl = await run(page, 'contextLoss', {});
  check('forced WebGL context loss mid-training: training goes on, nothing lost',
        cl.lost.losses === 2 && cl.lost.backend === 'gl' &&
        cl.lost.batches === cl.reference.batches - cl.lost.skipped &&
        Math.abs(cl.lost.acc - cl.reference.acc) <= 0.1 && cl.lost.loss < 1.5 * cl.reference.loss,
        JSON.stringify(cl));
  // Fault injection: ten trials, each losing the context once at a random batch.
  const trialLosses = [], failures = [];
  let seed = 2026;
  for (let trial = 0; trial < 10; ++trial) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const at = 1 + (seed % 15);
    const t = await run(page, 'contextLoss', {loseAfter: [at], withReference: false});
    trialLosses.push(at);
    const ok = t.lost.losses === 1 && t.lost.backend === 'gl' &&
        t.lost.batches === cl.reference.batches - t.lost.skipped &&
        Math.abs(t.lost.acc - cl.reference.acc) <= 0.1 && t.lost.loss < 1.5 * cl.reference.loss;
    if (!ok) failures.push(`batch ${at}: ${JSON.stringify(t.lost)}`);
  }
  check('10 WebGL context losses at random batches: each run completes in the accuracy band',
        failures.length === 0,
        failures.length ? failures.join('; ') : `lost after batches ${trialLosses.join(', ')}`);
  const saved = await run(page, 'saveToIndexedDb', {name: 'browser-test'});
  await page.reload();
  await page.waitForFunction(() => window.glintReady, null, {timeout: 60000});
  const loaded = await run(page, 'loadFromIndexedDb', {name: 'browser-test'});
  check('save -> reload page -> load from IndexedDB: identical predictions',
        JSON.stringify(saved.predictions) === JSON.stringify(loaded.predictions) &&
        loaded.listed.includes('indexeddb://browser-test'),
        `${saved.predictions.length} values, listed ${loaded.listed.join(',')}`);
  const sh = await run(page, 'storageHandlers');
  check('localstorage:// round trip; a save over quota fails and leaves the old model',
        sh.same && sh.intactAfterFailedSave && sh.quotaError !== null, sh.quotaError);
  check('io.listModels and io.removeModel for both stores',
        sh.listed.includes('localstorage://ls-model') && sh.listed.includes('indexeddb://idb-model') &&
        !sh.listedAfter.includes('localstorage://ls-model') &&
        !sh.listedAfter.includes('indexeddb://idb-model') && /no model/.test(sh.missing ?? ''),
        `${sh.listed.join(',')} -> ${sh.listedAfter.join(',')}`);
  for (const backend of backends) {
    const {result: w, tasks} = await traceMainThread(page, () => run(page, 'workerTraining', {epochs: 3, backend}));
    const busy = tasksDuring(tasks, w.watched);
    check(`worker training on ${backend}: no main-thread task over 50 ms of CPU`,
          busy.count > 0 && busy.cpu <= 50 && w.batches === 24 && w.loss.at(-1) < w.loss[0] &&
          w.backendUsed === backend,
          `${busy.count} tasks, longest ${busy.cpu.toFixed(1)} ms of CPU (${busy.wall.toFixed(1)} ms wall), ${w.frames} ` +
          `frames in ${w.seconds.toFixed(2)} s, backend ${w.backendUsed}, loss ` +
          w.loss.map((v) => v.toFixed(3)).join(' -> '));
  }
  for (const backend of ['cpu', 'gl']) {
    const cw = await run(page, 'classWeight', {backend});
    check(`fit classWeight on ${backend}: weighted loss, gradients scaled, missing class named`,
          Math.abs(cw.got - cw.want) < 1e-5 * Math.max(1, cw.want) && cw.weightsErr < 1e-5 &&
          /GlintError/.test(cw.error) && /class 2/.test(cw.error),
          `loss ${cw.got} vs ${cw.want}, weights rel err ${cw.weightsErr.toExponential(2)}, ${cw.error}`);
  }
  // (A page whose WebGL is software asks for the adapter only now: a Promise.)
  const forced = await page.evaluate(async () => {
    try {
      await window.glint.setBackend('webgpu');
      return {threw: false};
    } catch (e) {
      return {threw: true, name: e.name, message: e.message, backend: window.glint.getBackend()};
    }
  });
  check('forcing a backend that is not there: a GlintError naming it and the choices',
        forced.threw && forced.name === 'GlintError' && /webgpu/.test(forced.message) &&
        /cpu/.test(forced.message), forced.message);
  await page.close();

  // A tab closed in the middle of IndexedDB saves: ten times, the model found
  // afterwards is one whole version (every weight the same value), the last one
  // finished or the one in flight, never a mix and never lost.
  const interrupted = [];
  let intact = true;
  for (let trial = 0; trial < 10; ++trial) {
    const saver = await openApiPage(context, base, 0);
    await saver.evaluate((first) => { window.glintSuite.saveLoop({name: 'interrupt', first}); },
                        1 + trial * 10000);
    await saver.waitForTimeout(150 + ((trial * 137) % 400));
    await saver.close({runBeforeUnload: false});
    const reader = await openApiPage(context, base, 0);
    const r = await run(reader, 'inspectSaved', {name: 'interrupt'});
    await reader.close();
    const v = r.values[0];
    const whole = !r.error && r.values.length === 1 && v >= Math.max(1, r.done) && v <= r.started;
    intact = intact && whole;
    interrupted.push(whole ? `v${v} (done ${r.done}, started ${r.started})` :
                             `BROKEN ${JSON.stringify(r).slice(0, 200)}`);
  }
  check('IndexedDB save interrupted by closing the page, 10 times: the model is whole',
        intact, interrupted.join('; '));

  const st = await openApiPage(context, base, 0);
  const stInfo = await run(st, 'info');
  check('single-thread build loads when asked', !stInfo.backendInfo.build.threads);
  const r = await run(st, 'ops', {backend: 'cpu'});
  check('ops on the single-thread build', Math.max(...Object.values(r)) < 1e-4);
  await st.close();
}));
