#!/usr/bin/env node
// glint-ml as web developers install it (issue 32): the packed tarball
// (make web: build/web/glint-ml-*.tgz) goes into a fresh copy of one small app
// (tests/bundlers/app) the way npm would put it, and each bundler builds it with
// the configuration a user would write first:
//   vite     `vite build`, no config; and the dev server
//   webpack  `webpack --mode production`, no config
//   esbuild  `esbuild ... --bundle --format=esm --outdir=dist`
//   rollup   a rollup.config.mjs with @rollup/plugin-node-resolve only
//   cdn      no bundler: dist/glint.mjs from another origin (CORS), the app's
//            modules unbundled, importing it by URL
// Each app is served plain and cross-origin isolated (COOP/COEP) and opened in
// headless Chromium; it learns y = 2x - 1 on the main thread, in glint.worker()
// and in its own worker, and must predict y(10) = 19 within 0.1 in all three.
// Isolated pages must run the threads build, or say in backendInfo().build why
// they fell back. The tarball's contents are checked first.
// Usage: node tests/bundlers/run.mjs [--only vite,webpack,esbuild,rollup,cdn,vite-dev] [--keep]
// Last line: "N passed, N failed".
import {execFileSync, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {serve} from '../../tools/serve.mjs';
import {check, repo, runMain} from '../browser/harness.mjs';
import {launchChromium} from '../browser/run.mjs';

const APP = path.join(repo, 'tests/bundlers/app');
const WORK = path.join(repo, 'build/bundlers');
const BIN = path.join(repo, 'node_modules/.bin');
const ALL = ['vite', 'webpack', 'esbuild', 'rollup', 'cdn', 'vite-dev'];
const TIMEOUT_MS = 240000;

function parseArgs(argv) {
  const o = {only: ALL, keep: false};
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--only') o.only = argv[++i].split(',');
    else if (argv[i] === '--keep') o.keep = true;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return o;
}

function tarball() {
  const dir = path.join(repo, 'build/web');
  const found = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^glint-ml-.*\.tgz$/.test(f)) : [];
  if (found.length !== 1) throw new Error(`expected one build/web/glint-ml-*.tgz (make web), found ${found.length}`);
  return path.join(dir, found[0]);
}

// ---- The tarball -------------------------------------------------------------------------------

