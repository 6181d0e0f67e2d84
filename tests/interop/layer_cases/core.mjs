// Layer classes Glint has had from the start, so the parity suite always runs
// something and the other case files can follow this form.
export const cases = [
  {name: 'dense_tanh', inputs: [{shape: [3, 5]}], build: (tf) => tf.sequential({layers: [
    tf.layers.dense({units: 4, activation: 'tanh', inputShape: [5]})]})},
  {name: 'conv2d_same_stride2', inputs: [{shape: [2, 7, 6, 3]}], build: (tf) => tf.sequential({layers: [
    tf.layers.conv2d({filters: 4, kernelSize: 3, strides: 2, padding: 'same', inputShape: [7, 6, 3]})]})},
  {name: 'embedding_int_input', inputs: [{shape: [2, 6], dtype: 'int32', low: 0, high: 9}],
   build: (tf) => tf.sequential({layers: [tf.layers.embedding({inputDim: 9, outputDim: 3, inputShape: [6]})]})},
];
