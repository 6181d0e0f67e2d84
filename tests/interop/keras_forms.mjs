// Rewrites a model.json that TF.js 4.22 saved into the forms other exporters
// write for the same model, so the layer parity suite can check that Glint
// reads them (TF.js's predictions stay the expected values):
//  - keras3: the tensorflowjs converter's output for a Keras 3 model
//    (DTypePolicy objects, InputLayer batch_shape, module/registered_name/
//    build_config, {args, kwargs} inbound nodes of __keras_tensor__ refs,
//    unwrapped single endpoints, Keras 3 keys at their neutral values, Keras 3
//    weight names such as "lstm/lstm_cell/kernel" and "forward_lstm/...").
//  - keras2InnerShapes: Keras 2's leftover batch_input_shape on inner layers
//    of a Sequential model, which TF.js ignores.

const policy = (name) => ({module: 'keras', class_name: 'DTypePolicy', config: {name}, registered_name: null});
const isObject = (v) => v != null && typeof v === 'object' && !Array.isArray(v);

// Extra keys Keras 3 writes, at the values that change nothing.
const keras3Extras = {
  Dense: {lora_rank: null},
  Embedding: {lora_rank: null},
  Conv2D: {groups: 1},
  Dropout: {seed: null, noise_shape: null},
  BatchNormalization: {synchronized: false},
  LSTM: {seed: null, use_cudnn: 'auto', zero_output_for_mask: false},
  GRU: {seed: null, use_cudnn: 'auto', zero_output_for_mask: false, reset_after: false},
  SimpleRNN: {seed: null, zero_output_for_mask: false},
};
const cellNames = {LSTM: 'lstm_cell', GRU: 'gru_cell', SimpleRNN: 'simple_rnn_cell'};
const moduleOf = {initializer: 'keras.initializers', regularizer: 'keras.regularizers', constraint: 'keras.constraints'};

function keras3Object(value, kind) {
  if (!isObject(value) || typeof value.class_name !== 'string') return value;
  let {class_name: cls, config} = value;
  config = {...config};
  if (kind === 'initializer' && (cls === 'Orthogonal' || cls === 'Identity')) cls += 'Initializer';
  if (kind === 'regularizer' && cls === 'L1L2') {
    if (!config.l1) { cls = 'L2'; config = {l2: config.l2}; } else if (!config.l2) { cls = 'L1'; config = {l1: config.l1}; }
  }
  return {module: moduleOf[kind], class_name: cls, config, registered_name: null};
}

function keras3LayerConfig(cls, config) {
  const out = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === 'batch_input_shape') continue;  // Keras 3 keeps shapes in InputLayer only
    if (k === 'dtype') out.dtype = policy(v ?? 'float32');
    else if (k.endsWith('_initializer')) out[k] = keras3Object(v, 'initializer');
    else if (k.endsWith('_regularizer')) out[k] = keras3Object(v, 'regularizer');
    else if (k.endsWith('_constraint')) out[k] = keras3Object(v, 'constraint');
    else if (k === 'layer' && isObject(v)) out[k] = keras3Entry(v);
    else out[k] = v;
  }
  if (cls === 'Bidirectional') {
    // Keras 3 writes the forward copy (named forward_<inner>) and the backward one.
    const inner = out.layer.config.name;
    out.layer = {...out.layer, config: {...out.layer.config, name: `forward_${inner}`}};
    out.backward_layer = {...out.layer, config: {...out.layer.config, name: `backward_${inner}`,
                                                  go_backwards: !out.layer.config.go_backwards}};
  }
  if (!('dtype' in out)) out.dtype = policy('float32');
  Object.assign(out, keras3Extras[cls] ?? {});
  return out;
}

function keras3Entry(entry) {
  const e = {module: 'keras.layers', class_name: entry.class_name,
             config: keras3LayerConfig(entry.class_name, entry.config), registered_name: null};
  if ('name' in entry) e.name = entry.name;
  return e;
}

