// Masks (Masking, Embedding maskZero) through the recurrent layers and
// wrappers, and the generic RNN layer with its cells.
const seq = (tf, layer, inputShape) => tf.sequential({layers: [layer(inputShape)]});

// [2, 5, 3] with padding: row 0 ends in two all-zero steps, row 1 has one in
// the middle and one where only some features are zero (not masked).
const padded = {shape: [2, 5, 3], values: [
  0.5, -0.2, 0.9, 0.1, 0.4, -0.7, -0.3, 0.8, 0.2, 0, 0, 0, 0, 0, 0,
  -0.6, 0.3, 0.1, 0, 0, 0, 0.7, -0.5, 0.4, 0, 0.2, 0, 0.9, 0.1, -0.8]};
// The same, padded with -1 instead.
const paddedMinus1 = {shape: padded.shape, values: padded.values.map((v, i) =>
  (Math.floor(i / 3) === 3 || Math.floor(i / 3) === 4 || Math.floor(i / 3) === 6) ? -1 : v)};

export const cases = [
  // ---- Masks ----
  {name: 'rnn_masking_lstm_seq', inputs: [padded], build: (tf) => tf.sequential({layers: [
    tf.layers.masking({inputShape: [5, 3]}),
    tf.layers.lstm({units: 4, returnSequences: true})]})},
  {name: 'rnn_masking_value_gru_last', inputs: [paddedMinus1], build: (tf) => tf.sequential({layers: [
    tf.layers.masking({maskValue: -1, inputShape: [5, 3]}),
    tf.layers.gru({units: 3, goBackwards: true})]})},
  {name: 'rnn_masking_simplernn_state', inputs: [padded], build: (tf) => {
    const x = tf.input({shape: [5, 3]});
    const m = tf.layers.masking().apply(x);
    const [y, h] = tf.layers.simpleRNN({units: 2, returnState: true, returnSequences: true}).apply(m);
    return tf.model({inputs: x, outputs: [y, h]});
  }},
  {name: 'rnn_embedding_mask_zero_lstm', inputs: [{shape: [3, 6], dtype: 'int32', low: 0, high: 4}],
   build: (tf) => tf.sequential({layers: [
     tf.layers.embedding({inputDim: 4, outputDim: 3, maskZero: true, inputShape: [6]}),
     tf.layers.lstm({units: 2})]})},
  {name: 'rnn_embedding_mask_zero_dense_gru', inputs: [{shape: [2, 5], dtype: 'int32', low: 0, high: 3}],
   build: (tf) => tf.sequential({layers: [
     tf.layers.embedding({inputDim: 3, outputDim: 4, maskZero: true, inputShape: [5]}),
     tf.layers.dense({units: 3, activation: 'tanh'}),
     tf.layers.gru({units: 2, returnSequences: true})]})},
  {name: 'rnn_masking_bidirectional_concat', inputs: [padded], build: (tf) => tf.sequential({layers: [
    tf.layers.masking({inputShape: [5, 3]}),
    tf.layers.bidirectional({layer: tf.layers.lstm({units: 2, returnSequences: true})})]})},
  {name: 'rnn_masking_bidirectional_sum_last', inputs: [padded], build: (tf) => tf.sequential({layers: [
    tf.layers.masking({inputShape: [5, 3]}),
    tf.layers.bidirectional({layer: tf.layers.gru({units: 3}), mergeMode: 'sum'})]})},
  {name: 'rnn_masking_time_distributed', inputs: [padded], build: (tf) => tf.sequential({layers: [
    tf.layers.masking({inputShape: [5, 3]}),
    tf.layers.timeDistributed({layer: tf.layers.dense({units: 4})}),
    tf.layers.simpleRNN({units: 3})]})},
  {name: 'rnn_masking_alone', inputs: [padded], build: (tf) => seq(tf, (s) => tf.layers.masking({inputShape: [5, 3]}))},

  // ---- RNN with cells ----
  {name: 'rnn_cell_lstm', inputs: [{shape: [2, 4, 3]}], build: (tf) => seq(tf, () =>
    tf.layers.rnn({cell: tf.layers.lstmCell({units: 3}), inputShape: [4, 3]}))},
  {name: 'rnn_cell_gru_seq_back', inputs: [{shape: [3, 5, 2]}], build: (tf) => seq(tf, () =>
    tf.layers.rnn({cell: tf.layers.gruCell({units: 4, recurrentActivation: 'sigmoid'}), returnSequences: true,
                   goBackwards: true, inputShape: [5, 2]}))},
  {name: 'rnn_cell_simple_relu', inputs: [{shape: [2, 3, 4]}], build: (tf) => seq(tf, () =>
    tf.layers.rnn({cell: tf.layers.simpleRNNCell({units: 5, activation: 'relu', useBias: false}),
                   inputShape: [3, 4]}))},
  {name: 'rnn_cell_stacked', inputs: [{shape: [2, 4, 3]}], build: (tf) => seq(tf, () =>
    tf.layers.rnn({cell: [tf.layers.gruCell({units: 4}), tf.layers.simpleRNNCell({units: 2}),
                          tf.layers.lstmCell({units: 3})], returnSequences: true, inputShape: [4, 3]}))},
  {name: 'rnn_cell_stacked_state_back', inputs: [{shape: [2, 5, 3]}], build: (tf) => {
    const x = tf.input({shape: [5, 3]});
    const outs = tf.layers.rnn({cell: tf.layers.stackedRNNCells({cells: [
      tf.layers.lstmCell({units: 2}), tf.layers.gruCell({units: 3})]}), returnState: true,
      goBackwards: true}).apply(x);
    return tf.model({inputs: x, outputs: outs});
  }},
  {name: 'rnn_cell_masked_stacked', inputs: [padded], build: (tf) => tf.sequential({layers: [
    tf.layers.masking({inputShape: [5, 3]}),
    tf.layers.rnn({cell: [tf.layers.lstmCell({units: 3}), tf.layers.simpleRNNCell({units: 2})],
                   returnSequences: true, goBackwards: true})]})},

  // ---- ConvLSTM2D ----
  {name: 'rnn_conv_lstm2d_defaults', inputs: [{shape: [2, 3, 5, 4, 2]}], build: (tf) => seq(tf, () =>
    tf.layers.convLstm2d({filters: 3, kernelSize: 3, inputShape: [3, 5, 4, 2]}))},
  {name: 'rnn_conv_lstm2d_same_seq_back', inputs: [{shape: [1, 4, 5, 5, 3]}], build: (tf) => seq(tf, () =>
    tf.layers.convLstm2d({filters: 2, kernelSize: [3, 2], padding: 'same', returnSequences: true,
                          goBackwards: true, recurrentActivation: 'sigmoid', inputShape: [4, 5, 5, 3]}))},
  {name: 'rnn_conv_lstm2d_strides_state', inputs: [{shape: [2, 2, 7, 6, 1]}], build: (tf) => {
    const x = tf.input({shape: [2, 7, 6, 1]});
    const outs = tf.layers.convLstm2d({filters: 4, kernelSize: 2, strides: 2, returnState: true,
                                       activation: 'relu', useBias: false}).apply(x);
    return tf.model({inputs: x, outputs: outs});
  }},
  {name: 'rnn_conv_lstm2d_dilation', inputs: [{shape: [2, 3, 6, 6, 2]}], build: (tf) => seq(tf, () =>
    tf.layers.convLstm2d({filters: 2, kernelSize: 2, dilationRate: 2, padding: 'same',
                          returnSequences: true, inputShape: [3, 6, 6, 2]}))},
];
