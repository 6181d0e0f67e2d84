#!/usr/bin/env node
// The package's single-file ESM build for CDNs and import maps:
//   web/package/src/index.browser.js -> web/package/dist/glint.mjs       (starts the engine on import)
//   web/package/src/index.js         -> web/package/dist/glint-lazy.mjs  (starts it at ready({...}))
//   web/package/src/worker_main.js   -> web/package/dist/worker_main.js  (glint.worker())
// Each is all of the package's JS in one module. The WebAssembly builds stay
// files of their own beside it (dist/glint-st.*, dist/glint-mt.*): the bundle
// imports the glue and fetches the wasm relative to its own URL, so a page can
//   import * as tf from 'https://cdn.example/glint-ml/dist/glint.mjs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import * as esbuild from 'esbuild';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/package');

// src/ names dist/ files as '../dist/NAME'; from dist/ they are './NAME'.
const distSiblings = {
  name: 'dist-siblings',
  setup(build) {
    build.onResolve({filter: /^\.\.\/dist\//}, (args) =>
      ({path: './' + args.path.slice('../dist/'.length), external: true}));
    // A CDN is another origin: glint.worker() starts its worker through a blob.
    build.onResolve({filter: /^\.\/worker_start\.js$/}, (args) =>
      ({path: path.join(args.resolveDir, 'worker_start_cdn.js')}));
  },
};

for (const [entry, out] of [['src/index.browser.js', 'dist/glint.mjs'], ['src/index.js', 'dist/glint-lazy.mjs'],
  ['src/worker_main.js', 'dist/worker_main.js']]) {
  await esbuild.build({
    entryPoints: [path.join(pkg, entry)],
    outfile: path.join(pkg, out),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    plugins: [distSiblings],
    logLevel: 'warning',
  });
}
