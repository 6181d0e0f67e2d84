#!/usr/bin/env node
// The sequence app's data handling (web/apps/sequence, issue 26 items 10 and 11),
// in headless Chromium, at desktop (1280x800) and phone (390x844) sizes:
// - bad cells are named: a numeric column with two "n/a" cells says
//   "row 18: 'n/a' is not a number" (row = line of the file), is still offered
//   as numbers (not "looks like an index or time"), and its series is the
//   column's numbers without those cells (compared with the test's own parse);
// - a European CSV (';' separators, decimal commas) and a tab-separated one
//   with decimal commas read as numbers, equal to the test's own parse;
// - binary input is refused plainly: a PNG file ("PNG image, not a CSV"),
//   random bytes (not UTF-8 text) and pasted text with NUL characters;
// - a failed load (header only) clears the old stats, chart, column list and
//   leaves Train unusable;
// - Window = 0 shows its error beside the Window field (aria-invalid,
//   aria-describedby, drawn just under the field; not in the Data card), at
//   desktop and at phone width; a valid window clears it;
// - #status tells what happened: a failed load, a loaded file, a finished
//   training run (not "A sample series is loaded" throughout);
// - "1 value", never "1 values";
// - a 5 MB CSV (150,000 rows, written to the temp folder) is parsed off the
//   main thread (no main-thread task over 50 ms of CPU while it loads), is not
//   cut silently (the series has every row), the app says which batch size it
//   chose (and any cap on windows per epoch), and one epoch with the app's
//   settings for that file takes under 3 s (the issue's target; the time is printed,
//   with, for comparison only, the same epoch at batch 32 and 256 over every window).
// Usage: node tests/browser/sequence_data.mjs     Last line: "N passed, N failed".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {check, checkNoErrors, DESKTOP, openPage, PHONE, runMain, tasksDuring, traceMainThread,
        withBrowser} from './harness.mjs';

const APP = '/web/apps/sequence/index.html';

async function waitReady(page) {
  await page.waitForFunction(() => window.seqApp?.ready === true || /fail/.test(
      document.getElementById('status').className), null, {timeout: 60000});
  return page.evaluate(() => ({ready: window.seqApp.ready, status: document.getElementById('status').textContent}));
}

/** Resolves when a load has settled (the app's promise, or a pause on an app without one). */
async function settled(page) {
  await page.evaluate(() => (window.seqApp.untilLoaded ? window.seqApp.untilLoaded() :
      new Promise((r) => setTimeout(r, 800))));
}

/** Gives the app a file through the file field and waits for the load to settle. */
async function loadFile(page, name, content) {
  await page.setInputFiles('#file', typeof content === 'string' && !content.includes('\n') && fs.existsSync(content) ?
      content : {name, mimeType: 'text/csv', buffer: Buffer.isBuffer(content) ? content : Buffer.from(content)});
  await settled(page);
}

async function paste(page, text) {
  await page.evaluate(() => { document.getElementById('paste-box').open = true; });
  await page.fill('#paste', text);
  await page.click('#use-paste');
  await settled(page);
}

const view = (page) => page.evaluate(() => ({
  error: document.getElementById('data-error').hidden ? '' : document.getElementById('data-error').textContent,
  card: document.getElementById('data').innerText,
  stats: document.getElementById('data-stats').textContent,
  status: document.getElementById('status').textContent,
  columns: [...document.getElementById('column').options].map((o) => o.textContent),
  formShown: !document.getElementById('data-form').hidden,
  picked: document.getElementById('column').selectedOptions[0]?.textContent ?? '',
  kind: document.getElementById('kind').value,
  canvases: document.querySelectorAll('#series-chart canvas').length,
  chartLabel: document.getElementById('series-chart').getAttribute('aria-label'),
  trainOff: document.getElementById('train').getAttribute('aria-disabled') === 'true',
  series: window.seqApp.series ?? null,
}));

