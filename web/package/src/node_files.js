// node's file:// storage: dir/model.json and its weight shards.
//
// Loading goes through the same C++ core as a native load, so node is never
// weaker than native: model.json's TEXT goes to io::parseModelJson (size and
// nesting limits) and io::artifactsFromModelJson (manifest, sizes, and
// io::checkShardPath on every shard path: no "..", no absolute paths). Each
// shard is read here, called back synchronously with the bytes the manifest
// has left for it, after the checks only the file system can answer: the
// real path stays inside the real model folder (no symlink escape), the file
// is a regular file (a FIFO would block forever, /dev/zero never ends), and
// its size fits the budget BEFORE a byte is read.
//
// Saving writes a new weights file and model.json (each tmp + fsync +
// rename, model.json last: the switch), then removes only the old shards it
// can prove Glint wrote: never model.json, never a user's file.
import * as core from './core.js';
import {GlintError, quoteForError} from './core.js';
import {artifactsFromEngineJson} from './model.js';
import {nodeModules} from './platform.js';

/** io::LoadOptions::maxModelJsonBytes: the same limit as a native load. */
export const MAX_MODEL_JSON_BYTES = 64 * 1024 * 1024;

/** What save names its weights file; the only names a later save may remove. */
const OWN_SHARD = /^weights-[0-9a-z]+-[0-9]+\.bin$/;


function locate(path, dirOrJson) {
  const isJson = dirOrJson.endsWith('.json');
  const dir = isJson ? path.dirname(dirOrJson) : dirOrJson;
  return {dir, json: isJson ? dirOrJson : path.join(dir, 'model.json')};
}

function kindOf(st) {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of `file` when it is a regular file of at most maxBytes: opened
 * without blocking (a FIFO cannot hang the open), its type and size checked on
 * the open descriptor before any read, and at most size + 1 bytes read (a
 * file that grows meanwhile is refused, not followed).
 * `what` names it in messages ("weight shard file"), `tooBig(size)` words the size error.
 */
function readRegularFile(fs, file, maxBytes, what, source, tooBig, extraFlags = 0) {
  const c = fs.constants;
  let fd;
  try {
    fd = fs.openSync(file, c.O_RDONLY | c.O_NONBLOCK | extraFlags);
  } catch (e) {
    if (e.code === 'ENOENT') {
      throw new GlintError(`[io.load] ${source}: ${what} '${quoteForError(file)}' is missing`);
    }
    throw new GlintError(`[io.load] ${source}: cannot open ${what} '${quoteForError(file)}': ` +
        `${e.code ?? e.message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      throw new GlintError(`[io.load] ${source}: ${what} '${quoteForError(file)}' is ` +
          `${kindOf(st)}, not a regular file`);
    }
    if (st.size > maxBytes) throw new GlintError(tooBig(st.size));
    const buf = Buffer.allocUnsafe(st.size + 1);
    let got = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
      if (got === buf.length) {
        throw new GlintError(`[io.load] ${source}: ${what} '${quoteForError(file)}' grew past ` +
            `${st.size} bytes while it was read`);
      }
    }
    return buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/** model.json's text, read with the size limit and file checks of a native load. */
function readModelJson(fs, json, dirOrJson) {
  try {
    fs.lstatSync(json);
  } catch (e) {
    if (e.code === 'ENOENT') {
      throw new GlintError(`[io.load] no model at '${quoteForError(dirOrJson)}': expected a ` +
          'directory holding model.json, or a .json file');
    }
  }
  const bytes = readRegularFile(fs, json, MAX_MODEL_JSON_BYTES, 'model file', json,
      (size) => `[io.load] ${json} is ${size} bytes, more than LoadOptions.maxModelJsonBytes ` +
          `(${MAX_MODEL_JSON_BYTES})`);
  return bytes.toString('utf8');
}

/**
 * The reader the C++ loader calls for each shard path (already normalized by
 * io::checkShardPath): refuses a real path outside the real model folder.
 */
function shardReader(fs, path, dir, source) {
  const realDir = fs.realpathSync(dir);
  return (shard, maxBytes) => {
    const full = path.join(dir, shard);
    let real;
    try {
      real = fs.realpathSync(full);
    } catch (e) {
      if (e.code === 'ENOENT') {
        throw new GlintError(`[io.load] ${source}: weight shard file '${quoteForError(full)}' is missing`);
      }
      throw new GlintError(`[io.load] ${source}: cannot resolve weight shard '${quoteForError(full)}': ` +
          `${e.code ?? e.message}`);
    }
    if (!real.startsWith(realDir + path.sep)) {
      throw new GlintError(`[io.load] ${source}: weight shard '${quoteForError(shard)}' resolves to ` +
          `'${quoteForError(real)}', outside the model's folder '${quoteForError(realDir)}' ` +
          '(a link out of the folder)');
    }
    // The real path: a link swapped in for its last part is refused (O_NOFOLLOW).
    return readRegularFile(fs, real, maxBytes, 'weight shard file', source,
        (size) => `[io.load] ${source}: weight shard file '${quoteForError(full)}' is ${size} ` +
            `bytes, more than the ${maxBytes} bytes the manifest has left for it`,
        fs.constants.O_NOFOLLOW ?? 0);
  };
}

