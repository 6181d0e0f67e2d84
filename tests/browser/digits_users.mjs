#!/usr/bin/env node
// The digits app (web/apps/digits) as its users found it (issue 26, digits items
// 4 to 7), in headless Chromium at desktop (1280x800, mouse) and phone (390x844,
// touch through CDP touch events) sizes, drawn from stroke lists:
//   4 "not sure": clear 0, 1, 3, 7 read as themselves (headline digit, "N, P% sure"
//     announced); a scribble, a dot and a short stray stroke off to one side of the
//     pad show "not sure: maybe N" in the headline, the chip and the announcement;
//     the page's distance limit is the 98th percentile of the held-out MNIST digits'
//     nearest-training-digit distances, recomputed here; a "not sure" scribble can
//     still be taught (it joins the samples and then reads as what it was taught,
//     the teach message says so);
//   5 a 7 whose stem runs off the bottom of the pad: no ink along the bottom border
//     row (only where the stem crossed it), the ink is the same stroke cut at the
//     border drawn on its own; a stroke that leaves and comes back is two strokes
//     with nothing drawn along the edge; pointer and touch;
//   6 with the pad in view after drawing, the headline (#guess), the ten teach buttons
//     and the teach confirmation (#teach-result) are inside the viewport, at both
//     sizes, before and after teaching; on the phone the "reads N" chip is a named
//     button, and tapping it puts focus on a teach button that is in view;
//   7 stale state: after one of two samples is removed with × the status line says
//     "1 personal sample" like the badge; the model badge says "training…" while
//     training from scratch runs; Clear empties the teach message; the best bar's
//     percentage is the headline's.
// Needs make web and make demo. Last line: "N passed, N failed".
import path from 'node:path';
import {argmax, DIGITS, fmtP, openDigits, requireDigitsBuilds} from './digits_common.mjs';
import {heldOutPercentileInWorker} from './digits_calibration.mjs';
import {check, checkNoErrors, DESKTOP, PHONE, repo, runMain, withBrowser} from './harness.mjs';

const appDir = path.join(repo, 'web/apps/digits');

// ---- strokes: point lists in pad coordinates (outside [0, 1] is off the pad) ------------------

const NOT_DIGITS = {
  'a scribble (dense zigzag)': [Array.from({length: 15}, (_, i) => [0.2 + 0.6 * (i % 2), 0.2 + 0.6 * i / 14])],
  'a dot': [[[0.5, 0.5], [0.51, 0.505]]],
  'a short stroke off to one side': [[[0.04, 0.42], [0.12, 0.56]]],
};
// A 7 whose stem leaves the pad at the bottom (y = 1) and runs on outside, then comes back in.
const OFF_SEVEN = [[0.28, 0.22], [0.72, 0.22], [0.6, 0.5], [0.45, 1.2], [0.85, 1.25]];
const BACK_IN = [[0.3, 0.3], [0.3, 1.2], [0.7, 1.2], [0.7, 0.5]];   // down, out, along below, back up

// ---- input: mouse, or touch through CDP ------------------------------------------------------

async function padBox(page) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.locator('#pad').scrollIntoViewIfNeeded();
  return page.locator('#pad').boundingBox();
}

/** Moves along a polyline in `steps` pieces per segment, as page.mouse.move does. */
function path2(stroke, steps = 6) {
  const out = [stroke[0]];
  for (let i = 1; i < stroke.length; ++i) {
    const [a, b] = [stroke[i - 1], stroke[i]];
    for (let s = 1; s <= steps; ++s) out.push([a[0] + (b[0] - a[0]) * s / steps, a[1] + (b[1] - a[1]) * s / steps]);
  }
  return out;
}