function checkTarball(tgz) {
  const list = execFileSync('tar', ['tzf', tgz], {encoding: 'utf8'}).split('\n').filter(Boolean);
  const need = ['dist/glint-st.mjs', 'dist/glint-st.wasm', 'dist/glint-st.wasm.mjs', 'dist/glint-mt.mjs',
    'dist/glint-mt.wasm', 'dist/glint-st-relaxed.wasm', 'dist/glint-mt-relaxed.wasm',
    'dist/glint-mt.worker.js.mjs', 'dist/glint.mjs', 'dist/glint-lazy.mjs', 'dist/worker_main.js',
    'index.d.ts', 'worker.d.ts', 'package.json', 'src/index.js', 'src/index.browser.js', 'src/index.node.js'];
  const missing = need.filter((f) => !list.includes('package/' + f));
  check('tarball: both builds, the CDN bundle, types for every entry', missing.length === 0,
        `missing ${missing.join(', ')}`);
  const tmp = fs.mkdtempSync(path.join(WORK, 'pack-'));
  execFileSync('tar', ['xzf', tgz, '-C', tmp]);
  const pkgDir = path.join(tmp, 'package');
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const exp = pkg.exports ?? {};
  check('exports: node, browser, default and types conditions; ./dist/* and ./package.json',
        exp['.']?.node && exp['.']?.browser && exp['.']?.default && exp['.']?.types &&
        exp['./worker']?.types && exp['./dist/*'] && exp['./package.json'], JSON.stringify(exp));
  check('sideEffects lists the modules with effects (not false)',
        Array.isArray(pkg.sideEffects) && pkg.sideEffects.includes('./src/ops.js'),
        JSON.stringify(pkg.sideEffects));
  // Nothing of this machine in what users download: its paths, home, temp folders.
  const leaks = [];
  for (const f of list) {
    const file = path.join(tmp, f);
    if (/\.wasm$/.test(f)) continue;
    const text = fs.readFileSync(file, 'latin1');
    // (/home/web_user is Emscripten's in-memory file system, not this machine.)
    for (const p of [repo, '/tmp/', '/root/', /\/home\/(?!web_user)/, '/usr/share/emscripten']) {
      if (typeof p === 'string' ? text.includes(p) : p.test(text)) leaks.push(`${f}: ${p}`);
    }
  }
  check('no absolute build paths in the package', leaks.length === 0, leaks.slice(0, 5).join('; '));
  // No node:* import may reach a browser bundle: the browser entry's import graph.
  const nodeImports = [];
  for (const f of fs.readdirSync(path.join(pkgDir, 'src'))) {
    if (f === 'node_platform.js' || f === 'index.node.js') continue;
    if (/from ['"]node:|import\(['"]node:/.test(fs.readFileSync(path.join(pkgDir, 'src', f), 'utf8'))) {
      nodeImports.push(f);
    }
  }
  check('no node:* import outside the node entry', nodeImports.length === 0, nodeImports.join(', '));
  fs.rmSync(tmp, {recursive: true, force: true});
}

// ---- Building each app -------------------------------------------------------------------------

/** A fresh app folder with the tarball installed as npm would: node_modules/glint-ml. */
function freshApp(name, tgz) {
  const dir = path.join(WORK, name);
  fs.rmSync(dir, {recursive: true, force: true});
  fs.cpSync(APP, dir, {recursive: true});
  const mod = path.join(dir, 'node_modules/glint-ml');
  fs.mkdirSync(mod, {recursive: true});
  execFileSync('tar', ['xzf', tgz, '-C', mod, '--strip-components=1']);
  return dir;
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, {cwd, encoding: 'utf8', env: {...process.env, NODE_PATH: ''}});
  const out = (r.stdout ?? '') + (r.stderr ?? '');
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status}):\n${out}`);
  return out;
}

/** The page webpack, esbuild and rollup users write by hand beside their bundle. */
function writePage(dist, script, {module = true} = {}) {
  fs.writeFileSync(path.join(dist, 'index.html'), fs.readFileSync(path.join(APP, 'index.html'), 'utf8')
      .replace(/<script type="module" src="[^"]*"><\/script>/,
               `<script${module ? ' type="module"' : ''} src="./${script}"></script>`));
}

const BUILDERS = {
  vite(dir) {
    const out = run(path.join(BIN, 'vite'), ['build', '--logLevel', 'warn'], dir);
    return {dist: path.join(dir, 'dist'), log: out};
  },
  webpack(dir) {
    const out = run(path.join(BIN, 'webpack'), ['--mode', 'production'], dir);
    writePage(path.join(dir, 'dist'), 'main.js', {module: false});
    return {dist: path.join(dir, 'dist'), log: out};
  },
  esbuild(dir) {
    // The page's module and the app's worker are entry points, as esbuild users
    // write them; glint.worker() needs its own (docs/BUNDLERS.md).
    const out = run(path.join(BIN, 'esbuild'), ['src/index.js', 'src/own_worker.js', 'worker_main=glint-ml/worker',
                                               '--bundle', '--format=esm', '--outdir=dist',
                                               '--log-level=warning'], dir);
    writePage(path.join(dir, 'dist'), 'index.js');
    return {dist: path.join(dir, 'dist'), log: out};
  },
  rollup(dir) {
    fs.writeFileSync(path.join(dir, 'rollup.config.mjs'), `import {nodeResolve} from '@rollup/plugin-node-resolve';
