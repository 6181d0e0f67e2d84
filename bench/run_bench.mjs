// The model benchmark suite against peers, in one invocation: Glint natively
// and in WebAssembly (node), PyTorch CPU (its best thread count) and TF.js 4.22
// (cpu and wasm backends, node), on the three standard models with the same
// data and batches. Runners go model by model, one after the other, so each
// ratio compares figures taken within seconds of each other on a shared machine.
// Prints one table of ratios (> 1: Glint is better) and writes the same rows
// to build/bench/results.json, every runner's raw lines to build/bench/raw.jsonl.
//
// Usage: node --no-experimental-fetch bench/run_bench.mjs [--models mlp,cnn,lstm]
//          [--budget SECONDS] [--skip pytorch,tfjs,glint-wasm]
//          [--native build/release/glint_models_bench] [--wasm build/wasm/glint_models_bench.js]
//          [--wasm-mt build/wasm-mt/glint_models_bench.js]
// Glint's wasm runs twice: the single-thread build (what a page that is not
// cross-origin isolated gets) and the pthreads build.
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const o = {models: 'mlp,cnn,lstm', budget: '2', skip: '', native: 'build/release/glint_models_bench',
           wasm: 'build/wasm/glint_models_bench.js', 'wasm-mt': 'build/wasm-mt/glint_models_bench.js',
           out: 'build/bench', rounds: '1'};
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in o) || i + 1 >= process.argv.length) {
    console.error('usage: run_bench.mjs [--models mlp,cnn,lstm] [--budget SECONDS] [--rounds N] ' +
                  '[--skip pytorch,tfjs,glint-wasm,glint-relaxed] [--native PATH] [--wasm PATH] [--wasm-mt PATH] [--out DIR]');
    process.exit(2);
  }
  o[key] = process.argv[i + 1];
}
const models = o.models.split(',').filter(Boolean);
const skip = new Set(o.skip.split(',').filter(Boolean));
const node = [process.execPath, '--no-experimental-fetch'];
const common = ['--budget', o.budget];

const rows = [];   // every JSON line of every runner
const notes = [];  // what was left out, and why

/**
 * Runs one runner; keeps its JSON lines (TF.js prints other chatter).
 * platform: a name for its rows in place of the one they give (variants of one binary).
 */
function run(label, argv, env = {}, platform = null) {
  const t0 = Date.now();
  const r = spawnSync(argv[0], argv.slice(1), {encoding: 'utf8', env: {...process.env, ...env},
                                               maxBuffer: 64 << 20});
  const lines = (r.stdout || '').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  for (const l of lines) if (platform) l.platform = platform;
  rows.push(...lines);
  const secs = ((Date.now() - t0) / 1e3).toFixed(1);
  if (r.status !== 0 || r.error) {
    const why = (r.error ? r.error.message : (r.stderr || '').trim().split('\n').slice(-3).join(' | '));
    notes.push(`${label}: failed (exit ${r.status}): ${why}`);
    console.error(`run_bench: ${label}: FAILED after ${secs}s: ${why}`);
  } else {
    console.error(`run_bench: ${label}: ${lines.length} results in ${secs}s`);
  }
}

if (!fs.existsSync(o.native)) {
  console.error(`run_bench: ${o.native} is missing: build it first (make build)`);
  process.exit(1);
}
const haveWasm = !skip.has('glint-wasm') && fs.existsSync(o.wasm);
if (!haveWasm && !skip.has('glint-wasm')) notes.push(`Glint wasm: ${o.wasm} is not built (cmake --build --preset wasm --target glint_models_bench)`);
const haveWasmMt = !skip.has('glint-wasm') && fs.existsSync(o['wasm-mt']);
if (!haveWasmMt && !skip.has('glint-wasm')) notes.push(`Glint wasm-mt: ${o['wasm-mt']} is not built (cmake --build --preset wasm-mt --target glint_models_bench)`);

// The relaxed-SIMD twins (glint_models_bench-relaxed.js beside each wasm
// build); node 20 runs them behind a flag.
const relaxedOf = (file) => file.replace(/\.js$/, '-relaxed.js');
const relaxed = [node[0], '--experimental-wasm-relaxed-simd', ...node.slice(1)];
const haveRelaxed = haveWasm && !skip.has('glint-relaxed') && fs.existsSync(relaxedOf(o.wasm));
const haveRelaxedMt = haveWasmMt && !skip.has('glint-relaxed') && fs.existsSync(relaxedOf(o['wasm-mt']));
if (haveWasm && !haveRelaxed && !skip.has('glint-relaxed')) notes.push(`Glint wasm-relaxed: ${relaxedOf(o.wasm)} is not built (target glint_models_bench_relaxed)`);

