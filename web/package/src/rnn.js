// tf.layers.RNN, tf.layers.RNNCell, tf.layers.rnn and stackedRNNCells, as
// TF.js 4.22. The engine's RNN layer runs the time loop: built-in cells
// (lstmCell, gruCell, simpleRNNCell) with their fused kernels; any other cell
// (a class extending tf.layers.RNNCell with stateSize and call([x, ...states]))
// one step at a time, calling the cell's JS methods, so the tape sees its ops
// and fit trains its weights. A subclass of RNN is a custom layer that runs an
// engine RNN inside (its weights are the subclass layer's).
import * as core from './core.js';
import {GlintError} from './core.js';
import {Layer, layers, argsJson, layerFromHandle, setLayerClass, tfjsConfig} from './layers.js';
import {Tensor} from './tensor.js';
import './custom_layer.js';  // subclasses of Layer (the cells, RNN subclasses)

// An RNN's own arguments; a subclass's other arguments stay in JS.
const SEQUENCE_KEYS = ['returnSequences', 'returnState', 'goBackwards', 'stateful', 'unroll', 'timeMajor',
  'zeroOutputForMask'];

/** The base class of a JS cell: stateSize (a size or a list) and call([x, ...states]) -> [output, ...states]. */
export class RNNCell extends Layer {}

function checkCells(cells, what) {
  if (!Array.isArray(cells) || !cells.length || !cells.every((c) => c instanceof Layer)) {
    throw new GlintError(`[${what}] expects a non-empty list of cell Layers`);
  }
}

/** StackedRNNCells holding the given cells themselves (as TF.js's). */
function stackCells(args = {}) {
  const {cells, ...rest} = args;
  checkCells(cells, 'StackedRNNCells: args.cells');
  return new Layer(core.callInt(() => core.module()._glint_layer_stack_cells(
      core.ints(cells.map((c) => c.id)), cells.length, core.str(argsJson('StackedRNNCells', rest)))));
}

/** A layer from its serialized form {className, config} (registered JS classes included). */
function deserializeLayer(spec, what) {
  if (spec instanceof Layer) return spec;
  if (Array.isArray(spec)) return spec.map((s) => deserializeLayer(s, what));
  if (!spec || typeof spec !== 'object' || typeof spec.className !== 'string') {
    throw new GlintError(`[${what}] expected a Layer or {className, config}, got ${JSON.stringify(spec)}`);
  }
  return layerFromHandle(core.callInt(() => core.module()._glint_layer_create(
      core.str(spec.className), core.json(spec.config ?? {}))));
}

function pick(args, keys) {
  const out = {};
  for (const k of keys) if (args[k] !== undefined) out[k] = args[k];
  return out;
}

/**
 * tf.layers.RNN: new RNN({cell, returnSequences, returnState, goBackwards,
 * stateful, unroll}) with cell a cell Layer or a list of them (stacked).
 */
export class RNN extends Layer {
  constructor(args) {
    if (Number.isInteger(args)) {  // an engine handle (layers.js makes RNNs from handles this way)
      super(args);
      return;
    }
    if (!args || typeof args !== 'object') throw new GlintError('[RNN] expects an arguments object {cell, ...}');
    const {cell, ...rest} = args;
    if (cell == null) throw new GlintError('[RNN] args.cell is required: a cell Layer or a list of them');
    if (Array.isArray(cell)) checkCells(cell, 'RNN: args.cell');
    else if (!(cell instanceof Layer)) throw new GlintError('[RNN] args.cell must be a cell Layer or a list of them');
    const inner = Array.isArray(cell) ? stackCells({cells: cell}) : cell;
    const M = core.module();
    const wrap = (json) => core.callInt(() => M._glint_layer_wrap(core.str('RNN'), inner.id, core.str(json)));
    if (new.target === RNN) {
      super(wrap(argsJson('RNN', rest)));
    } else {
      // A subclass (TF.js's LSTM extends RNN this way): a custom layer of its
      // class that runs an engine RNN; that RNN's weights are this layer's.
      super(rest);
      this._rnn = new Layer(wrap(argsJson('RNN', pick(rest, SEQUENCE_KEYS))));
      core.callInt(() => M._glint_custom_layer_track(this.id, this._rnn.id));
    }
    this._cell = inner;
  }
  /** The engine RNN this layer is: itself, or the one a subclass runs. */
  get _engineRnn() {
    return this._rnn ?? this;
  }
  _rnnConfig() {
    return tfjsConfig(this._engineRnn._info().config);
  }
  /** The cell (a StackedRNNCells for a list of cells): a JS cell is the object given. */
  get cell() {
    return this._cell ??
        layerFromHandle(core.callInt(() => core.module()._glint_layer_rnn_cell(this._engineRnn.id)));
  }
  get returnSequences() {
    return this._rnnConfig().returnSequences;
  }
  get returnState() {
    return this._rnnConfig().returnState;
  }
  get goBackwards() {
    return this._rnnConfig().goBackwards;
  }
  get stateful() {
    return this._rnnConfig().stateful;
  }
  get unroll() {
    return this._rnnConfig().unroll;
  }
  /** A stateful RNN's current states (new tensors); nulls before there are any, as TF.js. */
  get states() {
    const M = core.module(), id = this._engineRnn.id;
    const ids = core.callIds(64, (out, max) => M._glint_layer_rnn_states(id, out, max));
    if (ids.length) return ids.map((t) => new Tensor(t));
    return Array(core.callInt(() => M._glint_layer_rnn_state_count(id))).fill(null);
  }
  /** Zeros, or the given states ([batch, size] each); only for a stateful RNN (as TF.js). */
  resetStates(states) {
    const list = states == null ? [] : Array.isArray(states) ? states : [states];
    core.callInt(() => core.module()._glint_layer_reset_states(
        this._engineRnn.id, core.ints(list.map((t) => t.id)), list.length));
  }

  // What a subclass inherits (its own layer runs the engine RNN).
  build(inputShape) {
    if (!this._rnn) return super.build(inputShape);
    const shapes = Array.isArray(inputShape[0]) ? inputShape : [inputShape];
    core.callInt(() => core.module()._glint_layer_ensure_built(this._rnn.id, core.json(shapes)));
  }
  call(inputs, kwargs = {}) {
    if (!this._rnn) return super.call(inputs, kwargs);
    return this._rnn.apply(inputs, kwargs);
  }
  computeOutputShape(inputShape) {
    if (!this._rnn) return super.computeOutputShape(inputShape);
    return this._rnn.computeOutputShape(inputShape);
  }
  /** TF.js's form: the cell's keys, the layer's, the sequence flags; the cell itself only for class RNN. */
  getConfig() {
    const own = this._rnnConfig();
    const cellConfig = own.cell?.config ?? {};
    const base = this._rnn ? super.getConfig() : own;
    const {cell, ...flags} = own;
    const seq = pick(flags, SEQUENCE_KEYS.filter((k) => k !== 'timeMajor' && k !== 'zeroOutputForMask'));
    const config = {...cellConfig, ...base, ...seq};
    delete config.cell;
    if (this.getClassName() === 'RNN') config.cell = cell;
    return config;
  }
  static fromConfig(cls, config) {
    const cell = config.cell == null ? config.cell : deserializeLayer(config.cell, `${cls.className ?? cls.name}.fromConfig`);
    return new cls({...config, cell});
  }
}
RNN.className = 'RNN';

layers.RNN = RNN;
layers.RNNCell = RNNCell;
layers.rnn = (args) => new RNN(args);
layers.stackedRNNCells = stackCells;
setLayerClass('RNN', RNN);
