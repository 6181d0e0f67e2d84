// Sample import: the app's own "Samples JSON" and "Samples CSV" exports
// (data.js exportJson / exportCsv) read back, so a class can pool its
// samples. A file is checked whole before anything is kept: one bad sample
// and nothing is imported, with a message that names the problem and where.
import {PIXELS} from './data.js';

const MAX_BYTES = 64 * 1024 * 1024;   // 30 students x 20 samples as JSON is about 2 MB

export class ImportError extends Error {}

/** One sample's pixels checked and made bytes; `where` names it in errors ("sample 3"). */
function pixelsOf(values, where) {
  if (!Array.isArray(values)) throw new ImportError(`${where}: no pixel list`);
  if (values.length !== PIXELS) {
    throw new ImportError(`${where}: ${values.length} pixels, expected ${PIXELS} (28×28)`);
  }
  const bytes = new Uint8Array(PIXELS);
  for (let p = 0; p < PIXELS; ++p) {
    const v = values[p];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) {
      throw new ImportError(`${where}: pixel ${p} is ${JSON.stringify(v)}, expected a whole number 0 to 255`);
    }
    bytes[p] = v;
  }
  return bytes;
}

function labelOf(v, where) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 9) {
    throw new ImportError(`${where}: label ${JSON.stringify(v)} is not a digit 0-9`);
  }
  return v;
}

function fromJson(text, name) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ImportError(`${name} is not JSON (${e.message})`);
  }
  if (!doc || typeof doc !== 'object' || doc.format !== 'glint-digits-personal' || !Array.isArray(doc.samples)) {
    throw new ImportError(`${name} is JSON but not in the Samples JSON format of this app ` +
                          '("format": "glint-digits-personal" with a "samples" list)');
  }
  if (doc.rows !== undefined && (doc.rows !== 28 || doc.cols !== 28)) {
    throw new ImportError(`${name}: ${doc.rows}×${doc.cols} pictures, expected 28×28`);
  }
  return doc.samples.map((s, i) => {
    const where = `sample ${i + 1}`;
    if (!s || typeof s !== 'object') throw new ImportError(`${where}: not a sample`);
    const created = Date.parse(s.created);
    return {label: labelOf(s.label, where), pixels: pixelsOf(s.pixels, where),
            created: Number.isFinite(created) ? created : Date.now()};
  });
}

function fromCsv(text) {
  const lines = text.split(/\r?\n/);
  const out = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    const cells = line.split(',').map((c) => c.trim());
    if (i === 0 && cells[0].toLowerCase() === 'label') return;   // the export's header
    const where = `line ${i + 1} (sample ${out.length + 1})`;
    if (cells.length !== PIXELS + 1) {
      throw new ImportError(`${where}: ${cells.length - 1} pixel values, expected ${PIXELS} after the label`);
    }
    const numbers = cells.map((c) => {
      if (!/^[+-]?\d+(\.\d+)?$/.test(c)) throw new ImportError(`${where}: "${c.slice(0, 20)}" is not a number`);
      return Number(c);
    });
    out.push({label: labelOf(numbers[0], where), pixels: pixelsOf(numbers.slice(1), where), created: Date.now()});
  });
  return out;
}

/**
 * The samples in a file's text ({label, pixels: Uint8Array(784), created}); throws
 * ImportError with a plain message naming the problem.
 */
export function parseSamples(text, name = 'the file') {
  if (text.slice(0, 4096).includes('\u0000')) {
    throw new ImportError(`${name} is not a text file: import a Samples JSON or Samples CSV export`);
  }
  const start = text.trimStart();
  if (!start) throw new ImportError(`${name} is empty`);
  let list;
  if (start[0] === '{' || start[0] === '[' || /\.json$/i.test(name)) list = fromJson(text, name);
  else if (start.split('\n', 1)[0].includes(',')) list = fromCsv(text);
  else throw new ImportError(`${name} is neither JSON nor CSV: import a Samples JSON or Samples CSV export`);
  if (list.length === 0) throw new ImportError(`${name} has no samples`);
  return list;
}

const keyOf = (label, pixels) => `${label}:${String.fromCharCode(...pixels)}`;

/**
 * Samples of `incoming` that are not in `existing` (same label and pixels) nor
 * earlier in `incoming`: {fresh, duplicates}.
 */
export function withoutDuplicates(existing, incoming) {
  const seen = new Set(existing.map((s) => keyOf(s.label, s.pixels)));
  const fresh = [];
  for (const s of incoming) {
    const k = keyOf(s.label, s.pixels);
    if (seen.has(k)) continue;
    seen.add(k);
    fresh.push(s);
  }
  return {fresh, duplicates: incoming.length - fresh.length};
}

const plural = (n, word) => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;

/**
 * The import controls of the samples card: the Import button (a file input,
 * several files at once) and dropping files on the card.
 *   canImport(): whether the model is free (not training or learning);
 *   existing(): the personal samples now;
 *   add(list): keeps the new samples (IndexedDB and the list) and re-reads them.
 */
export function setupImport({canImport, existing, add}) {
  const $ = (id) => document.getElementById(id);
  const input = $('import-file'), result = $('import-result'), card = $('samples-card');
  const say = (text, bad = false) => {
    result.textContent = text;
    result.classList.toggle('bad', bad);
  };
  const state = window.digitsApp.lastImport = {count: 0};

  async function importFiles(files) {
    files = [...files];
    if (!files.length) return;
    if (!canImport()) {
      say('The model is busy (training or learning): import when it is done.', true);
      return;
    }
    let all = [];
    const names = files.map((f) => f.name).join(', ');
    try {
      for (const f of files) {
        if (f.size > MAX_BYTES) throw new ImportError(`${f.name} is too big (${(f.size / 2 ** 20).toFixed(0)} MB)`);
        const list = parseSamples(await f.text(), f.name);
        all = all.concat(list);
      }
    } catch (e) {
      const text = e instanceof ImportError ? e.message : `${names} could not be read (${e.message})`;
      say(`Nothing imported: ${text}.`, true);
      Object.assign(state, {error: text, imported: 0, duplicates: 0, done: ++state.count});
      return;
    }
    const {fresh, duplicates} = withoutDuplicates(existing(), all);
    say(`Importing ${plural(fresh.length, 'sample')}…`);
    try {
      if (fresh.length) await add(fresh);
    } catch (e) {
      say(`Nothing imported: ${e.message}.`, true);
      Object.assign(state, {error: e.message, imported: 0, duplicates, done: ++state.count});
      return;
    }
    say(`Imported ${plural(fresh.length, 'sample')} (${plural(duplicates, 'duplicate')} skipped)` +
        ` from ${files.length === 1 ? names : plural(files.length, 'file')}.` +
        (fresh.length ? ' They join the next fine-tuning and Train from scratch.' : ''));
    Object.assign(state, {error: null, imported: fresh.length, duplicates, done: ++state.count});
  }

  $('import').addEventListener('click', () => input.click());
  input.addEventListener('change', async () => {
    await importFiles(input.files);
    input.value = '';   // the same file again is a new import
  });
  card.addEventListener('dragover', (e) => {
    if (![...e.dataTransfer.types].includes('Files')) return;
    e.preventDefault();
    card.classList.add('dropping');
  });
  card.addEventListener('dragleave', (e) => {
    if (!card.contains(e.relatedTarget)) card.classList.remove('dropping');
  });
  card.addEventListener('drop', (e) => {
    e.preventDefault();
    card.classList.remove('dropping');
    importFiles(e.dataTransfer.files);
  });
  return {importFiles};
}
