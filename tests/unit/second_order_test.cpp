// Second-order gradients: grad of grad through the tape, for every case of
// the op table (GLINT_OP_CASES) that checks gradients. The tape of a
// gradient records its backward pass on the tapes around it, so
//   G(x) = sum_k <v_k, d/dx_k sum(w * f(x))>
// is an ordinary differentiable function, and grad(G) is the Hessian-vector
// product H v. On reference it is checked against central finite differences
// of G (each G a first-order tape run); every other backend against
// reference's. A case may instead fail with an error naming the kernel whose
// gradient has no gradient; never with zeros (TF.js issue 30: grad of grad
// of x^3 gave [0, 0]).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "glint/glint.h"
#include "src/core/random.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

uint64_t hashName(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

std::vector<float> weights(Rng& rng, int64_t n) {
  std::vector<float> w(static_cast<size_t>(n));
  for (float& v : w) v = static_cast<float>(rng.uniform01() * 2 - 1);
  return w;
}

/// One case's inputs and fixed weights on the active backend.
struct CaseSetup {
  const OpCase* c = nullptr;
  std::vector<Tensor> xs;
  std::vector<size_t> which;          // the differentiable inputs
  std::vector<float> w;               // weights of f's elements
  std::vector<std::vector<float>> v;  // the direction, per differentiable input

  CaseSetup(const OpCase& oc) : c(&oc), xs(makeInputs(oc)) {
    for (size_t i = 0; i < xs.size(); ++i)
      if (oc.inputs[i].differentiable && oc.inputs[i].dtype == DType::float32) which.push_back(i);
    Rng rng(hashName(oc.name) ^ 0x5EC0D0);
    w = weights(rng, c->fn(xs).size());
    for (size_t i : which) v.push_back(weights(rng, xs[i].size()));
  }

  std::vector<Tensor> diffXs() const {
    std::vector<Tensor> d;
    for (size_t i : which) d.push_back(xs[i]);
    return d;
  }

  /// G(d): the first-order gradients at d, weighted by v, summed.
  Tensor weightedGradient(const std::vector<Tensor>& d) const {
    Tensor y0 = c->fn(xs);
    Tensor dy = tensor(w, y0.shape());
    std::vector<Tensor> g = grads(
        [&](const std::vector<Tensor>& dd) {
          std::vector<Tensor> all = xs;
          for (size_t k = 0; k < which.size(); ++k) all[which[k]] = dd[k];
          return c->fn(all);
        },
        d, dy);
    Tensor s = scalar(0.0f);
    for (size_t k = 0; k < g.size(); ++k) s = add(s, sum(mul(tensor(v[k], g[k].shape()), g[k])));
    return s;
  }

  /// grad(G) at the case's inputs: H v.
  std::vector<std::vector<float>> hessianVector() const {
    std::vector<Tensor> hv =
        grads([&](const std::vector<Tensor>& d) { return weightedGradient(d); }, diffXs());
    std::vector<std::vector<float>> out;
    for (const Tensor& t : hv) out.push_back(t.toFloats());
    return out;
  }
};

bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::max(std::abs(a), std::abs(b));
}

struct Tally {
  int64_t cases = 0, checkedElements = 0, nonzero = 0;
  std::map<std::string, std::string> noSecondOrder;  // case -> the error
};

/// Checks one case on reference against finite differences of G; returns
/// reference's H v, or nothing when the op's gradient has no gradient.
std::optional<std::vector<std::vector<float>>> checkOnReference(const OpCase& c, Tally& tally) {
  BackendScope scope("reference");
  CaseSetup s(c);
  std::vector<std::vector<float>> hv;
  try {
    hv = s.hessianVector();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("has no gradient"), std::string::npos) << c.name << ": " << msg;
    tally.noSecondOrder[c.name] = msg;
    return std::nullopt;
  }
  // At most 24 elements of each input, spread over it: every case stays cheap.
  for (size_t k = 0; k < s.which.size(); ++k) {
    size_t i = s.which[k];
    std::vector<float> base = s.xs[i].toFloats();
    size_t stride = std::max<size_t>(1, base.size() / 24);
    for (size_t j = 0; j < base.size(); j += stride) {
      double h = c.step * std::max(1.0, std::abs(static_cast<double>(base[j])));
      std::vector<float> plus = base, minus = base;
      plus[j] = static_cast<float>(base[j] + h);
      minus[j] = static_cast<float>(base[j] - h);
      double delta = static_cast<double>(plus[j]) - minus[j];
      auto at = [&](const std::vector<float>& values) {
        std::vector<Tensor> d = s.diffXs();
        d[k] = tensor(values, s.xs[i].shape());
        return static_cast<double>(s.weightedGradient(d).toFloats()[0]);
      };
      double numeric = (at(plus) - at(minus)) / delta;
      double got = hv[k][j];
      ++tally.checkedElements;
      if (std::abs(numeric) > 1e-3) ++tally.nonzero;
      EXPECT_LE(std::abs(got - numeric), 2 * c.gradTol * std::max(1.0, std::abs(numeric)))
          << c.name << ": (H v) of input " << i << " element " << j << " is " << got
          << ", finite differences of the gradient give " << numeric;
    }
  }
  return hv;
}

// The op table in kSlices interleaved slices, each its own test: one test of
// every case took 52 s on the browser's gl page, where googletest's shards
// (one page each) can only balance whole tests.
constexpr int kSlices = 8;

