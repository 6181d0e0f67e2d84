// The measured backend choice (C++: src/core/calibration.cpp): a model's
// training step timed on each fast backend, the fastest kept. Here in JS
// because a step's read is awaited (WebGPU in node has no blocking read); the
// engine snapshots and restores the weights and the optimizer's state, and
// records what was measured so backendInfo() reports it.
import * as core from './core.js';
import {GlintError} from './core.js';
import {setBackend, getBackend} from './engine.js';
import {webgpuSettleVariables} from './webgpu.js';
import {now} from './util.js';

/** The backends a calibration times by default: available, not reference, not software. */
export function calibrationCandidates() {
  return core.callJson(() => core.module()._glint_backend_info()).calibrationCandidates;
}

/** True until setBackend or a calibration chose the backend on purpose. */
export function backendChosenAutomatically() {
  return core.callJson(() => core.module()._glint_backend_info()).chosenAutomatically;
}

/**
 * Times model.trainOnBatch(xs, ys) on each candidate backend ({candidates, warmup = 2,
 * runs = 5, budgetMs = 500}), makes the fastest active and resolves to what it measured:
 * {what, timings: [{backend, msPerStep, runs, error}], chosen}. The weights and the
 * optimizer's state are put back afterwards.
 */
export async function calibrateBackend(model, xs, ys, options = {}) {
  const {candidates = calibrationCandidates(), warmup = 2, runs = 5, budgetMs = 500} = options;
  if (!Array.isArray(candidates) || candidates.length === 0) {
    throw new GlintError('[calibrateBackend] candidates must be a non-empty array of backend names');
  }
  if (!(Number.isInteger(warmup) && warmup >= 0 && Number.isInteger(runs) && runs >= 1 && budgetMs >= 0)) {
    throw new GlintError(`[calibrateBackend] warmup must be an integer >= 0, runs >= 1 and budgetMs >= 0: ` +
                         `got ${warmup}, ${runs}, ${budgetMs}`);
  }
  const M = core.module();
  const before = getBackend();
  // WebGPU in node cannot read synchronously: variables it changed get their
  // host copies first, so that another backend can take them over.
  await webgpuSettleVariables(M);
  const snapshot = core.callInt(() => M._glint_model_snapshot_training(model.id));
  const restore = (release) => core.callInt(() => M._glint_model_restore_training(model.id, snapshot, release));
  const timings = [];
  try {
    for (const backend of candidates) {
      const t = {backend, msPerStep: -1, runs: 0, error: ''};
      try {
        // Each backend starts from the same weights (whose buffers can be read
        // anywhere: uploads keep their bytes), not from the last one's results.
        restore(0);
        await setBackend(backend);
        for (let i = 0; i < warmup; ++i) await model.trainOnBatchLogs(xs, ys);
        let total = 0;
        while (t.runs < runs && (t.runs === 0 || total < budgetMs)) {
          const t0 = now();
          await model.trainOnBatchLogs(xs, ys);  // resolves once its loss is read back
          total += now() - t0;
          t.runs++;
        }
        t.msPerStep = total / t.runs;
      } catch (e) {
        t.error = String(e?.message ?? e);
        t.runs = 0;
      }
      timings.push(t);
    }
  } finally {
    restore(1);
  }
  const ran = timings.filter((t) => t.msPerStep >= 0);
  if (ran.length === 0) {
    await setBackend(before);
    throw new GlintError('[calibrateBackend] the step failed on every backend: ' +
                         timings.map((t) => `${t.backend}: ${t.error}`).join('; '));
  }
  const chosen = ran.reduce((a, b) => (b.msPerStep < a.msPerStep ? b : a)).backend;
  const n = xs[0]?.shape?.[0] ?? 0;
  const result = {what: `${model.getClassName?.() ?? 'Model'} '${model.name}' training step, batch ${n}`,
                  timings, chosen};
  core.callInt(() => M._glint_record_calibration(core.str(JSON.stringify(result))));
  return result;
}
