// Every TF.js 4.22 op and Tensor method against glint-ml (issue 30): each entry of
// op_table_cases.mjs draws its arguments from a seeded generator (random ranks,
// shapes incl. 1 and 0, dtypes, attributes), runs in TF.js (cpu) and glint-ml,
// in the function form and, where TF.js has it, the method form, and compares
// shapes, dtypes and values (exact for int32 and bool). Where TF.js throws,
// glint-ml must throw an Error naming the op; where TF.js returns, glint-ml must
// return. Gradients (grads of sum(out * w)) are compared on three seeds, against
// central differences of TF.js's forward pass where TF.js has none or a wrong one.
// The table: op_table_cases.mjs and op_table_cases_nn.mjs (drawn as op_table_draw.mjs
// says); the draws where glint-ml differs on purpose or TF.js is wrong: op_table_known.mjs.
// The first test enumerates TF.js's top level and Tensor.prototype: a function
// neither in the table nor excluded below (or on api_gaps.json) fails it.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';
import {rng, values, flattenTensors, tensorsDiffer, gapReason} from './shared_cases.mjs';
import {CASES, METHOD_CASES} from './op_table_cases.mjs';
import {T, Raw} from './op_table_draw.mjs';
import {KNOWN, WRONG_TFJS_GRADIENT} from './op_table_known.mjs';

await glint.ready();
await tf.setBackend('cpu');

// OPTABLE_SEEDS=n draws n seeds per entry instead of five, OPTABLE_GRAD_SEEDS=m compares
// gradients on the first m instead of three (a longer search).
const SEEDS = Array.from({length: Number(process.env.OPTABLE_SEEDS ?? 5)}, (_, i) => i + 1);
const GRAD_SEEDS = Number(process.env.OPTABLE_GRAD_SEEDS ?? 3);
const TOL = 1e-5;

// ---- What the table leaves out, each with why ------------------------------------------

const NOT_OPS = {
  'not an op: a class or constructor namespace': (name) => /^[A-Z]/.test(name),
  'not an op: scopes, memory and engine state (disposeVariables: dispose_variables.test.mjs)': ['tidy', 'keep',
    'dispose', 'disposeVariables', 'memory', 'ready', 'setBackend', 'getBackend',
    'env', 'enableDebugMode', 'enableProdMode', 'disableDeprecationWarnings', 'deprecationWarn', 'nextFrame', 'time',
    'profile', 'print'],
  'not an op: models and layers (layers tests, api.test.mjs)': ['loadLayersModel', 'loadGraphModel', 'loadGraphModelSync',
    'model', 'sequential', 'input'],
  'not an op: dtype arithmetic on strings, no tensors (exports.test.mjs checks the names)': ['upcastType', 'sumOutType'],
  'not an op: autograd, which the table uses for every gradient (custom.test.mjs, higher_order.test.mjs)': ['grad', 'grads',
    'valueAndGrad', 'valueAndGrads', 'variableGrads', 'customGrad'],
  'not an op: wraps a function as an op (host_api.test.mjs)': ['op'],
  'not an op: the optimizer factories (api.test.mjs)': ['train'],
  'not an op: registers graph-model ops (register_op.test.mjs)': ['registerOp', 'deregisterOp'],
};
const COVERED_ELSEWHERE = {
  'complex_fft.test.mjs (complex64 and the transforms, against TF.js and a float64 DFT)':
    ['complex', 'real', 'imag', 'fft', 'ifft', 'rfft', 'irfft'],
  'ragged.test.mjs (random ragged structures against TF.js; dense dimensions by hand, where TF.js is wrong)':
    ['raggedTensorToTensor'],
  'ragged_gather.test.mjs (random ragged tensors and indices against TF.js)': ['raggedGather'],
};
const METHOD_NOT_OPS = {
  'not an op: reads values back or disposes': ['buffer', 'bufferSync', 'array', 'arraySync', 'data', 'dataSync', 'bytes',
    'dispose', 'throwIfDisposed', 'print', 'toString'],
  'not an op: hands the values to the GPU (webgpu_data_to_gpu.test.mjs)': ['dataToGPU'],
  'not an op: makes a Variable (api.test.mjs)': ['variable'],
};

