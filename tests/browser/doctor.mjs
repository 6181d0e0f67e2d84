#!/usr/bin/env node
// The doctor page (web/apps/doctor) in Debian's headless Chromium, with its default
// settings (no ?seconds): waits for window.doctorReport and checks it: the full
// report within 5 s of the navigation (issue 26 item 12; the figure is printed),
// its per-section timings and the total shown on the page; every backend listed
// with a status, cpu available, gl available on WebGL2 and flagged as a software
// renderer (SwiftShader), no check left pending, kernel coverage complete on cpu and
// gl, precision within 1e-4 on each backend, speed figures above zero with their
// spread, a storage quota; the summary opens with a verdict sentence whose
// training-step time is the measured one; the details sit behind a toggle that is
// closed at first and opens and closes from the keyboard (Enter, Space); the page
// shows no "null"/"undefined"/"NaN" nor stale webgpu text.
// Then screenshots at desktop and phone widths, details open (build/screenshots/).
// Usage: node tests/browser/doctor.mjs [--seconds S] (speed test per backend instead of
// the default time budget; the 5 s bound is then not checked).
// Needs the web package's builds (make web). Last line: "N passed, N failed".
import {focused} from './a11y.mjs';
import {check, checkNoErrors, collectErrors, runMain, screenshots, withBrowser} from './harness.mjs';

const argv = process.argv.slice(2);
const seconds = argv[0] === '--seconds' ? Number(argv[1]) : null;
const FULL_REPORT_MS = 5000;  // issue 26 item 12: the full report in under 5 s

/** Tabs from the top of the page until `target` ("TAG#id") has focus; the presses, or -1. */
async function tabTo(page, target, most = 30) {
  await page.evaluate(() => document.activeElement?.blur());
  await page.mouse.click(2, 2);
  for (let i = 1; i <= most; ++i) {
    await page.keyboard.press('Tab');
    if (await focused(page) === target) return i;
  }
  return -1;
}

/** The details toggle and the cards: open or not, and how many cards are visible. */
const detailsState = (page) => page.evaluate(() => {
  const d = document.getElementById('details');
  const t = d?.querySelector('summary');
  return {open: d?.open ?? null, name: t?.textContent.replace(/\s+/g, ' ').trim() ?? '',
          visible: [...document.querySelectorAll('.card')].filter((c) => c.checkVisibility()).length,
          cards: document.querySelectorAll('.card').length};
});

runMain(() => withBrowser(async ({base, context}) => {
  const t0 = Date.now();
  const page = await context.newPage();
  await page.setViewportSize({width: 1280, height: 900});
  // When the page sets window.doctorReport (its report complete), in the page's own
  // clock: milliseconds since the navigation started.
  await page.addInitScript(() => {
    let value;
    Object.defineProperty(window, 'doctorReport', {configurable: true, get: () => value,
                                                   set: (v) => { window.__doctorDoneAt = performance.now(); value = v; }});
  });
  const errors = collectErrors(page);
  await page.goto(`${base}/web/apps/doctor/index.html${seconds === null ? '' : `?seconds=${seconds}`}`);
  await page.waitForFunction(() => window.doctorReport !== undefined, null, {timeout: 75000});
  const r = await page.evaluate(() => window.doctorReport);
  const doneAt = await page.evaluate(() => window.__doctorDoneAt);
  const seconds_ = ((Date.now() - t0) / 1000).toFixed(1);
  check('report complete', r.status === 'complete', `${r.status}${r.error ? ': ' + r.error : ''}, ${seconds_} s`);
  const sections = Object.entries(r.timings ?? {}).filter(([k]) => k !== 'total')
      .map(([k, v]) => `${k} ${typeof v === 'number' ? Math.round(v) : JSON.stringify(v)}`).join(', ');
  console.log(`     full report ${(doneAt / 1000).toFixed(2)} s after navigation; report.timings: ${sections || 'none'}`);
  if (seconds === null) {
    check(`default settings: the full report in under ${FULL_REPORT_MS / 1000} s of the navigation`,
          r.status === 'complete' && doneAt < FULL_REPORT_MS, `${(doneAt / 1000).toFixed(2)} s`);
  } else {
    // Not checked with --seconds S: a longer speed test is asked for, so the bound is not the issue's.
    console.log(`skip the ${FULL_REPORT_MS / 1000} s bound: --seconds ${seconds} is not the default settings`);
  }
  const shownTotal = await page.evaluate(() => document.getElementById('progress').textContent.trim());
  const wantTotal = `${((r.timings?.total ?? NaN) / 1000).toFixed(1)} s`;
  check('report.timings: load, precision and speed (per backend) and the total, shown on the page',
        Number.isFinite(r.timings?.total) && Math.abs(r.timings.total - doneAt) < 250 && r.timings.load > 0 &&
        Object.keys(r.precision ?? {}).every((b) => r.timings.precision?.[b] >= 0) &&
        Object.keys(r.speed ?? {}).every((b) => r.timings.speed?.[b] > 0) && shownTotal.includes(wantTotal),
        `total ${r.timings?.total?.toFixed(0)} ms (set at ${doneAt.toFixed(0)} ms); the page says "${shownTotal}"`);

  // The details: behind a toggle, closed at first; Enter and Space open and close it.
  const closed = await detailsState(page);
  const presses = await tabTo(page, 'SUMMARY');
  const steps = [];
  for (const key of ['Enter', 'Enter', ' ']) {
    if (presses < 0) break;
    await page.keyboard.press(key === ' ' ? 'Space' : key);
    await page.waitForTimeout(100);
    steps.push({key: key === ' ' ? 'Space' : key, ...await detailsState(page)});
  }
  const [opened, reclosed, reopened] = steps;
  check('the details toggle: named, closed at first with the cards hidden; from the keyboard Enter opens it ' +
        '(every card visible), Enter closes it, Space opens it', closed.open === false && closed.visible === 0 &&
        closed.cards >= 8 && /details/i.test(closed.name) && presses > 0 && opened?.open === true &&
        opened.visible === closed.cards && reclosed?.open === false && reclosed.visible === 0 &&
        reopened?.open === true && reopened.visible === closed.cards && await focused(page) === 'SUMMARY',
        `"${closed.name}", ${closed.open ? 'open' : 'closed'} with ${closed.visible}/${closed.cards} cards visible; ` +
        `${presses > 0 ? `${presses} Tabs` : 'never reached by Tab'}; ` +
        steps.map((x) => `${x.key}: ${x.open ? 'open' : 'closed'}, ${x.visible} visible`).join('; '));

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
    check(`speed on ${b} > 0, with its spread`, s && !s.error && s.stepsPerSecond > 0 && s.samplesPerSecond > 0 &&
          s.predictMsMedian > 0 && s.stepMsP10 > 0 && s.stepMsP10 <= s.stepMsMedian && s.stepMsMedian <= s.stepMsP90,
          s && (s.error ?? `${s.stepsPerSecond.toFixed(1)} steps/s over ${s.trainSteps} steps (step ` +
                `${s.stepMsP10?.toFixed(2)}–${s.stepMsP90?.toFixed(2)} ms, p10–p90), predict ` +
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
