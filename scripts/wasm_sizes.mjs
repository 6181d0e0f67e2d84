#!/usr/bin/env node
// What a WebAssembly build of Glint holds: bytes per section, per component
// (a backend, graph models, layers, JSON, the C++ runtime...) and per function,
// raw and gzip -9 (each component's function bodies compressed together: what
// it adds to the download, near enough).
//
// Function names come from the binary's name section, which release builds
// strip. --relink BUILD_DIR links BUILD_DIR's glint_web again with
// --profiling-funcs (names kept, code as optimized as the shipped build) into a
// temporary folder and reads that:
//   NODE_PATH=/usr/share/nodejs node scripts/wasm_sizes.mjs --relink build/wasm
//   node scripts/wasm_sizes.mjs web/package/dist/glint-st.wasm     (sections only)
// Options: --top N (functions listed, default 30), --json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {execFileSync, execSync} from 'node:child_process';

const SECTIONS = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start',
                  'element', 'code', 'data', 'datacount', 'tag'];

// First match wins; a std::function wrapper's name carries its lambda's enclosing function.
const COMPONENTS = [
  ['backend: cpu', /glint::cpu::/],
  ['backend: webgpu', /glint::webgpu::/],
  ['backend: gl', /glint::gl::|registerGlBackend/],
  ['graph models', /glint::graph::|GraphModel|glint::load(Nodes|Library)\b/],
  ['gradients', /glint::register\w*Gradients|glint::\w*Grad\w*\(/],
  ['layers', /glint::layers::|glint::(\(anonymous namespace\)::)?(Layer|Recurrent|RNN|ConvLSTM|GRU|LSTM|Bidirectional|TimeDistributed|StackedRNNCells|Dense|ConvND|BatchNormalization|LayerNormalization|Dot|Sequential|Functional)\b/],
  ['model, training, io', /glint::(Model|Optimizer|losses|metrics|io|initializers|constraints|regularizers|optimizerFromConfig|Adam|SGD|RMSProp)\b/],
  ['JSON (nlohmann)', /nlohmann::/],
  ['web bindings', /glint::web::|^glint_/],
  ['glint: engine and ops', /glint::/],
  ['C++ runtime (libc++)', /std::__2::|__cxa|__cxx|operator new|operator delete/],
  ['libc and the rest', /./],
];

function reader(bytes) {
  let pos = 0;
  return {
    get pos() { return pos; },
    set pos(p) { pos = p; },
    byte: () => bytes[pos++],
    u32() {
      let r = 0, shift = 0, b;
      do {
        b = bytes[pos++];
        r += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
      return r;
    },
    skipLimits() {
      const flags = this.u32();
      this.u32();
      if (flags & 1) this.u32();
    },
    name() {
      const n = this.u32();
      const s = Buffer.from(bytes.subarray(pos, pos + n)).toString();
      pos += n;
      return s;
    },
  };
}

/** {sections: [{name, bytes}], functions: [{name, bytes, body}]} */
export function readWasm(bytes) {
  if (bytes.readUInt32LE(0) !== 0x6d736100) throw new Error('not a WebAssembly binary');
  const r = reader(bytes);
  r.pos = 8;
  const sections = [], bodies = [], names = new Map();
  let imported = 0;
  while (r.pos < bytes.length) {
    const id = r.byte(), size = r.u32(), start = r.pos, end = start + size;
    let label = SECTIONS[id] ?? `section ${id}`;
    if (id === 2) {
      for (let i = 0, n = r.u32(); i < n; ++i) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) {
          r.u32();
          ++imported;
        } else if (kind === 1) {
          r.byte();
          r.skipLimits();
        } else if (kind === 2) {
          r.skipLimits();
        } else if (kind === 3) {
          r.pos += 2;
        } else if (kind === 4) {
          r.byte();
          r.u32();
        }
      }
    } else if (id === 10) {
      for (let i = 0, n = r.u32(); i < n; ++i) {
        const s = r.u32();
        bodies.push(bytes.subarray(r.pos, r.pos + s));
        r.pos += s;
      }
    } else if (id === 0) {
      const name = r.name();
      label = `custom "${name}"`;
      if (name === 'name') {
        while (r.pos < end) {
          const sub = r.byte(), subEnd = r.u32() + r.pos;
          if (sub === 1) {
            for (let i = 0, n = r.u32(); i < n; ++i) {
              const index = r.u32();
              names.set(index, r.name());
            }
          }
          r.pos = subEnd;
        }
      }
    }
    sections.push({name: label, bytes: size});
    r.pos = end;
  }
  const functions = bodies.map((body, i) => ({name: names.get(imported + i) ?? null, bytes: body.length, body}));
  return {sections, functions, named: names.size > 0};
}

