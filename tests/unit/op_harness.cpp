#include "op_harness.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>

#include "src/core/random.h"

namespace glint::testing {

InputSpec F(Shape shape, float lo, float hi) {
  InputSpec s;
  s.shape = std::move(shape);
  s.lo = lo;
  s.hi = hi;
  return s;
}

InputSpec I(Shape shape, int lo, int hi) {
  InputSpec s;
  s.shape = std::move(shape);
  s.dtype = DType::int32;
  s.lo = static_cast<float>(lo);
  s.hi = static_cast<float>(hi);
  s.differentiable = false;
  return s;
}

InputSpec B(Shape shape) {
  InputSpec s;
  s.shape = std::move(shape);
  s.dtype = DType::boolean;
  s.differentiable = false;
  return s;
}

InputSpec Fixed(Shape shape, std::vector<float> values, DType dtype) {
  InputSpec s;
  s.shape = std::move(shape);
  s.values = std::move(values);
  s.dtype = dtype;
  s.differentiable = dtype == DType::float32;
  return s;
}

static uint64_t hashName(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

static std::vector<float> hostValues(const OpCase& c, size_t which) {
  const InputSpec& spec = c.inputs[which];
  size_t n = static_cast<size_t>(shapeSize(spec.shape));
  if (!spec.values.empty()) {
    EXPECT_EQ(spec.values.size(), n) << c.name << ": fixed values of input " << which;
    return spec.values;
  }
  Rng rng(hashName(c.name) + which);
  std::vector<float> v(n);
  for (auto& x : v) {
    double u = rng.uniform01();
    switch (spec.dtype) {
      case DType::float32: {
        double r = spec.lo + (spec.hi - spec.lo) * u;
        if (std::abs(r) < spec.minAbs) r = r < 0 ? -spec.minAbs - u * 0.1 : spec.minAbs + u * 0.1;
        x = static_cast<float>(r);
        break;
      }
      case DType::int32:
        x = std::floor(spec.lo + (spec.hi - spec.lo + 1) * u);
        break;
      case DType::boolean:
        x = u < 0.5 ? 0.0f : 1.0f;
        break;
    }
  }
  return v;
}

static Tensor toTensor(const std::vector<float>& v, const InputSpec& spec) {
  switch (spec.dtype) {
    case DType::float32:
      return tensor(v, spec.shape);
    case DType::int32:
      return tensorInt(std::vector<int32_t>(v.begin(), v.end()), spec.shape);
    case DType::boolean:
      return tensorBool(std::vector<uint8_t>(v.begin(), v.end()), spec.shape);
  }
  return Tensor();
}

std::vector<Tensor> makeInputs(const OpCase& c) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    xs.push_back(toTensor(hostValues(c, i), c.inputs[i]));
  return xs;
}

void expectError(const std::function<void()>& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const auto& f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos)
          << "message \"" << msg << "\" lacks \"" << f << "\"";
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-glint exception: " << e.what();
    return;
  }
  ADD_FAILURE() << "expected a glint::Error mentioning " << (fragments.empty() ? "" : fragments[0]);
}

std::vector<std::string> testBackends() { return availableBackends(); }

std::vector<OpFamily>& opFamilies() {
  static std::vector<OpFamily> families;
  return families;
}

bool registerOpFamily(const char* name, std::vector<OpCase> cases) {
  opFamilies().push_back(OpFamily{name, std::move(cases)});
  return true;
}

void onEveryBackend(const std::function<void()>& check) {
  BackendScope scope;
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    check();
  }
}

std::pair<Tensor, Tensor> classData(int64_t n, uint64_t seed) {
  Tensor x = randomUniform({n, 4}, 0, 1, seed);
  std::vector<float> xv = x.toFloats(), yv(n * 3, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    int best = 0;
    for (int c = 1; c < 3; ++c)
      if (xv[i * 4 + c] > xv[i * 4 + best]) best = c;
    yv[i * 3 + best] = 1;
  }
  return {x, tensor(yv, {n, 3})};
}

