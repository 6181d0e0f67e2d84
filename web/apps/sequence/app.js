// Glint sequence: a CSV column in, an LSTM trained in a worker, the next value
// as a distribution and sampled forecasts out. window.seqApp exposes the
// state and the numbers (for the browser test and the curious).
import * as prep from './prep.js';
import {plural} from './prep.js';
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

/**
 * The CSV worker: parsing, and a column's values, happen off the main thread
 * (a 5 MB file froze the page for most of a second). Requests answer in order.
 */
class CsvReader {
  constructor() {
    this.w = new Worker(new URL('./csv_worker.js', import.meta.url), {type: 'module'});
    this.pending = new Map();
    this.next = 1;
    this.w.onmessage = ({data}) => {
      const p = this.pending.get(data.id);
      this.pending.delete(data.id);
      if (!p) return;
      if (data.dataError) p.reject(new prep.DataError(data.error, data.field));
      else if (data.error) p.reject(Object.assign(new Error(data.error), {notCsv: data.notCsv}));
      else p.resolve(data.result);
    };
    this.w.onerror = (e) => {
      for (const p of this.pending.values()) p.reject(new Error(e.message ?? 'the CSV reader failed'));
      this.pending.clear();
    };
  }
  call(msg, transfer = []) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {resolve, reject});
      this.w.postMessage({...msg, id}, transfer);
    });
  }
}
let csv = null;
const reader = () => (csv ??= new CsvReader());

/** Loads and preparations in flight: seqApp.untilLoaded() waits for them. */
const inFlight = new Set();
function track(promise) {
  inFlight.add(promise);
  promise.finally(() => inFlight.delete(promise)).catch(() => {});
  return promise;
}
async function untilLoaded() {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}

let loadToken = 0;

/** Reads `input` ({bytes} or {text}) in the CSV worker; on success it becomes the data card's data. */
async function ingest(name, input, {header, preferred, auto = true} = {}) {
  const token = ++loadToken;
  let result;
  try {
    result = await reader().call({op: 'parse', name, ...input, ...(header === undefined ? {} : {header})},
                                 input.bytes ? [input.bytes] : []);
  } catch (e) {
    if (token === loadToken) failLoad(name, e.notCsv ? `${name}: ${e.message}` : `Could not read ${name}: ${e.message}`);
    return false;
  }
  if (token !== loadToken) return false;
  if (result.total < 2 || result.rows < 1 || result.columns.length === 0) {
    failLoad(name, `${name}: ${result.total === 1 ? 'only one row (a header?), ' : ''}no data rows found ` +
             '(is it a CSV file?)');
    return false;
  }
  state.source = {name, summary: result, version: token};
  state.autoPlan = auto;
  $('header').checked = result.header;
  await buildTable(preferred);
  return true;
}

/** A load that failed: its message, and nothing left of the data before it. */
function failLoad(name, message) {
  state.source = state.table = state.prepared = null;
  state.preparedKey = null;
  $('column').replaceChildren();
  $('data-form').hidden = true;
  $('data-stats').textContent = '';
  $('data-warning').hidden = true;
  seriesPlot?.destroy();
  seriesPlot = null;
  $('series-chart').replaceChildren();
  $('series-chart').setAttribute('aria-label', 'Series: no data yet');
  $('series-note').textContent = '';
  $('series-table').caption.textContent = 'The series';
  fillTable($('series-table'), []);
  showPlan(null);
  clearFieldErrors();
  badge('data-badge', 'none', 'pending');
  setOff($('train'), true);
  showDataError(message);
  status(`${name} could not be used: see the Data card.` +
         (state.trained ? ' The trained model is still there to forecast with.' : ''), 'warn');
}

async function buildTable(preferred) {
  const {summary} = state.source;
  state.table = {columns: summary.columns, version: state.source.version};
  const cols = state.table.columns;
  const select = $('column');
  select.replaceChildren(...cols.map((c, i) => new Option(
      `${c.name}${c.series ? '' : ' (looks like an index or time)'}`, String(i))));
  const pick = preferred ?? Math.max(0, cols.findIndex((c) => c.series));
  select.value = String(pick);
  $('data-form').hidden = false;
  chooseKind();
  await prepare();
}