export default {
  input: {index: 'src/index.js', own_worker: 'src/own_worker.js', worker_main: 'glint-ml/worker'},
  output: {dir: 'dist', format: 'es'},
  plugins: [nodeResolve()],
};
`);
    fs.symlinkSync(path.join(repo, 'node_modules/@rollup'), path.join(dir, 'node_modules/@rollup'));
    const out = run(path.join(BIN, 'rollup'), ['-c', '--silent'], dir);
    writePage(path.join(dir, 'dist'), 'index.js');
    return {dist: path.join(dir, 'dist'), log: out};
  },
};

// ---- Opening a page ----------------------------------------------------------------------------

async function openApp(context, url) {
  const page = await context.newPage();
  const errors = [];
  const warnings = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(url);
  let result = null;
  try {
    await page.waitForFunction(() => window.appResult, null, {timeout: TIMEOUT_MS});
    result = await page.evaluate(() => window.appResult);
  } catch (e) {
    errors.push(`no result within ${TIMEOUT_MS / 1000} s: ${await page.textContent('#out').catch(() => '?')}`);
  }
  await page.close();
  return {result, errors, warnings};
}

/** The checks for one app at one URL. expectThreads: null (plain page) | true | 'fallback'. */
function checkApp(label, {result, errors, warnings}, {isolated, threads}) {
  const r = result ?? {};
  for (const part of ['main', 'glintWorker', 'ownWorker']) {
    const p = r[part] ?? {};
    check(`${label}: ${part} learns y = 2x - 1`, p.ok === true,
          p.error ?? (p.y !== undefined ? `y(10) = ${p.y}` : 'no result'));
  }
  check(`${label}: page is ${isolated ? '' : 'not '}cross-origin isolated`,
        r.crossOriginIsolated === isolated);
  const main = r.main ?? {};
  if (isolated && threads === true) {
    check(`${label}: the threads build runs`, main.threads === true,
          `${main.build}: ${main.fallback ?? ''}`);
  } else if (isolated) {
    check(`${label}: the threads build is not reachable, the single-thread one runs and says why`,
          main.threads === false && typeof main.fallback === 'string' && main.fallback.length > 0,
          `${main.build}: ${main.fallback}`);
  } else {
    check(`${label}: the single-thread build runs`, main.threads === false && !main.fallback,
          `${main.build}: ${main.fallback}`);
  }
  // Where the bundle carries the wasm, the tries for the files beside it
  // (the relaxed-SIMD build first) 404: expected, and explained by the warning
  // checked below and by build.relaxedSimdWhy.
  let unexplained = errors;
  if (r.main?.wasmFrom === 'embedded') {
    const beside = /^404 .*\/glint-(st|mt)(-relaxed)?\.wasm$/;
    let generic = errors.filter((e) => beside.test(e)).length;
    unexplained = errors.filter((e) => !beside.test(e) &&
        !(/^Failed to load resource: .* 404/.test(e) && generic-- > 0));
  }
  check(`${label}: no errors in the console or the network`, unexplained.length === 0,
        unexplained.slice(0, 4).join(' | '));
  // This Chromium's WebGL is SwiftShader: no WebGPU adapter is asked for, so
  // none is missing out loud.
  check(`${label}: no "No available adapters." from a WebGPU probe`,
        !warnings.some((w) => /No available adapters/.test(w)));
  return {warnings, wasmFrom: main.wasmFrom};
}

async function testBuilt(context, name, dist, {threads, wasmFrom}) {
  for (const isolated of [false, true]) {
    const server = await serve({root: dist, port: 0, isolate: isolated});
    try {
      const got = await openApp(context, `${server.url}/index.html`);
      const {warnings} = checkApp(`${name} ${isolated ? 'isolated' : 'plain'}`, got,
                                  {isolated, threads: isolated ? threads : null});
      if (!isolated) {
        check(`${name}: the wasm comes from ${wasmFrom === 'file' ? 'its own file' : 'the JS bundle, with advice'}`,
              got.result?.main?.wasmFrom === wasmFrom &&
              (wasmFrom === 'file' || warnings.some((w) => /docs\/BUNDLERS\.md/.test(w))),
              `${got.result?.main?.wasmFrom}; warnings: ${warnings.slice(0, 2).join(' | ')}`);
      }
      // Chromium runs relaxed SIMD: a bundle that emits the engine's files
      // emits the relaxed twin too, and that is what runs.
      if (wasmFrom === 'file') {
        check(`${name} ${isolated ? 'isolated' : 'plain'}: the relaxed-SIMD build runs`,
              got.result?.main?.relaxedSimd === true,
              got.result ? `relaxedSimd ${got.result.main?.relaxedSimd}: ${got.result.main?.relaxedSimdWhy ?? ''}` : 'no result');
      }
    } finally {
      await server.close();
    }
  }
}

// The same app without a bundler: its modules as written, glint-ml imported by
// URL from another origin that serves the package as a CDN does.
async function testCdn(context, tgz) {
  const dir = freshApp('cdn', tgz);
  const cdn = await serve({root: path.join(dir, 'node_modules/glint-ml'), port: 0, isolate: false, cors: true});
  try {
    for (const f of ['src/index.js', 'src/task.js', 'src/own_worker.js']) {
      const file = path.join(dir, f);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8')
          .replaceAll(`from 'glint-ml'`, `from '${cdn.url}/dist/glint.mjs'`));
    }
    for (const isolated of [false, true]) {
      const server = await serve({root: dir, port: 0, isolate: isolated});
      try {
        const got = await openApp(context, `${server.url}/index.html`);
        checkApp(`cdn ${isolated ? 'isolated' : 'plain'}`, got, {isolated, threads: true});
      } finally {
        await server.close();
      }
    }
  } finally {
    await cdn.close();
  }
}

async function testViteDev(context, tgz) {
  const dir = freshApp('vite-dev', tgz);
  const {createServer} = await import(path.join(repo, 'node_modules/vite/dist/node/index.js'));
  for (const isolated of [false, true]) {
    const headers = isolated ? {'Cross-Origin-Opener-Policy': 'same-origin',
                                'Cross-Origin-Embedder-Policy': 'require-corp'} : {};
    const server = await createServer({root: dir, configFile: false, logLevel: 'error',
                                       cacheDir: path.join(dir, '.vite'),
                                       server: {port: 0, host: '127.0.0.1', strictPort: false, headers}});
    await server.listen();
    try {
      const url = server.resolvedUrls.local[0];
      const got = await openApp(context, `${url}index.html`);
      checkApp(`vite dev server ${isolated ? 'isolated' : 'plain'}`, got,
               {isolated, threads: isolated ? true : null});
    } finally {
      await server.close();
    }
  }
}

// A TypeScript app's view: the types reach it through the exports map.
function checkTypes(tgz) {
  const dir = freshApp('types', tgz);
  fs.writeFileSync(path.join(dir, 'app.mts'), `import * as tf from 'glint-ml';
