#!/usr/bin/env node
// What teaching pages like Teachable Machine have, in the digits app (issue 26
// item 8), in headless Chromium, every figure checked against this file's own
// forward pass of the model the page lets the user download:
//   - a first visit shows a short guide under the pad (covering neither the pad
//     nor the teach buttons; the first Tab stop is still the pad), stepped
//     through with the keyboard (Next, Next, Next, Done), each step outlining
//     its part of the page; after a reload it is gone; in a second fresh profile
//     Escape skips it;
//   - "Check the model": the confusion tables (true digit x read as) of the
//     2,000 held-out digits and of the user's samples equal those computed here
//     from the downloaded model, in the page's state and in the <table> cells
//     (with row and column headers); after a correction made while it is open,
//     it is refreshed and equal again for the new model;
//   - the "Use this model in your page" snippets, glint-ml and TF.js, run in
//     node as the page shows them (only the pixels filled in) against the
//     downloaded files, give the page's probabilities within 1e-4; Copy copies
//     the code;
//   - import, in a fresh profile at phone size: the app's own Samples JSON gives
//     the same labels and pixels, re-read by the model ("Still right: k of n",
//     k counted here) and kept after a reload; importing it again skips all as
//     duplicates; a Samples CSV (one new, the rest duplicates); malformed files
//     (not JSON, a sample with 783 pixels, a label 11 in a CSV) are refused
//     with a message that names the problem and where, and nothing is imported;
//     a class's pool of 600 samples imports in one go;
//   - axe: no WCAG 2.1 A/AA violation with the guide, the import result, the
//     check tables and the snippets open, light and dark, 1280 / 390 / 320 px;
//     no console errors.
// Needs make web and make demo. Last line: "N passed, N failed".
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {checkEveryLook, focused} from './a11y.mjs';
import {argmax, DIGITS, downloadsOf, draw, maxDiff, modelFromDownload, ODD_SEVENS, referenceModel,
        waitReady, openDigits, requireDigitsBuilds} from './digits_common.mjs';
import {check, checkNoErrors, DESKTOP, PHONE, repo, runMain, withBrowser} from './harness.mjs';

const appDir = path.join(repo, 'web/apps/digits');
const work = path.join(repo, 'build/digits-tools');

// The bundled digits as this file reads them (as digits.mjs does).
const data = zlib.gunzipSync(fs.readFileSync(path.join(appDir, 'data/digits.u8.gz')));
const count = data.length / 785;
const mnistPixels = (k) => Array.from(data.subarray(k * 784, (k + 1) * 784));
const mnistLabel = (k) => data[count * 784 + k];

/** The confusion matrix [true][read] of pictures (bytes 0..255) with labels, by `forward`; near ties counted. */
function confusionHere(forward, pictures, labels) {
  const matrix = Array.from({length: 10}, () => new Array(10).fill(0));
  const reads = pictures.map((px, i) => {
    const p = forward(px.map((v) => v / 255));
    const r = argmax(p);
    ++matrix[labels[i]][r];
    const sorted = [...p].sort((a, b) => b - a);
    return {read: r, margin: sorted[0] - sorted[1]};
  });
  return {matrix, reads};
}

/** Page matrix vs here: cells that differ, ignoring readings that are near ties (margin < 1e-4) here. */
function compareMatrix(page, here) {
  const ties = here.reads.filter((r) => r.margin < 1e-4).length;
  const diff = page.reduce((a, row, t) => a + row.reduce((b, v, r) => b + Math.abs(v - here.matrix[t][r]), 0), 0) / 2;
  return {ok: diff <= ties, diff, ties};
}

/** The page's table as numbers: [true][read] from the body cells, and the header texts. */
function tableOf(page, id) {
  return page.evaluate((id) => {
    const t = document.getElementById(id);
    if (!t) return null;
    return {
      cols: [...t.querySelectorAll('thead th')].map((th) => `${th.getAttribute('scope')}:${th.textContent}`),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => ({
        head: `${tr.querySelector('th')?.getAttribute('scope')}:${tr.querySelector('th')?.textContent}`,
        cells: [...tr.querySelectorAll('td')].slice(0, 10).map((td) => Number(td.textContent)),
      })),
      caption: t.querySelector('caption')?.textContent,
    };
  }, id);
}

