// What the browser test drivers (doctor, digits, sequence, web_api) share: the
// check counter and its last line "N passed, N failed" with the exit code, the
// repo served with COOP/COEP to a headless Chromium, pages opened with their
// errors collected, and screenshots at desktop and phone widths.
// Each driver is its own process, so the counts live in this module.
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {serve} from '../../tools/serve.mjs';
import {launchChromium} from './run.mjs';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DESKTOP = {width: 1280, height: 800};
export const PHONE = {width: 390, height: 844};

let passed = 0, failed = 0;

/// Prints "ok  name" or "FAIL name: detail" and counts it; returns ok.
export function check(name, ok, detail) {
  if (ok) ++passed;
  else ++failed;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
  return ok;
}

/// Runs the driver's main(); then the last line, "N passed, N failed", and the
/// exit code. An exception ends the run and counts as one more failure.
export function runMain(main) {
  const script = path.relative(repo, process.argv[1]);
  main().catch((e) => {
    console.error(`${script}: ${e.stack ?? e.message}`);
    ++failed;
  }).finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
  });
}

/// Serves the repo root (tools/serve.mjs: COOP/COEP, so pages are cross-origin
/// isolated) to a fresh headless Chromium and runs fn({base, context, stopServer});
/// both are closed afterwards. stopServer() lets a test go offline early.
export async function withBrowser(fn, chromiumFlags = []) {
  const server = await serve({root: repo, port: 0});
  let serving = true;
  const stopServer = async () => {
    if (serving) {
      serving = false;
      await server.close();
    }
  };
  let browser = null;
  try {
    browser = await launchChromium(chromiumFlags);
    return await fn({base: `http://127.0.0.1:${server.port}`, context: browser.context, stopServer});
  } finally {
    await browser?.close();
    await stopServer();
  }
}

/// The page's console errors and uncaught exceptions, as they come; with
/// echoPageErrors the uncaught ones are printed too (for drivers that do not
/// check the list).
export function collectErrors(page, {echoPageErrors = false} = {}) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => {
    errors.push(`page error: ${e.message}`);
    if (echoPageErrors) console.log(`  page error: ${e.message}`);
  });
  return errors;
}

/// A new page at `url` (sized to viewport unless that is null), its errors collected.
export async function openPage(context, url, {viewport = DESKTOP, echoPageErrors = false} = {}) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors = collectErrors(page, {echoPageErrors});
  await page.goto(url);
  return {page, errors};
}

export function checkNoErrors(errors) {
  check('no console errors', errors.length === 0, errors.slice(0, 3).join(' | '));
}

/// Full-page screenshots build/screenshots/<name>-desktop.png at the page's
/// size now and <name>-phone.png at phone width, where nothing may scroll
/// sideways (checked). Leaves the page at phone width.
export async function screenshots(page, name) {
  const dir = path.join(repo, 'build/screenshots');
  fs.mkdirSync(dir, {recursive: true});
  await page.screenshot({path: path.join(dir, `${name}-desktop.png`), fullPage: true});
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);  // charts redraw for the new width
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({path: path.join(dir, `${name}-phone.png`), fullPage: true});
  check(`phone width (${PHONE.width} px): no horizontal scrolling`, overflow <= 0, `${overflow} px wider`);
}

/// Runs fn() while Chromium traces the page, and returns {result, tasks}: every
/// task the page's main thread ran meanwhile, as {start, end} in the page's
/// performance.now() milliseconds, with wall and cpu (thread time) in ms.
/// Responsiveness checks read cpu: it is the page's own work, while a task's
/// wall time also grows whenever a crowded machine lends its core to another
/// process (on this machine's 2 cores a 2 ms layout took 28 ms of wall time).
export async function traceMainThread(page, fn) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({value}) => events.push(...value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  // toplevel: one RunTask event per task with thread time; user timing: the mark
  // that places the trace's clock and the page's main thread.
  await cdp.send('Tracing.start', {traceConfig: {includedCategories: ['toplevel', 'blink.user_timing', 'disabled-by-default-devtools.timeline']},
                                   transferMode: 'ReportEvents'});
  const mark = 'glint-trace-clock';
  let result, markedAt = null;
  try {
    result = await fn();
  } finally {
    markedAt = await page.evaluate((m) => performance.mark(m).startTime, mark).catch(() => null);
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach();
  }
  const sync = events.find((e) => e.name === mark);
  if (!sync || markedAt === null) throw new Error('traceMainThread: the page\'s clock mark is not in the trace');
  const offset = sync.ts / 1000 - markedAt;  // trace microseconds -> performance.now()
  const tasks = events
      .filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.pid === sync.pid && e.tid === sync.tid)
      .map((e) => ({start: e.ts / 1000 - offset, end: (e.ts + e.dur) / 1000 - offset,
                    // Without thread time (a platform whose clocks lack it) cpu is the wall time.
                    wall: e.dur / 1000, cpu: (e.tdur ?? e.dur) / 1000}));
  return {result, tasks};
}

/// Of traceMainThread's tasks, those that overlap [start, end]: how many, and
/// the longest of them by cpu and by wall time (ms).
export function tasksDuring(tasks, {start, end}) {
  const during = tasks.filter((t) => t.start < end && t.end > start);
  return {count: during.length, cpu: Math.max(0, ...during.map((t) => t.cpu)),
          wall: Math.max(0, ...during.map((t) => t.wall))};
}

/// The Content-Encoding the page's server answers `urlPath` with (null: none). A compressed
/// answer's Content-Length is not the bytes the stream yields, so load progress has no total.
export function contentEncoding(page, urlPath) {
  return page.evaluate(async (u) => (await fetch(u, {method: 'HEAD'})).headers.get('Content-Encoding'), urlPath);
}

/**
 * Starts recording the .wasm files `context`'s pages and their workers request;
 * returns the list (paths), which grows as they load.
 */
export function recordWasmRequests(context) {
  const wasm = [];
  context.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('.wasm')) wasm.push(u.pathname);
  });
  return wasm;
}