import 'glint-ml/worker';
const info: tf.BackendInfo = tf.backendInfo();
const fallback: string | null = info.build.fallback;
export const model = tf.sequential({layers: [tf.layers.dense({units: 1, inputShape: [1]})]});
export {fallback};
`);
  for (const resolution of ['bundler', 'node16']) {
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--moduleResolution', resolution,
                  '--module', resolution === 'bundler' ? 'es2022' : 'node16', 'app.mts'];
    const r = spawnSync(path.join(BIN, 'tsc'), args, {cwd: dir, encoding: 'utf8'});
    check(`types: strict TypeScript finds them (moduleResolution ${resolution})`, r.status === 0,
          (r.stdout + r.stderr).slice(0, 800));
  }
  fs.rmSync(dir, {recursive: true, force: true});
}

runMain(async () => {
  const o = parseArgs(process.argv.slice(2));
  fs.mkdirSync(WORK, {recursive: true});
  const tgz = tarball();
  checkTarball(tgz);
  checkTypes(tgz);
  const browser = await launchChromium();
  try {
    for (const name of o.only) {
      if (name === 'cdn') {
        await testCdn(browser.context, tgz);
      } else if (name === 'vite-dev') {
        await testViteDev(browser.context, tgz);
      } else {
        const dir = freshApp(name, tgz);
        let built;
        try {
          built = BUILDERS[name](dir);
        } catch (e) {
          check(`${name}: production build`, false, e.message.slice(0, 2000));
          continue;
        }
        check(`${name}: production build`, true);
        // Nothing of the machine that built it in what the app ships.
        const leaked = fs.readdirSync(built.dist, {recursive: true})
            .filter((f) => !String(f).endsWith('.wasm') && fs.statSync(path.join(built.dist, f)).isFile())
            .filter((f) => fs.readFileSync(path.join(built.dist, f), 'latin1').includes(dir));
        check(`${name}: no absolute build path in the output`, leaked.length === 0, leaked.join(', '));
        // Vite and webpack emit `new URL(..., import.meta.url)` assets: every file,
        // threads too. esbuild and rollup copy none: the embedded wasm, one thread.
        const emits = name === 'vite' || name === 'webpack';
        await testBuilt(browser.context, name, built.dist,
                        {threads: emits ? true : 'fallback', wasmFrom: emits ? 'file' : 'embedded'});
      }
      if (!o.keep) fs.rmSync(path.join(WORK, name), {recursive: true, force: true});
    }
  } finally {
    await browser.close();
  }
});
