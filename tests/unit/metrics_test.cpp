// Metrics against hand-computed values on every backend; names and errors.
#include "glint/metrics.h"

#include "op_harness.h"

namespace glint::testing {
namespace {

void expectValues(const Tensor& t, const Shape& shape, const std::vector<float>& want) {
  ASSERT_EQ(t.shape(), shape);
  std::vector<float> got = t.toFloats();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(Metrics, HandValuesOnEveryBackend) {
  using namespace metrics;
  BackendScope guard;
  for (const std::string& backend : testBackends()) {
    SCOPED_TRACE(backend);
    setBackend(backend);
    Tensor onehot = tensor({0, 1, 0, 1, 0, 0, 0, 0, 1}, {3, 3});
    Tensor pred = tensor({0.1f, 0.7f, 0.2f, 0.3f, 0.6f, 0.1f, 0.5f, 0.2f, 0.3f}, {3, 3});
    expectValues(categoricalAccuracy(onehot, pred), {3}, {1, 0, 0});
    expectValues(sparseCategoricalAccuracy(tensorInt({1, 0, 2}, {3}), pred), {3}, {1, 0, 0});
    expectValues(sparseCategoricalAccuracy(tensor({1, 1, 0}, {3, 1}), pred), {3}, {1, 1, 1});
    // Rank of the true class among [0.1 0.7 0.2], [0.3 0.6 0.1], [0.5 0.2 0.3]: 1, 2, 2.
    expectValues(topKCategoricalAccuracy(onehot, pred, 1), {3}, {1, 0, 0});
    expectValues(topKCategoricalAccuracy(onehot, pred, 2), {3}, {1, 1, 1});
    expectValues(sparseTopKCategoricalAccuracy(tensorInt({2, 2, 1}, {3}), pred, 2), {3}, {1, 0, 0});
    Tensor bt = tensor({1, 0, 1, 0, 1, 1}, {2, 3});
    Tensor bp = tensor({0.9f, 0.4f, 0.2f, 0.6f, 0.8f, 0.51f}, {2, 3});
    expectValues(binaryAccuracy(bt, bp), {2}, {2.0f / 3, 2.0f / 3});
    expectValues(binaryAccuracy(bt, bp, 0.85f), {2}, {2.0f / 3, 1.0f / 3});
    // Predicted positives: 0.9, 0.6, 0.8, 0.51 -> tp = 3 (0.9, 0.8, 0.51), fp = 1; actual = 4.
    expectValues(precision(bt, bp), {}, {0.75f});
    expectValues(recall(bt, bp), {}, {0.75f});
    expectValues(precision(bt, zeros({2, 3})), {}, {0});
    expectValues(recall(zeros({2, 3}), bp), {}, {0});
    expectValues(meanSquaredError(tensor({1, 2}, {1, 2}), tensor({3, 5}, {1, 2})), {1}, {6.5f});
    expectValues(meanAbsoluteError(tensor({1, 2}, {1, 2}), tensor({3, 5}, {1, 2})), {1}, {2.5f});
    // accuracy picks by shape.
    expectValues(accuracy(onehot, pred), {3}, {1, 0, 0});
    expectValues(accuracy(tensorInt({1, 0, 2}, {3}), pred), {3}, {1, 0, 0});
    expectValues(accuracy(tensor({1, 0, 2}, {3, 1}), pred), {3}, {1, 0, 0});
    expectValues(accuracy(tensor({1, 0}, {2, 1}), tensor({0.7f, 0.7f}, {2, 1})), {2}, {1, 0});
    expectValues(accuracy(tensor({1, 0}, {2}), tensor({0.7f, 0.2f}, {2, 1})), {2}, {1, 1});
    expectValues(accuracy(tensorInt({1, 0}, {2, 1}), tensor({0.7f, 0.2f}, {2, 1})), {2}, {1, 1});
    // Empty batch.
    expectValues(categoricalAccuracy(zeros({0, 3}), zeros({0, 3})), {0}, {});
  }
}

TEST(Metrics, NamesResolve) {
  using namespace metrics;
  Tensor t = tensor({0, 1, 0, 1, 0, 0}, {2, 3}),
         p = tensor({0.2f, 0.5f, 0.3f, 0.1f, 0.6f, 0.3f}, {2, 3});
  for (auto n : {"acc", "accuracy", "categorical_accuracy", "categoricalAccuracy"})
    expectValues(get(n)(t, p), {2}, {1, 0});
  for (auto n : {"top_k_categorical_accuracy", "topKCategoricalAccuracy"})
    expectValues(get(n)(t, p), {2}, {1, 1});
  expectValues(get("mse")(t, p), {2}, {(0.04f + 0.25f + 0.09f) / 3, (0.81f + 0.36f + 0.09f) / 3});
  expectValues(get("precision")(t, p), {}, {0});  // only 0.6 > 0.5, at a 0 label
  EXPECT_EQ(canonicalName("acc"), "accuracy");
  EXPECT_EQ(canonicalName("binary_accuracy"), "binaryAccuracy");
  EXPECT_EQ(canonicalName("sparse_categorical_crossentropy"), "sparseCategoricalCrossentropy");
  EXPECT_GE(names().size(), 10u);
}

TEST(Metrics, Errors) {
  using namespace metrics;
  expectError([] { get("f1"); }, {"[metrics.get]", "'f1'", "accuracy", "precision"});
  expectError(
      [] {
        categoricalAccuracy(ones({2, 3}), ones({2, 4}));
      },
      {"[categoricalAccuracy]", "yTrue [2,3]", "yPred [2,4]"});
  expectError(
      [] {
        sparseCategoricalAccuracy(ones({3}), ones({2, 4}));
      },
      {"[sparseCategoricalAccuracy]", "yTrue [3]", "[2,4]"});
  expectError(
      [] {
        topKCategoricalAccuracy(ones({2, 3}), ones({2, 3}), 0);
      },
      {"[topKCategoricalAccuracy]", "k must be >= 1"});
  expectError([] { precision(ones({2}), ones({3})); }, {"[precision]", "[2]", "[3]"});
  expectError([] { binaryAccuracy(ones({2}), ones({2}, DType::int32)); },
              {"[binaryAccuracy]", "int32"});
}

}  // namespace
}  // namespace glint::testing
