// CSV files (RFC 4180 quoting) as typed columns.
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "glint/data.h"
#include "glint/engine.h"
#include "glint/error.h"
#include "glint/ops.h"
#include "src/data/data_util.h"

namespace glint::data {
namespace {

const char* kOp = "loadCsv";

struct Record {
  int64_t line;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

std::vector<Record> parseRecords(const std::string& path, const std::string& text,
                                 const CsvOptions& opt) {
  std::vector<Record> records;
  size_t i = 0;
  int64_t line = 1;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // UTF-8 byte order mark
  const size_t n = text.size();
  while (i < n) {
    Record rec{line, {}};
    std::string field;
    bool endOfRecord = false, quoted = false;
    while (!endOfRecord) {
      field.clear();
      if (i < n && text[i] == opt.quote) {
        quoted = true;
        const int64_t startLine = line;
        ++i;
        for (;;) {
          if (i >= n)
            fail(kOp, "file '", path, "' line ", startLine, ", field ", rec.fields.size() + 1,
                 ": unterminated quoted field");
          char c = text[i++];
          if (c == opt.quote) {
            if (i < n && text[i] == opt.quote) {
              field += c;
              ++i;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line;
            field += c;
          }
        }
        if (i < n && text[i] != opt.delimiter && text[i] != '\n' && text[i] != '\r')
          fail(kOp, "file '", path, "' line ", line, ", field ", rec.fields.size() + 1,
               ": unexpected '", text[i], "' after a closing quote");
      } else {
        while (i < n && text[i] != opt.delimiter && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == opt.quote)
            fail(kOp, "file '", path, "' line ", line, ", field ", rec.fields.size() + 1,
                 ": a quote inside an unquoted field (quote the whole field and double the quote)");
          field += text[i++];
        }
      }
      rec.fields.push_back(field);
      if (i < n && text[i] == opt.delimiter) {
        ++i;
      } else {
        if (i < n && text[i] == '\r') ++i;
        if (i < n && text[i] == '\n') ++i;
        ++line;
        endOfRecord = true;
      }
    }
    // Blank lines (a single empty, unquoted field) separate nothing: skip them.
    if (rec.fields.size() == 1 && rec.fields[0].empty() && !quoted) continue;
    records.push_back(std::move(rec));
  }
  return records;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool parseInt(const std::string& raw, int32_t& out) {
  std::string s = trim(raw);
  if (s.empty()) return false;
  size_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (k == s.size()) return false;
  for (size_t j = k; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') return false;
  errno = 0;
  long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<int32_t>(v);
  return true;
}

bool parseFloat(const std::string& raw, float& out) {
  std::string s = trim(raw);
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  out = detail::toFloat(v);
  return true;
}

std::string inferType(const std::vector<Record>& rows, size_t c, bool allowMissing) {
  bool allInt = true, allFloat = true, anyValue = false, anyMissing = false;
  for (const Record& r : rows) {
    const std::string& v = r.fields[c];
    if (trim(v).empty()) {
      anyMissing = true;
      continue;
    }
    anyValue = true;
    int32_t i;
    float f;
    if (allInt && !parseInt(v, i)) allInt = false;
    if (allFloat && !parseFloat(v, f)) allFloat = false;
    if (!allFloat) break;
  }
  if (!anyValue || (anyMissing && !allowMissing)) return "string";
  if (allInt && !anyMissing) return "int";
  if (allFloat) return "float";
  return "string";
}

}  // namespace

CsvTable loadCsv(const std::string& path, const CsvOptions& opt) {
  std::vector<uint8_t> bytes = detail::readFile(path, kOp);
  std::string text(bytes.begin(), bytes.end());
  bytes.clear();
  return parseCsv(text, opt, path);
}

CsvTable parseCsv(const std::string& text, const CsvOptions& opt, const std::string& path) {
  check(opt.delimiter != opt.quote && opt.delimiter != '\n' && opt.delimiter != '\r', kOp,
        "the delimiter '", opt.delimiter, "' cannot be the quote character or a line break");
  std::vector<Record> records = parseRecords(path, text, opt);

  CsvTable table;
  size_t first = 0;
  if (opt.header) {
    check(!records.empty(), kOp, "file '", path, "' is empty: expected a header line");
    table.names = records[0].fields;
    first = 1;
    std::unordered_map<std::string, size_t> seen;
    for (size_t c = 0; c < table.names.size(); ++c) {
      auto [it, fresh] = seen.emplace(table.names[c], c);
      check(fresh, kOp, "file '", path, "' line ", records[0].line, ": column name '",
            table.names[c], "' appears twice (columns ", it->second + 1, " and ", c + 1, ")");
    }
  } else if (!records.empty()) {
    for (size_t c = 0; c < records[0].fields.size(); ++c)
      table.names.push_back("col" + std::to_string(c));
  }
  const size_t ncols = table.names.size();
  std::vector<Record> rows(std::make_move_iterator(records.begin() + first),
                           std::make_move_iterator(records.end()));
  for (const Record& r : rows)
    check(r.fields.size() == ncols, kOp, "file '", path, "' line ", r.line, ": ",
          r.fields.size(), " fields, expected ", ncols,
          opt.header ? " (the header has that many columns)" : " (the first line has that many)");

  if (!opt.columnTypes.empty()) {
    check(opt.columnTypes.size() == ncols, kOp, "file '", path, "': columnTypes has ",
          opt.columnTypes.size(), " entries but the file has ", ncols, " columns");
    for (size_t c = 0; c < ncols; ++c) {
      const std::string& t = opt.columnTypes[c];
      check(t == "float" || t == "int" || t == "string", kOp, "columnTypes[", c, "] is '", t,
            "': expected \"float\", \"int\" or \"string\"");
    }
    table.types = opt.columnTypes;
  } else {
    for (size_t c = 0; c < ncols; ++c) table.types.push_back(inferType(rows, c, opt.allowMissing));
  }

  table.rows = static_cast<int64_t>(rows.size());
  const Shape shape{table.rows};
  table.numeric.resize(ncols);
  table.strings.resize(ncols);
  for (size_t c = 0; c < ncols; ++c) {
    const std::string& type = table.types[c];
    auto where = [&](const Record& r) {
      return "file '" + path + "' line " + std::to_string(r.line) + ", column '" +
             table.names[c] + "'";
    };
    if (type == "string") {
      for (const Record& r : rows) table.strings[c].push_back(r.fields[c]);
    } else if (type == "int") {
      std::vector<int32_t> v;
      v.reserve(rows.size());
      for (const Record& r : rows) {
        int32_t x = 0;
        if (!parseInt(r.fields[c], x)) {
          check(!trim(r.fields[c]).empty(), kOp, where(r), ": empty value in an int column");
          fail(kOp, where(r), ": '", r.fields[c], "' is not an int32 number");
        }
        v.push_back(x);
      }
      table.numeric[c] = tensorInt(v, shape);
    } else {
      std::vector<float> v;
      v.reserve(rows.size());
      for (const Record& r : rows) {
        float x = 0;
        if (trim(r.fields[c]).empty()) {
          check(opt.allowMissing, kOp, where(r), ": empty value (allowMissing is off)");
          x = std::nanf("");
        } else if (!parseFloat(r.fields[c], x)) {
          fail(kOp, where(r), ": '", r.fields[c], "' is not a number");
        }
        v.push_back(x);
      }
      table.numeric[c] = tensor(v, shape);
    }
  }
  return table;
}

size_t CsvTable::index(const std::string& name) const {
  for (size_t c = 0; c < names.size(); ++c)
    if (names[c] == name) return c;
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "'" : ", '") + n + "'";
  fail("CsvTable", "no column '", name, "' (columns: ", known, ")");
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
  std::vector<Tensor> parts;
  for (const std::string& name : cols) {
    size_t c = index(name);
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
