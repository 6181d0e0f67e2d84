// Reads `glint kernels --json` on stdin; fails unless every kernel is on every backend.
import { readFileSync } from 'node:fs';

const table = JSON.parse(readFileSync(0, 'utf8'));
const missing = [];
for (const [kernel, backends] of Object.entries(table.kernels)) {
  for (const b of table.backends) if (!backends.includes(b)) missing.push(`${kernel} on ${b}`);
}
const n = Object.keys(table.kernels).length;
if (n === 0 || table.backends.length === 0) {
  console.error('kernel table is empty');
  process.exit(1);
}
if (missing.length) {
  console.error(`missing kernels: ${missing.join(', ')}`);
  process.exit(1);
}
console.log(`kernel table: ${n} kernels on ${table.backends.join(', ')}, none missing`);
