// glint-ml's fit and fitDataset (JS, WebAssembly) against Model::fit and
// fitDataset (native): tests/interop/glint_fit.mjs trains a small model in
// node and saves it before and after with the data and options; here the
// saved starting model trains natively with the same options. The two must
// end with the same weights (to float noise: WebAssembly and native kernels
// round differently) and log the same history, which holds only if the
// shuffles, the validation split and the logs are the same loop's. Driven by
// `make test-interop` (GLINT_INTEROP_DIR), as the other IoInterop tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "glint/data.h"
#include "glint/glint.h"
#include "glint/json.h"
#include "tests/unit/op_harness.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace glint::testing {
namespace {

namespace fs = std::filesystem;

Json readFitJson(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

Tensor fromRecord(const Json& j) {
  return tensor(j["values"].get<std::vector<float>>(), j["shape"].get<Shape>());
}

ModelPtr loadCompiled(const fs::path& dir) {
  ModelPtr m = io::load(dir.string());
  m->compile({.optimizer = std::shared_ptr<Optimizer>(sgd(0.1f)),
              .loss = {"meanSquaredError"},
              .metrics = {"mae"}});
  return m;
}

double worstWeightGap(Model& a, Model& b) {
  std::vector<Tensor> wa = a.getWeights(), wb = b.getWeights();
  EXPECT_EQ(wa.size(), wb.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(wa.size(), wb.size()); ++i) {
    std::vector<float> va = wa[i].toFloats(), vb = wb[i].toFloats();
    EXPECT_EQ(va.size(), vb.size());
    for (size_t k = 0; k < std::min(va.size(), vb.size()); ++k)
      worst = std::max(worst, static_cast<double>(std::fabs(va[k] - vb[k])));
  }
  return worst;
}

void expectSameHistory(const History& native, const Json& js, const std::string& what) {
  ASSERT_EQ(native.history.size(), js.size()) << what << ": logged names differ";
  for (const auto& [name, values] : native.history) {
    ASSERT_TRUE(js.contains(name)) << what << ": JS did not log " << name;
    auto jsValues = js[name].get<std::vector<double>>();
    ASSERT_EQ(values.size(), jsValues.size()) << what << " " << name;
    for (size_t e = 0; e < values.size(); ++e)
      EXPECT_NEAR(values[e], jsValues[e], 1e-4 * std::max(1.0, std::fabs(values[e])))
          << what << " " << name << " epoch " << e;
  }
}

TEST(IoInterop, JsFitTrainsAsNativeFit) {
  const char* dir = std::getenv("GLINT_INTEROP_DIR");
  ASSERT_TRUE(dir) << "run through `make test-interop`, which sets GLINT_INTEROP_DIR";
  const fs::path root = fs::path(dir) / "fit";
  ASSERT_TRUE(fs::exists(root / "fit.json")) << "tests/interop/glint_fit.mjs did not run";
  Json record = readFitJson(root / "fit.json");
  Tensor x = fromRecord(record["x"]), y = fromRecord(record["y"]);

  {  // fit: shuffled with a seed, a validation split.
    const Json& c = record["cases"]["fit"];
    const Json& o = c["options"];
    ModelPtr native = loadCompiled(root / "fit" / "initial");
    History h = native->fit(x, y,
                            {.epochs = o["epochs"].get<int>(),
                             .batchSize = o["batchSize"].get<int>(),
                             .shuffle = o["shuffle"].get<bool>(),
                             .validationSplit = o["validationSplit"].get<float>(),
                             .seed = o["seed"].get<uint64_t>()});
    ModelPtr js = io::load((root / "fit" / "trained").string());
    const double gap = worstWeightGap(*native, *js);
    std::printf("interop: glint-ml fit -> native fit: max |weight gap| %.2e\n", gap);
    EXPECT_LE(gap, 1e-4);
    expectSameHistory(h, c["history"], "fit");
    EXPECT_TRUE(h.history.count("val_loss"));
  }
  {  // fitDataset: batches in order, validation tensors.
    const Json& c = record["cases"]["fitDataset"];
    const Json& o = c["options"];
    const int64_t batch = o["batchSize"].get<int64_t>();
    ModelPtr native = loadCompiled(root / "fitDataset" / "initial");
    data::Dataset train = data::fromTensors({x, y}).batch(batch);
    Tensor vx = slice(x, {0, 0}, {12, 3}), vy = slice(y, {0, 0}, {12, 2});
    data::Dataset val = data::fromTensors({vx, vy}).batch(12);
    History h =
        native->fitDataset(train, {.epochs = o["epochs"].get<int>(), .validationData = &val});
    ModelPtr js = io::load((root / "fitDataset" / "trained").string());
    const double gap = worstWeightGap(*native, *js);
    std::printf("interop: glint-ml fitDataset -> native fitDataset: max |weight gap| %.2e\n", gap);
    EXPECT_LE(gap, 1e-4);
    expectSameHistory(h, c["history"], "fitDataset");
  }
}

}  // namespace
}  // namespace glint::testing
