#pragma once
// The standard benchmark models of DESIGN.md, defined once for the CLI, the
// benchmarks, the tests and the peer comparisons: batch 64, Adam(1e-3),
// categorical cross-entropy, MNIST.
//   mlp:  Dense 784->128 relu, Dense 128->10 softmax           input [784]
//   cnn:  Conv 3x3x8 relu, MaxPool 2, Conv 3x3x16 relu, MaxPool 2,
//         Flatten, Dense 10 softmax                            input [28,28,1]
//   lstm: LSTM 128 over 28 steps x 28 features, Dense 10 softmax input [28,28]
#include <string>
#include <vector>

#include "glint/model.h"

namespace glint {

/// "mlp", "cnn" or "lstm"; compiled with Adam(1e-3), categorical
/// cross-entropy and accuracy. Throws naming the known models.
ModelPtr standardModel(const std::string& name);
std::vector<std::string> standardModelNames();
/// The input shape (without batch) a standard model expects.
Shape standardModelInputShape(const std::string& name);

}  // namespace glint
