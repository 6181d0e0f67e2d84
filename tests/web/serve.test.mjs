// tools/serve.mjs, the pages' server (issue 28, start-up): files revalidated by
// ETag (304, no body, when unchanged; the new bytes once changed), text and
// WebAssembly compressed for a client that accepts it and decoding to the very
// bytes on disk, nothing served from outside its root.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {chooseEncoding, serve} from '../../tools/serve.mjs';

function get(url, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {method, headers}, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks)}));
    });
    req.on('error', reject);
    req.end();
  });
}

async function withServer(fn) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-serve-'));
  const wasm = Buffer.alloc(50000);
  for (let i = 0; i < wasm.length; ++i) wasm[i] = (i * 7919) % 251 < 40 ? i % 13 : 0;
  fs.writeFileSync(path.join(root, 'm.wasm'), wasm);
  fs.writeFileSync(path.join(root, 'small.js'), 'export const x = 1;\n');
  fs.writeFileSync(path.join(root, 'data.gz'), zlib.gzipSync(wasm));
  const outside = path.join(os.tmpdir(), 'glint-serve-outside.txt');
  fs.writeFileSync(outside, 'secret');
  const s = await serve({root, port: 0});
  try {
    await fn({base: s.url, root, wasm});
  } finally {
    await s.close();
    fs.rmSync(root, {recursive: true, force: true});
    fs.rmSync(outside, {force: true});
  }
}

test('Accept-Encoding: brotli first, then gzip, q=0 refuses, nothing without the header', () => {
  assert.equal(chooseEncoding('gzip, deflate, br'), 'br');
  assert.equal(chooseEncoding('gzip, br;q=0'), 'gzip');
  assert.equal(chooseEncoding('br;q=0, gzip;q=0'), null);
  assert.equal(chooseEncoding(undefined), null);
  assert.equal(chooseEncoding('identity'), null);
  assert.equal(chooseEncoding('*;q=0.5'), 'br');
});

test('compressed answers decode to the bytes on disk; small and compressed files go as they are', async () => {
  await withServer(async ({base, wasm}) => {
    const br = await get(`${base}/m.wasm`, {'accept-encoding': 'br, gzip'});
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'application/wasm');
    assert.equal(Number(br.headers['content-length']), br.body.length);
    assert.ok(br.body.length < wasm.length / 2, `${br.body.length} bytes for ${wasm.length}`);
    assert.deepEqual(zlib.brotliDecompressSync(br.body), wasm);
    assert.match(br.headers.vary, /Accept-Encoding/);

    const gz = await get(`${base}/m.wasm`, {'accept-encoding': 'gzip'});
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(zlib.gunzipSync(gz.body), wasm);

    const plain = await get(`${base}/m.wasm`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, wasm);

    const small = await get(`${base}/small.js`, {'accept-encoding': 'br'});
    assert.equal(small.headers['content-encoding'], undefined);
    const gzFile = await get(`${base}/data.gz`, {'accept-encoding': 'br'});
    assert.equal(gzFile.headers['content-encoding'], undefined);
    assert.deepEqual(zlib.gunzipSync(gzFile.body), wasm);

    const head = await get(`${base}/m.wasm`, {'accept-encoding': 'br'}, 'HEAD');
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-length'], br.headers['content-length']);
  });
});

test('revalidation: 304 without a body while the file is unchanged, its new bytes once it changes', async () => {
  await withServer(async ({base, root}) => {
    const first = await get(`${base}/m.wasm`, {'accept-encoding': 'gzip'});
    assert.equal(first.headers['cache-control'], 'no-cache');
    const etag = first.headers.etag;
    assert.ok(etag);
    const again = await get(`${base}/m.wasm`, {'accept-encoding': 'gzip', 'if-none-match': etag});
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, etag);

    const changed = Buffer.from('changed contents, longer than before '.repeat(40));
    fs.writeFileSync(path.join(root, 'm.wasm'), changed);
    fs.utimesSync(path.join(root, 'm.wasm'), new Date(), new Date(Date.now() + 5000));
    const fresh = await get(`${base}/m.wasm`, {'accept-encoding': 'gzip', 'if-none-match': etag});
    assert.equal(fresh.status, 200);
    assert.notEqual(fresh.headers.etag, etag);
    assert.deepEqual(zlib.gunzipSync(fresh.body), changed);
  });
});

test('nothing outside the root, however the path is spelt', async () => {
  await withServer(async ({base}) => {
    for (const p of ['/../glint-serve-outside.txt', '/%2e%2e/glint-serve-outside.txt',
                     '/..%2fglint-serve-outside.txt', '/%2e%2e%2fglint-serve-outside.txt']) {
      const r = await get(`${base}${p}`);
      assert.ok(r.status === 403 || r.status === 404, `${p}: ${r.status}`);
      assert.ok(!r.body.toString().includes('secret'), p);
    }
  });
});
