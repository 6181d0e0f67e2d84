// The Layers API: layers are C++ objects behind handles, built from the same
// argument objects TF.js takes ({units: 10, activation: 'relu', inputShape: [784]}).
import * as core from './core.js';
import {GlintError} from './core.js';
import {Tensor, Variable, dispose} from './tensor.js';

const layerRegistry = typeof FinalizationRegistry === 'function' ?
    new FinalizationRegistry((id) => core.isReady() && core.module()._glint_layer_release(id)) :
    null;
const symbolicRegistry = typeof FinalizationRegistry === 'function' ?
    new FinalizationRegistry((id) => core.isReady() && core.module()._glint_symbolic_release(id)) :
    null;

/** A placeholder in a functional graph (glint.input, layer.apply on one). */
export class SymbolicTensor {
  constructor(id) {
    this.id = id;
    const info = core.callJson(() => core.module()._glint_symbolic_info(id));
    this.shape = info.shape;
    this.dtype = info.dtype;
    this.name = info.name;
    symbolicRegistry?.register(this, id);
  }
}

export function input(args) {
  return new SymbolicTensor(core.callInt(() => core.module()._glint_input(core.json(args))));
}

/** Arguments as JSON: layers and tensors inside them are not serialisable. */
export function argsJson(op, args) {
  return JSON.stringify(args ?? {}, (key, value) => {
    if (value instanceof Layer || value instanceof Tensor || value instanceof SymbolicTensor) {
      throw new GlintError(`[${op}] argument '${key}' cannot be an object here`);
    }
    if (typeof value === 'function') {
      throw new GlintError(`[${op}] argument '${key}' is a function: pass a name ` +
          `(e.g. activation: 'relu', kernelInitializer: 'glorotUniform')`);
    }
    return value;
  });
}

const camel = (k) => k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
// Enum values TF.js writes in camelCase in a config (the engine keeps Keras's).
const CAMEL_VALUES = new Set(['mode', 'distribution']);

/** The engine's Keras config (snake_case, class_name) as TF.js's getConfig returns it. */
export function tfjsConfig(value) {
  if (Array.isArray(value)) return value.map(tfjsConfig);
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    const key = k === 'class_name' ? 'className' : camel(k);
    out[key] = CAMEL_VALUES.has(k) && typeof v === 'string' ? camel(v) : tfjsConfig(v);
  }
  return out;
}

// custom_layer.js: subclasses of Layer (TF.js's custom layers).
let custom = null;
export function setCustomLayers(c) {
  custom = c;
}

// Classes of built-in layers with methods of their own (rnn.js: RNN), by class name.
const layerClasses = new Map();
export function setLayerClass(className, cls) {
  layerClasses.set(className, cls);
}

/** A Layer for an engine handle: the JS instance itself for a custom layer. */
export function layerFromHandle(id) {
  const own = custom?.instanceFor(id);
  if (own) return own;
  const cls = layerClasses.size ?
      layerClasses.get(core.callJson(() => core.module()._glint_layer_info_brief(id)).className) : undefined;
  return new (cls ?? Layer)(id);
}

