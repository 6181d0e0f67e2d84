// Reads CSVs off the page's main thread (a 5 MB file takes most of a second to
// split): the page sends bytes or text, gets back a summary of the columns, and
// asks for one column's values when it needs them (numbers as a Float64Array,
// categories as codes and their names, both transferred, not copied).
// The windows for the LSTM are cut here too (prep.js; 70 ms for 150,000 values).
// Requests: {id, op: 'parse', name, bytes | text, header?} | {id, op: 'table', header}
//           | {id, op: 'column', index, kind}
//           | {id, op: 'prepare', index, kind, valFraction, bins, window}.
// Replies: {id, result} or {id, error, notCsv, dataError, field}.
import {decodeBytes, checkText, parseCsv, detectHeader, toTable, cellsOf, NotCsv} from './csv.js';
import * as prep from './prep.js';

let parsed = null;   // {rows, lines, delimiter, encoding, header, table}

function summary() {
  const {rows, header, delimiter, encoding, table} = parsed;
  return {
    header, delimiter, encoding, rows: rows.length - (header ? 1 : 0), total: rows.length,
    columns: table.columns.map(({numbers, ...c}) => c),
  };
}

function setHeader(header) {
  parsed.header = header;
  parsed.cache = new Map();
  parsed.table = toTable(parsed.rows, header, parsed.lines);
  return summary();
}

const ops = {
  parse({bytes, text, header}) {
    parsed = null;
    let encoding = 'text';
    if (bytes) ({text, encoding} = decodeBytes(new Uint8Array(bytes)));
    checkText(text);
    const {rows, lines, delimiter} = parseCsv(text);
    if (rows.length === 0) throw new NotCsv('it has no rows');
    parsed = {rows, lines, delimiter, encoding};
    return setHeader(header ?? detectHeader(rows));
  },
  table({header}) {
    return setHeader(header);
  },
  /** One column's values (empty cells, and cells that are not numbers, left out). */
  column({index, kind}, transfer) {
    const {series, ...rest} = columnSeries(index, kind);
    if (kind === 'numeric') {
      const values = Float64Array.from(series);
      transfer.push(values.buffer);
      return {kind, values, ...rest};
    }
    return {...encodeStrings(series, transfer), ...rest};
  },
  /** The column's series, its encoding (fitted on the training part) and its windows. */
  prepare({index, kind, valFraction, bins, window}, transfer) {
    const {series, ...rest} = columnSeries(index, kind);
    if (series.length < 20) {
      throw new prep.DataError(`the column has ${prep.plural(series.length, 'value')}: at least 20 are needed`);
    }
    const enc = prep.fitEncoding(series, kind, {valFraction, bins});
    const windows = prep.makeWindows(enc, series, window);
    for (const part of [windows.train, windows.val]) transfer.push(part.x.buffer, part.y.buffer, part.targets.buffer);
    let values;
    if (kind === 'numeric') {
      values = Float64Array.from(series);
      transfer.push(values.buffer);
      values = {kind, values};
    } else {
      values = encodeStrings(series, transfer);
    }
    const y = kind === 'numeric' ? series : series.map((v) => prep.classOf(enc, v));
    return {series: values, enc, windows, chart: prep.chartPoints(y, windows.split), ...rest};
  },
};

/** The column's series, once per column and kind: {series, empty, skipped, bad}. */
function columnSeries(index, kind) {
  const key = `${index}:${kind}`;
  let got = parsed.cache.get(key);
  if (got) return got;
  const column = parsed.table.columns[index];
  const cells = cellsOf(parsed.rows, parsed.header, index);
  const empty = cells.length - column.present;
  got = kind === 'numeric' ?
      {series: Array.from(column.numbers), empty, skipped: column.badCount, bad: column.bad} :
      {series: cells.filter((v) => v !== ''), empty, skipped: 0, bad: []};
  parsed.cache.set(key, got);
  return got;
}

/** Strings as codes (transferred) and their names: cheaper to send than the strings. */
function encodeStrings(values, transfer) {
  const dict = [], codeOf = new Map();
  const codes = new Int32Array(values.length);
  values.forEach((v, i) => {
    let c = codeOf.get(v);
    if (c === undefined) {
      c = dict.length;
      dict.push(v);
      codeOf.set(v, c);
    }
    codes[i] = c;
  });
  transfer.push(codes.buffer);
  return {kind: 'categorical', codes, dict};
}

self.onmessage = ({data}) => {
  const transfer = [];
  try {
    const result = ops[data.op](data, transfer);
    self.postMessage({id: data.id, result}, transfer);
  } catch (e) {
    self.postMessage({id: data.id, error: e.message, notCsv: e instanceof NotCsv,
                      dataError: e instanceof prep.DataError, field: e.field ?? null});
  }
};
