// Linked as --pre-js into the WebAssembly test binaries that node runs: their
// getenv sees Emscripten's ENV, not node's environment, so googletest's
// sharding (scripts/gtest_shards.sh) and Glint's own GLINT_* switches would
// not reach them. Only those two families are copied.
if (typeof process === 'object' && process.env) {
  Module['preRun'] = [].concat(Module['preRun'] || [], function() {
    for (var key in process.env) {
      if (/^(GTEST_|GLINT_)/.test(key)) ENV[key] = process.env[key];
    }
  });
}
