// Glint sequence: a CSV column in, an LSTM trained in a worker, the next value
// as a distribution and sampled forecasts out. window.seqApp exposes the
// state and the numbers (for the browser test and the curious).
import {parseCsv, detectHeader, toTable} from './csv.js';
import * as prep from './prep.js';
import {Engine} from './engine.js';
import {seriesChart, lossChart, forecastChart, renderBars, fillTable, fmt, shares, range} from './charts.js';
import {registerOffline} from '../offline.js';

const $ = (id) => document.getElementById(id);
const MODEL_URL = 'indexeddb://glint-sequence';
const SETTINGS_KEY = 'glint-sequence/settings';
const MAX_SAVED_VALUES = 20000;
const SAMPLES = {
  weather: {file: 'data/weather.csv', label: 'weather.csv (sample)',
            params: {window: 14, units: 32, layers: 1, epochs: 12, batch: 32, lr: 0.01}},
  energy: {file: 'data/energy.csv', label: 'energy.csv (sample)',
           params: {window: 48, units: 32, layers: 1, epochs: 8, batch: 32, lr: 0.01, bins: 12}},
};

const state = {
  source: null,        // {name, rows}
  table: null,
  prepared: null,      // {series, enc, windows, column} for the data card as it is now
  trained: null,       // the model's own context: {enc, window, series, name, metrics}
  phase: 'starting',   // starting | idle | training | trained | error
  history: {loss: [], val_loss: []},
  engine: null,
};

// ---- status lines -----------------------------------------------------------------

function status(text, kind = '') {
  const s = $('status');
  s.className = `summary ${kind}`;
  s.textContent = text;
}

/**
 * A control that cannot act now (busy, or nothing to act on) stays focusable:
 * aria-disabled rather than disabled, so the focus never falls to the page
 * when the control the user pressed becomes busy; its handler ignores it.
 */
function setOff(el, off) {
  if (off) el.setAttribute('aria-disabled', 'true');
  else el.removeAttribute('aria-disabled');
}
const isOff = (el) => el.getAttribute('aria-disabled') === 'true';

/**
 * What the training progress says to a screen reader: at most once in 3 s
 * (the visible #progress line changes per redraw and is not a live region).
 */
let announcedAt = -Infinity;
function announce(text, now = false) {
  const t = performance.now();
  if (!now && t - announcedAt < 3000) return;
  announcedAt = t;
  $('progress-live').textContent = text;
}

/** The validation verdict (or a failure), once it is settled: #result is a status region. */
function showResult(text, kind) {
  const r = $('result');
  r.className = `result ${kind}`;
  r.textContent = text;
  r.hidden = false;
}

function badge(id, text, kind) {
  const b = $(id);
  b.className = `badge ${kind}`;
  b.textContent = text;
}

function showDataError(message) {
  const e = $('data-error');
  e.hidden = !message;
  e.textContent = message ?? '';
}

// ---- data ---------------------------------------------------------------------------

function ingest(name, text) {
  const {rows} = parseCsv(text);
  if (rows.length < 2) {
    showDataError(`${name}: no rows found (is it a CSV file?)`);
    return;
  }
  state.source = {name, rows};
  $('header').checked = detectHeader(rows);
  buildTable();
}

function buildTable(preferred) {
  const {rows} = state.source;
  state.table = toTable(rows, $('header').checked);
  const cols = state.table.columns;
  const select = $('column');
  select.replaceChildren(...cols.map((c, i) => new Option(
      `${c.name}${c.series ? '' : ' (looks like an index or time)'}`, String(i))));
  const pick = preferred ?? Math.max(0, cols.findIndex((c) => c.series));
  select.value = String(pick);
  $('data-form').hidden = false;
  chooseKind();
  prepare();
}