/** Draws the strokes on a cleared pad with the mouse or with touch. */
async function drawWith(page, input, strokes, {clear = true} = {}) {
  if (clear) await page.evaluate(() => document.getElementById('clear').click());
  const box = await padBox(page);
  const at = ([x, y]) => ({x: box.x + x * box.width, y: box.y + y * box.height});
  for (const stroke of strokes) {
    const pts = path2(stroke).map(at);
    if (input === 'mouse') {
      await page.mouse.move(pts[0].x, pts[0].y);
      await page.mouse.down();
      for (const p of pts.slice(1)) await page.mouse.move(p.x, p.y);
      await page.mouse.up();
    } else {
      const cdp = await touch(page);
      await cdp.send('Input.dispatchTouchEvent', {type: 'touchStart', touchPoints: [pts[0]]});
      for (const p of pts.slice(1)) await cdp.send('Input.dispatchTouchEvent', {type: 'touchMove', touchPoints: [p]});
      await cdp.send('Input.dispatchTouchEvent', {type: 'touchEnd', touchPoints: []});
    }
  }
  return settled(page);
}

const cdps = new WeakMap();
async function touch(page) {
  if (!cdps.has(page)) cdps.set(page, await page.context().newCDPSession(page));
  const cdp = cdps.get(page);
  // Again each time: a viewport change may turn touch emulation off (then a tap is no click).
  await cdp.send('Emulation.setTouchEmulationEnabled', {enabled: true, maxTouchPoints: 1});
  return cdp;
}

async function tap(page, selector) {
  const b = await page.locator(selector).boundingBox();
  const p = {x: b.x + b.width / 2, y: b.y + b.height / 2};
  const cdp = await touch(page);
  await cdp.send('Input.dispatchTouchEvent', {type: 'touchStart', touchPoints: [p]});
  await cdp.send('Input.dispatchTouchEvent', {type: 'touchEnd', touchPoints: []});
}

/** The prediction of what is on the pad now and what the page shows and says about it. */
async function settled(page) {
  await page.waitForFunction(() => {
    const p = digitsApp.lastPrediction;
    return p && p.probs && p.version === digitsApp.padVersion() && !digitsApp.busy() &&
        p.generation === digitsApp.generation();
  }, null, {timeout: 30000, polling: 50});
  // The announcement comes once the drawing has settled (700 ms after the last reading;
  // the MNIST digits arriving after a first drawing bring one more reading).
  await page.waitForFunction(() => {
    const p = digitsApp.lastPrediction, said = document.getElementById('said').textContent;
    return said.startsWith(`${p.label}, `) || said.startsWith(`not sure: maybe ${p.label}`);
  }, null, {timeout: 5000, polling: 50}).catch(() => {});   // checked by the caller
  await page.waitForTimeout(100);
  return page.evaluate(() => {
    const t = (id) => document.getElementById(id).textContent.trim();
    return {...digitsApp.lastPrediction, guess: t('guess'), confidence: t('confidence'), said: t('said'),
            chip: t('mini-guess'), best: document.querySelector('#bars li.best .value')?.textContent ?? ''};
  });
}

const shown = (r) => `headline "${r.guess}" "${r.confidence}", said "${r.said}", chip "${r.chip}"`;

/** Boxes of the elements, and whether each lies inside the viewport. */
async function inView(page, selectors) {
  return page.evaluate((sels) => sels.map((s) => {
    const els = [...document.querySelectorAll(s)];
    const boxes = els.map((e) => e.getBoundingClientRect());
    const ok = boxes.length > 0 && boxes.every((b) => b.width > 0 && b.top >= 0 && b.left >= 0 &&
                                                      b.bottom <= innerHeight && b.right <= innerWidth);
    const worst = boxes.reduce((m, b) => Math.max(m, b.bottom), 0);
    return {s, ok, detail: `${s} bottom ${worst.toFixed(0)}`};
  }), selectors);
}

// ---- the bottom border row of the ink ------------------------------------------------------

