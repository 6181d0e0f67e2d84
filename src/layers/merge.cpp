// Merge layers: Add, Multiply, Average, Maximum, Minimum, Subtract
// (element-wise, Keras broadcasting) and Concatenate. Each takes a list of at
// least two inputs (Subtract exactly two); Dot is in merge_dot.cpp.
#include <algorithm>

#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/core/kernel_selection.h"
#include "src/layers/families.h"
#include "src/layers/layer_args.h"
#include "src/layers/spatial.h"

namespace glint {

namespace {

std::string shapesToString(const std::vector<Shape>& shapes) {
  std::string out;
  for (const Shape& s : shapes) out += (out.empty() ? "" : ", ") + shapeToString(s);
  return out;
}

class MergeBase : public Layer {
 public:
  using Layer::Layer;

 protected:
  /// At least two inputs, each with a batch axis, whose known batch sizes agree.
  int64_t checkInputs(const std::vector<Shape>& in) const {
    if (in.size() < 2)
      error("must be called on a list of at least 2 inputs, got " + std::to_string(in.size()) +
            " (apply it to a vector of tensors)");
    int64_t batch = -1;
    for (const Shape& s : in) {
      if (s.empty()) error("inputs need a batch axis; got input shapes " + shapesToString(in));
      if (s[0] >= 0) {
        if (batch >= 0 && s[0] != batch)
          error("cannot merge inputs with different batch sizes; got input shapes " +
                shapesToString(in));
        batch = s[0];
      }
    }
    return batch;
  }
  /// Keras: a step is kept where every input keeps it (an input without a mask keeps all).
  std::vector<Tensor> computeMask(const std::vector<Tensor>&,
                                  const std::vector<Tensor>& masks) const override {
    Tensor out;
    for (const Tensor& m : masks)
      if (m.defined()) out = out.defined() ? logicalAnd(out, m) : m;
    return {out};
  }
  static std::vector<Shape> shapesOf(const std::vector<Tensor>& xs) {
    std::vector<Shape> out;
    for (const Tensor& x : xs) out.push_back(x.shape());
    return out;
  }
};

/// Add, Multiply, Average: Keras's element-wise merge. Per-sample shapes
/// broadcast (trailing axes aligned, 1 stretches); a lower-rank input gets
/// unit axes after the batch axis.
class ElementwiseMerge : public MergeBase {
 public:
  enum class Kind { add, multiply, average, maximum, minimum, subtract };
  ElementwiseMerge(const Json& args, Kind kind) : MergeBase(args, prefixOf(kind)), kind_(kind) {
    ArgReader(this->args(), classOf(kind) + " '" + name() + "'").allowOnly({});
  }
  std::string className() const override { return classOf(kind_); }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    int64_t batch = checkInputs(in);
    // Keras has Subtract (TF.js does not): exactly two inputs, a - b.
    if (kind_ == Kind::subtract && in.size() != 2)
      error("must be called on exactly 2 inputs, got " + std::to_string(in.size()));
    Shape out(in[0].begin() + 1, in[0].end());
    for (size_t i = 1; i < in.size(); ++i) {
      Shape b(in[i].begin() + 1, in[i].end());
      const Shape& longer = out.size() >= b.size() ? out : b;
      const Shape& shorter = out.size() >= b.size() ? b : out;
      Shape merged(longer.begin(), longer.end() - static_cast<std::ptrdiff_t>(shorter.size()));
      for (size_t k = 0; k < shorter.size(); ++k) {
        int64_t p = longer[longer.size() - shorter.size() + k], q = shorter[k];
        if (p < 0 || q < 0) {
          merged.push_back(p == 1 ? q : q == 1 ? p : -1);
        } else if (p == 1 || q == 1 || p == q) {
          merged.push_back(p == 1 ? q : p);
        } else {
          error(
              "inputs cannot be merged: per-sample shapes must be equal (or broadcast, with 1s); "
              "got input shapes " +
              shapesToString(in));
        }
      }
      out = merged;
    }
    out.insert(out.begin(), batch);
    return {out};
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape(shapesOf(in));
    int maxRank = 0;
    for (const Tensor& x : in) maxRank = std::max(maxRank, x.rank());
    auto expanded = [&](Tensor x) {
      while (x.rank() < maxRank) x = expandDims(x, 1);
      return x;
    };
    if (kind_ == Kind::average && in[0].dtype() != DType::float32)
      error("needs float32 inputs, got " + std::string(dtypeName(in[0].dtype())));
    Tensor y = expanded(in[0]);
    for (size_t i = 1; i < in.size(); ++i) y = combine(y, expanded(in[i]));
    if (kind_ == Kind::average) y = y * (1.0f / static_cast<float>(in.size()));
    return {y};
  }

