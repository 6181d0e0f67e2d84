// tf.serialization: TF.js registers JS classes (custom layers, initializers,
// regularizers, constraints) so that loading can rebuild them. Glint's layers
// and their parts are engine objects, and the engine cannot call JS classes
// yet, so registering one says so at once, naming the class, rather than
// failing later inside a model.
import {GlintError} from './core.js';

function registerClass(cls) {
  const name = cls?.className ?? cls?.name ?? String(cls);
  throw new GlintError(`[serialization.registerClass] '${name}': custom classes are not supported ` +
      '(layers, initializers, regularizers and constraints run in the engine); use the built-in ' +
      'ones, or ops with tf.variable for the custom part');
}

export const serialization = {registerClass};
