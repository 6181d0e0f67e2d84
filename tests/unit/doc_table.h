#pragma once
// The rows of the markdown tables of a doc that tests hold to the code
// (docs/LAYERS.md, docs/GRAPH_OPS.md): cells trimmed, header and separator
// rows left out.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace glint::testing {

/// Rows "| a | b | ... |" of `file` whose first cell is neither `header` nor
/// a separator.
inline std::vector<std::vector<std::string>> markdownRows(const std::filesystem::path& file,
                                                          const std::string& header) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) {
      size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    if (!cells.empty() && !cells[0].empty() && cells[0] != header && cells[0][0] != '-')
      rows.push_back(std::move(cells));
  }
  return rows;
}

}  // namespace glint::testing
