// CSV reading for the sequence app: delimiter and header detection, and which
// columns look like a series (numbers, or a small set of repeating labels)
// rather than timestamps or ids.

/** Splits CSV text into rows of cells (quotes, "" escapes, CRLF; the delimiter is guessed). */
export function parseCsv(text) {
  text = text.replace(/^\uFEFF/, '');
  const delimiter = guessDelimiter(text);
  const rows = [];
  let row = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; ++i; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') {
      quoted = true;
    } else if (c === delimiter) {
      row.push(cell); cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') ++i;
      row.push(cell); cell = '';
      if (row.some((x) => x.trim() !== '')) rows.push(row.map((x) => x.trim()));
      row = [];
    } else {
      cell += c;
    }
  }
  row.push(cell);
  if (row.some((x) => x.trim() !== '')) rows.push(row.map((x) => x.trim()));
  return {rows, delimiter};
}

function guessDelimiter(text) {
  const lines = text.split(/\r?\n/, 20).filter((l) => l.trim());
  let best = ',', bestScore = 0;
  for (const d of [',', ';', '\t', '|']) {
    const counts = lines.map((l) => l.split(d).length - 1);
    // A delimiter splits every line into the same number of cells.
    const consistent = counts.every((c) => c === counts[0]);
    const score = counts[0] > 0 ? counts[0] + (consistent ? 100 : 0) : 0;
    if (score > bestScore) { best = d; bestScore = score; }
  }
  return best;
}

export const isNumber = (s) => s !== '' && Number.isFinite(Number(s));

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
    const numeric = column.length > 0 && column.filter(isNumber).length >= 0.9 * column.length;
    if (numeric && !isNumber(first[c])) textOverNumbers = true;
    if (isNumber(first[c]) || column.includes(first[c])) allUnique = false;
  }
  return textOverNumbers || (allUnique && rest.length >= 5);
}

/** 1, 2, 3, ... or any constant step: a row number or a time axis, not a series to learn. */
function isCounter(values) {
  if (values.length < 3) return false;
  const step = Number(values[1]) - Number(values[0]);
  return step !== 0 && values.every((v, i) => i === 0 ||
      Math.abs(Number(v) - Number(values[i - 1]) - step) <= 1e-9 * Math.max(1, Math.abs(step)));
}

/**
 * The table: {names, columns: [{name, values, numeric, distinct, series}]}.
 * `series` is false for columns that look like time stamps or ids (text where
 * almost every value differs, or numbers counting up), so they are not offered first.
 */
export function toTable(rows, header) {
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  const body = header ? rows.slice(1) : rows;
  const names = Array.from({length: width}, (_, c) =>
      (header && rows[0][c]) || `column ${c + 1}`);
  const columns = names.map((name, c) => {
    const values = body.map((r) => r[c] ?? '');
    const present = values.filter((v) => v !== '');
    const numeric = present.length > 0 && present.every(isNumber);
    const distinct = new Set(present).size;
    const series = present.length > 0 && !(numeric && isCounter(present)) &&
        (numeric || distinct <= Math.max(2, 0.5 * present.length));
    return {name, values, numeric, distinct, series};
  });
  return {names, columns};
}
