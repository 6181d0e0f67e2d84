#!/usr/bin/env node
// Runs Glint's WebAssembly test binary (build/wasm/glint_tests_web.js) in
// Debian's headless Chromium, driven by playwright-core (never a downloaded
// browser), served by tools/serve.mjs with COOP/COEP:
//   gl    the suite with the gl backend on WebGL2 (ANGLE on SwiftShader here):
//         the op table runs on gl, GlBackend.* and BrowserEnv.* must pass, and
//         backendInfo must name the renderer (--renderer, default SwiftShader);
//   wasm  the suite as node runs it, in a Chromium without WebGL (no GPU, no
//         software fallback): gl's probe fails with a reason, cpu runs all.
//   gl-worker  the gl backend's own tests again, from a dedicated Web Worker
//         (WebGL2 through OffscreenCanvas).
//   webgpu the webgpu backend's own tests (WebGPU on SwiftShader's Vulkan):
//         Chromium's synchronous reads, device loss, the standard models
//         training; WebGpu* tests must pass. With --full, the whole suite: the
//         op table on webgpu (7 minutes on 2 cores, make soak). make test
//         runs that table on webgpu in node through Dawn instead, twice
//         (tests/web/webgpu_optable.test.mjs): same kernels, same printer.
// Usage: node tests/browser/run.mjs [--only gl|gl-worker|wasm|webgpu] [--filter GTEST_FILTER]
//        [--renderer TEXT|''] [--bin URL] [--timeout SECONDS] [--shards N] [--full] [--verbose]
// --shards N (default: 2 where the machine has 2 cores or more) splits the gl
// run into N googletest shards, each a page in its own Chromium, side by side:
// that page keeps one core busy (ANGLE on SwiftShader compiling and running
// the gl kernels). The webgpu run already keeps two busy and is not split.
// Exits non-zero on any failure; the last line is "N passed, N failed".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../tools/serve.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// DESIGN.md "Facts about this toolchain": what works with Debian's Chromium
// here. Playwright adds --headless and manages --user-data-dir itself.
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader',
];

export const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--use-angle=swiftshader', '--enable-features=Vulkan',
                             '--use-webgpu-adapter=swiftshader', '--use-vulkan=swiftshader'];

