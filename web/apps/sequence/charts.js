// uPlot charts that follow their container's width, plus DOM bars for the
// next-value distribution, and the text that stands in for each chart (its
// label and its table).
import uPlot from '../../../node_modules/uplot/dist/uPlot.esm.js';

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export const COLORS = {
  train: () => css('--accent'), val: () => css('--val'), forecast: () => css('--forecast'),
};

function axes(classes, xAxis) {
  const stroke = css('--muted'), grid = {stroke: css('--line'), width: 1};
  const y = {stroke, grid, ticks: grid, size: classes ? 64 : 50};
  if (classes) {
    // One tick per class, labelled with its name.
    y.splits = () => classes.map((_, i) => i);
    y.values = (u, splits) => splits.map((i) => classes[i] ?? '');
  }
  return [{stroke, grid, ticks: grid, ...xAxis}, y];
}

/** A chart in `el` that is redrawn at the element's width; update(data) replaces the data. */
function chart(el, {height, series, classes, xRange, xAxis}) {
  const opts = {
    width: Math.max(200, el.clientWidth), height,
    legend: {show: true, live: false},
    cursor: {drag: {x: false, y: false}, points: {show: false}},
    scales: {x: {time: false, ...(xRange ? {range: xRange} : {})},
             y: classes ? {range: [-0.5, classes.length - 0.5]} : {}},
    axes: axes(classes, xAxis),
    series: [{label: 'x'}, ...series],
  };
  el.replaceChildren();
  const plot = new uPlot(opts, [[], ...series.map(() => [])], el);
  const resize = new ResizeObserver(() => {
    const w = Math.max(200, el.clientWidth);
    if (w !== plot.width) plot.setSize({width: w, height});
  });
  resize.observe(el);
  return {
    plot,
    update: (data) => plot.setData(data),
    destroy: () => { resize.disconnect(); plot.destroy(); },
  };
}

const line = (label, color, extra = {}) => ({label, stroke: color, width: 1.5, points: {show: false},
                                             spanGaps: false, ...extra});

// Categories are drawn as dots in one row per class: lines between rows mean nothing.
const dots = (size) => ({paths: () => null, points: {show: true, size, width: 0}});

/** The series, training part and validation part in two colours. */
export function seriesChart(el, classes) {
  const style = classes ? dots(3) : {};
  return chart(el, {height: 170, classes, series: [
    line('training', COLORS.train(), style), line('validation', COLORS.val(), style)]});
}

/** Loss per epoch, training and validation, drawn as each epoch ends. */
export function lossChart(el) {
  const marks = {points: {show: true, size: 6}};
  return chart(el, {height: 190, xRange: (u, min, max) => [1, Math.max(2, max)],
                    xAxis: {label: 'epoch', labelSize: 20, incrs: [1, 2, 5, 10, 20, 50, 100]}, series: [
    line('training loss', COLORS.train(), marks), line('validation loss', COLORS.val(), marks),
  ]});
}

/** The recent history and a sampled continuation. */
export function forecastChart(el, classes) {
  return chart(el, {height: 210, classes, series: [
    line('history', COLORS.train(), classes ? dots(5) : {}),
    line('forecast (sampled)', COLORS.forecast(), classes ? dots(6) : {width: 2})]});
}

/** Horizontal bars, one per class: label, bar, percentage; the largest is marked. */
export function renderBars(el, classes, probs) {
  let best = 0;
  for (let k = 1; k < probs.length; ++k) if (probs[k] > probs[best]) best = k;
  el.replaceChildren(...classes.map((name, k) => {
    const row = document.createElement('div');
    row.className = 'bar' + (k === best ? ' best' : '');
    row.setAttribute('role', 'listitem');
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = name;
    const track = document.createElement('span');
    track.className = 'track';
    const fill = document.createElement('span');
    fill.className = 'fill';
    fill.style.width = `${(100 * probs[k]).toFixed(1)}%`;
    track.append(fill);
    const pct = document.createElement('span');
    pct.className = 'pct';
    pct.textContent = `${(100 * probs[k]).toFixed(1)}%`;
    row.append(label, track, pct);
    return row;
  }));
}

/** A number short enough to read out: 4 significant digits at most. */
export const fmt = (v) => (typeof v === 'number' ? String(Number(v.toPrecision(4))) : String(v));

/** The table's body rows, one per entry of `rows` (arrays of cell texts). */
export function fillTable(table, rows) {
  const body = table.tBodies[0];
  body.replaceChildren(...rows.map((cells) => {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = c;
      tr.append(td);
    }
    return tr;
  }));
}

/** "sunny 40%, rain 31%, …": the most frequent values of `values`, with their shares. */
export function shares(values, most = 6) {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1]);
  const text = top.slice(0, most).map(([v, c]) => `${v} ${Math.round((100 * c) / values.length)}%`);
  if (top.length > most) text.push(`${top.length - most} more`);
  return text.join(', ');
}

/** "from 1 to 9, last 4": the range and the last of numbers. */
export function range(values) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return `from ${fmt(lo)} to ${fmt(hi)}, last ${fmt(values[values.length - 1])}`;
}
