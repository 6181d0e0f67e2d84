// The kernel fuzzer (tests/kernel_fuzz) on webgpu in node through Dawn,
// against reference: tests/kernel_fuzz_async runs each call and starts its
// reads, tests/kernel_fuzz_async/fuzz_driver.mjs waits for them. The
// regressions, then a fixed seed for a fixed budget, twice on a software
// adapter (SwiftShader's Vulkan driver): with the kernels it gets, and with
// the GPU forms a real GPU gets (forced). On a GPU (GLINT_FUZZ_GPU=1, the
// H200) once, as it comes. Needs build/wasm/glint_kernel_fuzz_async.js
// (make test-web builds it).
import test from 'node:test';
import assert from 'node:assert/strict';

import {cover, fuzz, loadFuzzer, regressionLines, REGRESSIONS, replay, summaryText, tallies} from
    '../kernel_fuzz_async/fuzz_driver.mjs';

const SECONDS = Number(process.env.GLINT_FUZZ_SECONDS ?? 8);
const onGpu = process.env.GLINT_FUZZ_GPU === '1';

for (const [force, seed] of onGpu ? [[false, 11]] : [[false, 11], [true, 12]]) {
  test(`kernel fuzz on webgpu in node${force ? ', GPU kernel forms forced' : ''}: regressions and seed ${seed} ` +
       `for ${SECONDS} s agree with reference`, async () => {
    const {M, close} = await loadFuzzer({forceGpuKernels: force});
    try {
      const lines = regressionLines(REGRESSIONS);
      const failures = await replay(M, lines);
      const run = await fuzz(M, {seconds: SECONDS, seed: String(seed)});
      failures.push(...run.failures);
      // Then each generator until every webgpu kernel has run: counted
      // draws, so the same on a slow machine.
      const covered = await cover(M, {seed: String(seed + 100)});
      failures.push(...covered.failures);
      const t = tallies(M);
      console.log(summaryText(t, 'webgpu'));
      assert.ok(lines.length >= 10, `only ${lines.length} regression lines`);
      assert.deepEqual(failures.map((f) => f.text), []);
      const idle = Object.entries(t.generators).filter(([, g]) => g.cases === 0).map(([name]) => name);
      assert.ok(Object.keys(t.generators).length >= 10, 'fewer generators than the fuzzer has');
      assert.deepEqual(idle, [], 'generators without a valid case');
      assert.deepEqual(covered.missing, [], 'webgpu kernels no call reached');
    } finally {
      close();
    }
  });
}
