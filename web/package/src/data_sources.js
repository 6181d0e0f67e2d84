// tf.data's byte sources and the line dataset over them: FileDataSource (a
// File, Blob, Uint8Array, or a node path), URLDataSource (fetch; file:// in
// node) and TextLineDataset (UTF-8 lines, decoded across chunk boundaries).
import {GlintError} from './core.js';
import {Dataset} from './data.js';
import {nodeModules} from './platform.js';

const DEFAULT_CHUNK = 1024 * 1024;

async function bytesOf(input) {
  if (input instanceof Uint8Array) return input;
  if (typeof Blob !== 'undefined' && input instanceof Blob) return new Uint8Array(await input.arrayBuffer());
  if (typeof input === 'string') {
    const {fs, fileURLToPath} = await nodeModules('FileDataSource of a path');
    return new Uint8Array(fs.readFileSync(/^file:\/\//i.test(input) ? fileURLToPath(input) : input));
  }
  throw new GlintError(`[FileDataSource] expects a File, Blob, Uint8Array or (node) path: got ${typeof input}`);
}

async function* chunks(load, chunkSize) {
  const all = await load();
  for (let at = 0; at < all.length; at += chunkSize) yield all.subarray(at, Math.min(at + chunkSize, all.length));
}

/** Bytes of a file in chunks of options.chunkSize (1 MiB). */
export class FileDataSource {
  constructor(input, options = {}) {
    this.input = input;
    this.chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
    if (!(this.chunkSize > 0)) throw new GlintError(`[FileDataSource] chunkSize must be positive: got ${options.chunkSize}`);
  }
  async iterator() {
    return chunks(() => bytesOf(this.input), this.chunkSize);
  }
}

/** Bytes of a URL (fetched with fileOptions.requestInit; file:// read in node), in chunks. */
export class URLDataSource {
  constructor(url, fileOptions = {}) {
    this.url = url;
    this.fileOptions = fileOptions;
  }
  async iterator() {
    const url = String(this.url);
    const chunkSize = this.fileOptions.chunkSize ?? DEFAULT_CHUNK;
    if (/^file:\/\//i.test(url)) return new FileDataSource(url, {chunkSize}).iterator();
    return chunks(async () => {
      const r = await fetch(this.url, this.fileOptions.requestInit);
      if (!r.ok) throw new GlintError(`[URLDataSource] '${url}': HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    }, chunkSize);
  }
}

/** The lines of a data source's UTF-8 text ('\\n' or '\\r\\n' separated, as TF.js). */
export class TextLineDataset extends Dataset {
  constructor(input) {
    super(async function* () {
      const decoder = new TextDecoder('utf-8');
      let carry = '';
      const it = await input.iterator();
      for await (const chunk of it) {
        const parts = (carry + decoder.decode(chunk, {stream: true})).split('\n');
        carry = parts.pop();
        for (const line of parts) yield line.endsWith('\r') ? line.slice(0, -1) : line;
      }
      carry += decoder.decode();
      if (carry.length) yield carry.endsWith('\r') ? carry.slice(0, -1) : carry;
    });
    this.input = input;
  }
}
