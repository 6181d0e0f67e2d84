#!/usr/bin/env node
// The digits app (web/apps/digits) for users without a pointer or without sight,
// in headless Chromium:
//   - axe-core finds no WCAG 2.1 A/AA violation, control borders are 3:1 and
//     nothing scrolls sideways, in light and dark at desktop, phone and 320 px,
//     on load, after teaching and after training; nothing moves under
//     prefers-reduced-motion;
//   - with the keyboard only: Tab reaches the pad, arrow keys and Space draw a
//     1, and the prediction is announced ("1, 97% sure") in a status region as
//     the page's own prediction; a held-out digit is put on the pad and
//     announced; a correction is taught from the digit buttons and its result
//     announced; after Clear, a teach, a removed sample, Start and Stop focus is
//     on a control (never the page body);
//   - during a two-epoch training run the live regions change a bounded number of
//     times (progress once per epoch, not per batch);
//   - the training chart is an image with a summary that has its figures, and a
//     table with one row per epoch equal to the page's own numbers.
// Needs make web and make demo. Last line: "N passed, N failed".
import {checkEveryLook, checkReducedMotion, countLiveRegions, focused, liveCounts} from './a11y.mjs';
import {argmax, openDigits, requireDigitsBuilds} from './digits_common.mjs';
import {check, checkNoErrors, runMain, withBrowser} from './harness.mjs';

const words = (p) => `${argmax(p)}, ${Math.round(100 * p[argmax(p)])}% sure`;

