// Graph ops whose work depends on input values (indices, ids, splits, shapes,
// block sizes, boxes) fed random small tensors: each run ends in a result or
// a glint::Error naming the node, never a crash or a read out of bounds
// (make test-asan runs this under AddressSanitizer, which is where an
// unchecked index shows). Hand-picked cases (GraphOpsMore.*, GraphSparseOps.*)
// missed one such read; random ranks, sizes and values reach the rest.
#include <gtest/gtest.h>

#include <random>

#include "glint/glint.h"
#include "glint/graph_model.h"
#include "tests/unit/graph_builder.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

// An op and what its inputs are: 'f' float32 data, 'i' int32 values from -2
// to 6 (indices, ids, splits, sizes), 's' a small int32 shape-like vector.
struct HostileOp {
  const char* op;
  const char* inputs;
  Json attr = Json::object();
};

Json word(const std::string& v) { return {{"s", base64(v)}}; }

std::vector<HostileOp> hostileOps() {
  Json ragged = {{"row_partition_types", {{"list", {{"s", {base64("ROW_SPLITS")}}}}}}};
  Json firstDim = {{"row_partition_types",
                    {{"list", {{"s", {base64("FIRST_DIM_SIZE"), base64("VALUE_ROWIDS")}}}}}}};
  return {
      {"SparseToDense", "isff"},
      {"ScatterNd", "ifs"},
      {"TensorScatterUpdate", "fif"},
      {"Unique", "i"},
      {"UniqueV2", "fs"},
      {"ListDiff", "ii"},
      {"LowerBound", "ff"},
      {"Bincount", "isf"},
      {"DenseBincount", "isf"},
      {"SparseSegmentSum", "fii"},
      {"SparseSegmentMean", "fii"},
      {"SparseFillEmptyRows", "ifsf"},
      {"SparseReshape", "iss"},
      {"RaggedRange", "iii"},
      {"RaggedGather", "ifi"},
      {"RaggedTensorToTensor", "sffi", ragged},
      {"RaggedTensorToTensor", "sffsi", firstDim},
      {"OneHot", "isff"},
      {"MatrixBandPart", "fss"},
      {"BroadcastTo", "fs"},
      {"BroadcastArgs", "ss"},
      {"MirrorPad", "fi", {{"mode", word("REFLECT")}}},
      {"MirrorPad", "fi", {{"mode", word("SYMMETRIC")}}},
      {"SpaceToBatchND", "fsi"},
      {"BatchToSpaceND", "fsi"},
      {"ReverseV2", "fs"},
      {"Cumsum", "fs", {{"exclusive", {{"b", true}}}, {"reverse", {{"b", true}}}}},
      {"Tile", "fs"},
      {"GatherV2", "fis"},
      {"CropAndResize", "ffis"},
      {"ImageProjectiveTransformV3",
       "ffsf",
       {{"interpolation", word("BILINEAR")}, {"fill_mode", word("WRAP")}}},
      {"Zeros", "s"},
      {"LinSpace", "ffs"},
  };
}

TEST(GraphOpsHostile, RandomValuesEndInResultsOrErrors) {
  std::mt19937 rng(20261208);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int results = 0, errors = 0;
  for (const HostileOp& h : hostileOps()) {
    Graph g;
    std::vector<std::string> names;
    std::string kinds = h.inputs;
    for (size_t k = 0; k < kinds.size(); ++k) {
      names.push_back("in" + std::to_string(k));
      g.placeholder(names.back(), kinds[k] == 'f' ? DType::float32 : DType::int32);
    }
    g.node("y", h.op, names, h.attr);
    GraphModel m = g.load("hostile.json");
    for (int trial = 0; trial < 600; ++trial) {
      std::vector<std::pair<std::string, Tensor>> feeds;
      for (size_t k = 0; k < kinds.size(); ++k) {
        // Ranks 0-3 with sizes 0-4 (a shape-like 's' input is a short vector).
        int rank = kinds[k] == 's' ? pick(0, 1) : pick(0, 3);
        Shape shape;
        for (int d = 0; d < rank; ++d) shape.push_back(kinds[k] == 's' ? pick(0, 4) : pick(0, 4));
        int64_t size = shapeSize(shape);
        if (kinds[k] == 'f') {
          std::vector<float> v(static_cast<size_t>(size));
          for (float& x : v) x = static_cast<float>(pick(-40, 40)) / 10.0f;
          feeds.emplace_back(names[k], tensor(v, shape));
        } else {
          std::vector<int32_t> v(static_cast<size_t>(size));
          for (int32_t& x : v) x = pick(-2, 6);
          feeds.emplace_back(names[k], tensorInt(v, shape));
        }
      }
      try {
        for (const Tensor& t : m.execute(feeds, {"y"})) (void)t.toFloats();
        ++results;
      } catch (const Error& e) {
        // Whatever went wrong is named: the file, the node and its op.
        std::string what = e.what();
        EXPECT_NE(what.find("hostile.json"), std::string::npos) << h.op << ": " << what;
        EXPECT_NE(what.find(h.op), std::string::npos) << h.op << ": " << what;
        ++errors;
      }
    }
  }
  std::printf("hostile graph ops: %d runs gave results, %d gave errors\n", results, errors);
  // Both kinds of end were reached: the values were valid often enough to run.
  EXPECT_GT(results, 800);
  EXPECT_GT(errors, 800);
}

}  // namespace
}  // namespace glint::testing
