// tf.data.csv: a dataset of CSV rows read from a URL (fetch) or, in node, a
// file:// URL; TF.js's config (hasHeader, columnNames, columnConfigs with
// dtype/default/required/isLabel, configuredColumnsOnly, delimiter,
// delimWhitespace). Rows are plain objects ({xs, ys} when a column is a label).
import {GlintError} from './core.js';
import {Dataset} from './data.js';
import {nodeModules} from './platform.js';

async function readText(source) {
  const url = String(source);
  if (/^file:\/\//i.test(url)) {
    const {fs, fileURLToPath} = await nodeModules('data.csv of a file:// URL');
    return fs.readFileSync(fileURLToPath(url), 'utf8');
  }
  if (typeof fetch !== 'function') throw new GlintError('[data.csv] this platform has no fetch');
  const r = await fetch(source);
  if (!r.ok) throw new GlintError(`[data.csv] '${url}': HTTP ${r.status}`);
  return r.text();
}

/** Splits one line into fields: quoted fields may hold the delimiter, "" is a quote. */
function splitLine(line, delimiter, delimWhitespace) {
  if (delimWhitespace) return line.trim().split(/\s+/);
  const fields = [];
  let field = '', quoted = false;
  for (let i = 0; i < line.length; ++i) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        ++i;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === delimiter) {
      fields.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  fields.push(field);
  return fields;
}

function parseBool(value) {
  return value === '1' || value.toLowerCase() === 'true' ? 1 : 0;
}

function parseValue(key, value, config, line) {
  if (value === '') {
    if (config && config.default !== undefined) return config.default;
    if (config && (config.required || config.isLabel)) {
      throw new GlintError(`[data.csv] required column '${key}' is empty in this line: ${line}`);
    }
    return undefined;
  }
  const num = Number(value);
  if (Number.isNaN(num)) return config?.dtype === 'bool' ? parseBool(value) : value;
  if (!config?.dtype) return num;
  switch (config.dtype) {
    case 'int32': return Math.floor(num);
    case 'bool': return parseBool(value);
    default: return num;
  }
}

export class CSVDataset extends Dataset {
  constructor(source, csvConfig = {}) {
    const {hasHeader = true, columnNames = null, columnConfigs = null, configuredColumnsOnly = false,
      delimiter = ',', delimWhitespace = false} = csvConfig;
    if (configuredColumnsOnly && !columnConfigs) {
      throw new GlintError('[data.csv] configuredColumnsOnly needs columnConfigs');
    }
    if (delimWhitespace && csvConfig.delimiter != null) {
      throw new GlintError('[data.csv] delimWhitespace and delimiter cannot both be given');
    }
    let lines = null;
    const load = async () => {
      lines ??= (await readText(source)).split(/\r?\n/).filter((l) => l.length > 0);
      return lines;
    };
    let names = null;
    const columns = async () => {
      if (names) return names;
      const all = await load();
      let n = columnNames;
      if (!n) {
        if (!hasHeader) throw new GlintError('[data.csv] columnNames are needed when hasHeader is false');
        n = splitLine(all[0] ?? '', delimiter, delimWhitespace).map((s) => s.trim());
      }
      const counts = new Map();
      for (const c of n) counts.set(c, (counts.get(c) ?? 0) + 1);
      const dup = [...counts].filter(([, k]) => k > 1).map(([c]) => c);
      if (dup.length) throw new GlintError(`[data.csv] duplicate column names: ${dup.join(', ')}`);
      if (columnConfigs) {
        for (const key of Object.keys(columnConfigs)) {
          if (!n.includes(key)) {
            throw new GlintError(`[data.csv] columnConfigs names '${key}', which is not a column ` +
                `(${n.join(', ')})`);
          }
        }
      }
      names = n;
      return names;
    };
    super(async function* () {
      const all = await load();
      const cols = await columns();
      const labels = columnConfigs ? Object.keys(columnConfigs).filter((k) => columnConfigs[k].isLabel) : [];
      for (let i = hasHeader ? 1 : 0; i < all.length; ++i) {
        const line = all[i];
        const fields = splitLine(line, delimiter, delimWhitespace);
        if (fields.length !== cols.length) {
          throw new GlintError(`[data.csv] line ${i + 1} has ${fields.length} fields, the header ${cols.length}: ${line}`);
        }
        const features = {}, label = {};
        cols.forEach((key, j) => {
          const config = columnConfigs?.[key];
          if (configuredColumnsOnly && !config) return;
          const v = parseValue(key, fields[j], config, line);
          (config?.isLabel ? label : features)[key] = v;
        });
        yield labels.length ? {xs: features, ys: label} : features;
      }
    });
    // The configured columns only, when only those are read (as TF.js).
    this.columnNames = async () => (configuredColumnsOnly ? Object.keys(columnConfigs) : columns());
  }
}

/** tf.data.csv(url, csvConfig). */
export function csv(source, csvConfig = {}) {
  return new CSVDataset(source, csvConfig);
}
