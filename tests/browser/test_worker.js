// Runs the test binary inside a dedicated Web Worker (run_tests.html?worker=1):
// there the gl backend gets its WebGL2 context from an OffscreenCanvas, as
// glint.worker() will. Output lines and the exit code go back by postMessage.
self.onmessage = (e) => {
  const { bin, args, env } = e.data;
  const exit = (code, error) => postMessage({ exit: code, error: error || null });
  self.Module = {
    arguments: args,
    locateFile: (file) => new URL(file, bin).href,  // the .wasm sits next to bin, not this script
    print: (text) => postMessage({ line: String(text) }),
    printErr: (text) => postMessage({ line: String(text) }),
    preRun: [() => { Object.assign(ENV, env); }],
    onExit: (code) => exit(code),
    onAbort: (what) => exit(1, 'abort: ' + what),
    quit: (code, toThrow) => { exit(code); throw toThrow; },
  };
  try {
    importScripts(bin);
  } catch (err) {
    exit(1, 'could not load ' + bin + ': ' + err);
  }
};
