// Gradients of JS functions: the function runs under the C++ tape (its ops are
// recorded as it calls them), then the tape runs backwards.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, asTensor} from './tensor.js';

// How many gradient functions are running. A gradient taken inside another's
// function is recorded by the outer tape (grad of grad), which may still read
// the inner value: that one is left to the engine's scopes, not disposed.
let running = 0;

function counted(f) {
  return (...args) => {
    ++running;
    try {
      return f(...args);
    } finally {
      --running;
    }
  };
}

function disposeUnlessNested(value) {
  if (running === 0) value.dispose();
}

function valueAndGradsImpl(f, xs, dy) {
  const M = core.module();
  return core.withRegisteredFn(counted(f), (fnId) => {
    const ids = core.callIds(xs.length + 1, (out) => M._glint_value_and_grads(
        fnId, core.ints(xs.map((x) => x.id)), xs.length, dy ? dy.id : 0, out));
    const [value, ...grads] = ids.map((id) => new Tensor(id));
    return {value, grads};
  });
}

function tensorsArg(op, xs) {
  if (!Array.isArray(xs)) throw new GlintError(`[${op}] expects an array of tensors`);
  return xs.map((x, i) => asTensor(x, op, `xs[${i}]`));
}

/** grad(f)(x, dy?) -> df/dx. */
export function grad(f) {
  return (x, dy) => {
    const r = valueAndGradsImpl(f, [asTensor(x, 'grad', 'x')], dy);
    disposeUnlessNested(r.value);
    return r.grads[0];
  };
}

/** grads(f)(xs, dy?) -> [df/dx_i]. */
export function grads(f) {
  return (xs, dy) => {
    const r = valueAndGradsImpl(f, tensorsArg('grads', xs), dy);
    disposeUnlessNested(r.value);
    return r.grads;
  };
}

export function valueAndGrad(f) {
  return (x, dy) => {
    const r = valueAndGradsImpl(f, [asTensor(x, 'valueAndGrad', 'x')], dy);
    return {value: r.value, grad: r.grads[0]};
  };
}

export function valueAndGrads(f) {
  return (xs, dy) => valueAndGradsImpl(f, tensorsArg('valueAndGrads', xs), dy);
}

/**
 * f() -> scalar loss; gradients with respect to varList (default: every
 * trainable variable f reads). Returns {value, grads: {name: Tensor}}.
 */
export function variableGrads(f, varList = []) {
  const M = core.module();
  return core.withRegisteredFn(counted(f), (fnId) => {
    const ids = core.callIds(1 + 2 * Math.max(varList.length, 4096), (out, max) =>
      M._glint_variable_grads(fnId, core.ints(varList.map((v) => v.id)), varList.length, out, max));
    const value = new Tensor(ids[0]);
    const grads = {};
    for (let i = 1; i < ids.length; i += 2) {
      const v = new Tensor(ids[i]);
      const name = variableName(v);
      v.dispose();
      grads[name] = new Tensor(ids[i + 1]);
    }
    return {value, grads};
  });
}

function variableName(t) {
  return core.callString(() => core.module()._glint_tensor_name(t.id));
}
