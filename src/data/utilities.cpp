// Data utilities: split, sliding windows, normalization, categories, one-hot.
#include <algorithm>
#include <cmath>
#include <map>

#include "glint/data.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/ops.h"
#include "src/data/data_util.h"

namespace glint::data {
namespace {

std::string describe(const Tensor& t) {
  return std::string(dtypeName(t.dtype())) + " " + shapeToString(t.shape());
}

void checkLive(const char* op, const std::string& arg, const Tensor& t) {
  check(t.defined() && !t.isDisposed(), op, arg, " is undefined or disposed");
}

}  // namespace

Split trainValidationSplit(const std::vector<Tensor>& columns, float fraction, bool shuffle,
                           std::optional<uint64_t> seed) {
  const char* op = "trainValidationSplit";
  check(!columns.empty(), op, "expected at least one column, got none");
  check(std::isfinite(fraction) && fraction >= 0.0f && fraction < 1.0f, op,
        "validationFraction must be in [0, 1), got ", fraction);
  for (size_t c = 0; c < columns.size(); ++c) {
    checkLive(op, "column " + std::to_string(c), columns[c]);
    check(columns[c].rank() >= 1, op, "column ", c, " is a scalar: expected rank >= 1");
    check(columns[c].shape()[0] == columns[0].shape()[0], op, "column ", c, " has ",
          columns[c].shape()[0], " rows (", describe(columns[c]), "), column 0 has ",
          columns[0].shape()[0], ": all columns need the same length");
  }
  const int64_t n = columns[0].shape()[0];
  // Back to the decimal the caller wrote (0.2f -> 0.2), so the split matches
  // Keras / TF.js floor(n * (1 - 0.2)) instead of falling one row short.
  const double f = std::round(double{fraction} * 1e7) / 1e7;
  const int64_t splitAt = static_cast<int64_t>(std::floor(static_cast<double>(n) * (1.0 - f)));
  std::vector<int32_t> order;
  if (shuffle) order = detail::permutation(n, seed ? *seed : randomBits());
  Split out;
  std::vector<Tensor> all = tidy([&] {
    std::vector<Tensor> parts;
    Tensor indices = shuffle ? tensorInt(order, {n}) : Tensor();
    for (const Tensor& col : columns) {
      Tensor x = shuffle ? gather(col, indices, 0) : col;
      std::vector<Tensor> halves = split(x, std::vector<int64_t>{splitAt, n - splitAt}, 0);
      parts.push_back(halves[0]);
      parts.push_back(halves[1]);
    }
    return parts;
  });
  for (size_t c = 0; c < columns.size(); ++c) {
    out.train.push_back(all[2 * c]);
    out.validation.push_back(all[2 * c + 1]);
  }
  return out;
}

Windows slidingWindows(const Tensor& series, int64_t window, int64_t horizon, int64_t stride) {
  const char* op = "slidingWindows";
  checkLive(op, "series", series);
  check(series.rank() == 1 || series.rank() == 2, op, "series must be [T] or [T, features], got ",
        describe(series));
  check(series.dtype() != DType::boolean, op, "series must be float32 or int32, got ",
        describe(series));
  check(window >= 1, op, "window must be >= 1, got ", window);
  check(horizon >= 1, op, "horizon must be >= 1, got ", horizon);
  check(stride >= 1, op, "stride must be >= 1, got ", stride);
  const int64_t length = series.shape()[0];
  check(window + horizon <= length, op, "window (", window, ") + horizon (", horizon,
        ") = ", window + horizon, " exceeds the series length ", length, " (series ",
        describe(series), ")");
  const int64_t features = series.rank() == 2 ? series.shape()[1] : 1;
  const int64_t n = (length - window - horizon) / stride + 1;
  std::vector<int32_t> in(static_cast<size_t>(n * window)), out(static_cast<size_t>(n * horizon));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < window; ++k)
      in[static_cast<size_t>(i * window + k)] = static_cast<int32_t>(i * stride + k);
    for (int64_t k = 0; k < horizon; ++k)
      out[static_cast<size_t>(i * horizon + k)] = static_cast<int32_t>(i * stride + window + k);
  }
  std::vector<Tensor> r = tidy([&] {
    Tensor s = reshape(series, {length, features});
    return std::vector<Tensor>{
        reshape(gather(s, tensorInt(in, {n * window}), 0), {n, window, features}),
        reshape(gather(s, tensorInt(out, {n * horizon}), 0), {n, horizon, features})};
  });
  return {r[0], r[1]};
}

