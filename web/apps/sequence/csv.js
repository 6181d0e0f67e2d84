// CSV reading for the sequence app (used by csv_worker.js, off the page's main
// thread): what a file is (binary files are refused by name), its text
// (UTF-8, UTF-16 or Windows-1252), delimiter and header detection, numbers
// with a decimal point or a decimal comma, the cells that are not numbers (by
// row), and which columns look like a series rather than timestamps or ids.

const MAGIC = [
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'a GIF image'],
  [[0x52, 0x49, 0x46, 0x46], 'a RIFF file (WebP, WAV or AVI)'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (an Excel .xlsx or an .ods workbook is one): save the sheet as CSV'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'an old Office document (.xls or .doc): save the sheet as CSV'],
  [[0x1f, 0x8b], 'a gzip archive: unpack it first'],
  [[0x00, 0x61, 0x73, 0x6d], 'a WebAssembly module'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], 'an SQLite database'],
  [[0x7f, 0x45, 0x4c, 0x46], 'a program (ELF)'],
  [[0x4d, 0x5a], 'a Windows program'],
];

export class NotCsv extends Error {}

/** Share of characters that no text has: NUL, other control characters, U+FFFD. */
function oddShare(text) {
  const n = Math.min(text.length, 65536);
  let odd = 0;
  for (let i = 0; i < n; ++i) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) || c === 0xfffd) ++odd;
  }
  return n ? odd / n : 0;
}

/**
 * The text of a file's bytes, or NotCsv saying what the file is instead:
 * known magic bytes, NUL bytes, or bytes that are neither UTF-8 nor text.
 * Returns {text, encoding}.
 */
export function decodeBytes(bytes) {
  for (const [magic, what] of MAGIC) {
    if (bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)) {
      throw new NotCsv(`this is ${what}, not a CSV`);
    }
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return {text: new TextDecoder('utf-16le').decode(bytes), encoding: 'UTF-16'};
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return {text: new TextDecoder('utf-16be').decode(bytes), encoding: 'UTF-16'};
  const head = bytes.subarray(0, 65536);
  if (head.includes(0)) throw new NotCsv('this is binary data (it has NUL bytes), not a CSV');
  try {
    return {text: new TextDecoder('utf-8', {fatal: true}).decode(bytes), encoding: 'UTF-8'};
  } catch {
    // Not UTF-8: an old spreadsheet export (Windows-1252) is still text; anything else is not.
    const text = new TextDecoder('windows-1252').decode(bytes);
    if (oddShare(text) > 0.01) throw new NotCsv('this is not text (not UTF-8, and full of control bytes), not a CSV');
    return {text, encoding: 'Windows-1252'};
  }
}

/** Throws NotCsv for pasted (or decoded) text that is binary data. */
export function checkText(text) {
  if (text.slice(0, 65536).includes('\u0000')) throw new NotCsv('this looks like binary data (it has NUL characters), not CSV text');
  if (oddShare(text) > 0.01) throw new NotCsv('this looks like binary data (control characters), not CSV text');
}

/**
 * Splits CSV text into rows of cells (quotes, "" escapes, CRLF; the delimiter is guessed).
 * lines[i] is the line of the text where rows[i] starts (1-based), for naming cells.
 */
export function parseCsv(text) {
  text = text.replace(/^\uFEFF/, '');
  const delimiter = guessDelimiter(text);
  const rows = [], lines = [];
  let row = [], cell = '', quoted = false, line = 1, rowLine = 1;
  const endRow = () => {
    row.push(cell); cell = '';
    if (row.some((x) => x.trim() !== '')) {
      rows.push(row.map((x) => x.trim()));
      lines.push(rowLine);
    }
    row = [];
  };
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; ++i; }
      else if (c === '"') quoted = false;
      else {
        if (c === '\n') ++line;
        cell += c;
      }
    } else if (c === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (c === delimiter) {
      row.push(cell); cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') ++i;
      endRow();
      rowLine = ++line;
    } else {
      cell += c;
    }
  }
  endRow();
  return {rows, lines, delimiter};
}

/**
 * The delimiter that splits the first lines into the same number of cells
 * (quoted parts ignored). When several do, tab, then ';', then ',': a file
 * separated by ';' often has decimal commas, which also split every line alike.
 */
