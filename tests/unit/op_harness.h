#pragma once
// One op-test table drives values and gradients on every backend.
//
// A family test file lists OpCases and instantiates the shared checks:
//   static std::vector<OpCase> cases() { return { OpCase{...}, ... }; }
//   GLINT_OP_CASES(Binary, cases());
// (used inside namespace glint::testing). Each case is then checked (1) on every available backend against the
// `reference` backend within 1e-5 relative, and (2) for gradients, on every
// backend, against central finite differences accumulated in double.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "glint/glint.h"

namespace glint::testing {

/// Puts the backend that was current back when it goes (an assertion that
/// fails mid-test included); switches to `name` first when given one.
struct BackendScope {
  std::string saved = getBackend();
  BackendScope() = default;
  explicit BackendScope(const std::string& name) { setBackend(name); }
  ~BackendScope() { setBackend(saved); }
  BackendScope(const BackendScope&) = delete;
  BackendScope& operator=(const BackendScope&) = delete;
};

/// Runs `check` once on every backend the tests cover (testBackends()), each
/// under a SCOPED_TRACE naming it; the active backend is restored after.
void onEveryBackend(const std::function<void()>& check);
/// Three-class toy data, x [n, 4] uniform and y one-hot [n, 3]: the class is
/// the argmax of the first three features.
std::pair<Tensor, Tensor> classData(int64_t n, uint64_t seed);

struct InputSpec {
  Shape shape;
  DType dtype = DType::float32;
  float lo = -2.0f;  // random values in [lo, hi] (ints: integers in it)
  float hi = 2.0f;
  /// Random values are pushed away from 0 to at least this magnitude (kinks).
  float minAbs = 0.0f;
  /// Fixed values instead of random ones (must match the shape's size).
  std::vector<float> values;
  /// Gradient-checked (float32 inputs only).
  bool differentiable = true;
};

/// Shorthands for the common specs.
InputSpec F(Shape shape, float lo = -2.0f, float hi = 2.0f);
InputSpec I(Shape shape, int lo, int hi);  // int32, not differentiable
InputSpec B(Shape shape);                  // bool, not differentiable
InputSpec Fixed(Shape shape, std::vector<float> values, DType dtype = DType::float32);

struct OpCase {
  std::string name;  // unique within the family, e.g. "add_broadcast_row"
  std::vector<InputSpec> inputs;
  std::function<Tensor(const std::vector<Tensor>&)> fn;
  bool checkGrad = true;
  /// |analytic - numeric| <= gradTol * max(1, |numeric|)
  double gradTol = 1e-2;
  /// Finite-difference step relative to max(1, |x|).
  double step = 1e-3;
  /// Allowed relative difference from the reference backend.
  double valueTol = 1e-5;
};

/// Deterministic inputs for a case (same values on every backend).
std::vector<Tensor> makeInputs(const OpCase& c);

/// Expects fn to throw glint::Error whose message contains every fragment.
void expectError(const std::function<void()>& fn, const std::vector<std::string>& fragments);

/// The backends the build has and whose probe passes (reference included).
std::vector<std::string> testBackends();

class OpTest : public ::testing::TestWithParam<OpCase> {};
class OpGradTest : public ::testing::TestWithParam<OpCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpGradTest);

/// The cases whose checkGrad is set.
std::vector<OpCase> withGradients(const std::vector<OpCase>& cases);

std::string caseName(const ::testing::TestParamInfo<OpCase>& info);

/// Every family's cases, as GLINT_OP_CASES lists them: for runners outside
/// GoogleTest (tests/optable_async: the table on WebGPU in node, whose reads
/// are asynchronous).
struct OpFamily {
  std::string name;
  std::vector<OpCase> cases;
};
std::vector<OpFamily>& opFamilies();
bool registerOpFamily(const char* name, std::vector<OpCase> cases);

}  // namespace glint::testing

#define GLINT_OP_CASES(family, cases_expr)                                                     \
  [[maybe_unused]] static const bool family##_registered =                                     \
      ::glint::testing::registerOpFamily(#family, cases_expr);                                 \
  INSTANTIATE_TEST_SUITE_P(family, OpTest, ::testing::ValuesIn(cases_expr), caseName);         \
  INSTANTIATE_TEST_SUITE_P(family, OpGradTest, ::testing::ValuesIn(withGradients(cases_expr)), \
                           caseName)
