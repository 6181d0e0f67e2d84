// Glint doctor: the pre-launch checklist of this browser. Everything is
// measured here, nothing is fetched from elsewhere. The finished report is
// window.doctorReport (the object "Copy as JSON" copies), with report.timings:
// when each section ran, in ms, and the total since the navigation started.
//   ?seconds=N   length of the speed test per backend (default: a budget of
//                SPEED_BUDGET seconds split across the available backends)
import * as glint from 'glint-ml';

// The speed test's budget: enough for a stable figure (its spread is reported),
// short enough for the full report in under 5 s (issue 26 item 12): 3.9-4.2 s here with 0.8.
const SPEED_BUDGET = 0.8;
const params = new URLSearchParams(location.search);
const SPEED_SECONDS = params.has('seconds') ? Math.max(0.1, Number(params.get('seconds')) || 0.1) : null;
/** Seconds of speed test on `backend`, one of `backends`: the reference (the test oracle) gets half a share. */
function speedSeconds(backend, backends) {
  const weight = (b) => (b === 'reference' ? 0.5 : 1);
  if (SPEED_SECONDS !== null) return SPEED_SECONDS * weight(backend);
  return SPEED_BUDGET * weight(backend) / backends.reduce((sum, b) => sum + weight(b), 0);
}
const $ = (id) => document.getElementById(id);

const report = {
  tool: 'glint doctor (browser)',
  glintVersion: glint.version,
  time: new Date().toISOString(),
  userAgent: navigator.userAgent,
  status: 'running',
  checks: [],
};

// ---- rendering ---------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

const badge = (status, text) => el('span', {class: `badge ${status}`}, text ?? status);

/** A card's body: rows of [label, value] and extra nodes. */
function fill(sectionId, status, rows, ...extra) {
  const card = $(sectionId);
  card.querySelector('h2 > .badge').replaceWith(badge(status, {ok: 'ok', warn: 'note', fail: 'problem',
                                                         info: 'info'}[status]));
  const body = card.querySelector('.body');
  body.replaceChildren();
  if (rows.length) {
    body.append(el('dl', {}, rows.map(([k, v]) => [el('dt', {}, k),
                                                   el('dd', {}, v instanceof Node ? v : shown(v))])));
  }
  body.append(...extra.filter((x) => x !== null && x !== undefined));
}

/** A value as the page shows it: never "null", "undefined" or "NaN". */
const shown = (v) => (v === null || v === undefined || Number.isNaN(v) ? 'unknown' : String(v));

/**
 * A box that may scroll sideways (a table, a long listing). Only while it does
 * scroll is it a tab stop, and then a named region (WCAG 2.1.1, 4.1.2).
 */
function scroller(label, ...children) {
  const box = el('div', {class: 'scroll'}, children);
  const update = () => {
    const scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    if (scrolls) {
      box.setAttribute('tabindex', '0');
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', label);
    } else if (document.activeElement !== box) {  // never taken away from under the user
      box.removeAttribute('tabindex');
      box.removeAttribute('role');
      box.removeAttribute('aria-label');
    }
  };
  const watch = new ResizeObserver(update);
  watch.observe(box);
  for (const c of box.children) watch.observe(c);
  return box;
}

/** short: what the summary line says (default: detail). */
function check(name, status, detail, short) {
  report.checks.push({name, status, detail});
  checkShort.set(name, short ?? detail);
}
const checkShort = new Map();

const notFinite = (v) => (v === Infinity ? '∞' : v === -Infinity ? '−∞' : 'unknown');
const fmt = (v, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : notFinite(v));
const exp2 = (v) => (Number.isFinite(v) ? v.toExponential(1) : notFinite(v));
const bytes = (n) => {
  if (!Number.isFinite(n)) return 'unknown';
  const u = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; ++i; }
  return `${n.toFixed(i ? 1 : 0)} ${u[i]}`;
};
const nextTask = () => new Promise((r) => setTimeout(r, 0));
const SOFTWARE = /swiftshader|llvmpipe|softpipe|software|basic render|mesa offscreen/i;

// ---- facts the page finds out itself ---------------------------------------------

