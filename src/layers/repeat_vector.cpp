// RepeatVector: [batch, features] -> [batch, n, features], the sample
// repeated n times (e.g. to feed one encoding to every step of an RNN).
#include "glint/error.h"
#include "glint/layers.h"
#include "glint/ops.h"
#include "src/layers/one_input.h"

namespace glint {

namespace {

class RepeatVector : public OneInputLayer {
 public:
  explicit RepeatVector(const Json& args) : OneInputLayer(args, "repeat_vector") {
    ArgReader r = reader();
    r.allowOnly({"n"});
    n_ = r.integer("n");
    if (n_ < 1) r.fail("n", "must be positive, got " + std::to_string(n_));
  }
  std::string className() const override { return "RepeatVector"; }
  std::vector<Shape> computeOutputShape(const std::vector<Shape>& in) const override {
    const Shape& s = oneInput(in);
    if (s.size() != 2) error("expects inputs of rank 2 [batch, features], got " + shapeToString(s));
    return {Shape{s[0], n_, s[1]}};
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallArgs&) override {
    return {tile(expandDims(in[0], 1), {1, n_, 1})};
  }
  Json getConfig() const override { return config({{"n", n_}}); }

 private:
  int64_t n_ = 1;
};

}  // namespace

namespace layers {
LayerPtr repeatVector(const Config& args) { return std::make_shared<RepeatVector>(args); }
}  // namespace layers
}  // namespace glint
