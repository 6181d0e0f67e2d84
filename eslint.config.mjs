// ESLint for every JavaScript file of the project: the recommended rules
// (undefined names, unused variables, unreachable code, ...) plus a few that
// keep the code modern. `make lint` runs it; `make test` runs it as
// test-style. Formatting is left to the authors (the code's compact
// one-line forms are deliberate); names must resolve and nothing may be dead.
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    // Build outputs and the apps' copies of the engine build (gitignored).
    ignores: ['build/**', 'node_modules/**', 'web/package/dist/**', 'web/apps/*/glint/**',
              'web/apps/digits/model/**', 'web/apps/digits/data/**', '.gl/**', '.h200/**'],
  },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      // The package runs in pages, workers and node; tools and tests in node.
      globals: {...globals.browser, ...globals.worker, ...globals.node},
    },
    linterOptions: {reportUnusedDisableDirectives: 'error'},
    rules: {
      // Parameters stay when they document a callback's or interface's
      // signature (callbacks.js, the Layer hooks); locals and imports may not.
      'no-unused-vars': ['error', {args: 'none', caughtErrors: 'none', ignoreRestSiblings: true,
                                   varsIgnorePattern: '^_'}],
      'no-var': 'error',
      'prefer-const': ['error', {destructuring: 'all'}],
      eqeqeq: ['error', 'smart'],
    },
  },
  {files: ['**/*.cjs'], languageOptions: {sourceType: 'commonjs'}},
  {
    // An Emscripten JS library: its functions are copied into the generated
    // glue as text, next to the runtime's own names, in the glue's ES5 style.
    files: ['src/backends/webgpu/webgpu_lib.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {GW: 'writable', Module: 'readonly', HEAP32: 'readonly', HEAPU8: 'readonly',
                HEAPU32: 'readonly', HEAPF32: 'readonly', UTF8ToString: 'readonly',
                lengthBytesUTF8: 'readonly', stringToUTF8: 'readonly', mergeInto: 'readonly',
                LibraryManager: 'readonly'},
    },
    rules: {'no-var': 'off', eqeqeq: 'off'},
  },
  {
    // Functions these files pass to page.evaluate run in the app's page,
    // where the app publishes its test hook.
    files: ['tests/browser/**', 'bench/size.mjs'],
    languageOptions: {globals: {digitsApp: 'readonly'}},
  },
  {
    // Run inside Emscripten's module (FS, ENV are its runtime's objects).
    files: ['bench/browser/bench.js', 'tests/browser/test_worker.js'],
    languageOptions: {globals: {FS: 'readonly', ENV: 'readonly'}},
  },
  {
    // An Emscripten --pre-js: copied into the glue as text, in its ES5 style.
    files: ['tests/wasm_node_env.js'],
    languageOptions: {sourceType: 'script', globals: {Module: 'writable', ENV: 'readonly'}},
    rules: {'no-var': 'off'},
  },
];
