// Weight encoding in TF.js's binary layout: each tensor's elements,
// little-endian, one after the other; optional float16 / uint8 quantization.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "glint/error.h"
#include "glint/io.h"
#include "src/io/io_util.h"

namespace glint::io {

namespace {

template <class T>
void appendRaw(std::vector<uint8_t>& out, const std::vector<T>& values) {
  size_t at = out.size();
  out.resize(at + values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data() + at, values.data(), values.size() * sizeof(T));
}

// Affine uint8 range that represents 0 exactly when it lies inside [lo, hi]
// (so zero padding / biases stay exact), as TF.js's converter does.
Quantization uint8Range(const std::vector<float>& values) {
  Quantization q{"uint8", 0.0, 1.0};
  if (values.empty()) return q;
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  if (!(hi > lo)) {  // constant: every value encodes as 0
    q.min = lo;
    return q;
  }
  double scale = (hi - lo) / 255.0;
  if (lo < 0 && hi > 0) lo = -std::round(-lo / scale) * scale;
  q.min = lo;
  q.scale = scale;
  return q;
}

}  // namespace

uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // too large: infinity
  if (e <= 0) {                                               // half subnormal or zero
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    int shift = 14 - e;
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;  // round to nearest even
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
    ++half;  // a carry may reach infinity: correct
  return static_cast<uint16_t>(sign | half);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

int64_t weightByteLength(const WeightSpec& spec, const std::string& source) {
  const std::string op = "io";
  int64_t count = 1;
  for (int64_t d : spec.shape) {
    check(d >= 0, op, source, ": weight '", Quoted{spec.name},
          "' has a negative dimension in shape ", shapeToString(spec.shape));
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / 8 / d)
      fail(op, source, ": weight '", Quoted{spec.name}, "' has an impossibly large shape ",
           shapeToString(spec.shape));
    count *= d;
  }
  int64_t bytes = static_cast<int64_t>(byteSize(spec.dtype));
  if (spec.quantization) {
    const Quantization& q = *spec.quantization;
    if (q.dtype == "uint8" || q.dtype == "uint16") {
      check(spec.dtype != DType::boolean, op, source, ": weight '", Quoted{spec.name},
            "' is bool; ", q.dtype, " quantization applies to float32 and int32 weights only");
      check(std::isfinite(q.min) && std::isfinite(q.scale), op, source, ": weight '",
            Quoted{spec.name}, "' has a non-finite quantization min/scale");
      bytes = q.dtype == "uint8" ? 1 : 2;
      // Every code must dequantize into the weight's dtype (no overflow on conversion).
      double top = q.min + q.scale * (bytes == 1 ? 255.0 : 65535.0);
      double limit = spec.dtype == DType::int32 ? 2147483647.0 : std::numeric_limits<float>::max();
      check(std::isfinite(top) && std::fabs(q.min) <= limit && std::fabs(top) <= limit, op, source,
            ": weight '", Quoted{spec.name}, "' has quantization min ", q.min, " and scale ",
            q.scale, ", whose codes dequantize outside the ", dtypeName(spec.dtype), " range");
    } else if (q.dtype == "float16") {
      check(spec.dtype == DType::float32, op, source, ": weight '", Quoted{spec.name}, "' is ",
            dtypeName(spec.dtype), "; float16 quantization applies to float32 weights only");
      bytes = 2;
    } else {
      fail(op, source, ": weight '", Quoted{spec.name}, "' has unknown quantization dtype '",
           Quoted{q.dtype}, "'; expected uint8, uint16 or float16");
    }
  }
  return count * bytes;
}

std::pair<std::vector<WeightSpec>, std::vector<uint8_t>> encodeWeights(const NamedTensors& tensors,
                                                                       const std::string& group,
                                                                       Quantize quantize) {
  std::vector<WeightSpec> specs;
  std::vector<uint8_t> data;
  for (const auto& [name, t] : tensors) {
    check(t.defined() && !t.isDisposed(), "io.encodeWeights", "weight '", name,
          "' is undefined or disposed");
    WeightSpec spec{name, t.shape(), t.dtype(), group, std::nullopt};
    if (t.dtype() == DType::float32 && quantize != Quantize::none) {
      std::vector<float> values = t.data<float>();
      if (quantize == Quantize::float16) {
        spec.quantization = Quantization{"float16", 0.0, 1.0};
        std::vector<uint16_t> half(values.size());
        for (size_t i = 0; i < values.size(); ++i) half[i] = floatToHalf(values[i]);
        appendRaw(data, half);
      } else {
        Quantization q = uint8Range(values);
        std::vector<uint8_t> codes(values.size());
        for (size_t i = 0; i < values.size(); ++i) {
          double c = std::round((values[i] - q.min) / q.scale);
          codes[i] = static_cast<uint8_t>(std::clamp(c, 0.0, 255.0));
        }
        spec.quantization = q;
        appendRaw(data, codes);
      }
    } else if (t.dtype() == DType::float32) {
      appendRaw(data, t.data<float>());
    } else if (t.dtype() == DType::int32) {
      appendRaw(data, t.data<int32_t>());
    } else {
      appendRaw(data, t.data<uint8_t>());
    }
    specs.push_back(std::move(spec));
  }
  return {std::move(specs), std::move(data)};
}

NamedTensors decodeWeights(const std::vector<uint8_t>& data, const std::vector<WeightSpec>& specs,
                           const std::string& source) {
  int64_t total = 0;
  for (const WeightSpec& s : specs) total += weightByteLength(s, source);
  check(total == static_cast<int64_t>(data.size()), "io", source, ": the manifest describes ",
        total, " bytes of weights (", specs.size(), " weights) but the data holds ", data.size(),
        " bytes");
  NamedTensors out;
  size_t at = 0;
  for (const WeightSpec& s : specs) {
    int64_t n = shapeSize(s.shape);
    const uint8_t* p = data.data() + at;
    at += static_cast<size_t>(weightByteLength(s, source));
    if (!s.quantization) {
      out.emplace_back(s.name, fromBytes(p, s.shape, s.dtype));
      continue;
    }
    const Quantization& q = *s.quantization;
    std::vector<double> values(static_cast<size_t>(n));  // TF.js dequantizes in double
    for (int64_t i = 0; i < n; ++i) {
      if (q.dtype == "float16") {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        values[i] = halfToFloat(h);
      } else {
        double code;
        if (q.dtype == "uint8") {
          code = p[i];
        } else {
          uint16_t c;
          std::memcpy(&c, p + 2 * i, 2);
          code = c;
        }
        values[i] = code * q.scale + q.min;
      }
    }
    if (s.dtype == DType::int32) {
      std::vector<int32_t> ints(values.size());
      for (size_t i = 0; i < values.size(); ++i)
        ints[i] = static_cast<int32_t>(std::llround(values[i]));
      out.emplace_back(s.name, tensorInt(ints, s.shape));
    } else {
      out.emplace_back(s.name, tensor(std::vector<float>(values.begin(), values.end()), s.shape));
    }
  }
  return out;
}

}  // namespace glint::io
