// Custom layers, as TF.js programs write them: class MyLayer extends
// tf.layers.Layer with build/call/computeOutputShape/getConfig. The engine
// holds a JsLayer (web/bindings/api_custom.cpp) that calls these methods;
// addWeight makes engine variables, so fit trains them through the ops call
// runs, and save/load keeps them. tf.serialization.registerClass lets a loaded
// model.json name the class.
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, Variable, tidy} from './tensor.js';
import {ops} from './ops.js';

const cast = (x, dtype) => ops.cast(x, dtype);
import {Layer, setCustomLayers, tfjsConfig} from './layers.js';
import {own, handOver, disposeHandedOver, tensorList} from './js_objects.js';

// The config keys the engine's Layer reads; a subclass's own keys stay in JS.
const BASE_KEYS = ['name', 'trainable', 'inputShape', 'batchInputShape', 'batchSize', 'inputDim', 'dtype'];

/**
 * What TF.js's addWeight returns: a variable with read() and write(). Also
 * made as TF.js's tf.LayerVariable is: new LayerVariable(value, dtype, name,
 * trainable, constraint) (the constraint kept for the caller: fit applies a
 * layer's own).
 */
export class LayerVariable extends Variable {
  constructor(val, dtype = 'float32', name = 'Variable', trainable = true, constraint = null) {
    if (!(val instanceof Tensor)) {
      super(val, dtype);  // (engine id, full name): addWeight's form
      this.originalName = dtype;
      return;
    }
    if (typeof name !== 'string' || !name) throw new GlintError(`[LayerVariable] name must be a string, got ${String(name)}`);
    const initial = tidy(() => (val.dtype === dtype ? val.clone() : cast(val, dtype)));
    const id = core.callInt(() => core.module()._glint_variable(initial.id, trainable ? 1 : 0, core.str(name)));
    initial.dispose();
    super(id, name);
    this.originalName = name;
    this.trainable = trainable;
    this.constraint = constraint;
  }
  read() {
    this._assertLive();
    return this;
  }
  write(value) {
    this.assign(value);
    return this;
  }
}

const instances = new Map();  // JS object id -> layer instance

function classNameOf(cls) {
  return cls.className || cls.name;
}

// Shapes come from the engine as a list; TF.js passes one shape for one input.
const oneOrList = (list) => (list.length === 1 ? list[0] : list);

/** A shape or a list of shapes from JS as the engine's list of shapes. */
function shapeList(value, what) {
  if (!Array.isArray(value)) throw new GlintError(`[${what}] computeOutputShape must return a shape, got ${JSON.stringify(value)}`);
  return value.length && value.every(Array.isArray) ? value : [value];
}

function methodsFor(layer) {
  const what = () => `${layer.getClassName()} '${layer.name}'`;
  return {
    build(_, shapes) {
      layer.build(oneOrList(shapes));
    },
    call(ids, kwargs) {
      const xs = ids.map(own);
      try {
        const out = tidy(() => tensorList(layer.call(oneOrList(xs), kwargs),
            () => `[${what()}] call must return a tensor or a list of tensors`));
        const handles = out.map(handOver);
        disposeHandedOver(out, xs);
        return {ids: handles};
      } finally {
        for (const x of xs) x.dispose();
      }
    },
    computeOutputShape(_, shapes) {
      return {json: shapeList(layer.computeOutputShape(oneOrList(shapes)), what())};
    },
    getConfig() {
      return {json: layer.getConfig()};
    },
    // As an RNN cell (rnn.js): a size or a list of sizes, null when it has none.
    stateSize() {
      return {json: layer.stateSize ?? null};
    },
    release() {
      for (const [id, l] of instances) if (l === layer) instances.delete(id);
    },
  };
}

function init(layer, cls, config) {
  if (typeof config !== 'object') {
    throw new GlintError(`[${classNameOf(cls)}] the layer's config must be an object, got ${typeof config}`);
  }
  const base = {};
  for (const k of BASE_KEYS) if (config[k] !== undefined && config[k] !== null) base[k] = config[k];
  const objId = core.registerFn(methodsFor(layer));
  // Set before the engine call: the engine may ask for the class name.
  layer._jsObject = objId;
  instances.set(objId, layer);
  layer.id = core.callInt(() => core.module()._glint_custom_layer_create(
      core.str(classNameOf(cls)), core.json(base), objId));
}

function instanceFor(id) {
  const objId = core.callInt(() => core.module()._glint_custom_layer_object(id));
  const layer = instances.get(objId);
  if (!layer) return null;
  if (layer.id) core.module()._glint_layer_release(id);
  else layer.id = id;  // its own handle was disposed: this one serves
  return layer;
}

/** initializer/regularizer/constraint arguments as the engine reads them. */
function configArg(value) {
  if (value === undefined || value === null || typeof value === 'string') return value ?? undefined;
  if (typeof value.getClassName === 'function' && typeof value.getConfig === 'function') {
    return {class_name: value.getClassName(), config: value.getConfig()};
  }
  throw new GlintError(`[addWeight] expected a name or an initializer/regularizer/constraint object, got ${JSON.stringify(value)}`);
}

function addWeight(layer, spec) {
  const args = {...spec, initializer: configArg(spec.initializer),
    regularizer: configArg(spec.regularizer), constraint: configArg(spec.constraint)};
  if (args.dtype === null) delete args.dtype;
  if (args.trainable === null) delete args.trainable;
  const id = core.callInt(() => core.module()._glint_custom_layer_add_weight(layer.id, core.json(args)));
  return new LayerVariable(id, `${layer.name}/${spec.name}`);
}

function engineOutputShape(layer, inputShape) {
  const list = shapeList(inputShape, layer.name);
  const out = core.callJson(() => core.module()._glint_layer_compute_output_shape(layer.id, core.json(list)));
  return oneOrList(out);
}

setCustomLayers({init, instanceFor, addWeight, engineOutputShape});

/**
 * tf.serialization.registerClass(cls): a model.json naming cls.className
 * rebuilds the layer with cls.fromConfig(cls, config).
 */
export function registerClass(cls) {
  if (typeof cls !== 'function') {
    throw new GlintError(`[serialization.registerClass] expects a class, got ${typeof cls}`);
  }
  const name = classNameOf(cls);
  if (!(cls.prototype instanceof Layer)) {
    throw new GlintError(`[serialization.registerClass] '${name}': only layers (class extends ` +
        'tf.layers.Layer) can be registered; custom initializers, regularizers and constraints ' +
        'run in the engine: use the built-in ones (tf.initializers, tf.regularizers, tf.constraints)');
  }
  if (typeof name !== 'string' || !name) {
    throw new GlintError('[serialization.registerClass] the class needs a name: static get className()');
  }
  const objId = core.registerFn({
    fromConfig(_, config) {
      const layer = cls.fromConfig(cls, tfjsConfig(config));
      if (!(layer instanceof cls)) {
        throw new GlintError(`[${name}] fromConfig must return a ${name}, got ${layer?.constructor?.name ?? typeof layer}`);
      }
      return {json: {layer: layer.id}};
    },
  });
  core.callInt(() => core.module()._glint_custom_layer_register(core.str(name), objId));
  return cls;
}