 private:
  Tensor combine(const Tensor& a, const Tensor& b) const {
    switch (kind_) {
      case Kind::multiply:
        return mul(a, b);
      case Kind::maximum:
        return maximum(a, b);
      case Kind::minimum:
        return minimum(a, b);
      case Kind::subtract:
        return sub(a, b);
      default:
        return add(a, b);
    }
  }
  static std::string classOf(Kind k) {
    const char* names[] = {"Add", "Multiply", "Average", "Maximum", "Minimum", "Subtract"};
    return names[static_cast<int>(k)];
  }
  static std::string prefixOf(Kind k) {
    const char* names[] = {"add", "multiply", "average", "maximum", "minimum", "subtract"};
    return names[static_cast<int>(k)];
  }
  Kind kind_;
};

class Concatenate : public MergeBase {
 public:
  explicit Concatenate(const Json& args) : MergeBase(args, "concatenate") {
    ArgReader r(this->args(), "Concatenate '" + name() + "'");
    r.allowOnly({"axis"});
    axis_ = r.integer("axis", -1);
  }
  std::string className() const override { return "Concatenate"; }

  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    checkInputs(in);
    int64_t rank = static_cast<int64_t>(in[0].size());
    for (const Shape& s : in)
      if (static_cast<int64_t>(s.size()) != rank)
        error("inputs must have the same rank; got input shapes " + shapesToString(in));
    if (axis_ < -rank || axis_ >= rank)
      error("axis " + std::to_string(axis_) + " is out of range for inputs of rank " +
            std::to_string(rank) + "; got input shapes " + shapesToString(in));
    int64_t a = axis_ < 0 ? axis_ + rank : axis_;
    Shape out = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        int64_t p = out[d], q = in[i][d];
        if (d == a) {
          out[d] = p < 0 || q < 0 ? -1 : p + q;
        } else if (p >= 0 && q >= 0 && p != q) {
          error("inputs must have matching shapes except on the concat axis " +
                std::to_string(axis_) + "; got input shapes " + shapesToString(in));
        } else if (p < 0) {
          out[d] = q;
        }
      }
    }
    return {out};
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    computeOutputShape(shapesOf(in));
    return {concat(in, axis_)};
  }

  /// Keras: each input's mask spread over its shape (all kept without one),
  /// concatenated like the inputs; a position is kept where all its features are.
  std::vector<Tensor> computeMask(const std::vector<Tensor>& in,
                                  const std::vector<Tensor>& masks) const override {
    if (std::none_of(masks.begin(), masks.end(), [](const Tensor& m) { return m.defined(); }))
      return {};
    std::vector<Tensor> full;
    for (size_t i = 0; i < in.size(); ++i) {
      Tensor all = ones(in[i].shape(), DType::boolean);
      if (i >= masks.size() || !masks[i].defined()) {
        full.push_back(all);
        continue;
      }
      Shape s = masks[i].shape();
      s.resize(in[i].shape().size(), 1);  // trailing unit axes, then broadcast
      full.push_back(logicalAnd(reshape(masks[i], s), all));
    }
    return {glint::all(concat(full, axis_), {-1})};
  }

  Json getConfig() const override {
    return spatial::withBase({{"axis", axis_}}, Layer::getConfig());
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

namespace layers {

LayerPtr add(const Config& args) {
  return std::make_shared<ElementwiseMerge>(args, ElementwiseMerge::Kind::add);
}
LayerPtr multiply(const Config& args) {
  return std::make_shared<ElementwiseMerge>(args, ElementwiseMerge::Kind::multiply);
}
LayerPtr average(const Config& args) {
  return std::make_shared<ElementwiseMerge>(args, ElementwiseMerge::Kind::average);
}
LayerPtr maximum(const Config& args) {
  return std::make_shared<ElementwiseMerge>(args, ElementwiseMerge::Kind::maximum);
}
LayerPtr minimum(const Config& args) {
  return std::make_shared<ElementwiseMerge>(args, ElementwiseMerge::Kind::minimum);
}
LayerPtr subtract(const Config& args) {
  return std::make_shared<ElementwiseMerge>(args, ElementwiseMerge::Kind::subtract);
}
LayerPtr concatenate(const Config& args) { return std::make_shared<Concatenate>(args); }

void registerMergeLayers() {
  GLINT_REGISTER_LAYER(registerLayerClass, "Add", add);
  GLINT_REGISTER_LAYER(registerLayerClass, "Multiply", multiply);
  GLINT_REGISTER_LAYER(registerLayerClass, "Average", average);
  GLINT_REGISTER_LAYER(registerLayerClass, "Concatenate", concatenate);
  GLINT_REGISTER_LAYER(registerLayerClass, "Maximum", maximum);
  GLINT_REGISTER_LAYER(registerLayerClass, "Minimum", minimum);
  GLINT_REGISTER_LAYER(registerLayerClass, "Subtract", subtract);
  GLINT_REGISTER_LAYER(registerLayerClass, "Dot", dot);  // merge_dot.cpp
}

}  // namespace layers
}  // namespace glint
