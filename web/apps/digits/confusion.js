// "Which digits does it get wrong?": the current model reads the 2,000
// held-out MNIST digits and the personal samples (engine.predictMany, a few
// batches), shown as two 10x10 confusion tables (true digit x read as) with
// per-digit accuracy. Computed on demand, and again whenever the model or
// the samples change while the view is open (once the model is idle).
import {argmax} from './engine.js';
import {gatherMnist, PIXELS} from './data.js';

const BATCH = 1024;
const pct = (v) => `${(100 * v).toFixed(1)}%`;
const num = (n) => n.toLocaleString('en');

/** {matrix: [true][read] counts, right, total, perDigit: [{right, total}]} of labels and readings. */
export function confusion(labels, reads) {
  const matrix = Array.from({length: 10}, () => new Array(10).fill(0));
  labels.forEach((l, i) => ++matrix[l][reads[i]]);
  const perDigit = matrix.map((row, d) => ({right: row[d], total: row.reduce((a, b) => a + b, 0)}));
  const right = perDigit.reduce((a, p) => a + p.right, 0);
  return {matrix, right, total: labels.length, perDigit};
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return e;
}
const hidden = (text) => el('span', {class: 'visually-hidden'}, text);

/** The worst confusions in words: "4 read as 9 (7 times)". */
function worst(c, n = 3) {
  const pairs = [];
  c.matrix.forEach((row, t) => row.forEach((k, r) => { if (t !== r && k) pairs.push({t, r, k}); }));
  pairs.sort((a, b) => b.k - a.k);
  return pairs.slice(0, n).map((p) => `${p.t} read as ${p.r} (${p.k === 1 ? 'once' : `${p.k} times`})`);
}

function table(c, id, title) {
  const caption = el('caption', {}, `${title}: ${num(c.right)} of ${num(c.total)} read right` +
                     (c.total ? ` (${pct(c.right / c.total)})` : ''));
  const head = el('tr', {}, el('th', {scope: 'col', class: 'corner'}, 'True digit ', hidden('by what it is read as')),
                  ...Array.from({length: 10}, (_, r) => el('th', {scope: 'col'}, hidden('read as '), String(r))),
                  el('th', {scope: 'col'}, 'Right'));
  const rows = c.matrix.map((row, t) => el('tr', {},
      el('th', {scope: 'row'}, hidden('a true '), String(t)),
      ...row.map((k, r) => el('td', {class: k === 0 ? 'zero' : t === r ? 'hit' : 'miss'}, String(k))),
      el('td', {class: 'acc'}, c.perDigit[t].total ? pct(c.perDigit[t].right / c.perDigit[t].total) : '–')));
  return el('table', {id, class: 'confusion-table'}, caption, el('thead', {}, head), el('tbody', {}, rows));
}

/**
 * The view of the check card. app: window.digitsApp (its `check` gets the figures);
 * engine() / mnist(): the app's, once loaded; needMnist(): fetches the digits (they come on
 * demand); samples(): the personal samples;
 * idle(): whether the model is free (not training, teaching or switching).
 */
export function setupCheck({app, engine, mnist, needMnist, samples, idle}) {
  const $ = (id) => document.getElementById(id);
  let open = false, heldOut = null, running = false, timer = null, lastKey = null;
  const keyNow = () => `${app.generation()}|${samples().length}|${samples().map((s) => s.id).join(',')}`;

  async function compute() {
    const m = mnist(), list = samples();
    heldOut ??= {x: gatherMnist(m, m.test).x, labels: Array.from(m.test, (k) => m.labels[k])};
    const n = m.test.length + list.length;
    const x = new Float32Array(n * PIXELS);
    x.set(heldOut.x);
    list.forEach((s, i) => {
      for (let p = 0; p < PIXELS; ++p) x[(m.test.length + i) * PIXELS + p] = s.pixels[p] / 255;
    });
    const reads = [];
    for (let at = 0; at < n; at += BATCH) {
      const k = Math.min(BATCH, n - at);
      const probs = await engine().predictMany(x.subarray(at * PIXELS, (at + k) * PIXELS), k);
      reads.push(...probs.map(argmax));
    }
    return {heldOut: confusion(heldOut.labels, reads.slice(0, m.test.length)),
            samples: confusion(list.map((s) => s.label), reads.slice(m.test.length)), batches: Math.ceil(n / BATCH)};
  }

  async function refresh() {
    if (running) return;
    running = true;
    const t0 = performance.now();
    try {
      let key, r;
      do {   // the model changed while it read: read again
        key = keyNow();
        r = await compute();
      } while (key !== keyNow() && idle());
      lastKey = key;
      const ms = performance.now() - t0;
      app.check = {generation: Number(key.split('|')[0]), samplesChecked: r.samples.total, ms, ...r};
      render(r, ms);
    } catch (e) {
      $('check-status').textContent = `Could not check the model: ${e.message}`;
    } finally {
      running = false;
    }
  }

  function render(r, ms) {
    const h = r.heldOut, s = r.samples;
    const words = worst(h);
    $('check-heldout').replaceChildren(table(h, 'confusion-heldout', 'Held-out MNIST digits'),
        el('p', {class: 'hint'}, words.length ? `Most often confused: ${words.join(', ')}.` : 'No confusions.'));
    $('check-samples').replaceChildren(s.total ? table(s, 'confusion-samples', 'Your samples') :
        el('p', {class: 'hint', id: 'confusion-samples-none'}, 'Your samples: none yet (teach or import some).'),
        s.total && worst(s).length ? el('p', {class: 'hint'}, `Misread: ${worst(s).join(', ')}.`) : null);
    $('check-status').textContent = `Held-out: ${pct(h.right / h.total)} right` +
        (s.total ? `; your samples: ${s.right} of ${s.total}` : '') + ` (${Math.round(ms)} ms).`;
  }

  // While open: read again once the model or the samples changed and the model is idle.
  function watch() {
    clearTimeout(timer);
    if (!open) return;
    timer = setTimeout(async () => {
      if (open && idle() && keyNow() !== lastKey) await refresh();
      watch();
    }, 400);
  }

  $('check-model').addEventListener('click', async () => {
    if (!engine()?.model) {
      $('check-status').textContent = 'The model is still loading.';
      return;
    }
    if (!mnist()) {
      $('check-status').textContent = 'Fetching the MNIST digits…';
      try {
        await needMnist();
      } catch (e) {
        $('check-status').textContent = `Cannot check: ${e.message}`;
        return;
      }
    }
    open = true;
    $('check-results').hidden = false;
    $('check-close').hidden = false;
    $('check-status').textContent = 'Reading 2,000 held-out digits…';
    if (idle()) await refresh();
    watch();
  });
  $('check-close').addEventListener('click', () => {
    open = false;
    clearTimeout(timer);
    $('check-results').hidden = true;
    $('check-close').hidden = true;
    $('check-status').textContent = '';
    $('check-model').focus();   // the pressed button is hidden now
  });
}