// --rounds N: every runner N times per model, interleaved; a row's figure is
// then the median of its N (the machines are shared and noisy).
const rounds = Math.max(1, Number(o.rounds) || 1);
const loadBefore = os.loadavg()[0];
for (const m of models) {
  for (let round = 0; round < rounds; ++round) {
    run(`glint native ${m}`, [o.native, '--models', m, ...common]);
    // Native on one thread: the per-core figure WebAssembly's single thread is held to.
    run(`glint native-1t ${m}`, [o.native, '--models', m, '--threads', '1', ...common], {}, 'native-1t');
    if (!skip.has('pytorch')) {
      run(`pytorch ${m}`, ['/usr/bin/python3', 'bench/peers/pytorch_bench.py', '--models', m, ...common],
          {OPENBLAS_NUM_THREADS: '1'});
    }
    if (haveWasm) run(`glint wasm ${m}`, [...node, o.wasm, '--models', m, ...common]);
    if (haveRelaxed) run(`glint wasm-relaxed ${m}`, [...relaxed, relaxedOf(o.wasm), '--models', m, ...common], {}, 'wasm-relaxed');
    if (haveWasmMt) run(`glint wasm-mt ${m}`, [...node, o['wasm-mt'], '--models', m, ...common]);
    if (haveRelaxedMt) {
      run(`glint wasm-mt-relaxed ${m}`, [...relaxed, relaxedOf(o['wasm-mt']), '--models', m, ...common], {},
          'wasm-mt-relaxed');
    }
    if (!skip.has('tfjs')) run(`tfjs ${m}`, [...node, 'bench/peers/tfjs_bench.mjs', '--models', m, ...common]);
  }
}
const loadAfter = os.loadavg()[0];
if (rounds > 1) medianRows();

/** Replaces each runner's N rows per model and task by the row with the median figure. */
function medianRows() {
  const groups = new Map();
  for (const r of rows) {
    const key = [r.runner, r.platform, r.backend, r.model, r.task].join('|');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  rows.length = 0;
  for (const g of groups.values()) {
    const figure = (r) => r.steps_per_s ?? r.latency_us ?? r.model_peak_bytes ?? 0;
    g.sort((a, b) => figure(a) - figure(b));
    rows.push({...g[Math.floor(g.length / 2)], rounds: g.length});
  }
}

// ---- ratios -----------------------------------------------------------------

const find = (runner, platform, backend, model, task) => rows.filter((r) =>
  r.runner === runner && (!platform || r.platform === platform) &&
  (!backend || r.backend === backend) && r.model === model && r.task === task);

/** PyTorch's best configuration per model and task (1 or 2 threads). */
function bestPytorch(model, task) {
  const cands = find('pytorch', null, null, model, task);
  if (!cands.length) return null;
  return cands.reduce((a, b) => (task === 'train' ? (b.steps_per_s > a.steps_per_s ? b : a)
                                                  : (b.latency_us < a.latency_us ? b : a)));
}

// [glint platform, peer label, peer lookup, issue target]
const comparisons = [
  ['native', 'pytorch', (m, t) => bestPytorch(m, t), (m, t) => (t === 'train' ? 1.5 : 3)],
  ...['wasm', 'wasm-relaxed', 'wasm-mt', 'wasm-mt-relaxed'].flatMap((w) => [
    [w, 'tfjs-wasm', (m, t) => find('tfjs', null, 'wasm', m, t)[0],
     (m, t) => (t === 'train' ? {mlp: 8, lstm: 15}[m] : undefined)],
    [w, 'tfjs-cpu', (m, t) => find('tfjs', null, 'cpu', m, t)[0],
     (m, t) => (t === 'train' && m === 'cnn' ? 50 : undefined)],
    [w, 'pytorch', (m, t) => bestPytorch(m, t), (m, t) => (t === 'train' ? 0.5 : undefined)],
  ]),
];

// WebAssembly against native Glint (issue 34): single-thread wasm against
// native on one thread (the SIMD ratio: SIMD128 has 4 lanes and, unrelaxed, no
// FMA), and each threads build against its single-thread build.
const wasmRatios = [
  ['wasm', 'native-1t', (m, t) => 0.4],
  ['wasm-relaxed', 'native-1t', (m, t) => 0.4],
  ['wasm-relaxed', 'wasm', () => undefined],
  ['wasm-mt', 'wasm', (m, t) => (t === 'train' ? (m === 'mlp' ? 1.3 : 1.6) : 1)],
  ['wasm-mt-relaxed', 'wasm-relaxed', (m, t) => (t === 'train' ? (m === 'mlp' ? 1.3 : 1.6) : 1)],
];
const wasmTable = [];
for (const m of models) {
  for (const task of ['train', 'predict']) {
    for (const [platform, peer, target] of wasmRatios) {
      const g = find('glint', platform, 'cpu', m, task)[0], p = find('glint', peer, 'cpu', m, task)[0];
      if (!g || !p) continue;
      const value = (r) => (task === 'train' ? r.steps_per_s : r.latency_us);
      const ratio = task === 'train' ? value(g) / value(p) : value(p) / value(g);
      const want = target(m, task);
      wasmTable.push([m, task, platform, peer, fmt(value(g)), fmt(value(p)), task === 'train' ? 'steps/s' : 'us',
                      `${ratio.toFixed(2)}x`, want === undefined ? '' : `>= ${want}x`,
                      want === undefined ? '' : ratio >= want ? 'met' : 'MISSED']);
    }
  }
}

const results = [];
const table = [];
for (const m of models) {
  for (const task of ['train', 'predict']) {
    for (const [platform, peerLabel, lookup, target] of comparisons) {
      const g = find('glint', platform, null, m, task)[0];
      const p = lookup(m, task);
      if (!g || !p) continue;
      const value = (r) => (task === 'train' ? r.steps_per_s : r.latency_us);
      const unit = task === 'train' ? 'steps/s' : 'us';
      const peer = peerLabel === 'pytorch' ? `pytorch-${p.backend}` : peerLabel;
      const supported = !p.unsupported;
      const ratio = supported ? (task === 'train' ? value(g) / value(p) : value(p) / value(g)) : null;
      results.push({model: m, task, glint_backend: `${platform}-${g.backend}`, peer,
                    glint: value(g), peer_value: supported ? value(p) : null, unit, ratio});
      table.push([m, task, `${platform}-${g.backend}`, peer, fmt(value(g)),
                  supported ? fmt(value(p)) : 'not supported', unit,
                  ratio === null ? 'n/a' : `${ratio.toFixed(2)}x`,
                  target(m, task) === undefined ? '' : `>= ${target(m, task)}x`,
                  ratio === null || target(m, task) === undefined ? '' :
                    (ratio >= target(m, task) ? 'met' : 'MISSED')]);
    }
  }
}

function fmt(v) {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function printTable(header, body) {
  const w = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(w[i])).join('  ').trimEnd();
  console.log(line(header));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of body) console.log(line(r));
}

