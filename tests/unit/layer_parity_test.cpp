// Layer parity with TF.js 4.22 (run through `make test-interop`): every case
// written by tests/interop/tfjs_layers.mjs is loaded, predicted on every
// backend and compared with TF.js's predictions, then saved back with
// Glint's predictions for tfjs_check.mjs to load in TF.js.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "glint/engine.h"
#include "glint/io.h"
#include "glint/json.h"
#include "glint/layers.h"
#include "glint/model.h"
#include "glint/ops.h"
#include "tests/unit/doc_table.h"

namespace glint::testing {
namespace {

namespace fs = std::filesystem;

Json readJsonFile(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

Tensor tensorFromJson(const Json& j) {
  Shape shape = j.at("shape").get<Shape>();
  if (j.value("dtype", "float32") == "int32")
    return tensorInt(j.at("data").get<std::vector<int32_t>>(), shape);
  return tensor(j.at("data").get<std::vector<float>>(), shape);
}

Json tensorJson(const Tensor& t) {
  return {{"shape", t.shape()}, {"dtype", "float32"}, {"data", t.toFloats()}};
}

// Worst |glint - tfjs| relative to max(1, |tfjs|): layers such as Dense on
// unnormalised inputs reach values where 1e-4 absolute is below float32's
// resolution.
double worstError(const std::vector<Tensor>& got, const Json& expected, const std::string& name) {
  EXPECT_EQ(got.size(), expected.size()) << name << ": number of outputs";
  double worst = 0;
  for (size_t i = 0; i < std::min(got.size(), expected.size()); ++i) {
    EXPECT_EQ(got[i].shape(), expected[i].at("shape").get<Shape>()) << name << ": output " << i;
    if (got[i].shape() != expected[i].at("shape").get<Shape>()) return INFINITY;
    std::vector<float> g = got[i].toFloats();
    auto want = expected[i].at("data").get<std::vector<double>>();
    for (size_t k = 0; k < g.size(); ++k) {
      double err = std::fabs(g[k] - want[k]) / std::max(1.0, std::fabs(want[k]));
      if (std::isnan(err) && !(std::isnan(g[k]) && std::isnan(want[k]))) err = INFINITY;
      if (!std::isnan(err)) worst = std::max(worst, err);
    }
  }
  return worst;
}

struct BackendRestore {
  std::string saved = getBackend();
  ~BackendRestore() { setBackend(saved); }
};

TEST(IoInterop, TfjsLayerCasesPredictLikeTfjs) {
  const char* dir = std::getenv("GLINT_INTEROP_DIR");
  ASSERT_TRUE(dir && *dir) << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  fs::path root = fs::path(dir) / "layers", back = fs::path(dir) / "layers_back";
  ASSERT_TRUE(fs::is_directory(root))
      << "missing " << root << " (tests/interop/tfjs_layers.mjs writes it)";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.json")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  ASSERT_FALSE(cases.empty());
  BackendRestore restore;
  constexpr double kTolerance = 1e-4;
  for (const fs::path& d : cases) {
    const std::string name = d.filename().string();
    Json inputs = readJsonFile(d / "input.json").at("inputs");
    Json expected = readJsonFile(d / "expected.json").at("outputs");
    for (const std::string& backend : availableBackends()) {
      setBackend(backend);
      try {
        ModelPtr m = io::load(d.string());
        std::vector<Tensor> xs;
        for (const Json& j : inputs) xs.push_back(tensorFromJson(j));
        std::vector<Tensor> ys = m->predict(xs);
        double worst = worstError(ys, expected, name + " on " + backend);
        std::printf("layer parity: %s on %s: %s (worst relative error %.2e)\n", name.c_str(),
                    backend.c_str(), worst <= kTolerance ? "PASS" : "FAIL", worst);
        EXPECT_LE(worst, kTolerance) << name << " on " << backend;
        if (backend == "reference") {
          io::save(*m, (back / name).string());
          Json in = Json::object(), out = Json::object();
          in["inputs"] = inputs;
          out["outputs"] = Json::array();
          for (const Tensor& y : ys) out["outputs"].push_back(tensorJson(y));
          std::ofstream(back / name / "input.json") << in.dump();
          std::ofstream(back / name / "expected.json") << out.dump();
        }
      } catch (const Error& e) {
        ADD_FAILURE() << "TF.js layer case " << name << " on " << backend << ": " << e.what();
      }
    }
  }
  std::printf("layer parity: %zu TF.js cases on %zu backends\n", cases.size(),
              availableBackends().size());
}

// docs/LAYERS.md has a row "| Class | ... | status |" for every class; the
// status is "yes" exactly for the classes Glint knows.
std::map<std::string, std::string> documentedLayerStatus() {
  std::map<std::string, std::string> status;
  for (const auto& cells : markdownRows(fs::path(GLINT_SOURCE_DIR) / "docs" / "LAYERS.md", "Class"))
    if (cells.size() >= 3) status[cells[0]] = cells[2];
  return status;
}

TEST(IoInterop, EveryTfjsLayerClassIsKnownAndDocumented) {
  const char* dir = std::getenv("GLINT_INTEROP_DIR");
  ASSERT_TRUE(dir && *dir) << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  Json tfjs = readJsonFile(fs::path(dir) / "tfjs_layer_classes.json");
  std::vector<std::string> known = layers::knownClassNames();
  auto glintKnows = [&](const std::string& c) {
    return std::find(known.begin(), known.end(), c) != known.end();
  };
  std::map<std::string, std::string> documented = documentedLayerStatus();
  ASSERT_FALSE(documented.empty()) << "docs/LAYERS.md has no class table";
  for (const Json& j : tfjs) {
    std::string c = j.get<std::string>();
    EXPECT_TRUE(glintKnows(c)) << "TF.js 4.22 has layer class " << c << "; Glint does not";
    ASSERT_TRUE(documented.count(c)) << "docs/LAYERS.md does not list TF.js's layer class " << c;
  }
  for (const auto& [c, status] : documented)
    EXPECT_EQ(status == "yes", glintKnows(c))
        << "docs/LAYERS.md says '" << status << "' for " << c << ", but Glint "
        << (glintKnows(c) ? "knows" : "does not know") << " it";
}

}  // namespace
}  // namespace glint::testing
