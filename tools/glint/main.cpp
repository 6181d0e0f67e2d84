// glint: the command-line tool. `glint kernels [--json]` prints which backend
// implements which kernel.
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "glint/backend.h"
#include "glint/engine.h"

namespace {

int printKernels(bool json) {
  std::vector<std::string> backends = glint::registeredBackends();
  auto table = glint::kernelTable();
  if (json) {
    nlohmann::ordered_json out;
    out["backends"] = backends;
    out["kernels"] = nlohmann::ordered_json::object();
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Glint: train and run neural networks natively and in the browser"};
  app.require_subcommand(1);
  bool json = false;
  CLI::App* kernels = app.add_subcommand("kernels", "print the kernel x backend table");
  kernels->add_flag("--json", json, "machine-readable output");
  CLI11_PARSE(app, argc, argv);
  try {
    if (kernels->parsed()) return printKernels(json);
  } catch (const std::exception& e) {
    std::cerr << "glint: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
