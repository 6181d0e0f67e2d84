// Runs every program in this folder on TF.js 4.22 (cpu backend) and on glint-ml
// (node, single-thread build) and compares what they return:
//   node tests/programs/run.mjs [name ...]
// A program exports run(tf) -> plain data; optionally `tolerance` (relative,
// default 1e-5), `loose` (keys whose values depend on each library's RNG, not
// compared) and check(result) -> [problems] (ranges a working library meets;
// applied to both results, so a wrong range fails on TF.js too).
import * as tfjs from '@tensorflow/tfjs';
// The node entry, as `import * as tf from 'glint-ml'` gets in node: no ready() needed.
import * as glint from '../../web/package/src/index.node.js';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const NOT_PROGRAMS = new Set(['run.mjs', 'seeded.mjs']);

/** Where a and b differ beyond tol (relative, at least absolute tol), or null. */
function difference(a, b, tol, where = 'result') {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) && Number.isNaN(b)) return null;
    const err = Math.abs(a - b);
    return err <= tol * Math.max(1, Math.abs(a)) ? null : `${where}: TF.js ${a}, glint ${b}`;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${where}: TF.js ${JSON.stringify(a)}, glint ${JSON.stringify(b)}`;
    if (a.length !== b.length) return `${where}: length ${a.length} (TF.js) vs ${b.length} (glint)`;
    for (let i = 0; i < a.length; ++i) {
      const d = difference(a[i], b[i], tol, `${where}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = difference(a[k], b[k], tol, `${where}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${where}: TF.js ${JSON.stringify(a)}, glint ${JSON.stringify(b)}`;
}

function withoutKeys(r, keys) {
  const out = {...r};
  for (const k of keys) delete out[k];
  return out;
}

async function timed(fn) {
  const t0 = performance.now();
  try {
    return {value: await fn(), ms: performance.now() - t0};
  } catch (e) {
    return {error: e, ms: performance.now() - t0};
  }
}

function brief(e) {
  return String(e?.message ?? e).split('\n')[0].slice(0, 300);
}

await tfjs.setBackend('cpu');
// No glint.ready(): the first op starts the engine, as TF.js programs expect.

const wanted = process.argv.slice(2);
const files = fs.readdirSync(here).filter((f) => f.endsWith('.mjs') && !NOT_PROGRAMS.has(f)).sort()
    .filter((f) => !wanted.length || wanted.includes(path.basename(f, '.mjs')));
let failures = 0;
for (const file of files) {
  const name = path.basename(file, '.mjs');
  const program = await import(path.join(here, file));
  const ref = await timed(() => program.run(tfjs));
  const got = await timed(() => program.run(glint));
  const problems = [];
  if (ref.error) problems.push(`TF.js threw: ${brief(ref.error)}`);
  if (got.error) problems.push(`glint threw: ${brief(got.error)}`);
  if (!ref.error && !got.error) {
    const loose = program.loose ?? [];
    const d = difference(withoutKeys(ref.value, loose), withoutKeys(got.value, loose),
                         program.tolerance ?? 1e-5);
    if (d) problems.push(d);
  }
  for (const [lib, r] of [['TF.js', ref], ['glint', got]]) {
    if (!r.error && program.check) for (const p of program.check(r.value)) problems.push(`${lib}: ${p}`);
  }
  const times = `TF.js ${ref.ms.toFixed(0)} ms, glint ${got.ms.toFixed(0)} ms`;
  if (problems.length) {
    failures++;
    console.log(`FAIL ${name} (${times})\n  ${problems.join('\n  ')}`);
    if (process.env.VERBOSE && got.error) console.log(got.error.stack);
  } else {
    console.log(`PASS ${name} (${times})`);
  }
}
console.log(`${files.length - failures}/${files.length} programs agree`);
process.exitCode = failures ? 1 : 0;
