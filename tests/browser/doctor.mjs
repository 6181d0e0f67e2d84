#!/usr/bin/env node
// The doctor page (web/apps/doctor) in Debian's headless Chromium: waits for
// window.doctorReport and checks it: every backend listed with a status, cpu
// available, gl available on WebGL2 and flagged as a software renderer
// (SwiftShader), no check left pending, kernel coverage complete on cpu and gl,
// precision within 1e-4 on each backend, speed figures above zero, a storage
// quota; the summary opens with a verdict sentence whose training-step time is the
// measured one; the page shows no "null"/"undefined"/"NaN" nor stale webgpu text.
// Then screenshots at desktop and phone widths (build/screenshots/).
// Usage: node tests/browser/doctor.mjs [--seconds S] (speed test per backend; default 1)
// Needs the web package's builds (make web). Last line: "N passed, N failed".
import {check, checkNoErrors, openPage, runMain, screenshots, withBrowser} from './harness.mjs';

const argv = process.argv.slice(2);
const seconds = argv[0] === '--seconds' ? Number(argv[1]) : 1;

runMain(() => withBrowser(async ({base, context}) => {
  const t0 = Date.now();
  const {page, errors} = await openPage(context, `${base}/web/apps/doctor/index.html?seconds=${seconds}`,
                                        {viewport: {width: 1280, height: 900}});
  await page.waitForFunction(() => window.doctorReport !== undefined, null, {timeout: 75000});
  const r = await page.evaluate(() => window.doctorReport);
  const seconds_ = ((Date.now() - t0) / 1000).toFixed(1);
  check('report complete', r.status === 'complete', `${r.status}${r.error ? ': ' + r.error : ''}, ${seconds_} s`);

  const backends = r.glint?.backends ?? [];
  const by = Object.fromEntries(backends.map((b) => [b.name, b]));
  check('every backend listed with a status',
        backends.length >= 2 && backends.every((b) => typeof b.available === 'boolean' &&
                                                        typeof b.reason === 'string' && b.reason),
        backends.map((b) => `${b.name}=${b.available ? 'available' : 'unavailable'}`).join(', '));
  check('cpu available', by.cpu?.available === true, by.cpu?.reason);
  check('gl available and flagged as a software renderer (SwiftShader)',
        by.gl?.available === true && by.gl?.software === true && /swiftshader/i.test(by.gl?.reason ?? ''),
        by.gl?.reason);
  check('automatic choice named, with why', typeof r.glint?.active === 'string' && r.glint.active &&
        typeof r.glint?.why === 'string' && r.glint.why.length > 0, `${r.glint?.active}: ${r.glint?.why}`);
  check('WebGL facts: WebGL2, float render targets, highp, MAX_TEXTURE_SIZE, software',
        r.webgl?.version === 2 && r.webgl.floatRenderTargets && r.webgl.highpFloat &&
        r.webgl.maxTextureSize >= 2048 && r.webgl.software === true && /swiftshader/i.test(r.webgl.renderer),
        r.webgl && `${r.webgl.renderer}, max texture ${r.webgl.maxTextureSize}`);
  // glintBackend: whether Glint has a webgpu backend, as its own backend list says.
  check('WebGPU reported (present or not, adapter or why not; Glint\'s webgpu backend as listed)',
        r.webgpu && typeof r.webgpu.present === 'boolean' && r.webgpu.glintBackend === Boolean(by.webgpu) &&
        r.webgpu.glintBackendAvailable === (by.webgpu?.available === true) &&
        (r.webgpu.adapter || r.webgpu.adapterError || !r.webgpu.present),
        r.webgpu && (r.webgpu.adapter ? JSON.stringify(r.webgpu.adapter) : r.webgpu.adapterError ?? 'absent'));
  check('wasm: SIMD, threads, cross-origin isolated, threads build loaded',
        r.wasm?.simd === true && r.wasm.threads === true && r.wasm.crossOriginIsolated === true &&
        r.wasm.build?.threads === true, r.wasm && JSON.stringify(r.wasm.build));
  for (const b of ['cpu', 'gl']) {
    const c = r.kernels?.perBackend?.[b];
    check(`kernel coverage complete on ${b}`, c && c.missing.length === 0 && c.implemented === r.kernels.total &&
          r.kernels.total > 0, c && `${c.implemented}/${r.kernels.total}, missing ${c.missing.join(',') || 'none'}`);
  }
  const available = backends.filter((b) => b.available).map((b) => b.name);
  for (const b of available) {
    const p = r.precision?.[b];
    check(`precision on ${b} < 1e-4`, p && !p.error && p.maxRel < 1e-4 && p.ok === true,
          p && (p.error ?? `max rel ${p.maxRel.toExponential(2)}, max abs ${p.maxAbs.toExponential(2)}`));
    const s = r.speed?.[b];
    check(`speed on ${b} > 0`, s && !s.error && s.stepsPerSecond > 0 && s.samplesPerSecond > 0 &&
          s.predictMsMedian > 0, s && (s.error ?? `${s.stepsPerSecond.toFixed(1)} steps/s, predict ` +
                                        `${s.predictMsMedian.toFixed(3)} ms`));
  }
  check('storage quota reported', r.storage?.quota > 0, r.storage && `${r.storage.quota} bytes`);
  const page_ = await page.evaluate(() => ({summary: document.getElementById('summary').textContent.trim(),
                                             text: document.body.textContent.replace(/\s+/g, ' ')}));
  const stepMs = 1000 / r.speed?.[r.glint?.active]?.stepsPerSecond;
  check('the summary opens with a plain-language verdict with the measured training-step time',
        /^Glint will use your (CPU|GPU) \(/.test(page_.summary) && r.verdict && page_.summary.startsWith(r.verdict) &&
        Number.isFinite(stepMs) && r.verdict.includes(`about ${stepMs.toFixed(stepMs >= 10 ? 0 : stepMs >= 1 ? 1 : 2)} ms`),
        page_.summary.slice(0, 240));
  const stray = page_.text.match(/.{0,40}(\b(null|undefined|NaN)\b|no webgpu backend yet).{0,10}/i);
  check('the page shows no "null", "undefined", "NaN" nor "no webgpu backend yet"', !stray, stray?.[0]);
  const pending = await page.evaluate(() => [...document.querySelectorAll('.badge.pending')]
      .map((e) => e.closest('.card')?.id ?? e.textContent));
  check('no check left pending on the page', pending.length === 0 &&
        r.checks.every((c) => ['ok', 'warn', 'info'].includes(c.status)),
        pending.join(', ') || r.checks.map((c) => `${c.name}:${c.status}`).join(' '));
  const copied = await page.evaluate(async () => {
    document.getElementById('copy').click();
    await new Promise((res) => setTimeout(res, 300));
    const pre = document.getElementById('json');
    return {note: document.getElementById('copied').textContent,
            pre: pre.hidden ? null : pre.textContent};
  });
  check('Copy as JSON: clipboard or the <pre> fallback', copied.note.length > 0 &&
        (copied.pre === null || JSON.parse(copied.pre).status === 'complete'), copied.note);
  checkNoErrors(errors);
  await screenshots(page, 'doctor');
  await page.close();
}));
