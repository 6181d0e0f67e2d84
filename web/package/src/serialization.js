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

/**
 * TF.js's registry view: getMap().classNameMap holds [class, fromConfig] for
 * every class registered here (register is registerClass).
 */
export class SerializationMap {
  constructor() {
    this.classNameMap = {};
  }
  static getMap() {
    SerializationMap.instance ??= new SerializationMap();
    return SerializationMap.instance;
  }
  static register(cls) {
    return register(cls);
  }
}

function register(cls) {
  registerClass(cls);
  SerializationMap.getMap().classNameMap[getRegisteredName(cls)] = [cls, cls.fromConfig];
  return cls;
}

export const serialization = {registerClass: register, Serializable, getRegisteredName, SerializationMap};
