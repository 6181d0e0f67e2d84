#pragma once
// Element types. Storage: float32 -> float, int32 -> int32_t, bool -> uint8_t.
#include <cstddef>
#include <cstdint>
#include <string>

namespace glint {

enum class DType { float32, int32, boolean };

/// Bytes per element of a dtype.
size_t byteSize(DType dtype);
/// "float32", "int32" or "bool" (the TF.js spellings).
const char* dtypeName(DType dtype);
/// Parses a TF.js dtype name; throws glint::Error on an unknown one.
DType parseDType(const std::string& name);

/// Maps a C++ element type to its dtype (float, int32_t, uint8_t/bool).
template <class T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::float32;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::int32;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::boolean;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::boolean;
};

}  // namespace glint