/** Columns of the raster's last row with ink, as runs [from, to]. */
function borderRuns(ink) {
  const side = Math.sqrt(ink.length), row = (side - 1) * side, runs = [];
  for (let x = 0; x < side; ++x) {
    if (ink[row + x] <= 0.05) continue;
    if (runs.length && runs.at(-1)[1] === x - 1) runs.at(-1)[1] = x;
    else runs.push([x, x]);
  }
  return runs;
}
const inkOf = (page) => page.evaluate(() => Array.from(digitsApp.ink()));
const diffPixels = (a, b) => a.reduce((n, v, i) => n + (Math.abs(v - b[i]) > 0.25 ? 1 : 0), 0);

// ---- the checks --------------------------------------------------------------------------------

const isDigit = (s) => /^\d$/.test(s);
const notSure = (r) => !isDigit(r.guess) && /not sure/i.test(r.confidence) && /^not sure: maybe \d/.test(r.said) &&
    /not sure/i.test(r.chip);

async function notSureChecks(page, size, input) {
  for (const [d, strokes] of Object.entries(DIGITS)) {
    const r = await drawWith(page, input, strokes);
    const words = `${argmax(r.probs)}, ${Math.round(100 * r.probs[argmax(r.probs)])}% sure`;
    check(`4 ${size}, ${input}: a clear ${d} reads ${d}, not "not sure"`, r.guess === d && r.said === words &&
          !/not sure/.test(r.confidence + r.chip), shown(r));
  }
  for (const [name, strokes] of Object.entries(NOT_DIGITS)) {
    const r = await drawWith(page, input, strokes);
    check(`4 ${size}, ${input}: ${name} reads "not sure"`, notSure(r), `model ${fmtP(r.probs)}; ${shown(r)}`);
  }
}

async function offPadChecks(page, size, input) {
  // The in-pad part of the 7: the stem from (0.6, 0.5) towards (0.45, 1.2) meets y = 1 at t = 5/7.
  const exit = [0.6 + (0.45 - 0.6) * 5 / 7, 1];
  await drawWith(page, input, [OFF_SEVEN]);
  const off = await inkOf(page);
  const runs = borderRuns(off);
  const side = Math.sqrt(off.length);
  const longest = runs.reduce((m, [a, b]) => Math.max(m, b - a + 1), 0);
  const ex = exit[0] * side;
  check(`5 ${size}, ${input}: a 7 whose stem runs off the bottom: no ink along the bottom border row`,
        longest <= 0.1 * side && runs.every(([a, b]) => a <= ex + 0.06 * side && b >= ex - 0.06 * side),
        `bottom row ink runs ${JSON.stringify(runs)} (the stem crosses at x ${ex.toFixed(0)} of ${side})`);
  // The same stroke up to the border, drawn on its own: the same ink (up to the
  // pointer's pixel rounding).
  const inside = path2(OFF_SEVEN.slice(0, 3));
  const stem = path2([[0.6, 0.5], [0.45, 1.2]]).filter(([, y]) => y < 1);
  await drawWith(page, input, [[...inside, ...stem.slice(1), exit]]);
  const cut = await inkOf(page);
  const d = diffPixels(off, cut);
  check(`5 ${size}, ${input}: the stroke is cut at the border (= its in-pad part drawn alone)`, d < 0.005 * off.length,
        `${d} of ${off.length} raster pixels differ by more than 0.25`);
  // Out at the bottom, along below the pad, back in: two strokes, nothing along the edge.
  const r = await drawWith(page, input, [BACK_IN]);
  const back = await inkOf(page);
  const strokes = await page.evaluate(() => digitsApp.strokes?.().length ?? -1);
  const backRuns = borderRuns(back);
  const backLongest = backRuns.reduce((m, [a, b]) => Math.max(m, b - a + 1), 0);
  check(`5 ${size}, ${input}: leaving and coming back in makes two strokes, no line along the edge`,
        strokes === 2 && backRuns.length === 2 && backLongest <= 0.1 * side,
        `${strokes} stroke(s), bottom row ink runs ${JSON.stringify(backRuns)}; read ${fmtP(r.probs)}`);
}

