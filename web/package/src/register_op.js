// tf.registerOp / tf.deregisterOp: graph-model ops written in JS. The engine
// loads a model with such an op once it is registered and, running it, calls
// opFunc({inputs, attrs}) (glint_register_graph_op, web/bindings/api_custom.cpp):
// inputs the node's input tensors, attrs its attributes decoded as TF.js
// gives them. The op's work, made of ops, records on the tape as any op's.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, tidy, dispose} from './tensor.js';
import {own, handOver} from './js_objects.js';

/** Registers opFunc for graph models loaded from now on (in place of a built-in op of that name too). */
export function registerOp(name, opFunc) {
  if (typeof name !== 'string' || !name) throw new GlintError(`[registerOp] name must be a non-empty string, got ${String(name)}`);
  if (typeof opFunc !== 'function') throw new GlintError(`[registerOp] op '${name}' needs a function, got ${typeof opFunc}`);
  const objId = core.registerFn({
    call(ids, attrs) {
      const inputs = ids.map(own);
      try {
        const outputs = tidy(() => {
          const r = opFunc({inputs, attrs: attrs ?? {}});
          if (r && typeof r.then === 'function') {
            throw new GlintError(`[registerOp] op '${name}' returned a Promise: glint-ml runs graph ops ` +
                'synchronously (return the tensors)');
          }
          const list = Array.isArray(r) ? r : [r];
          list.forEach((t, i) => {
            if (!(t instanceof Tensor) || t.id === null) {
              throw new GlintError(`[registerOp] op '${name}' output ${i} must be a float32, int32 or bool Tensor, ` +
                  `got ${t instanceof Tensor ? t.dtype : typeof t}`);
            }
          });
          return list;
        });
        try {
          return {ids: outputs.map(handOver)};
        } finally {
          dispose(outputs.filter((t) => !inputs.includes(t)));
        }
      } finally {
        dispose(inputs);
      }
    },
  });
  core.callInt(() => core.module()._glint_register_graph_op(core.str(name), objId));
}

/** Forgets a registered op: later loads and runs use the built-in op of that name, if any. */
export function deregisterOp(name) {
  core.callInt(() => core.module()._glint_deregister_graph_op(core.str(name)));
}