const gaps = JSON.parse(fs.readFileSync(new URL('../../web/package/api_gaps.json', import.meta.url), 'utf8'));

/** Where lists excludes name: the list of names it is on, or true for a rule; null when none. */
function listedIn(lists, name) {
  for (const names of Object.values(lists)) {
    if (typeof names === 'function' ? names(name) : names.includes(name)) return typeof names === 'function' || names;
  }
  return null;
}

// What the table compared, printed at the end.
const tally = {draws: 0, compared: 0, bothThrew: 0, gradients: 0, known: 0};

const hasMethod = (name) => typeof tf.Tensor.prototype[name] === 'function';
const methodForm = (c) => c.method !== false && !c.call && !c.async && hasMethod(c.op);

// ---- Enumeration ---------------------------------------------------------------------------

const topFunctions = Object.keys(tf).filter((k) => typeof tf[k] === 'function');
const tensorMethods = (() => {
  const out = new Set();
  for (let p = tf.Tensor.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) {
      if (n !== 'constructor' && typeof Object.getOwnPropertyDescriptor(p, n).value === 'function') out.add(n);
    }
  }
  return [...out];
})();

test('every TF.js top-level op and Tensor method is in the table or excluded with a reason', () => {
  const inTable = new Set(CASES.map((c) => c.op));
  const methodsInTable = new Set([...CASES.filter(methodForm).map((c) => c.op), ...METHOD_CASES.map((c) => c.method)]);
  const counts = {table: 0, gaps: 0, notOp: 0, elsewhere: 0};
  const mcounts = {...counts};
  const neither = [], stale = [];
  const classify = (label, inList, notOp, elsewhere, gap, tally) => {
    const why = [inList && 'table', gap && 'gaps', notOp && 'notOp', elsewhere && 'elsewhere'].filter(Boolean);
    if (!why.length) neither.push(label);
    // In the table and excluded, or listed here and on api_gaps.json (read from there, not repeated).
    if ((inList && why.length > 1) || (gap && Array.isArray(notOp))) stale.push(`${label} (${why.join(', ')})`);
    if (why.length) tally[why[0]]++;
  };
  for (const name of topFunctions) {
    classify(name, inTable.has(name), listedIn(NOT_OPS, name), listedIn(COVERED_ELSEWHERE, name),
             gapReason(gaps, 'top', name, tf[name]), counts);
  }
  for (const name of tensorMethods) {
    classify(`Tensor.${name}`, methodsInTable.has(name), listedIn(METHOD_NOT_OPS, name), listedIn(COVERED_ELSEWHERE, name),
             gapReason(gaps, 'Tensor', name), mcounts);
  }
  const unknown = [...Object.values(NOT_OPS), ...Object.values(COVERED_ELSEWHERE)].flatMap((n) => (Array.isArray(n) ? n : []))
    .filter((n) => !topFunctions.includes(n));
  unknown.push(...[...inTable].filter((n) => !topFunctions.includes(n)));
  unknown.push(...Object.values(METHOD_NOT_OPS).flat().filter((n) => !tensorMethods.includes(n)));
  console.log(`# TF.js top-level functions ${topFunctions.length}: ${JSON.stringify(counts)}; ` +
              `Tensor methods ${tensorMethods.length}: ${JSON.stringify(mcounts)}`);
  assert.deepEqual(neither, [], `neither in the op table nor excluded: ${neither.join(', ')}`);
  assert.deepEqual(stale, [], `in the table and excluded too: ${stale.join(', ')}`);
  assert.deepEqual(unknown, [], `not a TF.js 4.22 function: ${unknown.join(', ')}`);
});

// ---- Running one draw in both modules ---------------------------------------------------------