async function layoutChecks(page, size, input) {
  const r = await drawWith(page, input, DIGITS[3]);
  const before = await inView(page, ['#pad', '#guess', '#teach [data-digit]', '#teach-result']);
  check(`6 ${size}, ${input}: after drawing with the pad in view, the reading, the teach buttons and the ` +
        'teach message are in the viewport', before.every((b) => b.ok), before.map((b) => b.detail).join(', ') +
        `; read ${r.guess}`);
  // Teach it (a 3): the confirmation is in view too, without scrolling.
  const y0 = await page.evaluate(() => scrollY);
  // lastTeach is the previous teach's until this one ends: forget it, so the wait sees this one.
  const n = await page.evaluate(() => {
    digitsApp.lastTeach = null;
    return digitsApp.samples.length;
  });
  if (input === 'mouse') await page.click('#teach [data-digit="3"]');
  else await tap(page, '#teach [data-digit="3"]');
  await page.waitForFunction((k) => digitsApp.samples.length === k + 1 && digitsApp.lastTeach?.saved, n,
                             {timeout: 15000}).catch(() => {});   // a tap that missed: checked below
  const after = await inView(page, ['#guess', '#teach [data-digit]', '#teach-result']);
  const y1 = await page.evaluate(() => scrollY);
  const note = await page.locator('#teach-result').textContent();
  check(`6 ${size}, ${input}: after teaching, the confirmation is in the viewport (no scrolling)`,
        after.every((b) => b.ok) && y1 === y0 && /Learned|Nudged/.test(note),
        after.map((b) => b.detail).join(', ') + `, scrolled ${y1 - y0} px; "${note}"`);
}