/** The header box changed: the worker reads the rows again with or without their first. */
async function rebuildTable() {
  if (!state.source) return;
  const token = loadToken;
  const result = await reader().call({op: 'table', header: $('header').checked});
  if (token !== loadToken) return;
  state.source = {...state.source, summary: result, version: state.source.version + 0.5};
  await buildTable();
}

/** Numbers with many distinct values are numeric; text or few distinct numbers, categories. */
function chooseKind() {
  const c = state.table.columns[Number($('column').value)];
  $('kind').value = c.numeric && c.distinct > 12 ? 'numeric' : 'categorical';
  $('kind').querySelector('[value=numeric]').disabled = !c.numeric;
}

/** The model's settings: [lowest, highest, name, whole numbers only, text meaning "none"]. */
const FIELDS = {
  window: [2, 256, 'Window'], units: [2, 256, 'LSTM units'], layers: [1, 3, 'Layers'],
  epochs: [1, 500, 'Epochs'], batch: [1, 1024, 'Batch size'], lr: [1e-5, 1, 'Learning rate', false],
  bins: [2, 64, 'Bins'], val: [5, 50, 'Validation %'],
  'per-epoch': [100, 10000000, 'Windows per epoch', true, 'empty for all'],
};

/** One field's value; a DataError for that field when it is out of range. */
function readField(id) {
  const [lo, hi, label, integer = true, none] = FIELDS[id];
  const text = $(id).value.trim();
  if (none && text === '') return 0;
  const v = Number(text);
  if (text === '' || !Number.isFinite(v) || v < lo || v > hi || (integer && !Number.isInteger(v))) {
    throw new prep.DataError(`${label} must be ${integer ? 'a whole number ' : ''}from ${lo} to ${hi}` +
                             (none ? `, or ${none}` : ''), id);
  }
  return v;
}

function settingsFromForm() {
  const v = Object.fromEntries(Object.keys(FIELDS).map((id) => [id, readField(id)]));
  return {window: v.window, units: v.units, layers: v.layers, epochs: v.epochs, batch: v.batch, lr: v.lr,
          bins: v.bins, valFraction: v.val / 100, perEpoch: v['per-epoch']};
}

/** Checks one field as it changes: its error shows beside it, or goes. */
function checkField(id) {
  const e = $(`${id}-error`);
  e.hidden = true;
  e.textContent = '';
  $(id).removeAttribute('aria-invalid');
  try {
    readField(id);
  } catch (err) {
    showFieldError(id, `${err.message}.`);
  }
}

function setForm(params) {
  for (const [k, v] of Object.entries(params)) if ($(k)) $(k).value = String(v);
}

// ---- errors beside their field ---------------------------------------------------------

function clearFieldErrors() {
  for (const e of document.querySelectorAll('.field-error')) {
    e.hidden = true;
    e.textContent = '';
    const input = $(e.id.replace(/-error$/, ''));
    input?.removeAttribute('aria-invalid');
  }
}

/** The message goes under the field (aria-describedby: read with the field; aria-invalid). */
function showFieldError(field, message) {
  const e = $(`${field}-error`), input = $(field);
  if (!e || !input || input.closest('[hidden]')) return false;
  e.textContent = message;
  e.hidden = false;
  input.setAttribute('aria-invalid', 'true');
  const ids = new Set((input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean));
  ids.add(e.id);
  input.setAttribute('aria-describedby', [...ids].join(' '));
  return true;
}

// ---- the training plan for long series ---------------------------------------------------

const LONG = 20000;          // training windows from which a larger batch is chosen
const LONG_BATCH = 256;
const CAP_FROM = 50000;      // and from which an epoch takes a share of them, in turn
const CAP = 20000;
const VAL_CAP = 5000;        // with capped epochs, validation windows scored after each (the verdict uses all)

/**
 * New data with many windows: a batch of 256 (at 32 an epoch of 120,000
 * windows is 3,750 steps, and per step the LSTM's fixed costs dominate) and,
 * past 50,000 windows, epochs of 20,000 windows taken in turn. The user can
 * change both; small data gets the defaults back.
 */
