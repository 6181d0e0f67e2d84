#!/usr/bin/env node
// Glint's gl backend next to TF.js 4.22's webgl backend, in one headless
// Chromium run (WebGL2 = ANGLE on SwiftShader here): the standard models'
// training steps/s, one-sample predict latency and a fresh model's first
// predict (shader compilation included). Each runner gets a page of its own
// in the same browser (bench/browser/bench.html). Prints a table of ratios
// (> 1: Glint is better) and writes build/bench/browser-results.json in the
// form of bench/run_bench.mjs's results.json (+ browser-raw.jsonl).
// --suite webgpu: Glint's webgpu backend next to TF.js's webgpu backend (issue 7's
// targets) and next to Glint's gl and wasm cpu (which the automatic choice
// should prefer), in a Chromium with WebGPU on SwiftShader;
// written to build/bench/browser-webgpu-results.json.
// --suite wasm: Glint's WebAssembly builds on the cpu backend (single-thread,
// pthreads, and their relaxed-SIMD twins) next to TF.js 4.22's wasm backend with
// its threads, in a cross-origin-isolated page (issue 34); written to
// build/bench/browser-wasm-results.json. Needs glint_models_bench_web (and its
// _relaxed twin) built by both wasm presets.
// --rounds N (N > 1): each model in a page of its own per runner, the runners
// alternating in order (A B, then B A, ...) N times; the table gives each
// ratio's median over the rounds and its range. On a shared machine whose
// load drifts during a run this keeps the drift out of the ratios.
// Usage: node bench/browser/run.mjs [--suite gl|webgpu|wasm] [--models mlp,cnn,lstm] [--budget SECONDS]
//        [--rounds N] [--out DIR]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../tools/serve.mjs';
import { launchChromium, WEBGPU_FLAGS } from '../../tests/browser/run.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function parseArgs(argv) {
  const o = { models: 'mlp,cnn,lstm', budget: 2, out: path.join(repo, 'build/bench'), suite: 'gl', rounds: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || i + 1 >= argv.length) {
      console.error('usage: bench/browser/run.mjs [--suite gl|webgpu|wasm] [--models mlp,cnn,lstm] [--budget SECONDS] ' +
                    '[--rounds N] [--out DIR]');
      process.exit(2);
    }
    o[key] = key === 'budget' || key === 'rounds' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return o;
}

// Issue 7's targets (webgpu vs TF.js webgpu).
const WEBGPU_TARGETS = {
  train: { mlp: 5, cnn: 5, lstm: 5 },
  predict: { mlp: 1 / 0.2 },
  first_predict: {},
};

// Issue 34's: the lstm at 15x TF.js wasm; a threads build at 1.6x (cnn, lstm) and
// 1.3x (mlp) its single-thread build in training, never slower in predict.
const WASM_TARGETS = { train: { lstm: 15 }, predict: {}, first_predict: {} };
const THREAD_TARGETS = { train: { mlp: 1.3, cnn: 1.6, lstm: 1.6 }, predict: { mlp: 1, cnn: 1, lstm: 1 },
                         first_predict: {} };

// Issue 5's targets, as ratios where > 1 means Glint is better.
const TARGETS = {
  train: { mlp: 2.5, cnn: 3, lstm: 5 },
  predict: { mlp: 1 / 0.3 },          // latency <= 0.3x TF.js's
  first_predict: { mlp: 2, cnn: 2, lstm: 2 },  // <= 0.5x TF.js's
};

