// Ops for the JS API: glint_op(name, inputs, attrs JSON) dispatches to the
// C++ op of that name, which validates as always. Attribute names are the
// TF.js argument names (axis, keepDims, strides, pad, ...).
#include <emscripten.h>

#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "glint/fused_ops.h"
#include "glint/losses.h"
#include "glint/metrics.h"
#include "glint/rnn_ops.h"
#include "web/bindings/handles.h"

namespace glint::web {
namespace {

/// Typed access to an op's attributes, with errors that name the op.
class Attrs {
 public:
  Attrs(const std::string& op, const Json& j) : op_(op), j_(j) {}
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  double num(const char* key, double dflt) const {
    if (!has(key)) return dflt;
    if (!j_[key].is_number()) bad(key, "a number");
    return j_[key].get<double>();
  }
  float f(const char* key, float dflt) const { return static_cast<float>(num(key, dflt)); }
  int64_t i(const char* key, int64_t dflt) const {
    double v = num(key, static_cast<double>(dflt));
    if (v != static_cast<double>(static_cast<int64_t>(v))) bad(key, "an integer");
    return static_cast<int64_t>(v);
  }
  bool b(const char* key, bool dflt) const {
    if (!has(key)) return dflt;
    if (!j_[key].is_boolean()) bad(key, "true or false");
    return j_[key].get<bool>();
  }
  std::string s(const char* key, const std::string& dflt) const {
    if (!has(key)) return dflt;
    if (!j_[key].is_string()) bad(key, "a string");
    return j_[key].get<std::string>();
  }
  /// A number or an array of integers (TF.js accepts both for axes).
  std::vector<int64_t> ints(const char* key) const {
    std::vector<int64_t> out;
    if (!has(key)) return out;
    const Json& v = j_[key];
    if (v.is_number_integer()) return {v.get<int64_t>()};
    if (!v.is_array()) bad(key, "an integer or an array of integers");
    for (const auto& e : v) {
      if (!e.is_number_integer()) bad(key, "an array of integers");
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  Shape shape(const char* key) const { return Shape(ints(key)); }
  Pair pair(const char* key, Pair dflt) const {
    if (!has(key)) return dflt;
    auto v = ints(key);
    if (v.size() == 1) return {v[0], v[0]};
    if (v.size() != 2) bad(key, "a number or [height, width]");
    return {v[0], v[1]};
  }
  Triple triple(const char* key, Triple dflt) const {
    if (!has(key)) return dflt;
    auto v = ints(key);
    if (v.size() == 1) return {v[0], v[0], v[0]};
    if (v.size() != 3) bad(key, "a number or [depth, height, width]");
    return {v[0], v[1], v[2]};
  }
  Padding padding(const char* key) const {
    std::string p = s(key, "valid");
    if (p == "valid") return Padding::valid;
    if (p == "same") return Padding::same;
    bad(key, "'valid' or 'same'");
  }
  DType dtype(const char* key, DType dflt) const {
    return has(key) ? parseDType(s(key, "float32")) : dflt;
  }
  std::optional<uint64_t> seed() const {
    if (!has("seed")) return std::nullopt;
    return static_cast<uint64_t>(i("seed", 0));
  }

 private:
  [[noreturn]] void bad(const char* key, const char* expected) const {
    fail(op_, "argument '", key, "' must be ", expected, ": got ", j_[key].dump());
  }
  const std::string& op_;
  const Json& j_;
};

using Args = std::vector<Tensor>;
using OpFn = std::function<std::vector<Tensor>(const Args&, const Attrs&)>;

struct OpEntry {
  int minInputs, maxInputs;  // -1: any number (list ops)
  OpFn fn;
};

Tensor opt(const Args& x, size_t i) { return i < x.size() ? x[i] : Tensor(); }

std::unordered_map<std::string, OpEntry> buildTable() {
  std::unordered_map<std::string, OpEntry> t;
  auto unary = [&](const char* name, Tensor (*f)(const Tensor&)) {
    t[name] = {1, 1, [f](const Args& x, const Attrs&) -> Args { return {f(x[0])}; }};
  };
  auto binary = [&](const char* name, Tensor (*f)(const Tensor&, const Tensor&)) {
    t[name] = {2, 2, [f](const Args& x, const Attrs&) -> Args { return {f(x[0], x[1])}; }};
  };
  using Reduce = Tensor (*)(const Tensor&, const std::vector<int64_t>&, bool);
  auto reduce = [&](const char* name, Reduce f) {
    t[name] = {1, 1, [f](const Args& x, const Attrs& a) -> Args {
                 return {f(x[0], a.ints("axis"), a.b("keepDims", false))};
               }};
  };
  for (auto [n, f] : std::initializer_list<std::pair<const char*, Tensor (*)(const Tensor&)>>{
           {"neg", neg},
           {"abs", abs},
           {"exp", exp},
           {"log", log},
           {"log1p", log1p},
           {"sqrt", sqrt},
           {"rsqrt", rsqrt},
           {"square", square},
           {"reciprocal", reciprocal},
           {"relu", relu},
           {"relu6", relu6},
           {"elu", elu},
           {"selu", selu},
           {"sigmoid", sigmoid},
           {"tanh", tanh},
           {"softplus", softplus},
           {"sin", sin},
           {"cos", cos},
           {"sign", sign},
           {"floor", floor},
           {"ceil", ceil},
           {"round", round},
           {"logicalNot", logicalNot},
           {"zerosLike", zerosLike},
           {"onesLike", onesLike},
           {"asin", asin},
           {"acos", acos},
           {"atan", atan},
           {"asinh", asinh},
           {"acosh", acosh},
           {"atanh", atanh},
           {"erf", erf}}) {
    unary(n, f);
  }
  for (auto [n, f] :
       std::initializer_list<std::pair<const char*, Tensor (*)(const Tensor&, const Tensor&)>>{
           {"add", add},
           {"sub", sub},
           {"mul", mul},
           {"div", div},
           {"pow", pow},
           {"maximum", maximum},
           {"minimum", minimum},
           {"squaredDifference", squaredDifference},
           {"floorDiv", floorDiv},
           {"mod", mod},
           {"equal", equal},
           {"notEqual", notEqual},
           {"less", less},
           {"lessEqual", lessEqual},
           {"greater", greater},
           {"greaterEqual", greaterEqual},
           {"logicalAnd", logicalAnd},
           {"logicalOr", logicalOr},
           {"logicalXor", logicalXor},
           {"atan2", atan2}}) {
    binary(n, f);
  }
  for (auto [n, f] : std::initializer_list<std::pair<const char*, Reduce>>{{"sum", sum},
                                                                           {"mean", mean},
                                                                           {"max", max},
                                                                           {"min", min},
                                                                           {"prod", prod},
                                                                           {"logSumExp", logSumExp},
                                                                           {"any", any},
                                                                           {"all", all}}) {
    reduce(n, f);
  }
  t["leakyRelu"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                      return {leakyRelu(x[0], a.f("alpha", 0.2f))};
                    }};
  t["gelu"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                 return {gelu(x[0], a.b("approximate", false))};
               }};
  t["where"] = {3, 3,
                [](const Args& x, const Attrs&) -> Args { return {where(x[0], x[1], x[2])}; }};
  t["cast"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                 return {cast(x[0], parseDType(a.s("dtype", "float32")))};
               }};
  t["clipByValue"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                        return {clipByValue(x[0], a.f("clipValueMin", 0), a.f("clipValueMax", 0))};
                      }};
  t["argMax"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args { return {argMax(x[0], a.i("axis", 0))}; }};
  t["argMin"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args { return {argMin(x[0], a.i("axis", 0))}; }};
  t["softmax"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args { return {softmax(x[0], a.i("dim", -1))}; }};
  t["logSoftmax"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                       return {logSoftmax(x[0], a.i("axis", -1))};
                     }};
  t["moments"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                    Moments m = moments(x[0], a.ints("axis"), a.b("keepDims", false));
                    return {m.mean, m.variance};
                  }};
  t["batchNorm"] = {
      3, 5, [](const Args& x, const Attrs& a) -> Args {
        return {batchNorm(x[0], x[1], x[2], opt(x, 3), opt(x, 4), a.f("varianceEpsilon", 1e-3f))};
      }};
  t["matMul"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                   return {matMul(x[0], x[1], a.b("transposeA", false), a.b("transposeB", false))};
                 }};
  t["fused.matMul"] = {2, 3, [](const Args& x, const Attrs& a) -> Args {
                         return {fusedMatMul(x[0], x[1], opt(x, 2), a.s("activation", "linear"),
                                             a.b("transposeA", false), a.b("transposeB", false),
                                             a.f("leakyreluAlpha", 0.2f))};
                       }};
  t["conv2d"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                   return {conv2d(x[0], x[1], a.pair("strides", {1, 1}), a.padding("pad"),
                                  a.pair("dilations", {1, 1}))};
                 }};
  t["depthwiseConv2d"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                            return {depthwiseConv2d(x[0], x[1], a.pair("strides", {1, 1}),
                                                    a.padding("pad"), a.pair("dilations", {1, 1}))};
                          }};
  t["conv2dTranspose"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                            return {conv2dTranspose(x[0], x[1], a.shape("outputShape"),
                                                    a.pair("strides", {1, 1}), a.padding("pad"))};
                          }};
  t["conv3d"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                   return {conv3d(x[0], x[1], a.triple("strides", {1, 1, 1}), a.padding("pad"),
                                  a.triple("dilations", {1, 1, 1}))};
                 }};
  t["conv3dTranspose"] = {
      2, 2, [](const Args& x, const Attrs& a) -> Args {
        return {conv3dTranspose(x[0], x[1], a.shape("outputShape"), a.triple("strides", {1, 1, 1}),
                                a.padding("pad"))};
      }};
  t["maxPool3d"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                      Triple f = a.triple("filterSize", {1, 1, 1});
                      return {maxPool3d(x[0], f, a.triple("strides", f), a.padding("pad"))};
                    }};
  t["avgPool3d"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                      Triple f = a.triple("filterSize", {1, 1, 1});
                      return {avgPool3d(x[0], f, a.triple("strides", f), a.padding("pad"))};
                    }};
  t["maxPool"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                    Pair f = a.pair("filterSize", {1, 1});
                    return {maxPool(x[0], f, a.pair("strides", f), a.padding("pad"))};
                  }};
  t["avgPool"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                    Pair f = a.pair("filterSize", {1, 1});
                    return {avgPool(x[0], f, a.pair("strides", f), a.padding("pad"))};
                  }};
  t["reshape"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                    return {reshape(x[0], a.shape("shape"))};
                  }};
  t["transpose"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                      return {transpose(x[0], a.ints("perm"))};
                    }};
  t["concat"] = {1, -1,
                 [](const Args& x, const Attrs& a) -> Args { return {concat(x, a.i("axis", 0))}; }};
  t["stack"] = {1, -1,
                [](const Args& x, const Attrs& a) -> Args { return {stack(x, a.i("axis", 0))}; }};
  t["split"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                  if (a.has("sizes")) return split(x[0], a.ints("sizes"), a.i("axis", 0));
                  return split(x[0], a.i("numSplits", 1), a.i("axis", 0));
                }};
  t["unstack"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args { return unstack(x[0], a.i("axis", 0)); }};
  t["slice"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                  auto begin = a.ints("begin");
                  auto size =
                      a.has("size") ? a.ints("size") : std::vector<int64_t>(begin.size(), -1);
                  return {slice(x[0], begin, size)};
                }};
  t["stridedSlice"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args {
        return {stridedSlice(x[0], a.ints("begin"), a.ints("end"), a.ints("strides"),
                             a.i("beginMask", 0), a.i("endMask", 0), a.i("ellipsisMask", 0),
                             a.i("newAxisMask", 0), a.i("shrinkAxisMask", 0))};
      }};
  t["pad"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                auto flat = a.ints("paddings");
                if (flat.size() % 2 != 0) fail("pad", "paddings must be pairs [before, after]");
                std::vector<std::pair<int64_t, int64_t>> p;
                for (size_t i = 0; i < flat.size(); i += 2) p.emplace_back(flat[i], flat[i + 1]);
                return {pad(x[0], p, a.f("constantValue", 0))};
              }};
  t["gather"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                   return {gather(x[0], x[1], a.i("axis", 0))};
                 }};
  t["unsortedSegmentSum"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                               return {unsortedSegmentSum(x[0], x[1], a.i("numSegments", 0))};
                             }};
  t["oneHot"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                   return {oneHot(x[0], a.i("depth", 0), a.f("onValue", 1), a.f("offValue", 0))};
                 }};
  t["tile"] = {1, 1,
               [](const Args& x, const Attrs& a) -> Args { return {tile(x[0], a.ints("reps"))}; }};
  t["expandDims"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                       return {expandDims(x[0], a.i("axis", 0))};
                     }};
  t["squeeze"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args { return {squeeze(x[0], a.ints("axis"))}; }};
  t["reverse"] = {
      1, 1, [](const Args& x, const Attrs& a) -> Args { return {reverse(x[0], a.ints("axis"))}; }};
  t["fill"] = {0, 0, [](const Args&, const Attrs& a) -> Args {
                 return {fill(a.shape("shape"), a.f("value", 0), a.dtype("dtype", DType::float32))};
               }};
  t["zeros"] = {0, 0, [](const Args&, const Attrs& a) -> Args {
                  return {zeros(a.shape("shape"), a.dtype("dtype", DType::float32))};
                }};
  t["ones"] = {0, 0, [](const Args&, const Attrs& a) -> Args {
                 return {ones(a.shape("shape"), a.dtype("dtype", DType::float32))};
               }};
  t["range"] = {0, 0, [](const Args&, const Attrs& a) -> Args {
                  return {range(a.f("start", 0), a.f("stop", 0), a.f("step", 1),
                                a.dtype("dtype", DType::float32))};
                }};
  t["randomUniform"] = {
      0, 0, [](const Args&, const Attrs& a) -> Args {
        return {randomUniform(a.shape("shape"), a.f("minval", 0), a.f("maxval", 1), a.seed())};
      }};
  t["randomNormal"] = {
      0, 0, [](const Args&, const Attrs& a) -> Args {
        return {randomNormal(a.shape("shape"), a.f("mean", 0), a.f("stdDev", 1), a.seed())};
      }};
  t["truncatedNormal"] = {
      0, 0, [](const Args&, const Attrs& a) -> Args {
        return {truncatedNormal(a.shape("shape"), a.f("mean", 0), a.f("stdDev", 1), a.seed())};
      }};
  t["dropout"] = {1, 1, [](const Args& x, const Attrs& a) -> Args {
                    return {dropout(x[0], a.f("rate", 0), a.seed(), a.shape("noiseShape"))};
                  }};
  // Losses and metrics by their TF.js names, (yTrue, yPred) -> per-sample values.
  t["loss"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                 return {losses::get(a.s("name", ""))(x[0], x[1])};
               }};
  t["metric"] = {2, 2, [](const Args& x, const Attrs& a) -> Args {
                   return {metrics::get(a.s("name", ""))(x[0], x[1])};
                 }};
  t["softmaxCrossEntropy"] = {2, 2, [](const Args& x, const Attrs&) -> Args {
                                return {softmaxCrossEntropyWithLogits(x[0], x[1])};
                              }};
  // ---- tf.image (NHWC) ----
  // A missing size reaches the op as [0, 0], which it refuses by name.
  auto size = [](const Attrs& a, const char* key) { return a.pair(key, {0, 0}); };
  t["resizeBilinear"] = {1, 1, [size](const Args& x, const Attrs& a) -> Args {
                           return {resizeBilinear(x[0], size(a, "size"), a.b("alignCorners", false),
                                                  a.b("halfPixelCenters", false))};
                         }};
  t["resizeNearestNeighbor"] = {
      1, 1, [size](const Args& x, const Attrs& a) -> Args {
        return {resizeNearestNeighbor(x[0], size(a, "size"), a.b("alignCorners", false),
                                      a.b("halfPixelCenters", false))};
      }};
  t["cropAndResize"] = {
      3, 3, [size](const Args& x, const Attrs& a) -> Args {
        return {cropAndResize(x[0], x[1], x[2], size(a, "cropSize"), a.s("method", "bilinear"),
                              a.f("extrapolationValue", 0.0f))};
      }};
  unary("flipLeftRight", flipLeftRight);
  unary("rgbToGrayscale", rgbToGrayscale);
  // Selected indices, their scores, and the count of valid ones (int32 scalar).
  t["nonMaxSuppression"] = {
      2, 2, [](const Args& x, const Attrs& a) -> Args {
        float scoreThreshold = a.has("scoreThreshold") ? a.f("scoreThreshold", 0.0f)
                                                       : -std::numeric_limits<float>::infinity();
        NonMaxSuppressionResult r = nonMaxSuppression(
            x[0], x[1], a.i("maxOutputSize", 0), a.f("iouThreshold", 0.5f), scoreThreshold,
            a.f("softNmsSigma", 0.0f), a.b("padToMaxOutputSize", false));
        return {r.selectedIndices, r.selectedScores,
                scalar(static_cast<float>(r.validOutputs), DType::int32)};
      }};
  return t;
}