function webglFacts() {
  const canvas = document.createElement('canvas');
  let gl = canvas.getContext('webgl2');
  let version = gl ? 2 : 0;
  if (!gl) {
    gl = canvas.getContext('webgl');
    version = gl ? 1 : 0;
  }
  if (!gl) return {version: 0, available: false};
  const dbg = gl.getExtension('WEBGL_debug_renderer_info');
  const hi = gl.getShaderPrecisionFormat(gl.FRAGMENT_SHADER, gl.HIGH_FLOAT);
  const facts = {
    available: true,
    version,
    versionString: gl.getParameter(gl.VERSION),
    shadingLanguage: gl.getParameter(gl.SHADING_LANGUAGE_VERSION),
    vendor: dbg ? gl.getParameter(dbg.UNMASKED_VENDOR_WEBGL) : gl.getParameter(gl.VENDOR),
    renderer: dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
    floatRenderTargets: version === 2 && gl.getExtension('EXT_color_buffer_float') !== null,
    highpFloat: hi !== null && hi.precision >= 23,
    highpPrecisionBits: hi ? hi.precision : 0,
    maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE),
  };
  facts.software = SOFTWARE.test(facts.renderer);
  gl.getExtension('WEBGL_lose_context')?.loseContext();  // give the context back now
  return facts;
}

/** What navigator.gpu gives: an adapter (its info, features, limits) or why not. Needs no engine. */
async function webgpuAdapterFacts() {
  const out = {present: typeof navigator.gpu === 'object' && navigator.gpu !== null};
  if (!out.present) return out;
  try {
    const adapter = await Promise.race([navigator.gpu.requestAdapter(),
                                        new Promise((r) => setTimeout(() => r('timeout'), 4000))]);
    if (adapter === 'timeout') {
      out.adapter = null;
      out.adapterError = 'requestAdapter did not answer within 4 s';
      return out;
    }
    if (!adapter) {
      out.adapter = null;
      out.adapterError = 'requestAdapter found no adapter (WebGPU is disabled or unsupported)';
      return out;
    }
    const info = adapter.info ?? (adapter.requestAdapterInfo ? await adapter.requestAdapterInfo() : {});
    out.adapter = {vendor: info.vendor ?? '', architecture: info.architecture ?? '',
                   device: info.device ?? '', description: info.description ?? '',
                   isFallbackAdapter: adapter.isFallbackAdapter ?? info.isFallbackAdapter ?? false};
    out.features = [...adapter.features].sort();
    out.limits = {};
    for (const k in adapter.limits) {
      if (typeof adapter.limits[k] === 'number') out.limits[k] = adapter.limits[k];
    }
  } catch (e) {
    out.adapter = null;
    out.adapterError = e.message;
  }
  return out;
}

/** The adapter facts beside what Glint's own webgpu backend says (its probe ran in glint.ready()). */
function webgpuFacts(info, adapterFacts) {
  const backend = info.backends.find((b) => b.name === 'webgpu');
  const {present, ...adapter} = adapterFacts;
  return {present, glintBackend: Boolean(backend), glintBackendAvailable: backend?.available === true,
          note: !backend ? 'This Glint build has no webgpu backend: it runs on gl (WebGL2) or cpu (wasm)'
            : backend.available ? 'Glint\'s webgpu backend runs on this adapter'
            : 'Glint\'s webgpu backend is not in use here (see Backends for why)',
          ...adapter};
}

// A module with one v128 instruction (i8x16.splat, i8x16.popcnt).
const SIMD_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1,
  0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);
// A module with a shared memory and an atomic load.
const THREADS_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1,
  0, 5, 4, 1, 3, 1, 1, 10, 11, 1, 9, 0, 65, 0, 254, 16, 2, 0, 26, 11]);

function wasmFacts(build) {
  let sharedMemory = false;
  try {
    sharedMemory = new WebAssembly.Memory({initial: 1, maximum: 1, shared: true}).buffer
        instanceof SharedArrayBuffer;
  } catch { /* not isolated */ }
  const facts = {
    simd: WebAssembly.validate(SIMD_MODULE),
    threadsInstructions: WebAssembly.validate(THREADS_MODULE),
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    sharedMemory,
    hardwareConcurrency: navigator.hardwareConcurrency ?? null,
    build,
  };
  facts.threads = facts.threadsInstructions && facts.crossOriginIsolated && facts.sharedMemory;
  return facts;
}

async function storageFacts() {
  const out = {indexedDB: typeof indexedDB === 'object' && indexedDB !== null};
  if (navigator.storage?.estimate) {
    const e = await navigator.storage.estimate();
    out.quota = e.quota ?? null;
    out.usage = e.usage ?? null;
  } else {
    out.quota = null;
    out.error = 'navigator.storage.estimate is not available';
  }
  if (navigator.storage?.persisted) out.persisted = await navigator.storage.persisted();
  return out;
}

