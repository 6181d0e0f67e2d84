#pragma once
// gzip decompression for the loaders, through zlib (native builds). The
// WebAssembly build has no zlib (Emscripten's port is a download), so there
// a gzip file is a clear error: decompress it first or let the browser do it.
#include <cstdint>
#include <string>
#include <vector>

namespace glint::data::detail {

/// True when the bytes start with the gzip magic (1f 8b).
bool isGzip(const std::vector<uint8_t>& bytes);
/// Decompresses every gzip member in `bytes` (zlib checks CRC-32 and size).
/// Errors throw glint::Error "[op] <what>: corrupt gzip data: ...", and so
/// does output beyond maxBytes (a small file may claim gigabytes: a "bomb").
std::vector<uint8_t> gunzip(const std::vector<uint8_t>& bytes, const std::string& op,
                            const std::string& what, int64_t maxBytes);

}  // namespace glint::data::detail