/** The arguments for module m: T -> m.tensor (or subst's tensor for it), Raw -> its plain value. */
function build(m, a, subst) {
  if (a instanceof T) return subst?.get(a) ?? m.tensor(a.v, a.shape, a.dtype);
  if (a instanceof Raw) return a.value();
  if (Array.isArray(a) && a.some((x) => x instanceof T || x instanceof Raw || Array.isArray(x))) return a.map((x) => build(m, x, subst));
  return a;
}

function floatSpecs(a, out = []) {
  if (a instanceof T) {
    if (a.dtype === 'float32') out.push(a);
  } else if (Array.isArray(a)) {
    a.forEach((x) => floatSpecs(x, out));
  }
  return out;
}

const callFn = (c) => (m, args) => (c.call ? c.call(m, ...args) : m[c.op](...args));
const callMethod = (c) => (m, args) => {
  const [x, ...rest] = c.methodArgs ? c.methodArgs(args) : args;
  return c.method ? c.method(x, ...rest) : x[c.op](...rest);
};

function attempt(f) {
  try {
    return {out: f()};
  } catch (e) {
    return {error: e};
  }
}

const describe = (args) => JSON.stringify(args, (k, v) => (v instanceof T ? `T(${v.dtype}[${v.shape}])` :
    v instanceof Raw ? `${v.form}(${v.dtype}[${v.shape}])` : v === undefined ? 'undefined' : v)).slice(0, 300);

/** The failure, as a sentence, or null: one draw (args) through run(m, builtArgs) in both modules. */
function compareOnce(c, args, run, label) {
  return glint.tidy(() => tf.tidy(() => {
    const theirs = attempt(() => run(tf, build(tf, args)));
    const ours = attempt(() => run(glint, build(glint, args)));
    // A result that is no tensor (a number) is compared as it is.
    if (!theirs.error && !ours.error && !flattenTensors(theirs.out).length) {
      tally.compared++;
      return JSON.stringify(ours.out) === JSON.stringify(theirs.out) ? null :
        `${label}: ${JSON.stringify(ours.out)} vs ${JSON.stringify(theirs.out)}`;
    }
    const tensors = (r) => (r.error ? r : {out: flattenTensors(r.out)});
    return verdict(c, args, label, tensors(theirs), tensors(ours));
  }));
}

function verdict(c, args, label, theirs, ours) {
  tally.compared++;
  if (theirs.error) {
    tally.bothThrew++;
    if (!ours.error) return `${label}: TF.js throws (${theirs.error.message.slice(0, 150)}) but glint-ml returns`;
    const names = [c.errName, c.op, label.split(' ')[0].replace(/^x\./, '')].filter(Boolean).map((n) => n.toLowerCase());
    const msg = String(ours.error.message).toLowerCase();
    if (!(ours.error instanceof Error) || !names.some((n) => msg.includes(n))) {
      return `${label}: the error does not name the op: ${ours.error.message}`;
    }
    return null;
  }
  if (ours.error) return `${label}: glint-ml throws (${ours.error.message}) where TF.js returns`;
  if (c.check) {
    const shapes = tensorsDiffer(ours.out.map((o) => ({shape: o.shape, dtype: o.dtype, dataSync: () => []})),
                                 theirs.out.map((o) => ({shape: o.shape, dtype: o.dtype, dataSync: () => []})), 0);
    if (shapes) return `${label}: ${shapes}`;
    const ok = c.check(args);
    if (!theirs.out.every((o) => ok(Array.from(o.dataSync())))) return `${label}: TF.js's values fail the check itself`;
    if (!ours.out.every((o) => ok(Array.from(o.dataSync())))) return `${label}: values outside the distribution's range`;
    return null;
  }
  const diff = tensorsDiffer(ours.out, theirs.out, c.tol ?? TOL);
  return diff && `${label}: ${diff}`;
}

