#pragma once
// Each family of layers registers its classes with layers::fromConfig.
namespace glint::layers {
void registerCoreLayers();  // core.cpp: InputLayer, Dense, Activation, Dropout, Flatten, Reshape, Permute, Embedding
void registerConvolutionLayers();    // convolution.cpp, pooling.cpp
void registerConvolutionNDLayers();  // convolution_nd.cpp: Conv1D, Conv3D, Conv3DTranspose
void registerPoolingNDLayers();      // pooling_nd.cpp: 1-D and 3-D pooling, Cropping2D
void registerNormalizationLayers();  // normalization.cpp
void registerRecurrentLayers();      // recurrent.cpp, wrappers.cpp
void registerMergeLayers();          // merge.cpp, merge_dot.cpp
void registerAdvancedActivationLayers();  // advanced_activations.cpp: ReLU, LeakyReLU, PReLU, ELU, ThresholdedReLU, Softmax
void registerNoiseLayers();  // noise.cpp: GaussianNoise, GaussianDropout, AlphaDropout, SpatialDropout1D
void registerPreprocessingLayers();  // preprocessing.cpp: Rescaling, CenterCrop, CategoryEncoding
void registerImageLayers();          // image_layers.cpp: Resizing, RandomWidth
void registerMaskingLayers();        // masking.cpp
void registerRnnCellLayers();        // rnn_cells.cpp: RNN, its cells, StackedRNNCells
void registerConvLstmLayers();       // conv_lstm.cpp: ConvLSTM2D, ConvLSTM2DCell
void registerModelClasses();         // src/model: Sequential, Model
}  // namespace glint::layers
