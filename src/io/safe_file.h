#pragma once
// Reading a file named by a user or by a file from elsewhere: only regular
// files, never more bytes than a budget allows, never blocking on a FIFO,
// and (for files a manifest names) never outside the folder it came from.
#include <cstdint>
#include <string>
#include <vector>

namespace glint::io {

/// The whole of the regular file `path`, at most `maxBytes`. Opens without
/// blocking (O_NONBLOCK) and checks the opened file: a directory, named pipe,
/// device or socket is an error saying so; its size is checked against
/// `maxBytes` before a byte is read, and at most maxBytes + 1 are read, so a
/// file that grows meanwhile is caught too. Errors are glint::Errors of `op`
/// starting with `source`, calling the file `what` ("weight shard file") and
/// the limit `limit` ("LoadOptions.maxModelJsonBytes").
std::vector<uint8_t> readRegularFile(const std::string& path, int64_t maxBytes,
                                     const std::string& op, const std::string& source,
                                     const std::string& what,
                                     const std::string& limit = "the limit",
                                     const std::string& shownAs = "");
/// The same as text; `shownAs` (default: `path`) is the name messages give the file.
std::string readRegularFileText(const std::string& path, int64_t maxBytes, const std::string& op,
                                const std::string& source, const std::string& what,
                                const std::string& limit = "the limit",
                                const std::string& shownAs = "");

/// `path` with its links resolved, which must lie inside `folder` (also
/// resolved); else an error of `op` naming `source`, the file and where it
/// leads. A missing file resolves as far as it exists (opening reports it).
std::string resolveInside(const std::string& folder, const std::string& path, const std::string& op,
                          const std::string& source, const std::string& what);

}  // namespace glint::io
