#pragma once
// Weight initializers with TF.js / Keras semantics and serialization.
// className() and getConfig() are what TF.js 4.22 writes into model.json
// (snake_case keys and values: {"class_name": "VarianceScaling", "config":
// {"scale": 1, "mode": "fan_avg", "distribution": "uniform", "seed": null}}).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "glint/config.h"
#include "glint/json_fwd.h"
#include "glint/tensor.h"

namespace glint {

class Initializer {
 public:
  virtual ~Initializer();
  /// A new tensor of `shape`. int32 requests get the float values truncated;
  /// bool is refused.
  virtual Tensor init(const Shape& shape, DType dtype = DType::float32) const = 0;
  /// The serialized class name ("VarianceScaling" for glorot/he/lecun, as Keras).
  virtual std::string className() const = 0;
  virtual Json getConfig() const = 0;
};

namespace initializers {

using Seed = std::optional<uint64_t>;

std::shared_ptr<Initializer> zeros();
std::shared_ptr<Initializer> ones();
std::shared_ptr<Initializer> constant(double value);
/// Defaults as TF.js: mean 0, stddev 0.05; minval -0.05, maxval 0.05.
std::shared_ptr<Initializer> randomNormal(double mean = 0.0, double stddev = 0.05, Seed seed = {});
std::shared_ptr<Initializer> randomUniform(double minval = -0.05, double maxval = 0.05,
                                           Seed seed = {});
/// Normal values redrawn outside two standard deviations.
std::shared_ptr<Initializer> truncatedNormal(double mean = 0.0, double stddev = 0.05,
                                             Seed seed = {});
/// Fans as Keras: [in, out] for matrices; for rank 3-5 kernels (channels last)
/// receptive field size * shape[-2] and * shape[-1]; otherwise sqrt(size).
/// mode: "fan_in" | "fan_out" | "fan_avg" (camelCase accepted);
/// distribution: "normal" (truncated normal with stddev sqrt(scale / fan), as
/// TF.js), "uniform" (limit sqrt(3 scale / fan)), "truncated_normal" (Keras:
/// stddev corrected by 0.8796), "untruncated_normal".
std::shared_ptr<Initializer> varianceScaling(double scale = 1.0, const std::string& mode = "fan_in",
                                             const std::string& distribution = "normal",
                                             Seed seed = {});
std::shared_ptr<Initializer> glorotUniform(Seed seed = {});
std::shared_ptr<Initializer> glorotNormal(Seed seed = {});
std::shared_ptr<Initializer> heUniform(Seed seed = {});
std::shared_ptr<Initializer> heNormal(Seed seed = {});
std::shared_ptr<Initializer> lecunUniform(Seed seed = {});
std::shared_ptr<Initializer> lecunNormal(Seed seed = {});
/// Rank >= 2; the shape is flattened to [prod(shape[:-1]), shape[-1]], whose
/// rows or columns (the shorter side) come out orthonormal, times gain.
std::shared_ptr<Initializer> orthogonal(double gain = 1.0, Seed seed = {});
/// gain * I for square matrices.
std::shared_ptr<Initializer> identity(double gain = 1.0);

/// (fanIn, fanOut) for a weight shape, as above.
std::pair<double, double> computeFans(const Shape& shape);

/// {"class_name": ..., "config": ...} as TF.js writes it.
Json serialize(const Initializer& initializer);
/// From {"class_name" | "className": ..., "config": {...}}; keys and string
/// values may be snake_case or camelCase. Unknown classes throw glint::Error.
std::shared_ptr<Initializer> fromConfig(const Config& classNameAndConfig);
/// By identifier: "glorotUniform", "glorot_uniform", "GlorotUniform", "zeros", ...
std::shared_ptr<Initializer> get(const std::string& name);

}  // namespace initializers
}  // namespace glint
