#include "src/layers/families.h"

namespace glint::layers {

void registerBuiltinLayers() {
  registerCoreLayers();
  registerConvolutionLayers();
  registerConvolutionNDLayers();
  registerPoolingNDLayers();
  registerNormalizationLayers();
  registerRecurrentLayers();
  registerMergeLayers();
  registerAdvancedActivationLayers();
  registerNoiseLayers();
  registerPreprocessingLayers();
  registerImageLayers();
  registerMaskingLayers();
  registerRnnCellLayers();
  registerConvLstmLayers();
  registerModelClasses();
}

}  // namespace glint::layers
