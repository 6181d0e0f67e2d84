// Turns a drawing into what an MNIST model expects, the way the MNIST digits
// themselves were made: the ink's bounding box is scaled (aspect ratio kept)
// so that its longer side is 20 px, with grey levels from the exact area each
// output pixel covers (anti-aliasing), then placed in a 28x28 image so that
// its centre of mass sits at the image centre.

export const SIZE = 28;
export const BOX = 20;

/**
 * ink: Float32Array of width*height levels in [0, 1] (0 = background).
 * Returns {pixels: Float32Array(784), box: {x, y, w, h}, scaled: {w, h}, offset: {x, y}}
 * or null when nothing is drawn.
 */
export function mnistify(ink, width, height) {
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  for (let y = 0; y < height; ++y) {
    const row = y * width;
    for (let x = 0; x < width; ++x) {
      if (ink[row + x] > 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  if (x1 < 0) return null;
  const w = x1 - x0 + 1, h = y1 - y0 + 1;
  const scale = BOX / Math.max(w, h);
  const tw = Math.max(1, Math.round(w * scale)), th = Math.max(1, Math.round(h * scale));

  // Area averaging is separable: rows first (w -> tw), then columns (h -> th).
  const across = new Float32Array(h * tw);
  const colW = weights(w, tw);
  for (let y = 0; y < h; ++y) {
    const src = (y0 + y) * width + x0;
    for (let j = 0; j < tw; ++j) {
      let s = 0;
      for (const [k, wk] of colW[j]) s += ink[src + k] * wk;
      across[y * tw + j] = s;
    }
  }
  const rowW = weights(h, th);
  const box = new Float32Array(th * tw);
  for (let i = 0; i < th; ++i) {
    for (let j = 0; j < tw; ++j) {
      let s = 0;
      for (const [k, wk] of rowW[i]) s += across[k * tw + j] * wk;
      box[i * tw + j] = Math.min(1, s);
    }
  }

  // Centre of mass, pixel i spanning [i, i+1): shifted by whole pixels onto (14, 14).
  let mass = 0, mx = 0, my = 0;
  for (let i = 0; i < th; ++i) {
    for (let j = 0; j < tw; ++j) {
      const v = box[i * tw + j];
      mass += v;
      mx += (j + 0.5) * v;
      my += (i + 0.5) * v;
    }
  }
  const ox = Math.round(SIZE / 2 - mx / mass), oy = Math.round(SIZE / 2 - my / mass);
  const pixels = new Float32Array(SIZE * SIZE);
  for (let i = 0; i < th; ++i) {
    const y = oy + i;
    if (y < 0 || y >= SIZE) continue;
    for (let j = 0; j < tw; ++j) {
      const x = ox + j;
      if (x >= 0 && x < SIZE) pixels[y * SIZE + x] = box[i * tw + j];
    }
  }
  return {pixels, box: {x: x0, y: y0, w, h}, scaled: {w: tw, h: th}, offset: {x: ox, y: oy}};
}

/** For each of `m` output cells over `n` source cells: [[source index, share], ...]. */
function weights(n, m) {
  const step = n / m;
  const out = [];
  for (let j = 0; j < m; ++j) {
    const a = j * step, b = (j + 1) * step;
    const list = [];
    for (let k = Math.floor(a); k < Math.min(n, Math.ceil(b)); ++k) {
      const overlap = Math.min(b, k + 1) - Math.max(a, k);
      if (overlap > 0) list.push([k, overlap / step]);
    }
    out.push(list);
  }
  return out;
}
