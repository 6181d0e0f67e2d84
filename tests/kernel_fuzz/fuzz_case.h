#pragma once
// The kernel fuzzer's vocabulary. A generator draws integer knobs (shapes,
// attributes, a value seed) at random and builds a call from them; the same
// knobs always build the same call, so a seed reproduces a case and shrinking
// is lowering knobs while the call still fails. Each call runs on every
// backend and is compared with reference: forward, then the gradients of
// sum(w * f(x)) through the tape.
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "glint/glint.h"
#include "glint/json.h"

namespace glint::kfuzz {

using Knobs = std::vector<int64_t>;
using Rng = std::mt19937_64;

/// Host data of one input, made into a tensor on each backend in turn.
struct InputData {
  Shape shape;
  DType dtype = DType::float32;
  std::vector<float> values;
  bool differentiable = true;
};

struct Call {
  std::string describe;  // shapes and attributes, for reports
  std::vector<InputData> inputs;
  std::function<Tensor(const std::vector<Tensor>&)> fn;
  /// |got - want| <= rtol * max(|got|, |want|) + atol (forward);
  /// gradients get gradScale times both.
  double rtol = 1e-5, atol = 1e-6, gradScale = 10;
  bool checkGrad = true;
  /// Where an element may differ from reference by design (e.g. sin of
  /// |x| > 1e5 on a GPU: any value in [-1, 1]); empty: nowhere.
  std::function<bool(size_t element, float got)> alsoRight;
  /// Which attributes and shape classes this call exercised ("same",
  /// "odd", "broadcast", "rank3", "specials"...): the coverage table.
  std::vector<std::string> tags;
  /// The call in an independent library's terms, for check_tfjs.mjs and
  /// check_torch.py (glint_kernel_fuzz --emit):
  ///   {"op": TF.js op name, "attrs": {...}}: the op with these arguments,
  ///     with "pre" / "post" naming what fn does around it
  ///     ("normalizeLabels": x0 / sum(x0, 1); "concatFlatScaled": the parts
  ///     flattened, part i times i + 1, concatenated);
  ///   {"compose": name, "attrs": {...}}: the scripts compose it from TF.js
  ///     ops by the equations in the Glint header (cells, optimizer updates,
  ///     argMaxEqual) or post-process an op's result ("post");
  ///   {"torch": torch.nn.functional / torch name, "attrs": {...}}: TF.js has
  ///     no such op (gelu, softmax over a non-last axis);
  ///   {"op": null, "why": "..."}: neither has it.
  Json spec;
};

struct Generator {
  std::string name;                  // e.g. "maxPool"
  std::vector<std::string> kernels;  // kernels it aims at, forward and gradient
  std::function<Knobs(Rng&)> sample;
  /// nullopt when the knobs make no valid call (shrinking tries many).
  std::function<std::optional<Call>(const Knobs&)> build;
  /// How many values knob 0 (the op or kind) takes: runs cycle through them
  /// so that a short budget reaches every op (0: drawn at random).
  int64_t ops = 0;
};

std::vector<Generator>& generators();
struct Register {
  explicit Register(Generator g) { generators().push_back(std::move(g)); }
};

// ---- helpers for generators -------------------------------------------------

/// A size from the classes that find edge bugs: 1, 2, small primes, odd,
/// just below / at / above the vector and tile widths (4, 8, 16, 32, 64).
int64_t drawSize(Rng& rng, int64_t max);
int64_t drawInt(Rng& rng, int64_t lo, int64_t hi);  // inclusive
bool coin(Rng& rng, double p = 0.5);

/// Value classes: 0 uniform [-2, 2]; 1 quarters in [-2, 2] (ties);
/// 2 uniform with specials mixed in (+-0, denormals, +-1e30, NaN, +-Inf);
/// 3 positive (0.1, 3) for logs, roots and divisors.
/// 4 (not drawn, derived): specials without large finite values, for
/// accumulating ops (1e30 beside 1 cancels differently in another order).
enum ValueClass : int64_t {
  kUniform = 0,
  kQuarters = 1,
  kSpecials = 2,
  kPositive = 3,
  kSpecialsBounded = 4
};
InputData floats(const Shape& shape, int64_t valueClass, uint64_t seed);
InputData ints(const Shape& shape, int lo, int hi, uint64_t seed);

int64_t numElements(const Shape& s);
std::string shapeText(const Shape& s);

}  // namespace glint::kfuzz
