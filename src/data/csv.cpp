// CSV files (RFC 4180 quoting) as typed columns.
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "glint/data.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/ops.h"
#include "src/data/data_util.h"

namespace glint::data {
namespace {

const char* kOp = "loadCsv";
constexpr size_t kMaxCsvColumns = size_t{1} << 20;

/// Every cell of the file back to back: memory is the cell bytes plus 8
/// bytes a cell, and the parser touches each byte once (no per-record or
/// per-field objects, which cost far more than the cells of a wide file).
struct Cells {
  std::vector<std::string> header;  // the first record when it names the columns
  std::string bytes;                // the data cells' bytes
  std::vector<size_t> ends;         // per data cell, row-major: its end in `bytes`
  std::vector<int64_t> lines;       // per data row: the line it starts on
  size_t ncols = 0;
  std::string_view cell(size_t r, size_t c) const {
    size_t k = r * ncols + c;
    size_t b = k == 0 ? 0 : ends[k - 1];
    return std::string_view(bytes).substr(b, ends[k] - b);
  }
};

/// A byte-at-a-time RFC 4180 state machine, fed the file in chunks.
class Parser {
 public:
  Parser(const std::string& path, const CsvOptions& opt, Cells& out)
      : path_(path), opt_(opt), out_(out) {}

  void feed(const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) byte(p[i]);
  }

  void finish() {
    if (state_ == State::Quoted)
      fail(kOp, "file '", path_, "' line ", quoteLine_, ", field ", fieldsInRecord_ + 1,
           ": unterminated quoted field");
    // The last record, when the file does not end with a line break.
    if (state_ == State::StartField || state_ == State::Unquoted ||
        state_ == State::QuoteInQuoted) {
      pushField();
      endRecord();
    }
    state_ = State::StartRecord;
  }

 private:
  enum class State { StartRecord, StartField, Unquoted, Quoted, QuoteInQuoted, AfterCr };

  void byte(char c) {
    if (c == '\0')
      fail(kOp, "file '", path_, "' line ", line_, ", column ", fieldsInRecord_ + 1,
           ": a NUL byte (CSV is text; this looks like a binary file)");
    switch (state_) {
      case State::AfterCr:
        state_ = State::StartRecord;
        if (c == '\n') return;  // \r\n ends one record
        [[fallthrough]];
      case State::StartRecord:
        recordLine_ = line_;
        recordQuoted_ = false;
        fieldsInRecord_ = 0;
        recordStart_ = out_.bytes.size();
        cellsStart_ = out_.ends.size();
        [[fallthrough]];
      case State::StartField:
        if (c == opt_.quote) {
          state_ = State::Quoted;
          recordQuoted_ = true;
          quoteLine_ = line_;
          return;
        }
        state_ = State::Unquoted;
        [[fallthrough]];
      case State::Unquoted:
        if (c == opt_.delimiter) return endField(State::StartField);
        if (c == '\n' || c == '\r') return endLine(c);
        if (c == opt_.quote)
          fail(kOp, "file '", path_, "' line ", line_, ", field ", fieldsInRecord_ + 1,
               ": a quote inside an unquoted field (quote the whole field and double the quote)");
        out_.bytes += c;
        return;
      case State::Quoted:
        if (c == opt_.quote) {
          state_ = State::QuoteInQuoted;
          return;
        }
        if (c == '\n') ++line_;
        out_.bytes += c;
        return;
      case State::QuoteInQuoted:
        if (c == opt_.quote) {  // "" inside quotes: one quote
          out_.bytes += c;
          state_ = State::Quoted;
          return;
        }
        if (c == opt_.delimiter) return endField(State::StartField);
        if (c == '\n' || c == '\r') return endLine(c);
        fail(kOp, "file '", path_, "' line ", line_, ", field ", fieldsInRecord_ + 1,
             ": unexpected ", quoteForError(std::string(1, c)), " after a closing quote");
    }
  }

  void endField(State next) {
    pushField();
    state_ = next;
  }

  void endLine(char c) {
    pushField();
    endRecord();
    ++line_;
    state_ = c == '\r' ? State::AfterCr : State::StartRecord;
  }

  void pushField() {
    out_.ends.push_back(out_.bytes.size());
    ++fieldsInRecord_;
    // A table holds a tensor per column (hundreds of bytes each): a line of
    // ten million empty fields would take gigabytes, so refuse it as it is read.
    if (fieldsInRecord_ > kMaxCsvColumns)
      fail(kOp, "file '", path_, "' line ", recordLine_, ": more than ", kMaxCsvColumns,
           " columns (the limit)");
  }