function choosePlan(trainWindows) {
  if (trainWindows > LONG) {
    setForm({batch: LONG_BATCH, 'per-epoch': trainWindows > CAP_FROM ? CAP : ''});
    state.planChosen = true;
  } else if (state.planChosen) {
    setForm({batch: 32, 'per-epoch': ''});
    state.planChosen = false;
  }
}

const num = (n) => n.toLocaleString('en-US');

function showPlan(windows) {
  const note = $('plan-note');
  if (!windows) {
    note.hidden = true;
    note.textContent = '';
    window.seqApp.plan = null;
    return;
  }
  const n = windows.train.count, batch = Number($('batch').value);
  const per = Number($('per-epoch').value) || 0;
  const capped = per > 0 && per < n;
  window.seqApp.plan = {batch, perEpoch: capped ? per : n, trainWindows: n, chosen: !!state.planChosen};
  const parts = [];
  if (state.planChosen) {
    parts.push(`A long series (${num(n)} training windows): the app chose batch ${batch}` +
        (capped ? ` and ${num(per)} windows per epoch` : '') + ` so that an epoch takes seconds, not minutes` +
        ` (batch 32 would be ${num(Math.ceil(n / 32))} steps an epoch).`);
  } else if (n > LONG || capped) {
    parts.push(`Training uses batch ${batch}${capped ? ` and ${num(per)} windows per epoch` : ''}.`);
  }
  if (capped) {
    parts.push(`Each epoch takes the next ${num(per)} of the ${num(n)} training windows (shuffled), so ` +
        `every ${plural(Math.ceil(n / per), 'epoch')} see${Math.ceil(n / per) === 1 ? 's' : ''} them all.`);
  }
  if (capped && windows.val.count > VAL_CAP) {
    parts.push(`The validation loss drawn after each epoch scores ${num(VAL_CAP)} of the ` +
        `${num(windows.val.count)} validation windows (spread evenly); the verdict at the end scores them all.`);
  }
  if (parts.length && (state.planChosen || capped)) parts.push('Change them above (Windows per epoch empty: all).');
  note.textContent = parts.join(' ');
  note.hidden = parts.length === 0;
}

// ---- preparing the windows ------------------------------------------------------------

let seriesPlot = null;
let prepareToken = 0;
const pause = () => new Promise((r) => setTimeout(r, 0));

/** The column's series as the page keeps it: numbers, or category names. */
function seriesOf(r) {
  return r.kind === 'numeric' ? Array.from(r.values) : Array.from(r.codes, (c) => r.dict[c]);
}

const quote = (s) => `'${s.length > 40 ? `${s.slice(0, 40)}…` : s}'`;

/** What is said about cells that are not numbers: each by its row (the file's line). */
function badCellsNote(column, kind) {
  if (column.badCount === 0 || column.good < 0.5 * column.present) return '';
  const named = column.bad.map((b) => `row ${b.row}: ${quote(b.text)} is not a number`).join('; ');
  const more = column.badCount > column.bad.length ? `; and ${column.badCount - column.bad.length} more` : '';
  if (kind === 'numeric') {
    return `${plural(column.badCount, 'cell')} of ${column.name} ${column.badCount === 1 ? 'is' : 'are'} ` +
        `skipped, like empty cells: ${named}${more}. Fix ${column.badCount === 1 ? 'it' : 'them'} in the file ` +
        'to keep those rows.';
  }
  return `${column.name} is read as categories: ${column.badCount} of ${column.present} cells are not ` +
      `numbers (${named}${more})${column.numeric ? '' : ', too many to skip'}.`;
}

/** From the data card's choices to windows; errors go beside their field, or to the card. */
function prepare({quiet = false} = {}) {
  return track(prepareNow(quiet));
}

