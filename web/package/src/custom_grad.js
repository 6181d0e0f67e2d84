// tf.customGrad: a function whose gradient is a JS function. The engine runs
// f without recording its ops and, on a tape, calls gradFunc in the backward
// pass (glint_custom_grad, web/bindings/api_custom.cpp). What f saved lives
// until the engine drops the gradient: when the tape is done, or at once when
// nothing records.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, asTensor, tidy, keep, dispose} from './tensor.js';
import {own, handOver, disposeHandedOver, tensorList} from './js_objects.js';

/**
 * customGrad(f) -> g: g(...inputs) is f's value; f(...inputs, save) returns
 * {value, gradFunc(dy, saved) -> gradient(s), one per input}.
 */
export function customGrad(f) {
  if (typeof f !== 'function') throw new GlintError(`[customGrad] expects a function, got ${typeof f}`);
  return (...args) => {
    const inputs = args.map((x, i) => asTensor(x, 'customGrad', `inputs[${i}]`));
    const temporary = inputs.filter((t, i) => t !== args[i]);
    try {
      const objId = core.registerFn(gradientObject(f, inputs.length));
      return new Tensor(core.callInt(() => core.module()._glint_custom_grad(
          objId, core.ints(inputs.map((t) => t.id)), inputs.length)));
    } finally {
      dispose(temporary);
    }
  };
}

function gradientObject(f, nInputs) {
  let saved = [];
  let gradFunc = null;
  const save = (tensors) => {
    tensorList(tensors, () => '[customGrad] save expects an array of tensors');
    dispose(saved);
    // Handles of their own: f's tidy and the caller may dispose the originals.
    saved = tensors.map((t) => keep(t.clone()));
  };
  return {
    forward(ids) {
      const xs = ids.map(own);
      try {
        const value = tidy(() => {
          const r = f(...xs, save);
          if (!r || !(r.value instanceof Tensor)) {
            throw new GlintError('[customGrad] f must return {value: Tensor, gradFunc}, got ' +
                (r && typeof r === 'object' ? `an object with keys ${Object.keys(r).join(', ')}` : typeof r));
          }
          if (typeof r.gradFunc !== 'function') {
            throw new GlintError(`[customGrad] f's gradFunc must be a function, got ${typeof r.gradFunc}`);
          }
          gradFunc = r.gradFunc;
          return r.value;
        });
        const id = handOver(value);
        disposeHandedOver([value], saved);
        return {ids: [id]};
      } finally {
        dispose(xs);
      }
    },
    backward([dyId]) {
      const dy = own(dyId);
      try {
        const grads = tidy(() => tensorList(gradFunc(dy, saved),
            () => `[customGrad] gradFunc must return a tensor or a list of ${nInputs} tensors`));
        if (grads.length !== nInputs) {
          disposeHandedOver(grads, [...saved, dy]);
          throw new GlintError(`[customGrad] gradFunc returned ${grads.length} gradient(s) for ` +
              `${nInputs} input(s)`);
        }
        const out = grads.map(handOver);
        disposeHandedOver(grads, saved);
        return {ids: out};
      } finally {
        dy.dispose();
      }
    },
    release() {
      dispose(saved);
      saved = [];
      gradFunc = null;
    },
  };
}