  void endRecord() {
    // Blank lines (a single empty, unquoted field) separate nothing: skip them.
    if (fieldsInRecord_ == 1 && !recordQuoted_ && out_.bytes.size() == recordStart_) {
      out_.ends.resize(cellsStart_);
      return;
    }
    if (first_) {
      first_ = false;
      out_.ncols = fieldsInRecord_;
      if (opt_.header) {
        for (size_t k = cellsStart_; k < out_.ends.size(); ++k) {
          size_t b = k == cellsStart_ ? recordStart_ : out_.ends[k - 1];
          out_.header.emplace_back(out_.bytes, b, out_.ends[k] - b);
        }
        out_.bytes.clear();
        out_.ends.clear();
        headerLine_ = recordLine_;
        return;
      }
    } else if (fieldsInRecord_ != out_.ncols) {
      fail(kOp, "file '", path_, "' line ", recordLine_, ": ", fieldsInRecord_,
           " fields, expected ", out_.ncols,
           opt_.header ? " (the header has that many columns)" : " (the first line has that many)");
    }
    out_.lines.push_back(recordLine_);
  }

  const std::string& path_;
  const CsvOptions& opt_;
  Cells& out_;
  State state_ = State::StartRecord;
  int64_t line_ = 1, recordLine_ = 1, quoteLine_ = 1, headerLine_ = 1;
  size_t fieldsInRecord_ = 0, recordStart_ = 0, cellsStart_ = 0;
  bool recordQuoted_ = false, first_ = true;

 public:
  int64_t headerLine() const { return headerLine_; }
  bool sawRecord() const { return !first_; }
};

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string_view() : s.substr(b, e - b + 1);
}