async function prepareNow(quiet) {
  if (!state.table) return;
  const kind = $('kind').value;
  // Nothing changed since the last call: keep the windows (and the chart).
  const key = [state.table, $('column').value, kind, $('window').value, $('bins').value, $('val').value,
               $('batch').value, $('per-epoch').value];
  if (state.prepared && state.preparedKey?.every((v, i) => v === key[i])) return;
  const token = ++prepareToken;
  const stale = () => token !== prepareToken;
  state.prepared = null;
  state.preparedKey = key;
  showDataError(null);
  clearFieldErrors();
  // Train keeps its state meanwhile: a click on it (whose focus change may be
  // what started this) waits for these windows, in train().
  $('bins-field').hidden = kind !== 'numeric';
  const index = Number($('column').value);
  const column = state.table.columns[index];
  const warning = badCellsNote(column, kind);
  $('data-warning').textContent = warning;
  $('data-warning').hidden = !warning;
  try {
    const s = settingsFromForm();
    // The CSV worker fits the encoding and cuts the windows (off the main thread).
    const r = await reader().call({op: 'prepare', index, kind, valFraction: s.valFraction, bins: s.bins,
                                   window: s.window});
    if (stale()) return;
    const {enc, windows, empty, skipped} = r;
    const series = seriesOf(r.series);
    if (state.autoPlan) {
      choosePlan(windows.train.count);
      state.autoPlan = false;
      state.preparedKey = [...key.slice(0, 6), $('batch').value, $('per-epoch').value];
    }
    settingsFromForm();
    state.prepared = {series, enc, windows, column: column.name, kind};
    setOff($('train'), state.phase === 'training' || !state.engine);
    const what = kind === 'numeric' ? `${plural(enc.classes.length, 'bin')}` :
        `${plural(enc.classes.length, 'category', 'categories')}${enc.other ? ' (rare ones as “other”)' : ''}`;
    const skippedText = [empty ? `${empty} empty` : '', skipped ? `${skipped} not numbers` : '']
        .filter(Boolean).join(', ');
    $('data-stats').textContent = `${state.source.name} · ${column.name}: ${plural(series.length, 'value')}` +
        `${skippedText ? ` (${skippedText} skipped)` : ''} · ${what} · ` +
        `${windows.train.count} training / ${windows.val.count} validation windows` +
        (/UTF-16|1252/.test(state.source.summary.encoding) ? ` · read as ${state.source.summary.encoding}` : '');
    badge('data-badge', plural(series.length, 'value'), 'ok');
    showPlan(windows);
    await pause();
    if (stale()) return;
    await drawSeries(r.chart, stale);
    if (stale()) return;
    if (!quiet && state.phase !== 'training' && state.phase !== 'starting') {
      status(`${state.source.name}: ${column.name} is ready, ${plural(series.length, 'value')} as ` +
             `${kind === 'numeric' ? 'numbers' : 'categories'}. Press Train` +
             (state.trained ? ', or keep forecasting with the model you have.' : '.'), 'ok');
    }
  } catch (e) {
    if (!(e instanceof prep.DataError)) throw e;
    if (stale()) return;
    setOff($('train'), true);
    badge('data-badge', 'needs a fix', 'warn');
    $('data-stats').textContent = '';
    showPlan(null);
    if (!(e.field && showFieldError(e.field, `${e.message}.`))) showDataError(`Cannot use this column: ${e.message}.`);
    if (!quiet && state.phase !== 'training' && state.phase !== 'starting') {
      status(`${state.source.name}: ${e.field ? `fix the ${$(e.field).labels[0]?.firstChild.textContent.trim()} ` +
             'field' : 'this column cannot be used as it is'} (the message is beside it).`, 'warn');
    }
  }
}

/**
 * The series chart and its text. `chart` ({per, data}) comes from the CSV
 * worker: at most about 4,000 points. The chart is built in one task and
 * drawn in the next, so that neither is long.
 */
async function drawSeries(chart, stale) {
  const {series, enc, windows} = state.prepared;
  const classes = enc.kind === 'categorical' ? enc.classes : null;
  seriesPlot?.destroy();
  seriesPlot = seriesChart($('series-chart'), classes);
  await pause();
  if (stale()) return;
  seriesPlot.update(chart.data);
  const split = windows.split, per = chart.per;
  // The same as text: a summary, and the last values as a table.
  const n = series.length, {column} = state.prepared;
  const summary = `${plural(n, 'value')} of ${column} (${split} for training, ${n - split} for validation), ` +
      (classes ? shares(series) : range(series));
  $('series-chart').setAttribute('aria-label', `Series: ${summary}`);
  const shown = Math.min(n, 50);
  $('series-note').textContent = `${summary}.` + (per > 1 ? ` The chart draws the lowest and highest of ` +
      `each ${per} values (all ${num(n)} are used for training).` : '');
  $('series-table').caption.textContent = `The last ${shown} of ${plural(n, 'value')}`;
  fillTable($('series-table'), series.slice(n - shown).map((v, i) => {
    const t = n - shown + i;
    return [String(t + 1), fmt(v), t < split ? 'training' : 'validation'];
  }));
}

