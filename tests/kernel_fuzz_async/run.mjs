// The kernel fuzzer on webgpu in node (Dawn), against reference
// (docs/TESTING.md). Needs build/wasm/glint_kernel_fuzz_async.js.
//
//   node tests/kernel_fuzz_async/run.mjs [--seconds S] [--seed X] [--generator NAME]
//       [--force-gpu] [--regressions FILE] [--replay NAME:K1,K2,...] [--last-case FILE]
//
// Replays the regression file, then draws random calls for the budget,
// round-robin over the generators; prints cases per generator, the kernels
// reached on webgpu and those of its kernels no call reached, and each
// failure shrunk with the line that replays it. --force-gpu: the GPU kernel
// forms (workgroup tiles, parallel reductions) on a software adapter too.
// SwiftShader's Vulkan driver unless VK_DRIVER_FILES names another.
// --last-case: each call's replay line is written there before it runs, and
// the file removed when the run ends; a call that kills the process (a crash
// in Dawn or the driver) is left in it.
// Exit status 1 when any call failed.
import fs from 'node:fs';
import {fuzz, loadFuzzer, regressionLines, replay, setLastCaseFile, summaryText, tallies} from './fuzz_driver.mjs';

const args = {seconds: 10, seed: null, generator: '', forceGpu: false, regressions: null, replay: null, lastCase: null};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  const value = () => {
    if (i + 1 >= argv.length) {
      console.error(`${a} needs a value`);
      process.exit(2);
    }
    return argv[++i];
  };
  if (a === '--seconds') args.seconds = Number(value());
  else if (a === '--seed') args.seed = value();
  else if (a === '--generator') args.generator = value();
  else if (a === '--force-gpu') args.forceGpu = true;
  else if (a === '--regressions') args.regressions = value();
  else if (a === '--replay') args.replay = value();
  else if (a === '--last-case') args.lastCase = value();
  else {
    console.error(`unknown argument ${a} (see the comment at the top of run.mjs)`);
    process.exit(2);
  }
}
if (!/^\d+$/.test(args.seed ?? '0') || !(args.seconds >= 0)) {
  console.error('--seed wants a decimal integer and --seconds a number >= 0');
  process.exit(2);
}
args.seed ??= String(Math.floor(Math.random() * 2 ** 53));

const forms = args.forceGpu ? 'GPU kernel forms forced' : 'the kernel forms the adapter gets';
const {M, close: closeFuzzer} = await loadFuzzer({forceGpuKernels: args.forceGpu});
setLastCaseFile(args.lastCase);
const close = () => {
  closeFuzzer();
  if (args.lastCase) fs.rmSync(args.lastCase, {force: true});
};
const failures = [];
const printFailure = (f) => {
  console.log(f.text);
  failures.push(f);
};
if (args.replay) {
  (await replay(M, [args.replay])).forEach(printFailure);
  console.log(failures.length ? 'replay: FAILED' : 'replay: passed');
  close();
  process.exit(failures.length ? 1 : 0);
}
console.log(`kernel fuzz on webgpu (${forms}): seed ${args.seed}, against reference`);
if (args.regressions) {
  const lines = regressionLines(args.regressions);
  (await replay(M, lines)).forEach(printFailure);
  console.log(`regressions: ${lines.length} replayed, ${failures.length} failed`);
}
const t0 = performance.now();
const run = await fuzz(M, {seconds: args.seconds, seed: args.seed, generator: args.generator,
                           onFailure: printFailure});
const seconds = (performance.now() - t0) / 1000;
console.log(summaryText(tallies(M), `webgpu (${forms})`));
console.log(`${run.drawn} draws in ${seconds.toFixed(1)} s`);
console.log(failures.length ? 'kernel fuzz on webgpu: FAILED' : 'kernel fuzz on webgpu: passed');
close();
process.exit(failures.length ? 1 : 0);