async function runPage(context, url, label, timeoutS) {
  const page = await context.newPage();
  const rows = [];
  page.on('console', (msg) => {
    const t = msg.text();
    if (t.startsWith('[bench] {')) rows.push(JSON.parse(t.slice(8)));
    else if (t.startsWith('[bench')) console.log(`  ${label}| ${t}`);
    else if (/^\[glint\]/.test(t) || msg.type() === 'error') console.log(`  ${label}| ${t}`);
  });
  page.on('pageerror', (e) => console.log(`  ${label}| page error: ${e.message}`));
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.__done === true, null, { timeout: timeoutS * 1000, polling: 500 });
  const error = await page.evaluate(() => window.__error || null);
  await page.close();
  if (error) throw new Error(`${label}: ${error}`);
  console.log(`  ${label}: ${rows.length} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return rows;
}

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

function printTable(header, body) {
  const w = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(w[i])).join('  ').trimEnd();
  console.log(line(header));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of body) console.log(line(r));
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const bin = path.join(repo, 'build/wasm/glint_models_bench_web.js');
  if (!fs.existsSync(bin))
    throw new Error(`${bin} is missing: cmake --build --preset wasm --target glint_models_bench_web`);
  const models = o.models.split(',').filter(Boolean);
  const webgpu = o.suite === 'webgpu', wasm = o.suite === 'wasm';
  if (!['gl', 'webgpu', 'wasm'].includes(o.suite)) throw new Error(`--suite gl|webgpu|wasm, got ${o.suite}`);
  // The wasm suite's Glint builds: [label (its backend in the rows), bench binary].
  const wasmBuilds = [['wasm', 'build/wasm/glint_models_bench_web.js'],
                      ['wasm-relaxed', 'build/wasm/glint_models_bench_web-relaxed.js'],
                      ['wasm-mt', 'build/wasm-mt/glint_models_bench_web.js'],
                      ['wasm-mt-relaxed', 'build/wasm-mt/glint_models_bench_web-relaxed.js']];
  for (const [, file] of wasm ? wasmBuilds : []) {
    if (!fs.existsSync(path.join(repo, file)))
      throw new Error(`${file} is missing: cmake --build --preset wasm (and wasm-mt) --target ` +
                      'glint_models_bench_web glint_models_bench_web_relaxed');
  }
  // [label, runner, backend, bench binary (glint)] per page, each in the same browser.
  const pages = webgpu
    ? [['tfjs webgpu', 'tfjs', 'webgpu'], ['glint webgpu', 'glint', 'webgpu'], ['glint gl', 'glint', 'gl'],
       ['glint cpu', 'glint', 'cpu']]
    : wasm
    ? [['tfjs wasm', 'tfjs', 'wasm'], ...wasmBuilds.map(([label, file]) => [`glint ${label}`, 'glint', label, file])]
    : [['tfjs webgl', 'tfjs', 'webgl'], ['glint gl', 'glint', 'gl']];
  // Cross-origin isolated for the wasm suite: SharedArrayBuffer, so threads.
  const server = await serve({ root: repo, isolate: wasm });
  const browser = await launchChromium(webgpu ? WEBGPU_FLAGS : []);
  const load0 = os.loadavg()[0];
  const rows = [];
  try {
    // A wasm build runs Glint's cpu backend; its rows carry the build's label as their backend.
    const url = (runner, backend, ms, bin) =>
      `${server.url}/bench/browser/bench.html?runner=${runner}&backend=${bin ? 'cpu' : backend}` +
      `&models=${ms.join(',')}&budget=${o.budget}${bin ? `&bin=/${bin}` : ''}`;
    const relabel = (got, backend, bin) => (bin ? got.map((r) => ({ ...r, backend })) : got);
    if (o.rounds <= 1) {
      const timeout = 120 + 60 * o.budget * models.length;
      for (const [label, runner, backend, bin] of pages)
        rows.push(...relabel(await runPage(browser.context, url(runner, backend, models, bin), label, timeout),
                             backend, bin));
    } else {
      for (let round = 0; round < o.rounds; ++round) {
        for (const m of models) {
          const order = round % 2 === 0 ? pages : [...pages].reverse();
          for (const [label, runner, backend, bin] of order) {
            const got = await runPage(browser.context, url(runner, backend, [m], bin), `${label} ${m} #${round + 1}`,
                                      120 + 60 * o.budget);
            rows.push(...relabel(got, backend, bin).map((r) => ({ ...r, round })));
          }
        }
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const load1 = os.loadavg()[0];

  const findAll = (runner, backend, model, task) =>
    rows.filter((r) => r.runner === runner && r.backend === backend && r.model === model && r.task === task);
  const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  // [glint backend, peer runner, peer backend, targets]
  const comparisons = webgpu
    ? [['webgpu', 'tfjs', 'webgpu', WEBGPU_TARGETS], ['webgpu', 'glint', 'gl', null], ['webgpu', 'glint', 'cpu', null]]
    : wasm
    ? [...wasmBuilds.map(([label]) => [label, 'tfjs', 'wasm', label === 'wasm' ? WASM_TARGETS : null]),
       ['wasm-relaxed', 'glint', 'wasm', null], ['wasm-mt', 'glint', 'wasm', THREAD_TARGETS],
       ['wasm-mt-relaxed', 'glint', 'wasm-relaxed', THREAD_TARGETS]]
    : [['gl', 'tfjs', 'webgl', TARGETS]];
  const results = [], table = [];
  for (const [gb, peerRunner, peerBackend, targets] of comparisons) {
    for (const m of models) {
      for (const task of ['train', 'predict', 'first_predict']) {
        const gs = findAll('glint', gb, m, task === 'first_predict' ? 'predict' : task);
        const ps = findAll(peerRunner, peerBackend, m, task === 'first_predict' ? 'predict' : task);
        if (!gs.length || gs.length !== ps.length) continue;
        if (ps.some((r) => r.unsupported)) {
          table.push([`${gb} vs ${peerRunner}-${peerBackend}`, m, task, '', 'not supported', '', 'n/a', '', '', '']);
          continue;
        }
        const value = (r) => (task === 'train' ? r.steps_per_s : task === 'predict' ? r.latency_us : r.first_us);
        const unit = task === 'train' ? 'steps/s' : 'us';
        const ratioOf = (g, p) => (task === 'train' ? value(g) / value(p) : value(p) / value(g));
        // Round k of one runner against round k of the other (one round: the only pair).
        const ratios = gs.map((g, k) => ratioOf(g, ps[k]));
        const ratio = median(ratios);
        const g = { [task === 'train' ? 'steps_per_s' : task === 'predict' ? 'latency_us' : 'first_us']: median(gs.map(value)) };
        const p = { [task === 'train' ? 'steps_per_s' : task === 'predict' ? 'latency_us' : 'first_us']: median(ps.map(value)) };
        const target = targets?.[task][m];
        const peer = `${peerRunner === 'glint' ? 'glint' : 'tfjs'}-${peerBackend}`;
        results.push({ model: m, task, glint_backend: `browser-${gb}`, peer,
                       glint: value(g), peer_value: value(p), unit, ratio, target: target ?? null });
        table.push([`${gb} vs ${peer}`, m, task, fmt(value(g)), fmt(value(p)), unit, `${ratio.toFixed(2)}x`,
                    ratios.length > 1 ? `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x` : '',
                    target === undefined ? '' : `>= ${target.toFixed(2)}x`,
                    target === undefined ? '' : ratio >= target ? 'met' : 'MISSED']);
      }
    }
  }
  console.log(webgpu
    ? '\nGlint webgpu vs TF.js 4.22 webgpu, and vs Glint gl, in one headless Chromium (WebGPU and WebGL2 on SwiftShader; '
    : wasm
    ? '\nGlint\'s WebAssembly builds (cpu backend) vs TF.js 4.22 wasm with its threads, and vs each other, in one ' +
      'headless cross-origin-isolated Chromium ('
    : '\nGlint gl vs TF.js 4.22 webgl in one headless Chromium (WebGL2 on SwiftShader; ');
  console.log('ratio > 1: Glint is better; train = steps/s ratio, predict = latency peer/glint, ' +
              'first_predict = a fresh model\'s first predict, shaders compiled on the way)');
  if (o.rounds > 1)
    console.log(`${o.rounds} rounds, runners alternating; ratio = median of the rounds' ratios, values = medians`);
  printTable(['glint vs peer', 'model', 'task', 'glint', 'peer', 'unit', 'ratio', 'range', 'target', ''], table);
  console.log(`Load average (1 min): ${load0.toFixed(2)} before, ${load1.toFixed(2)} after, on ${os.cpus().length} cores`);
  fs.mkdirSync(o.out, { recursive: true });
  const stem = webgpu ? 'browser-webgpu' : wasm ? 'browser-wasm' : 'browser';
  fs.writeFileSync(path.join(o.out, `${stem}-results.json`), JSON.stringify(results, null, 1) + '\n');
  fs.writeFileSync(path.join(o.out, `${stem}-raw.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`Wrote ${path.join(o.out, `${stem}-results.json`)} (${results.length} rows) and ${stem}-raw.jsonl`);
}

main().catch((e) => {
  console.error(`bench/browser/run.mjs: ${e.stack || e.message}`);
  process.exitCode = 1;
});