async function compareAsync(c, args, label) {
  const run = async (m) => {
    const built = build(m, args);
    try {
      return {out: flattenTensors(await m[c.op](...built)), built};
    } catch (e) {
      return {error: e, built};
    }
  };
  const theirs = await run(tf), ours = await run(glint);
  const v = verdict(c, args, label, theirs, ours);
  tf.dispose([theirs.out, theirs.built]);
  glint.dispose([ours.out, ours.built]);
  return v;
}

/** The weights of the objective sum_k sum(out_k * w_k): fixed per output size. */
const weights = (n, k) => values(rng(n * 31 + k), n).map((v) => v + 1.5);

/** d sum(out * w) / d (each float32 tensor argument), through m.grads. */
function gradients(m, c, args, run) {
  const specs = floatSpecs(args);
  const f = (...xs) => {
    const subst = new Map(specs.map((s, i) => [s, xs[i]]));
    const outs = flattenTensors(run(m, build(m, args, subst))).filter((o) => o.dtype === 'float32');
    return outs.map((o, k) => m.sum(m.mul(o, m.tensor(weights(o.size, k), o.shape)))).reduce((a, b) => m.add(a, b));
  };
  return m.grads(f)(specs.map((s) => m.tensor(s.v, s.shape, s.dtype)));
}

/**
 * d sum(out * w) / d (each float32 argument) by central differences of TF.js's forward
 * pass (sums in float64), per argument {shape, g}; null when TF.js's forward pass throws
 * or the inputs are too many to step through. An element whose differences with steps
 * 1e-2 and 5e-3 disagree (a kink or a pole within the step) is null: no reference there.
 */
function finiteDifferences(c, args, run) {
  const specs = floatSpecs(args);
  if (specs.reduce((n, s) => n + s.v.length, 0) > 300) return null;
  const objective = (spec, v) => tf.tidy(() => {
    const outs = flattenTensors(run(tf, build(tf, args, new Map([[spec, tf.tensor(v, spec.shape)]]))))
        .filter((o) => o.dtype === 'float32');
    return outs.reduce((sum, o, k) => {
      const w = weights(o.size, k), d = o.dataSync();
      return sum + d.reduce((acc, x, i) => acc + x * w[i], 0);
    }, 0);
  });
  const central = (spec, j, h) => {
    const plus = spec.v.slice(), minus = spec.v.slice();
    plus[j] += h;
    minus[j] -= h;
    return (objective(spec, plus) - objective(spec, minus)) / (2 * h);
  };
  try {
    return specs.map((spec) => ({shape: spec.shape, g: spec.v.map((_, j) => {
      const coarse = central(spec, j, 1e-2), fine = central(spec, j, 5e-3);
      return Math.abs(coarse - fine) <= 5e-3 * Math.max(1, Math.abs(fine)) ? fine : null;
    })}));
  } catch {
    return null;
  }
}

/** Where glint-ml's gradients differ from central differences beyond tol (relative), or null. */
function differsFromCentral(ours, fd, tol) {
  if (ours.length !== fd.length) return `${ours.length} gradients vs ${fd.length}`;
  for (let i = 0; i < fd.length; ++i) {
    if (JSON.stringify(ours[i].shape) !== JSON.stringify(fd[i].shape)) return `gradient ${i}: shape [${ours[i].shape}] vs [${fd[i].shape}]`;
    const a = ours[i].dataSync();
    const j = fd[i].g.findIndex((y, k) => y !== null && !(Math.abs(a[k] - y) <= tol * Math.max(1, Math.abs(y))));
    if (j >= 0) return `gradient ${i} element ${j}: ${a[j]} vs ${fd[i].g[j]}`;
  }
  return null;
}

