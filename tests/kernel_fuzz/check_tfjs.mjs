// Reference checked against TF.js 4.22 (cpu backend) on the kernel fuzzer's
// random calls (docs/TESTING.md, "Reference against TF.js and PyTorch").
//
//   ./build/release/glint_kernel_fuzz --emit calls.jsonl --cases 3000 --seed 1
//   node tests/kernel_fuzz/check_tfjs.mjs calls.jsonl [--show N] [--defer deferred.jsonl]
//
// Each line of the file is one call (tests/kernel_fuzz/emit.h): its spec in
// TF.js's terms, the inputs, the upstream weights w and reference's output
// and gradients of sum(w * f). Here the call runs on TF.js, forward and
// tf.grads, and is compared with the fuzzer's own rule (differential.cpp
// close). Calls whose spec names torch are check_torch.py's, and so are the
// calls where TF.js differs by design or by its own bug (check_common.mjs's
// intended differences, written to --defer). Prints per op: calls compared,
// agreed, handed to torch, and differed; then each difference with its replay line. Exit status 1 when a
// call differed (or TF.js refused one) and no intended difference explains it.
import fs from 'node:fs';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import { close, decode, intendedTfjs } from './check_common.mjs';

const require = createRequire(import.meta.url);
const tf = require('@tensorflow/tfjs');

// ---- the calls in TF.js ---------------------------------------------------

const hardSigmoid = (x) => tf.clipByValue(tf.add(tf.mul(x, 0.2), 0.5), 0, 1);
const cellActivation = (name) =>
  ({ sigmoid: tf.sigmoid, hardSigmoid, tanh: tf.tanh, relu: tf.relu })[name];
const flat = (t) => tf.reshape(t, [-1]);

const ops = {
  // element-wise with attributes
  leakyRelu: (x, a) => tf.leakyRelu(x[0], a.alpha),
  clipByValue: (x, a) => tf.clipByValue(x[0], a.clipValueMin, a.clipValueMax),
  // pooling and convolution
  maxPool: (x, a) => tf.maxPool(x[0], a.filterSize, a.strides, a.pad),
  avgPool: (x, a) => tf.avgPool(x[0], a.filterSize, a.strides, a.pad),
  conv2d: (x, a) => tf.conv2d(x[0], x[1], a.strides, a.pad, 'NHWC', a.dilations),
  depthwiseConv2d: (x, a) => tf.depthwiseConv2d(x[0], x[1], a.strides, a.pad, 'NHWC', a.dilations),
  conv2dTranspose: (x, a) => tf.conv2dTranspose(x[0], x[1], a.outputShape, a.strides, a.pad),
  // reductions
  sum: (x, a) => tf.sum(x[0], a.axis, a.keepDims),
  mean: (x, a) => tf.mean(x[0], a.axis, a.keepDims),
  max: (x, a) => tf.max(x[0], a.axis, a.keepDims),
  min: (x, a) => tf.min(x[0], a.axis, a.keepDims),
  prod: (x, a) => tf.prod(x[0], a.axis, a.keepDims),
  logSumExp: (x, a) => tf.logSumExp(x[0], a.axis, a.keepDims),
  argMax: (x, a) => tf.argMax(x[0], a.axis),
  argMin: (x, a) => tf.argMin(x[0], a.axis),
  softmax: (x, a) => tf.softmax(x[0], a.dim),
  logSoftmax: (x, a) => tf.logSoftmax(x[0], a.dim),
  matMul: (x, a) => tf.matMul(x[0], x[1], a.transposeA, a.transposeB),
  // shapes and indexing
  transpose: (x, a) => tf.transpose(x[0], a.perm),
  concat: (x, a) => tf.concat(x, a.axis),
  stack: (x, a) => tf.stack(x, a.axis),
  unstack: (x, a) => tf.unstack(x[0], a.axis),
  slice: (x, a) => tf.slice(x[0], a.begin, a.size),
  stridedSlice: (x, a) =>
    tf.stridedSlice(x[0], a.begin, a.end, a.strides, a.beginMask, a.endMask, a.ellipsisMask,
                    a.newAxisMask, a.shrinkAxisMask),
  reverse: (x, a) => tf.reverse(x[0], a.axis),
  pad: (x, a) => tf.pad(x[0], a.paddings, a.constantValue),
  tile: (x, a) => tf.tile(x[0], a.reps),
  gather: (x, a) => tf.gather(x[0], x[1], a.axis, a.batchDims),
  oneHot: (x, a) => tf.oneHot(x[0], a.depth, a.onValue, a.offValue, a.dtype),
  unsortedSegmentSum: (x, a) => tf.unsortedSegmentSum(x[0], x[1], a.numSegments),
  logicalNot: (x) => tf.logicalNot(x[0]),
  any: (x, a) => tf.any(x[0], a.axis, a.keepDims),
  all: (x, a) => tf.all(x[0], a.axis, a.keepDims),
  where: (x) => tf.where(x[0], x[1], x[2]),
  // fused
  'fused.matMul': (x, a) =>
    tf.fused.matMul({ a: x[0], b: x[1], bias: x[2], transposeA: a.transposeA,
                      transposeB: a.transposeB, activation: a.activation,
                      leakyreluAlpha: a.leakyreluAlpha }),
  'losses.softmaxCrossEntropy': (x) =>
    tf.losses.softmaxCrossEntropy(x[0], x[1], undefined, 0, tf.Reduction.NONE),
};

