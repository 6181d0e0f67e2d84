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
