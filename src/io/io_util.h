#pragma once
// Internals shared by the io sources.
#include <cstdint>
#include <string>

#include "glint/io.h"

namespace glint::io {

uint16_t floatToHalf(float value);
float halfToFloat(uint16_t half);

/// A manifest entry as TF.js writes it, and back (validated; `source` and
/// `where` locate it in messages).
Json specToJson(const WeightSpec& spec);
WeightSpec specFromJson(const Json& j, const std::string& source, const std::string& where);

/// "file://a/b" -> "a/b"; other schemes are an error naming the URL.
std::string pathFromUrl(const std::string& url, const std::string& op);

}  // namespace glint::io