/// Glint ops TF.js has only as layers or optimizers: composed from TF.js ops
/// by the equations in glint/fused_ops.h, rnn_ops.h and optim_ops.h.
const compositions = {
  fusedMatMul: (x, a) => {
    let y = tf.matMul(x[0], x[1], a.transposeA, a.transposeB);
    if (x[2]) y = tf.add(y, x[2]);
    return a.activation === 'tanh' ? tf.tanh(y) : y;
  },
  argMaxEqual: (x) => tf.cast(tf.equal(tf.argMax(x[0], -1), tf.argMax(x[1], -1)), 'float32'),
  lstmCell: ([xz, hz, cPrev], a) => {
    const ract = cellActivation(a.recurrentActivation), act = cellActivation(a.activation);
    const [zi, zf, zc, zo] = tf.split(tf.add(xz, hz), 4, 1);
    const c = tf.add(tf.mul(ract(zf), cPrev), tf.mul(ract(zi), act(zc)));
    const h = tf.mul(ract(zo), act(c));
    return tf.concat([flat(h), tf.mul(flat(c), 0.5)], 0);
  },
  // The whole time loop (rnn_ops.h's lstmSequence): per step a matMul and
  // the cell above, from zero states.
  lstmSequence: ([xw, wr, mask], a) => {
    const ract = cellActivation(a.recurrentActivation), act = cellActivation(a.activation);
    const [time, batch] = xw.shape, units = wr.shape[0];
    let h = tf.zeros([batch, units]), c = tf.zeros([batch, units]);
    const outs = [];
    for (let s = 0; s < time; ++s) {
      const t = a.goBackwards ? time - 1 - s : s;
      const xz = tf.reshape(tf.slice(xw, [t, 0, 0], [1, -1, -1]), [batch, 4 * units]);
      const [zi, zf, zc, zo] = tf.split(tf.add(xz, tf.matMul(mask ? tf.mul(h, mask) : h, wr)), 4, 1);
      c = tf.add(tf.mul(ract(zf), c), tf.mul(ract(zi), act(zc)));
      h = tf.mul(ract(zo), act(c));
      outs.push(h);
    }
    const parts = a.returnSequences ? [flat(tf.stack(outs, 1))] : [];
    return tf.concat([...parts, flat(h), tf.mul(flat(c), 0.5)], 0);
  },
  gruCell: ([xz, hzr, hc, hPrev], a) => {
    const ract = cellActivation(a.recurrentActivation), act = cellActivation(a.activation);
    const [xzz, xzr, xzh] = tf.split(xz, 3, 1);
    const [hzz, hzrr] = tf.split(hzr, 2, 1);
    const z = ract(tf.add(xzz, hzz)), r = ract(tf.add(xzr, hzrr));
    const hh = act(tf.add(xzh, a.resetAfter ? tf.mul(r, hc) : hc));
    return tf.add(hh, tf.mul(z, tf.sub(hPrev, hh)));
  },
  // hc (x[2]) is not an argument of gruResetState: it enters times zero so
  // that tf.grads has a (zero) gradient for it as the tape does.
  gruResetState: ([xz, hzr, hc, hPrev], a) => {
    const [, xzr] = tf.split(xz, [xz.shape[1] / 3, xz.shape[1] / 3, xz.shape[1] / 3], 1);
    const [, hzrr] = tf.split(hzr, 2, 1);
    const r = cellActivation(a.recurrentActivation)(tf.add(xzr, hzrr));
    return tf.add(tf.mul(r, hPrev), tf.mul(hc, 0));
  },
  applyGradientDescent: ([w, , , g], a) => tf.sub(w, tf.mul(a.lr, g)),
  applyMomentum: ([w, accum, , g], a) => {
    const acc = tf.add(tf.mul(a.momentum, accum), g);
    const step = a.nesterov ? tf.add(g, tf.mul(a.momentum, acc)) : acc;
    return tf.concat([tf.sub(w, tf.mul(a.lr, step)), acc], 0);
  },
  applyAdam: ([w, m, v, g], a) => {
    const m1 = tf.add(tf.mul(a.beta1, m), tf.mul(1 - a.beta1, g));
    const v1 = tf.add(tf.mul(a.beta2, v), tf.mul(1 - a.beta2, tf.square(g)));
    const step = tf.div(tf.div(m1, a.c1), tf.add(tf.sqrt(tf.div(v1, a.c2)), a.epsilon));
    const w1 = tf.sub(tf.sub(w, tf.mul(a.lr * a.weightDecay, w)), tf.mul(a.lr, step));
    return tf.concat([w1, m1, v1], 0);
  },
};