/** Numbers with many distinct values are numeric; text or few distinct numbers, categories. */
function chooseKind() {
  const c = state.table.columns[Number($('column').value)];
  $('kind').value = c.numeric && c.distinct > 12 ? 'numeric' : 'categorical';
  $('kind').querySelector('[value=numeric]').disabled = !c.numeric;
}

function settingsFromForm() {
  const read = (id, lo, hi, label, integer = true) => {
    const v = Number($(id).value);
    if (!Number.isFinite(v) || v < lo || v > hi || (integer && !Number.isInteger(v))) {
      throw new prep.DataError(`${label} must be ${integer ? 'a whole number ' : ''}from ${lo} to ${hi}`);
    }
    return v;
  };
  return {
    window: read('window', 2, 256, 'Window'), units: read('units', 2, 256, 'LSTM units'),
    layers: read('layers', 1, 3, 'Layers'), epochs: read('epochs', 1, 500, 'Epochs'),
    batch: read('batch', 1, 1024, 'Batch size'),
    lr: read('lr', 1e-5, 1, 'Learning rate', false),
    bins: read('bins', 2, 64, 'Bins'), valFraction: read('val', 5, 50, 'Validation %') / 100,
  };
}

function setForm(params) {
  for (const [k, v] of Object.entries(params)) if ($(k)) $(k).value = String(v);
}

let seriesPlot = null;

/** From the data card's choices to windows; errors go to the card, not the console. */
function prepare() {
  if (!state.table) return;
  const kind = $('kind').value;
  // Nothing changed since the last call: keep the windows (and the chart).
  const key = [state.table, $('column').value, kind, $('window').value, $('bins').value, $('val').value];
  if (state.prepared && state.preparedKey.every((v, i) => v === key[i])) return;
  state.prepared = null;
  state.preparedKey = key;
  showDataError(null);
  setOff($('train'), true);
  $('bins-field').hidden = kind !== 'numeric';
  const column = state.table.columns[Number($('column').value)];
  try {
    const s = settingsFromForm();
    const {series, dropped} = prep.cleanSeries(column.values, kind);
    if (series.length < 20) throw new prep.DataError(`the column has ${series.length} values: at least 20 are needed`);
    const enc = prep.fitEncoding(series, kind, {valFraction: s.valFraction, bins: s.bins});
    const windows = prep.makeWindows(enc, series, s.window);
    state.prepared = {series, enc, windows, column: column.name, kind};
    const what = kind === 'numeric' ? `${enc.classes.length} bins` :
        `${enc.classes.length} categories${enc.other ? ' (rare ones as “other”)' : ''}`;
    $('data-stats').textContent = `${state.source.name} · ${column.name}: ${series.length} values` +
        `${dropped ? ` (${dropped} empty skipped)` : ''} · ${what} · ` +
        `${windows.train.count} training / ${windows.val.count} validation windows`;
    badge('data-badge', `${series.length} values`, 'ok');
    drawSeries();
    setOff($('train'), state.phase === 'training' || !state.engine);
  } catch (e) {
    if (!(e instanceof prep.DataError)) throw e;
    badge('data-badge', 'needs a fix', 'warn');
    showDataError(`Cannot use this column: ${e.message}.`);
  }
}

function drawSeries() {
  const {series, enc, windows} = state.prepared;
  const classes = enc.kind === 'categorical' ? enc.classes : null;
  seriesPlot?.destroy();
  seriesPlot = seriesChart($('series-chart'), classes);
  const y = series.map((v) => (classes ? prep.classOf(enc, v) : v));
  const x = y.map((_, i) => i);
  const split = windows.split;
  // The two parts share the split point so the line is unbroken.
  seriesPlot.update([x, y.map((v, i) => (i <= split ? v : null)),
                     y.map((v, i) => (i >= split ? v : null))]);
  // The same as text: a summary, and the last values as a table.
  const n = series.length, {column} = state.prepared;
  const summary = `${n} values of ${column} (${split} for training, ${n - split} for validation), ` +
      (classes ? shares(series) : range(series));
  $('series-chart').setAttribute('aria-label', `Series: ${summary}`);
  const shown = Math.min(n, 50);
  $('series-note').textContent = `${summary}.`;
  $('series-table').caption.textContent = `The last ${shown} of ${n} values`;
  fillTable($('series-table'), series.slice(n - shown).map((v, i) => {
    const t = n - shown + i;
    return [String(t + 1), fmt(v), t < split ? 'training' : 'validation'];
  }));
}

