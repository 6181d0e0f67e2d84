// The --emit lines (emit.h).
#include "tests/kernel_fuzz/emit.h"

#include <cmath>
#include <cstdio>

namespace glint::kfuzz {

namespace {

void writeFloats(std::ostream& out, const std::vector<float>& v) {
  out << '[';
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out << ',';
    if (std::isnan(v[i])) out << "\"NaN\"";
    else if (std::isinf(v[i])) out << (v[i] > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else if (v[i] == 0.0f && std::signbit(v[i]))
      out << "-0.0";  // "-0" would parse as the integer 0 in Python
    else {
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v[i]));
      out << buf;
    }
  }
  out << ']';
}

void writeTensor(std::ostream& out, const Shape& shape, DType dtype, const std::vector<float>& v) {
  out << "{\"shape\":" << Json(shape).dump() << ",\"dtype\":\"" << dtypeName(dtype)
      << "\",\"values\":";
  writeFloats(out, v);
  out << '}';
}

}  // namespace

void emitCall(std::ostream& out, const Generator& g, const Knobs& knobs, const Call& call,
              const Evaluation& reference) {
  Json head = {{"generator", g.name},
               {"replay", g.name + ":" + knobsText(knobs)},
               {"describe", call.describe},
               {"spec", call.spec},
               {"rtol", call.rtol},
               {"atol", call.atol},
               {"gradScale", call.gradScale},
               {"checkGrad", call.checkGrad && !reference.grads.empty()},
               {"gradInputs", reference.gradInputs},
               {"tags", call.tags}};
  std::string text = head.dump();
  text.pop_back();  // the object goes on with the arrays, written by hand
  out << text << ",\"inputs\":[";
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const InputData& d = call.inputs[i];
    if (i) out << ',';
    writeTensor(out, d.shape, d.dtype, d.values);
  }
  out << "],\"output\":";
  writeTensor(out, reference.shape, reference.dtype, reference.values);
  out << ",\"w\":";
  writeFloats(out, reference.weights);
  out << ",\"grads\":[";
  for (size_t i = 0; i < reference.grads.size(); ++i) {
    if (i) out << ',';
    writeFloats(out, reference.grads[i]);
  }
  out << "]}\n";
}

}  // namespace glint::kfuzz
