// Activation layers with arguments, Dot/Maximum/Minimum, RepeatVector, the
// noise layers (identity at inference: these cases check their configs load
// and save both ways) and the preprocessing layers Rescaling, CenterCrop and
// CategoryEncoding. Subtract is Keras-only (TF.js lacks it): see
// tests/unit/layers_act_test.cpp.
const seq = (tf, ...layers) => tf.sequential({layers});

// TF.js's CenterCrop and CategoryEncoding write their output size into the
// input shape they are given (computeOutputShape edits it in place), which
// breaks a model whose first layer they are: a Reshape to the same shape
// goes first.
const behindReshape = (tf, shape, layer) =>
  seq(tf, tf.layers.reshape({targetShape: shape, inputShape: shape}), layer);

function twoInputs(tf, shapes, layer) {
  const inputs = shapes.map((shape) => tf.input({shape}));
  return tf.model({inputs, outputs: layer.apply(inputs)});
}

export const cases = [
  // ReLU and friends.
  {name: 'act_relu_default', inputs: [{shape: [3, 5], low: -2, high: 2}],
   build: (tf) => seq(tf, tf.layers.reLU({inputShape: [5]}))},
  {name: 'act_relu_max_value', inputs: [{shape: [4, 2, 3], low: -2, high: 2}],
   build: (tf) => seq(tf, tf.layers.reLU({maxValue: 0.5, inputShape: [2, 3]}))},
  {name: 'act_leaky_relu_default', inputs: [{shape: [3, 7], low: -2, high: 2}],
   build: (tf) => seq(tf, tf.layers.leakyReLU({inputShape: [7]}))},
  {name: 'act_leaky_relu_alpha', inputs: [{shape: [2, 3, 5], low: -2, high: 2}],
   build: (tf) => seq(tf, tf.layers.leakyReLU({alpha: 0.05, inputShape: [3, 5]}))},
  {name: 'act_prelu_default', inputs: [{shape: [3, 5]}],
   build: (tf) => seq(tf, tf.layers.prelu({inputShape: [5]}))},
  {name: 'act_prelu_shared_axes', inputs: [{shape: [2, 3, 4, 5]}],
   build: (tf) => seq(tf, tf.layers.prelu({sharedAxes: [1, 2], inputShape: [3, 4, 5]}))},
  {name: 'act_prelu_shared_axis_int', inputs: [{shape: [2, 3, 5]}],
   build: (tf) => seq(tf, tf.layers.prelu({sharedAxes: 1, alphaInitializer: 'ones', inputShape: [3, 5]}))},
  {name: 'act_elu_default', inputs: [{shape: [3, 7], low: -3, high: 2}],
   build: (tf) => seq(tf, tf.layers.elu({inputShape: [7]}))},
  {name: 'act_thresholded_relu_default', inputs: [{shape: [3, 7], low: -2, high: 3}],
   build: (tf) => seq(tf, tf.layers.thresholdedReLU({inputShape: [7]}))},
  {name: 'act_thresholded_relu_theta', inputs: [{shape: [2, 3, 5], low: -1, high: 1}],
   build: (tf) => seq(tf, tf.layers.thresholdedReLU({theta: 0.25, inputShape: [3, 5]}))},
  // TF.js's softmax op takes only the last axis: the default axis 1 on
  // [batch, features]; other single axes are checked in layers_act_test.cpp.
  {name: 'act_softmax_default_axis1', inputs: [{shape: [4, 5], low: -3, high: 3}],
   build: (tf) => seq(tf, tf.layers.softmax({inputShape: [5]}))},
  {name: 'act_softmax_last_axis', inputs: [{shape: [2, 3, 5], low: -3, high: 3}],
   build: (tf) => seq(tf, tf.layers.softmax({axis: -1, inputShape: [3, 5]}))},
  {name: 'act_softmax_axis_list', inputs: [{shape: [2, 3, 4, 2], low: -3, high: 3}],
   build: (tf) => seq(tf, tf.layers.softmax({axis: [1, 2], inputShape: [3, 4, 2]}))},
  {name: 'act_softmax_axis_list_one', inputs: [{shape: [2, 3, 5], low: -3, high: 3}],
   build: (tf) => seq(tf, tf.layers.softmax({axis: [2], inputShape: [3, 5]}))},

  // RepeatVector.
  {name: 'act_repeat_vector', inputs: [{shape: [2, 5]}],
   build: (tf) => seq(tf, tf.layers.repeatVector({n: 3, inputShape: [5]}))},
  {name: 'act_repeat_vector_then_lstm', inputs: [{shape: [3, 4]}],
   build: (tf) => seq(tf, tf.layers.repeatVector({n: 2, inputShape: [4]}),
                      tf.layers.simpleRNN({units: 3, returnSequences: true}))},

  // Noise layers: inference is the identity.
  {name: 'act_gaussian_noise', inputs: [{shape: [3, 5]}],
   build: (tf) => seq(tf, tf.layers.gaussianNoise({stddev: 0.3, inputShape: [5]}),
                      tf.layers.dense({units: 2}))},
  {name: 'act_gaussian_dropout', inputs: [{shape: [3, 5]}],
   build: (tf) => seq(tf, tf.layers.gaussianDropout({rate: 0.4, inputShape: [5]}))},
  {name: 'act_alpha_dropout', inputs: [{shape: [3, 2, 5]}],
   build: (tf) => seq(tf, tf.layers.alphaDropout({rate: 0.2, inputShape: [2, 5]}))},
  {name: 'act_spatial_dropout1d', inputs: [{shape: [2, 4, 3]}],
   build: (tf) => seq(tf, tf.layers.spatialDropout1d({rate: 0.5, inputShape: [4, 3]}))},

  // Rescaling.
  {name: 'act_rescaling', inputs: [{shape: [2, 3, 3, 2], low: 0, high: 255}],
   build: (tf) => seq(tf, tf.layers.rescaling({scale: 1 / 127.5, offset: -1, inputShape: [3, 3, 2]}))},
  {name: 'act_rescaling_no_offset_int', inputs: [{shape: [2, 5], dtype: 'int32', low: 0, high: 255}],
   build: (tf) => seq(tf, tf.layers.rescaling({scale: 0.5, inputShape: [5]}))},

  // CenterCrop: crops and TF.js's one-column offset (TF.js fails to resize up).
  {name: 'act_center_crop', inputs: [{shape: [2, 7, 6, 2]}],
   build: (tf) => behindReshape(tf, [7, 6, 2], tf.layers.centerCrop({height: 3, width: 4}))},
  {name: 'act_center_crop_excess_one', inputs: [{shape: [1, 5, 5, 1]}],
   build: (tf) => behindReshape(tf, [5, 5, 1], tf.layers.centerCrop({height: 4, width: 4}))},
  {name: 'act_center_crop_to_one', inputs: [{shape: [2, 6, 9, 3]}],
   build: (tf) => behindReshape(tf, [6, 9, 3], tf.layers.centerCrop({height: 1, width: 1}))},
  {name: 'act_center_crop_same', inputs: [{shape: [1, 4, 3, 2]}],
   build: (tf) => behindReshape(tf, [4, 3, 2], tf.layers.centerCrop({height: 4, width: 3}))},

  // CategoryEncoding.
  {name: 'act_category_encoding_multi_hot', inputs: [{shape: [3, 4], dtype: 'int32', low: 0, high: 6}],
   build: (tf) => behindReshape(tf, [4], tf.layers.categoryEncoding({numTokens: 6}))},
  {name: 'act_category_encoding_count', inputs: [{shape: [4, 5], dtype: 'int32', low: 0, high: 3}],
   build: (tf) => behindReshape(tf, [5], tf.layers.categoryEncoding({numTokens: 3, outputMode: 'count'}))},
  {name: 'act_category_encoding_one_hot', inputs: [{shape: [5, 1], dtype: 'int32', low: 0, high: 7}],
   build: (tf) => behindReshape(tf, [1], tf.layers.categoryEncoding({numTokens: 7, outputMode: 'oneHot'}))},
  {name: 'act_category_encoding_float_ids', inputs: [{shape: [3, 4], low: 0, high: 5}],
   build: (tf) => behindReshape(tf, [4], tf.layers.categoryEncoding({numTokens: 5, outputMode: 'count'}))},

  // Dot.
  {name: 'act_dot_vectors', inputs: [{shape: [3, 4]}, {shape: [3, 4]}],
   build: (tf) => twoInputs(tf, [[4], [4]], tf.layers.dot({axes: 1}))},
  {name: 'act_dot_normalize', inputs: [{shape: [3, 5]}, {shape: [3, 5]}],
   build: (tf) => twoInputs(tf, [[5], [5]], tf.layers.dot({axes: -1, normalize: true}))},
  {name: 'act_dot_matrices_last', inputs: [{shape: [2, 3, 4]}, {shape: [2, 5, 4]}],
   build: (tf) => twoInputs(tf, [[3, 4], [5, 4]], tf.layers.dot({axes: 2}))},
  {name: 'act_dot_matrices_first', inputs: [{shape: [2, 3, 4]}, {shape: [2, 3, 5]}],
   build: (tf) => twoInputs(tf, [[3, 4], [3, 5]], tf.layers.dot({axes: 1}))},
  {name: 'act_dot_pair_axes', inputs: [{shape: [2, 3, 4]}, {shape: [2, 5, 3]}],
   build: (tf) => twoInputs(tf, [[3, 4], [5, 3]], tf.layers.dot({axes: [1, 2], normalize: true}))},
  {name: 'act_dot_mixed_rank', inputs: [{shape: [2, 3, 4]}, {shape: [2, 4]}],
   build: (tf) => twoInputs(tf, [[3, 4], [4]], tf.layers.dot({axes: [2, 1]}))},
  {name: 'act_dot_mixed_rank_other', inputs: [{shape: [2, 4]}, {shape: [2, 4, 3]}],
   build: (tf) => twoInputs(tf, [[4], [4, 3]], tf.layers.dot({axes: [1, 1]}))},

  // Maximum, Minimum.
  {name: 'act_maximum_two', inputs: [{shape: [3, 5]}, {shape: [3, 5]}],
   build: (tf) => twoInputs(tf, [[5], [5]], tf.layers.maximum())},
  {name: 'act_maximum_three', inputs: [{shape: [2, 3, 2]}, {shape: [2, 3, 2]}, {shape: [2, 3, 2]}],
   build: (tf) => twoInputs(tf, [[3, 2], [3, 2], [3, 2]], tf.layers.maximum())},
  {name: 'act_minimum_two', inputs: [{shape: [3, 5]}, {shape: [3, 5]}],
   build: (tf) => twoInputs(tf, [[5], [5]], tf.layers.minimum())},
];