async function loadSample(key) {
  const sample = SAMPLES[key];
  const response = await fetch(new URL(sample.file, import.meta.url));
  if (!response.ok) throw new Error(`${sample.file}: HTTP ${response.status}`);
  setForm({bins: 12, ...sample.params});
  ingest(sample.label, await response.text());
}

async function readFile(file) {
  if (file.size > 50 * 1024 * 1024) {
    showDataError(`${file.name} is ${(file.size / 1048576).toFixed(0)} MB: use a file under 50 MB`);
    return;
  }
  try {
    ingest(file.name, await file.text());
  } catch (e) {
    showDataError(`Could not read ${file.name}: ${e.message}`);
  }
}

// ---- training -------------------------------------------------------------------------

let lossPlot = null;
const curve = {x: [], train: [], val: []};
let drawPending = false;

let progressText = '', progressValue = 0;

/**
 * Redraws the curve and the progress line at most twice a second, not per epoch:
 * the page's main thread stays nearly idle while the worker trains.
 */
function drawLoss(now = false) {
  if (drawPending && !now) return;
  drawPending = true;
  setTimeout(() => requestAnimationFrame(() => {
    drawPending = false;
    lossPlot.update([curve.x, curve.train, curve.val]);
    describeLoss();
    $('progress').textContent = progressText;
    $('bar').value = progressValue;
  }), now ? 0 : 500);
}

/** The loss curve as text: its label sums it up, its table has every epoch. */
function describeLoss() {
  const n = curve.x.length, f = (v) => (Number.isFinite(v) ? v.toFixed(3) : 'none');
  $('loss-chart').setAttribute('aria-label', n === 0 ?
      'Training loss by epoch: no epochs yet' :
      `Training loss by epoch: ${f(curve.train[0])} at epoch 1` +
      (n > 1 ? ` to ${f(curve.train[n - 1])} at epoch ${n}` : '') +
      `; validation ${f(curve.val[0])} at epoch 1` + (n > 1 ? ` to ${f(curve.val[n - 1])} at epoch ${n}` : ''));
  const g = (v) => (Number.isFinite(v) ? v.toFixed(4) : '–');
  fillTable($('loss-table'), curve.x.map((e, i) => [String(e), g(curve.train[i]), g(curve.val[i])]));
}

const idleWaiters = [];

function setBusy(training) {
  state.phase = training ? 'training' : state.trained ? 'trained' : 'idle';
  if (!training) idleWaiters.splice(0).forEach((resolve) => resolve(state.phase));
  // Fields cannot be edited while training; the controls that act stay focusable.
  for (const id of ['column', 'kind', 'header']) $(id).disabled = training;
  for (const b of document.querySelectorAll('.params input')) b.disabled = training;
  for (const id of ['train', 'use-paste', 'file', 'save', 'forget', 'sample']) setOff($(id), training);
  for (const b of document.querySelectorAll('[data-sample]')) setOff(b, training);
  setOff($('stop'), !training);
  if (!training) {
    setOff($('train'), !state.prepared);
    setOff($('save'), !state.trained);
    setOff($('sample'), !state.trained);
    setOff($('forget'), !localStorage.getItem(SETTINGS_KEY));
    // Stop has nothing left to do: the focus moves on to Train.
    if (document.activeElement === $('stop') && !isOff($('train'))) $('train').focus();
  }
}

