// Tensor handles crossing between the engine and a JS object it calls
// (custom_grad.js, custom_layer.js): arguments arrive as handles C++ keeps,
// results leave as handles C++ takes.
import * as core from './core.js';
import {Tensor, Variable} from './tensor.js';

/** A JS tensor of its own for a handle the engine keeps. */
export function own(id) {
  return new Tensor(core.callInt(() => core.module()._glint_tensor_clone(id)));
}

/** A handle for the engine to take; the JS tensor stays the caller's. */
export function handOver(t) {
  return core.callInt(() => core.module()._glint_tensor_clone(t.id));
}

/**
 * Disposes results already handed over, except variables and tensors the
 * caller still holds (`held`: saved tensors, inputs).
 */
export function disposeHandedOver(tensors, held = []) {
  for (const t of tensors) if (!(t instanceof Variable) && !held.includes(t)) t.dispose();
}

/** A list of tensors, or a GlintError from message(). */
export function tensorList(value, message) {
  const list = Array.isArray(value) ? value : [value];
  if (!list.length || !list.every((t) => t instanceof Tensor)) throw new core.GlintError(message());
  for (const t of list) t._assertLive();
  return list;
}
