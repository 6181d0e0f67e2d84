#!/usr/bin/env node
// The sequence app (web/apps/sequence) against WCAG 2.1 AA (issue 33), in
// headless Chromium:
// - every look: axe-core's WCAG 2.1 A/AA rules, control borders 3:1 and no
//   sideways scrolling, light and dark at desktop, phone and 320 px, on load,
//   after training and after a forecast; nothing moves under reduced motion;
// - keyboard only (Tab, Shift+Tab, Enter, typing; no mouse and no element.click()):
//   load the weather sample, set a small model, train, sample a forecast,
//   save, delete the saved model, stop a long run, use pasted text; after each
//   action focus is on the pressed control (or, where that control has nothing
//   left to do, on the one that comes next), never on the page body; a second
//   Enter on Train while it trains is ignored; the forecast summary is in a
//   role=status region;
// - live regions during that training run: each says at most epochs + 4
//   things and at most 1 + one per 2 s of training; the validation verdict is
//   announced once, from a status region; the same for a 5 s run ended by Stop;
// - charts (series, loss, forecast) are role=img with a label that has the
//   numbers, and a table whose numbers are the app's own (the CSV, the loss
//   history, the sampled forecast); the next-value bars have text and a summary;
//   with those tables open the page still passes every look;
// - the progress bar and every focusable element, image and progress bar in
//   the accessibility tree have a name.
// Usage: node tests/browser/a11y_sequence.mjs     Last line: "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import {check, checkNoErrors, openPage, repo, runMain, withBrowser} from './harness.mjs';
import {checkEveryLook, checkReducedMotion, countLiveRegions, focused, liveCounts} from './a11y.mjs';

const APP = '/web/apps/sequence/index.html';
const EPOCHS = 3;

/** One column of a sample CSV, read here without the app's parser. */
function column(file, name) {
  const lines = fs.readFileSync(path.join(repo, 'web/apps/sequence/data', file), 'utf8').trim().split('\n');
  const at = lines[0].split(',').indexOf(name);
  return lines.slice(1).map((l) => l.split(',')[at]);
}

async function waitReady(page) {
  await page.waitForFunction(() => window.seqApp?.ready === true || /fail/.test(
      document.getElementById('status').className), null, {timeout: 60000});
  return page.evaluate(() => ({ready: window.seqApp.ready, status: document.getElementById('status').textContent}));
}

const isFocused = (page, selector) => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);

/** Tab (or Shift+Tab) until the focus is on `selector`; false if it never gets there. */
async function tabTo(page, selector, {back = false, max = 60} = {}) {
  for (let i = 0; i < max; ++i) {
    if (await isFocused(page, selector)) return true;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  return isFocused(page, selector);
}

/** Tabs to a number field and types the value over what is there. */
async function typeInto(page, selector, value) {
  if (!await tabTo(page, selector) && !await tabTo(page, selector, {back: true})) {
    throw new Error(`Tab never reaches ${selector}`);
  }
  await page.keyboard.press('Control+A');
  await page.keyboard.type(String(value));
}

/** Focus after an action: on `selector` (and that control usable), else a description of where. */
async function focusAfter(page, selector, {usable = false} = {}) {
  const where = await focused(page);
  const ok = where !== 'BODY' && await page.evaluate(([s, u]) => {
    const e = document.activeElement;
    return e.matches(s) && !e.disabled && !(u && e.getAttribute('aria-disabled') === 'true') &&
        !e.closest('[hidden]') && e.getClientRects().length > 0;
  }, [selector, usable]);
  return {ok, where};
}

const busy = (selector) => `(() => { const b = document.querySelector(${JSON.stringify(selector)});
  return b.disabled || b.getAttribute('aria-disabled') === 'true'; })()`;

/** The text of a table's body rows, cell by cell. */
const tableRows = (page, selector) => page.evaluate((s) => {
  const t = document.querySelector(s);
  return t ? [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent.trim())) : null;
}, selector);

/** role, aria-label and whether the label has a number in it, for a chart. */
const chartInfo = (page, selector) => page.evaluate((s) => {
  const e = document.querySelector(s);
  return {role: e.getAttribute('role'), label: e.getAttribute('aria-label') ?? ''};
}, selector);
const labelled = (c) => c.role === 'img' && /\d/.test(c.label);

