// Masking: marks the time steps whose features all equal maskValue as padding,
// for the recurrent layers after it (TF.js 4.22 / Keras semantics).
#include "glint/error.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"

namespace glint {

namespace {

class Masking : public Layer {
 public:
  explicit Masking(const Json& args) : Layer(args, "masking") {
    ArgReader r(this->args(), "Masking '" + name() + "'");
    r.allowOnly({"mask_value"});
    maskValue_ = r.number("mask_value", 0);
  }
  std::string className() const override { return "Masking"; }
  bool supportsMasking() const override { return true; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    if (in[0].size() < 2)
      error("needs inputs of rank >= 2 [batch, ..., features], got " + shapeToString(in[0]));
    return in;
  }
  /// Masked steps are also zeroed, so that layers ignoring the mask see padding as zeros.
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    if (in.size() != 1) error("takes one input, got " + std::to_string(in.size()));
    return {mul(in[0], cast(keep(in[0], true), in[0].dtype()))};
  }
  std::vector<Tensor> computeMask(const std::vector<Tensor>& in,
                                  const std::vector<Tensor>&) const override {
    return {keep(in[0], false)};
  }
  Json getConfig() const override {
    Json c = Layer::getConfig();
    c["mask_value"] = maskValue_;
    return c;
  }

 private:
  /// True where some feature differs from maskValue.
  Tensor keep(const Tensor& x, bool keepDims) const {
    return any(notEqual(x, scalar(static_cast<float>(maskValue_), x.dtype())), {-1}, keepDims);
  }
  double maskValue_ = 0;
};

}  // namespace

namespace layers {

LayerPtr masking(const Config& args) { return std::make_shared<Masking>(args); }

void registerMaskingLayers() { GLINT_REGISTER_LAYER(registerLayerClass, "Masking", masking); }

}  // namespace layers
}  // namespace glint
