// Plain-JS seeded values shared by the programs: both libraries start from the
// same weights and data, so deterministic results can be compared exactly.
export function seeded(n, seed, scale = 1) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = ((s >>> 8) / 16777216 * 2 - 1) * scale;
  }
  return out;
}

/** Gives every weight of `model` seeded values (scaled by fan-in), through setWeights. */
export function seedWeights(tf, model, seed) {
  // model.weights, not getWeights(): TF.js's getWeights returns the live values.
  const shapes = model.weights.map((w) => w.shape);
  const values = shapes.map((shape, i) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const fanIn = shape.length > 1 ? shape.slice(0, -1).reduce((a, b) => a * b, 1) : 1;
    return tf.tensor(seeded(n, seed + i, 1 / Math.sqrt(fanIn)), shape);
  });
  model.setWeights(values);
  tf.dispose(values);
}
