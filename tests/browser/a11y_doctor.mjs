#!/usr/bin/env node
// The doctor page (web/apps/doctor) against WCAG 2.1 AA (issue 33; issue 26
// item 12), in Debian's headless Chromium, with a short speed test (?seconds=0.5, 0.2):
//  1. live regions: counted from before the page's script runs (doctor.js is held
//     back until the counter is in place) to the finished report: at most 15
//     announcements in all, the verdict (#summary) once or twice; #summary is
//     role=status and opens with a plain-language verdict sentence ("Glint will
//     use your …") whose training-step time is the page's own measured figure;
//  2. every look (light and dark at desktop, phone and 320 px), with the details
//     toggle closed (as the page opens) and open: axe-core's WCAG 2.1 A/AA rules,
//     control borders 3:1, no sideways scrolling; nothing animates under
//     prefers-reduced-motion;
//  3. keyboard only: Tab reaches "Copy as JSON", Enter announces a note in a live
//     region and leaves focus on a control (not BODY), both when the clipboard
//     works and when it does not (the <pre> fallback is shown);
//  4. every focusable element has an accessible name in Chromium's accessibility
//     tree, and every box that scrolls is a named tab stop, at desktop and 320 px
//     with the details open,
//     before and with the JSON fallback shown (every look of 2 is checked again then);
//  5. the page's text has no "null", "undefined", "NaN" and no stale "no webgpu
//     backend yet" (the JSON fallback, where null is JSON, is left out).
//  Then 4 and 5 again in a Chromium whose navigator.gpu gives an adapter (SwiftShader),
//  with the WebGPU limits opened; a probe (an unnamed tab stop put into the page)
//  shows that the name check can fail.
// Usage: node tests/browser/a11y_doctor.mjs. Needs the web package's builds (make web).
// Last line: "N passed, N failed".
import {axeViolations, checkEveryLook, checkReducedMotion, countLiveRegions, focused, liveCounts,
        NARROW} from './a11y.mjs';
import {check, checkNoErrors, collectErrors, DESKTOP, openPage, runMain, withBrowser} from './harness.mjs';
import {WEBGPU_FLAGS} from './run.mjs';

/** "null", "undefined", "NaN" or the stale webgpu sentence in `text`, each with its context. */
const stray = (text) => [...text.matchAll(/\b(null|undefined|NaN)\b|no webgpu backend yet/gi)]
    .map((m) => `"…${text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 10)}…"`);

/** Focusable nodes in Chromium's accessibility tree that have no accessible name: "tag#id.class role" strings. */
async function unnamedFocusable(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.getDocument', {depth: -1});
    const {nodes} = await cdp.send('Accessibility.getFullAXTree');
    const out = [];
    for (const n of nodes) {
      if (n.ignored || n.role?.value === 'RootWebArea') continue;
      const focusable = (n.properties ?? []).some((p) => p.name === 'focusable' && p.value?.value === true);
      if (!focusable || (n.name?.value ?? '').trim()) continue;
      let what = `node ${n.backendDOMNodeId}`;
      try {
        const {node} = await cdp.send('DOM.describeNode', {backendNodeId: n.backendDOMNodeId});
        const attrs = Object.fromEntries((node.attributes ?? []).reduce((a, v, i, all) =>
          (i % 2 ? a : [...a, [v, all[i + 1]]]), []));
        what = `${node.nodeName.toLowerCase()}${attrs.id ? '#' + attrs.id : ''}` +
               `${attrs.class ? '.' + attrs.class.trim().split(/\s+/).join('.') : ''}`;
      } catch { /* described by its id */ }
      out.push(`${what} (${n.role?.value ?? 'no role'})`);
    }
    return out;
  } finally {
    await cdp.detach();
  }
}

/**
 * Elements that scroll (overflow auto/scroll with more content than room) but are
 * not a named tab stop: keyboard users could not scroll them (WCAG 2.1.1, 4.1.2).
 */
function unreachableScrollers(page) {
  return page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => {
    const s = getComputedStyle(e);
    const scrolls = (/auto|scroll/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1) ||
                    (/auto|scroll/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1);
    if (!scrolls || e.getClientRects().length === 0) return false;
    const named = (e.getAttribute('aria-label') ?? '').trim() ||
        (e.getAttribute('aria-labelledby') ?? '').split(/\s+/).some((id) => document.getElementById(id)?.textContent.trim());
    return !(e.tabIndex >= 0 && named);
  }).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className ? '.' + e.className : ''} in ` +
                `#${e.closest('[id]')?.id}`));
}

/** Focusable elements without a name, and scrollers that are not named tab stops. */
async function nameProblems(page) {
  return [...(await unnamedFocusable(page)).map((u) => `unnamed ${u}`),
          ...(await unreachableScrollers(page)).map((u) => `scroller not a named tab stop: ${u}`)];
}

