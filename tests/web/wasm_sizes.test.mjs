// scripts/wasm_sizes.mjs (what a .wasm holds, issue 28): on a module written
// here byte by byte, with an imported function (names index imports first)
// and a name section; and on the shipped build, whose sections must add up.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {readWasm, summarize} from '../../scripts/wasm_sizes.mjs';

const str = (s) => [s.length, ...Buffer.from(s)];
const section = (id, bytes) => [id, bytes.length, ...bytes];

test('functions, their sizes and names, imports counted before them', () => {
  const names = [...str('name'), 1, ...(() => {
    const entries = [3, 0, ...str('env.f'), 1, ...str('a'), 2, ...str('glint::cpu::x()')];
    return [entries.length, ...entries];
  })()];
  const bytes = Buffer.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 0, 0]),                                   // type () -> ()
    ...section(2, [1, ...str('env'), ...str('f'), 0, 0]),               // import env.f
    ...section(3, [2, 0, 0]),                                         // two functions
    ...section(10, [2, 2, 0, 0x0b, 4, 0, 0x01, 0x01, 0x0b]),           // bodies of 2 and 4 bytes
    ...section(0, names),
  ]);
  const w = readWasm(bytes);
  assert.deepEqual(w.functions.map((f) => [f.name, f.bytes]), [['a', 2], ['glint::cpu::x()', 4]]);
  assert.deepEqual(w.sections.map((s) => s.name), ['type', 'import', 'function', 'code', 'custom "name"']);
  const s = summarize(bytes);
  assert.deepEqual(s.components.map((c) => [c.name, c.functions, c.raw]),
                   [['backend: cpu', 1, 4], ['libc and the rest', 1, 2]]);
  assert.equal(s.largest[0].name, 'glint::cpu::x()');
});

test('the shipped single-thread build: sections and their headers are the whole file', () => {
  const file = new URL('../../web/package/dist/glint-st.wasm', import.meta.url);
  const bytes = fs.readFileSync(file);
  const w = readWasm(bytes);
  const leb = (n) => Math.max(1, Math.ceil(Math.log2(n + 1) / 7));
  const total = 8 + w.sections.reduce((sum, s) => sum + 1 + leb(s.bytes) + s.bytes, 0);
  // The linker may pad a section's size field (5-byte LEB): at most 4 bytes more each.
  assert.ok(total <= bytes.length && bytes.length - total <= 4 * w.sections.length, `${total} vs ${bytes.length}`);
  const code = w.sections.find((s) => s.name === 'code').bytes;
  const bodies = w.functions.reduce((sum, f) => sum + f.bytes, 0);
  assert.ok(w.functions.length > 1000 && bodies < code && code - bodies <= 5 * (w.functions.length + 1));
});
