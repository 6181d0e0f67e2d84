// The graph ops of src/graph/graph_ops_{sparse,ragged,random}.cpp on graphs
// built here. Random ops draw from Glint's generators, which TF.js cannot
// check: their shapes, dtypes, ranges and moments are checked against the
// distributions' own statistics, and the seed attrs against TF's meaning
// (seed = seed2 = 0 fresh draws, else the same tensor every run and on every
// backend). Bad inputs must end in errors naming the node, the op, the
// argument and the shapes. Values TF.js can compute are in GraphInterop.*.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "glint/glint.h"
#include "glint/graph_model.h"
#include "glint/json.h"
#include "tests/unit/graph_builder.h"
#include "tests/unit/op_harness.h"

namespace glint::testing {
namespace {

Json seeds(int64_t seed, int64_t seed2) {
  return {{"seed", {{"i", std::to_string(seed)}}},
          {"seed2", {{"i", std::to_string(seed2)}}},
          {"dtype", {{"type", "DT_FLOAT"}}}};
}

struct Stats {
  double mean = 0, variance = 0, lo = INFINITY, hi = -INFINITY;
};
Stats stats(const std::vector<float>& v) {
  Stats s;
  for (float x : v) {
    s.mean += x;
    s.lo = std::min<double>(s.lo, x);
    s.hi = std::max<double>(s.hi, x);
  }
  s.mean /= static_cast<double>(v.size());
  for (float x : v) s.variance += (x - s.mean) * (x - s.mean);
  s.variance /= static_cast<double>(v.size());
  return s;
}

// Random ops with seeds (7, 3), and the same ops unseeded (suffix _free).
GraphModel randomGraph() {
  Graph g;
  g.ints("shape", {40, 100});
  g.ints("lo", {-3}, {});
  g.ints("hi", {4}, {});
  g.ints("samples", {4000}, {});
  // Class probabilities 0.2, 0.3, 0.5 in row 0; class 0 impossible in row 1.
  g.floats("logits", {std::log(0.2f), std::log(0.3f), std::log(0.5f), -1e9f, 0, 0}, {2, 3});
  for (auto [suffix, seed, seed2] : {std::tuple{"", 7, 3}, std::tuple{"_free", 0, 0}}) {
    std::string s = suffix;
    g.node("uniform" + s, "RandomUniform", {"shape"}, seeds(seed, seed2));
    g.node("normal" + s, "RandomStandardNormal", {"shape"}, seeds(seed, seed2));
    g.node("truncated" + s, "TruncatedNormal", {"shape"}, seeds(seed, seed2));
    g.node("ints" + s, "RandomUniformInt", {"shape", "lo", "hi"}, seeds(seed, seed2));
    g.node("draws" + s, "Multinomial", {"logits", "samples"}, seeds(seed, seed2));
  }
  g.node("uniform_other", "RandomUniform", {"shape"}, seeds(7, 4));
  return g.load("sparse.json");
}

const std::vector<std::string> kRandomNodes{"uniform", "normal", "truncated", "ints", "draws"};

TEST(GraphSparseOps, RandomOpsHaveTheirDistributions) {
  GraphModel m = randomGraph();
  onEveryBackend([&] {
    std::vector<Tensor> out = m.execute({}, kRandomNodes);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(out[i].shape(), (Shape{40, 100})) << kRandomNodes[i];
    EXPECT_EQ(out[3].dtype(), DType::int32);
    EXPECT_EQ(out[4].shape(), (Shape{2, 4000}));
    EXPECT_EQ(out[4].dtype(), DType::int32);
    // 4000 draws: the mean's standard error is under 0.02 for each.
    Stats u = stats(out[0].toFloats());
    EXPECT_GE(u.lo, 0.0);
    EXPECT_LT(u.hi, 1.0);
    EXPECT_NEAR(u.mean, 0.5, 0.03);
    EXPECT_NEAR(u.variance, 1.0 / 12, 0.01);
    Stats n = stats(out[1].toFloats());
    EXPECT_NEAR(n.mean, 0, 0.08);
    EXPECT_NEAR(n.variance, 1, 0.1);
    EXPECT_LT(n.hi, 6);
    // A standard normal cut at +-2 has variance 0.7737.
    Stats t = stats(out[2].toFloats());
    EXPECT_GE(t.lo, -2.0);
    EXPECT_LE(t.hi, 2.0);
    EXPECT_NEAR(t.mean, 0, 0.06);
    EXPECT_NEAR(t.variance, 0.7737, 0.06);
    std::vector<int32_t> k = out[3].data<int32_t>();
    std::vector<int> seen(7, 0);
    for (int32_t x : k) {
      ASSERT_TRUE(x >= -3 && x < 4) << x;
      ++seen[static_cast<size_t>(x + 3)];
    }
    for (int c : seen) EXPECT_NEAR(c / 4000.0, 1.0 / 7, 0.03);
    std::vector<int32_t> d = out[4].data<int32_t>();
    std::vector<double> freq(3, 0);
    for (size_t i = 0; i < 4000; ++i) freq[static_cast<size_t>(d[i])] += 1 / 4000.0;
    EXPECT_NEAR(freq[0], 0.2, 0.03);
    EXPECT_NEAR(freq[1], 0.3, 0.03);
    EXPECT_NEAR(freq[2], 0.5, 0.03);
    int row1[3] = {0, 0, 0};
    for (size_t i = 4000; i < 8000; ++i) ++row1[d[i]];
    EXPECT_EQ(row1[0], 0);
    EXPECT_NEAR(row1[1] / 4000.0, 0.5, 0.04);
  });
}

TEST(GraphSparseOps, RandomSeedsRepeatOnEveryBackend) {
  GraphModel m = randomGraph();
  std::vector<std::vector<float>> first;
  onEveryBackend([&] {
    std::vector<Tensor> a = m.execute({}, kRandomNodes), b = m.execute({}, kRandomNodes);
    std::vector<std::string> free;
    for (const std::string& n : kRandomNodes) free.push_back(n + "_free");
    std::vector<Tensor> c = m.execute({}, free), d = m.execute({}, free);
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].toFloats(), b[i].toFloats()) << kRandomNodes[i] << " seeded, run twice";
      EXPECT_NE(c[i].toFloats(), d[i].toFloats()) << kRandomNodes[i] << " unseeded, run twice";
      if (first.size() < a.size()) first.push_back(a[i].toFloats());
      EXPECT_EQ(a[i].toFloats(), first[i]) << kRandomNodes[i] << " seeded, across backends";
    }
    EXPECT_NE(m.execute({}, {"uniform_other"})[0].toFloats(), a[0].toFloats())
        << "seed2 must change the draw";
  });
}