class SecondOrderSlice : public ::testing::TestWithParam<int> {};

TEST_P(SecondOrderSlice, HessianVectorProductsOfEveryOpMatchFiniteDifferences) {
  Tally tally;
  int64_t allCases = 0;
  std::vector<std::string> others;
  for (const std::string& b : testBackends())
    if (b != "reference") others.push_back(b);
  for (const OpFamily& family : opFamilies()) {
    for (const OpCase& c : family.cases) {
      if (!c.checkGrad) continue;
      if (allCases++ % kSlices != GetParam()) continue;
      ++tally.cases;
      std::optional<std::vector<std::vector<float>>> want = checkOnReference(c, tally);
      if (!want) continue;
      for (const std::string& backend : others) {
        BackendScope scope(backend);
        std::vector<std::vector<float>> got;
        try {
          got = CaseSetup(c).hessianVector();
        } catch (const Error& e) {
          ADD_FAILURE() << c.name << " on " << backend
                        << " threw where reference computes: " << e.what();
          continue;
        }
        ASSERT_EQ(got.size(), want->size()) << c.name;
        for (size_t k = 0; k < got.size(); ++k) {
          double scale = 1;
          for (float x : (*want)[k]) scale = std::max(scale, static_cast<double>(std::abs(x)));
          for (size_t j = 0; j < got[k].size(); ++j)
            if (!close(got[k][j], (*want)[k][j], 2e-3, 2e-4 * scale)) {
              ADD_FAILURE() << c.name << " on " << backend << ": (H v)[" << k << "][" << j
                            << "] = " << got[k][j] << ", reference " << (*want)[k][j];
              break;
            }
        }
      }
    }
  }
  std::printf(
      "second order, slice %d of %d: %lld cases, %lld elements against finite differences "
      "(%lld nonzero), %zu cases whose gradient has no gradient\n",
      GetParam() + 1, kSlices, static_cast<long long>(tally.cases),
      static_cast<long long>(tally.checkedElements), static_cast<long long>(tally.nonzero),
      tally.noSecondOrder.size());
  for (const auto& [name, why] : tally.noSecondOrder)
    std::printf("  %s: %s\n", name.c_str(), why.c_str());
  EXPECT_GT(allCases, 200);
  EXPECT_GE(tally.cases, allCases / kSlices);
}

INSTANTIATE_TEST_SUITE_P(SecondOrder, SecondOrderSlice, ::testing::Range(0, kSlices),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "slice" + std::to_string(info.param + 1);
                         });

// The issue's own example, as TF.js users write it: grad(grad(x^3)) = 6x.
TEST(SecondOrder, GradOfGradOfCube) {
  onEveryBackend([] {
    Tensor x = tensor({1.0f, 2.0f, -0.5f}, {3});
    auto first = [](const Tensor& t) {
      return grad([](const Tensor& u) { return pow(u, scalar(3.0f)); }, t);
    };
    std::vector<float> g2 = grad(first, x).toFloats();
    std::vector<float> want{6.0f, 12.0f, -3.0f};
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(g2[i], want[i], 1e-4) << i;
    // And a third order: d^3/dx^3 x^3 = 6.
    std::vector<float> g3 = grad([&](const Tensor& t) { return grad(first, t); }, x).toFloats();
    for (float g : g3) EXPECT_NEAR(g, 6.0f, 1e-4);
  });
}

// A gradient with no gradient is an error that names the kernel, never zeros.
TEST(SecondOrder, AGradientWithoutGradientIsAnErrorNamingTheKernel) {
  onEveryBackend([] {
    Tensor x = tensor({1.0f, 5.0f, 2.0f, 3.0f, 4.0f, 0.5f, 2.5f, 1.5f}, {1, 2, 4, 1});
    auto first = [](const Tensor& t) {
      return grad([](const Tensor& u) { return sum(square(maxPool(u, {2, 2}, {2, 2}))); }, t);
    };
    expectError([&] { grad([&](const Tensor& t) { return sum(first(t)); }, x); },
                {"[grad]", "MaxPoolGrad", "has no gradient"});
    // lstmSequence's gradient is one backward kernel over all steps.
    Tensor xw = tensor(std::vector<float>(2 * 1 * 8, 0.3f), {2, 1, 8});
    Tensor wr = tensor(std::vector<float>(2 * 8, -0.2f), {2, 8});
    auto lstmGrad = [&](const Tensor& t) {
      return grad(
          [&](const Tensor& u) {
            return sum(lstmSequence(u, wr, Tensor(), false, false, "sigmoid", "tanh").h);
          },
          t);
    };
    expectError([&] { grad([&](const Tensor& t) { return sum(lstmGrad(t)); }, xw); },
                {"[grad]", "LSTMSequenceGrad", "has no gradient"});
  });
}

// No tensors left behind by nested tapes.
TEST(SecondOrder, NestedTapesLeaveNoTensorsBehind) {
  BackendScope scope("reference");
  Tensor x = tensor({0.3f, -1.2f, 2.0f}, {3});
  int64_t before = memory().numTensors;
  {
    Tensor g2 = grad(
        [](const Tensor& t) {
          return grad([](const Tensor& u) { return sum(exp(mul(u, u))); }, t);
        },
        x);
    EXPECT_EQ(g2.shape(), x.shape());
    g2.dispose();
  }
  EXPECT_EQ(memory().numTensors, before);
}

}  // namespace
}  // namespace glint::testing