export class Layer {
  /**
   * Built-in layers wrap an engine handle (@internal); a subclass (class
   * MyLayer extends tf.layers.Layer) passes its config object and becomes an
   * engine layer that calls its methods (custom_layer.js).
   */
  constructor(idOrConfig) {
    if (!Number.isInteger(idOrConfig)) {
      if (new.target === Layer) throw new GlintError('[layers.Layer] extend it: class MyLayer extends tf.layers.Layer');
      // custom_layer.js installs itself when index.js loads (package.json's sideEffects keeps it).
      if (!custom) throw new GlintError('[layers.Layer] custom layers need glint-ml\'s index.js loaded');
      custom.init(this, new.target, idOrConfig ?? {});
      return;
    }
    this.id = idOrConfig;
    layerRegistry?.register(this, idOrConfig, this);
  }
  /** Whether this is a custom layer (its methods are JS). */
  get _custom() {
    return this._jsObject !== undefined;
  }
  _info() {
    // A custom layer's config is its JS getConfig, which may read this info.
    const M = core.module();
    return core.callJson(() => (this._custom ? M._glint_layer_info_brief : M._glint_layer_info)(this.id));
  }
  get name() {
    return this._info().name;
  }
  getClassName() {
    return this._info().className;
  }
  /** TF.js's form of the config: camelCase keys, {className, config} for nested objects. */
  getConfig() {
    if (this._custom) {  // the base part, which a subclass's getConfig extends
      return tfjsConfig(core.callJson(() => core.module()._glint_custom_layer_base_config(this.id)));
    }
    return tfjsConfig(this._info().config);
  }
  /** Output shape(s) for input shape(s), null for unknown sizes; a subclass overrides it. */
  computeOutputShape(inputShape) {
    if (this._custom) return inputShape;  // TF.js's default
    return custom.engineOutputShape(this, inputShape);
  }
  /** A subclass creates its weights here (addWeight); built-in layers build on first apply. */
  build(inputShape) {
    if (!this._custom) throw new GlintError(`[${this.name}] build: built-in layers build on their first apply`);
  }
  /** The forward computation: a subclass overrides it; built-in layers run eagerly, as apply. */
  call(inputs, kwargs = {}) {
    return this._custom ? inputs : this.apply(inputs, kwargs);
  }
  /** For a subclass's build: a weight the engine trains and saves (TF.js's argument order). */
  addWeight(name, shape, dtype, initializer, regularizer, trainable, constraint) {
    if (!this._custom) throw new GlintError(`[${this.name}] addWeight: only custom layers add weights`);
    return custom.addWeight(this, {name, shape, dtype, initializer, regularizer, trainable, constraint});
  }
  /** How tf.loadLayersModel rebuilds a registered class from its config. */
  static fromConfig(cls, config) {
    return new cls(config);
  }
  get built() {
    return this._info().built;
  }
  /** TF.js's build() ends with this.built = true; the engine marks a layer built itself. */
  set built(_) {}
  get trainable() {
    return this._info().trainable;
  }
  set trainable(value) {
    core.callInt(() => core.module()._glint_layer_set_trainable(this.id, value ? 1 : 0));
  }
  countParams() {
    return this._info().countParams;
  }
  /** @internal The symbolic tensors of this layer's first call (0: inputs, 1: outputs). */
  _endpoints(which) {
    const ids = core.callIds(256, (out, max) => core.module()._glint_layer_endpoints(this.id, which, out, max));
    return ids.map((id) => new SymbolicTensor(id));
  }
  /** The symbolic input of the layer's first call (a list for several), as TF.js's layer.input. */
  get input() {
    const xs = this._endpoints(0);
    return xs.length === 1 ? xs[0] : xs;
  }
  /** The symbolic output of the layer's first call: tf.model({inputs, outputs: layer.output}) cuts a model there. */
  get output() {
    const ys = this._endpoints(1);
    return ys.length === 1 ? ys[0] : ys;
  }

  /**
   * On SymbolicTensor(s): adds this layer to a functional graph. On Tensor(s):
   * runs it now (kwargs.training selects training behaviour, e.g. dropout).
   */
  apply(inputs, kwargs = {}) {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    const M = core.module();
    const symbolic = list[0] instanceof SymbolicTensor;
    if (!list.every((x) => (x instanceof SymbolicTensor) === symbolic)) {
      throw new GlintError(`[${this.name}] apply: mix of symbolic and concrete inputs`);
    }
    const ids = core.callIds(16, (out, max) => symbolic ?
        M._glint_layer_apply_symbolic(this.id, core.ints(list.map((x) => x.id)), list.length,
                                      core.str(argsJson('apply', kwargs)), out, max) :
        M._glint_layer_apply(this.id, core.ints(list.map((x) => x.id)), list.length,
                             kwargs.training ? 1 : 0, out, max));
    const outs = ids.map((id) => symbolic ? new SymbolicTensor(id) : new Tensor(id));
    return outs.length === 1 && !Array.isArray(inputs) ? outs[0] :
        (outs.length === 1 ? outs[0] : outs);
  }

  /** Whether the layer keeps states between calls (a stateful RNN). */
  get stateful() {
    return this._custom ? false : core.callInt(() => core.module()._glint_layer_is_stateful(this.id)) === 1;
  }
  /** TF.js's base resetStates: only stateful layers have states to reset. */
  resetStates() {
    if (!this.stateful) {
      throw new GlintError(`[${this.name}] resetStates: the layer is not stateful`);
    }
  }

  /** The weights' current values (new tensors, the caller disposes them). */
  getWeights() {
    return core.callIds(4096, (out, max) => core.module()._glint_layer_get_weights(this.id, out, max)).map((id) => new Tensor(id));
  }
  setWeights(weights) {
    core.callInt(() => core.module()._glint_layer_set_weights(
        this.id, core.ints(weights.map((w) => w.id)), weights.length));
  }
  _variables(trainableOnly) {
    const infos = this._info().weights;
    const ids = core.callIds(4096, (out, max) => core.module()._glint_layer_variables(
        this.id, trainableOnly ? 1 : 0, out, max));
    const named = trainableOnly ? infos.filter((w) => w.trainable) : infos;
    return ids.map((id, i) => new Variable(id, named[i]?.name));
  }
  /** The layer's variables (kept by the layer; dispose() on them only drops the handle). */
  get weights() {
    return this._variables(false);
  }
  get trainableWeights() {
    return this._variables(true);
  }
  dispose() {
    if (this.id) {
      layerRegistry?.unregister(this);
      core.module()._glint_layer_release(this.id);
      this.id = 0;
    }
  }
}

