// tf.serialization: registerClass lets a loaded model rebuild a custom layer
// (custom_layer.js).
import {registerClass} from './custom_layer.js';

/**
 * The base TF.js serializable classes extend: getClassName() is the class's
 * static className; fromConfig(cls, config) constructs one.
 */
export class Serializable {
  getClassName() {
    return this.constructor.className;
  }
  static fromConfig(cls, config) {
    return new cls(config);
  }
}

/** The name a class registers under: its static className. */
export function getRegisteredName(cls) {
  return cls.className;
}

export const serialization = {registerClass, Serializable, getRegisteredName};
