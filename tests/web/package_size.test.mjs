// The package's download (issue 28): what a page fetches for glint-ml on one
// thread (package JS, glue, .wasm), gzip -9, stays within the budget that
// bench/size.mjs declares; a change that grows it past fails here and must cut
// something or raise the budget on purpose, with a reason in its commit.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import {BUDGET_GZ, DOWNLOADS, sizesOf} from '../../bench/size.mjs';

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

test('glint-ml on one thread downloads no more than its budget (gzip -9)', () => {
  const files = DOWNLOADS['glint-ml, single thread (any page)'];
  const rows = files.map((f) => ({f, ...sizesOf(f)}));
  const gz = rows.reduce((s, r) => s + r.gz, 0);
  assert.ok(gz <= BUDGET_GZ, `${kib(gz)} > budget ${kib(BUDGET_GZ)}: ` +
            rows.map((r) => `${r.f.split('/').pop()} ${kib(r.gz)}`).join(', '));
});

test('the sizes are of the bytes: gzip and brotli of a known buffer', () => {
  const dir = fs.mkdtempSync('/tmp/glint-size-');
  const file = `${dir}/x.bin`;
  const bytes = Buffer.alloc(100000, 7);
  fs.writeFileSync(file, bytes);
  const s = sizesOf(file);
  assert.equal(s.raw, 100000);
  assert.equal(s.gz, zlib.gzipSync(bytes, {level: 9}).length);
  assert.ok(s.br > 0 && s.br < 200, `brotli of a run of one byte: ${s.br}`);
  fs.rmSync(dir, {recursive: true, force: true});
});
