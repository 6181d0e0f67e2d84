#pragma once
// Each family of layers registers its classes with layers::fromConfig.
namespace glint::layers {
void registerCoreLayers();           // core.cpp: InputLayer, Dense, Activation, Dropout, Flatten, Reshape, Permute, Embedding
void registerConvolutionLayers();    // convolution.cpp, pooling.cpp
void registerNormalizationLayers();  // normalization.cpp
void registerRecurrentLayers();      // recurrent.cpp, wrappers.cpp
void registerMergeLayers();
void registerMaskingLayers();        // masking.cpp
void registerRnnCellLayers();        // rnn_cells.cpp: RNN, its cells, StackedRNNCells
void registerConvLstmLayers();       // conv_lstm.cpp: ConvLSTM2D, ConvLSTM2DCell
void registerModelClasses();         // src/model: Sequential, Model
}  // namespace glint::layers
