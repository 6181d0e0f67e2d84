// Writes the graph-model ops TF.js 4.22's converter runs (its op lists,
// @tensorflow/tfjs-converter/dist/operations/op_list/*.js, one tfOpName per
// entry) as a JSON list, for GraphInterop.EveryTfjsGraphOpIsKnownAndDocumented.
// Usage: node tfjs_graph_ops.mjs OUT_FILE
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';

const out = process.argv[2];
if (!out) throw new Error('usage: node tfjs_graph_ops.mjs OUT_FILE');
const require = createRequire(import.meta.url);
const listDir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-converter/package.json')),
                          'dist/operations/op_list');
const names = new Set();
for (const file of fs.readdirSync(listDir).filter((f) => f.endsWith('.js'))) {
  // Each file is `export const json = [...]` (ES module syntax in a package
  // node loads as CommonJS): the array is evaluated on its own.
  const text = fs.readFileSync(path.join(listDir, file), 'utf8');
  const body = text.replace(/\/\/# sourceMappingURL=.*/, '').replace(/^\s*export const json\s*=/m, 'return ');
  for (const op of new Function(body)()) names.add(op.tfOpName);
}
if (names.size < 200) throw new Error(`tfjs_graph_ops: only ${names.size} ops found in ${listDir}`);
fs.mkdirSync(path.dirname(out), {recursive: true});
fs.writeFileSync(out, JSON.stringify([...names].sort()));
console.log(`tfjs_graph_ops: ${names.size} TF.js graph-model ops`);
