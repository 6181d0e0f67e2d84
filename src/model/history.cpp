// History's reads by name: Keras's and TF.js's names for the same series.
#include <string>

#include "glint/error.h"
#include "glint/metrics.h"
#include "glint/model.h"

namespace glint {

namespace {

/// One spelling per series: "val_" kept, then the metric's canonical name
/// ("acc", "accuracy" -> "accuracy"; "mse" -> "meanSquaredError"), else an
/// output-prefixed "<output>_accuracy" as "<output>_acc" (TF.js's log name).
std::string seriesKey(const std::string& name) {
  const bool val = name.rfind("val_", 0) == 0;
  std::string rest = val ? name.substr(4) : name;
  try {
    rest = metrics::canonicalName(rest);
  } catch (const Error&) {
    const std::string suffix = "_accuracy";
    if (rest.size() > suffix.size() &&
        rest.compare(rest.size() - suffix.size(), suffix.size(), suffix) == 0)
      rest = rest.substr(0, rest.size() - suffix.size()) + "_acc";
  }
  return (val ? "val_" : "") + rest;
}

}  // namespace

const std::vector<double>& HistoryLogs::operator[](const std::string& name) const {
  if (auto it = find(name); it != end()) return it->second;
  const std::string key = seriesKey(name);
  for (const auto& [k, series] : *this)
    if (seriesKey(k) == key) return series;
  std::string known;
  bool validation = false;
  for (const auto& [k, series] : *this) {
    known += (known.empty() ? "" : ", ") + k;
    validation = validation || k.rfind("val_", 0) == 0;
  }
  fail("History", "no series '", name, "'; known: ", known.empty() ? "none" : known,
       name.rfind("val_", 0) == 0 && !validation
           ? " (validation series need validationSplit or validation data in fit)"
           : "");
}

}  // namespace glint