// ---- Glint's own checks -------------------------------------------------------------

function kernelCoverage(backendNames) {
  const table = glint.kernelTable();
  const kernels = Object.keys(table).sort();
  const perBackend = {};
  for (const b of backendNames) {
    const missing = kernels.filter((k) => !table[k].includes(b));
    perBackend[b] = {implemented: kernels.length - missing.length, missing};
  }
  return {total: kernels.length, perBackend};
}

/** Deterministic values in [lo, hi), rounded to float32 (what the backends see). */
function values(n, seed, lo, hi) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (hi - lo) * (s / 4294967296);
  }
  return out;
}

function errors() {
  return {maxAbs: 0, maxRel: 0,
          add(got, want) {
            const a = Number.isFinite(got) ? Math.abs(got - want) : Infinity;
            this.maxAbs = Math.max(this.maxAbs, a);
            this.maxRel = Math.max(this.maxRel, a / Math.max(1, Math.abs(want)));
          }};
}

/** matMul, exp and sum on `backend` against the same arithmetic in float64. */
function precisionTest(backend) {
  glint.setBackend(backend);
  const m = 17, k = 33, n = 9;
  const a = values(m * k, 1, -1, 1), b = values(k * n, 2, -1, 1);
  const e = values(257, 3, -6, 4), s = values(1000, 4, 0, 1);
  const got = glint.tidy(() => ({
    mm: glint.matMul(glint.tensor(a, [m, k]), glint.tensor(b, [k, n])).dataSync(),
    ex: glint.exp(glint.tensor(e, [e.length])).dataSync(),
    su: glint.sum(glint.tensor(s, [s.length])).dataSync(),
  }));
  const mm = errors(), ex = errors(), su = errors();
  for (let i = 0; i < m; ++i) {
    for (let j = 0; j < n; ++j) {
      let want = 0;
      for (let p = 0; p < k; ++p) want += a[i * k + p] * b[p * n + j];
      mm.add(got.mm[i * n + j], want);
    }
  }
  e.forEach((v, i) => ex.add(got.ex[i], Math.exp(v)));
  su.add(got.su[0], s.reduce((x, y) => x + y, 0));
  const pick = ({maxAbs, maxRel}) => ({maxAbs, maxRel});
  const ops = {matMul: pick(mm), exp: pick(ex), sum: pick(su)};
  return {maxAbs: Math.max(mm.maxAbs, ex.maxAbs, su.maxAbs),
          maxRel: Math.max(mm.maxRel, ex.maxRel, su.maxRel), ops};
}

/** The q-quantile of sorted values (nearest rank). */
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];

/**
 * The standard mlp (784-128-10, Adam 1e-3) at batch 64 on random data: after two
 * warm-up steps (shaders, pools), training steps for 4/5 of `seconds` (at least 5),
 * each one timed: steps/s over the time spent in them, and the spread of single
 * steps (median, p10, p90); then one-sample predict latency for the last 1/5.
 * Yields to the page every 40 ms so it stays responsive.
 */