/** Presses Tab (or Shift+Tab) until `target` (as focused() names it) has focus; false after 40 presses. */
async function tabTo(page, target, back = false) {
  for (let i = 0; i < 40; ++i) {
    if (await focused(page) === target) return true;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  return await focused(page) === target;
}

async function press(page, key, times = 1) {
  for (let i = 0; i < times; ++i) await page.keyboard.press(key);
}

/** Waits for the status region #said to announce the page's prediction of what is on the pad now. */
async function announced(page) {
  await page.waitForFunction(() => {
    const p = digitsApp.lastPrediction;
    return p?.probs && p.version === digitsApp.padVersion() && !digitsApp.busy() &&
        document.getElementById('said').textContent ===
        `${p.label}, ${Math.round(100 * p.probs[p.label])}% sure`;
  }, null, {timeout: 20000, polling: 100}).catch(() => {});
  return page.evaluate(() => ({said: document.getElementById('said').textContent,
                               role: document.getElementById('said').getAttribute('role'),
                               probs: digitsApp.lastPrediction?.probs}));
}

async function main() {
  requireDigitsBuilds();
  await withBrowser(async ({base, context}) => {
    const t0 = Date.now();
    const {page, errors} = await openDigits(context, base);
    await checkEveryLook(page, 'digits', 'on load');
    await checkReducedMotion(page, 'digits');

    // ---- keyboard only: draw a 1 -----------------------------------------------------------
    await page.evaluate(() => document.activeElement?.blur());
    check('Tab reaches the drawing pad', await tabTo(page, 'CANVAS#pad'), await focused(page));
    // The pen starts mid-pad: up to the top, down, a long stroke down, up.
    await press(page, 'ArrowUp', 8);
    await press(page, 'Space');
    await press(page, 'ArrowDown', 16);
    await press(page, 'Space');
    const one = await announced(page);
    check('keyboard: arrow keys and Space draw a 1; "N, P% sure" announced in a status region',
          one.probs && argmax(one.probs) === 1 && one.said === words(one.probs) && one.role === 'status',
          `announced "${one.said}" (role ${one.role}), page reads ${one.probs ? words(one.probs) : 'nothing'}`);

    // ---- a held-out digit, then a correction taught from the keyboard ---------------------------
    check('Tab reaches "Held-out digit"', await tabTo(page, 'BUTTON#example'), await focused(page));
    await press(page, 'Enter');
    await page.waitForFunction(() => /held-out \d/.test(document.getElementById('teach-result').textContent));
    const example = await announced(page);
    const note = await page.locator('#teach-result').textContent();
    check('keyboard: a held-out digit on the pad, its label said, the prediction announced',
          example.probs && example.said === words(example.probs) && await focused(page) === 'BUTTON#example',
          `"${note}" then "${example.said}"; focus on ${await focused(page)}`);
    // The correction: the digit the model thinks second most likely.
    const second = example.probs.map((p, d) => [p, d]).sort((a, b) => b[0] - a[0])[1][1];
    check(`Tab reaches the teach button ${second}`, await tabTo(page, `BUTTON[${second}]`), await focused(page));
    await press(page, 'Enter');
    await page.waitForFunction(() => digitsApp.lastTeach?.saved, null, {timeout: 30000});
    const taught = await page.evaluate(() => ({teach: digitsApp.lastTeach, samples: digitsApp.samples.length,
                                               result: document.getElementById('teach-result').textContent,
                                               live: document.getElementById('teach-result').getAttribute('aria-live')}));
    const after = await focused(page);
    check('keyboard: the correction is taught, its result announced with the new reading; focus stays on the button',
          taught.teach.label === second && taught.samples === 1 && taught.live === 'polite' &&
          taught.result.includes(words(taught.teach.probs)) && after === `BUTTON[${second}]`,
          `taught ${taught.teach.label}: "${taught.result}"; focus on ${after}`);

    // ---- focus after Clear and after removing a sample ------------------------------------------
    check('Tab back to Clear', await tabTo(page, 'BUTTON#clear', true), await focused(page));
    await press(page, 'Enter');
    const afterClear = await focused(page);
    check('after Clear focus moves to the pad, ready to draw',
          afterClear === 'CANVAS#pad' && await page.evaluate(() => digitsApp.padVersion() > 0 &&
                                                                   document.getElementById('pad-hint').hidden === false),
          `focus on ${afterClear}`);
    await page.locator('#samples .remove').first().focus();
    await press(page, 'Enter');
    await page.waitForFunction(() => digitsApp.samples.length === 0);
    const afterRemove = await focused(page);
    check('after removing a sample focus moves to the list, not the page', afterRemove === 'UL#samples',
          `focus on ${afterRemove}`);
    await checkEveryLook(page, 'digits', 'after teaching');

    // ---- a training run: bounded announcements, the chart in words ------------------------------
    await page.selectOption('#epochs', '2');
    await page.locator('#train').focus();
    await countLiveRegions(page);
    const started = Date.now();
    await press(page, 'Enter');
    const whileTraining = await focused(page);
    await page.waitForFunction(() => digitsApp.training?.done, null, {timeout: 180000});
    const seconds = (Date.now() - started) / 1000;
    const counts = await liveCounts(page);
    const tr = await page.evaluate(() => ({rows: digitsApp.training.epochRows, batches: digitsApp.training.batches,
                                           valAcc: digitsApp.training.valAcc}));
    const total = Object.values(counts).reduce((a, c) => a + c.changes, 0);
    const list = Object.entries(counts).map(([k, c]) => `${k} ${c.changes}× ("${c.last.slice(0, 60)}")`).join('; ');
    check('training: focus stays on Start training', whileTraining === 'BUTTON#train', whileTraining);
    check(`live regions during ${tr.batches} batches (${seconds.toFixed(0)} s): progress said at the start, ` +
          'per epoch and at the end; at most 8 announcements in all',
          counts['#train-said']?.changes <= 2 + 1 && total <= 8 && /done/.test(counts['#train-said']?.last ?? ''),
          list);
    const chart = await page.evaluate(() => ({role: document.getElementById('chart').getAttribute('role'),
                                              label: document.getElementById('chart').getAttribute('aria-label'),
                                              rows: [...document.querySelectorAll('#chart-table tbody tr')]
                                                  .map((r) => [...r.children].map((c) => c.textContent))}));
    const pct = (v) => `${(100 * v).toFixed(1)}%`;
    const want = tr.rows.map((r) => [String(r.epoch), r.loss.toFixed(3), pct(r.acc), pct(r.valAcc)]);
    check('the training chart is an image whose label has its figures', chart.role === 'img' &&
          tr.valAcc.every((v) => chart.label.includes(pct(v))) && /loss from \d/.test(chart.label), chart.label);
    check('the chart\'s table: one row per epoch, the page\'s own figures',
          tr.rows.length === 2 && JSON.stringify(chart.rows) === JSON.stringify(want) &&
          tr.rows.every((r, i) => r.valAcc === tr.valAcc[i]), JSON.stringify(chart.rows));
    await checkEveryLook(page, 'digits', 'after training');

    // ---- Stop from the keyboard: focus lands on Start again ---------------------------------------
    await page.selectOption('#epochs', '5');
    await page.locator('#train').focus();
    await press(page, 'Enter');
    await page.waitForFunction(() => digitsApp.training?.batches > 3, null, {timeout: 60000});
    await press(page, 'Tab');
    const onStop = await focused(page);
    await press(page, 'Enter');
    await page.waitForFunction(() => digitsApp.training?.done, null, {timeout: 60000});
    const afterStop = await focused(page);
    check('Stop from the keyboard: then focus is on Start training', onStop === 'BUTTON#stop' &&
          afterStop === 'BUTTON#train', `Tab from Start: ${onStop}; after stopping: ${afterStop}`);

    checkNoErrors(errors);
    console.log(`(${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    await page.close();
  });
}

runMain(main);