runMain(() => withBrowser(async ({base, context}) => {
  const t0 = Date.now();
  const {page, errors} = await openPage(context, base + APP);
  const start = await waitReady(page);
  check('engine starts in a worker', start.ready, start.status);
  await page.waitForFunction(() => /weather\.csv.* · weather: \d+ values/.test(
      document.getElementById('data-stats').textContent));

  // ---- 1. every look on load; reduced motion ----------------------------------------------
  await checkEveryLook(page, 'sequence', 'on load');
  await checkReducedMotion(page, 'sequence');

  // ---- 2 and 3. keyboard only: sample, model, train (live regions counted) ----------------
  await page.evaluate(() => { document.activeElement?.blur(); document.getElementById('data-stats').textContent = ''; });
  const reachSample = await tabTo(page, '[data-sample=weather]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /weather\.csv.* · weather: \d+ values/.test(
      document.getElementById('data-stats').textContent));
  let f = await focusAfter(page, '[data-sample=weather]');
  check('keyboard: Tab reaches the weather sample; after Enter loads it, focus stays on that button',
        reachSample && f.ok, f.where);

  await typeInto(page, '#window', 14);
  await typeInto(page, '#units', 16);
  await typeInto(page, '#epochs', EPOCHS);
  const reachTrain = await tabTo(page, '#train');
  await countLiveRegions(page);
  const tTrain = Date.now();
  await page.keyboard.press('Enter');
  f = await focusAfter(page, '#train');
  const focusWhileTraining = await focused(page);
  // Enter again while training: ignored (busy Train stays focusable but does nothing).
  await page.keyboard.press('Enter');
  await page.evaluate(() => window.seqApp.untilIdle());
  const elapsed = (Date.now() - tTrain) / 1000;
  const run = await page.evaluate(() => ({phase: window.seqApp.phase, history: window.seqApp.history}));
  const fTrained = await focusAfter(page, '#train');
  check('keyboard: Enter on Train trains; focus stays on Train while it trains and after; a second Enter ' +
        'while busy is ignored', reachTrain && focusWhileTraining !== 'BODY' && fTrained.ok &&
        run.phase === 'trained' && run.history.loss.length === EPOCHS,
        `during: ${focusWhileTraining}, after: ${fTrained.where}; ${run.phase}, ${run.history.loss.length} epochs`);

  // 3. What the live regions said during that run.
  await page.waitForTimeout(700);   // the last throttled redraw lands
  const counts = await liveCounts(page) ?? {};
  const bound = Math.min(EPOCHS + 4, 1 + elapsed / 2);
  const flooding = Object.entries(counts).filter(([, c]) => c.changes > bound);
  check(`live regions during training (${elapsed.toFixed(1)} s, ${EPOCHS} epochs): none changes more than ` +
        `${bound.toFixed(1)} times`, Object.keys(counts).length > 0 && flooding.length === 0,
        Object.entries(counts).map(([k, c]) => `${k} ${c.changes}×`).join(', '));
  const verdict = await page.evaluate(() => {
    const r = document.getElementById('result');
    return {role: r.getAttribute('role'), text: r.textContent.trim(), hidden: r.hidden};
  });
  check('the validation verdict is announced once, from a role=status region', verdict.role === 'status' &&
        !verdict.hidden && /^Validation/.test(verdict.text) && counts['#result']?.changes === 1 &&
        counts['#result'].last === verdict.text,
        `role ${verdict.role}, ${counts['#result']?.changes ?? 0} changes: ${verdict.text.slice(0, 60)}`);

  // ---- 1. every look after training; 4. the charts drawn so far ---------------------------
  await checkEveryLook(page, 'sequence', 'after training');

  const weather = column('weather.csv', 'weather');
  const series = await chartInfo(page, '#series-chart');
  const seriesRows = await tableRows(page, '#series-table');
  check('series chart: role=img, a label with its numbers (how many values)', labelled(series) &&
        series.label.includes(String(weather.length)), `${series.role}: ${series.label}`);
  check('series chart: a table of at most 60 of its points, each the CSV\'s value at that index',
        seriesRows !== null && seriesRows.length > 0 && seriesRows.length <= 60 &&
        seriesRows.every(([i, v]) => weather[Number(i) - 1] === v) &&
        Number(seriesRows.at(-1)[0]) === weather.length,
        seriesRows ? `${seriesRows.length} rows, last ${seriesRows.at(-1)?.join(' ')}` : 'no #series-table');

  const loss = await chartInfo(page, '#loss-chart');
  const h = run.history;
  check('loss chart: role=img, a label with the first and last losses', labelled(loss) &&
        loss.label.includes(h.loss[0].toFixed(3)) && loss.label.includes(h.loss.at(-1).toFixed(3)) &&
        loss.label.includes(h.val_loss.at(-1).toFixed(3)), `${loss.role}: ${loss.label}`);
  const lossRows = await tableRows(page, '#loss-table');
  check('loss chart: a table with one row per epoch equal to seqApp.history', lossRows?.length === h.loss.length &&
        lossRows.every(([e, l, v], i) => Number(e) === i + 1 && Math.abs(Number(l) - h.loss[i]) < 5e-4 &&
                       Math.abs(Number(v) - h.val_loss[i]) < 5e-4),
        lossRows ? lossRows.map((r) => r.join(' ')).join(' | ') : 'no #loss-table');

  const next = await page.evaluate(() => window.seqApp.nextDistribution());
  const classes = await page.evaluate(() => window.seqApp.trained.classes);
  const best = next.reduce((b, p, i) => (p > next[b] ? i : b), 0);
  const bars = await page.evaluate(() => {
    const b = document.getElementById('bars');
    const summary = document.getElementById('next-summary');
    return {text: b.innerText, summary: summary?.textContent ?? '', summaryRole: summary?.getAttribute('role')};
  });
  check('next-value bars: each class and its percent as text; a role=status summary names the most likely',
        classes.every((c, k) => bars.text.includes(c) && bars.text.includes(`${(100 * next[k]).toFixed(1)}%`)) &&
        bars.summaryRole === 'status' && bars.summary.includes(classes[best]) &&
        bars.summary.includes(`${(100 * next[best]).toFixed(1)}%`), `${bars.summaryRole}: ${bars.summary}`);

  // ---- 2. keyboard: sample a forecast --------------------------------------------------------
  await typeInto(page, '#steps', 40);
  const reachForecast = await tabTo(page, '#sample');
  const before = await page.evaluate(() => window.seqApp.lastForecast?.id ?? 0);
  await page.keyboard.press('Enter');
  await page.waitForFunction(`!${busy('#sample')}`);
  f = await focusAfter(page, '#sample');
  const fc = await page.evaluate(() => window.seqApp.lastForecast) ?? {id: 0, values: []};
  const summary = await page.evaluate(() => [...document.querySelectorAll('[role=status]')]
      .map((e) => e.textContent.trim()).find((t) => /forecast/i.test(t)) ?? '');
  check('keyboard: Enter on "Sample a forecast" samples again; focus stays on it; the forecast summary ' +
        'is in a role=status region', reachForecast && f.ok && fc.id > before && fc.values.length === 40 &&
        summary.includes('40'), `${f.where}; ${summary}`);

  // The charts' tables open too: they must fit at 320 px and pass in light and dark.
  await page.evaluate(() => document.querySelectorAll('details.chart-data').forEach((d) => { d.open = true; }));
  await checkEveryLook(page, 'sequence', 'after a forecast, tables open');
  await page.evaluate(() => document.querySelectorAll('details.chart-data').forEach((d) => { d.open = false; }));

  const forecast = await chartInfo(page, '#forecast-chart');
  const fcRows = await tableRows(page, '#forecast-table');
  check('forecast chart: role=img, a label with its numbers (steps, shares)', labelled(forecast) &&
        forecast.label.includes('40') && /%/.test(forecast.label), `${forecast.role}: ${forecast.label}`);
  check('forecast chart: a table of every sampled step, equal to what the app sampled',
        fcRows?.length === fc.values.length && fcRows.every(([s, v], i) => Number(s) === i + 1 &&
                                                             v === String(fc.values[i])),
        fcRows ? fcRows.slice(0, 6).map((r) => r.join(' ')).join(' | ') : 'no #forecast-table');

  // ---- 2. keyboard: save, delete the saved model ------------------------------------------------
  await tabTo(page, '#save');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /saved at/.test(document.getElementById('save-status').textContent));
  f = await focusAfter(page, '#save');
  check('keyboard: Enter on Save saves; focus stays on Save', f.ok, f.where);
  await tabTo(page, '#forget');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /deleted/.test(document.getElementById('save-status').textContent));
  f = await focusAfter(page, 'button', {usable: true});
  check('keyboard: Enter on "Delete saved model" deletes it; focus is on a usable button (not the page)',
        f.ok, f.where);

  // ---- 2 and 3. keyboard: stop a long run (after 4 s; its live regions counted too) ----------
  // 500 epochs, the most the field takes: an idle machine ran 200 of them in under 5 s.
  await typeInto(page, '#epochs', 500);
  await tabTo(page, '#train');
  await countLiveRegions(page);
  const tLong = Date.now();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.seqApp.history.loss.length >= 1, null, {timeout: 60000});
  await page.waitForTimeout(Math.max(0, 4000 - (Date.now() - tLong)));
  const reachStop = await tabTo(page, '#stop');
  await page.keyboard.press('Enter');
  const stopped = await page.evaluate(async () => ({phase: await window.seqApp.untilIdle(),
                                                    epochs: window.seqApp.history.loss.length}));
  const longSeconds = (Date.now() - tLong) / 1000;
  await page.waitForTimeout(700);
  const longCounts = await liveCounts(page) ?? {};
  const longBound = Math.min(stopped.epochs + 4, 1 + longSeconds / 2);
  check(`live regions during a ${longSeconds.toFixed(1)} s run of ${stopped.epochs} epochs, stopped: none ` +
        `changes more than ${longBound.toFixed(1)} times; the verdict once`,
        Object.entries(longCounts).every(([, c]) => c.changes <= longBound) &&
        longCounts['#result']?.changes === 1,
        Object.entries(longCounts).map(([k, c]) => `${k} ${c.changes}×`).join(', '));
  f = await focusAfter(page, '#train', {usable: true});
  check('keyboard: Tab from Train reaches Stop while training; after Stop, focus moves to Train',
        reachStop && stopped.phase === 'trained' && stopped.epochs < 500 && f.ok,
        `${f.where}; ${stopped.epochs} epochs, ${stopped.phase}`);

  // ---- 2. keyboard: pasted text --------------------------------------------------------------
  await tabTo(page, '#paste-box summary', {back: true});
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.type('day,temp\n1,3.5\n2,4.1\n3,2.2');
  await tabTo(page, '#use-paste');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /at least 20/.test(document.getElementById('data-error').textContent));
  f = await focusAfter(page, '#use-paste');
  check('keyboard: Enter on "Use this text" reads it (too short: an alert); focus stays on that button',
        f.ok, f.where);

  // ---- 5. names -------------------------------------------------------------------------------
  const bar = await page.evaluate(() => {
    const b = document.getElementById('bar');
    return b.getAttribute('aria-label') || [...b.labels].map((l) => l.textContent.trim()).join(' ') ||
        document.getElementById(b.getAttribute('aria-labelledby') ?? '')?.textContent || '';
  });
  const named = await page.getByRole('progressbar', {name: /\S/}).count();
  check('the training progress bar has an accessible name', bar.trim() !== '' && named >= 1, bar);
  const cdp = await context.newCDPSession(page);
  const {nodes} = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const prop = (n, name) => n.properties?.find((p) => p.name === name)?.value?.value;
  const must = nodes.filter((n) => !n.ignored && n.role?.value !== 'RootWebArea' &&
      (prop(n, 'focusable') === true || ['img', 'image', 'progressbar'].includes(n.role?.value)));
  const unnamed = must.filter((n) => !String(n.name?.value ?? '').trim());
  check('every focusable element, image and progress bar has an accessible name', must.length > 10 &&
        unnamed.length === 0, `${must.length} nodes; unnamed: ` +
        unnamed.slice(0, 5).map((n) => `${n.role?.value} (backend ${n.backendDOMNodeId})`).join(', '));

  checkNoErrors(errors);
  console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  await page.close();
}));
