// Hostile and broken model files in node (issue 31): the file loader gives
// the same limits, checks and messages as a native load, never reads before
// checking, and a save removes only files it can prove it wrote. Every file
// is made at run time under os.tmpdir().
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as glint from '../../web/package/src/index.js';

await glint.ready();

const tmpDirs = [];
process.on('exit', () => {
  for (const d of tmpDirs) fs.rmSync(d, {recursive: true, force: true});
});
function tmpDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-hostile-'));
  tmpDirs.push(d);
  return d;
}

function smallModel() {
  return glint.sequential({layers: [glint.layers.dense({units: 2, inputShape: [3]})]});
}

/** A saved model in a new folder; returns {dir, json (parsed), shard (its file name)}. */
async function savedModel() {
  const dir = tmpDir();
  await smallModel().save('file://' + dir);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  return {dir, json, shard: json.weightsManifest[0].paths[0]};
}

function writeJson(dir, json) {
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(json));
}

async function loadsIn(dir) {
  const m = await glint.loadLayersModel('file://' + dir);
  assert.deepEqual(m.predict(glint.ones([1, 3])).shape, [1, 2]);
}

test('13: predict on a batch of zero samples returns [0, units], as TF.js does', () => {
  // Through a Flatten, which took its features as size / batch (0 / 1).
  const cnn = glint.sequential({layers: [
    glint.layers.conv2d({filters: 2, kernelSize: 3, inputShape: [5, 5, 1]}),
    glint.layers.flatten(),
    glint.layers.dense({units: 3}),
  ]});
  assert.deepEqual(cnn.predict(glint.zeros([0, 5, 5, 1])).shape, [0, 3]);
});