/// Compositions that are step functions: reference's gradient must be zero.
const stepFunctions = new Set(['argMaxEqual']);

/// The function of the call's inputs, and the name it is counted under.
function callFunction(spec) {
  const attrs = spec.attrs ?? {};
  if (spec.compose) return [spec.compose, (x) => compositions[spec.compose](x, attrs)];
  const name = spec.op;
  let f = ops[name];
  if (!f && typeof tf[name] === 'function') {
    f = x => tf[name](...x);  // element-wise: the inputs in order
  }
  if (!f) throw new Error(`check_tfjs: no TF.js form for op ${name}`);
  // What the generator's fn does around the op (fuzz_case.h, Call::spec).
  if (spec.pre === 'normalizeLabels') {
    const g = f;
    f = (x, a) => g([tf.div(x[0], tf.sum(x[0], 1, true)), ...x.slice(1)], a);
  }
  if (spec.post === 'concatFlatScaled') {
    const g = f;
    f = (x, a) => tf.concat(g(x, a).map((p, i) => tf.mul(flat(p), i + 1)), 0);
  }
  return [name, (x) => f(x, attrs)];
}

// ---- comparison -----------------------------------------------------------

function tensorOf(t) {
  const values = t.values.map(decode);
  return tf.tensor(t.dtype === 'bool' ? values.map((v) => v !== 0) : values, t.shape, t.dtype);
}

const sameShape = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);

/// Thrown where an intended difference (check_common.mjs) explains what
/// TF.js did: the call goes to check_torch.py.
class Intended {
  constructor(d) { this.name = d.name; }
}
const intendedIn = (test) => {
  const d = intendedTfjs.find(test);
  if (d) throw new Intended(d);
};

/// The first element where got and want differ beyond the tolerance: null
/// when all agree.
function compareValues(c, what, got, want, rtol, atol) {
  for (let i = 0; i < want.length; ++i) {
    const g = got[i], w = decode(want[i]);
    if (close(g, w, rtol, atol)) continue;
    intendedIn((d) => d.applies && d.applies(c, what, i, g, w));
    return `${what} element ${i}: TF.js ${g} vs reference ${w}`;
  }
  return null;
}

/// name, and problem (null: agreed) or intended (the difference's name).
function runCall(c) {
  const [name, f] = callFunction(c.spec);
  try {
    return { name, problem: tf.tidy(() => compareCall(c, f)) };
  } catch (e) {
    if (e instanceof Intended) return { name, intended: e.name };
    throw e;
  }
}