async function train() {
  if (isOff($('train')) || state.phase === 'training') return;
  prepare();  // the form may have changed without a change event (typed, then Train)
  if (!state.prepared) return;
  let s;
  try {
    s = settingsFromForm();
  } catch (e) {
    showResult(e.message, 'fail');
    return;
  }
  const {series, enc, windows} = state.prepared;
  setBusy(true);
  // The last verdict goes (hidden, not emptied: the status region speaks once, with the new one).
  $('result').hidden = true;
  curve.x.length = curve.train.length = curve.val.length = 0;
  progressValue = 0;
  drawLoss(true);
  const t0 = performance.now();
  state.history = {loss: [], val_loss: []};
  // The model is rebuilt: forecasts wait for the new one.
  state.trained = null;
  badge('forecast-badge', 'training…', 'pending');
  try {
    badge('model-badge', 'training', 'info');
    const params = await state.engine.build({window: s.window, features: windows.F,
                                             classes: windows.K, units: s.units, layers: s.layers,
                                             learningRate: s.lr});
    progressText = `${params.toLocaleString()} weights · epoch 1/${s.epochs}…`;
    $('progress').textContent = progressText;
    announce(`Training ${params.toLocaleString()} weights for ${s.epochs} epoch${s.epochs > 1 ? 's' : ''}`, true);
    await state.engine.train(windows, {
      epochs: s.epochs, batchSize: s.batch,
      onEpoch: (e, logs) => {
        for (const [k, v] of Object.entries(logs)) (state.history[k] ??= []).push(v);
        curve.x.push(e + 1);
        curve.train.push(logs.loss);
        curve.val.push(logs.val_loss);
        progressValue = (e + 1) / s.epochs;
        progressText = `epoch ${e + 1}/${s.epochs} · loss ${logs.loss.toFixed(3)} · ` +
            `validation ${logs.val_loss.toFixed(3)}`;
        announce(`Epoch ${e + 1} of ${s.epochs}: loss ${logs.loss.toFixed(3)}, ` +
                 `validation ${logs.val_loss.toFixed(3)}`);
        drawLoss();
      },
    });
    state.lastTraining = {start: t0, end: performance.now()};
    if (state.history.loss.length === 0) {
      throw new Error('stopped before the first epoch ended, so there is no model to keep');
    }
    const seconds = (performance.now() - t0) / 1000;
    const {column} = state.prepared, source = state.source.name.replace(/ \(saved\)$/, '');
    state.trained = {enc, window: s.window, series: series.slice(), source, column,
                     name: `${source} · ${column}`, params: s, savedAt: null};
    await evaluate(windows);
    progressText = `${state.history.loss.length} epoch${state.history.loss.length > 1 ? 's' : ''} ` +
        `in ${seconds.toFixed(1)} s`;
    drawLoss(true);
    progressValue = 1;
    await showForecast();
    setBusy(false);
  } catch (e) {
    badge('model-badge', 'failed', 'fail');
    badge('forecast-badge', 'train first', 'pending');
    showResult(`Training failed: ${e.message}`, 'fail');
    setBusy(false);
  }
}

/** Validation windows: the model's likelihood and accuracy next to the class-frequency prior. */
async function evaluate(windows) {
  const {val, window, F, K} = windows;
  const dists = await state.engine.predict(val.x, val.count, window, F);
  const model = prep.score(dists, val.targets, K);
  const prior = prep.priorOf(windows);
  const priorRows = new Float64Array(val.count * K);
  for (let i = 0; i < val.count; ++i) priorRows.set(prior, i * K);
  const base = prep.score(priorRows, val.targets, K);
  state.trained.metrics = {nll: model.nll, accuracy: model.accuracy, priorNll: base.nll,
                           priorAccuracy: base.accuracy, count: val.count};
  state.lastValidation = {dists: Array.from(dists), count: val.count, K};
  showMetrics();
}