bool parseInt(std::string_view raw, int32_t& out) {
  std::string_view s = trim(raw);
  if (s.empty()) return false;
  size_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (k == s.size()) return false;
  int64_t v = 0;
  for (size_t j = k; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
    v = v * 10 + (s[j] - '0');
    if (v > int64_t{1} << 32) v = int64_t{1} << 32;  // past any int32; no overflow
  }
  if (s[0] == '-') v = -v;
  if (v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<int32_t>(v);
  return true;
}

enum class Num { ok, notANumber, notFinite };

/// strtod's syntax (as before); nan, inf and values past float32's range
/// parse but are not finite.
Num parseFloat(std::string_view raw, float& out) {
  std::string_view s = trim(raw);
  if (s.empty()) return Num::notANumber;
  thread_local std::string buf;  // strtod needs a terminated string
  buf.assign(s);
  char* end = nullptr;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return Num::notANumber;
  out = detail::toFloat(v);
  return std::isfinite(out) ? Num::ok : Num::notFinite;
}

std::string inferType(const Cells& cells, size_t rows, size_t c, bool allowMissing) {
  bool allInt = true, allFloat = true, anyValue = false, anyMissing = false;
  for (size_t r = 0; r < rows; ++r) {
    std::string_view v = cells.cell(r, c);
    if (trim(v).empty()) {
      anyMissing = true;
      continue;
    }
    anyValue = true;
    int32_t i;
    float f;
    if (allInt && !parseInt(v, i)) allInt = false;
    // A non-finite number still makes a float column: loading it then names
    // the cell, instead of turning the column into text.
    if (allFloat && parseFloat(v, f) == Num::notANumber) allFloat = false;
    if (!allFloat) break;
  }
  if (!anyValue || (anyMissing && !allowMissing)) return "string";
  if (allInt && !anyMissing) return "int";
  if (allFloat) return "float";
  return "string";
}

void checkDelimiter(const CsvOptions& opt) {
  check(opt.delimiter != opt.quote && opt.delimiter != '\n' && opt.delimiter != '\r' &&
            opt.delimiter != '\0' && opt.quote != '\0',
        kOp, "the delimiter ", quoteForError(std::string(1, opt.delimiter)),
        " cannot be the quote character, a line break or NUL");
}

CsvTable buildTable(Cells& cells, const CsvOptions& opt, const std::string& path,
                    int64_t headerLine, bool sawRecord) {
  CsvTable table;
  if (opt.header) {
    check(sawRecord, kOp, "file '", path, "' is empty: expected a header line");
    table.names = std::move(cells.header);
    std::unordered_map<std::string_view, size_t> seen;
    seen.reserve(table.names.size());
    for (size_t c = 0; c < table.names.size(); ++c) {
      auto [it, fresh] = seen.emplace(table.names[c], c);
      if (fresh) continue;  // the message only when it fails: a million columns pass here
      fail(kOp, "file '", path, "' line ", headerLine, ": column name '",
           quoteForError(table.names[c]), "' appears twice (columns ", it->second + 1, " and ",
           c + 1, ")");
    }
  } else {
    for (size_t c = 0; c < cells.ncols; ++c) table.names.push_back("col" + std::to_string(c));
  }
  const size_t ncols = table.names.size();
  const size_t rows = cells.lines.size();

  if (!opt.columnTypes.empty()) {
    check(opt.columnTypes.size() == ncols, kOp, "file '", path, "': columnTypes has ",
          opt.columnTypes.size(), " entries but the file has ", ncols, " columns");
    for (size_t c = 0; c < ncols; ++c) {
      const std::string& t = opt.columnTypes[c];
      check(t == "float" || t == "int" || t == "string", kOp, "columnTypes[", c, "] is '",
            quoteForError(t), "': expected \"float\", \"int\" or \"string\"");
    }
    table.types = opt.columnTypes;
  } else {
    table.types.reserve(ncols);
    for (size_t c = 0; c < ncols; ++c)
      table.types.push_back(inferType(cells, rows, c, opt.allowMissing));
  }

  table.rows = static_cast<int64_t>(rows);
  table.lines = cells.lines;
  const Shape shape{table.rows};
  table.numeric.resize(ncols);
  table.strings.resize(ncols);
  std::vector<int32_t> ints;
  std::vector<float> floats;
  for (size_t c = 0; c < ncols; ++c) {
    const std::string& type = table.types[c];
    auto where = [&](size_t r) {
      return "file '" + path + "' line " + std::to_string(cells.lines[r]) + ", column '" +
             quoteForError(table.names[c]) + "' (column " + std::to_string(c + 1) + " of " +
             std::to_string(ncols) + ")";
    };
    if (type == "string") {
      table.strings[c].reserve(rows);
      for (size_t r = 0; r < rows; ++r) table.strings[c].emplace_back(cells.cell(r, c));
    } else if (type == "int") {
      ints.clear();
      for (size_t r = 0; r < rows; ++r) {
        int32_t x = 0;
        std::string_view v = cells.cell(r, c);
        if (!parseInt(v, x)) {
          check(!trim(v).empty(), kOp, where(r), ": empty value in an int column");
          fail(kOp, where(r), ": '", quoteForError(std::string(v)), "' is not an int32 number");
        }
        ints.push_back(x);
      }
      table.numeric[c] = tensorInt(ints, shape);
    } else {
      floats.clear();
      for (size_t r = 0; r < rows; ++r) {
        float x = 0;
        std::string_view v = cells.cell(r, c);
        if (trim(v).empty()) {
          check(opt.allowMissing, kOp, where(r), ": empty value (allowMissing is off)");
          x = std::nanf("");
        } else {
          Num got = parseFloat(v, x);
          if (got == Num::notANumber)
            fail(kOp, where(r), ": '", quoteForError(std::string(v)), "' is not a number");
          if (got == Num::notFinite)
            fail(kOp, where(r), ": '", quoteForError(std::string(v)),
                 "' is not a finite float32 number (nan, inf and magnitudes past 3.4e38 are "
                 "refused: they would train a NaN model)");
        }
        floats.push_back(x);
      }
      table.numeric[c] = tensor(floats, shape);
    }
  }
  return table;
}

bool startsWithBom(const char* p, size_t n) {
  return n >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0;  // UTF-8 byte order mark
}

}  // namespace

CsvTable loadCsv(const std::string& path, const CsvOptions& opt) {
  checkDelimiter(opt);
  detail::DataFile file(path, kOp);
  Cells cells;
  Parser parser(path, opt, cells);
  // Streamed: a hostile file fails at its first bad byte, and a good one is
  // held once, as cells.
  std::vector<char> chunk(size_t{1} << 16);
  bool first = true;
  for (;;) {
    size_t got = file.read(chunk.data(), chunk.size());
    size_t skip = first && startsWithBom(chunk.data(), got) ? 3 : 0;  // UTF-8 byte order mark
    first = false;
    parser.feed(chunk.data() + skip, got - skip);
    if (got < chunk.size()) break;
  }
  parser.finish();
  return buildTable(cells, opt, path, parser.headerLine(), parser.sawRecord());
}