console.log(`\nGlint model benchmarks vs peers (batch 64, Adam 1e-3; ratio > 1: Glint is better;` +
            ` train = steps/s ratio, predict = one-sample latency peer/glint)`);
printTable(['model', 'task', 'glint', 'peer', 'glint', 'peer', 'unit', 'ratio', 'target', ''], table);
if (wasmTable.length) {
  console.log(`\nGlint WebAssembly vs Glint (ratio > 1: the first is better${rounds > 1 ? `; medians of ${rounds} rounds` : ''})`);
  printTable(['model', 'task', 'glint', 'vs', 'glint', 'vs', 'unit', 'ratio', 'target', ''], wasmTable);
}

const mem = [];
for (const r of rows.filter((x) => x.task === 'memory')) {
  const mb = (b) => (b === undefined ? '' : (b / 2 ** 20).toFixed(1));
  mem.push([r.model, `${r.runner} ${r.platform}-${r.backend}`, mb(r.model_peak_bytes), mb(r.process_peak_bytes)]);
}
console.log('\nPeak memory (MiB): tensors live between steps (model + batches + optimizer state), process peak RSS (wasm: heap size)');
printTable(['model', 'runner', 'tensors', 'process'], mem);

const pyCfg = rows.filter((r) => r.runner === 'pytorch' && r.task === 'train')
  .map((r) => `${r.model} ${r.backend} ${fmt(r.steps_per_s)}`).join(', ');
if (pyCfg) console.log(`\nPyTorch train steps/s per thread count (best is used): ${pyCfg}`);
const blas = [...new Set(rows.filter((r) => r.runner === 'pytorch').map((r) => r.blas))];
if (blas.length && !(blas.length === 1 && blas[0] === 'openblas')) notes.push(`PyTorch BLAS: ${blas.join(', ')} (not OpenBLAS: its figures are far too low)`);
console.log(`Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, on ${os.cpus().length} cores`);
for (const n of notes) console.log(`note: ${n}`);

fs.mkdirSync(o.out, {recursive: true});
fs.writeFileSync(path.join(o.out, 'results.json'), JSON.stringify(results, null, 1) + '\n');
fs.writeFileSync(path.join(o.out, 'raw.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(`Wrote ${path.join(o.out, 'results.json')} (${results.length} rows) and raw.jsonl`);
