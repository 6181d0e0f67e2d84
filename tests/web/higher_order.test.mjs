// Higher-order gradients as TF.js users write them: tf.grad(tf.grad(f)),
// Hessian-vector products through tf.grads, a gradient penalty through a
// layer. Each value is compared with TF.js 4.22 (cpu) in the same run and,
// where it has one, the closed form. The C++ suite checks every op of the
// op table against finite differences (tests/unit/second_order_test.cpp).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import * as glint from '../../web/package/src/index.node.js';

await tf.setBackend('cpu');

function near(got, want, tol, what) {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < want.length; ++i)
    assert.ok(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])),
              `${what}[${i}]: ${got[i]} vs ${want[i]}`);
}

// Runs the same program on both libraries and compares what it returns.
function onBoth(program, tol, what) {
  const got = program(glint), want = program(tf);
  near(Array.from(got), Array.from(want), tol, what);
  return got;
}

// Central differences of glint's own first-order gradient, summed as
// tf.grad(tf.grad(f)) sums it (dy = ones): component i of d/dx sum(grad f).
function differencesOfGradient(f, values, h = 1e-2) {
  const at = (v) => glint.tidy(() => glint.grad(f)(glint.tensor1d(v)).sum().dataSync()[0]);
  return values.map((_, i) => {
    const plus = values.slice(), minus = values.slice();
    plus[i] += h;
    minus[i] -= h;
    return (at(plus) - at(minus)) / (2 * h);
  });
}

test('grad of grad: the issue\'s x^3 and other elementwise functions', () => {
  const cube = onBoth((lib) => lib.grad(lib.grad((x) => x.pow(3)))(lib.tensor1d([1, 2])).dataSync(), 1e-5,
                     'd2/dx2 x^3');
  near(Array.from(cube), [6, 12], 1e-5, 'closed form 6x');
  const third = onBoth((lib) => lib.grad(lib.grad(lib.grad((x) => x.pow(3))))(lib.tensor1d([1, -2])).dataSync(),
                       1e-5, 'd3/dx3 x^3');
  near(Array.from(third), [6, 6], 1e-5, 'closed form 6');
  const xs = [0.5, 1.25, 2];
  // TF.js 4.22 computes these too.
  const withTfjs = {
    sin: (lib) => (x) => x.sin(),
    log: (lib) => (x) => x.log(),
    sqrt: (lib) => (x) => x.sqrt(),
    reciprocal: (lib) => (x) => lib.div(1, x),
    softplus: (lib) => (x) => lib.softplus(x),
    square_sum: (lib) => (x) => x.square().sum().mul(x),
  };
  for (const [name, f] of Object.entries(withTfjs))
    onBoth((lib) => lib.grad(lib.grad(f(lib)))(lib.tensor1d(xs)).dataSync(), 1e-4, name);
  // TF.js 4.22 throws on these ("Cannot compute gradient": their gradients
  // read saved outputs); glint-ml computes them: closed forms, and
  // differences of the first-order gradient.
  const second = (f) => Array.from(glint.grad(glint.grad(f))(glint.tensor1d(xs)).dataSync());
  near(second((x) => x.exp()), xs.map(Math.exp), 1e-5, 'exp');
  near(second((x) => x.tanh()), xs.map((v) => -2 * Math.tanh(v) * (1 - Math.tanh(v) ** 2)), 1e-5, 'tanh');
  const s = (v) => 1 / (1 + Math.exp(-v));
  near(second((x) => glint.sigmoid(x)), xs.map((v) => s(v) * (1 - s(v)) * (1 - 2 * s(v))), 1e-5, 'sigmoid');
  for (const [name, f] of Object.entries({
         logSumExp: (x) => glint.logSumExp(x.mul(x)),
         softmax: (x) => glint.softmax(x).mul(glint.tensor1d([1, -2, 3])).sum(),
         logSoftmax: (x) => glint.logSoftmax(x).mul(glint.tensor1d([0.5, 2, -1])).sum(),
       }))
    near(second(f), differencesOfGradient(f, xs), 2e-3, name);
});

