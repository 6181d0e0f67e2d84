// Dot: the per-sample dot product of two inputs along one axis of each
// (Keras batch_dot), optionally of L2-normalized inputs (cosine proximity).
// Like TF.js, inputs have rank 2 or 3 with the batch axis.
#include <algorithm>

#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

class Dot : public Layer {
 public:
  explicit Dot(const Json& args) : Layer(args, "dot") {
    ArgReader r(this->args(), "Dot '" + name() + "'");
    r.allowOnly({"axes", "normalize"});
    if (!r.has("axes")) r.fail("axes", "is required (an axis, or a pair of axes, one per input)");
    pairGiven_ = this->args().at("axes").is_array();
    std::vector<int64_t> a = r.pair("axes", {});
    axes_ = {a[0], a[1]};
    normalize_ = r.boolean("normalize", false);
  }
  std::string className() const override { return "Dot"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    std::array<int64_t, 2> ax = axesFor(in);
    Shape out;
    for (size_t k = 0; k < in[0].size(); ++k)
      if (static_cast<int64_t>(k) != ax[0]) out.push_back(in[0][k]);
    for (size_t k = 1; k < in[1].size(); ++k)
      if (static_cast<int64_t>(k) != ax[1]) out.push_back(in[1][k]);
    if (out.size() == 1) out.push_back(1);
    return {out};
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    Shape outShape = computeOutputShape({in[0].shape(), in[1].shape()})[0];
    outShape[0] = in[0].dim(0);
    std::array<int64_t, 2> ax = axesFor({in[0].shape(), in[1].shape()});
    Tensor a = normalize_ ? l2Normalize(in[0], ax[0]) : in[0];
    Tensor b = normalize_ ? l2Normalize(in[1], ax[1]) : in[1];
    // As matrices per sample: a [m, k] (or [k, m], transposed), b [k, n] (or [n, k]).
    bool transposeA = false, transposeB = false;
    if (a.rank() == 2) {
      a = expandDims(a, 1);
    } else {
      transposeA = ax[0] == 1;
    }
    if (b.rank() == 2) {
      b = expandDims(b, 2);
    } else {
      transposeB = ax[1] == 2;
    }
    return {reshape(matMul(a, b, transposeA, transposeB), outShape)};
  }

  Json getConfig() const override {
    Json axes = pairGiven_ ? Json::array({axes_[0], axes_[1]}) : Json(axes_[0]);
    return spatial::withBase({{"axes", axes}, {"normalize", normalize_}}, Layer::getConfig());
  }

 private:
  /// The contracted axis of each input (non-negative), after checking shapes.
  std::array<int64_t, 2> axesFor(const std::vector<Shape>& in) const {
    if (in.size() != 2)
      error("must be called on a list of exactly 2 inputs, got " + std::to_string(in.size()));
    const std::string shapes = shapeToString(in[0]) + " and " + shapeToString(in[1]);
    std::array<int64_t, 2> ax{};
    for (size_t i = 0; i < 2; ++i) {
      const int64_t rank = static_cast<int64_t>(in[i].size());
      if (rank < 2 || rank > 3)
        error("supports inputs of rank 2 or 3 (batch included), like TF.js; got input shapes " +
              shapes);
      int64_t a = axes_[i] < 0 ? axes_[i] + rank : axes_[i];
      if (a < 1 || a >= rank)
        error("argument 'axes' " + std::to_string(axes_[i]) + " is not a non-batch axis of input " +
              std::to_string(i) + "; got input shapes " + shapes);
      ax[i] = a;
    }
    int64_t k0 = in[0][ax[0]], k1 = in[1][ax[1]];
    if (k0 >= 0 && k1 >= 0 && k0 != k1)
      error("dimension incompatibility along argument 'axes': " + std::to_string(k0) +
            " != " + std::to_string(k1) + "; got input shapes " + shapes);
    if (in[0][0] >= 0 && in[1][0] >= 0 && in[0][0] != in[1][0])
      error("inputs have different batch sizes; got input shapes " + shapes);
    return ax;
  }
  /// x / sqrt(max(sum(x^2), 1e-7)) along `axis`: TF.js's epsilon.
  static Tensor l2Normalize(const Tensor& x, int64_t axis) {
    Tensor squares = sum(square(x), {axis}, true);
    return x / sqrt(maximum(squares, fill({}, 1e-7f)));
  }
  std::array<int64_t, 2> axes_{};
  bool pairGiven_ = false;
  bool normalize_ = false;
};

}  // namespace

namespace layers {
LayerPtr dot(const Config& args) { return std::make_shared<Dot>(args); }
}  // namespace layers
}  // namespace glint
