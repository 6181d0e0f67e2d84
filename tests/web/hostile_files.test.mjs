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

test('1: a shard path with ../ is refused, not read', async () => {
  const {dir, json} = await savedModel();
  json.weightsManifest[0].paths = ['../../../../../../etc/passwd'];
  writeJson(dir, json);
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /\[io\.load\] .*model\.json: weight shard path '\.\.\/.*must name a file relative to model\.json, inside its folder/);
});

test('2: a shard that links out of the folder is refused; links inside work', async () => {
  const {dir, json, shard} = await savedModel();
  fs.renameSync(path.join(dir, shard), path.join(dir, 'real.bin'));
  fs.symlinkSync('real.bin', path.join(dir, shard));
  await loadsIn(dir);  // a link inside the folder
  const outside = tmpDir();
  fs.writeFileSync(path.join(outside, 'secret.bin'), Buffer.alloc(8 + 24));  // the right size
  json.weightsManifest[0].paths = ['escape.bin'];
  writeJson(dir, json);
  fs.symlinkSync(path.join(outside, 'secret.bin'), path.join(dir, 'escape.bin'));
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /weight shard 'escape\.bin' resolves to .*outside the model's folder/);
  fs.symlinkSync('/etc/passwd', path.join(dir, 'passwd.bin'));
  json.weightsManifest[0].paths = ['passwd.bin'];
  writeJson(dir, json);
  await assert.rejects(glint.loadLayersModel('file://' + dir), /outside the model's folder/);
});

test('3: save removes only shards it can prove it wrote, and the model loads after', async () => {
  const {dir, json, shard} = await savedModel();
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
  fs.writeFileSync(path.join(dir, 'weights-zz-1.bin'), 'not listed: kept');
  // The previous model.json lists itself, a user's file, and its own shard.
  json.weightsManifest[0].paths = [shard, 'model.json', 'notes.txt'];
  json.weightsManifest.push({paths: [], weights: []});
  writeJson(dir, json);
  await smallModel().save('file://' + dir);
  assert.ok(fs.existsSync(path.join(dir, 'model.json')), 'model.json was removed');
  assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'mine');
  assert.ok(fs.existsSync(path.join(dir, 'weights-zz-1.bin')));
  assert.ok(!fs.existsSync(path.join(dir, shard)), 'the old Glint shard stays behind');
  await loadsIn(dir);
  // A model.json Glint did not write: none of its files is removed, even one
  // named like Glint's.
  const now = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const theirs = now.weightsManifest[0].paths[0];
  now.generatedBy = 'TensorFlow.js tfjs-layers v4.22.0';
  writeJson(dir, now);
  await smallModel().save('file://' + dir);
  assert.ok(fs.existsSync(path.join(dir, theirs)));
  await loadsIn(dir);
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.tmp-')), []);
  // A file where the folder should be: a GlintError naming it, not a bare EEXIST.
  fs.writeFileSync(path.join(dir, 'plain'), 'x');
  await assert.rejects(smallModel().save('file://' + path.join(dir, 'plain')),
                       (e) => e.name === 'GlintError' && /\[io\.save\] cannot create the folder '.*plain': EEXIST/.test(e.message));
});