const CLASS_NAMES = {
  inputLayer: 'InputLayer', dense: 'Dense', activation: 'Activation', dropout: 'Dropout',
  flatten: 'Flatten', reshape: 'Reshape', permute: 'Permute', embedding: 'Embedding',
  conv2d: 'Conv2D', depthwiseConv2d: 'DepthwiseConv2D', separableConv2d: 'SeparableConv2D',
  conv2dTranspose: 'Conv2DTranspose', maxPooling2d: 'MaxPooling2D',
  averagePooling2d: 'AveragePooling2D', globalAveragePooling2d: 'GlobalAveragePooling2D',
  globalMaxPooling2d: 'GlobalMaxPooling2D', zeroPadding2d: 'ZeroPadding2D',
  upSampling2d: 'UpSampling2D', batchNormalization: 'BatchNormalization',
  layerNormalization: 'LayerNormalization', simpleRNN: 'SimpleRNN', lstm: 'LSTM', gru: 'GRU',
  add: 'Add', multiply: 'Multiply', concatenate: 'Concatenate', average: 'Average',
  maximum: 'Maximum', minimum: 'Minimum', subtract: 'Subtract', dot: 'Dot',
  reLU: 'ReLU', leakyReLU: 'LeakyReLU', prelu: 'PReLU', elu: 'ELU',
  thresholdedReLU: 'ThresholdedReLU', softmax: 'Softmax', repeatVector: 'RepeatVector',
  alphaDropout: 'AlphaDropout', gaussianDropout: 'GaussianDropout', gaussianNoise: 'GaussianNoise',
  spatialDropout1d: 'SpatialDropout1D', rescaling: 'Rescaling', centerCrop: 'CenterCrop',
  resizing: 'Resizing', randomWidth: 'RandomWidth',
  categoryEncoding: 'CategoryEncoding',
  conv1d: 'Conv1D', conv3d: 'Conv3D', conv3dTranspose: 'Conv3DTranspose', cropping2D: 'Cropping2D',
  maxPooling1d: 'MaxPooling1D', averagePooling1d: 'AveragePooling1D', maxPooling3d: 'MaxPooling3D',
  averagePooling3d: 'AveragePooling3D', globalMaxPooling1d: 'GlobalMaxPooling1D',
  globalAveragePooling1d: 'GlobalAveragePooling1D',
  masking: 'Masking', simpleRNNCell: 'SimpleRNNCell', lstmCell: 'LSTMCell', gruCell: 'GRUCell',
  convLstm2d: 'ConvLSTM2D', convLstm2dCell: 'ConvLSTM2DCell',
};

export const layers = {};
for (const [fn, className] of Object.entries(CLASS_NAMES)) {
  layers[fn] = (args = {}) => new Layer(core.callInt(() => core.module()._glint_layer_create(
      core.str(className), core.str(argsJson(fn, args)))));
}
// TF.js aliases.
Object.assign(layers, {
  maxPool2d: layers.maxPooling2d, avgPool2d: layers.averagePooling2d,
  averagePool2d: layers.averagePooling2d, globalAvgPool2d: layers.globalAveragePooling2d,
  globalMaxPool2d: layers.globalMaxPooling2d, convolution2d: layers.conv2d,
  maxPool1d: layers.maxPooling1d, avgPool1d: layers.averagePooling1d,
  avgPooling1d: layers.averagePooling1d,
  avgPool3d: layers.averagePooling3d, avgPooling3d: layers.averagePooling3d,
  avgPooling2d: layers.averagePooling2d, globalMaxPool1d: layers.globalMaxPooling1d,
});

/** tf.InputSpec: what a layer accepts (dtype, shape, ndim, maxNDim, minNDim, axes). */
export class InputSpec {
  constructor(args = {}) {
    this.dtype = args.dtype;
    this.shape = args.shape;
    // A shape fixes the rank.
    this.ndim = args.shape != null ? args.shape.length : args.ndim;
    this.maxNDim = args.maxNDim;
    this.minNDim = args.minNDim;
    this.axes = args.axes || {};
  }
}
function wrapper(kind) {
  return (args = {}) => {
    const {layer, ...rest} = args;
    if (!(layer instanceof Layer)) throw new GlintError(`[${kind}] args.layer must be a Layer`);
    return new Layer(core.callInt(() => core.module()._glint_layer_wrap(
        core.str(kind), layer.id, core.str(argsJson(kind, rest)))));
  };
}
// tf.layers.Layer, the base TF.js programs extend (its constructor says why that
// fails), and tf.layers.input, as tf.input.
layers.Layer = Layer;
layers.input = input;
layers.bidirectional = wrapper('Bidirectional');
layers.timeDistributed = wrapper('TimeDistributed');
export {dispose};
