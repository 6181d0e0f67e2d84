// "Not sure": when the page should not show a big confident digit. A model
// trained on digits gives every input a digit, a scribble or a dot included
// (a scribble read "2, 96%"), so confidence alone cannot tell. Three tests:
//   - low: the model's best digit is less likely than not (top probability < 0.5);
//   - unlike: the 28x28 input is farther from its nearest bundled MNIST training
//     digit than 98% of the held-out MNIST digits are from theirs (FARTHER,
//     calibrated below); the user's own samples count as digits too, so what the
//     user taught is not doubted;
//   - small: the ink on the pad spans less than a quarter of the pad's side. The
//     pen is 0.08 of the side, so such ink, scaled to MNIST's 20 px box, has
//     strokes over a third of the digit's size, where MNIST's are about a tenth:
//     a dot or a tick, not a digit.
// A held-out MNIST digit put on the pad is a digit: only "low" applies to it.

export const LOW = 0.5;
export const MIN_EXTENT = 0.25;
/**
 * The 98th percentile, over the 2,000 held-out digits of data.js's split, of the
 * Euclidean distance (levels in [0, 1]) to the nearest of the 8,000 training
 * digits: heldOutPercentile(mnist, 0.98) below, checked by tests/browser/digits_users.mjs.
 * (50th: 4.79, 95th: 6.64, 99th: 7.53; clear drawn digits: 1.1 to 5.6.)
 */
export const FARTHER = 7.145;
/** The median of those distances. */
export const TYPICAL = 4.79;

/**
 * Distance from pixels (784 levels in [0, 1]) to the nearest of the digits idx of
 * set ({pixels: Uint8Array}) and of extra (Uint8Array(784) each), stopping early
 * once every digit is known to be farther than `stop`.
 */
export function nearestDistance(pixels, set, idx, extra = [], stop = Infinity) {
  const x = Float32Array.from(pixels, (v) => v * 255);
  let best = stop === Infinity ? Infinity : (stop * 255) ** 2;
  const scan = (bytes, at) => {
    let d = 0;
    for (let r = 0; r < 784 && d < best; r += 28) {
      for (let p = r; p < r + 28; ++p) {
        const e = x[p] - bytes[at + p];
        d += e * e;
      }
    }
    if (d < best) best = d;
  };
  for (const s of extra) scan(s, 0);
  for (const k of idx) scan(set.pixels, k * 784);
  return Math.sqrt(best) / 255;
}

/** The q-quantile of the held-out digits' nearest-training-digit distances (seconds of work). */
export function heldOutPercentile(set, q) {
  const d = Array.from(set.test, (k) => nearestDistance(
      Float32Array.from(set.pixels.subarray(k * 784, (k + 1) * 784), (v) => v / 255), set, set.train))
      .sort((a, b) => a - b);
  return d[Math.ceil(q * d.length) - 1];
}

/**
 * Why the page should say "not sure" about probs for input x ({pixels, extent,
 * picture}): 'low', 'small' or 'unlike', or null when the reading can be shown.
 * mine: the user's samples (Uint8Array(784) each). The MNIST distance is remembered on x.
 */
export function doubt(probs, x, set, mine = []) {
  const top = Math.max(...probs);
  if (top < LOW) return 'low';
  if (!x || x.picture || !set) return null;
  // Close to one of the user's samples (as close as a typical MNIST digit is to its
  // nearest training digit): what the user taught is a digit to them.
  if (mine.length && nearestDistance(x.pixels, set, [], mine, TYPICAL) < TYPICAL) return null;
  if (x.extent < MIN_EXTENT) return 'small';
  measureNovelty(x, set);
  return x.nearest >= FARTHER ? 'unlike' : null;   // FARTHER: none nearer
}

/**
 * The MNIST distance doubt() needs, remembered on x: tens of milliseconds of
 * main-thread work, which the page does while the engine reads the drawing.
 */
export function measureNovelty(x, set) {
  if (x && !x.picture && set) x.nearest ??= nearestDistance(x.pixels, set, set.train, [], FARTHER);
}