/** model.json's text, its path and the shard reader for the C++ loader. */
async function prepare(dirOrJson) {
  const {fs, path} = await nodeModules('io.fileSystem');
  const {dir, json} = locate(path, dirOrJson);
  const text = readModelJson(fs, json, dirOrJson);
  return {text, json, reader: shardReader(fs, path, dir, json)};
}

/**
 * A model's handle straight from the files (loadLayersModel): no round trip
 * of the artifacts through JS objects, so a large model.json is parsed once.
 */
export async function modelHandleFromFiles(dirOrJson) {
  const {text, json, reader} = await prepare(dirOrJson);
  return core.withShardReader(reader, () => core.callInt(
      () => core.module()._glint_model_from_files(core.str(text), core.str(json))));
}

/** TF.js ModelArtifacts from dir (or a .json file) through the C++ loader. */
export async function loadFromFiles(dirOrJson) {
  const {text, json, reader} = await prepare(dirOrJson);
  const M = core.module();
  const m = core.mark();
  let modelJson, weightData;
  try {
    modelJson = JSON.parse(core.withShardReader(reader, () => core.callString(
        () => M._glint_artifacts_from_files(core.str(text), core.str(json)))));
    const lenPtr = core.outInt();
    const p = M._glint_last_bytes(lenPtr);
    weightData = core.readBytes(p, core.heapI32()[lenPtr >> 2]).buffer;
  } finally {
    core.release(m);
  }
  return artifactsFromEngineJson(modelJson, weightData);
}

/**
 * The shard files of the model.json in `json` that a save may remove: only
 * when Glint wrote that model.json, and only names Glint's saves give their
 * weights (never model.json, never a path with a folder, never a user's file).
 */
function provableOldShards(fs, json) {
  let old;
  try {
    old = JSON.parse(readRegularFile(fs, json, MAX_MODEL_JSON_BYTES, 'model file', json,
        () => 'too big').toString('utf8'));
  } catch {
    return [];  // no previous model, or one we cannot read: remove nothing
  }
  if (!old || typeof old.generatedBy !== 'string' || !old.generatedBy.startsWith('Glint')) return [];
  if (!Array.isArray(old.weightsManifest)) return [];
  const out = [];
  for (const g of old.weightsManifest) {
    for (const p of Array.isArray(g?.paths) ? g.paths : []) {
      if (typeof p === 'string' && OWN_SHARD.test(p)) out.push(p);
    }
  }
  return out;
}

function writeSynced(fs, file, data) {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, {force: true});
    throw new GlintError(`[io.save] writing '${quoteForError(file)}' failed (the previous model is ` +
        `intact): ${e.message}`);
  }
}

function syncDir(fs, dir) {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // best effort: some file systems cannot fsync a directory
  }
}

/** Saves artifacts as dir/model.json + one weights file; see the top of this file. */
export async function saveToFiles(dirOrJson, artifacts, info) {
  const {fs, path} = await nodeModules('io.fileSystem');
  const {dir, json} = locate(path, dirOrJson);
  try {
    fs.mkdirSync(dir, {recursive: true});
  } catch (e) {
    throw new GlintError(`[io.save] cannot create the folder '${quoteForError(dir)}': ` +
        `${e.code ?? e.message}`);
  }
  const {weightData, weightSpecs, ...rest} = artifacts;
  const weightsFile = `weights-${Date.now().toString(36)}-${process.pid}.bin`;
  const modelJson = {...rest, weightsManifest: [{paths: [weightsFile], weights: weightSpecs}]};
  const previous = provableOldShards(fs, json).filter((p) => p !== weightsFile);
  const data = weightData == null ? new Uint8Array(0) : weightData instanceof ArrayBuffer ?
      new Uint8Array(weightData) : new Uint8Array(weightData.buffer, weightData.byteOffset,
                                                  weightData.byteLength);
  writeSynced(fs, path.join(dir, weightsFile), data);
  writeSynced(fs, json, JSON.stringify(modelJson));  // the switch: the new model is complete
  syncDir(fs, dir);
  for (const p of previous) fs.rmSync(path.join(dir, p), {force: true});
  return {modelArtifactsInfo: info};
}
