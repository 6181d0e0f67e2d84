// IDX files (the MNIST family's format) and Fashion-MNIST.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "glint/data.h"
#include "glint/error.h"
#include "src/data/data_util.h"
#include "src/data/inflate.h"

namespace glint::data {
namespace {

// A parsed, size-checked IDX file: element i is read on demand from `bytes`.
struct Idx {
  uint8_t type = 0;
  int elemBytes = 0;
  Shape dims;
  int64_t count = 0;
  std::vector<uint8_t> bytes;
  size_t offset = 0;

  bool isFloat() const { return type == 0x0D || type == 0x0E; }
  uint64_t raw(int64_t i) const {
    const uint8_t* p = bytes.data() + offset + static_cast<size_t>(i) * elemBytes;
    uint64_t v = 0;
    for (int b = 0; b < elemBytes; ++b) v = v << 8 | p[b];  // big-endian
    return v;
  }
  double value(int64_t i) const {
    uint64_t v = raw(i);
    switch (type) {
      case 0x08:
        return static_cast<double>(v);
      case 0x09:
        return static_cast<int8_t>(v);
      case 0x0B:
        return static_cast<int16_t>(v);
      case 0x0C:
        return static_cast<int32_t>(v);
      case 0x0D: {
        uint32_t u = static_cast<uint32_t>(v);
        float f;
        std::memcpy(&f, &u, 4);
        return f;
      }
      default: {
        double d;
        std::memcpy(&d, &v, 8);
        return d;
      }
    }
  }
};

const char* typeName(uint8_t type) {
  switch (type) {
    case 0x08:
      return "ubyte";
    case 0x09:
      return "sbyte";
    case 0x0B:
      return "short";
    case 0x0C:
      return "int";
    case 0x0D:
      return "float";
    case 0x0E:
      return "double";
  }
  return "?";
}

// `what` names the data in messages ("file 'x'").
Idx parseIdx(std::vector<uint8_t> bytes, const std::string& op, std::string what,
             int64_t maxBytes) {
  Idx idx;
  idx.bytes = std::move(bytes);
  check(static_cast<int64_t>(idx.bytes.size()) <= maxBytes, op, what, ": ", idx.bytes.size(),
        " bytes, more than the limit of ", maxBytes);
  if (detail::isGzip(idx.bytes)) {
    idx.bytes = detail::gunzip(idx.bytes, op, what, maxBytes);
    what += " (after gunzip)";
  }
  const std::vector<uint8_t>& b = idx.bytes;
  check(b.size() >= 4, op, what, ": ", b.size(), " bytes is too short for an IDX header");
  if (b[0] != 0 || b[1] != 0) {
    char magic[16];
    std::snprintf(magic, sizeof magic, "0x%02X%02X%02X%02X", b[0], b[1], b[2], b[3]);
    fail(op, what, ": wrong magic number ", magic,
         ": an IDX file starts with 00 00 <type code> <rank>");
  }
  idx.type = b[2];
  switch (idx.type) {
    case 0x08:
    case 0x09:
      idx.elemBytes = 1;
      break;
    case 0x0B:
      idx.elemBytes = 2;
      break;
    case 0x0C:
    case 0x0D:
      idx.elemBytes = 4;
      break;
    case 0x0E:
      idx.elemBytes = 8;
      break;
    default: {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", idx.type);
      fail(op, what, ": unknown IDX type code ", code,
           " (expected 0x08 ubyte, 0x09 sbyte, 0x0B short, 0x0C int, 0x0D float, 0x0E double)");
    }
  }
  const int rank = b[3];
  idx.offset = 4 + 4 * static_cast<size_t>(rank);
  check(b.size() >= idx.offset, op, what, ": the header declares ", rank, " dimensions (",
        idx.offset, " header bytes) but the file has only ", b.size(), " bytes");
  for (int d = 0; d < rank; ++d) {
    const uint8_t* p = &b[4 + 4 * static_cast<size_t>(d)];
    idx.dims.push_back(int64_t{p[0]} << 24 | int64_t{p[1]} << 16 | int64_t{p[2]} << 8 | p[3]);
  }
  // Compare the claim with what is there before anything is allocated; the
  // double product cannot overflow the way an integer one could.
  const size_t dataBytes = b.size() - idx.offset;
  // Even with a 0 dimension (no data), the shape must have a representable size.
  double extent = 1;
  for (int64_t d : idx.dims) extent *= static_cast<double>(std::max<int64_t>(d, 1));
  check(extent < 0x1p53, op, what, ": the header's shape ", shapeToString(idx.dims),
        " is impossibly large");
  double claimed = idx.elemBytes;
  for (int64_t d : idx.dims) claimed *= static_cast<double>(d);
  if (claimed != static_cast<double>(dataBytes)) {
    fail(op, what, ": truncated or corrupt: the header claims ", typeName(idx.type), " ",
         shapeToString(idx.dims), " = ", claimed, " data bytes after the ", idx.offset,
         "-byte header, but the file has ", dataBytes,
         claimed < static_cast<double>(dataBytes) ? " (extra bytes at the end)" : "");
  }
  idx.count = static_cast<int64_t>(dataBytes) / idx.elemBytes;
  return idx;
}

Idx readIdx(const std::string& path, const std::string& op) {
  return parseIdx(detail::readFile(path, op, kMaxDecodedBytes), op, "file '" + path + "'",
                  kMaxDecodedBytes);
}

Tensor idxToTensor(const Idx& idx, std::optional<DType> as, const std::string& what) {
  DType dtype = as ? *as : (idx.isFloat() ? DType::float32 : DType::int32);
  check(dtype != DType::boolean, "loadIdx", what, ": cannot load IDX data as bool");
  check(!(dtype == DType::int32 && idx.isFloat()), "loadIdx", what, ": holds ", typeName(idx.type),
        " values; loading them as int32 would truncate them");
  const size_t n = static_cast<size_t>(idx.count);
  if (dtype == DType::int32) {
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(idx.value(static_cast<int64_t>(i)));
    return tensorInt(v, idx.dims);
  }
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = detail::toFloat(idx.value(static_cast<int64_t>(i)));
  return tensor(v, idx.dims);
}

// Anything at the path counts: a directory or a pipe there is then named by
// readFile ("it is a directory") instead of being reported as missing.
bool fileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string findIdx(const std::string& dir, const std::string& base) {
  std::string plain = dir + "/" + base;
  if (fileExists(plain)) return plain;
  if (fileExists(plain + ".gz")) return plain + ".gz";
  fail("loadFashionMnist", "neither '", plain, "' nor '", plain,
       ".gz' exists (Debian's dataset-fashion-mnist package installs them in ", kFashionMnistDir,
       "; scripts/bootstrap.sh installs it)");
}

}  // namespace

Tensor loadIdx(const std::string& path, std::optional<DType> as) {
  return idxToTensor(readIdx(path, "loadIdx"), as, "file '" + path + "'");
}

Tensor decodeIdx(std::vector<uint8_t> bytes, std::optional<DType> as, const std::string& source,
                 int64_t maxBytes) {
  return idxToTensor(parseIdx(std::move(bytes), "loadIdx", source, maxBytes), as, source);
}

LabeledImages loadFashionMnist(const std::string& dirArg, bool train) {
  const std::string op = "loadFashionMnist";
  const std::string dir = dirArg.empty() ? kFashionMnistDir : dirArg;
  const std::string prefix = train ? "train" : "t10k";
  const std::string imagesPath = findIdx(dir, prefix + "-images-idx3-ubyte");
  const std::string labelsPath = findIdx(dir, prefix + "-labels-idx1-ubyte");
  Idx images = readIdx(imagesPath, op);
  Idx labels = readIdx(labelsPath, op);
  check(images.type == 0x08 && images.dims.size() == 3 && images.dims[1] == 28 &&
            images.dims[2] == 28,
        op, "file '", imagesPath, "': expected ubyte images [n,28,28], got ", typeName(images.type),
        " ", shapeToString(images.dims));
  check(labels.type == 0x08 && labels.dims.size() == 1, op, "file '", labelsPath,
        "': expected ubyte labels [n], got ", typeName(labels.type), " ",
        shapeToString(labels.dims));
  const int64_t n = images.dims[0];
  check(labels.dims[0] == n, op, "file '", labelsPath, "' has ", labels.dims[0], " labels but '",
        imagesPath, "' has ", n, " images");
  std::vector<int32_t> ys(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int32_t y = static_cast<int32_t>(labels.raw(i));
    check(y < 10, op, "file '", labelsPath, "': label at index ", i, " is ", y,
          ", outside [0, 10)");
    ys[static_cast<size_t>(i)] = y;
  }
  std::vector<float> xs(static_cast<size_t>(images.count));
  const uint8_t* px = images.bytes.data() + images.offset;
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(px[i]) / 255.0f;
  return {tensor(xs, {n, 28, 28, 1}), tensorInt(ys, {n})};
}

}  // namespace glint::data
