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
  registerModelClasses();
}

}  // namespace glint::layers
