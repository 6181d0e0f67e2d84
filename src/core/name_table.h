#pragma once
// Lookup by name for losses, metrics, activations...: case and '_' are
// ignored ("categorical_crossentropy" == "categoricalCrossentropy"), aliases
// map to a canonical name, and an unknown name is an error listing the known.
#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "glint/error.h"

namespace glint {

/// "Categorical_CrossEntropy" -> "categoricalcrossentropy".
inline std::string nameKey(const std::string& name) {
  std::string k;
  for (char c : name)
    if (c != '_') k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

template <class Fn>
class NameTable {
 public:
  /// `op` starts error messages ("losses.get"); `kind` names an entry ("loss").
  NameTable(std::string op, std::string kind, std::vector<std::pair<std::string, Fn>> canonical)
      : op_(std::move(op)), kind_(std::move(kind)) {
    for (auto& [name, fn] : canonical) entries_[nameKey(name)] = Entry{name, std::move(fn), name};
  }
  NameTable& alias(const std::string& spelling, const std::string& target) {
    Entry e = entries_.at(nameKey(target));
    e.spelling = spelling;
    entries_[nameKey(spelling)] = std::move(e);
    return *this;
  }
  bool contains(const std::string& name) const { return entries_.count(nameKey(name)) > 0; }
  std::string canonicalName(const std::string& name) const { return find(name).canonical; }
  const Fn& get(const std::string& name) const { return find(name).fn; }
  /// Canonical names only, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, e] : entries_)
      if (e.spelling == e.canonical) out.push_back(e.canonical);
    return out;
  }

 private:
  struct Entry {
    std::string canonical;
    Fn fn;
    std::string spelling;  // as registered, for error messages
  };
  const Entry& find(const std::string& name) const {
    auto it = entries_.find(nameKey(name));
    if (it == entries_.end()) {
      std::string known;
      for (const auto& [k, e] : entries_) known += (known.empty() ? "" : ", ") + e.spelling;
      fail(op_, "unknown ", kind_, " '", name, "'; known (case and '_' ignored): ", known);
    }
    return it->second;
  }
  std::string op_, kind_;
  std::map<std::string, Entry> entries_;
};

}  // namespace glint
