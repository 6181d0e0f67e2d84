#!/usr/bin/env node
// Checks the include graph against the declared layers (make lint, and so
// make test). Every `#include "src/..."` in src/, web/bindings/ and tools/
// must go to the file's own layer or to one the table below lets it use;
// public headers (include/glint/) may include only each other. An upward or
// sideways include fails, naming the file, the line and the rule.
//
// The layers, bottom to top (docs/ARCHITECTURE.md explains each):
//   core, geometry        the engine; shape arithmetic shared by ops and kernels
//   ops                   op front-ends and gradients
//   backends/*            kernels; `backends` is their shared headers, backends/gpu
//                         the IR gl and webgpu print their shaders from
//   data, io              file formats
//   layers, losses, metrics, optim
//   model, graph
//   builtin               src/builtin.cpp: registers ops' gradients and backends
//   bindings, tools       web/bindings/, tools/ (may use anything)
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const backendBase = ['core', 'geometry', 'backends', 'backends/host'];
const MAY_USE = {
  'core': [],
  'geometry': [],
  'ops': ['core', 'geometry'],
  'backends': ['core', 'geometry', 'backends/host'],
  'backends/host': ['core'],
  'backends/reference': backendBase,
  // cpu reuses a few of the oracle's kernels (Cast); never the other way.
  'backends/cpu': [...backendBase, 'backends/reference'],
  // The GPU kernel layer both GPU backends print their shaders from: it
  // knows no GL or WebGPU.
  'backends/gpu': ['core'],
  'backends/gl': [...backendBase, 'backends/gpu'],
  'backends/webgpu': [...backendBase, 'backends/gpu'],
  'data': ['core'],
  'io': ['core'],
  'layers': ['core', 'geometry', 'ops', 'io'],
  'losses': ['core', 'ops'],
  'metrics': ['core', 'ops'],
  'optim': ['core', 'ops'],
  'model': ['core', 'ops', 'layers', 'io', 'data', 'losses', 'metrics', 'optim'],
  'graph': ['core', 'geometry', 'ops', 'io', 'layers', 'model'],
  'builtin': ['core', 'ops', 'backends'],
  'bindings': '*',
  'tools': '*',
};

// Engine internals (src/core/engine_state.h) are core's own; backends and
// ops use the declared services of src/core/backend_services.h. Two files
// above them still include the internals: the composition root, and the
// bindings' GPU-buffer hand-off (it makes a tensor over a buffer it adopts).
const ENGINE_STATE = 'src/core/engine_state.h';
const ENGINE_STATE_USERS = new Set([
  'src/builtin.cpp',  // defines registerBuiltins, which the engine declares and calls
  'web/bindings/api_core.cpp',
]);

/** The layer a repository path belongs to, or null outside the checked tree. */
function layerOf(rel) {
  if (rel.startsWith('web/bindings/')) return 'bindings';
  if (rel.startsWith('tools/')) return 'tools';
  if (rel === 'src/builtin.cpp') return 'builtin';
  const parts = rel.split('/');
  if (parts[0] !== 'src' || parts.length < 3) return null;
  if (parts[1] === 'backends') return parts.length > 3 ? `backends/${parts[2]}` : 'backends';
  return parts[1];
}

function* sources(dir) {
  for (const entry of fs.readdirSync(path.join(root, dir), {withFileTypes: true})) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* sources(rel);
    else if (/\.(cpp|h|cc|hpp|inc)$/.test(entry.name)) yield rel;
  }
}

const problems = [];
let files = 0, includes = 0;
for (const dir of ['include/glint', 'src', 'web/bindings', 'tools']) {
  for (const rel of sources(dir)) {
    ++files;
    const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const m = /^\s*#\s*include\s+"([^"]+)"/.exec(line);
      if (!m) return;
      ++includes;
      const target = m[1], where = `${rel}:${i + 1}`;
      if (rel.startsWith('include/glint/')) {
        if (!target.startsWith('glint/')) {
          problems.push(`${where}: public header includes "${target}" (only glint/*.h may be)`);
        }
        return;
      }
      if (!target.startsWith('src/')) return;
      if (!fs.existsSync(path.join(root, target))) {
        problems.push(`${where}: includes "${target}", which does not exist`);
        return;
      }
      const from = layerOf(rel), to = layerOf(target);
      if (!from || !to || from === to) return;
      if (target === ENGINE_STATE && !ENGINE_STATE_USERS.has(rel) && from !== 'core') {
        problems.push(`${where}: includes the engine's internals (${ENGINE_STATE}); use the ` +
                      'public engine/backend headers instead');
        return;
      }
      const allowed = MAY_USE[from];
      if (allowed === undefined) {
        problems.push(`${where}: layer '${from}' is not declared in scripts/check_layers.mjs`);
      } else if (allowed !== '*' && !allowed.includes(to)) {
        problems.push(`${where}: '${from}' includes "${target}" from '${to}', which it may not use ` +
                      `(it may use: ${allowed.join(', ') || 'nothing below it'})`);
      }
    });
  }
}

if (problems.length) {
  console.error(`check_layers: ${problems.length} include(s) against the declared layers:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`check_layers: ${includes} includes in ${files} files follow the declared layers`);