async function teachAs(page, strokes, label) {
  const n0 = await page.evaluate(() => digitsApp.samples.length);
  await draw(page, strokes);
  await page.locator(`[data-digit="${label}"]`).click();
  await page.waitForFunction((n) => digitsApp.samples.length === n + 1 && digitsApp.lastTeach?.saved &&
                                    !digitsApp.busy(), n0, {timeout: 30000});
}

/** Waits until the open check view has read with the current model and `n` samples. */
async function checked(page, n) {
  await page.waitForFunction((n) => digitsApp.check && digitsApp.check.generation === digitsApp.generation() &&
                                    digitsApp.check.samplesChecked === n && !digitsApp.busy(),
                             n, {timeout: 60000, polling: 100});
  return page.evaluate(() => digitsApp.check);
}

async function checkConfusion(page, when, model, exported, test) {
  const c = await checked(page, exported.length);
  const held = confusionHere(model.forward, test.map(mnistPixels), test.map(mnistLabel));
  const mine = confusionHere(model.forward, exported.map((s) => s.pixels), exported.map((s) => s.label));
  const h = compareMatrix(c.heldOut.matrix, held), m = compareMatrix(c.samples.matrix, mine);
  const tab = await tableOf(page, 'confusion-heldout'), tabMine = await tableOf(page, 'confusion-samples');
  const cellsH = tab?.rows.map((r) => r.cells), cellsM = tabMine?.rows.map((r) => r.cells);
  const tableOk = JSON.stringify(cellsH) === JSON.stringify(c.heldOut.matrix) &&
      JSON.stringify(cellsM) === JSON.stringify(c.samples.matrix) &&
      tab.cols[0].startsWith('col:') && tab.cols.length === 12 && tab.cols[1] === 'col:read as 0' &&
      tab.rows.every((r, d) => r.head === `row:a true ${d}`);
  const accHere = held.matrix.reduce((a, row, d) => a + row[d], 0) / test.length;
  check(`check the model ${when}: held-out confusion matrix (${test.length} digits) = computed here`,
        h.ok && c.heldOut.total === test.length && tableOk,
        `${h.diff} cells differ (${h.ties} near ties here); ${(100 * accHere).toFixed(2)}% right here, page ` +
        `"${tab?.caption}" in ${c.ms.toFixed(0)} ms, ${c.batches} predictMany calls; table ${tableOk ? 'same' : 'differs'}`);
  check(`check the model ${when}: your ${exported.length} samples' confusion matrix = computed here`,
        m.ok && c.samples.total === exported.length,
        `${m.diff} cells differ; page "${tabMine?.caption}"`);
  return c;
}

/** Runs a snippet from the page in node, in `dir` (the downloaded files), its pixels filled in: the probabilities. */
function runSnippet(code, dir, name, pixels) {
  const line = 'const pixels = new Float32Array(784);';
  if (!code.includes(line)) throw new Error(`${name}: the snippet has no "${line}" line`);
  const src = code.replace(line, `const pixels = new Float32Array(${JSON.stringify(pixels)});`) +
      '\nconsole.log("PROBS " + JSON.stringify(Array.from(probs)));\n';
  fs.writeFileSync(path.join(dir, `${name}.mjs`), src);
  const out = execFileSync(process.execPath, ['--import', './browser-fetch.mjs', `${name}.mjs`],
                           {cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000});
  const got = out.split('\n').find((l) => l.startsWith('PROBS '));
  if (!got) throw new Error(`${name}: no output: ${out.slice(-300)}`);
  return JSON.parse(got.slice(6));
}

/** A folder like a page's: the downloaded model, glint-ml resolvable, fetch() resolving as a page at /app/ would. */
function snippetFolder(files) {
  const dir = path.join(work, 'snippet');
  fs.rmSync(dir, {recursive: true, force: true});
  fs.mkdirSync(path.join(dir, 'node_modules'), {recursive: true});
  fs.symlinkSync(path.join(repo, 'web/package'), path.join(dir, 'node_modules/glint-ml'));
  fs.symlinkSync(path.join(repo, 'node_modules/@tensorflow'), path.join(dir, 'node_modules/@tensorflow'));
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
  // Node's fetch has no page to resolve './x' against: here the page is http://page.test/app/ and
  // only files beside it exist (TF.js resolves weights as a browser would; a site-root path 404s).
  fs.writeFileSync(path.join(dir, 'browser-fetch.mjs'), `import fs from 'node:fs';
globalThis.fetch = async (url) => {
  const u = new URL(String(url), 'http://page.test/app/');
  const m = /^\\/app\\/([^/]+)$/.exec(u.pathname);
  if (u.host !== 'page.test' || !m || !fs.existsSync(m[1])) return new Response('not found', {status: 404});
  return new Response(fs.readFileSync(m[1]));
};
`);
  return dir;
}