/// A headless Chromium with a fresh profile in a temp dir; close() removes it.
export async function launchChromium(extraFlags = []) {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/bootstrap.sh (Debian's chromium)`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, ...extraFlags],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const DEFAULT_FILTER = '-IoInterop.*:GraphInterop.*:GraphModels.*';  // as make test-wasm (these need files from node)

// Each page runs the whole suite; the limit catches a hang, not slowness. The
// webgpu page (every kernel on SwiftShader, a CPU) took 526 s of the old 600
// on the 2-core machine (2026-12-06), too close for a slower CI machine.
function parseArgs(argv) {
  const o = { only: null, filter: DEFAULT_FILTER, renderer: 'SwiftShader', timeout: 900,
              bin: '/build/wasm/glint_tests_web.js', verbose: false,
              shards: Math.max(1, Math.min(2, os.availableParallelism())), full: false };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const v = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    if (a === '--only') o.only = v();
    else if (a === '--filter') o.filter = v();
    else if (a === '--renderer') o.renderer = v();
    else if (a === '--bin') o.bin = v();
    else if (a === '--timeout') o.timeout = Number(v());
    else if (a === '--shards') o.shards = Number(v());
    else if (a === '--full') o.full = true;
    else if (a === '--verbose') o.verbose = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!(Number.isInteger(o.shards) && o.shards >= 1)) throw new Error(`--shards wants a whole number >= 1, got ${o.shards}`);
  if (o.only && !['gl', 'gl-worker', 'wasm', 'webgpu'].includes(o.only))
    throw new Error(`--only gl|gl-worker|wasm|webgpu, got ${o.only}`);
  return o;
}

/// One page load of the test binary; resolves to the page's window.__result
/// plus every output line.
async function runPage(context, baseUrl, run, opts) {
  const q = new URLSearchParams({ filter: run.filter, bin: opts.bin });
  if (run.worker) q.set('worker', '1');
  if (run.webgpu) q.set('webgpu', '1');
  for (const [k, v] of Object.entries(run.env)) q.append('env', `${k}=${v}`);
  const page = await context.newPage();
  const lines = [], browserLines = [];
  page.on('console', (msg) => {
    const t = msg.text();
    if (!t.startsWith('[glint] ')) {
      // Chromium's own console lines (WebGL errors and warnings, crashes).
      if (!t.startsWith('[glint-result] ')) browserLines.push(`${msg.type()}: ${t}`);
      if (opts.verbose && !t.startsWith('[glint-result] ')) console.log(`  ${run.name}| console ${msg.type()}: ${t}`);
      return;
    }
    const line = t.slice(8);
    lines.push(line);
    if (opts.verbose) console.log(`  ${run.name}| ${line}`);
  });
  page.on('pageerror', (e) => console.log(`  ${run.name}| page error: ${e.message}`));
  const crashed = new Promise((resolve, reject) => {
    page.on('crash', () => reject(new Error('the page crashed (renderer out of memory?)')));
  });
  crashed.catch(() => {});  // a crash after the result is no longer anyone's concern
  const t0 = Date.now();
  let result;
  try {
    await page.goto(`${baseUrl}/tests/browser/run_tests.html?${q}`);
    await Promise.race([crashed, page.waitForFunction(() => window.__result !== undefined, null,
                                                      { timeout: opts.timeout * 1000, polling: 500 })]);
    result = await page.evaluate(() => window.__result);
  } catch (e) {
    result = { exitCode: 1, error: `no result: ${e.message.split('\n')[0]}`, passed: 0, failed: 1,
               skipped: 0, ran: 0, okTests: [], failedTests: [] };
  }
  result.seconds = (Date.now() - t0) / 1000;
  result.lines = lines;
  result.browserLines = browserLines;
  await page.close().catch(() => {});
  return result;
}

/// The output of one failed test: its lines between RUN and FAILED (at most 40).
function failureBlock(lines, test) {
  const start = lines.indexOf(`[ RUN      ] ${test}`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.startsWith(`[  FAILED  ] ${test}`));
  return lines.slice(start + 1, end < 0 ? start + 41 : Math.min(end, start + 41));
}

/// What a run must show beyond "no test failed".
function checkRun(run, r, opts) {
  const problems = [];
  if (r.error) problems.push(r.error);
  if (r.ran === 0) problems.push('no test ran');
  if (!r.crossOriginIsolated) problems.push('the page was not crossOriginIsolated (COOP/COEP)');
  const backends = r.lines.filter((l) => l.startsWith('[backend] '));
  const glLine = backends.find((l) => l.startsWith('[backend] gl '));
  const gpuLine = backends.find((l) => l.startsWith('[backend] webgpu '));
  if (run.kind === 'webgpu') {
    const opOnGpu = r.okTests.filter((t) => /OpTest/.test(t));
    const gpuOk = r.okTests.filter((t) => t.startsWith('WebGpu'));
    if (gpuOk.length < run.minGpuTests)
      problems.push(`only ${gpuOk.length} WebGpu* tests passed (want >= ${run.minGpuTests})`);
    if (!gpuLine || !/available=1/.test(gpuLine)) problems.push(`webgpu not available: ${gpuLine || 'no [backend] webgpu line'}`);
    const gpuErrors = r.browserLines.filter((l) => /WGSL error|GPUValidationError|webgpu: /i.test(l));
    for (const l of [...new Set(gpuErrors)].slice(0, 5)) problems.push(`Chromium reported: ${l.slice(0, 400)}`);
    if (opOnGpu.length < (run.minOpTests ?? 0))
      problems.push(`only ${opOnGpu.length} op-table tests passed (want >= ${run.minOpTests})`);
    r.summary = `${gpuOk.length} WebGpu* tests, ${opOnGpu.length} op-table tests (each on webgpu too)`;
    if (gpuLine) r.glLine = gpuLine.replace(/^\[backend\] /, '');
    return problems;
  }
  if (run.kind === 'gl') {
    const glOk = r.okTests.filter((t) => t.startsWith('GlBackend.'));
    const opOnGl = r.okTests.filter((t) => /OpTest/.test(t));
    // With the whole suite, the GlBackend tests must have run, not skipped.
    if (glOk.length < run.minGlTests)
      problems.push(`only ${glOk.length} GlBackend tests passed (want >= ${run.minGlTests})`);
    // GL errors Chromium reports, whatever the tests saw.
    const glErrors = r.browserLines.filter((l) => /WebGL: INVALID_|GL_INVALID_/.test(l));
    for (const l of [...new Set(glErrors)].slice(0, 5)) problems.push(`Chromium reported: ${l}`);
    if (!r.okTests.includes('BrowserEnv.GlComputesOnThePage')) problems.push('BrowserEnv.GlComputesOnThePage did not pass');
    if (!glLine || !/available=1/.test(glLine)) problems.push(`gl not available: ${glLine || 'no [backend] gl line'}`);
    else if (opts.renderer && !glLine.includes(opts.renderer))
      problems.push(`backendInfo does not name ${opts.renderer}: ${glLine}`);
    if (opOnGl.length < (run.minOpTests ?? 0))
      problems.push(`only ${opOnGl.length} op-table tests passed (want >= ${run.minOpTests})`);
    r.summary = `${glOk.length} GlBackend tests, ${opOnGl.length} op-table tests (each on gl too)`;
  } else {
    if (!glLine || /available=1/.test(glLine) || !/WebGL/.test(glLine))
      problems.push(`gl must be registered and refused for want of WebGL: ${glLine || 'no [backend] gl line'}`);
    r.summary = 'cpu + reference, gl refused';
  }
  if (glLine) r.glLine = glLine.replace(/^\[backend\] /, '');
  return problems;
}

/// One run in its own Chromium, or (run.split, --shards N) as N googletest
/// shards in N Chromiums side by side; the shards' results are merged.
async function runSharded(run, baseUrl, opts) {
  const shards = run.split ? opts.shards : 1;
  const one = async (index) => {
    const env = shards > 1 ? { ...run.env, GTEST_TOTAL_SHARDS: shards, GTEST_SHARD_INDEX: index } : run.env;
    const browser = await launchChromium(run.flags);
    try {
      return await runPage(browser.context, baseUrl, { ...run, env }, opts);
    } finally {
      await browser.close();
    }
  };
  const parts = await Promise.all(Array.from({ length: shards }, (_, i) => one(i)));
  if (shards === 1) return parts[0];
  const sum = (k) => parts.reduce((n, p) => n + p[k], 0);
  const cat = (k) => parts.flatMap((p) => p[k]);
  const failedPart = parts.find((p) => p.exitCode !== 0);
  return {
    ...parts[0],
    exitCode: failedPart ? failedPart.exitCode : 0,
    error: parts.map((p, i) => (p.error ? `shard ${i + 1}/${shards}: ${p.error}` : '')).filter(Boolean).join('; '),
    passed: sum('passed'), failed: sum('failed'), skipped: sum('skipped'), ran: sum('ran'),
    okTests: cat('okTests'), failedTests: cat('failedTests'), lines: cat('lines'), browserLines: cat('browserLines'),
    crossOriginIsolated: parts.every((p) => p.crossOriginIsolated),
    seconds: Math.max(...parts.map((p) => p.seconds)),
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const binFile = path.join(repo, opts.bin.replace(/^\//, ''));
  if (!fs.existsSync(binFile))
    throw new Error(`${binFile} is missing: cmake --build --preset wasm --target glint_tests_web`);
  // BrowserEnv.* always runs: it prints backendInfo, which checkRun reads.
  const dash = opts.filter.indexOf('-');
  const positive = dash < 0 ? opts.filter : opts.filter.slice(0, dash);
  const filter = `${positive || '*'}:BrowserEnv.*${dash < 0 ? '' : opts.filter.slice(dash)}`;
  const glEnv = { GLINT_EXPECT_GL: '1', ...(opts.renderer ? { GLINT_EXPECT_RENDERER: opts.renderer } : {}) };
  const whole = opts.filter === DEFAULT_FILTER;
  const runs = [
    { name: 'gl', kind: 'gl', filter, flags: [], env: glEnv, minGlTests: whole ? 8 : 0,
      minOpTests: whole ? 600 : 0, split: true },
    // The gl backend's own tests once more from a dedicated worker, where its
    // context comes from an OffscreenCanvas (the glint.worker() setting).
    { name: 'gl-worker', kind: 'gl', worker: true, flags: [], env: glEnv, minGlTests: whole ? 8 : 0,
      filter: whole ? 'GlBackend.*:BrowserEnv.*' : filter },
    // WebGPU on SwiftShader's Vulkan. --use-vulkan=swiftshader: without it this
    // Chromium loses the device as soon as a WebGPU canvas is configured
    // (the backend's synchronous read goes through one).
    // GLINT_GL=0: the gl run above covers gl; with --full the op table runs on webgpu, cpu, reference.
    { name: 'webgpu', kind: 'webgpu', webgpu: true, env: { GLINT_EXPECT_WEBGPU: '1', GLINT_GL: '0' },
      filter: whole && !opts.full ? 'WebGpu*:BrowserEnv.*' : filter, flags: WEBGPU_FLAGS, minGpuTests: whole ? 8 : 0,
      minOpTests: whole && opts.full ? 600 : 0 },
    // No GPU and no software fallback: WebGL is gone (--disable-3d-apis would
    // leave OffscreenCanvas's WebGL on in this Chromium).
    { name: 'wasm', kind: 'wasm', filter, env: {}, flags: ['--disable-gpu', '--disable-software-rasterizer'] },
  ].filter((r) => !opts.only || r.name === opts.only);

  const server = await serve({ root: repo });
  let passed = 0, failed = 0;
  try {
    for (const run of runs) {
      const env = Object.entries(run.env).map(([k, v]) => `${k}=${v}`).join(' ');
      console.log(`browser ${run.name}: ${opts.bin} --gtest_filter=${run.filter}` +
                  `${env ? ' ' + env : ''}${run.flags.length ? ' chromium ' + run.flags.join(' ') : ''}`);
      const r = await runSharded(run, server.url, opts);
      const problems = checkRun(run, r, opts);
      if (r.glLine) console.log(`  ${run.name}| gl: ${r.glLine}`);
      for (const t of r.failedTests) {
        console.log(`  ${run.name}| FAILED ${t}`);
        if (!opts.verbose) for (const l of failureBlock(r.lines, t)) console.log(`  ${run.name}|   ${l}`);
      }
      for (const p of problems) console.log(`  ${run.name}| PROBLEM ${p}`);
      passed += r.passed;
      failed += r.failed + (problems.length && !r.failed ? 1 : 0);
      console.log(`browser ${run.name}: exit ${r.exitCode}, ${r.passed} passed, ${r.failed} failed, ` +
                  `${r.skipped} skipped; ${r.summary}; ${r.seconds.toFixed(1)} s`);
    }
  } finally {
    await server.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(`tests/browser/run.mjs: ${e.message}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
  });
}