async function main() {
  requireDigitsBuilds();
  // Seconds of arithmetic that need no page: a worker thread does them while the page is driven.
  const calibration = heldOutPercentileInWorker(appDir, 0.98);
  calibration.catch(() => {});   // awaited below; a failure there, not as an unhandled rejection
  await withBrowser(async ({base, context}) => {
    const t0 = Date.now();
    const {page, errors} = await openDigits(context, base);

    // ---- 4 and 5 at both sizes ----------------------------------------------------------------
    for (const [size, viewport, input] of [['desktop', DESKTOP, 'mouse'], ['phone', PHONE, 'touch']]) {
      await page.setViewportSize(viewport);
      await notSureChecks(page, size, input);
      await offPadChecks(page, size, input);
    }
    const limit = await calibration;
    const pageLimit = await page.evaluate(() => digitsApp.doubt?.().farther ?? null);
    check('4: the page\'s "not like a digit" distance = 98th percentile of the held-out digits\' ' +
          'nearest-training-digit distance, recomputed here', pageLimit !== null && Math.abs(pageLimit - limit) < 0.01,
          `page ${pageLimit}, here ${limit.toFixed(3)}`);

    // ---- 7: rounding, Clear ---------------------------------------------------------------------
    await page.setViewportSize(DESKTOP);
    for (const d of ['0', '7']) {
      const r = await drawWith(page, 'mouse', DIGITS[d]);
      const pct = r.confidence.match(/[\d.]+%/)?.[0];
      check(`7: the best bar says what the headline says (${d})`, pct && r.best === pct,
            `headline "${r.confidence}", bar "${r.best}" (p ${r.probs[argmax(r.probs)]})`);
    }

    // ---- 4: a "not sure" scribble is taught as a 2 ----------------------------------------------
    const scribble = NOT_DIGITS['a scribble (dense zigzag)'];
    await drawWith(page, 'mouse', scribble);
    await page.evaluate(() => { digitsApp.lastTeach = null; });
    await page.click('#teach [data-digit="2"]');
    await page.waitForFunction(() => digitsApp.lastTeach?.saved, null, {timeout: 30000});
    const taught = await settled(page);
    const samples = await page.evaluate(() => digitsApp.samples.map((s) => s.label));
    const learned = await page.locator('#teach-result').textContent();
    // The teach message (a live region) says the new reading; #said need not repeat it.
    check('4: a "not sure" scribble can be taught as a 2: it joins the samples and reads 2',
          samples.at(-1) === 2 && taught.guess === '2' && !/not sure/.test(taught.confidence + taught.chip) &&
          /Learned: it reads 2, \d+% sure/.test(learned), `samples [${samples}]; ${shown(taught)}; "${learned}"`);
    await page.click('#clear');
    const cleared = await page.locator('#teach-result').textContent();
    check('7: Clear empties the teach message', cleared.trim() === '', `"${cleared}"`);

    // ---- 6 at both sizes (teaches a 3 each time) ------------------------------------------------
    await layoutChecks(page, 'desktop', 'mouse');
    await page.setViewportSize(PHONE);
    await layoutChecks(page, 'phone', 'touch');
    // The chip: a named button; tapping it brings the teach buttons, focus on one.
    await drawWith(page, 'touch', DIGITS[7]);
    await page.evaluate(() => window.scrollTo(0, 0));
    const chip = await page.evaluate(() => {
      const c = document.getElementById('mini-guess');
      const r = c.getBoundingClientRect();
      return {tag: c.tagName, hidden: c.closest('[aria-hidden=true]') !== null, name: c.getAttribute('aria-label') ||
              c.textContent.trim(), tab: c.tabIndex, shown: r.width > 0 && r.height > 0};
    });
    check('6 phone: the "reads N" chip is a named, keyboard-reachable button',
          chip.tag === 'BUTTON' && !chip.hidden && chip.tab >= 0 && chip.shown && /7/.test(chip.name),
          JSON.stringify(chip));
    if (chip.shown) {
      await tap(page, '#mini-guess');
      await page.waitForTimeout(600);   // a smooth scroll, if any
      const onChip = await page.evaluate(() => {
        const a = document.activeElement;
        const r = a.getBoundingClientRect();
        return {digit: a.dataset?.digit ?? null, inTeach: a.closest('#teach') !== null,
                visible: r.top >= 0 && r.bottom <= innerHeight};
      });
      const all = await inView(page, ['#teach [data-digit]']);
      check('6 phone: tapping the chip puts focus on a teach button, all ten in view', onChip.inTeach &&
            onChip.visible && all[0].ok, `${JSON.stringify(onChip)}; ${all[0].detail}`);
    } else {
      check('6 phone: tapping the chip puts focus on a teach button, all ten in view', false, 'no chip shown');
    }

    // ---- 7: a removed sample, the badge while training -----------------------------------------
    await page.setViewportSize(DESKTOP);
    const n = await page.evaluate(() => digitsApp.samples.length);
    await page.locator('#samples li .remove').last().click();
    await page.waitForFunction((k) => digitsApp.samples.length === k - 1, n);
    await page.waitForTimeout(300);
    const after = await page.evaluate(() => ({status: document.getElementById('status').textContent,
                                              badge: document.getElementById('sample-count').textContent,
                                              n: digitsApp.samples.length}));
    const said = after.status.match(/(\d+) personal sample/)?.[1];
    check(`7: after removing a sample (${n} -> ${after.n}) the status line has the badge's count`,
          said === after.badge && Number(said) === after.n, `status "${after.status}", badge ${after.badge}`);

    await page.selectOption('#epochs', '1');
    await page.click('#train');
    await page.waitForFunction(() => digitsApp.training?.batches > 5, null, {timeout: 60000});
    const during = await page.locator('#model-source').textContent();
    await page.waitForFunction(() => digitsApp.training?.done, null, {timeout: 120000});
    const done = await page.locator('#model-source').textContent();
    check('7: the model badge says "training…" while training from scratch runs, then "trained here"',
          /training/i.test(during) && !/fine-tuned/.test(during) && done === 'trained here',
          `during "${during}", after "${done}"`);

    checkNoErrors(errors);
    console.log(`(${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    await page.close();
  });
}

runMain(main);