// Runs `out` of a graph that `build` writes and expects an error naming it.
void expectNodeError(const std::function<void(Graph&)>& build, const std::string& out,
                     const std::vector<std::string>& fragments) {
  Graph g;
  build(g);
  GraphModel m = g.load("sparse.json");
  std::vector<std::string> all{"sparse.json", "'" + out + "'"};
  all.insert(all.end(), fragments.begin(), fragments.end());
  expectError([&] { m.execute({}, {out}); }, all);
}

Json T(const char* t = "DT_FLOAT") { return {{"T", {{"type", t}}}}; }

TEST(GraphSparseOps, BadInputsNameTheArgumentAndShapes) {
  onEveryBackend([&] {
    expectNodeError(
        [](Graph& g) {
          g.ints("idx", {0, 5, 2}, {3, 1});
          g.floats("upd", std::vector<float>(9, 1), {3, 3});
          g.ints("shape", {5, 3});
          g.node("s", "ScatterNd", {"idx", "upd", "shape"}, T());
        },
        "s", {"ScatterNd", "indices[1] = [5]", "shape [5,3]"});
    expectNodeError(
        [](Graph& g) {
          g.ints("idx", {0, 1}, {2, 1});
          g.floats("upd", std::vector<float>(4, 1), {2, 2});
          g.ints("shape", {5, 3});
          g.node("s", "ScatterNd", {"idx", "upd", "shape"}, T());
        },
        "s", {"ScatterNd", "updates have shape [2,2]", "[2,3]"});
    expectNodeError(
        [](Graph& g) {
          g.floats("x", std::vector<float>(6, 0), {2, 3});
          g.ints("idx", {0, -1}, {1, 2});
          g.floats("upd", {1});
          g.node("u", "TensorScatterUpdate", {"x", "idx", "upd"}, T());
        },
        "u", {"TensorScatterUpdate", "indices[0] = [0,-1]", "shape [2,3]"});
    expectNodeError(
        [](Graph& g) {
          g.ints("idx", {0, 0, 3, 1}, {2, 2});
          g.ints("shape", {3, 4});
          g.floats("v", {1, 2});
          g.floats("d", {0}, {});
          g.node("d2", "SparseToDense", {"idx", "shape", "v", "d"}, T());
        },
        "d2", {"SparseToDense", "sparse_indices[1] = [3,1]", "shape [3,4]"});
    expectNodeError(
        [](Graph& g) {
          g.floats("x", {1, 2, 3, 4}, {2, 2});
          g.node("u", "Unique", {"x"}, T());
        },
        "u", {"Unique", "x must be a vector", "[2,2]"});
    expectNodeError(
        [](Graph& g) {
          g.floats("s", {1, 2, 3, 4, 5, 6}, {2, 3});
          g.floats("v", {1, 2, 3}, {3, 1});
          g.node("lb", "LowerBound", {"s", "v"}, T());
        },
        "lb", {"LowerBound", "sorted_sequence [2,3]", "values [3,1]"});
    expectNodeError(
        [](Graph& g) {
          g.ints("arr", {1, -2, 0});
          g.ints("size", {4}, {});
          g.floats("w", {});
          g.node("b", "Bincount", {"arr", "size", "w"}, T());
        },
        "b", {"Bincount", "arr[1] = -2", "non-negative"});
    expectNodeError(
        [](Graph& g) {
          g.ints("arr", {1, 2, 0});
          g.ints("size", {4}, {});
          g.floats("w", {1, 2});
          g.node("b", "DenseBincount", {"arr", "size", "w"}, T());
        },
        "b", {"DenseBincount", "weights have shape [2]", "arr has shape [3]"});
    expectNodeError(
        [](Graph& g) {
          g.floats("data", std::vector<float>(6, 1), {3, 2});
          g.ints("idx", {0, 3});
          g.ints("seg", {0, 0});
          g.node("ss", "SparseSegmentSum", {"data", "idx", "seg"}, T());
        },
        "ss", {"SparseSegmentSum", "indices[1] = 3", "data of shape [3,2]"});
    expectNodeError(
        [](Graph& g) {
          g.floats("data", std::vector<float>(6, 1), {3, 2});
          g.ints("idx", {0, 1});
          g.ints("seg", {1, 0});
          g.node("sm", "SparseSegmentMean", {"data", "idx", "seg"}, T());
        },
        "sm", {"SparseSegmentMean", "segment_ids[1] = 0", "sorted"});
    expectNodeError(
        [](Graph& g) {
          g.ints("idx", {0, 0, 4, 1}, {2, 2});
          g.floats("v", {1, 2});
          g.ints("shape", {3, 3});
          g.floats("d", {0}, {});
          g.node("f", "SparseFillEmptyRows", {"idx", "v", "shape", "d"}, T());
        },
        "f", {"SparseFillEmptyRows", "indices[1, 0] = 4", "dense_shape[0] = 3"});
    expectNodeError(
        [](Graph& g) {
          g.ints("idx", {0, 0, 1, 1}, {2, 2});
          g.ints("shape", {2, 3});
          g.ints("want", {4, -1});
          g.node("r", "SparseReshape", {"idx", "shape", "want"});
        },
        "r", {"SparseReshape", "6 dense elements", "multiple of 4"});
    expectNodeError(
        [](Graph& g) {
          g.ints("splits", {0, 2, 5});
          g.floats("v", {1, 2, 3, 4, 5});
          g.ints("idx", {1, 2});
          g.node("rg", "RaggedGather", {"splits", "v", "idx"});
        },
        "rg", {"RaggedGather", "indices[1] = 2", "[0, 2)"});
    expectNodeError(
        [](Graph& g) {
          g.ints("splits", {0, 2, 7});
          g.floats("v", {1, 2, 3, 4, 5});
          g.ints("idx", {1});
          g.node("rg", "RaggedGather", {"splits", "v", "idx"});
        },
        "rg", {"RaggedGather", "params_nested_splits[0] end at 7", "5 elements"});
    expectNodeError(
        [](Graph& g) {
          g.ints("shape", {-1, -1});
          g.floats("v", {1, 2, 3});
          g.floats("d", {0}, {});
          g.ints("splits", {0, 2, 1, 3});
          g.node("rt", "RaggedTensorToTensor", {"shape", "v", "d", "splits"},
                 {{"row_partition_types", {{"list", {{"s", {base64("ROW_SPLITS")}}}}}}});
        },
        "rt", {"RaggedTensorToTensor", "row_partition_tensors[0] (ROW_SPLITS)", "sorted"});
    expectNodeError(
        [](Graph& g) {
          g.ints("starts", {0, 1});
          g.ints("limits", {3, 4, 5});
          g.ints("deltas", {1}, {});
          g.node("rr", "RaggedRange", {"starts", "limits", "deltas"});
        },
        "rr", {"RaggedRange", "starts [2], limits [3]", "one length"});
    expectNodeError(
        [](Graph& g) {
          g.ints("shape", {2, 2});
          g.ints("lo", {3}, {});
          g.ints("hi", {3}, {});
          g.node("ri", "RandomUniformInt", {"shape", "lo", "hi"});
        },
        "ri", {"RandomUniformInt", "minval 3 must be below maxval 3"});
    expectNodeError(
        [](Graph& g) {
          g.floats("logits", {0, 0, 0, 0, 0, 0, 0, 0}, {2, 2, 2});
          g.ints("n", {3}, {});
          g.node("mn", "Multinomial", {"logits", "n"});
        },
        "mn", {"Multinomial", "logits must be [batch, classes]", "[2,2,2]"});
  });
}

