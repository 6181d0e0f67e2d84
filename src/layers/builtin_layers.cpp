#include "src/layers/families.h"

namespace glint::layers {

void registerBuiltinLayers() {
  registerCoreLayers();
  registerConvolutionLayers();
  registerNormalizationLayers();
  registerRecurrentLayers();
  registerMergeLayers();
  registerMaskingLayers();
  registerRnnCellLayers();
  registerConvLstmLayers();
  registerModelClasses();
}

}  // namespace glint::layers
