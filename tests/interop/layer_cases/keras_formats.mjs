// The same models in the forms Keras exporters write (keras_forms.mjs):
// Keras 3 converter output and Keras 2's leftover inner input shapes.
const reg = (tf) => ({kernelRegularizer: tf.regularizers.l2({l2: 0.01}),
                      kernelConstraint: tf.constraints.maxNorm({maxValue: 2})});

function mlp(tf) {
  return tf.sequential({layers: [
    tf.layers.dense({units: 6, activation: 'relu', inputShape: [5], ...reg(tf)}),
    tf.layers.dropout({rate: 0.2}),
    tf.layers.dense({units: 3, activation: 'softmax'})]});
}
function cnn(tf) {
  return tf.sequential({layers: [
    tf.layers.conv2d({filters: 3, kernelSize: 3, padding: 'same', activation: 'relu', inputShape: [6, 6, 2]}),
    tf.layers.batchNormalization(),
    tf.layers.maxPooling2d({poolSize: 2}),
    tf.layers.flatten(),
    tf.layers.dense({units: 2})]});
}
function branches(tf) {
  const x = tf.input({shape: [4, 3]});
  const seq = tf.layers.bidirectional({layer: tf.layers.lstm({units: 2, returnSequences: true})}).apply(x);
  const gru = tf.layers.gru({units: 3}).apply(seq);
  const rnn = tf.layers.simpleRNN({units: 2}).apply(x);
  const a = tf.layers.dense({units: 3, activation: 'tanh'}).apply(gru);
  const b = tf.layers.dense({units: 3}).apply(rnn);
  const sum = tf.layers.add().apply([a, b]);
  const cat = tf.layers.concatenate().apply([sum, rnn]);
  return tf.model({inputs: x, outputs: tf.layers.dense({units: 2}).apply(cat)});
}
function twoInputs(tf) {
  const tokens = tf.input({shape: [5]});
  const extra = tf.input({shape: [3]});
  const emb = tf.layers.flatten().apply(tf.layers.embedding({inputDim: 7, outputDim: 2}).apply(tokens));
  const cat = tf.layers.concatenate().apply([emb, extra]);
  const out1 = tf.layers.dense({units: 2, activation: 'sigmoid'}).apply(cat);
  const out2 = tf.layers.dense({units: 1}).apply(extra);
  return tf.model({inputs: [tokens, extra], outputs: [out1, out2]});
}

export const cases = [
  {name: 'keras3_mlp', rewrite: 'keras3', inputs: [{shape: [4, 5]}], build: mlp},
  {name: 'keras3_cnn', rewrite: 'keras3', inputs: [{shape: [2, 6, 6, 2]}], build: cnn},
  {name: 'keras3_recurrent_branches', rewrite: 'keras3', inputs: [{shape: [2, 4, 3]}], build: branches},
  {name: 'keras3_two_inputs', rewrite: 'keras3',
   inputs: [{shape: [3, 5], dtype: 'int32', low: 0, high: 7}, {shape: [3, 3]}], build: twoInputs},
  {name: 'keras2_inner_input_shapes', rewrite: 'keras2InnerShapes', inputs: [{shape: [4, 5]}], build: mlp},
  {name: 'keras2_inner_input_shapes_cnn', rewrite: 'keras2InnerShapes', inputs: [{shape: [2, 6, 6, 2]}], build: cnn},
];