test('7: a named pipe as model.json or as a shard is refused at once; a directory is named', async () => {
  const {dir, json} = await savedModel();
  execFileSync('mkfifo', [path.join(dir, 'pipe.bin')]);
  json.weightsManifest[0].paths = ['pipe.bin'];
  writeJson(dir, json);
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /weight shard file '.*pipe\.bin' is a named pipe \(FIFO\), not a regular file/);
  fs.mkdirSync(path.join(dir, 'sub.bin'));
  json.weightsManifest[0].paths = ['sub.bin'];
  writeJson(dir, json);
  await assert.rejects(glint.loadLayersModel('file://' + dir), /'.*sub\.bin' is a directory/);
  const pipeDir = tmpDir();
  execFileSync('mkfifo', [path.join(pipeDir, 'model.json')]);
  await assert.rejects(glint.loadLayersModel('file://' + pipeDir),
                       /model\.json' is a named pipe \(FIFO\), not a regular file/);
  const dirAsJson = tmpDir();
  fs.mkdirSync(path.join(dirAsJson, 'model.json'));
  await assert.rejects(glint.loadLayersModel('file://' + dirAsJson), /model\.json' is a directory/);
});

test('8: sizes are checked before reading: sparse 1.9 GB shard, /dev/zero, huge weightData', async () => {
  const {dir, json, shard} = await savedModel();
  fs.truncateSync(path.join(dir, shard), 1900 * 2 ** 20);  // 1.9 GB, sparse: nothing on disk
  const before = process.memoryUsage().rss;
  const t0 = Date.now();
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /is 1992294400 bytes, more than the 32 bytes the manifest has left for it/);
  assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`);
  assert.ok(process.memoryUsage().rss - before < 256 * 2 ** 20, 'read the shard into memory');
  fs.symlinkSync('/dev/zero', path.join(dir, 'zero.bin'));
  json.weightsManifest[0].paths = ['zero.bin'];
  writeJson(dir, json);
  await assert.rejects(glint.loadLayersModel('file://' + dir), /outside the model's folder/);
  // /dev/zero's own device node inside the folder (where mknod is allowed).
  let device = true;
  try {
    execFileSync('mknod', [path.join(dir, 'dev.bin'), 'c', '1', '5'], {stdio: 'ignore'});
  } catch {
    device = false;
  }
  if (device) {
    json.weightsManifest[0].paths = ['dev.bin'];
    writeJson(dir, json);
    await assert.rejects(glint.loadLayersModel('file://' + dir),
                         /weight shard file '.*dev\.bin' is a character device, not a regular file/);
  }
  // A handler's weightData: checked against the specs before it is copied into wasm memory.
  const artifacts = smallModel().toArtifacts();
  const big = new ArrayBuffer(1.5 * 2 ** 30);  // zero pages: not touched unless copied
  await assert.rejects(glint.loadLayersModel({load: async () => ({...artifacts, weightData: big})}),
                       /weight data is 1610612736 bytes, more than the 32 bytes the weight specs describe/);
});

test('8: the http loader checks Content-Length and stops a streamed body at its budget', async () => {
  const artifacts = smallModel().toArtifacts();
  const modelJson = {modelTopology: artifacts.modelTopology, format: 'layers-model',
                     weightsManifest: [{paths: ['w.bin'], weights: artifacts.weightSpecs}]};
  let pulled = 0;
  const endless = () => new ReadableStream({
    pull(c) {
      pulled += 1 << 20;
      c.enqueue(new Uint8Array(1 << 20));
    },
  });
  const responses = {
    'http://h/m/model.json': () => new Response(JSON.stringify(modelJson)),
    'http://h/m/w.bin': () => new Response(endless()),
  };
  const fetchFunc = async (url) => responses[url]();
  await assert.rejects(glint.loadLayersModel('http://h/m/model.json', {fetchFunc}),
                       /weight shard 'http:\/\/h\/m\/w\.bin' is more than \d+ bytes, more than the 32 bytes/);
  assert.ok(pulled <= 2 << 20, `read ${pulled} bytes of an endless body`);
  responses['http://h/m/w.bin'] = () => new Response(endless(),
                                                     {headers: {'content-length': String(2 ** 31)}});
  pulled = 0;
  await assert.rejects(glint.loadLayersModel('http://h/m/model.json', {fetchFunc}),
                       /is 2147483648 bytes, more than the 32 bytes the manifest has left/);
  assert.ok(pulled <= 1 << 20, `read ${pulled} bytes after a Content-Length over the budget`);
});

function nested(depth) {
  return '['.repeat(depth - 1) + ']'.repeat(depth - 1);
}

test('9: the 128-level nesting limit holds for files and for handlers\' objects', async () => {
  const {dir, json} = await savedModel();
  for (const depth of [130, 1000, 100000]) {
    // modelTopology is level 2, so an array there nested depth - 1 deep passes 128 at depth.
    const text = JSON.stringify({...json, userDefinedMetadata: {deep: 0}})
        .replace('{"deep":0}', `{"deep":${nested(depth)}}`);
    fs.writeFileSync(path.join(dir, 'model.json'), text);
    await assert.rejects(glint.loadLayersModel('file://' + dir),
                         /arrays\/objects nested deeper than 128 levels \(LoadOptions\.maxJsonDepth\)/);
  }
  const artifacts = smallModel().toArtifacts();
  let deep = [];
  for (let i = 0; i < 100000; ++i) deep = [deep];
  await assert.rejects(
      glint.loadLayersModel({load: async () => ({...artifacts, userDefinedMetadata: {deep}})}),
      /arrays\/objects nested deeper than 128 levels \(LoadOptions\.maxJsonDepth\) at artifacts\.userDefinedMetadata\.deep/);
  const cyclic = {};
  cyclic.self = cyclic;
  await assert.rejects(
      glint.loadLayersModel({load: async () => ({...artifacts, userDefinedMetadata: cyclic})}),
      /nested deeper than 128 levels/);
});

test('13: shard paths "." and "", a weights list that is not a list', async () => {
  const {dir, json} = await savedModel();
  for (const p of ['.', '', 'a/../..']) {
    json.weightsManifest[0].paths = [p];
    writeJson(dir, json);
    await assert.rejects(glint.loadLayersModel('file://' + dir),
                         /weight shard path '.*' must name a file relative to model\.json/);
  }
  json.weightsManifest[0].weights = 5;
  writeJson(dir, json);
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /weightsManifest\[0\] needs "paths" and "weights" arrays/);
  const artifacts = smallModel().toArtifacts();
  await assert.rejects(glint.loadLayersModel({load: async () => ({...artifacts, weightSpecs: 5})}),
                       /the manifest's weights \(weightSpecs\) must be an array of weight entries, got 5/);
});

test('13: predict on a batch of zero samples returns [0, units], as TF.js does', async () => {
  // Through a Flatten, which took its features as size / batch (0 / 1).
  const cnn = glint.sequential({layers: [
    glint.layers.conv2d({filters: 2, kernelSize: 3, inputShape: [5, 5, 1]}),
    glint.layers.flatten(),
    glint.layers.dense({units: 3}),
  ]});
  const y = cnn.predict(glint.zeros([0, 5, 5, 1]));
  assert.deepEqual(y.shape, [0, 3]);
  // Reading it back: no bytes is not a failure (it threw an empty message).
  assert.deepEqual(Array.from(y.dataSync()), []);
  assert.deepEqual(y.arraySync(), []);
  assert.deepEqual(Array.from(await y.data()), []);
});

test('5: a 70 MiB model.json of tiny weight entries fails cleanly; the module still works', async () => {
  const dir = tmpDir();
  const entry = '{"name":"w","shape":[1],"dtype":"float32"},';
  const count = Math.ceil(70 * 2 ** 20 / entry.length);
  const text = `{"modelTopology":{},"weightsManifest":[{"paths":["w.bin"],"weights":[` +
      entry.repeat(count).slice(0, -1) + ']}]}';
  fs.writeFileSync(path.join(dir, 'model.json'), text);
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /is \d+ bytes, more than LoadOptions\.maxModelJsonBytes \(67108864\)/);
  const m = smallModel();
  assert.deepEqual(m.predict(glint.ones([2, 3])).shape, [2, 2]);
});

test('14: the WebGPU self-test records a lost sign of zero and flushed denormals, refuses wrong numbers', () => {
  const ok = glint.webgpu.classifySelfTest(
      [[0x80000000, 0x00000000], [0x00000001, 0x00000000], [0x3f800000, 0x3f800000],
       [0x7fc00000, 0x7fc00001]], 500500);
  assert.equal(ok.usable, true);
  assert.deepEqual(ok.deviations, ['signed zero lost: float bits 0x80000000 came back as 0x00000000',
                                   'denormal flushed to zero: float bits 0x00000001 came back as 0x00000000']);
  const wrong = glint.webgpu.classifySelfTest([[0x3f800000, 0x3f800001], [0x7fc00000, 0]], 500500);
  assert.equal(wrong.usable, false);
  assert.match(wrong.why, /float bits 0x3f800000 came back as 0x3f800001/);
  const badSum = glint.webgpu.classifySelfTest([[0x3f800000, 0x3f800000]], 500499);
  assert.equal(badSum.usable, false);
  assert.match(badSum.why, /a sum of 1\.\.1000 gave 500499/);
});

test('5: a 60 MiB model.json (under the size limit) of tiny values fails cleanly, file or handler', async () => {
  // 31 million values: parsed, they passed the 2 GB wasm memory may grow to,
  // and the module aborted ("Aborted()", then "Maximum call stack size exceeded").
  const dir = tmpDir();
  const n = Math.floor(60 * 2 ** 20 / 2);
  const text = '{"modelTopology":{"class_name":"Sequential","config":{"layers":[]},"junk":[' +
      '1,'.repeat(n - 1) + '1]}}';
  fs.writeFileSync(path.join(dir, 'model.json'), text);
  await assert.rejects(glint.loadLayersModel('file://' + dir),
                       /model\.json holds more than 4000000 JSON values \(LoadOptions\.maxJsonValues\)/);
  await assert.rejects(glint.io.fileSystem(dir).load(), /holds more than 4000000 JSON values/);
  const artifacts = smallModel().toArtifacts();
  const junk = new Array(5e6).fill(1);
  await assert.rejects(glint.loadLayersModel({load: async () => ({...artifacts,
                                                                  userDefinedMetadata: {junk}})}),
                       /model artifacts holds more than 4000000 JSON values/);
  const m = smallModel();
  assert.deepEqual(Array.from(m.predict(glint.ones([2, 3])).dataSync()).length, 4);
});