function showMetrics() {
  const m = state.trained.metrics;
  const better = m.nll < m.priorNll;
  badge('model-badge', better ? 'beats the baseline' : 'no better than the baseline', better ? 'ok' : 'warn');
  showResult(`Validation (${m.count} windows): loss ${m.nll.toFixed(3)} vs ` +
      `${m.priorNll.toFixed(3)} for the class frequencies alone; the most likely value is right ` +
      `${(100 * m.accuracy).toFixed(1)}% of the time (baseline ${(100 * m.priorAccuracy).toFixed(1)}%).` +
      (better ? '' : ' Try more epochs, a longer window or more units.'), better ? 'ok' : 'warn');
}

// ---- forecasting ----------------------------------------------------------------------

let forecastPlot = null, forecastClasses, lastForecast = null;

async function nextDistribution(history = state.trained.series) {
  const {enc, window} = state.trained;
  const x = prep.lastWindow(enc, history, window);
  return state.engine.predict(x, 1, window, prep.numFeatures(enc));
}

/** Samples `steps` values ahead, each fed back as the next input. */
async function forecast(steps, temperature) {
  const {enc} = state.trained;
  const history = state.trained.series.slice();
  const path = [], values = [], dists = [];
  for (let i = 0; i < steps; ++i) {
    const p = await nextDistribution(history);
    const c = prep.sample(p, temperature);
    const v = prep.valueOfClass(enc, c);
    path.push(c);
    values.push(v);
    dists.push(Array.from(p));
    history.push(v);
  }
  return {path, values, dists};
}

async function showForecast() {
  const {enc, name, window} = state.trained;
  badge('forecast-badge', `${name} · window ${window}`, 'info');
  $('next-note').textContent = enc.kind === 'numeric' ?
      'The probability of each value range (bin) after the last value.' :
      'The probability of each category after the last value.';
  const p = await nextDistribution();
  renderBars($('bars'), enc.classes, p);
  const order = Array.from(p, (_, k) => k).sort((a, b) => p[b] - p[a]);
  const pct = (k) => `${enc.classes[k]} (${(100 * p[k]).toFixed(1)}%)`;
  $('next-summary').textContent = `Next value: most likely ${pct(order[0])}` +
      (order.length > 1 ? `, then ${order.slice(1, 3).map(pct).join(', ')}.` : '.');
  await sampleForecast();
}

async function sampleForecast() {
  const steps = Math.min(500, Math.max(1, Math.round(Number($('steps').value)) || 60));
  $('steps').value = String(steps);
  setOff($('sample'), true);
  try {
    const {enc, series} = state.trained;
    const temperature = Number($('temp').value);
    const {values} = await forecast(steps, temperature);
    const categorical = enc.kind === 'categorical';
    const classes = categorical ? enc.classes : null;
    if (!forecastPlot || forecastClasses !== classes) {
      forecastPlot?.destroy();
      forecastPlot = forecastChart($('forecast-chart'), classes);
      forecastClasses = classes;
    }
    const y = (v) => (categorical ? prep.classOf(enc, v) : v);
    const shown = Math.min(series.length, Math.max(100, 3 * steps));
    const n = series.length, start = n - shown;
    const x = [], hist = [], ahead = [];
    for (let t = start; t < n + steps; ++t) {
      x.push(t);
      hist.push(t < n ? y(series[t]) : null);
      // A numeric forecast starts at the last known value so the two lines join.
      ahead.push(t === n - 1 && !categorical ? y(series[t]) : t >= n ? y(values[t - n]) : null);
    }
    forecastPlot.update([x, hist, ahead]);
    // The forecast as text: the chart's label, a status line (said once) and every step in a table.
    lastForecast = {id: (lastForecast?.id ?? 0) + 1, steps, temperature, values: values.slice()};
    const what = categorical ? shares(values) : range(values);
    $('forecast-chart').setAttribute('aria-label', `Forecast of ${steps} step${steps > 1 ? 's' : ''} after ` +
        `${n} values (history in the first part, then the sampled forecast): ${what}`);
    $('forecast-summary').textContent = `Sampled forecast of ${steps} step${steps > 1 ? 's' : ''} at ` +
        `temperature ${temperature.toFixed(2)}: ${what}. First values: ` +
        `${values.slice(0, 5).map(fmt).join(', ')}${steps > 5 ? ', …' : ''}`;
    fillTable($('forecast-table'), values.map((v, i) => [String(i + 1), fmt(v)]));
  } finally {
    setOff($('sample'), false);
  }
}

