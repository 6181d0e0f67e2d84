// Model::summary: the Keras table (layer and type, output shape, parameters,
// and for functional models the calls each layer receives).
#include <cmath>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "glint/model.h"
#include "src/model/model_internal.h"

namespace glint {

namespace {

/// Python's tuple form, as Keras prints it: (None, 10), (None,).
std::string shapeText(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += shape[i] < 0 ? "None" : std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string withCommas(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int64_t sizeOf(const std::vector<Variable>& vars) {
  int64_t n = 0;
  for (const Variable& v : vars) n += v.size();
  return n;
}

}  // namespace

std::string Model::summary(int lineLength) const {
  const bool sequential = className() == "Sequential";
  lineLength = std::max(lineLength, sequential ? 40 : 60);
  const std::vector<double> fractions = sequential ? std::vector<double>{0.45, 0.80, 1.0}
                                                   : std::vector<double>{0.33, 0.55, 0.67, 1.0};
  std::vector<size_t> positions;
  for (double f : fractions) positions.push_back(static_cast<size_t>(std::lround(f * lineLength)));

  std::ostringstream os;
  auto row = [&](const std::vector<std::string>& fields) {
    std::string line;
    for (size_t i = 0; i < positions.size(); ++i) {
      line += i < fields.size() ? fields[i] : "";
      // Each field keeps one space before the next column (Keras truncates too).
      if (line.size() > positions[i] - 1) line.resize(positions[i] - 1);
      line.resize(positions[i], ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << "\n";
  };

  // Each layer's calls within this model.
  std::unordered_set<const Node*> inModel;
  std::unordered_map<const Layer*, std::vector<const Node*>> callsOf;
  for (const auto& x : inputs_) callsOf[x->node->layer.get()].push_back(x->node.get());
  for (const auto& n : nodes_) {
    inModel.insert(n.get());
    callsOf[n->layer.get()].push_back(n.get());
  }

  os << "Model: \"" << name() << "\"\n";
  os << std::string(lineLength, '_') << "\n";
  std::vector<std::string> header = {"Layer (type)", "Output Shape", "Param #"};
  if (!sequential) header.push_back("Connected to");
  row(header);
  os << std::string(lineLength, '=') << "\n";
  for (size_t i = 0; i < layers_.size(); ++i) {
    const LayerPtr& layer = layers_[i];
    std::string shape;
    for (const Node* n : callsOf[layer.get()]) {
      std::string s;
      std::vector<std::string> parts;
      for (const auto& weak : n->outputs)
        if (auto t = weak.lock()) parts.push_back(shapeText(t->shape));
      if (parts.size() == 1) {
        s = parts[0];
      } else {
        s = "[";
        for (size_t k = 0; k < parts.size(); ++k) s += (k ? ", " : "") + parts[k];
        s += "]";
      }
      if (shape.empty()) shape = s;
      else if (shape != s) shape = "multiple";  // a shared layer called on different shapes
    }
    std::vector<std::string> connected;
    for (const Node* n : callsOf[layer.get()])
      for (const auto& x : n->inputs)
        connected.push_back(x->node->layer->name() + "[" +
                            std::to_string(model_internal::nodeIndexInModel(*x->node, inModel)) +
                            "][" + std::to_string(x->tensorIndex) + "]");
    std::vector<std::string> fields = {layer->name() + " (" + layer->className() + ")", shape,
                                       std::to_string(layer->countParams())};
    if (!sequential) fields.push_back(connected.empty() ? "" : connected[0]);
    row(fields);
    for (size_t k = 1; !sequential && k < connected.size(); ++k) row({"", "", "", connected[k]});
    os << std::string(lineLength, i + 1 < layers_.size() ? '_' : '=') << "\n";
  }
  if (layers_.empty()) os << std::string(lineLength, '=') << "\n";
  int64_t trainableCount = sizeOf(trainableWeights());
  int64_t frozenCount = sizeOf(nonTrainableWeights());
  os << "Total params: " << withCommas(trainableCount + frozenCount) << "\n";
  os << "Trainable params: " << withCommas(trainableCount) << "\n";
  os << "Non-trainable params: " << withCommas(frozenCount) << "\n";
  os << std::string(lineLength, '_') << "\n";
  return os.str();
}

}  // namespace glint