test('Hessian-vector products of a small network\'s loss', () => {
  const network = (lib, loss) => {
    const x = lib.tensor2d([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]]);
    const labels = lib.tensor2d([[0, 1], [1, 0]]);
    const w1 = lib.tensor2d([[0.1, -0.3, 0.2, 0.4], [0.5, 0.1, -0.2, 0.3], [-0.4, 0.2, 0.3, -0.1]]);
    const w2 = lib.tensor2d([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.2], [0.2, 0.1]]);
    const v1 = lib.onesLike(w1).mul(0.1), v2 = lib.onesLike(w2).mul(-0.2);
    const f = (a, b) => loss(labels, x.matMul(a).sin().matMul(b));
    const gradient = (a, b) => lib.grads(f)([a, b]);
    const hvp = lib.grads((a, b) => {
      const [ga, gb] = gradient(a, b);
      return ga.mul(v1).sum().add(gb.mul(v2).sum());
    })([w1, w2]);
    // (grad L(w + h v) - grad L(w - h v)) / 2h, from the first-order gradient.
    const h = 1e-2;
    const [pa, pb] = gradient(w1.add(v1.mul(h)), w2.add(v2.mul(h)));
    const [ma, mb] = gradient(w1.sub(v1.mul(h)), w2.sub(v2.mul(h)));
    const differences = [...pa.sub(ma).div(2 * h).dataSync(), ...pb.sub(mb).div(2 * h).dataSync()];
    return {hvp: [...hvp[0].dataSync(), ...hvp[1].dataSync()], differences};
  };
  const mse = (lib) => (labels, logits) => lib.losses.meanSquaredError(labels, logits);
  const mine = network(glint, mse(glint)), theirs = network(tf, mse(tf));
  near(mine.hvp, theirs.hvp, 1e-4, 'H v (mean squared error) vs TF.js');
  near(mine.hvp, mine.differences, 2e-3, 'H v (mean squared error) vs differences');
  // TF.js 4.22's softmaxCrossEntropy gives a wrong H v (its custom gradient
  // reads a saved softmax that its tape did not record): differences only.
  const ce = network(glint, (labels, logits) => glint.losses.softmaxCrossEntropy(labels, logits));
  near(ce.hvp, ce.differences, 2e-3, 'H v (softmax cross-entropy) vs differences');
  assert.ok(ce.hvp.some((v) => Math.abs(v) > 1e-3), 'H v is not all zeros');
});

test('a gradient penalty (WGAN-GP style) trains a conv critic on both libraries alike', () => {
  const program = (lib) => {
    const x = lib.tensor4d(Array.from({length: 2 * 5 * 5}, (_, i) => Math.sin(i)), [2, 5, 5, 1]);
    const f = lib.tensor4d(Array.from({length: 3 * 3 * 2}, (_, i) => Math.cos(i) * 0.3), [3, 3, 1, 2]);
    const critic = (input, filter) => lib.conv2d(input, filter, 1, 'same').relu().mean();
    // d/dfilter of ||d critic / d input||^2
    const g = lib.grad((filter) => {
      const dx = lib.grad((input) => critic(input, filter))(x);
      return dx.square().sum();
    })(f);
    return g.dataSync();
  };
  onBoth(program, 1e-4, 'penalty gradient');
});

test('a gradient whose gradient Glint lacks is an error naming it, never zeros', () => {
  const x = glint.tensor4d([1, 5, 2, 3, 4, 0.5, 2.5, 1.5], [1, 2, 4, 1]);
  assert.throws(() => glint.grad((t) => glint.grad((u) => glint.maxPool(u, 2, 2, 'valid').square().sum())(t).sum())(x),
                /MaxPoolGrad.*has no gradient/);
});

test('nested gradients leave no tensors behind', () => {
  const before = glint.memory().numTensors;
  const x = glint.tensor1d([0.3, -1.2, 2]);
  glint.grad(glint.grad((t) => t.mul(t).exp().sum()))(x).dispose();
  x.dispose();
  assert.equal(glint.memory().numTensors, before);
});
