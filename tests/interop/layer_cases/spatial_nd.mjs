// Convolution and pooling over steps (NWC) and volumes (NDHWC), and
// Cropping2D. Conv1D's 'causal' padding is not here: TF.js 4.22 builds it but
// throws when it predicts (tests/unit/layers_spatial_nd_test.cpp checks it).
const seq = (tf, layer) => tf.sequential({layers: [layer]});

export const cases = [
  // Conv1D
  {name: 'spatial_conv1d_defaults', inputs: [{shape: [2, 7, 3]}],
   build: (tf) => seq(tf, tf.layers.conv1d({filters: 4, kernelSize: 3, inputShape: [7, 3]}))},
  {name: 'spatial_conv1d_same_stride2_relu', inputs: [{shape: [2, 9, 2]}],
   build: (tf) => seq(tf, tf.layers.conv1d({filters: 3, kernelSize: [4], strides: 2, padding: 'same',
                                            activation: 'relu', inputShape: [9, 2]}))},
  {name: 'spatial_conv1d_dilated_nobias', inputs: [{shape: [1, 11, 2]}],
   build: (tf) => seq(tf, tf.layers.conv1d({filters: 2, kernelSize: 3, dilationRate: 2, useBias: false,
                                            inputShape: [11, 2]}))},
  {name: 'spatial_conv1d_dilated_same', inputs: [{shape: [2, 6, 1]}],
   build: (tf) => seq(tf, tf.layers.conv1d({filters: 2, kernelSize: 2, dilationRate: [3], padding: 'same',
                                            inputShape: [6, 1]}))},
  // Conv3D
  {name: 'spatial_conv3d_defaults', inputs: [{shape: [2, 4, 5, 3, 2]}],
   build: (tf) => seq(tf, tf.layers.conv3d({filters: 3, kernelSize: 2, inputShape: [4, 5, 3, 2]}))},
  {name: 'spatial_conv3d_same_strides', inputs: [{shape: [1, 5, 6, 7, 2]}],
   build: (tf) => seq(tf, tf.layers.conv3d({filters: 2, kernelSize: [3, 2, 3], strides: [2, 1, 3],
                                            padding: 'same', activation: 'tanh', inputShape: [5, 6, 7, 2]}))},
  {name: 'spatial_conv3d_valid_stride2', inputs: [{shape: [1, 7, 5, 6, 1]}],
   build: (tf) => seq(tf, tf.layers.conv3d({filters: 2, kernelSize: [3, 1, 2], strides: 2, inputShape: [7, 5, 6, 1]}))},
  {name: 'spatial_conv3d_dilated', inputs: [{shape: [1, 6, 5, 5, 2]}],
   build: (tf) => seq(tf, tf.layers.conv3d({filters: 1, kernelSize: 2, dilationRate: [2, 1, 2], useBias: false,
                                            inputShape: [6, 5, 5, 2]}))},
  // TF.js's 3-D 'same' padding goes negative where a stride exceeds the window.
  {name: 'spatial_conv3d_same_stride_beyond_kernel', inputs: [{shape: [1, 9, 7, 8, 2]}],
   build: (tf) => seq(tf, tf.layers.conv3d({filters: 2, kernelSize: [2, 1, 2], strides: [3, 4, 5], padding: 'same',
                                            inputShape: [9, 7, 8, 2]}))},
  // Conv3DTranspose
  {name: 'spatial_conv3d_transpose_defaults', inputs: [{shape: [2, 2, 3, 2, 3]}],
   build: (tf) => seq(tf, tf.layers.conv3dTranspose({filters: 2, kernelSize: 2, inputShape: [2, 3, 2, 3]}))},
  {name: 'spatial_conv3d_transpose_same_stride2', inputs: [{shape: [1, 3, 2, 3, 2]}],
   build: (tf) => seq(tf, tf.layers.conv3dTranspose({filters: 3, kernelSize: [3, 2, 3], strides: 2, padding: 'same',
                                                     inputShape: [3, 2, 3, 2]}))},
  {name: 'spatial_conv3d_transpose_valid_strides', inputs: [{shape: [1, 3, 3, 2, 1]}],
   build: (tf) => seq(tf, tf.layers.conv3dTranspose({filters: 2, kernelSize: [2, 3, 1], strides: [3, 2, 1],
                                                     activation: 'sigmoid', inputShape: [3, 3, 2, 1]}))},
  {name: 'spatial_conv3d_transpose_same_odd', inputs: [{shape: [1, 3, 3, 3, 2]}],
   build: (tf) => seq(tf, tf.layers.conv3dTranspose({filters: 1, kernelSize: [4, 3, 2], strides: [1, 2, 3],
                                                     padding: 'same', inputShape: [3, 3, 3, 2]}))},
  // Cropping2D
  {name: 'spatial_cropping2d_int', inputs: [{shape: [2, 5, 6, 3]}],
   build: (tf) => seq(tf, tf.layers.cropping2D({cropping: 1, inputShape: [5, 6, 3]}))},
  {name: 'spatial_cropping2d_pair', inputs: [{shape: [1, 5, 6, 2]}],
   build: (tf) => seq(tf, tf.layers.cropping2D({cropping: [2, 1], inputShape: [5, 6, 2]}))},
  {name: 'spatial_cropping2d_pairs', inputs: [{shape: [1, 7, 6, 1]}],
   build: (tf) => seq(tf, tf.layers.cropping2D({cropping: [[0, 3], [2, 1]], inputShape: [7, 6, 1]}))},
  // 1-D pooling
  {name: 'spatial_max_pooling1d_defaults', inputs: [{shape: [2, 7, 3]}],
   build: (tf) => seq(tf, tf.layers.maxPooling1d({inputShape: [7, 3]}))},
  {name: 'spatial_max_pooling1d_same_stride', inputs: [{shape: [2, 8, 2]}],
   build: (tf) => seq(tf, tf.layers.maxPooling1d({poolSize: 3, strides: 2, padding: 'same', inputShape: [8, 2]}))},
  {name: 'spatial_average_pooling1d_defaults', inputs: [{shape: [2, 9, 2]}],
   build: (tf) => seq(tf, tf.layers.averagePooling1d({inputShape: [9, 2]}))},
  {name: 'spatial_average_pooling1d_same', inputs: [{shape: [1, 7, 3]}],
   build: (tf) => seq(tf, tf.layers.averagePooling1d({poolSize: [4], strides: [3], padding: 'same', inputShape: [7, 3]}))},
  // 3-D pooling
  {name: 'spatial_max_pooling3d_defaults', inputs: [{shape: [2, 4, 5, 4, 2]}],
   build: (tf) => seq(tf, tf.layers.maxPooling3d({inputShape: [4, 5, 4, 2]}))},
  {name: 'spatial_max_pooling3d_same_strides', inputs: [{shape: [1, 5, 4, 7, 2]}],
   build: (tf) => seq(tf, tf.layers.maxPooling3d({poolSize: [3, 2, 3], strides: [2, 1, 2], padding: 'same',
                                                  inputShape: [5, 4, 7, 2]}))},
  {name: 'spatial_average_pooling3d_defaults', inputs: [{shape: [2, 4, 4, 5, 1]}],
   build: (tf) => seq(tf, tf.layers.averagePooling3d({inputShape: [4, 4, 5, 1]}))},
  {name: 'spatial_average_pooling3d_same', inputs: [{shape: [1, 5, 5, 4, 2]}],
   build: (tf) => seq(tf, tf.layers.averagePooling3d({poolSize: 3, strides: [2, 3, 1], padding: 'same',
                                                      inputShape: [5, 5, 4, 2]}))},
  {name: 'spatial_max_pooling3d_same_stride_beyond_pool', inputs: [{shape: [1, 9, 7, 8, 2]}],
   build: (tf) => seq(tf, tf.layers.maxPooling3d({poolSize: [2, 1, 2], strides: [3, 4, 5], padding: 'same',
                                                  inputShape: [9, 7, 8, 2]}))},
  {name: 'spatial_average_pooling3d_same_stride_beyond_pool', inputs: [{shape: [1, 9, 7, 8, 2]}],
   build: (tf) => seq(tf, tf.layers.averagePooling3d({poolSize: 2, strides: 3, padding: 'same', inputShape: [9, 7, 8, 2]}))},
  // Global 1-D pooling
  {name: 'spatial_global_max_pooling1d', inputs: [{shape: [3, 5, 4]}],
   build: (tf) => seq(tf, tf.layers.globalMaxPooling1d({inputShape: [5, 4]}))},
  {name: 'spatial_global_average_pooling1d', inputs: [{shape: [3, 7, 2]}],
   build: (tf) => seq(tf, tf.layers.globalAveragePooling1d({inputShape: [7, 2]}))},
  // In a stack: a small 1-D sequence model and a small volume model.
  {name: 'spatial_stack_1d', inputs: [{shape: [2, 12, 2]}], build: (tf) => tf.sequential({layers: [
    tf.layers.conv1d({filters: 4, kernelSize: 3, activation: 'relu', inputShape: [12, 2]}),
    tf.layers.maxPooling1d({poolSize: 2}),
    tf.layers.conv1d({filters: 3, kernelSize: 2, padding: 'same'}),
    tf.layers.globalAveragePooling1d()]})},
  {name: 'spatial_stack_3d', inputs: [{shape: [1, 6, 6, 6, 1]}], build: (tf) => tf.sequential({layers: [
    tf.layers.conv3d({filters: 2, kernelSize: 3, padding: 'same', activation: 'relu', inputShape: [6, 6, 6, 1]}),
    tf.layers.averagePooling3d({poolSize: 2}),
    tf.layers.conv3dTranspose({filters: 1, kernelSize: 2, strides: 2})]})},
];
