// tf.basicLSTMCell and tf.multiRNNCell: one LSTM step as a function of its
// weights, composed from Glint's ops (the tape differentiates it).
import {GlintError} from './core.js';
import {tidy, asTensor} from './tensor.js';
import {ops} from './ops.js';

const need = (op, arg, x) => asTensor(x, op, arg);

/** One LSTM step: [c, h] from data [b, in], c [b, u], h [b, u], lstmKernel [in+u, 4u], lstmBias [4u]. */
export function basicLSTMCell(forgetBias, lstmKernel, lstmBias, data, c, h) {
  const k = need('basicLSTMCell', 'lstmKernel', lstmKernel), bias = need('basicLSTMCell', 'lstmBias', lstmBias);
  const x = need('basicLSTMCell', 'data', data), cPrev = need('basicLSTMCell', 'c', c);
  const hPrev = need('basicLSTMCell', 'h', h);
  const u = cPrev.shape[1];
  if (k.rank !== 2 || k.shape[0] !== x.shape[1] + hPrev.shape[1] || k.shape[1] !== 4 * u) {
    throw new GlintError(`[basicLSTMCell] lstmKernel must be [${x.shape[1] + hPrev.shape[1]}, ${4 * u}] for data ` +
        `[${x.shape}] and h [${hPrev.shape}]: got [${k.shape}]`);
  }
  return tidy(() => {
    const gates = ops.add(ops.matMul(ops.concat([x, hPrev], 1), k), bias);
    const [i, j, f, o] = ops.split(gates, 4, 1);
    const cNext = ops.add(ops.mul(ops.sigmoid(i), ops.tanh(j)),
                          ops.mul(cPrev, ops.sigmoid(ops.add(f, need('basicLSTMCell', 'forgetBias', forgetBias)))));
    return [cNext, ops.mul(ops.tanh(cNext), ops.sigmoid(o))];
  });
}

/** Runs cells in sequence, each on the previous one's h: [[c...], [h...]]. */
export function multiRNNCell(lstmCells, data, c, h) {
  let input = need('multiRNNCell', 'data', data);
  const cs = [], hs = [];
  for (let i = 0; i < lstmCells.length; ++i) {
    const [ci, hi] = lstmCells[i](input, c[i], h[i]);
    cs.push(ci);
    hs.push(hi);
    input = hi;
  }
  return [cs, hs];
}