export function guessDelimiter(text) {
  const lines = text.split(/\r?\n/, 30).filter((l) => l.trim()).slice(0, 20)
      .map((l) => l.replace(/"[^"]*"/g, '""'));
  let best = ',', bestCount = 0;
  for (const d of ['\t', ';', ',', '|']) {
    const counts = lines.map((l) => l.split(d).length - 1);
    if (counts.length && counts[0] > 0 && counts.every((c) => c === counts[0])) return d;
    if (counts.length && counts[0] > bestCount) { best = d; bestCount = counts[0]; }
  }
  return best;
}

export const isNumber = (s) => s !== '' && Number.isFinite(Number(s));

const COMMA_NUMBER = /^[+-]?(\d{1,3}(\.\d{3})+|\d+)?(,\d+)?([eE][+-]?\d+)?$/;

/** A number written with a decimal comma ("12,5", "1.013,25"), or NaN. */
export function commaNumber(s) {
  if (s === '' || !/\d/.test(s) || !COMMA_NUMBER.test(s)) return NaN;
  return Number(s.replace(/\./g, '').replace(',', '.'));
}

const anyNumber = (s) => isNumber(s) || Number.isFinite(commaNumber(s));

/**
 * True when the first row names the columns: one of its cells is text above a
 * numeric column, or none of its cells occurs again in its column.
 */
export function detectHeader(rows) {
  if (rows.length < 2) return false;
  const first = rows[0], rest = rows.slice(1, 201);
  let textOverNumbers = false, allUnique = true;
  for (let c = 0; c < first.length; ++c) {
    const column = rest.map((r) => r[c] ?? '').filter((v) => v !== '');
    const numeric = column.length > 0 && column.filter(anyNumber).length >= 0.9 * column.length;
    if (numeric && !anyNumber(first[c])) textOverNumbers = true;
    if (anyNumber(first[c]) || column.includes(first[c])) allUnique = false;
  }
  return textOverNumbers || (allUnique && rest.length >= 5);
}

/** 1, 2, 3, ... or any constant step: a row number or a time axis, not a series to learn. */
function isCounter(values) {
  if (values.length < 3) return false;
  const step = values[1] - values[0];
  for (let i = 1; i < values.length; ++i) {
    if (Math.abs(values[i] - values[i - 1] - step) > 1e-9 * Math.max(1, Math.abs(step))) return false;
  }
  return step !== 0;
}

/** A column is numbers when at least this share of its cells are. */
export const NUMERIC_SHARE = 0.9;
const MAX_NAMED = 5;

/**
 * One column read: its numbers (decimal point or comma, whichever reads more
 * cells), the cells that are not numbers with their line, and whether it
 * looks like a series. Returns {name, numeric, decimalComma, present, distinct,
 * series, badCount, bad: [{row, text}], numbers (Float64Array, for numeric)}.
 */
export function readColumn(name, cells, lineOf) {
  const present = [];
  for (let i = 0; i < cells.length; ++i) if (cells[i] !== '') present.push(i);
  let dot = 0, comma = 0;
  for (const i of present) {
    if (isNumber(cells[i])) ++dot;
    else if (Number.isFinite(commaNumber(cells[i]))) ++comma;
  }
  // Comma style only where cells need it (a plain "12" reads either way).
  const decimalComma = comma > 0 && comma + present.filter((i) => /^[+-]?\d+$/.test(cells[i])).length >= dot;
  const parse = decimalComma ? commaNumber : (s) => (isNumber(s) ? Number(s) : NaN);
  const numbers = new Float64Array(present.length);
  let good = 0, badCount = 0;
  const bad = [];
  for (const i of present) {
    const v = parse(cells[i]);
    if (Number.isFinite(v)) numbers[good++] = v;
    else {
      ++badCount;
      if (bad.length < MAX_NAMED) bad.push({row: lineOf(i), text: cells[i]});
    }
  }
  const numeric = good > 0 && good >= NUMERIC_SHARE * present.length;
  let distinct;
  if (numeric) distinct = new Set(numbers.subarray(0, good)).size;
  else distinct = new Set(present.map((i) => cells[i])).size;
  const series = present.length > 0 && !(numeric && isCounter(numbers.subarray(0, good))) &&
      (numeric || distinct <= Math.max(2, 0.5 * present.length));
  return {name, numeric, decimalComma, present: present.length, good, distinct, series, badCount, bad,
          numbers: numbers.subarray(0, good)};
}

/** The cells of column c of the body rows. */
export function cellsOf(rows, header, c) {
  const body = header ? rows.slice(1) : rows;
  return body.map((r) => r[c] ?? '');
}

/**
 * The table: {names, columns: [readColumn(...)]}. `series` is false for
 * columns that look like time stamps or ids (text where almost every value
 * differs, or numbers counting up), so they are not offered first.
 */
export function toTable(rows, header, lines = rows.map((_, i) => i + 1)) {
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  const skip = header ? 1 : 0;
  const names = Array.from({length: width}, (_, c) => (header && rows[0][c]) || `column ${c + 1}`);
  const columns = names.map((name, c) => readColumn(name, cellsOf(rows, header, c), (i) => lines[i + skip]));
  return {names, columns};
}
