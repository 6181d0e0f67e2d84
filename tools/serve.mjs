#!/usr/bin/env node
// Static dev server for Glint's pages: binds 127.0.0.1 only and sends
// COOP/COEP so pages are crossOriginIsolated (SharedArrayBuffer, wasm threads).
//   node tools/serve.mjs --root DIR --port N     (port 0: any free port)
// or, from a script: const s = await serve({root, port}); ... await s.close();
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.bin': 'application/octet-stream',
  '.data': 'application/octet-stream',
};

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/// The file under `root` that `urlPath` names, or null when it would leave
/// root (after decoding and normalising; symlinks are resolved too).
export function resolveInRoot(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    return null;  // malformed %-escape
  }
  if (decoded.includes('\0')) return null;
  const rootReal = fs.realpathSync(root);
  const candidate = path.resolve(rootReal, '.' + path.posix.normalize('/' + decoded));
  if (candidate !== rootReal && !candidate.startsWith(rootReal + path.sep)) return null;
  let real;
  try {
    real = fs.realpathSync(candidate);
  } catch {
    return candidate;  // does not exist: the caller answers 404
  }
  if (real !== rootReal && !real.startsWith(rootReal + path.sep)) return null;
  return real;
}

// What every answer carries: isolation (COOP/COEP, the default) or none, and
// for a CDN's role, CORS plus a cross-origin resource policy. Files may be
// cached but are revalidated on every use (no-cache + ETag: a rebuilt file is
// never served stale; an unchanged one costs a 304 and no body, and lets the
// browser keep its compiled code for a .wasm).
function baseHeaders({ isolate, cors }) {
  return {
    ...(isolate ? ISOLATION : {}),
    ...(cors ? { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' } : {}),
    'Cache-Control': 'no-cache',
  };
}

// Text and WebAssembly go compressed to a client that accepts it, as any
// production host sends them (brotli first, then gzip); already-compressed
// formats (.png, .gz) as they are.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.json', '.css', '.map', '.txt', '.svg']);
const MIN_COMPRESS = 1024;

/// The coding to send for an Accept-Encoding header: 'br', 'gzip' or null.
export function chooseEncoding(acceptEncoding) {
  const q = new Map();
  for (const part of String(acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q.set(name, qParam ? Number(qParam.slice(2)) : 1);
  }
  const ok = (c) => (q.has(c) ? q.get(c) > 0 : (q.get('*') ?? 0) > 0);
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

/// A file's compressed bytes, made once per version of the file (size and mtime) and coding.
const compressedCache = new Map();
function compressed(file, st, coding) {
  const key = `${file}\0${coding}`;
  const version = `${st.size}:${st.mtimeMs}`;
  const hit = compressedCache.get(key);
  if (hit?.version === version) return hit.bytes;
  const bytes = new Promise((resolve, reject) => {
    fs.readFile(file, (err, raw) => {
      if (err) return reject(err);
      const done = (e, out) => (e ? reject(e) : resolve(out));
      // Quality 5: most of brotli's gain at a speed a dev server can pay on the first request.
      if (coding === 'br') zlib.brotliCompress(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }, done);
      else zlib.gzip(raw, { level: 6 }, done);
    });
  });
  compressedCache.set(key, { version, bytes });
  bytes.catch(() => compressedCache.delete(key));
  return bytes;
}

const etagOf = (st) => `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;

function handler(root, log, options) {
  const base = baseHeaders(options);
  const send = (res, status, headers, body) => {
    res.writeHead(status, { ...base, ...headers });
    res.end(body);
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, { 'Content-Type': 'text/plain', Allow: 'GET, HEAD' }, 'method not allowed\n');
      return;
    }
    let file = resolveInRoot(root, new URL(req.url, 'http://127.0.0.1').pathname);
    if (!file) {
      send(res, 403, { 'Content-Type': 'text/plain' }, 'forbidden\n');
      return;
    }
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) {
        file = path.join(file, 'index.html');
        try {
          st = fs.statSync(file);
        } catch (e) {
          err = e;
        }
      }
      if (err || !st.isFile()) {
        if (log) log(`404 ${req.url}`);
        send(res, 404, { 'Content-Type': 'text/plain' }, 'not found\n');
        return;
      }
      const ext = path.extname(file).toLowerCase();
      const type = MIME[ext] || 'application/octet-stream';
      const etag = etagOf(st);
      const compressible = COMPRESSIBLE.has(ext) && st.size >= MIN_COMPRESS;
      const validators = { ETag: etag, ...(compressible ? { Vary: 'Accept-Encoding' } : {}) };
      const match = req.headers['if-none-match'];
      if (match && match.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
        send(res, 304, validators);
        return;
      }
      const coding = compressible ? chooseEncoding(req.headers['accept-encoding']) : null;
      if (!coding) {
        const headers = { 'Content-Type': type, 'Content-Length': st.size, ...validators };
        if (req.method === 'HEAD') {
          send(res, 200, headers);
          return;
        }
        res.writeHead(200, { ...base, ...headers });
        fs.createReadStream(file).pipe(res);
        return;
      }
      compressed(file, st, coding).then((body) => {
        const headers = { 'Content-Type': type, 'Content-Encoding': coding, 'Content-Length': body.length,
                          ...validators };
        send(res, 200, headers, req.method === 'HEAD' ? undefined : body);
      }, (e) => {
        if (log) log(`500 ${req.url}: ${e.message}`);
        send(res, 500, { 'Content-Type': 'text/plain' }, 'could not read the file\n');
      });
    });
  };
}

/// Starts the server; resolves to {url, port, close()}. isolate: false sends no
/// COOP/COEP (a plain page); cors: true lets other origins fetch (a CDN).
export function serve({ root, port = 0, host = '127.0.0.1', log = null, isolate = true, cors = false } = {}) {
  if (!root) throw new Error('serve: root is required');
  root = path.resolve(root);
  if (!fs.statSync(root).isDirectory()) throw new Error(`serve: ${root} is not a folder`);
  const server = http.createServer(handler(root, log, { isolate, cors }));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        server,
        port: actual,
        url: `http://${host}:${actual}`,
        close: () => new Promise((r) => {
          server.closeAllConnections?.();
          server.close(() => r());
        }),
      });
    });
  });
}

function parseArgs(argv) {
  const out = { root: '.', port: 8080 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`serve: ${a} needs a value`);
      return argv[++i];
    };
    if (a === '--root') out.root = value();
    else if (a === '--port') out.port = Number(value());
    else if (a === '--help' || a === '-h') out.help = true;
    else throw new Error(`serve: unknown argument ${a} (use --root DIR --port N)`);
  }
  if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535)
    throw new Error(`serve: --port must be 0..65535, got ${out.port}`);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log('usage: node tools/serve.mjs --root DIR --port N');
      process.exit(0);
    }
    const s = await serve({ root: args.root, port: args.port, log: (m) => console.error(m) });
    console.log(`serving ${path.resolve(args.root)} at ${s.url}/ (COOP/COEP: crossOriginIsolated)`);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}

