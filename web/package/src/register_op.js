// tf.registerOp / tf.deregisterOp: graph-model ops written in JS. The engine
// loads a model with such an op once it is registered and, running it, calls
// opFunc({inputs, attrs}) (glint_register_graph_op, web/bindings/api_custom.cpp):
// inputs the node's input tensors, attrs its attributes decoded as TF.js
// gives them. The op's work, made of ops, records on the tape as any op's.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, tidy, dispose} from './tensor.js';
import {own, handOver} from './js_objects.js';

// The executeAsync run now resuming (graph_model.js), or null: an op that
// returns a Promise may wait there. A run stops at the node that waits, awaits
// the Promise (run.settle) and runs the node again, which takes the result.
let asyncRun = null;
/** @internal Runs resume() with `run` as the run ops may wait in. */
export function resumingAsync(run, resume) {
  const outer = asyncRun;
  asyncRun = run;
  try {
    return resume();
  } finally {
    asyncRun = outer;
  }
}

/** @internal A run's state for async ops: the Promise it waits for and, settled, its tensors. */
export function asyncRunState() {
  const state = {
    waiting: null,  // {name, promise, inputs}: the op's inputs live until its node takes the result
    ready: null,    // {name, inputs, value} or {name, inputs, error}
    async settle() {
      const {name, promise, inputs} = state.waiting;
      state.waiting = null;
      try {
        state.ready = {name, inputs, value: await promise};
      } catch (error) {
        state.ready = {name, inputs, error};
      }
    },
  };
  return state;
}

function checkOutputs(name, r) {
  const list = Array.isArray(r) ? r : [r];
  list.forEach((t, i) => {
    if (!(t instanceof Tensor) || t.id === null) {
      throw new GlintError(`[registerOp] op '${name}' output ${i} must be a float32, int32 or bool Tensor, ` +
          `got ${t instanceof Tensor ? t.dtype : typeof t}`);
    }
  });
  return list;
}

/**
 * Registers opFunc for graph models loaded from now on (in place of a
 * built-in op of that name too). opFunc may return a Promise of its tensors
 * (TF.js's async ops): executeAsync and predictAsync await it; execute and
 * predict refuse it, with TF.js's message.
 */
export function registerOp(name, opFunc) {
  if (typeof name !== 'string' || !name) throw new GlintError(`[registerOp] name must be a non-empty string, got ${String(name)}`);
  if (typeof opFunc !== 'function') throw new GlintError(`[registerOp] op '${name}' needs a function, got ${typeof opFunc}`);
  const objId = core.registerFn({
    call(ids, attrs) {
      const inputs = ids.map(own);
      let waits = false;
      try {
        const run = asyncRun;
        // The node running again after its Promise settled: the result is ready.
        if (run?.ready && run.ready.name === name) {
          const {value, error, inputs: first} = run.ready;
          run.ready = null;
          try {
            if (error) throw error;
            const outputs = checkOutputs(name, value);
            try {
              return {ids: outputs.map(handOver)};
            } finally {
              dispose(outputs.filter((t) => !inputs.includes(t) && !first.includes(t)));
            }
          } finally {
            dispose(first);
          }
        }
        let pending = null;
        const outputs = tidy(() => {
          const r = opFunc({inputs, attrs: attrs ?? {}});
          if (r && typeof r.then === 'function') {
            pending = r;
            return [];
          }
          return checkOutputs(name, r);
        });
        if (pending) {
          if (!run) {
            pending.catch(() => {});  // nobody awaits it: no unhandled rejection
            throw new GlintError(`The execution of the op '${name}' returned a promise. ` +
                'Please use model.executeAsync() instead.');
          }
          run.waiting = {name, promise: pending, inputs};
          waits = true;  // the op still reads its inputs: they go when its node takes the result
          return {json: {pending: true}};
        }
        try {
          return {ids: outputs.map(handOver)};
        } finally {
          dispose(outputs.filter((t) => !inputs.includes(t)));
        }
      } finally {
        if (!waits) dispose(inputs);
      }
    },
  });
  core.callInt(() => core.module()._glint_register_graph_op(core.str(name), objId));
}

/** Forgets a registered op: later loads and runs use the built-in op of that name, if any. */
export function deregisterOp(name) {
  core.callInt(() => core.module()._glint_deregister_graph_op(core.str(name)));
}