Normalization fitStandardization(const Tensor& x, const std::vector<int64_t>& axes) {
  const char* op = "fitStandardization";
  checkLive(op, "x", x);
  check(x.dtype() == DType::float32, op, "x must be float32, got ", describe(x));
  check(!axes.empty(), op, "expected at least one axis");
  for (int64_t a : axes) {
    check(a >= -x.rank() && a < x.rank(), op, "axis ", a, " is out of range for x ", describe(x));
    int64_t axis = a < 0 ? a + x.rank() : a;
    check(x.shape()[static_cast<size_t>(axis)] > 0, op, "axis ", a, " of x ", describe(x),
          " is empty: nothing to fit");
  }
  std::vector<Tensor> r = tidy([&] {
    Moments m = moments(x, axes, true);
    Tensor sd = sqrt(m.variance);
    // Constant data: float rounding leaves a std of ~1e-7 * |mean|; use 1.
    Tensor tiny = mul(abs(m.mean), scalar(1e-6f));
    Tensor constant = lessEqual(sd, tiny);
    return std::vector<Tensor>{m.mean, where(constant, onesLike(sd), sd)};
  });
  return {r[0], r[1]};
}

static void checkFitted(const char* op, const Normalization& n, const Tensor& x) {
  check(n.mean.defined() && n.std.defined(), op, "the normalization is not fitted");
  checkLive(op, "x", x);
  bool ok = x.dtype() == DType::float32 && x.rank() == n.mean.rank();
  for (int d = 0; ok && d < x.rank(); ++d)
    ok = n.mean.shape()[static_cast<size_t>(d)] == 1 ||
         n.mean.shape()[static_cast<size_t>(d)] == x.shape()[static_cast<size_t>(d)];
  check(ok, op, "x ", describe(x), " does not match the fitted statistics ",
        shapeToString(n.mean.shape()),
        ": expected float32 of the same rank, equal in every "
        "dimension that was not fitted over");
}

Tensor Normalization::apply(const Tensor& x) const {
  checkFitted("Normalization.apply", *this, x);
  return tidy([&] { return div(sub(x, mean), std); });
}

Tensor Normalization::invert(const Tensor& x) const {
  checkFitted("Normalization.invert", *this, x);
  return tidy([&] { return add(mul(x, std), mean); });
}

Tensor minMaxScale(const Tensor& x, float lo, float hi, const std::vector<int64_t>& axes) {
  const char* op = "minMaxScale";
  checkLive(op, "x", x);
  check(x.dtype() != DType::boolean, op, "x must be float32 or int32, got ", describe(x));
  check(x.size() > 0, op, "x ", describe(x), " is empty");
  check(std::isfinite(lo) && std::isfinite(hi) && lo < hi, op,
        "expected finite lo < hi, got lo = ", lo, ", hi = ", hi);
  for (int64_t a : axes)
    check(a >= -x.rank() && a < x.rank(), op, "axis ", a, " is out of range for x ", describe(x));
  return tidy([&] {
    Tensor xf = cast(x, DType::float32);
    Tensor mn = min(xf, axes, true), mx = max(xf, axes, true);
    Tensor range = sub(mx, mn);
    Tensor safe = where(greater(range, scalar(0.0f)), range, onesLike(range));
    return add(mul(div(sub(xf, mn), safe), scalar(hi - lo)), scalar(lo));
  });
}

Categories categorize(const std::vector<std::string>& values,
                      const std::vector<std::string>& vocabArg) {
  const char* op = "categorize";
  std::map<std::string, int32_t> ids;
  Categories out;
  if (vocabArg.empty()) {
    for (const std::string& v : values) ids.emplace(v, 0);
    int32_t next = 0;
    for (auto& [value, id] : ids) {
      id = next++;
      out.vocab.push_back(value);
    }
  } else {
    out.vocab = vocabArg;
    for (size_t i = 0; i < vocabArg.size(); ++i) {
      auto [it, fresh] = ids.emplace(vocabArg[i], static_cast<int32_t>(i));
      check(fresh, op, "vocab has '", vocabArg[i], "' twice (indices ", it->second, " and ", i,
            ")");
    }
  }
  std::vector<int32_t> v;
  v.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    auto it = ids.find(values[i]);
    if (it == ids.end()) {
      std::string known;
      for (size_t k = 0; k < out.vocab.size() && k < 10; ++k)
        known += (k ? ", '" : "'") + out.vocab[k] + "'";
      if (out.vocab.size() > 10) known += ", ...";
      fail(op, "value at index ", i, " ('", values[i], "') is not in the vocabulary (",
           out.vocab.size(), " entries: ", known, ")");
    }
    v.push_back(it->second);
  }
  out.ids = tensorInt(v, {static_cast<int64_t>(v.size())});
  return out;
}

Tensor oneHotLabels(const Tensor& labels, int64_t numClasses) {
  const char* op = "oneHotLabels";
  checkLive(op, "labels", labels);
  check(labels.dtype() == DType::int32, op, "labels must be int32, got ", describe(labels));
  check(numClasses >= 1, op, "numClasses must be >= 1, got ", numClasses);
  std::vector<int32_t> v = labels.data<int32_t>();
  for (size_t i = 0; i < v.size(); ++i)
    check(v[i] >= 0 && v[i] < numClasses, op, "label at index ", i, " is ", v[i], ", outside [0, ",
          numClasses, ")");
  return oneHot(labels, numClasses);
}

}  // namespace glint::data