async function speedTest(backend, seconds, onProgress) {
  glint.setBackend(backend);
  glint.setSeed(7);
  const L = glint.layers;
  const model = glint.sequential({layers: [
    L.dense({units: 128, activation: 'relu', inputShape: [784]}),
    L.dense({units: 10, activation: 'softmax'})]});
  model.compile({optimizer: glint.train.adam(1e-3), loss: 'categoricalCrossentropy'});
  const batch = 64;
  const xs = values(batch * 784, 5, 0, 1);
  const ys = new Float32Array(batch * 10);
  for (let i = 0; i < batch; ++i) ys[i * 10 + (i * 7) % 10] = 1;
  const x = glint.tensor(xs, [batch, 784]), y = glint.tensor(ys, [batch, 10]);
  const one = glint.tensor(xs.slice(0, 784), [1, 784]);
  try {
    const warmupStepsMs = [];
    for (let i = 0; i < 2; ++i) {  // warm-up: shaders, pools
      const tw = performance.now();
      model.trainOnBatchSync(x, y);
      warmupStepsMs.push(ms(performance.now() - tw));
    }
    const warmupMs = warmupStepsMs[0] + warmupStepsMs[1];
    await nextTask();
    const trainMs = 800 * seconds;
    const stepMs = [];
    let loss = NaN, sliceStart = performance.now();
    const t0 = performance.now();
    // At least 5 steps, unless a step is so slow that 4 budgets went by.
    for (let now = t0; now - t0 < trainMs || (stepMs.length < 5 && now - t0 < 4 * trainMs);) {
      const s = performance.now();
      loss = model.trainOnBatchSync(x, y).loss;
      now = performance.now();
      stepMs.push(now - s);
      if (now - sliceStart > 40) {
        onProgress(`${backend}: training, ${stepMs.length} steps`);
        await nextTask();
        sliceStart = now = performance.now();
      }
    }
    const trainSeconds = stepMs.reduce((a, b) => a + b, 0) / 1000;
    const steps = stepMs.length;
    stepMs.sort((u, v) => u - v);
    const predictOnce = async () => {
      const p = model.predict(one);
      await p.data();
      p.dispose();
    };
    const tpw = performance.now();
    await predictOnce();  // warm-up
    const predictWarmupMs = ms(performance.now() - tpw);
    const predictMs = [];
    const p0 = performance.now();
    sliceStart = p0;
    while (performance.now() - p0 < 200 * seconds || predictMs.length < 3) {
      const s = performance.now();
      await predictOnce();
      predictMs.push(performance.now() - s);
      if (performance.now() - sliceStart > 40) {
        await nextTask();
        sliceStart = performance.now();
      }
    }
    predictMs.sort((u, v) => u - v);
    return {model: 'mlp 784-128-10, batch 64, adam', seconds, warmupMs, warmupStepsMs, trainSteps: steps, trainSeconds,
            stepsPerSecond: steps / trainSeconds, samplesPerSecond: (steps * batch) / trainSeconds,
            stepMsMedian: quantile(stepMs, 0.5), stepMsP10: quantile(stepMs, 0.1),
            stepMsP90: quantile(stepMs, 0.9),
            finalLoss: loss, predictWarmupMs, predictRuns: predictMs.length, predictMsMedian: quantile(predictMs, 0.5),
            predictMsMin: predictMs[0]};
  } finally {
    glint.dispose([x, y, one]);
    model.dispose();
  }
}

// ---- the run -------------------------------------------------------------------------------

/** Milliseconds, to 0.1 ms. */
const ms = (v) => Math.round(v * 10) / 10;
// When each section ran (ms): report.timings. total: since the navigation started.
const timings = report.timings = {};

/** fn()'s promise, its time in timings[key]. */
async function timed(key, fn) {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    timings[key] = ms(performance.now() - t);
  }
}

// The visible progress line changes often (every training slice); screen
// readers hear only the start of each section (#announce, a polite live
// region) and then the verdict (#summary, role=status): a handful in a run.
function progress(text) {
  $('progress').textContent = text;
}

function section(text) {
  progress(`${text}…`);
  $('announce').textContent = `Checking: ${text}`;
}

