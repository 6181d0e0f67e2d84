#include "src/layers/families.h"

namespace glint::layers {

void registerBuiltinLayers() {
  registerCoreLayers();
  registerConvolutionLayers();
  registerNormalizationLayers();
  registerRecurrentLayers();
  registerMergeLayers();
  registerModelClasses();
}

}  // namespace glint::layers
