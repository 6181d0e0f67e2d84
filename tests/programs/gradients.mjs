// Functional gradients: tf.grad, tf.grads, tf.valueAndGrad, tf.valueAndGrads,
// tf.variableGrads (tf.customGrad: custom_grad.mjs).
export async function run(tf) {
  const x = tf.tensor1d([0.5, -1, 2, 3]);
  const f = (t) => t.square().mul(t.sin()).sum();
  const g = tf.grad(f)(x);
  const dy = tf.tensor1d([1, 2, 3, 4]);
  const gElem = tf.grad((t) => t.exp().mul(0.5))(x, dy);
  const a = tf.tensor2d([[1, 2], [3, 4]]), b = tf.tensor2d([[0.5, -1], [2, 0]]);
  const [da, db] = tf.grads((p, q) => p.matMul(q).tanh().sum())([a, b]);
  const {value, grad} = tf.valueAndGrad((t) => t.sigmoid().mean())(x);
  const vg = tf.valueAndGrads((p, q) => p.mul(q).add(p.div(q.add(3))).sum())([a, b]);
  const w = tf.variable(tf.tensor1d([0.1, 0.2, 0.3]), true, 'w_grads');
  const vgrads = tf.variableGrads(() => w.mul(tf.tensor1d([1, -2, 3])).square().sum());
  const result = {
    g: Array.from(g.dataSync()), gElem: Array.from(gElem.dataSync()),
    da: da.arraySync(), db: db.arraySync(), value: value.dataSync()[0],
    grad: Array.from(grad.dataSync()), vgValue: vg.value.dataSync()[0],
    vgGrads: vg.grads.map((t) => t.arraySync()),
    varGradNames: Object.keys(vgrads.grads), varGrad: Array.from(Object.values(vgrads.grads)[0].dataSync()),
    varValue: vgrads.value.dataSync()[0],
  };
  tf.dispose([x, g, dy, gElem, a, b, da, db, value, grad, vg.value, vg.grads, w, vgrads.value,
              Object.values(vgrads.grads)]);
  return result;
}
