// package.json's sideEffects against the sources: a module imported only for
// what it does when loaded (`import './x.js'`) must be listed, or bundlers
// drop it from production builds (esbuild warns; webpack and rollup do not).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/package');

test('every module imported for its effects is in sideEffects', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const listed = new Set(pkg.sideEffects);
  const missing = [];
  for (const file of fs.readdirSync(path.join(pkgDir, 'src'))) {
    const text = fs.readFileSync(path.join(pkgDir, 'src', file), 'utf8');
    for (const m of text.matchAll(/^import\s+['"]\.\/([\w.]+)['"];/gm)) {
      if (!listed.has(`./src/${m[1]}`)) missing.push(`${file} imports ./${m[1]} bare`);
    }
  }
  assert.deepEqual(missing, []);
  for (const entry of listed) assert.ok(fs.existsSync(path.join(pkgDir, entry)), `sideEffects lists ${entry}, which is missing`);
});
