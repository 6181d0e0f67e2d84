#!/usr/bin/env node
// What a page downloads (issue 28): bytes per file, raw, gzip -9 and brotli
// (quality 11), for glint-ml and for TF.js 4.22 side by side, with the totals a
// page fetches; then (--startup) the digits app's start-up in headless
// Chromium: navigation to "ready to draw" on a first visit (empty cache) and a
// second one, on desktop as it is and on a phone-like profile (4x CPU
// slowdown, 16 Mbit/s, 150 ms latency), each the median of --rounds runs.
//   node bench/size.mjs [--startup] [--rounds N] [--json FILE]
// Needs make web (and make demo for --startup: the app's model).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {fileURLToPath} from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (f) => path.join(repo, 'web/package/dist', f);
const tfjs = (f) => path.join(repo, 'node_modules/@tensorflow', f);

/** {raw, gz, br} of one file. */
export function sizesOf(file) {
  const bytes = fs.readFileSync(file);
  return {
    raw: bytes.length,
    gz: zlib.gzipSync(bytes, {level: 9}).length,
    br: zlib.brotliCompressSync(bytes, {params: {[zlib.constants.BROTLI_PARAM_QUALITY]: 11,
                                                 [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length}}).length,
  };
}

// What a page fetches, per library and set-up. A glint-ml page loads the
// package (the CDN bundle is the package's JS in one file), one glue and one
// .wasm: the relaxed-SIMD twin where the engine has relaxed SIMD, same size.
export const DOWNLOADS = {
  'glint-ml, single thread (any page)': [dist('glint.mjs'), dist('glint-st.mjs'), dist('glint-st.wasm')],
  'glint-ml, threads (cross-origin isolated)': [dist('glint.mjs'), dist('glint-mt.mjs'),
                                                dist('glint-mt.worker.js'), dist('glint-mt.wasm')],
  'TF.js 4.22, cpu + webgl + wasm-simd': [tfjs('tfjs/dist/tf.min.js'), tfjs('tfjs-backend-wasm/dist/tf-backend-wasm.min.js'),
                                          tfjs('tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm')],
  'TF.js 4.22, cpu + webgl only': [tfjs('tfjs/dist/tf.min.js')],
};
// The digits app's own engine (make web-apps: only its model's kernels and
// layers, docs/SIZE.md), where it was built: the same package JS.
const digitsOwn = (f) => path.join(repo, 'web/apps/digits/glint', f);
if (fs.existsSync(digitsOwn('glint-st.wasm'))) {
  DOWNLOADS['digits app\'s own engine build, single thread'] = [dist('glint.mjs'), digitsOwn('glint-st.mjs'),
                                                                digitsOwn('glint-st.wasm')];
}

// The budget (gzip -9) the full single-thread download must stay within; the
// test tests/web/package_size.test.mjs holds it. Issue 28's goal is 0.50 MB
// (TF.js with its wasm backend); this is where the package stood, plus 2%:
// growth fails, cuts lower it. 2026-12-06: 1,004 KiB. 2026-12-07: 1,037 KiB,
// +33 KiB for the shared GPU kernel layer (src/backends/gpu: the IR that
// builds and prints the gl and webgpu shaders is code, where the two copies
// of text it replaced were data) -- to be won back (issue 28). Later that day:
// 1,060.1 KiB, +8.4 KiB for the reductions' folds and the cells' gate math
// moved into that IR (src/backends/gpu/fold.cpp, cells.cpp), which used the
// 2% margin; the budget then kept 1 KiB of it. Later still: 1,061.2 KiB,
// +1.0 KiB for gl's sizes as uniforms (i32 IR parameters, u_ints/u_inShift/
// u_count; half the programs compiled), budget 1,062 KiB. 2026-12-08:
// 1,116.1 KiB, +54.9 KiB for 62 more graph-model ops (223 of the 248 TF.js
// runs, docs/GRAPH_OPS.md: five published models failed without them).
// Graph models are a feature line: a per-app build that loads none (the
// digits and sequence apps) does not pay it. Budget 1,117 KiB; to be won
// back under issue 28 (e.g. graph models as a module loaded on first use).
export const BUDGET_GZ = 1117 * 1024;
export const GOAL_GZ = 500 * 1000;

export function sizeTable() {
  const sets = [];
  for (const [name, files] of Object.entries(DOWNLOADS)) {
    const rows = files.map((f) => ({file: path.relative(repo, f), ...sizesOf(f)}));
    const total = rows.reduce((t, r) => ({raw: t.raw + r.raw, gz: t.gz + r.gz, br: t.br + r.br}),
                              {raw: 0, gz: 0, br: 0});
    sets.push({name, rows, total});
  }
  return sets;
}

const kb = (n) => (n / 1024).toFixed(1).padStart(8);

function printSizes(sets) {
  console.log(`${'file'.padEnd(76)} ${'raw KiB'.padStart(8)} ${'gz KiB'.padStart(8)} ${'br KiB'.padStart(8)}`);
  for (const s of sets) {
    console.log(`\n${s.name}`);
    for (const r of s.rows) console.log(`  ${r.file.padEnd(74)} ${kb(r.raw)} ${kb(r.gz)} ${kb(r.br)}`);
    console.log(`  ${'total'.padEnd(74)} ${kb(s.total.raw)} ${kb(s.total.gz)} ${kb(s.total.br)}`);
  }
  const glint = sets[0].total.gz, tf = sets[2].total.gz;
  console.log(`\nglint-ml single thread / TF.js with wasm-simd, gzip: ${(glint / tf).toFixed(2)}` +
              ` (goal <= 1; budget ${kb(BUDGET_GZ).trim()} KiB, goal ${kb(GOAL_GZ).trim()} KiB)`);
}

// ---- start-up in headless Chromium -----------------------------------------------------------

const PHONE_NETWORK = {offline: false, latency: 150, downloadThroughput: 16e6 / 8, uploadThroughput: 16e6 / 8};

/** ms from navigation to the digits app's "ready" on one page of `context`, throttled or not. */
async function timeToReady(context, url, throttled) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  // Bodies off the wire (compressed sizes), the page's and its workers' requests alike.
  const sizes = [];
  const onFinished = (request) => sizes.push(request.sizes().then((s) => s.responseBodySize, () => 0));
  context.on('requestfinished', onFinished);
  await cdp.send('Network.enable');
  if (throttled) {
    await cdp.send('Network.emulateNetworkConditions', PHONE_NETWORK);
    await cdp.send('Emulation.setCPUThrottlingRate', {rate: 4});
  }
  await page.goto(url, {waitUntil: 'commit'});
  await page.waitForFunction(() => ['ready', 'error'].includes(window.digitsApp?.state), null, {timeout: 120000});
  const r = await page.evaluate(() => ({state: digitsApp.state, error: digitsApp.error,
                                        ms: performance.now(), steps: digitsApp.stats.startup}));
  context.off('requestfinished', onFinished);
  const bytes = (await Promise.all(sizes)).reduce((a, b) => a + Math.max(0, b), 0);
  await page.close();
  if (r.state !== 'ready') throw new Error(`the digits app did not start: ${r.error}`);
  return {ms: r.ms, steps: r.steps, bytes};
}