const gz = (buffers) => zlib.gzipSync(Buffer.concat(buffers), {level: 9}).length;

export function summarize(bytes, top = 30) {
  const {sections, functions, named} = readWasm(bytes);
  const out = {total: {raw: bytes.length, gz: gz([bytes])}, sections, named};
  if (!named) return out;
  const groups = new Map(COMPONENTS.map(([name]) => [name, {name, functions: 0, raw: 0, bodies: []}]));
  for (const f of functions) {
    const [name] = COMPONENTS.find(([, re]) => re.test(f.name ?? ''));
    const g = groups.get(name);
    ++g.functions;
    g.raw += f.bytes;
    g.bodies.push(f.body);
  }
  out.components = [...groups.values()].filter((g) => g.functions > 0)
      .map(({name, functions: n, raw, bodies}) => ({name, functions: n, raw, gz: gz(bodies)}))
      .sort((a, b) => b.raw - a.raw);
  out.largest = [...functions].sort((a, b) => b.bytes - a.bytes).slice(0, top)
      .map((f) => ({bytes: f.bytes, name: f.name}));
  return out;
}

/** Links BUILD_DIR's glint_web again with names kept; returns the .wasm's path. */
function relink(buildDir) {
  const commands = execFileSync('ninja', ['-C', buildDir, '-t', 'commands', 'glint_web'], {encoding: 'utf8'})
      .trim().split('\n');
  const link = commands.at(-1).replace(/^: && /, '').replace(/ && :$/, '');
  const m = link.match(/ -o (\S+\.mjs) /);
  if (!m) throw new Error(`no -o NAME.mjs in the link command of glint_web in ${buildDir}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glint-sizes-'));
  const out = path.join(dir, path.basename(m[1]));
  execSync(link.replace(m[0], ` --profiling-funcs -o ${out} `), {cwd: buildDir, stdio: 'inherit'});
  return out.replace(/\.mjs$/, '.wasm');
}

function main(argv) {
  const opts = {top: 30, json: false, relink: null, file: null};
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--top') opts.top = Number(argv[++i]);
    else if (argv[i] === '--json') opts.json = true;
    else if (argv[i] === '--relink') opts.relink = argv[++i];
    else opts.file = argv[i];
  }
  const file = opts.relink ? relink(opts.relink) : opts.file;
  if (!file) {
    console.error('usage: node scripts/wasm_sizes.mjs FILE.wasm | --relink BUILD_DIR [--top N] [--json]');
    process.exit(2);
  }
  const bytes = fs.readFileSync(file);
  if (opts.relink) fs.rmSync(path.dirname(file), {recursive: true, force: true});
  const s = summarize(bytes, opts.top);
  if (opts.json) {
    console.log(JSON.stringify({file, ...s}, null, 1));
    return;
  }
  const kb = (n) => (n / 1024).toFixed(1).padStart(8);
  console.log(`${file}: ${kb(s.total.raw)} KiB raw, ${kb(s.total.gz)} KiB gzip -9`);
  console.log('\nsections (KiB raw)');
  for (const x of s.sections) console.log(`${kb(x.bytes)}  ${x.name}`);
  if (!s.named) {
    console.log('\n(no function names: link with --profiling-funcs, or use --relink BUILD_DIR)');
    return;
  }
  console.log('\ncomponents: functions, KiB raw, KiB gzip -9 (their bodies compressed together)');
  for (const c of s.components) console.log(`${String(c.functions).padStart(6)} ${kb(c.raw)} ${kb(c.gz)}  ${c.name}`);
  console.log(`\nthe ${opts.top} largest functions (bytes)`);
  for (const f of s.largest) console.log(`${String(f.bytes).padStart(8)}  ${(f.name ?? '?').slice(0, 150)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