std::string caseName(const ::testing::TestParamInfo<OpCase>& info) {
  std::string out;
  for (char c : info.param.name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

static bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::max(std::abs(a), std::abs(b));
}

TEST_P(OpTest, MatchesReferenceOnEveryBackend) {
  const OpCase& c = GetParam();
  BackendScope guard;
  setBackend("reference");
  Tensor expected = c.fn(makeInputs(c));
  std::vector<float> want = expected.toFloats();
  for (const std::string& backend : testBackends()) {
    if (backend == "reference") continue;
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    Tensor got = c.fn(makeInputs(c));
    ASSERT_EQ(got.shape(), expected.shape());
    ASSERT_EQ(got.dtype(), expected.dtype());
    std::vector<float> have = got.toFloats();
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_TRUE(close(have[i], want[i], c.valueTol, 1e-6))
          << "element " << i << ": " << have[i] << " vs reference " << want[i];
  }
}

/// L(inputs) = sum(w * f(inputs)) in double, read back from the backend.
static double weightedLoss(const OpCase& c, const std::vector<Tensor>& xs,
                           const std::vector<float>& w) {
  std::vector<float> y = c.fn(xs).toFloats();
  double loss = 0;
  for (size_t i = 0; i < y.size(); ++i) loss += static_cast<double>(w[i]) * y[i];
  return loss;
}

std::vector<OpCase> withGradients(const std::vector<OpCase>& cases) {
  std::vector<OpCase> out;
  for (const auto& c : cases)
    if (c.checkGrad) out.push_back(c);
  return out;
}

TEST_P(OpGradTest, MatchesFiniteDifferencesOnEveryBackend) {
  const OpCase& c = GetParam();
  BackendScope guard;
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE("backend " + backend);
    setBackend(backend);
    std::vector<Tensor> xs = makeInputs(c);
    Tensor y = c.fn(xs);
    ASSERT_EQ(y.dtype(), DType::float32) << "gradient checks need a float32 result";
    Rng rng(hashName(c.name) ^ 0xABCDEF);
    std::vector<float> w(static_cast<size_t>(y.size()));
    for (auto& v : w) v = static_cast<float>(rng.uniform01() * 2 - 1);
    Tensor dy = tensor(w, y.shape());

    std::vector<Tensor> diffXs;
    std::vector<size_t> which;
    for (size_t i = 0; i < xs.size(); ++i)
      if (c.inputs[i].differentiable && c.inputs[i].dtype == DType::float32) {
        diffXs.push_back(xs[i]);
        which.push_back(i);
      }
    ASSERT_FALSE(diffXs.empty()) << "no differentiable input";
    std::vector<Tensor> analytic = grads(
        [&](const std::vector<Tensor>& d) {
          std::vector<Tensor> all = xs;
          for (size_t k = 0; k < which.size(); ++k) all[which[k]] = d[k];
          return c.fn(all);
        },
        diffXs, dy);

    for (size_t k = 0; k < which.size(); ++k) {
      size_t i = which[k];
      ASSERT_EQ(analytic[k].shape(), xs[i].shape());
      std::vector<float> g = analytic[k].toFloats();
      std::vector<float> base = xs[i].toFloats();
      for (size_t j = 0; j < base.size(); ++j) {
        double h = c.step * std::max(1.0, std::abs(static_cast<double>(base[j])));
        std::vector<float> plus = base, minus = base;
        plus[j] = static_cast<float>(base[j] + h);
        minus[j] = static_cast<float>(base[j] - h);
        double delta = static_cast<double>(plus[j]) - minus[j];  // the step actually taken
        std::vector<Tensor> xp = xs, xm = xs;
        xp[i] = tensor(plus, xs[i].shape());
        xm[i] = tensor(minus, xs[i].shape());
        double numeric = (weightedLoss(c, xp, w) - weightedLoss(c, xm, w)) / delta;
        ASSERT_TRUE(std::abs(g[j] - numeric) <= c.gradTol * std::max(1.0, std::abs(numeric)))
            << "input " << i << " element " << j << ": analytic " << g[j] << " vs numeric "
            << numeric;
      }
    }
  }
}

}  // namespace glint::testing
