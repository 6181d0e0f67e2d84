#pragma once
// The per-dispatch scalars of a GPU kernel, by name. Shaders read them from
// one float array (gl: `uniform float u_params[N]`; webgpu: the storage
// buffer `u_params`), so a learning rate or an alpha changes without a new
// program. A kernel adds each scalar with its name and writes `$name` in its
// shader text; expand() turns every `$name` into that scalar's element. The
// order is decided here once, not agreed between a C++ list and two shaders.
#include <cctype>
#include <string>
#include <vector>

#include "glint/error.h"

namespace glint {

class ParamBlock {
 public:
  ParamBlock& add(std::string name, double value) {
    names_.push_back(std::move(name));
    values_.push_back(static_cast<float>(value));
    return *this;
  }

  /// `code` with each `$name` replaced by `u_params[i]`. A name never added is
  /// a kernel's bug: it fails naming the name and the ones there are.
  std::string expand(const std::string& code) const {
    std::string out;
    out.reserve(code.size());
    for (size_t i = 0; i < code.size(); ++i) {
      if (code[i] != '$') {
        out += code[i];
        continue;
      }
      size_t end = i + 1;
      while (end < code.size() &&
             (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_'))
        ++end;
      out += "u_params[" + std::to_string(indexOf(code.substr(i + 1, end - i - 1))) + "]";
      i = end - 1;
    }
    return out;
  }

  const std::vector<float>& values() const { return values_; }
  size_t size() const { return values_.size(); }

 private:
  size_t indexOf(const std::string& name) const {
    for (size_t k = 0; k < names_.size(); ++k)
      if (names_[k] == name) return k;
    std::string known;
    for (const std::string& n : names_) known += (known.empty() ? "" : ", ") + n;
    fail("ParamBlock", "shader text reads $", name,
         ", which the kernel did not add (it has: ", known.empty() ? "none" : known, ")");
  }

  std::vector<std::string> names_;
  std::vector<float> values_;
};

}  // namespace glint
