#include <algorithm>
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "glint/backend.h"
#include "glint/json.h"

namespace glint::cli {

int kernelsCommand(bool json) {
  std::vector<std::string> backends = registeredBackends();
  auto table = kernelTable();
  if (json) {
    Json out;
    out["backends"] = backends;
    out["kernels"] = Json::object();
    for (const auto& [kernel, have] : table) out["kernels"][kernel] = have;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  size_t width = 6;
  for (const auto& [kernel, have] : table) width = std::max(width, kernel.size());
  std::cout << std::left << std::setw(static_cast<int>(width) + 2) << "kernel";
  for (const auto& b : backends) std::cout << std::setw(static_cast<int>(b.size()) + 2) << b;
  std::cout << "\n";
  size_t missing = 0;
  for (const auto& [kernel, have] : table) {
    std::cout << std::setw(static_cast<int>(width) + 2) << kernel;
    for (const auto& b : backends) {
      bool ok = std::find(have.begin(), have.end(), b) != have.end();
      missing += ok ? 0 : 1;
      std::cout << std::setw(static_cast<int>(b.size()) + 2) << (ok ? "yes" : "MISSING");
    }
    std::cout << "\n";
  }
  std::cout << table.size() << " kernels x " << backends.size() << " backends, " << missing
            << " missing\n";
  return missing == 0 ? 0 : 1;
}

}  // namespace glint::cli