CsvTable parseCsv(const std::string& text, const CsvOptions& opt, const std::string& path) {
  checkDelimiter(opt);
  Cells cells;
  Parser parser(path, opt, cells);
  size_t skip = startsWithBom(text.data(), text.size()) ? 3 : 0;
  parser.feed(text.data() + skip, text.size() - skip);
  parser.finish();
  return buildTable(cells, opt, path, parser.headerLine(), parser.sawRecord());
}

Tensor classIds(const CsvTable& table, const std::string& name, int64_t maxClasses) {
  const char* op = "classIds";
  size_t c = table.index(name);
  auto where = [&](size_t r) {
    std::string line =
        r < table.lines.size() ? "line " + std::to_string(table.lines[r]) + ", " : "";
    return line + "row " + std::to_string(r + 1) + ", column '" + quoteForError(name) + "'";
  };
  if (table.types[c] == "string") {
    Categories cats = categorize(table.strings[c]);
    check(static_cast<int64_t>(cats.vocab.size()) <= maxClasses, op, "column '",
          quoteForError(name), "' has ", cats.vocab.size(), " distinct labels, more than ",
          maxClasses, " classes (the limit)");
    return cats.ids;
  }
  std::vector<int32_t> ids(static_cast<size_t>(table.numeric[c].size()));
  if (table.types[c] == "int") {
    // Exact: a float copy would round 2147483647 to 2147483648.
    ids = table.numeric[c].data<int32_t>();
    for (size_t r = 0; r < ids.size(); ++r)
      check(ids[r] >= 0 && ids[r] < maxClasses, op, where(r), ": the label ", ids[r],
            " is outside [0, ", maxClasses, ") (class labels are 0..classes-1, and at most ",
            maxClasses, " classes)");
    return table.numeric[c];
  }
  std::vector<float> v = table.numeric[c].toFloats();
  for (size_t r = 0; r < v.size(); ++r) {
    const float x = v[r];
    check(std::isfinite(x), op, where(r), ": the label is missing or not finite (", x, ")");
    check(x == std::floor(x), op, where(r), ": the label ", x,
          " is not a whole number; class labels are 0, 1, 2, ...");
    check(x >= 0 && x < static_cast<float>(maxClasses), op, where(r), ": the label ",
          static_cast<int64_t>(x), " is outside [0, ", maxClasses,
          ") (class labels are 0..classes-1, and at most ", maxClasses, " classes)");
    ids[r] = static_cast<int32_t>(x);
  }
  return tensorInt(ids, {static_cast<int64_t>(ids.size())});
}

size_t CsvTable::index(const std::string& name) const {
  for (size_t c = 0; c < names.size(); ++c)
    if (names[c] == name) return c;
  std::string known;
  for (size_t c = 0; c < names.size() && known.size() < 200; ++c)
    known += (known.empty() ? "'" : ", '") + names[c] + "'";
  fail("CsvTable", "no column '", quoteForError(name), "' (", names.size(),
       " columns: ", quoteForError(known), ")");
}

Tensor CsvTable::column(const std::string& name) const {
  size_t c = index(name);
  check(numeric[c].defined(), "CsvTable.column", "column '", name,
        "' holds strings; use text() (and categorize() for ids)");
  return numeric[c];
}

const std::vector<std::string>& CsvTable::text(const std::string& name) const {
  size_t c = index(name);
  check(types[c] == "string", "CsvTable.text", "column '", name, "' is ", types[c],
        "; use column()");
  return strings[c];
}

Tensor CsvTable::features(const std::vector<std::string>& cols) const {
  check(!cols.empty(), "CsvTable.features", "expected at least one column name");
  // One lookup table, not a scan of the names per column (quadratic for a
  // file a million columns wide).
  std::unordered_map<std::string_view, size_t> at;
  at.reserve(names.size());
  for (size_t c = 0; c < names.size(); ++c) at.emplace(names[c], c);
  std::vector<Tensor> parts;
  for (const std::string& name : cols) {
    auto it = at.find(name);
    size_t c = it != at.end() ? it->second : index(name);
    check(numeric[c].defined(), "CsvTable.features", "column '", name,
          "' holds strings; encode it first (categorize, oneHotLabels)");
    parts.push_back(numeric[c]);
  }
  return tidy([&] {
    std::vector<Tensor> floats;
    for (const Tensor& t : parts) floats.push_back(cast(t, DType::float32));
    return stack(floats, 1);
  });
}

}  // namespace glint::data