async function run() {
  section('loading Glint');
  const t0 = performance.now();
  timings.script = ms(t0);
  // Started together, as they wait on different things: the engine (wasm compile,
  // threads, backend probes) and what the browser answers by itself (the storage
  // quota, a WebGPU adapter). The WebGL facts are read meanwhile (a context of their own).
  const loading = glint.ready().then(() => { report.loadMs = timings.load = ms(performance.now() - t0); });
  const storageAsked = timed('storage', storageFacts).catch((e) => ({quota: null, error: e.message}));
  const adapterAsked = timed('webgpu', webgpuAdapterFacts);
  const tg = performance.now();
  const webgl = webglFacts();
  timings.webgl = ms(performance.now() - tg);
  await loading;

  // Backends, before anything calls setBackend: this is the automatic choice.
  const info = glint.backendInfo();
  report.glint = {active: info.active, why: info.why, build: info.build, backends: info.backends};
  const available = info.backends.filter((b) => b.available).map((b) => b.name);
  check('backends', available.length ? 'ok' : 'fail',
        `${available.join(', ')} available; automatic choice: ${info.active}`);
  fill('backends', available.length ? 'ok' : 'fail', [
    ['Automatic choice', el('strong', {}, info.active)],
    ['Why', info.why],
    ['Build', `${info.build.name} (${info.build.threads ? 'threads' : 'single thread'})`],
  ], el('ul', {class: 'backends'}, info.backends.map((b) => el('li', {},
    badge(b.available ? 'ok' : 'fail', b.available ? 'available' : 'unavailable'), ' ',
    el('strong', {}, b.name), ` (priority ${b.priority}) `,
    b.software ? badge('warn', 'software renderer') : null,
    el('div', {class: 'reason'}, b.reason)))));

  // WebGL.
  report.webgl = webgl;
  const glOk = webgl.version === 2 && webgl.floatRenderTargets && webgl.highpFloat;
  check('webgl', glOk ? (webgl.software ? 'warn' : 'ok') : 'fail',
        !webgl.available ? 'no WebGL context' : webgl.software
          ? `software renderer: ${webgl.renderer}` : `WebGL${webgl.version}, ${webgl.renderer}`,
        webgl.software ? 'software renderer: gl is slower than cpu here' : undefined);
  fill('webgl', glOk ? (webgl.software ? 'warn' : 'ok') : 'fail', webgl.available ? [
    ['Version', `WebGL ${webgl.version} (${webgl.versionString})`],
    ['Renderer', webgl.renderer],
    ['Vendor', webgl.vendor],
    ['Software renderer', webgl.software ? 'yes: the GPU is emulated on the CPU' : 'no'],
    ['Float render targets', webgl.floatRenderTargets ? 'yes (EXT_color_buffer_float)' : 'no'],
    ['highp float', webgl.highpFloat ? `yes (${webgl.highpPrecisionBits} bits)` : 'no'],
    ['MAX_TEXTURE_SIZE', webgl.maxTextureSize],
  ] : [['WebGL', 'no context could be created']]);

  // WebAssembly.
  const wasm = wasmFacts(info.build);
  try {
    wasm.cpuThreads = glint.getNumThreads();
  } catch {
    wasm.cpuThreads = null;
  }
  report.wasm = wasm;
  check('wasm', wasm.simd ? 'ok' : 'fail',
        `SIMD ${wasm.simd ? 'yes' : 'no'}, threads ${wasm.threads ? 'yes' : 'no'}`);
  fill('wasm', wasm.simd ? (wasm.threads ? 'ok' : 'warn') : 'fail', [
    ['SIMD (128-bit)', wasm.simd ? 'yes' : 'no'],
    ['Threads', wasm.threads ? 'yes' : 'no'],
    ['Cross-origin isolated', wasm.crossOriginIsolated ? 'yes' : 'no (serve with COOP/COEP)'],
    ['SharedArrayBuffer', wasm.sharedArrayBuffer ? 'yes' : 'no'],
    ['CPU cores (reported)', wasm.hardwareConcurrency ?? 'unknown'],
    ['Threads Glint uses', wasm.cpuThreads ?? 'unknown'],
    ['Glint build loaded', `${info.build.name}${info.build.threads ? ' (SIMD + threads)' :
                                                  ' (SIMD, single thread)'}`],
  ]);

  // Storage (asked for while the engine started).
  const storage = await storageAsked;
  report.storage = storage;
  const storageOk = Number.isFinite(storage.quota) && storage.quota > 0;
  check('storage', storageOk ? 'ok' : 'warn',
        storageOk ? `${bytes(storage.quota)} quota` : storage.error ?? 'no quota reported');
  fill('storage', storageOk ? 'ok' : 'warn', [
    ['IndexedDB', storage.indexedDB ? 'yes' : 'no'],
    ['Quota', bytes(storage.quota)],
    ['In use', bytes(storage.usage)],
    ['Persistent', storage.persisted === undefined ? 'unknown' : storage.persisted ? 'yes' : 'no'],
  ]);

  // WebGPU (the adapter asked for while the engine started).
  const webgpu = webgpuFacts(info, await adapterAsked);
  report.webgpu = webgpu;
  check('webgpu', 'info', webgpu.adapter ? `adapter ${webgpu.adapter.vendor} ${webgpu.adapter.architecture}`
                                         : webgpu.present ? 'no adapter' : 'navigator.gpu absent');
  const keyLimits = ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupSizeX',
                     'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupStorageSize',
                     'maxTextureDimension2D'];
  fill('webgpu', 'info', [
    ['navigator.gpu', webgpu.present ? 'present' : 'absent'],
    ['Adapter', webgpu.adapter ? [webgpu.adapter.vendor, webgpu.adapter.architecture,
                                  webgpu.adapter.description].filter(Boolean).join(' · ') || '(no details)'
                               : webgpu.adapterError ?? 'none'],
    ...(webgpu.adapter ? [['Software / fallback', webgpu.adapter.isFallbackAdapter ||
                             SOFTWARE.test(webgpu.adapter.architecture + ' ' + webgpu.adapter.description)
                             ? 'yes' : 'no'],
                          ...keyLimits.filter((k) => k in webgpu.limits)
                              .map((k) => [k, webgpu.limits[k].toLocaleString('en')])] : []),
  ], el('p', {class: 'hint'}, webgpu.note + '.'), webgpu.limits ? el('details', {},
    el('summary', {}, `all ${Object.keys(webgpu.limits).length} limits`),
    scroller('All WebGPU limits', el('pre', {}, JSON.stringify(webgpu.limits, null, 1)))) : null);

  // Kernel coverage.
  const names = info.backends.map((b) => b.name);
  const tk = performance.now();
  const kernels = kernelCoverage(names);
  timings.kernels = ms(performance.now() - tk);
  report.kernels = kernels;
  const complete = names.every((b) => kernels.perBackend[b].missing.length === 0);
  check('kernels', complete ? 'ok' : 'fail', names.map((b) =>
    `${b} ${kernels.perBackend[b].implemented}/${kernels.total}`).join(', '));
  fill('kernels', complete ? 'ok' : 'fail', [['Kernels registered', kernels.total]],
       scroller('Kernel coverage table', el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'backend'), el('th', {}, 'implemented'),
                                           el('th', {}, 'missing'))),
          el('tbody', {}, names.map((b) => {
            const c = kernels.perBackend[b];
            return el('tr', {}, el('td', {}, b), el('td', {}, `${c.implemented} / ${kernels.total}`),
                      el('td', {}, c.missing.length ? badge('fail', c.missing.join(', ')) : badge('ok', 'none')));
          })))));

  // Precision per available backend.
  section('precision tests');
  await nextTask();
  report.precision = {};
  timings.precision = {};
  const tp = performance.now();
  for (const b of available) {
    const tb = performance.now();
    try {
      const p = precisionTest(b);
      p.ok = p.maxRel < 1e-4;
      report.precision[b] = p;
    } catch (e) {
      report.precision[b] = {ok: false, error: e.message};
    }
    timings.precision[b] = ms(performance.now() - tb);
    await nextTask();
  }
  timings.precision.total = ms(performance.now() - tp);
  const precOk = Object.values(report.precision).every((p) => p.ok);
  check('precision', precOk ? 'ok' : 'fail', Object.entries(report.precision).map(([b, p]) =>
    `${b} ${p.error ? 'error' : exp2(p.maxRel)}`).join(', '));
  fill('precision', precOk ? 'ok' : 'fail', [],
       el('p', {class: 'hint'}, 'matMul 17×33×9, exp of 257 values in [−6, 4), sum of 1000: float32 ' +
          'results against float64 in JavaScript. Relative error = |got − want| / max(1, |want|).'),
       scroller('Precision table', el('table', {}, el('thead', {}, el('tr', {}, ['backend', 'max abs', 'max rel', 'matMul', 'exp', 'sum']
                                                   .map((h) => el('th', h === 'max abs' ? {class: 'opt'} : {}, h)))),
          el('tbody', {}, Object.entries(report.precision).map(([b, p]) => p.error
            ? el('tr', {}, el('td', {}, b), el('td', {colspan: '5'}, badge('fail', p.error)))
            : el('tr', {}, el('td', {}, b), el('td', {class: 'opt'}, exp2(p.maxAbs)),
                 el('td', {}, badge(p.ok ? 'ok' : 'fail', exp2(p.maxRel))),
                 ['matMul', 'exp', 'sum'].map((o) => el('td', {}, exp2(p.ops[o].maxRel)))))))));

  // Speed per available backend.
  report.speed = {};
  timings.speed = {};
  const speedRows = el('tbody', {});
  const perBackend = available.map((b) => speedSeconds(b, available));
  const range = (xs) => (Math.min(...xs) === Math.max(...xs) ? fmt(xs[0], 2)
                                                            : `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}`);
  fill('speed', 'info', [], el('p', {class: 'hint'},
    `mlp 784→128→10, Adam, batch 64 on random data, per backend (${range(perBackend)} s each` +
    `${SPEED_SECONDS === null ? `, a budget of ${fmt(SPEED_BUDGET, 1)} s in all` : ''}): two warm-up steps ` +
    '(shader compiles, memory pools), 4/5 of the time in training steps, each one timed, then 1/5 in ' +
    'one-sample predictions. Step time p10–p90: the spread of single steps; a wide one means the device ' +
    'was busy with something else, and the figure is less sure.'),
  scroller('Speed table', el('table', {}, el('thead', {}, el('tr', {}, ['backend', 'train steps/s', 'step time p10–p90',
                                                                      'samples/s', 'predict (median)', 'warm-up']
      .map((h) => el('th', ['samples/s', 'warm-up'].includes(h) ? {class: 'opt'} : {}, h)))),
     speedRows)));
  const tsAll = performance.now();
  for (const b of available) {
    section(`speed test on ${b}`);
    const tb = performance.now();
    let s;
    try {
      s = await speedTest(b, speedSeconds(b, available), progress);
    } catch (e) {
      s = {error: e.message};
    }
    timings.speed[b] = ms(performance.now() - tb);
    report.speed[b] = s;
    const stepDigits = (v) => (v < 1 ? 3 : v < 10 ? 2 : 1);
    speedRows.append(s.error
      ? el('tr', {}, el('td', {}, b), el('td', {colspan: '5'}, badge('fail', s.error)))
      : el('tr', {}, el('td', {}, b), el('td', {}, el('strong', {}, fmt(s.stepsPerSecond, 1)),
                                          ` (${s.trainSteps} steps)`),
           el('td', {}, `${fmt(s.stepMsP10, stepDigits(s.stepMsP10))}–` +
                        `${fmt(s.stepMsP90, stepDigits(s.stepMsP10))} ms`),
           el('td', {class: 'opt'}, fmt(s.samplesPerSecond, 0)),
           el('td', {}, `${fmt(s.predictMsMedian, s.predictMsMedian < 1 ? 3 : 2)} ms`),
           el('td', {class: 'opt'}, `${fmt(s.warmupMs, 0)} ms`)));
  }
  timings.speed.total = ms(performance.now() - tsAll);
  const speedOk = Object.values(report.speed).every((s) => !s.error && s.stepsPerSecond > 0);
  check('speed', speedOk ? 'ok' : 'fail', Object.entries(report.speed).map(([b, s]) =>
    `${b} ${s.error ? 'error' : fmt(s.stepsPerSecond, 1) + ' steps/s'}`).join(', '));
  $('speed').querySelector('h2 > .badge').replaceWith(badge(speedOk ? 'ok' : 'fail',
                                                       speedOk ? 'ok' : 'problem'));

  // Back to the automatic choice.
  glint.setBackend(info.active);
  report.memoryAfter = glint.memory();
  report.status = 'complete';
  summarize();
}

