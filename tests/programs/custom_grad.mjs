// tf.customGrad: a function whose gradient is given, not derived. The given
// gradient is deliberately not the true one (doubled), so using it shows.
export async function run(tf) {
  const x = tf.tensor1d([0.5, -1, 2, 3]);
  const squareWithDoubledGrad = tf.customGrad((t, save) => {
    save([t]);
    return {value: t.square(), gradFunc: (dy, saved) => [dy.mul(saved[0]).mul(4)]};
  });
  const value = squareWithDoubledGrad(x);
  const grad = tf.grad((t) => squareWithDoubledGrad(t).sum())(x);
  // Inside a longer chain: d/dx sum(sin(f(x))) = cos(x^2) * 4x.
  const chained = tf.grad((t) => squareWithDoubledGrad(t).sin().sum())(x);
  const result = {value: Array.from(value.dataSync()), grad: Array.from(grad.dataSync()),
                  chained: Array.from(chained.dataSync())};
  tf.dispose([x, value, grad, chained]);
  return result;
}
