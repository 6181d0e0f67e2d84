#include "glint/error.h"
#include "src/data/inflate.h"

#ifndef __EMSCRIPTEN__
#include <zlib.h>
#endif

namespace glint::data::detail {

bool isGzip(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

#ifdef __EMSCRIPTEN__

std::vector<uint8_t> gunzip(const std::vector<uint8_t>&, const std::string& op,
                            const std::string& what, int64_t) {
  fail(op, what,
       ": is gzip-compressed, and this WebAssembly build reads only "
       "uncompressed files; decompress it first");
}

#else

std::vector<uint8_t> gunzip(const std::vector<uint8_t>& bytes, const std::string& op,
                            const std::string& what, int64_t maxBytes) {
  std::vector<uint8_t> out;
  z_stream z{};
  // 15 + 16: a gzip wrapper around deflate, with the largest window.
  if (inflateInit2(&z, 15 + 16) != Z_OK) fail(op, what, ": zlib could not start");
  z.next_in = const_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  uint8_t chunk[1 << 16];
  int rc = Z_OK;
  while (true) {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    size_t got = sizeof chunk - z.avail_out;
    if (static_cast<int64_t>(out.size() + got) > maxBytes) {
      inflateEnd(&z);
      fail(op, what, ": decompresses to more than ", maxBytes, " bytes (the limit)");
    }
    out.insert(out.end(), chunk, chunk + got);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // another gzip member follows (concatenated .gz)
      continue;
    }
    if (rc != Z_OK) break;
    if (z.avail_in == 0 && z.avail_out != 0) {
      rc = Z_BUF_ERROR;  // input ended inside a member
      break;
    }
  }
  std::string message = z.msg ? z.msg : (rc == Z_BUF_ERROR ? "the file ends early" : "error");
  inflateEnd(&z);
  if (rc != Z_STREAM_END) fail(op, what, ": corrupt gzip data: ", message);
  return out;
}

#endif

}  // namespace glint::data::detail
