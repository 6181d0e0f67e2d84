// A seq2seq model in the style of the addition-RNN example: an LSTM encoder reads
// "a+b" as one-hot characters, RepeatVector feeds the code to an LSTM decoder,
// TimeDistributed(Dense) emits one character per step.
const CHARS = '0123456789+ ';
const DIGITS = 1, IN_LEN = 2 * DIGITS + 1, OUT_LEN = DIGITS + 1;

function encode(text, len) {
  const rows = [];
  for (let i = 0; i < len; ++i) {
    const row = new Array(CHARS.length).fill(0);
    row[CHARS.indexOf(text[i] ?? ' ')] = 1;
    rows.push(row);
  }
  return rows;
}

// Every sum of two digits, in an order fixed by a seed.
function samples(seed) {
  const pairs = [];
  for (let a = 0; a < 10; ++a) for (let b = 0; b < 10; ++b) pairs.push([a, b]);
  let s = seed;
  for (let i = pairs.length - 1; i > 0; --i) {
    s = (s * 48271) % 2147483647;
    const j = s % (i + 1);
    [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
  }
  return {qs: pairs.map(([a, b]) => `${a}+${b}`.padEnd(IN_LEN)),
          as: pairs.map(([a, b]) => String(a + b).padEnd(OUT_LEN))};
}

export async function run(tf) {
  const {qs, as} = samples(17);
  const x = tf.tensor3d(qs.map((q) => encode(q, IN_LEN)));
  const y = tf.tensor3d(as.map((a) => encode(a, OUT_LEN)));
  const model = tf.sequential();
  model.add(tf.layers.lstm({units: 16, inputShape: [IN_LEN, CHARS.length]}));
  model.add(tf.layers.repeatVector({n: OUT_LEN}));
  model.add(tf.layers.lstm({units: 16, returnSequences: true}));
  model.add(tf.layers.timeDistributed({layer: tf.layers.dense({units: CHARS.length})}));
  model.add(tf.layers.activation({activation: 'softmax'}));
  model.compile({optimizer: tf.train.adam(0.05), loss: 'categoricalCrossentropy',
                 metrics: ['accuracy']});
  const h = await model.fit(x, y, {epochs: 8, batchSize: 30, validationSplit: 0.1});
  const pred = model.predict(x.slice([0, 0, 0], [4, IN_LEN, CHARS.length]));
  const result = {
    outputShape: pred.shape,
    firstLoss: h.history.loss[0], lastLoss: h.history.loss.at(-1),
    lastAcc: (h.history.acc ?? h.history.accuracy).at(-1),
    rowSums: Array.from(pred.sum(-1).dataSync()).map((v) => Math.round(v * 1e4) / 1e4),
  };
  tf.dispose([x, y, pred]);
  model.dispose();
  return result;
}
export const loose = ['firstLoss', 'lastLoss', 'lastAcc'];
export function check(r) {
  const problems = [];
  if (!(r.lastLoss < 0.75 * r.firstLoss)) problems.push(`loss ${r.firstLoss} -> ${r.lastLoss}: not down 25%`);
  if (!(r.lastAcc > 0.45)) problems.push(`per-character accuracy ${r.lastAcc} <= 0.45`);
  return problems;
}