// ---- save / restore ---------------------------------------------------------------------

async function save() {
  if (isOff($('save')) || !state.trained) return;
  setOff($('save'), true);
  $('save-status').textContent = 'saving…';
  try {
    await state.engine.save(MODEL_URL);
    const t = state.trained;
    const settings = {version: 1, savedAt: new Date().toISOString(), source: t.source,
                      column: t.column, name: t.name, enc: t.enc,
                      window: t.window, params: t.params, metrics: t.metrics,
                      series: t.series.slice(-MAX_SAVED_VALUES)};
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
    t.savedAt = settings.savedAt;
    $('save-status').textContent = `saved at ${new Date(settings.savedAt).toLocaleTimeString()}: ` +
        'it comes back when you reload this page';
  } catch (e) {
    $('save-status').textContent = `could not save: ${e.message}`;
  } finally {
    setBusy(false);
  }
}

async function forget() {
  if (isOff($('forget'))) return;
  setOff($('forget'), true);
  localStorage.removeItem(SETTINGS_KEY);
  try {
    await state.engine.remove(MODEL_URL);
    $('save-status').textContent = 'deleted the saved model';
  } catch (e) {
    $('save-status').textContent = `no saved model to delete (${e.message})`;
  }
  setBusy(false);
  // Nothing is left to delete: the focus moves on to Save (or Train).
  if (document.activeElement === $('forget')) (isOff($('save')) ? $('train') : $('save')).focus();
}

/** The saved model and its preprocessing, if this browser has them. */
async function restore() {
  const text = localStorage.getItem(SETTINGS_KEY);
  if (!text) return false;
  let saved;
  try {
    saved = JSON.parse(text);
    await state.engine.load(MODEL_URL);
  } catch (e) {
    $('save-status').textContent = `the saved model could not be loaded (${e.message}); train a new one`;
    return false;
  }
  state.trained = {enc: saved.enc, window: saved.window, series: saved.series, name: saved.name,
                   source: saved.source, column: saved.column, params: saved.params,
                   metrics: saved.metrics, savedAt: saved.savedAt};
  setForm({...saved.params, val: Math.round(saved.params.valFraction * 100)});
  // The data card gets the saved series back, so training again works too.
  state.source = {name: `${saved.source} (saved)`,
                  rows: [[saved.column], ...saved.series.map((v) => [String(v)])]};
  $('header').checked = true;
  buildTable(0);
  $('kind').value = saved.enc.kind;
  prepare();
  if (saved.metrics) showMetrics();
  $('loss-chart').setAttribute('aria-label', 'Training loss by epoch: no epochs in this session ' +
      '(the model was restored from this browser; train to see its curve)');
  $('save-status').textContent = `restored the model saved at ${new Date(saved.savedAt).toLocaleString()}`;
  return true;
}

// ---- wiring -------------------------------------------------------------------------------