// Values checked by hand: TensorScatterUpdate with a repeated index (the
// last update wins, as TF.js's kernel writes in order) and UniqueV2 along
// the inner axes of rank-3 and rank-2 tensors.
TEST(GraphSparseOps, ScatterAndUniqueValues) {
  onEveryBackend([&] {
    Graph g;
    g.floats("x", {0, 1, 2, 3, 4, 5}, {3, 2});
    g.ints("idx", {1, 1, 2}, {3, 1});
    g.floats("upd", {10, 11, 20, 21, 30, 31}, {3, 2});
    g.node("u", "TensorScatterUpdate", {"x", "idx", "upd"}, T());
    g.ints("cube", {1, 2, 4, 3, 1, 2, 5, 6, 8, 7, 5, 6}, {2, 3, 2});
    g.ints("axis", {1});
    g.node("uq", "UniqueV2", {"cube", "axis"}, T("DT_INT32"));
    GraphModel m = g.load("sparse.json");
    std::vector<Tensor> out = m.execute({}, {"u", "uq", "uq:1"});
    EXPECT_EQ(out[0].toFloats(), (std::vector<float>{0, 1, 20, 21, 30, 31}));
    EXPECT_EQ(out[1].shape(), (Shape{2, 2, 2}));
    EXPECT_EQ(out[1].data<int32_t>(), (std::vector<int32_t>{1, 2, 4, 3, 5, 6, 8, 7}));
    EXPECT_EQ(out[2].data<int32_t>(), (std::vector<int32_t>{0, 1, 0}));
    Graph h;
    h.ints("cube", {1, 1, 2, 2, 5, 5, 6, 6}, {2, 2, 2});
    h.ints("axis", {2});
    h.node("uq", "UniqueV2", {"cube", "axis"}, T("DT_INT32"));
    std::vector<Tensor> r = h.load("sparse.json").execute({}, {"uq", "uq:1"});
    EXPECT_EQ(r[0].shape(), (Shape{2, 2, 1}));
    EXPECT_EQ(r[0].data<int32_t>(), (std::vector<int32_t>{1, 2, 5, 6}));
    EXPECT_EQ(r[1].data<int32_t>(), (std::vector<int32_t>{0, 0}));
    Graph k;
    k.ints("cube", {1, 2, 1, 2, 5, 6, 5, 6}, {2, 4});
    k.ints("axis", {1});
    k.node("uq", "UniqueV2", {"cube", "axis"}, T("DT_INT32"));
    std::vector<Tensor> c = k.load("sparse.json").execute({}, {"uq", "uq:1"});
    EXPECT_EQ(c[0].data<int32_t>(), (std::vector<int32_t>{1, 2, 5, 6}));
    EXPECT_EQ(c[1].data<int32_t>(), (std::vector<int32_t>{0, 1, 0, 1}));
  });
}

}  // namespace
}  // namespace glint::testing