const BACKEND_WORDS = {cpu: 'the CPU', reference: 'the CPU', gl: 'the GPU', webgpu: 'the GPU'};

/** ms with the digits that mean something: 412, 37, 2.1, 0.43. */
const msText = (ms) => ms.toFixed(ms >= 10 ? 0 : ms >= 1 ? 1 : 2);

/**
 * The plain-language verdict that opens the summary: the backend Glint will
 * use, what the GPU gives, and how long a training step takes, all from this
 * report's own measurements.
 */
function verdict() {
  const g = report.glint;
  if (!g) return `Glint could not start in this browser${report.error ? `: ${report.error}` : ''}.`;
  const active = g.active;
  const by = Object.fromEntries(g.backends.map((b) => [b.name, b]));
  const speed = report.speed ?? {};
  const sps = (b) => (speed[b] && !speed[b].error && speed[b].stepsPerSecond > 0 ? speed[b].stepsPerSecond : NaN);
  const wasm = report.wasm ?? {};
  const cpu = `WebAssembly${wasm.simd ? ', SIMD' : ' without SIMD'}` +
      (wasm.threads ? ` + ${wasm.cpuThreads > 1 ? `${wasm.cpuThreads} threads` : 'threads'}` : ', one thread');
  const gpuName = (text) => text?.match(SOFTWARE)?.[0];
  const where = {
    cpu: `your CPU (${cpu})`,
    reference: 'your CPU (the scalar reference backend, the slowest one)',
    gl: `your GPU (WebGL2${report.webgl?.software ? `, emulated by ${gpuName(report.webgl.renderer)}` : ''})`,
    webgpu: 'your GPU (WebGPU)',
  }[active] ?? `its ${active} backend`;
  const parts = [`Glint will use ${where}`];
  if (active !== 'gl' && active !== 'webgpu') {
    // What the GPU would give, measured against the backend in use.
    const compared = () => {
      const ratio = sps(active) / sps('gl');
      if (!Number.isFinite(ratio)) return '';
      const than = BACKEND_WORDS[active] ?? active;
      return ratio > 1.1 ? `, slower than ${than}` : ratio < 0.9 ? `, faster than ${than} in this test`
                                                   : `, about as fast as ${than}`;
    };
    if (by.gl?.available && report.webgl?.software) {
      parts.push(`your GPU is emulated here (${gpuName(report.webgl.renderer) ?? 'a software renderer'})${compared()}`);
    } else if (by.gl?.available) {
      parts.push(`WebGL on your GPU works${compared()}`);
    } else {
      parts.push('WebGL on your GPU is not usable here');
    }
  }
  const ms = 1000 / sps(active);
  parts.push(Number.isFinite(ms)
    ? `a training step of a digits-sized model (784→128→10, batch of 64) takes about ${msText(ms)} ms`
    : `the speed test did not run on ${active}`);
  return `${parts.join('; ')}.`;
}