function wire() {
  document.querySelectorAll('[data-sample]').forEach((b) => b.addEventListener('click', () => {
    if (isOff(b)) return;
    loadSample(b.dataset.sample).catch((e) => showDataError(`Could not load the sample: ${e.message}`));
  }));
  // A busy file field keeps its place in the tab order but opens no picker.
  $('file').addEventListener('click', (e) => { if (isOff($('file'))) e.preventDefault(); });
  $('file').addEventListener('change', () => $('file').files[0] && readFile($('file').files[0]));
  // A file dropped anywhere is read (rather than opened by the browser in place of the app).
  const drop = $('drop');
  document.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.toggle('over', drop.contains(e.target));
  });
  document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) drop.classList.remove('over'); });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const file = e.dataTransfer?.files[0];
    if (file && state.phase !== 'training') readFile(file);
  });
  $('use-paste').addEventListener('click', () => {
    if (isOff($('use-paste'))) return;
    const text = $('paste').value;
    if (!text.trim()) showDataError('The text box is empty: paste CSV text first.');
    else ingest('pasted text', text);
  });
  $('header').addEventListener('change', () => buildTable());
  $('column').addEventListener('change', () => { chooseKind(); prepare(); });
  $('kind').addEventListener('change', prepare);
  for (const id of ['window', 'bins', 'val']) $(id).addEventListener('change', prepare);
  $('train').addEventListener('click', train);
  $('stop').addEventListener('click', () => {
    if (isOff($('stop')) || state.phase !== 'training') return;
    state.engine.stop();
    progressText = 'stopping after this batch…';
    announce('Stopping after this batch');
    drawLoss(true);
  });
  $('save').addEventListener('click', save);
  $('forget').addEventListener('click', forget);
  $('temp').addEventListener('input', () => { $('temp-out').value = Number($('temp').value).toFixed(2); });
  $('sample').addEventListener('click', () => {
    if (!isOff($('sample')) && state.trained && state.phase !== 'training') sampleForecast();
  });
  // A new temperature or horizon: sample again at once.
  for (const id of ['temp', 'steps']) {
    $(id).addEventListener('change', () => {
      if (state.trained && state.phase !== 'training' && !isOff($('sample'))) sampleForecast();
    });
  }
}

window.seqApp = {
  ready: false,
  get phase() { return state.phase; },
  get history() { return state.history; },
  get trained() {
    const t = state.trained;
    return t && {classes: t.enc.classes, kind: t.enc.kind, window: t.window, metrics: t.metrics,
                 valFraction: t.enc.valFraction, savedAt: t.savedAt, length: t.series.length};
  },
  get validation() { return state.lastValidation; },
  /** The last sampled forecast shown: {id, steps, temperature, values}. */
  get lastForecast() { return lastForecast; },
  /** performance.now() at the start and the end of the last fit. */
  get lastTraining() { return state.lastTraining; },
  /** Resolves when no training runs (no polling: the test must not load the main thread). */
  untilIdle: () => (state.phase === 'training' ? new Promise((r) => idleWaiters.push(r)) :
      Promise.resolve(state.phase)),
  nextDistribution: async () => Array.from(await nextDistribution()),
  forecast,
  backend: () => state.engine?.info,
};

async function main() {
  wire();
  lossPlot = lossChart($('loss-chart'));
  try {
    state.engine = await Engine.start();
  } catch (e) {
    state.phase = 'error';
    status(`The engine did not start: ${e.message}. This page needs WebAssembly and module workers ` +
           '(a current Chrome, Edge, Firefox or Safari).', 'fail');
    return;
  }
  const restored = await restore();
  if (!restored) await loadSample('weather');
  else await showForecast();
  setBusy(false);
  const b = state.engine.info;
  status(`Ready: Glint ${b.version} (WebAssembly, ${b.active} backend) in a Web Worker. ` +
         (restored ? 'Your saved model is back: forecast, or train a new one.' :
             'A sample series is loaded: press Train, or bring your own CSV.'), 'ok');
  window.seqApp.ready = true;
  window.seqApp.offline = state.engine.resources().then((urls) => registerOffline([...urls,
    ...Object.values(SAMPLES).map((s) => new URL(s.file, import.meta.url).href)])).catch(() => 0);
}

main().catch((e) => {
  state.phase = 'error';
  status(`Something went wrong: ${e.message}`, 'fail');
});