const inputLayer = (name, batchShape, dtype) => ({
  module: 'keras.layers', class_name: 'InputLayer', registered_name: null, name,
  config: {batch_shape: batchShape, dtype: dtype ?? 'float32', sparse: false, ragged: false, name, optional: false},
});

function keras3Tensor(ref, shapes) {
  const [layer, node, index] = ref;
  return {class_name: '__keras_tensor__',
          config: {shape: shapes[layer]?.[index] ?? null, dtype: 'float32', keras_history: [layer, node, index]}};
}

/// model: the TF.js model that was saved (for the shapes Keras 3 writes into tensor refs).
export function toKeras3(modelJson, model) {
  const topology = modelJson.modelTopology;
  const cls = topology.class_name;
  const config = topology.config;
  const shapes = {};
  for (const l of model.layers) {
    const s = l.outputShape;
    shapes[l.name] = Array.isArray(s[0]) || s[0] === undefined ? s : [s];
  }
  let newConfig;
  if (cls === 'Sequential') {
    const layers = Array.isArray(config) ? config : config.layers;
    const first = layers[0].config;
    const input = inputLayer('input_layer', first.batch_input_shape, first.dtype);
    newConfig = {name: config.name ?? 'sequential', trainable: true, dtype: policy('float32'),
                 layers: [input, ...layers.map(keras3Entry)],
                 build_input_shape: first.batch_input_shape};
  } else {
    const layers = config.layers.map((entry) => {
      if (entry.class_name === 'InputLayer') {
        return {...inputLayer(entry.name, entry.config.batch_input_shape, entry.config.dtype), inbound_nodes: []};
      }
      const e = keras3Entry(entry);
      e.inbound_nodes = entry.inbound_nodes.map((node) => {
        const refs = node.map((r) => keras3Tensor(r, shapes));
        return {args: [refs.length === 1 ? refs[0] : refs], kwargs: node[0][3] ?? {}};
      });
      return e;
    });
    const unwrap = (list) => list.length === 1 ? list[0] : list;
    newConfig = {name: config.name, trainable: true, layers,
                 input_layers: unwrap(config.input_layers), output_layers: unwrap(config.output_layers)};
  }
  const renamed = keras3WeightNames(modelJson, model);
  return {
    ...modelJson,
    modelTopology: {module: 'keras', class_name: cls === 'Sequential' ? 'Sequential' : 'Functional',
                    config: newConfig, registered_name: null, keras_version: '3.6.0', backend: 'tensorflow'},
    weightsManifest: renamed,
    generatedBy: 'keras v3.6.0', convertedBy: 'TensorFlow.js Converter v4.22.0',
  };
}

// Keras 3 names a recurrent layer's weights after its cell, and a wrapped
// layer's after the wrapped layer ("forward_lstm/lstm_cell/kernel").
function keras3WeightNames(modelJson, model) {
  const rename = {};
  for (const l of model.layers) {
    const cls = l.getClassName();
    const inner = cls === 'Bidirectional' ? [['forward_', l.forwardLayer], ['backward_', l.backwardLayer]] :
        cellNames[cls] ? [['', l]] : [];
    for (const [prefix, rnn] of inner) {
      const cell = cellNames[rnn.getClassName()];
      for (const w of rnn.weights) {
        const base = w.originalName.split('/').pop();
        const innerName = cls === 'Bidirectional' ? prefix + l.layer.name : l.name;
        rename[w.originalName] = `${innerName}/${cell}/${base}`;
      }
    }
  }
  return modelJson.weightsManifest.map((g) => ({
    ...g, weights: g.weights.map((w) => ({...w, name: rename[w.name] ?? w.name})),
  }));
}

/// Keras 2 Sequential exports that carry an input shape on every layer.
export function withInnerInputShapes(modelJson) {
  const topology = structuredClone(modelJson.modelTopology);
  const layers = Array.isArray(topology.config) ? topology.config : topology.config.layers;
  const shape = layers[0].config.batch_input_shape;
  for (const entry of layers.slice(1)) entry.config.batch_input_shape = shape;
  return {...modelJson, modelTopology: topology};
}