async function importFiles(page, files) {
  const n = await page.evaluate(() => digitsApp.lastImport?.count ?? 0);
  await page.setInputFiles('#import-file', files.map(({name, text}) => ({
    name, mimeType: name.endsWith('.csv') ? 'text/csv' : 'application/json', buffer: Buffer.from(text)})));
  await page.waitForFunction((n) => digitsApp.lastImport?.count > n && !digitsApp.busy(), n, {timeout: 60000});
  return page.evaluate(() => ({...digitsApp.lastImport, said: document.getElementById('import-result').textContent,
                               samples: digitsApp.samples.length,
                               still: document.getElementById('samples-check').textContent}));
}

async function main() {
  requireDigitsBuilds();
  fs.mkdirSync(work, {recursive: true});
  const shippedJson = JSON.parse(fs.readFileSync(path.join(appDir, 'model/model.json'), 'utf8'));
  const shipped = referenceModel(shippedJson, new Uint8Array(
      fs.readFileSync(path.join(appDir, 'model', shippedJson.weightsManifest[0].paths[0]))));
  let exportedJson = null, exportedCsv = null;

  // ---- profile 1, desktop: the guide, teaching, the check view, the snippets -----------------------
  await withBrowser(async ({base, context}) => {
    const {page, errors} = await openDigits(context, base, {viewport: DESKTOP});
    const g = await page.evaluate(() => {
      const box = (s) => document.querySelector(s).getBoundingClientRect();
      const over = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const guide = box('#guide');
      return {shown: !document.getElementById('guide').hidden, text: document.getElementById('guide-text').textContent,
              spot: document.querySelector('.guide-spot')?.className,
              covers: ['#pad', '#teach', '#clear', '#undo', '#example', '#download-model']
                  .filter((s) => over(guide, box(s))),
              position: getComputedStyle(document.getElementById('guide')).position};
    });
    check('first visit: a guide is shown under the pad, covering neither the pad nor any button',
          g.shown && /Draw a digit/.test(g.text) && g.spot === 'pad-wrap guide-spot' && g.covers.length === 0 &&
          g.position === 'static', `"${g.text.slice(0, 50)}…", outlined: ${g.spot}, covers [${g.covers}], ${g.position}`);
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('Tab');
    const first = await focused(page);
    check('with the guide shown the first Tab stop is still the pad', first === 'CANVAS#pad', first);
    // Keyboard only: Tab to Next, then Enter through the steps.
    for (let i = 0; i < 30 && await focused(page) !== 'BUTTON#guide-next'; ++i) await page.keyboard.press('Tab');
    const steps = [];
    for (let i = 0; i < 4; ++i) {
      steps.push(await page.evaluate(() => ({step: document.getElementById('guide-step').textContent,
                                              spot: document.querySelector('.guide-spot')?.id ||
                                                    document.querySelector('.guide-spot')?.className,
                                              next: document.getElementById('guide-next').textContent})));
      await page.keyboard.press('Enter');
    }
    const after = await page.evaluate(() => ({hidden: document.getElementById('guide').hidden,
                                              key: localStorage.getItem('glint-digits/guide'),
                                              spots: document.querySelectorAll('.guide-spot').length}));
    const focusAfter = await focused(page);
    check('the guide with the keyboard: 4 steps (pad, reading, teach buttons, samples), Next … Done; ' +
          'then gone, focus on the pad',
          steps.length === 4 && steps[3].step === 'step 4 of 4' && steps[3].next === 'Done' &&
          steps[1].spot.includes('verdict') && steps[2].spot === 'teach' && steps[3].spot === 'samples-card' &&
          after.hidden && after.key === 'done' && after.spots === 0 && focusAfter === 'CANVAS#pad',
          `${steps.map((s) => `${s.step}: ${s.spot} [${s.next}]`).join('; ')}; then hidden ${after.hidden}, ` +
          `stored "${after.key}", focus ${focusAfter}`);
    await page.reload();
    await waitReady(page);
    check('after a reload the dismissed guide stays away', await page.locator('#guide').isHidden());

    // Three samples taught, exported.
    await teachAs(page, DIGITS[3], 3);
    await teachAs(page, DIGITS[7], 7);
    await teachAs(page, ODD_SEVENS['serif and slant'], 7);
    exportedJson = (await downloadsOf(page, '#export-json', 1))['glint-digits-samples.json'].toString('utf8');
    const three = JSON.parse(exportedJson).samples;

    // The check view, against the downloaded model.
    const test = await page.evaluate(() => Array.from(digitsApp.heldOut()));
    await page.click('#check-model');
    let model = modelFromDownload(await downloadsOf(page, '#download-model', 2));
    await checkConfusion(page, 'after 3 corrections', model, three, test);
    // A correction while it is open: it follows the new model.
    const before = await page.evaluate(() => digitsApp.check.generation);
    await teachAs(page, DIGITS[0], 0);
    exportedCsv = (await downloadsOf(page, '#export-csv', 1))['glint-digits-samples.csv'].toString('utf8');
    const four = JSON.parse((await downloadsOf(page, '#export-json', 1))['glint-digits-samples.json']).samples;
    model = modelFromDownload(await downloadsOf(page, '#download-model', 2));
    const c = await checkConfusion(page, 'refreshed after a 4th correction made while open', model, four, test);
    check('the open check view refreshed itself after the correction', c.generation > before,
          `generation ${before} -> ${c.generation}`);

    // The snippets, run in node against the downloaded files.
    const files = await downloadsOf(page, '#download-model', 2);
    const p = await draw(page, DIGITS[3]);
    const dir = snippetFolder(files);
    const code = await page.evaluate(() => ({glint: document.getElementById('snippet-glint').textContent,
                                             tfjs: document.getElementById('snippet-tfjs').textContent}));
    for (const [name, text] of Object.entries(code)) {
      let d = Infinity, detail;
      try {
        const probs = runSnippet(text, dir, name, p.input);
        d = maxDiff(probs, p.probs);
        detail = `read ${argmax(probs)}, page ${p.label}; max |diff| ${d.toExponential(2)}`;
      } catch (e) {
        detail = e.message.slice(0, 400);
      }
      check(`the ${name === 'glint' ? 'glint-ml' : 'TF.js'} snippet, run in node on the downloaded model, ` +
            'gives the page\'s probabilities', d < 1e-4, detail);
    }
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {origin: base});
    await page.click('#use-model summary');
    await page.click('button.copy[data-copy="snippet-glint"]');
    const copied = await page.evaluate(() => navigator.clipboard.readText().catch((e) => `error ${e.message}`));
    check('Copy puts the glint-ml snippet on the clipboard', copied === code.glint &&
          await page.locator('#copy-said').textContent() === 'Copied.', copied.slice(0, 60));

    await checkEveryLook(page, 'digits tools', 'check tables and snippets open');
    checkNoErrors(errors);
    await page.close();
  });

  // ---- profile 2, phone: import -------------------------------------------------------------------
  await withBrowser(async ({base, context}) => {
    const {page, errors} = await openDigits(context, base, {viewport: PHONE});
    await checkEveryLook(page, 'digits tools', 'first visit, guide shown');
    await page.setViewportSize(PHONE);
    await page.locator('#guide-next').focus();
    await page.keyboard.press('Escape');
    const skipped = await page.evaluate(() => ({hidden: document.getElementById('guide').hidden,
                                                key: localStorage.getItem('glint-digits/guide')}));
    check('phone: Escape in the guide skips it, remembered', skipped.hidden && skipped.key === 'skipped' &&
          await focused(page) === 'CANVAS#pad', JSON.stringify(skipped));

    const mine = JSON.parse(exportedJson).samples;
    let r = await importFiles(page, [{name: 'glint-digits-samples.json', text: exportedJson}]);
    const got = await page.evaluate(() => digitsApp.samples.map((s) => ({label: s.label, pixels: Array.from(s.pixels)})));
    const same = got.length === mine.length && got.every((s, i) => s.label === mine[i].label &&
                                                         maxDiff(s.pixels, mine[i].pixels) === 0);
    const rightHere = mine.filter((s) => argmax(shipped(s.pixels.map((v) => v / 255))) === s.label).length;
    check('phone: the Samples JSON of another profile imports: same labels and pixels, in the list',
          same && r.imported === 3 && await page.locator('#samples li').count() === 3 &&
          r.said.startsWith('Imported 3 samples (0 duplicates skipped)'), `"${r.said}"`);
    check('imported samples are re-read by the model: "Still right: k of n", k counted here',
          r.still === `Still right: ${rightHere} of 3.`, `"${r.still}", here ${rightHere} of 3 (shipped model)`);
    r = await importFiles(page, [{name: 'again.json', text: exportedJson}]);
    check('the same file again: all skipped as duplicates', r.imported === 0 && r.duplicates === 3 &&
          r.samples === 3 && r.said.startsWith('Imported 0 samples (3 duplicates skipped)'), `"${r.said}"`);
    r = await importFiles(page, [{name: 'glint-digits-samples.csv', text: exportedCsv}]);
    check('a Samples CSV: the new sample imported, the 3 duplicates skipped', r.imported === 1 && r.duplicates === 3 &&
          r.samples === 4 && r.said.startsWith('Imported 1 sample (3 duplicates skipped)'), `"${r.said}"`);

    // Malformed files: a plain message naming the problem; nothing imported.
    const doc = JSON.parse(exportedJson);
    const short = structuredClone(doc);
    short.samples[1].pixels.pop();
    const csvLines = exportedCsv.trim().split('\n');
    csvLines[2] = csvLines[2].replace(/^\d/, '11');
    for (const [what, file, want] of [
      ['not JSON', {name: 'broken.json', text: '{"format": "glint-digits-personal", "samples": ['}, /broken\.json is not JSON/],
      ['another JSON', {name: 'other.json', text: '{"hello": 1}'}, /other\.json is JSON but not in the Samples JSON format/],
      ['a sample with 783 pixels', {name: 'short.json', text: JSON.stringify(short)}, /sample 2: 783 pixels, expected 784/],
      ['a CSV label 11', {name: 'bad.csv', text: csvLines.join('\n')}, /line 3 \(sample 2\): label 11 is not a digit 0-9/],
    ]) {
      r = await importFiles(page, [file]);
      check(`a malformed file (${what}) is refused with the problem named; nothing imported`,
            r.error && want.test(r.said) && r.said.startsWith('Nothing imported') && r.samples === 4, `"${r.said}"`);
    }

    // A class's pool: 30 students x 20 samples, one file.
    const pool = {...doc, samples: Array.from({length: 600}, (_, i) => ({label: mnistLabel(i), created: doc.samples[0].created,
                                                                          pixels: mnistPixels(i)}))};
    const dupes = new Set(pool.samples.map((s) => `${s.label}:${s.pixels}`)).size;
    const t0 = Date.now();
    r = await importFiles(page, [{name: 'class.json', text: JSON.stringify(pool)}]);
    const sec = (Date.now() - t0) / 1000;
    check('a class pool of 600 samples imports in one go (re-read included) in under 20 s',
          r.imported === dupes && r.samples === 4 + dupes && sec < 20 &&
          r.still === `Still right: ${await page.evaluate(() => digitsApp.samples.filter((s) => s.right).length)} of ${4 + dupes}.`,
          `"${r.said}" in ${sec.toFixed(1)} s; "${r.still}"`);
    await page.reload();
    await waitReady(page);
    const kept = await page.evaluate(() => digitsApp.samples.length);
    check('imported samples are kept in this browser (after a reload)', kept === 4 + dupes, `${kept} samples`);

    // The check view with the pooled samples, at phone size, against the shipped model.
    await page.click('#check-model');
    const all = await page.evaluate(() => digitsApp.samples.map((s) => ({label: s.label, pixels: Array.from(s.pixels)})));
    // After the reload the MNIST digits come when the check view first needs them.
    await page.waitForFunction(() => digitsApp.heldOut() !== null, null, {timeout: 30000});
    const test = await page.evaluate(() => Array.from(digitsApp.heldOut()));
    await checkConfusion(page, 'at phone size with the pooled samples', {forward: shipped}, all, test);
    await checkEveryLook(page, 'digits tools', 'after import, check tables open');
    checkNoErrors(errors);
    await page.close();
  });
}

runMain(main);