function compareGradients(c, args, run, label) {
  if (!floatSpecs(args).length) return null;
  return glint.tidy(() => tf.tidy(() => {
    // Where TF.js's forward pass throws there is nothing to differentiate.
    if (attempt(() => run(tf, build(tf, args))).error) return null;
    const wrong = (WRONG_TFJS_GRADIENT[c.op] ?? []).some(([when]) => when(args));
    const theirs = wrong ? {error: new Error('TF.js gradient is wrong here')} : attempt(() => gradients(tf, c, args, run));
    const ours = attempt(() => gradients(glint, c, args, run));
    if (theirs.error) {
      // TF.js has no gradient here or a wrong one (it throws on its shapes): central differences of its forward pass.
      const fd = finiteDifferences(c, args, run);
      if (!fd) return null;
      tally.gradients++;
      if (ours.error) return `${label} gradient: glint-ml throws (${ours.error.message})`;
      const diff = differsFromCentral(ours.out, fd, 1e-2);
      return diff && `${label} gradient vs central differences: ${diff}`;
    }
    tally.gradients++;
    if (ours.error) return `${label} gradient: glint-ml throws (${ours.error.message}) where TF.js returns`;
    const diff = tensorsDiffer(ours.out, theirs.out, c.gradTol ?? 1e-4);
    return diff && `${label} gradient: ${diff}`;
  }));
}

/** Why this draw (in this form: '' or 'x.') is not compared, or null. */
function known(c, args, form = '') {
  return (KNOWN[c.op] ?? []).find(([when]) => when(args, form))?.[1] ?? null;
}

// ---- The table ---------------------------------------------------------------------------

const caseName = (c) => c.name ?? c.op;
const seedOf = (name, seed) => [...name].reduce((h, ch) => (h * 33 + ch.charCodeAt(0)) >>> 0, seed * 7919);

for (const c of CASES) {
  test(`${caseName(c)} agrees with TF.js`, async () => {
    const failures = [];
    const before = glint.memory().numTensors;
    for (const seed of SEEDS) {
      const args = c.args(rng(seedOf(caseName(c), seed)));
      tally.draws++;
      if (known(c, args)) {
        tally.known++;
        continue;
      }
      const label = `${caseName(c)} (seed ${seed}, ${describe(args)})`;
      if (c.async) {
        failures.push(await compareAsync(c, args, label));
        continue;
      }
      // The method form needs a tensor receiver (not a number or array drawn in its place).
      const receiver = (c.methodArgs ? c.methodArgs(args) : args)[0];
      const forms = [['', callFn(c)], ...(methodForm(c) && receiver instanceof T ? [['x.', callMethod(c)]] : [])];
      for (const [prefix, run] of forms) {
        if (known(c, args, prefix)) {
          tally.known++;
          continue;
        }
        failures.push(compareOnce(c, args, run, prefix + label));
        if (c.grad && !c.check && seed <= GRAD_SEEDS) failures.push(compareGradients(c, args, run, prefix + label));
      }
    }
    const after = glint.memory().numTensors;
    const found = failures.filter(Boolean);
    assert.deepEqual(found, [], found.join('\n'));
    assert.equal(after, before, `${caseName(c)}: ${after - before} tensors leaked`);
  });
}

for (const c of METHOD_CASES) {
  test(`x.${c.method} agrees with TF.js`, () => {
    const failures = [];
    for (const seed of SEEDS) {
      const r = rng(seedOf(c.method, seed));
      const args = [c.receiver(r), ...c.args(r)];
      const label = `x.${c.method} (seed ${seed}, ${describe(args)})`;
      const run = (m, [x, ...rest]) => x[c.method](...rest);
      failures.push(compareOnce({op: c.method}, args, run, label));
      if (c.grad && seed <= GRAD_SEEDS) failures.push(compareGradients({...c, op: c.method}, args, run, label));
    }
    const found = failures.filter(Boolean);
    assert.deepEqual(found, [], found.join('\n'));
  });
}

test('the table ran', () => {
  console.log(`# ${CASES.length + METHOD_CASES.length} entries, ${tally.draws} draws (${tally.known} on KNOWN), ` +
              `${tally.compared} runs compared (${tally.bothThrew} threw in both), ${tally.gradients} gradients compared`);
  assert.ok(tally.compared > 1200 && tally.gradients > 250 && tally.bothThrew > 50, JSON.stringify(tally));
});