/** The Timings card: each section's time and the total, from report.timings. */
function showTimings() {
  const t = timings;
  const each = (o) => Object.entries(o ?? {}).filter(([k]) => k !== 'total').map(([b, v]) => `${b} ${msText(v)}`)
      .join(', ');
  const row = (label, v, parts) => [label, v === undefined ? 'not run'
                                               : `${msText(v)} ms${parts ? ` (${parts})` : ''}`];
  fill('timings', 'info', [
    row('Page and script loaded', t.script),
    row('Engine start (glint.ready)', t.load),
    row('WebGL facts, meanwhile', t.webgl),
    row('Storage quota, meanwhile', t.storage),
    row('WebGPU adapter, meanwhile', t.webgpu),
    row('Kernel coverage', t.kernels),
    row('Precision tests', t.precision?.total, each(t.precision)),
    row('Speed tests', t.speed?.total, each(t.speed)),
    ['Full report', el('strong', {}, `${fmt(t.total / 1000, 1)} s`)],
  ], el('p', {class: 'hint'}, 'Milliseconds of each section; the page counts from the moment it was asked for, ' +
        'and the storage quota, the WebGPU adapter and the WebGL facts are asked for while the engine starts.'));
}

function summarize() {
  timings.total = ms(performance.now());
  report.totalMs = timings.total;
  showTimings();
  const fails = report.checks.filter((c) => c.status === 'fail');
  const warns = report.checks.filter((c) => c.status === 'warn');
  const s = $('summary');
  s.className = `summary ${fails.length ? 'fail' : warns.length ? 'warn' : 'ok'}`;
  report.verdict = verdict();
  // One change of the status region: announced once, when the report is complete.
  s.replaceChildren(
    el('p', {class: 'verdict'}, el('strong', {}, report.verdict)),
    el('p', {class: 'details'},
       fails.length ? `${fails.length} problem${fails.length > 1 ? 's' : ''} found` : 'Ready: Glint runs here',
       ` — running on ${report.glint?.active ?? 'no backend'}`,
       warns.length ? ` · notes: ${warns.map((w) => `${w.name} (${checkShort.get(w.name)})`).join('; ')}` : '',
       fails.length ? ` · problems: ${fails.map((f) => `${f.name} (${f.detail})`).join('; ')}` : '',
       '. Everything measured is under “Show the details”.'));
  progress(`Full report in ${fmt(timings.total / 1000, 1)} s`);
  $('copy').disabled = false;
  window.doctorReport = report;
}

// ---- Copy as JSON ----------------------------------------------------------------------

/** The note beside the button, in a live region: said again on a second press. */
function note(text) {
  const c = $('copied');
  if (c.textContent !== text) {
    c.textContent = text;
    return;
  }
  c.textContent = '';
  setTimeout(() => { c.textContent = text; }, 100);
}

// Focus stays on the button throughout: nothing here disables or hides it.
$('copy').addEventListener('click', async () => {
  const text = JSON.stringify(report, null, 2);
  const pre = $('json');
  try {
    await navigator.clipboard.writeText(text);
    note('Copied to the clipboard.');
    pre.hidden = true;
  } catch {
    // No clipboard (permissions, insecure context): show it to copy by hand.
    note('The clipboard is not available: the report is shown below as JSON, selected, to copy by hand.');
    pre.textContent = text;
    pre.hidden = false;
    const range = document.createRange();
    range.selectNodeContents(pre);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  }
});

run().catch((e) => {
  report.status = 'error';
  report.error = e.message;
  check('doctor', 'fail', e.message);
  for (const card of document.querySelectorAll('.card')) {
    card.querySelector('h2 > .badge.pending')?.replaceWith(badge('fail', 'not run'));
  }
  summarize();
});
