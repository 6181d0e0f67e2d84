// reshape: a view, no kernel. Its gradient reshapes back.
#include "glint/backend.h"
#include "glint/ops.h"
#include "src/ops/op_util.h"

namespace glint {

Tensor reshape(const Tensor& x, const Shape& shape) {
  ops::checkTensor("reshape", "x", x);
  Shape out = shape;
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferred >= 0)
        fail("reshape", "shape ", shapeToString(shape),
             " has more than one -1: at most one dimension can be inferred");
      inferred = static_cast<int>(i);
    } else {
      if (out[i] < 0)
        fail("reshape", "shape ", shapeToString(shape), " has a negative dimension other than -1");
      known *= out[i];
    }
  }
  if (inferred >= 0) {
    if (!(known != 0 && x.size() % known == 0))
      fail("reshape", "cannot infer the -1 in ", shapeToString(shape), " for x ", ops::describe(x),
           " (", x.size(), " elements)");
    out[inferred] = x.size() / known;
  }
  if (shapeSize(out) != x.size())
    fail("reshape", "cannot reshape x ", ops::describe(x), " (", x.size(), " elements) into ",
         shapeToString(shape), " (", shapeSize(out), " elements)");
  return makeView(x, out);
}

void registerReshapeGradient() {
  // Not GLINT_REGISTER: a reshape is a view that tapes record with no kernel
  // run (engine.cpp), so no kernel list names it, and every build needs it.
  registerGradient("Reshape", [](const std::vector<Tensor>& dys, const GradContext& ctx) {
    return std::vector<Tensor>{reshape(dys[0], ctx.inputs[0].shape())};
  });
}

}  // namespace glint