async function startup(rounds) {
  const {serve} = await import('../tools/serve.mjs');
  const {launchChromium} = await import('../tests/browser/run.mjs');
  const server = await serve({root: repo, port: 0});
  const url = `http://127.0.0.1:${server.port}/web/apps/digits/`;
  const results = [];
  try {
    for (const throttled of [false, true]) {
      const first = [], second = [];
      for (let i = 0; i < rounds; ++i) {
        const browser = await launchChromium();   // a fresh profile: an empty cache
        try {
          first.push(await timeToReady(browser.context, url, throttled));
          second.push(await timeToReady(browser.context, url, throttled));
        } finally {
          await browser.close();
        }
      }
      const median = (xs) => xs.map((x) => x.ms).sort((a, b) => a - b)[xs.length >> 1];
      results.push({profile: throttled ? 'phone: 4x CPU, 16 Mbit/s, 150 ms' : 'desktop',
                    firstMs: median(first), secondMs: median(second),
                    firstBytes: first[0].bytes, secondBytes: second[0].bytes,
                    firstSteps: first[0].steps, secondSteps: second[0].steps});
    }
  } finally {
    await server.close();
  }
  console.log(`\ndigits app, navigation to ready (median of ${rounds}; response bodies as sent, first run)`);
  for (const r of results) {
    console.log(`  ${r.profile.padEnd(36)} first visit ${r.firstMs.toFixed(0).padStart(6)} ms ` +
                `(${(r.firstBytes / 1024).toFixed(0)} KiB)   second ${r.secondMs.toFixed(0).padStart(6)} ms ` +
                `(${(r.secondBytes / 1024).toFixed(0)} KiB)`);
    console.log(`    start-up steps ended at (ms, first run): first visit ${JSON.stringify(r.firstSteps)}, ` +
                `second ${JSON.stringify(r.secondSteps)}`);
  }
  return results;
}

async function main(argv) {
  const o = {startup: false, rounds: 3, json: null};
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--startup') o.startup = true;
    else if (argv[i] === '--rounds') o.rounds = Number(argv[++i]);
    else if (argv[i] === '--json') o.json = argv[++i];
    else {
      console.error('usage: node bench/size.mjs [--startup] [--rounds N] [--json FILE]');
      process.exit(2);
    }
  }
  const missing = Object.values(DOWNLOADS).flat().filter((f) => !fs.existsSync(f));
  if (missing.length) {
    console.error(`missing: ${missing.map((f) => path.relative(repo, f)).join(', ')} (make web; make bootstrap)`);
    process.exit(1);
  }
  const sets = sizeTable();
  printSizes(sets);
  const startupResults = o.startup ? await startup(o.rounds) : null;
  if (o.json) fs.mkdirSync(path.dirname(path.resolve(o.json)), {recursive: true});
  if (o.json) fs.writeFileSync(o.json, JSON.stringify({sizes: sets, startup: startupResults}, null, 1));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
