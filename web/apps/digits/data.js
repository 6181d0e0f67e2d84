// The app's data: the bundled MNIST digits (data/digits.json + digits.u8.gz,
// written by scripts/digits_data.mjs) and the user's personal samples, kept
// in IndexedDB so they survive reloads.

export const PIXELS = 784;

/** The files loadMnist fetches, for the offline copy. */
export const mnistFiles = (baseUrl) => ['digits.json', 'digits.u8.gz'].map((f) => new URL(f, baseUrl).href);

/**
 * {count, pixels: Uint8Array(count*784), labels: Uint8Array(count), train, test}.
 * onProgress(loaded, total): bytes of the digits file as they arrive (total null if unknown).
 */
export async function loadMnist(baseUrl, {onProgress = null} = {}) {
  const headerRes = await fetch(new URL('digits.json', baseUrl));
  if (!headerRes.ok) throw new Error(`data/digits.json: HTTP ${headerRes.status}`);
  const header = await headerRes.json();
  if (header.format !== 'glint-digits-u8') throw new Error('data/digits.json: unknown format');
  const res = await fetch(new URL(header.file, baseUrl));
  if (!res.ok) throw new Error(`data/${header.file}: HTTP ${res.status}`);
  let body = res.body;
  if (onProgress) {
    const length = Number(res.headers.get('Content-Length'));
    const total = length > 0 && !res.headers.get('Content-Encoding') ? length : null;
    let loaded = 0;
    body = body.pipeThrough(new TransformStream({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        onProgress(loaded, total);
        controller.enqueue(chunk);
      },
    }));
  }
  const stream = header.encoding === 'gzip' ? body.pipeThrough(new DecompressionStream('gzip')) : body;
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const {count} = header;
  if (bytes.length !== count * (PIXELS + 1)) {
    throw new Error(`data/${header.file}: ${bytes.length} bytes, expected ${count * (PIXELS + 1)}`);
  }
  // The same 8,000 / 2,000 split on every visit (a seeded shuffle).
  const order = shuffled(count, 12345);
  const cut = Math.round(count * 0.8);
  return {count, pixels: bytes.subarray(0, count * PIXELS), labels: bytes.subarray(count * PIXELS),
          train: order.subarray(0, cut), test: order.subarray(cut)};
}

/** Images idx of the set as float32 [n*784] in [0, 1] and one-hot labels [n*10]. */
export function gatherMnist(set, idx) {
  const x = new Float32Array(idx.length * PIXELS), y = new Float32Array(idx.length * 10);
  idx.forEach((k, i) => {
    const src = set.pixels.subarray(k * PIXELS, (k + 1) * PIXELS);
    for (let p = 0; p < PIXELS; ++p) x[i * PIXELS + p] = src[p] / 255;
    y[i * 10 + set.labels[k]] = 1;
  });
  return {x, y};
}

export function shuffled(n, seed) {
  const order = Int32Array.from({length: n}, (_, i) => i);
  const rnd = rng(seed);
  for (let i = n - 1; i > 0; --i) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** mulberry32: small, seedable. */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- personal samples (IndexedDB) -------------------------------------------------

const DB = 'glint-digits-app';
const STORE = 'samples';

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, {keyPath: 'id', autoIncrement: true});
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new Error(`IndexedDB: ${req.error}`));
  });
}

async function tx(mode, body) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const t = db.transaction(STORE, mode);
      let result;
      t.oncomplete = () => resolve(result);
      t.onabort = t.onerror = () => reject(new Error(`IndexedDB: ${t.error ?? 'aborted'}`));
      const req = body(t.objectStore(STORE));
      if (req) req.onsuccess = () => { result = req.result; };
    });
  } finally {
    db.close();
  }
}

/** A sample: {id, label, pixels: Uint8Array(784) (0..255, what the model saw), created}. */
export const samples = {
  all: () => tx('readonly', (s) => s.getAll()),
  add: (label, pixels) => tx('readwrite', (s) => s.add({label, pixels: toBytes(pixels),
                                                          created: Date.now()})),
  remove: (id) => tx('readwrite', (s) => s.delete(id)),
  clear: () => tx('readwrite', (s) => s.clear()),
  /** Many samples ({label, pixels: Uint8Array(784), created}) in one transaction: all or none. Their ids. */
  addAll: (list) => addAll(list),
};

async function addAll(list) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const t = db.transaction(STORE, 'readwrite');
      const ids = new Array(list.length);
      const store = t.objectStore(STORE);
      list.forEach((x, i) => {
        const req = store.add({label: x.label, pixels: x.pixels, created: x.created ?? Date.now()});
        req.onsuccess = () => { ids[i] = req.result; };
      });
      t.oncomplete = () => resolve(ids);
      t.onabort = t.onerror = () => reject(new Error(`IndexedDB: ${t.error ?? 'aborted'}`));
    });
  } finally {
    db.close();
  }
}

export function toBytes(pixels) {
  return Uint8Array.from(pixels, (v) => Math.round(Math.min(1, Math.max(0, v)) * 255));
}

/** The personal set as files: JSON (with pixel bytes) and CSV (label, p0..p783). */
export function exportJson(list) {
  return JSON.stringify({
    format: 'glint-digits-personal', version: 1, rows: 28, cols: 28,
    pixels: 'row major, 0 = background .. 255 = ink (the 28x28 input the model saw)',
    samples: list.map((s) => ({label: s.label, created: new Date(s.created).toISOString(),
                               pixels: Array.from(s.pixels)})),
  });
}

export function exportCsv(list) {
  const head = ['label', ...Array.from({length: PIXELS}, (_, i) => `p${i}`)].join(',');
  return [head, ...list.map((s) => [s.label, ...s.pixels].join(','))].join('\n') + '\n';
}