function compareCall(c, f) {
  const refused = (e, what) => {
    if (e instanceof Intended) throw e;
    intendedIn((d) => d.refuses && d.refuses(c, e));
    return `TF.js ${what}refused: ${e.message.split('\n')[0]}`;
  };
  {
    const xs = c.inputs.map(tensorOf);
    let y;
    try {
      y = f(xs);
    } catch (e) {
      return refused(e, '');
    }
    if (!sameShape(y.shape, c.output.shape))
      return `shape [${y.shape}] vs reference [${c.output.shape}]`;
    if (y.dtype !== c.output.dtype) {
      intendedIn((d) => d.dtype && d.dtype(c, y.dtype));
      return `dtype ${y.dtype} vs reference ${c.output.dtype}`;
    }
    let p = compareValues(c, 'forward', y.dataSync(), c.output.values, c.rtol, c.atol);
    if (p || !c.checkGrad) return p;
    if (c.spec.compose && stepFunctions.has(c.spec.compose)) {
      // No gradient: the tape's must be zero.
      const nonzero = c.grads.findIndex((g) => g.some((v) => decode(v) !== 0));
      return nonzero < 0 ? null : `gradient of input ${c.gradInputs[nonzero]} is not zero`;
    }
    const which = c.gradInputs;
    const dy = tf.tensor(c.w.map(decode), y.shape);
    const gradsOf = tf.grads((...d) => {
      const all = xs.slice();
      which.forEach((k, j) => { all[k] = d[j]; });
      return f(all);
    });
    let gs;
    try {
      gs = gradsOf(which.map((k) => xs[k]), dy);
    } catch (e) {
      return refused(e, 'gradient ');
    }
    for (let j = 0; j < which.length && !p; ++j) {
      p = compareValues(c, `gradient of input ${which[j]}`, gs[j].dataSync(), c.grads[j],
                        c.rtol * c.gradScale, c.atol * c.gradScale);
    }
    return p;
  }
}

// ---- main -----------------------------------------------------------------

async function main() {
  const args = process.argv.slice(2);
  const file = args.find((a, i) => !a.startsWith('--') && !['--show', '--defer'].includes(args[i - 1]));
  const showAt = args.indexOf('--show');
  const show = showAt >= 0 ? Number(args[showAt + 1]) : 20;
  const deferAt = args.indexOf('--defer');
  const deferred = deferAt >= 0 ? fs.createWriteStream(args[deferAt + 1]) : null;
  if (!file) {
    console.error('usage: node tests/kernel_fuzz/check_tfjs.mjs CALLS.jsonl [--show N] [--defer FILE]');
    process.exit(2);
  }
  await tf.setBackend('cpu');
  const perOp = new Map();
  const differences = [];
  const intendedCount = new Map();
  let forTorch = 0;
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const c = JSON.parse(line);
    if (c.spec.torch || c.spec.op === null) {
      ++forTorch;
      continue;
    }
    const { name, problem, intended } = runCall(c);
    if (intended && deferred) deferred.write(JSON.stringify({ replay: c.replay, intended }) + '\n');
    const row = perOp.get(name) ?? { compared: 0, agreed: 0, intended: 0, differed: 0 };
    perOp.set(name, row);
    ++row.compared;
    if (problem) {
      ++row.differed;
      differences.push({ name, problem, c });
    } else if (intended) {
      ++row.intended;
      intendedCount.set(intended, (intendedCount.get(intended) ?? 0) + 1);
    } else {
      ++row.agreed;
    }
  }
  console.log(`TF.js ${tf.version.tfjs} (${tf.getBackend()}) against Glint's reference: ${file}`);
  console.log(`${'op'.padEnd(28)} ${'compared'.padStart(8)} ${'agreed'.padStart(8)} ` +
              `${'to torch'.padStart(8)} ${'differed'.padStart(8)}`);
  const total = { compared: 0, agreed: 0, intended: 0, differed: 0 };
  for (const [name, r] of [...perOp].sort((a, b) => a[0].localeCompare(b[0]))) {
    console.log(`${name.padEnd(28)} ${String(r.compared).padStart(8)} ${String(r.agreed).padStart(8)} ` +
                `${String(r.intended).padStart(8)} ${String(r.differed).padStart(8)}`);
    for (const k of Object.keys(total)) total[k] += r[k];
  }
  console.log(`${'(every op)'.padEnd(28)} ${String(total.compared).padStart(8)} ${String(total.agreed).padStart(8)} ` +
              `${String(total.intended).padStart(8)} ${String(total.differed).padStart(8)}`);
  console.log(`left to check_torch.py: ${forTorch} calls`);
  for (const [n, k] of intendedCount) console.log(`intended difference '${n}': ${k} calls, to torch`);
  if (deferred) await new Promise((done) => deferred.end(done));
  for (const d of differences.slice(0, show)) {
    console.log(`DIFF ${d.name}: ${d.problem}\n  call: ${d.c.describe}\n  replay: --replay ${d.c.replay}`);
  }
  if (differences.length > show) console.log(`... and ${differences.length - show} more differences`);
  console.log(differences.length ? 'check_tfjs: DIFFERED' : 'check_tfjs: agreed');
  process.exit(differences.length ? 1 : 0);
}

await main();