const std::unordered_map<std::string, OpEntry>& table() {
  static const auto t = buildTable();
  return t;
}

}  // namespace
}  // namespace glint::web

using namespace glint;
using namespace glint::web;

extern "C" {

/// Runs op `name` on the input handles with attrs (JSON object); writes the
/// output handles (at most maxOut) and returns their count, or -1.
EMSCRIPTEN_KEEPALIVE int32_t glint_op(const char* name, const int32_t* inputs, int32_t numInputs,
                                      const char* attrsJson, int32_t* out, int32_t maxOut) {
  return guarded(-1, [&] {
    std::string op = name;
    auto it = table().find(op);
    if (it == table().end()) fail(op, "no such op in the JS API");
    const OpEntry& e = it->second;
    if (numInputs < e.minInputs || (e.maxInputs >= 0 && numInputs > e.maxInputs)) {
      fail(op, "takes ", e.minInputs, e.maxInputs == e.minInputs ? "" : " or more",
           " tensor inputs",
           e.maxInputs > e.minInputs ? " (at most " + std::to_string(e.maxInputs) + ")" : "",
           ": got ", numInputs);
    }
    Json j = parseJson(attrsJson, "the op's attributes");
    Attrs attrs(op, j);
    std::vector<Tensor> outputs = e.fn(tensorsFrom(inputs, numInputs), attrs);
    return putTensors(outputs, out, maxOut);
  });
}

/// The op names, for the JS API's self-check.
EMSCRIPTEN_KEEPALIVE const char* glint_op_names() {
  return guarded<const char*>(nullptr, [&] {
    Json names = Json::array();
    for (const auto& [n, e] : table()) names.push_back(n);
    return returnString(names.dump());
  });
}

}  // extern "C"
