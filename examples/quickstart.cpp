// The README's C++ example, built so it cannot rot: fit w in x * w = y.
#include <cstdio>

#include "glint/glint.h"
using namespace glint;

int main() {
  Variable w = variable(randomNormal({3, 1}), true, "w");
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = tensor({1, 2}, {2, 1});
  for (int step = 0; step < 100; ++step) {
    tidy([&] {
      VariableGrads g = variableGrads([&] { return mean(square(sub(matMul(x, w), y))); });
      w.assign(sub(w, mul(g.grads[0], scalar(0.01f))));
    });
  }
  std::printf("%s\n", w.toString().c_str());
}