async function loadSample(key) {
  const sample = SAMPLES[key];
  const response = await fetch(new URL(sample.file, import.meta.url));
  if (!response.ok) throw new Error(`${sample.file}: HTTP ${response.status}`);
  setForm({bins: 12, 'per-epoch': '', ...sample.params});
  state.planChosen = false;
  await ingest(sample.label, {text: await response.text()}, {auto: false});
}

async function readFile(file) {
  if (file.size > 50 * 1024 * 1024) {
    failLoad(file.name, `${file.name} is ${(file.size / 1048576).toFixed(0)} MB: use a file under 50 MB`);
    return;
  }
  let bytes;
  try {
    bytes = await file.arrayBuffer();
  } catch (e) {
    failLoad(file.name, `Could not read ${file.name}: ${e.message}`);
    return;
  }
  await ingest(file.name, {bytes});
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

let starting = false;

async function train() {
  if (isOff($('train')) || state.phase === 'training' || starting) return;
  starting = true;
  let s = null;
  try {
    // The form may have changed without a change event (typed, then Train).
    await prepare({quiet: true});
    if (state.prepared) s = settingsFromForm();
  } catch (e) {
    if (!(e instanceof prep.DataError)) throw e;
    if (!(e.field && showFieldError(e.field, `${e.message}.`))) showResult(e.message, 'fail');
  } finally {
    starting = false;
  }
  if (!s) {
    // Nothing to train on: whoever waits for the end of training hears it now.
    idleWaiters.splice(0).forEach((resolve) => resolve(state.phase));
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
      epochs: s.epochs, batchSize: s.batch, perEpoch: s.perEpoch,
      valPerEpoch: s.perEpoch > 0 && s.perEpoch < windows.train.count ? VAL_CAP : 0,
      onEpoch: (e, logs) => {
        for (const [k, v] of Object.entries(logs)) (state.history[k] ??= []).push(v);
        curve.x.push(e + 1);
        curve.train.push(logs.loss);
        // An epoch that Stop cut short is reported without validation (as TF.js does): a gap.
        const val = logs.val_loss ?? null;
        curve.val.push(val);
        progressValue = (e + 1) / s.epochs;
        const valText = val === null ? 'stopped before validation' : `validation ${val.toFixed(3)}`;
        progressText = `epoch ${e + 1}/${s.epochs} · loss ${logs.loss.toFixed(3)} · ${valText}`;
        announce(`Epoch ${e + 1} of ${s.epochs}: loss ${logs.loss.toFixed(3)}, ${valText}`);
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
    progressText = `${plural(state.history.loss.length, 'epoch')} in ${seconds.toFixed(1)} s`;
    drawLoss(true);
    progressValue = 1;
    await showForecast();
    setBusy(false);
    const done = state.history.loss.length, m = state.trained.metrics;
    status(`Trained on ${state.trained.name}: ${plural(done, 'epoch')} in ${seconds.toFixed(1)} s` +
           (done < s.epochs ? ` (stopped; ${s.epochs} were asked)` : '') +
           `, ${m.nll < m.priorNll ? 'better than' : 'no better than'} the baseline. ` +
           'Its predictions are in card 3; Save keeps this model.', 'ok');
  } catch (e) {
    badge('model-badge', 'failed', 'fail');
    badge('forecast-badge', 'train first', 'pending');
    showResult(`Training failed: ${e.message}`, 'fail');
    setBusy(false);
    status(`Training failed: ${e.message}. There is no trained model now.`, 'warn');
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
  // Kept as it came (a long series has hundreds of thousands of numbers); seqApp.validation copies.
  state.lastValidation = {dists, count: val.count, K};
  showMetrics();
}

function showMetrics() {
  const m = state.trained.metrics;
  const better = m.nll < m.priorNll;
  badge('model-badge', better ? 'beats the baseline' : 'no better than the baseline', better ? 'ok' : 'warn');
  showResult(`Validation (${plural(m.count, 'window')}): loss ${m.nll.toFixed(3)} vs ` +
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
  // The data card gets the saved series back (as CSV text, through the same
  // reader), so training again works too.
  const cell = (v) => `"${String(v).replace(/"/g, '""')}"`;
  setForm({'per-epoch': ''});
  await ingest(`${saved.source} (saved)`, {text: [saved.column, ...saved.series].map(cell).join('\n')},
               {header: true, preferred: 0, auto: false});
  if (state.table && $('kind').value !== saved.enc.kind &&
      !$('kind').querySelector(`[value=${saved.enc.kind}]`).disabled) {
    $('kind').value = saved.enc.kind;
    await prepare();
  }
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
    track(loadSample(b.dataset.sample).catch((e) => failLoad(SAMPLES[b.dataset.sample].label,
                                                              `Could not load the sample: ${e.message}`)));
  }));
  // A busy file field keeps its place in the tab order but opens no picker.
  $('file').addEventListener('click', (e) => { if (isOff($('file'))) e.preventDefault(); });
  $('file').addEventListener('change', () => {
    const file = $('file').files[0];
    if (file) track(readFile(file));
    $('file').value = '';   // the same file chosen again is read again
  });
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
    if (file && state.phase !== 'training') track(readFile(file));
  });
  $('use-paste').addEventListener('click', () => {
    if (isOff($('use-paste'))) return;
    const text = $('paste').value;
    if (!text.trim()) showDataError('The text box is empty: paste CSV text first.');
    else track(ingest('pasted text', {text}));
  });
  $('header').addEventListener('change', () => track(rebuildTable()));
  $('column').addEventListener('change', () => { chooseKind(); prepare(); });
  $('kind').addEventListener('change', () => prepare());
  for (const id of ['window', 'bins', 'val', 'batch', 'per-epoch']) $(id).addEventListener('change', () => prepare());
  // The other settings are checked as they change: an error shows beside its field.
  for (const id of ['units', 'layers', 'epochs', 'lr']) $(id).addEventListener('change', () => checkField(id));
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
  get validation() {
    const v = state.lastValidation;
    return v && {...v, dists: Array.from(v.dists)};
  },
  /** The series the data card holds now (numbers or category names), or null. */
  get series() { return state.prepared ? state.prepared.series.slice() : null; },
  /** The batch and windows per epoch for the data now: {batch, perEpoch, trainWindows, chosen}. */
  plan: null,
  /** Resolves when no load or preparation of data is in flight. */
  untilLoaded,
  /** The last sampled forecast shown: {id, steps, temperature, values}. */
  get lastForecast() { return lastForecast; },
  /** performance.now() at the start and the end of the last fit. */
  get lastTraining() { return state.lastTraining; },
  /** Resolves when no training runs (no polling: the test must not load the main thread). */
  untilIdle: () => (state.phase === 'training' || starting ? new Promise((r) => idleWaiters.push(r)) :
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
  if (!restored) await track(loadSample('weather'));
  else await showForecast();
  setBusy(false);
  const b = state.engine.info;
  status(`Ready: Glint ${b.version} (WebAssembly, ${b.active} backend) in a Web Worker. ` +
         (restored ? 'Your saved model is back: forecast, or train a new one.' :
          state.prepared ? 'A sample series is loaded: press Train, or bring your own CSV.' :
          'Load a sample or your own CSV.'), 'ok');
  window.seqApp.ready = true;
  window.seqApp.offline = state.engine.resources().then((urls) => registerOffline([...urls,
    ...['csv_worker.js', 'csv.js', ...Object.values(SAMPLES).map((s) => s.file)]
        .map((f) => new URL(f, import.meta.url).href)])).catch(() => 0);
}

main().catch((e) => {
  state.phase = 'error';
  status(`Something went wrong: ${e.message}`, 'fail');
});
