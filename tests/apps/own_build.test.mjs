// An app's own engine build (make web-apps; web/apps/APP/kernels.txt): it
// holds what the app's model needs, gives the same numbers as the package's
// full build, and refuses what it left out with an error that says why and
// how to get it. Each build runs in its own node process (the package loads
// one engine per process): tests/apps/run_build.mjs.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import {execFileSync} from 'node:child_process';
import {readKernelList} from '../../tools/kernels_for.mjs';

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
const digits = path.join(repo, 'web/apps/digits');
const own = path.join(digits, 'glint');
const model = path.join(digits, 'model/model.json');

function run(args) {
  const out = execFileSync(process.execPath, ['--no-experimental-fetch', path.join(repo, 'tests/apps/run_build.mjs'), ...args],
                           {cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
  return JSON.parse(out);
}

test('the digits build exists and is smaller than the full one', () => {
  for (const f of ['glint-st.mjs', 'glint-st.wasm', 'glint-st-relaxed.wasm', 'glint-mt.mjs', 'glint-mt.wasm',
                   'glint-mt-relaxed.wasm']) {
    assert.ok(fs.existsSync(path.join(own, f)), `${f} missing from web/apps/digits/glint (make web-apps)`);
  }
  const full = fs.statSync(path.join(repo, 'web/package/dist/glint-st.wasm')).size;
  const mine = fs.statSync(path.join(own, 'glint-st.wasm')).size;
  assert.ok(mine < 0.9 * full, `own build ${mine} bytes, full ${full}`);
});

test('the digits build predicts and trains as the full build does', () => {
  const a = run(['--model', model]);
  const b = run(['--model', model, '--wasm-path', own]);
  assert.deepEqual(b.kernels, readKernelList(path.join(digits, 'kernels.txt')).filter((k) => !k.startsWith('layer:')).sort(),
                   'the build registers exactly the listed kernels');
  assert.ok(a.kernels.length > 3 * b.kernels.length, `the full build has ${a.kernels.length} kernels`);
  assert.equal(a.probs.length, 20);
  for (let i = 0; i < a.probs.length; ++i) {
    assert.ok(Math.abs(a.probs[i] - b.probs[i]) <= 1e-5, `probability ${i}: full ${a.probs[i]}, own ${b.probs[i]}`);
  }
  for (let i = 0; i < a.losses.length; ++i) {
    assert.ok(Math.abs(a.losses[i] - b.losses[i]) <= 1e-4 * Math.max(1, Math.abs(a.losses[i])),
              `loss after step ${i}: full ${a.losses[i]}, own ${b.losses[i]}`);
  }
});

const blazeface = path.join(repo, 'node_modules/@vladmandic/human/models/blazeface.json');

test('the digits build names what it left out and how to get it', () => {
  const r = run(['--wasm-path', own, '--left-out', blazeface]);
  assert.match(r.kernel, /\[Sin\].*only the \d+ kernels listed in web\/apps\/digits\/kernels\.txt.*'Sin' is not one of them/);
  assert.match(r.layer, /layer class 'LSTM'.*not in this build.*web\/apps\/digits\/kernels\.txt.*layer:LSTM/);
  assert.match(r.graph, /graph models are not in this build.*web\/apps\/digits\/kernels\.txt.*feature:graph-models/);
  // The full build has all three.
  const full = run(['--left-out', blazeface]);
  assert.deepEqual([full.kernel, full.layer, full.graph], [null, null, null]);
});

test('a graph model\'s list says it needs graph models', async () => {
  const {kernelsFor} = await import('../../tools/kernels_for.mjs');
  const r = await kernelsFor([blazeface], {train: false});
  assert.ok(r.features.has('graph-models'));
  assert.ok(r.names.has('Conv2D') || r.names.has('_FusedConv2D'), [...r.names].join(', '));
});
