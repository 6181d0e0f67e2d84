#!/usr/bin/env node
// Static dev server for Glint's pages: binds 127.0.0.1 only and sends
// COOP/COEP so pages are crossOriginIsolated (SharedArrayBuffer, wasm threads).
//   node tools/serve.mjs --root DIR --port N     (port 0: any free port)
// or, from a script: const s = await serve({root, port}); ... await s.close();
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
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
// for a CDN's role, CORS plus a cross-origin resource policy.
function baseHeaders({ isolate, cors }) {
  return {
    ...(isolate ? ISOLATION : {}),
    ...(cors ? { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' } : {}),
    'Cache-Control': 'no-store',
  };
}

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
      const type = MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';
      const headers = { 'Content-Type': type, 'Content-Length': st.size };
      if (req.method === 'HEAD') {
        send(res, 200, headers);
        return;
      }
      res.writeHead(200, { ...base, ...headers });
      fs.createReadStream(file).pipe(res);
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

