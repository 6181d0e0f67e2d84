// Preprocessing layers that TF.js 4.22 registers: Rescaling, CenterCrop,
// CategoryEncoding. They have no weights and run as ordinary ops.
#include <algorithm>
#include <cmath>

#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/one_input.h"

namespace glint {

namespace {

/// x * scale + offset, in float32 whatever the input dtype.
class Rescaling : public ElementwiseLayer {
 public:
  explicit Rescaling(const Json& args) : ElementwiseLayer(args, "rescaling") {
    ArgReader r = reader();
    r.allowOnly({"scale", "offset"});
    if (!r.has("scale")) r.fail("scale", "is required");
    scale_ = r.number("scale", 1);
    offset_ = r.number("offset", 0);
    if (!std::isfinite(scale_)) r.fail("scale", "must be a finite number");
    if (!std::isfinite(offset_)) r.fail("offset", "must be a finite number");
  }
  std::string className() const override { return "Rescaling"; }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Tensor x = in[0].dtype() == DType::float32 ? in[0] : cast(in[0], DType::float32);
    return {x * static_cast<float>(scale_) + static_cast<float>(offset_)};
  }
  Json getConfig() const override { return config({{"scale", scale_}, {"offset", offset_}}); }

 private:
  double scale_ = 1, offset_ = 0;
};

/// Crops the middle height x width of NHWC images. An image smaller than
/// that is an error: TF.js 4.22 means to resize it but fails (it passes the
/// input list to resizeBilinear), and Keras resizes differently (smart_resize),
/// so there is no behaviour to match.
class CenterCrop : public OneInputLayer {
 public:
  explicit CenterCrop(const Json& args) : OneInputLayer(args, "center_crop") {
    ArgReader r = reader();
    r.allowOnly({"height", "width"});
    height_ = r.integer("height");
    width_ = r.integer("width");
    if (height_ < 1) r.fail("height", "must be positive, got " + std::to_string(height_));
    if (width_ < 1) r.fail("width", "must be positive, got " + std::to_string(width_));
  }
  std::string className() const override { return "CenterCrop"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInput(in);
    if (s.size() != 4)
      error("expects inputs of rank 4 [batch, height, width, channels], got " + shapeToString(s));
    if ((s[1] >= 0 && s[1] < height_) || (s[2] >= 0 && s[2] < width_)) error(tooSmall(s));
    return {Shape{s[0], height_, width_, s[3]}};
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    const Tensor& x = in[0];
    const int64_t h = x.dim(1), w = x.dim(2);
    // TF.js's offsets: half the excess, rounded down, except that an excess
    // of one column starts the crop at column 1.
    int64_t top = h == height_ ? 0 : floorHalf(h - height_);
    int64_t left = w == width_ ? 0 : floorHalf(w - width_);
    if (left == 0 && w != width_) left = 1;
    if (top < 0 || left < 0) error(tooSmall(x.shape()));
    return {slice(x, {0, top, left, 0}, {-1, height_, width_, -1})};
  }
  Json getConfig() const override { return config({{"height", height_}, {"width", width_}}); }

 private:
  std::string tooSmall(const Shape& s) const {
    return "cannot crop " + std::to_string(height_) + "x" + std::to_string(width_) +
           " (arguments 'height', 'width') from a smaller input " + shapeToString(s) +
           "; resizing up is not supported";
  }
  static int64_t floorHalf(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }
  int64_t height_ = 0, width_ = 0;
};

/// Integer tokens in [0, num_tokens) to one-hot rows, multi-hot rows or counts.
class CategoryEncoding : public OneInputLayer {
 public:
  enum class Mode { oneHot, multiHot, count };

  explicit CategoryEncoding(const Json& args) : OneInputLayer(args, "category_encoding") {
    ArgReader r = reader();
    r.allowOnly({"num_tokens", "output_mode", "sparse"});
    numTokens_ = r.integer("num_tokens");
    if (numTokens_ < 1) r.fail("num_tokens", "must be positive, got " + std::to_string(numTokens_));
    std::string m = r.string("output_mode", "multiHot");
    if (m == "oneHot" || m == "one_hot") {
      mode_ = Mode::oneHot;
    } else if (m == "multiHot" || m == "multi_hot") {
      mode_ = Mode::multiHot;
    } else if (m == "count") {
      mode_ = Mode::count;
    } else {
      r.fail("output_mode", "must be 'oneHot', 'multiHot' or 'count', got '" + m + "'");
    }
    if (r.boolean("sparse", false)) r.fail("sparse", "true is not supported: outputs are dense");
  }
  std::string className() const override { return "CategoryEncoding"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInput(in);
    if (mode_ == Mode::oneHot) {
      if (s.size() == 1 || (s.size() == 2 && (s[1] == 1 || s[1] < 0)))
        return {Shape{s[0], numTokens_}};
      error(
          "in output_mode 'oneHot' takes one token per sample ([batch] or [batch, 1]), got input " +
          shapeToString(s));
    }
    if (s.size() != 2) error("expects inputs [batch, tokens], got " + shapeToString(s));
    return {Shape{s[0], numTokens_}};
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Tensor ids = in[0].dtype() == DType::int32 ? in[0] : cast(in[0], DType::int32);
    checkRange(ids);
    const int64_t batch = ids.dim(0);
    if (mode_ == Mode::oneHot) return {oneHot(reshape(ids, {batch}), numTokens_)};
    Tensor counts = sum(oneHot(ids, numTokens_), {1});
    return {mode_ == Mode::count ? counts : minimum(counts, onesLike(counts))};
  }

  /// TF.js writes the Python spellings of the mode ("multi_hot").
  Json getConfig() const override {
    const char* mode = mode_ == Mode::oneHot     ? "one_hot"
                       : mode_ == Mode::multiHot ? "multi_hot"
                                                 : "count";
    return config({{"num_tokens", numTokens_}, {"output_mode", mode}});
  }

 private:
  /// TF.js rejects any token outside [0, num_tokens) rather than dropping it.
  void checkRange(const Tensor& ids) const {
    if (ids.size() == 0) return;
    int32_t lo = static_cast<int32_t>(min(ids).item()), hi = static_cast<int32_t>(max(ids).item());
    if (lo < 0 || hi >= numTokens_)
      error("input tokens must be in [0, num_tokens) with argument 'num_tokens' " +
            std::to_string(numTokens_) + "; got a token " + std::to_string(lo < 0 ? lo : hi) +
            " in input " + shapeToString(ids.shape()));
  }
  int64_t numTokens_ = 0;
  Mode mode_ = Mode::multiHot;
};

}  // namespace

namespace layers {

LayerPtr rescaling(const Config& args) { return std::make_shared<Rescaling>(args); }
LayerPtr centerCrop(const Config& args) { return std::make_shared<CenterCrop>(args); }
LayerPtr categoryEncoding(const Config& args) { return std::make_shared<CategoryEncoding>(args); }

void registerPreprocessingLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "Rescaling", rescaling);
  GLINT_REGISTER_LAYER(registerLayerClass, "CenterCrop", centerCrop);
  GLINT_REGISTER_LAYER(registerLayerClass, "CategoryEncoding", categoryEncoding);
}

}  // namespace layers
}  // namespace glint