/** Tabs from the top of the page (keyboard only) until `target` has focus; returns the presses, or -1. */
async function tabTo(page, target, most = 40) {
  await page.evaluate(() => document.activeElement?.blur());
  await page.mouse.click(2, 2);  // focus starts at the document's top
  for (let i = 1; i <= most; ++i) {
    await page.keyboard.press('Tab');
    if (await focused(page) === target) return i;
  }
  return -1;
}

runMain(() => withBrowser(async ({base, context}) => {
  const page = await context.newPage();
  await page.setViewportSize(DESKTOP);
  const errors = collectErrors(page);
  // Hold doctor.js back until the live-region counter is installed: every announcement counts.
  let release;
  const gate = new Promise((r) => { release = r; });
  await page.route('**/apps/doctor/doctor.js', async (route) => {
    await gate;
    await route.continue();
  });
  // Half a second of speed test per backend: long enough for a page that announces every
  // training slice to show it, short enough for the whole driver to stay near 40 s.
  await page.goto(`${base}/web/apps/doctor/index.html?seconds=0.5`, {waitUntil: 'commit'});
  await page.waitForSelector('footer', {state: 'attached'});
  await countLiveRegions(page);
  release();
  await page.waitForFunction(() => window.doctorReport !== undefined, null, {timeout: 60000});
  await page.waitForTimeout(300);  // anything the page still says after the report
  const report = await page.evaluate(() => window.doctorReport);
  check('report complete', report.status === 'complete', `${report.status}${report.error ? ': ' + report.error : ''}`);

  // 1. Live regions.
  const counts = await liveCounts(page) ?? {};
  const total = Object.values(counts).reduce((s, c) => s + c.changes, 0);
  const summary = await page.evaluate(() => {
    const s = document.getElementById('summary');
    return {role: s.getAttribute('role'), text: s.textContent.replace(/\s+/g, ' ').trim()};
  });
  const perRegion = Object.entries(counts).map(([k, c]) => `${k} ${c.changes}× (last "${c.last.slice(0, 60)}")`).join('; ');
  check('doctor: the live regions announce at most 15 updates over a whole run', total <= 15 && total > 0,
        `${total} in all: ${perRegion || 'none'}`);
  check('doctor: #summary is role=status and announces its verdict once or twice',
        summary.role === 'status' && counts['#summary']?.changes >= 1 && counts['#summary'].changes <= 2,
        `role=${summary.role}, ${counts['#summary']?.changes ?? 0} announcements`);
  const active = report.glint?.active;
  const stepMs = 1000 / report.speed?.[active]?.stepsPerSecond;
  const said = summary.text.match(/training step [^.;]*? about ([\d.,]+) ms/);
  const saidMs = said ? Number(said[1].replace(/,/g, '')) : NaN;
  check('doctor: #summary opens with a plain-language verdict: the backend it will use and the measured ' +
        'training-step time', /^Glint will use your (CPU|GPU)/.test(summary.text) && Number.isFinite(stepMs) &&
        Math.abs(saidMs - stepMs) <= Math.max(0.06 * stepMs, 0.051),
        `"${summary.text.slice(0, 260)}" (measured on ${active}: ${stepMs.toFixed(2)} ms a step)`);

  // 5. No stray values or stale text (before the JSON fallback is shown).
  const pageText = async () => page.evaluate(() => {
    const clone = document.body.cloneNode(true);
    clone.querySelector('#json')?.remove();  // JSON's own null is not page text
    clone.querySelectorAll('script').forEach((s) => s.remove());
    return clone.textContent.replace(/\s+/g, ' ');
  });
  const found = stray(await pageText());
  check('doctor: the page says no "null", "undefined", "NaN" nor "no webgpu backend yet"', found.length === 0,
        found.slice(0, 4).join(' | '));

  // 2. Every look, with the details closed (as the page opens) and open; motion.
  const detailsOpen = () => page.evaluate(() => document.getElementById('details')?.open);
  check('doctor: the details are closed when the report completes', await detailsOpen() === false,
        `open: ${await detailsOpen()}`);
  await checkEveryLook(page, 'doctor', 'report complete, details closed');
  await page.click('#details > summary');
  check('doctor: a click on "Show the details" opens them', await detailsOpen() === true, `open: ${await detailsOpen()}`);
  await checkEveryLook(page, 'doctor', 'report complete, details open');
  await checkReducedMotion(page, 'doctor');

  // 4 (first half). Accessible names of focusable elements in the finished report (details open);
  // first, that the name check sees an unnamed tab stop (a probe put in and taken out).
  const probe = await page.evaluate(() => {
    const d = Object.assign(document.createElement('div'), {id: 'a11y-probe', tabIndex: 0});
    document.querySelector('footer').append(d);
  }).then(() => nameProblems(page));
  await page.evaluate(() => document.getElementById('a11y-probe').remove());
  check('the accessible-name check finds an unnamed tab stop put into the page', probe.some((p) => /a11y-probe/.test(p)),
        probe.join(', ') || 'not found');
  for (const [size, viewport] of [['desktop', DESKTOP], ['320 px', NARROW]]) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const problems = await nameProblems(page);
    check(`doctor report complete, ${size}: every focusable element has an accessible name; what scrolls is a ` +
          'named tab stop', problems.length === 0, problems.join(', '));
  }
  await page.setViewportSize(DESKTOP);

  // 3. Keyboard: Copy as JSON with the clipboard, then without it (the <pre> fallback).
  for (const clipboard of ['works', 'refuses']) {
    if (clipboard === 'refuses') {
      await page.evaluate(() => {
        navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
      });
    }
    await countLiveRegions(page);
    const presses = await tabTo(page, 'BUTTON#copy');
    if (presses > 0) {
      await page.keyboard.press('Enter');
      await page.waitForTimeout(400);
    }
    const after = await liveCounts(page) ?? {};
    const note = Object.entries(after).filter(([, c]) => c.changes > 0 && c.last)
        .map(([k, c]) => `${k} "${c.last.slice(0, 80)}"`);
    const focus = await focused(page);
    const pre = await page.evaluate(() => !document.getElementById('json').hidden);
    check(`doctor, keyboard only, clipboard ${clipboard}: Tab reaches "Copy as JSON", Enter announces a note ` +
          'and focus stays on a control', presses > 0 && note.length > 0 && focus !== 'BODY' &&
          (clipboard === 'works' || pre),
          `${presses > 0 ? presses + ' Tabs' : 'never reached by Tab'}; announced: ${note.join(', ') || 'nothing'}; ` +
          `focus ${focus}${clipboard === 'refuses' ? `; JSON shown: ${pre}` : ''}`);
  }

  // 2 and 4 (second half). With the JSON fallback on the page (a focusable scroller):
  // every look again (its border 3:1 in light and dark), names, stray text.
  await checkEveryLook(page, 'doctor', 'JSON shown');
  for (const [size, viewport] of [['desktop', DESKTOP], ['320 px', NARROW]]) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const problems = await nameProblems(page);
    check(`doctor with the JSON shown, ${size}: every focusable element has an accessible name; what scrolls ` +
          'is a named tab stop', problems.length === 0, problems.join(', '));
  }
  await page.setViewportSize(DESKTOP);
  const foundLater = stray(await pageText());
  check('doctor with the JSON shown: still no "null", "undefined", "NaN" nor stale webgpu text outside the JSON',
        foundLater.length === 0, foundLater.slice(0, 4).join(' | '));
  checkNoErrors(errors);
  await page.close();
}).then(() => withBrowser(async ({base, context}) => {
  // 5 and 4 again where navigator.gpu gives an adapter (SwiftShader's Vulkan): the
  // WebGPU card lists the adapter and its limits (opened), beside Glint's webgpu backend.
  const {page, errors} = await openPage(context, `${base}/web/apps/doctor/index.html?seconds=0.2`);
  await page.waitForFunction(() => window.doctorReport !== undefined, null, {timeout: 60000});
  const r = await page.evaluate(() => window.doctorReport);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  const found = stray(await page.evaluate(() => document.body.textContent.replace(/\s+/g, ' ')));
  check('doctor with a WebGPU adapter: the report is complete, names the adapter, and says no "null", ' +
        '"undefined", "NaN" nor "no webgpu backend yet"', r.status === 'complete' && Boolean(r.webgpu?.adapter) &&
        found.length === 0, `adapter ${JSON.stringify(r.webgpu?.adapter ?? r.webgpu?.adapterError)}; ` +
        found.slice(0, 4).join(' | '));
  for (const [size, viewport] of [['desktop', DESKTOP], ['320 px', NARROW]]) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    const problems = await nameProblems(page);
    const v = await axeViolations(page);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(`doctor with a WebGPU adapter, limits open, ${size}: every focusable element has an accessible name; ` +
          'what scrolls is a named tab stop; axe finds 0 violations; no sideways scrolling',
          problems.length === 0 && v.length === 0 && sideways <= 0,
          [...problems, ...v, sideways > 0 ? `${sideways} px sideways` : ''].filter(Boolean).join(' ; '));
  }
  checkNoErrors(errors);
  await page.close();
}, WEBGPU_FLAGS)));