const close = (a, b) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) < 1e-9);

/** A small numeric series with a time column. */
const wave = (n) => Array.from({length: n}, (_, i) => 20 + 8 * Math.sin(i / 4) + (i % 5) * 0.3);

/** Window = 0: the error's element, its place next to the field, and the Data card's alert. */
async function windowError(page) {
  await page.fill('#window', '0');
  await page.dispatchEvent('#window', 'change');
  await settled(page);
  return page.evaluate(() => {
    const field = document.getElementById('window');
    const ids = (field.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    const described = ids.map((id) => document.getElementById(id)).filter((e) => e && !e.hidden &&
        e.getClientRects().length > 0 && /window/i.test(e.textContent));
    const f = field.getBoundingClientRect(), e = described[0]?.getBoundingClientRect();
    const dataError = document.getElementById('data-error');
    return {invalid: field.getAttribute('aria-invalid'), text: described[0]?.textContent ?? '',
            // Just under the field (or beside it), in the same column of the form.
            near: !!e && e.top >= f.top - 4 && e.top - f.bottom <= 40 && e.left < f.right && e.right > f.left,
            gap: e ? Math.round(e.top - f.bottom) : null,
            inDataCard: !dataError.hidden && /window/i.test(dataError.textContent),
            trainOff: document.getElementById('train').getAttribute('aria-disabled') === 'true',
            overflow: document.documentElement.scrollWidth - window.innerWidth};
  });
}

runMain(() => withBrowser(async ({base, context}) => {
  const t0 = Date.now();
  const {page, errors} = await openPage(context, base + APP);
  const start = await waitReady(page);
  check('engine starts', start.ready, start.status);

  // ---- bad cells are named ----------------------------------------------------------------------
  const values = wave(60).map((v) => v.toFixed(2));
  const lines = ['t,value', ...values.map((v, i) => `${i + 1},${v}`)];
  lines[17] = '17,n/a';      // line 18 of the file
  lines[40] = '40,n/a';      // line 41
  await loadFile(page, 'gaps.csv', lines.join('\n'));
  let v = await view(page);
  const expected = lines.slice(1).map((l) => l.split(',')[1]).filter((x) => x !== 'n/a').map(Number);
  check('bad cells named: "row 18: \'n/a\' is not a number" and row 41', /row 18: 'n\/a' is not a number/.test(v.card) &&
        /row 41/.test(v.card), v.card.split('\n').find((l) => /n\/a|index|not a number/.test(l)) ?? v.card.slice(0, 200));
  check('that column is offered as numbers, not as "an index or time", and its series has its 58 numbers',
        v.picked === 'value' && v.kind === 'numeric' && !v.columns[1]?.includes('index') &&
        v.series !== null && close(v.series, expected),
        `picked "${v.picked}" as ${v.kind}; columns ${v.columns.join(' | ')}; series ${v.series?.length ?? 'not exposed'}`);

  // ---- decimal commas, ';' and tab separators ---------------------------------------------------
  const temps = wave(80);
  const euro = ['Datum;Temperatur;Luftdruck', ...temps.map((t, i) =>
    `${String(1 + (i % 28)).padStart(2, '0')}.${String(1 + Math.floor(i / 28)).padStart(2, '0')}.2024;` +
    `${t.toFixed(1).replace('.', ',')};${(1000 + t).toFixed(1).replace('.', ',')}`)].join('\r\n');
  // The test's own reading: split on ';', decimal comma to point.
  const euroTemps = euro.split('\r\n').slice(1).map((l) => Number(l.split(';')[1].replace(',', '.')));
  await loadFile(page, 'wetter.csv', euro);
  v = await view(page);
  check('European CSV (";" and decimal commas): Temperatur read as numbers, equal to the test\'s parse',
        v.columns.length === 3 && v.picked === 'Temperatur' && v.kind === 'numeric' && v.series !== null &&
        close(v.series, euroTemps), `columns ${v.columns.join(' | ')}; picked "${v.picked}" as ${v.kind}; ` +
        `${v.error || v.stats}`);
  const tsv = ['zeit\twert', ...temps.map((t, i) => `${i * 10}:00\t${(t * 3).toFixed(2).replace('.', ',')}`)].join('\n');
  const tsvValues = tsv.split('\n').slice(1).map((l) => Number(l.split('\t')[1].replace(',', '.')));
  await loadFile(page, 'werte.tsv', tsv);
  v = await view(page);
  check('tab-separated with decimal commas: read as numbers, equal to the test\'s parse',
        v.columns.length === 2 && v.picked === 'wert' && v.kind === 'numeric' && v.series !== null &&
        close(v.series, tsvValues), `columns ${v.columns.join(' | ')}; picked "${v.picked}" as ${v.kind}`);

  // ---- binary input is refused; a failed load clears the old data -------------------------------
  await page.click('[data-sample=weather]');
  await settled(page);
  await page.waitForFunction(() => /weather\.csv/.test(document.getElementById('data-stats').textContent));
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    Buffer.from('IHDR'), Buffer.from(Array.from({length: 300}, (_, i) => (i * 37) % 256))]);
  await loadFile(page, 'chart.csv', png);
  v = await view(page);
  check('a PNG given as a CSV: "this is a PNG image, not a CSV"', /PNG image, not a CSV/i.test(v.error), v.error);
  check('after that failed load the old stats, chart and column list are gone, Train is off',
        v.stats === '' && !v.formShown && v.columns.length === 0 && v.canvases === 0 &&
        /no data/.test(v.chartLabel) && v.trainOff && v.series === null,
        `stats "${v.stats}", columns ${v.columns.length}, canvases ${v.canvases}, label "${v.chartLabel}"`);
  check('#status tells of the failed load (not "A sample series is loaded")',
        !/sample series is loaded/.test(v.status) && /chart\.csv/.test(v.status), v.status);
  const noise = Buffer.from(Array.from({length: 2000}, (_, i) => (i * 7919 + (i >> 3) * 104729) % 255 + 1));
  await loadFile(page, 'noise.csv', noise);
  v = await view(page);
  check('bytes that are not UTF-8 text (no magic, no NUL): refused as not text', /not (a )?(CSV|text)/i.test(v.error) &&
        v.columns.length === 0, v.error);
  await paste(page, 'a,b\n1,2\n\u0000\u0000\u0003\u0004\uFFFD\uFFFDIHDR\u0000\n3,4');
  v = await view(page);
  check('pasted binary (NUL characters): refused plainly', /binary|not (a )?(CSV|text)/i.test(v.error) &&
        v.columns.length === 0, v.error);

  await page.click('[data-sample=energy]');
  await settled(page);
  await page.waitForFunction(() => /energy\.csv/.test(document.getElementById('data-stats').textContent));
  v = await view(page);
  check('#status names the file that is loaded now', /energy\.csv/.test(v.status), v.status);
  await loadFile(page, 'header_only.csv', 'date,load\n');
  v = await view(page);
  check('header-only file: an error, and the energy sample\'s stats, chart and columns are cleared',
        v.error !== '' && v.stats === '' && v.columns.length === 0 && v.canvases === 0 && v.trainOff,
        `error "${v.error}", stats "${v.stats}", columns ${v.columns.join(' | ')}, canvases ${v.canvases}`);

  // ---- "1 value" ---------------------------------------------------------------------------------
  await paste(page, 'x\n5');
  v = await view(page);
  const body = await page.evaluate(() => document.body.innerText);
  check('one value: "1 value", never "1 values"', /\b1 value\b/.test(v.error) && !/\b1 values\b/.test(body),
        v.error);

  // ---- Window = 0: the error beside the field ------------------------------------------------------
  await page.click('[data-sample=weather]');
  await settled(page);
  await page.waitForFunction(() => /weather\.csv/.test(document.getElementById('data-stats').textContent));
  let w = await windowError(page);
  check('desktop: Window = 0 shows its error under the Window field (aria-invalid, aria-describedby), ' +
        'not in the Data card; Train off', w.invalid === 'true' && w.near && !w.inDataCard && w.trainOff,
        `aria-invalid ${w.invalid}, "${w.text}", gap ${w.gap} px, in Data card: ${w.inDataCard}`);
  await page.fill('#window', '14');
  await page.dispatchEvent('#window', 'change');
  await settled(page);
  const fixed = await page.evaluate(() => ({invalid: document.getElementById('window').getAttribute('aria-invalid'),
    trainOff: document.getElementById('train').getAttribute('aria-disabled') === 'true'}));
  check('a valid window clears that error', fixed.invalid !== 'true' && !fixed.trainOff, JSON.stringify(fixed));

  // ---- #status after training ---------------------------------------------------------------------
  await page.fill('#epochs', '1');
  await page.fill('#units', '8');
  await page.click('#train');
  await page.evaluate(() => window.seqApp.untilIdle());
  v = await view(page);
  check('#status after training says the model is trained', /trained/i.test(v.status) &&
        !/press Train/.test(v.status), v.status);

  // ---- phone: errors beside their field ------------------------------------------------------------
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);
  w = await windowError(page);
  check('phone: Window = 0 shows its error under the Window field, no sideways scrolling',
        w.invalid === 'true' && w.near && !w.inDataCard && w.overflow <= 0,
        `aria-invalid ${w.invalid}, "${w.text}", gap ${w.gap} px, ${w.overflow} px too wide`);
  await page.fill('#window', '14');
  await page.dispatchEvent('#window', 'change');
  await loadFile(page, 'gaps.csv', lines.join('\n'));
  const phoneBad = await page.evaluate(() => {
    const hit = [...document.querySelectorAll('#data *')].find((e) => e.children.length === 0 &&
        /row 18: 'n\/a' is not a number/.test(e.textContent) && e.getClientRects().length > 0);
    const r = hit?.getBoundingClientRect();
    return {shown: !!hit, inside: !!r && r.left >= 0 && r.right <= window.innerWidth,
            overflow: document.documentElement.scrollWidth - window.innerWidth};
  });
  check('phone: the bad cells are named on screen, within the width', phoneBad.shown && phoneBad.inside &&
        phoneBad.overflow <= 0, JSON.stringify(phoneBad));
  await page.setViewportSize(DESKTOP);

  // ---- a 5 MB CSV: parsed off the main thread; one epoch under 3 s ------------------------------------
  const rows = 150000;
  const big = path.join(os.tmpdir(), `glint-sequence-big-${process.pid}.csv`);
  const out = ['time,load_mw,temp_c'];
  let state = 1;
  const rand = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < rows; ++i) {
    const load = 500 + 120 * Math.sin((2 * Math.PI * i) / 24) + 40 * Math.sin((2 * Math.PI * i) / 168) + 15 * rand();
    out.push(`2010-01-01T${String(i % 24).padStart(2, '0')}:00+${i},${load.toFixed(3)},${(10 + 8 * Math.sin(i / 500)).toFixed(2)}`);
  }
  fs.writeFileSync(big, out.join('\n') + '\n');
  const size = fs.statSync(big).size;
  await page.evaluate(() => { document.getElementById('data-stats').textContent = ''; });
  const tLoad = Date.now();
  const {result: window1, tasks} = await traceMainThread(page, async () => {
    const from = await page.evaluate(() => performance.now());
    await page.setInputFiles('#file', big);
    // A MutationObserver in the page rather than polling (polling is main-thread work of the test's own).
    await page.evaluate(() => new Promise((resolve) => {
      const done = () => /glint-sequence-big/.test(document.getElementById('data-stats').textContent) ||
          !document.getElementById('data-error').hidden;
      if (done()) resolve();
      new MutationObserver(() => done() && resolve()).observe(document.getElementById('data'),
          {childList: true, characterData: true, subtree: true, attributes: true});
    }));
    await page.waitForTimeout(500);   // the chart and anything queued after the stats line
    return {start: from, end: await page.evaluate(() => performance.now())};
  });
  const loadSeconds = (Date.now() - tLoad) / 1000;
  fs.rmSync(big, {force: true});
  const busy = tasksDuring(tasks, window1);
  v = await view(page);
  check(`5 MB CSV (${(size / 1e6).toFixed(1)} MB, ${rows} rows) loads with no main-thread task over 50 ms of CPU`,
        v.stats !== '' && busy.count > 0 && busy.cpu <= 50,
        `shown after ${loadSeconds.toFixed(1)} s; ${busy.count} tasks, longest ${busy.cpu.toFixed(1)} ms of CPU ` +
        `(wall ${busy.wall.toFixed(1)} ms) at load average ${os.loadavg()[0].toFixed(1)}; ${v.error || v.stats}`);
  check('the long series is not cut: every row is in the series', v.picked === 'load_mw' &&
        v.series?.length === rows, `${v.picked}: ${v.series?.length ?? 'no series'} values`);
  const plan = await page.evaluate(() => ({batch: Number(document.getElementById('batch').value),
    note: document.getElementById('plan-note')?.textContent ?? '', plan: window.seqApp.plan ?? null}));
  const capped = plan.plan && plan.plan.perEpoch < plan.plan.trainWindows;
  check('the app says which batch size it chose for this long series (and any cap on windows per epoch)',
        plan.note.includes(`batch ${plan.batch}`) &&
        (!capped || plan.note.includes(plan.plan.perEpoch.toLocaleString('en-US'))), plan.note);

  await page.fill('#epochs', '1');
  await page.click('#train');
  const trained = await page.evaluate(async () => ({phase: await window.seqApp.untilIdle(),
    epochs: window.seqApp.history.loss.length, t: window.seqApp.lastTraining}));
  const epochSeconds = trained.t ? (trained.t.end - trained.t.start) / 1000 : Infinity;
  console.log(`  one epoch on ${rows} rows: ${epochSeconds.toFixed(2)} s (batch ${plan.batch}` +
              `${capped ? `, ${plan.plan.perEpoch} of ${plan.plan.trainWindows} windows per epoch` : ''})`);
  check('one epoch on the 5 MB CSV with the app\'s settings takes under 3 s', trained.phase === 'trained' &&
        trained.epochs === 1 && epochSeconds < 3, `${epochSeconds.toFixed(2)} s, ${trained.epochs} epoch, ${trained.phase}`);
  // For comparison (printed, not checked): the same epoch with the settings the app used to keep for
  // every file (batch 32, every window), in this run on this machine.
  const oldEpoch = async (settings) => {
    for (const [id, value] of Object.entries(settings)) {
      await page.fill(`#${id}`, value);
      await page.dispatchEvent(`#${id}`, 'change');
    }
    await settled(page);
    await page.click('#train');
    const t = await page.evaluate(async () => (await window.seqApp.untilIdle(), window.seqApp.lastTraining));
    return (t.end - t.start) / 1000;
  };
  const all256 = await oldEpoch({'per-epoch': '', batch: '256'});
  const all32 = await oldEpoch({batch: '32'});
  console.log(`  same run: batch 32, every window (the old settings) ${all32.toFixed(2)} s; batch 256, every ` +
              `window ${all256.toFixed(2)} s; the app's choice ${epochSeconds.toFixed(2)} s ` +
              `(${(all32 / epochSeconds).toFixed(1)}x faster)`);

  checkNoErrors(errors);
  console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  await page.close();
}));
