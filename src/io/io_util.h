#pragma once
// Internals shared by the io sources.
#include <cstdint>
#include <ostream>
#include <string>

#include "glint/error.h"
#include "glint/io.h"
#include "glint/json.h"

namespace glint::io {

/// Text from a file in a message: streams as quoteForError(text), and only
/// when the message is built (a check that passes costs nothing).
struct Quoted {
  const std::string& text;
};
inline std::ostream& operator<<(std::ostream& os, const Quoted& q) {
  return os << quoteForError(q.text);
}
/// A JSON value from a file in a message: dumped (invalid UTF-8 replaced, not
/// thrown), then quoted and capped.
std::string jsonForError(const Json& j);

uint16_t floatToHalf(float value);
float halfToFloat(uint16_t half);

/// A manifest entry as TF.js writes it, and back (validated; `source` and
/// `where` locate it in messages).
Json specToJson(const WeightSpec& spec);
WeightSpec specFromJson(const Json& j, const std::string& source, const std::string& where);

/// The one rule for a shard path in a manifest, for every reader: relative,
/// no "..", ".", "", NUL or backslash: the normalized path, else an error
/// naming `source` and the path (quoted, capped).
std::string checkShardPath(const std::string& path, const std::string& source);

/// "file://a/b" -> "a/b"; other schemes are an error naming the URL.
std::string pathFromUrl(const std::string& url, const std::string& op);

}  // namespace glint::io
