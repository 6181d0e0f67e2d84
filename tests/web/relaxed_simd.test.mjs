// The relaxed-SIMD builds (glint-*-relaxed.wasm): scripts/wasm_relaxed_simd.mjs
// rewrites exactly the opcodes it should, and the relaxed build computes what
// the plain build computes. node 20 runs relaxed SIMD only behind
// --experimental-wasm-relaxed-simd, so each build runs in a child process.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {patchRelaxedSimd} from '../../scripts/wasm_relaxed_simd.mjs';
import {relaxedSimdUsable} from '../../web/package/src/module.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');

// ---- the opcode rewrite -----------------------------------------------------

const leb = (n) => {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};

/** A module with one function () -> v128 whose body is `code` (then end). */
function moduleWith(code) {
  const body = [0x00, ...code, 0x0b];
  const entry = [...leb(body.length), ...body];
  const codeSection = [0x01, ...entry];
  return Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
    0x03, 0x02, 0x01, 0x00,
    0x0a, ...leb(codeSection.length), ...codeSection]);
}

const zero = [0xfd, 0x0c, ...new Array(16).fill(0)];
const PROTO_FMA = [0xfd, 0xaf, 0x01];

test('the prototype f32x4.fma becomes f32x4.relaxed_madd', () => {
  const bytes = moduleWith([...zero, ...zero, ...zero, ...PROTO_FMA]);
  assert.equal(patchRelaxedSimd(bytes), 1);
  const at = bytes.length - 4;
  assert.deepEqual([...bytes.subarray(at, at + 3)], [0xfd, 0x85, 0x02]);
});

test('the same bytes inside an immediate stay as they are', () => {
  // v128.const whose 16 bytes hold fd af 01, then a real fma.
  const constant = [0xfd, 0x0c, 0xfd, 0xaf, 0x01, ...new Array(13).fill(0)];
  const bytes = moduleWith([...constant, ...zero, ...zero, ...PROTO_FMA]);
  const before = Buffer.from(bytes);
  assert.equal(patchRelaxedSimd(bytes), 1);
  assert.deepEqual([...bytes.subarray(0, bytes.length - 4)], [...before.subarray(0, before.length - 4)]);
});

test('another prototype relaxed opcode is refused, not passed through', () => {
  const laneselect = [0xfd, 0xb2, 0x01];
  assert.throws(() => patchRelaxedSimd(moduleWith([...zero, ...zero, ...zero, ...laneselect])),
                /prototype relaxed SIMD opcode 0xb2/);
});

test('an opcode the decoder does not know stops it', () => {
  assert.throws(() => patchRelaxedSimd(moduleWith([0xd5])), /unknown opcode 0xd5/);
});

test('the built modules decode whole (every instruction known)', () => {
  for (const name of ['glint-st.wasm', 'glint-st-relaxed.wasm']) {
    const file = path.join(repo, 'web/package/dist', name);
    // The relaxed file was patched by the build: nothing is left to rewrite.
    assert.equal(patchRelaxedSimd(fs.readFileSync(file)), 0, name);
  }
});

// ---- the relaxed build against the plain one ---------------------------------

const CHILD = `
import * as glint from ${JSON.stringify(path.join(repo, 'web/package/src/index.js'))};
await glint.ready({relaxedSimd: process.argv[1] === 'relaxed'});
glint.setSeed(11);
const r = (shape) => glint.randomNormal(shape, 0, 1, 'float32', 7 + shape.length);
const out = {};
const take = async (name, t) => { out[name] = Array.from(await t.data()); };
const a = r([37, 65]), b = r([65, 50]);
await take('matMul', glint.matMul(a, b));
await take('matMulT', glint.matMul(a, r([50, 65]), false, true));
await take('matMulTA', glint.matMul(r([65, 37]), b, true, false));
await take('batchMatMul', glint.matMul(r([3, 64, 128]), r([3, 128, 96])));
await take('fused', glint.fused.matMul({a, b, bias: r([50]), activation: 'relu'}));
const x = r([2, 13, 11, 5]), f = r([3, 3, 5, 7]);
await take('conv2d', glint.conv2d(x, f, 1, 'same'));
await take('conv2dStrided', glint.conv2d(x, f, 2, 'valid'));
const [dx, df] = glint.grads((xx, ff) => glint.conv2d(xx, ff, 1, 'same').square().sum())([x, f]);
await take('conv2dGradX', dx);
await take('conv2dGradF', df);
console.log(JSON.stringify({build: glint.backendInfo().build, out}));
`;

function run(which) {
  const r = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', CHILD,
    which], {encoding: 'utf8', cwd: repo, maxBuffer: 64 << 20});
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('the relaxed build computes what the plain build computes', () => {
  const plain = run('plain'), relaxed = run('relaxed');
  assert.equal(plain.build.relaxedSimd, false);
  assert.equal(relaxed.build.relaxedSimd, true);
  assert.match(relaxed.build.wasmFrom, /glint-st-relaxed\.wasm$/);
  for (const [name, want] of Object.entries(plain.out)) {
    const got = relaxed.out[name];
    assert.equal(got.length, want.length, name);
    let scale = 0, worst = 0;
    for (const v of want) scale = Math.max(scale, Math.abs(v));
    for (let i = 0; i < want.length; ++i) worst = Math.max(worst, Math.abs(got[i] - want[i]));
    // One rounding instead of two per multiply-add: float32 noise, no more.
    assert.ok(worst <= 1e-5 * scale, `${name}: off by ${worst} (largest value ${scale})`);
    assert.ok(scale > 0, `${name}: all zeros`);
  }
});

// Skipped on a node that runs relaxed SIMD without a flag (node 20 needs one):
// there the engine lacks nothing to test against.
test('where the engine lacks relaxed SIMD: auto says why, true is an error naming it',
     {skip: relaxedSimdUsable() && 'this node runs relaxed SIMD without a flag'}, () => {
  const script = `
import * as glint from ${JSON.stringify(path.join(repo, 'web/package/src/index.js'))};
const want = process.argv[1] === 'true' ? true : 'auto';
try {
  await glint.ready({relaxedSimd: want});
  console.log(JSON.stringify(glint.backendInfo().build));
} catch (e) {
  console.log(JSON.stringify({error: e.message}));
}`;
  const child = (want) => {
    // No --experimental-wasm-relaxed-simd: node 20 refuses relaxed SIMD.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, want],
                        {encoding: 'utf8', cwd: repo});
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  const auto = child('auto');
  assert.equal(auto.relaxedSimd, false);
  assert.match(auto.relaxedSimdWhy, /does not run relaxed SIMD/);
  assert.match(auto.wasmFrom, /glint-st\.wasm$/);
  assert.match(child('true').error, /relaxedSimd: true, but this engine does not run relaxed SIMD/);
});
