#include "glint/dtype.h"

#include "glint/error.h"

namespace glint {

size_t byteSize(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return 4;
    case DType::int32:
      return 4;
    case DType::boolean:
      return 1;
  }
  return 0;
}

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return "float32";
    case DType::int32:
      return "int32";
    case DType::boolean:
      return "bool";
  }
  return "?";
}

DType parseDType(const std::string& name) {
  if (name == "float32") return DType::float32;
  if (name == "int32") return DType::int32;
  if (name == "bool") return DType::boolean;
  fail("dtype", "unknown dtype '", name, "': expected float32, int32 or bool");
}

}  // namespace glint
