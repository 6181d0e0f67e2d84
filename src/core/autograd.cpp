#include "glint/autograd.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "glint/error.h"
#include "glint/ops.h"
#include "src/core/custom_grad.h"
#include "src/core/engine_state.h"

namespace glint {

Tape::Tape() { threadState().tapes.push_back(this); }

Tape::~Tape() {
  close();
  for (auto& node : nodes_) {
    for (auto& t : node.inputs) t.impl()->tapeRefs -= 1;
    for (auto& t : node.outputs) t.impl()->tapeRefs -= 1;
  }
}

void Tape::close() {
  auto& tapes = threadState().tapes;
  tapes.erase(std::remove(tapes.begin(), tapes.end(), this), tapes.end());
}

void Tape::record(TapeNode node) {
  for (auto& t : node.inputs) t.impl()->tapeRefs += 1;
  for (auto& t : node.outputs) t.impl()->tapeRefs += 1;
  nodes_.push_back(std::move(node));
}

namespace {

/// Runs the tape backwards from y; returns d y / d x for each x (zeros for
/// an x that y does not depend on). The tape is closed; tapes around it
/// record the backward pass's ops, so their own gradients see through it.
std::vector<Tensor> backprop(const Tape& tape, const Tensor& y, const Tensor& dy,
                             const std::vector<Tensor>& xs) {
  const auto& nodes = tape.nodes();
  // Forward: which tensors depend on some x. Backward: which nodes lead to y.
  std::unordered_set<int64_t> fromX;
  for (const Tensor& x : xs) fromX.insert(x.id());
  std::vector<bool> onPath(nodes.size(), false);
  for (size_t n = 0; n < nodes.size(); ++n) {
    bool touched = std::any_of(nodes[n].inputs.begin(), nodes[n].inputs.end(),
                               [&](const Tensor& t) { return fromX.count(t.id()); });
    if (!touched) continue;
    onPath[n] = true;
    for (const Tensor& t : nodes[n].outputs) fromX.insert(t.id());
  }
  std::unordered_set<int64_t> toY{y.id()};
  for (size_t n = nodes.size(); n-- > 0;) {
    if (!onPath[n]) continue;
    bool reaches = std::any_of(nodes[n].outputs.begin(), nodes[n].outputs.end(),
                               [&](const Tensor& t) { return toY.count(t.id()); });
    onPath[n] = reaches;
    if (reaches)
      for (const Tensor& t : nodes[n].inputs) toY.insert(t.id());
  }

  std::unordered_map<int64_t, Tensor> gradOf;
  gradOf[y.id()] = dy;
  for (size_t n = nodes.size(); n-- > 0;) {
    if (!onPath[n]) continue;
    const TapeNode& node = nodes[n];
    std::vector<Tensor> dys;
    bool any = false;
    for (const Tensor& out : node.outputs) {
      auto it = gradOf.find(out.id());
      any = any || it != gradOf.end();
      // customGrad's nodes take an undefined dy for an output nothing reached.
      dys.push_back(it != gradOf.end() ? it->second : node.customGrad ? Tensor() : zerosLike(out));
    }
    if (!any) continue;
    GradFn fn = node.customGrad;
    if (!fn) {
      const GradFn* registered = Engine::get().findGradient(node.kernel);
      if (!registered)
        fail("grad", "kernel ", node.kernel,
             " has no gradient, but the result depends on its inputs through it");
      fn = *registered;
    }
    // Only float tensors carry gradients (int indices, bool masks never do).
    auto wanted = [&](const Tensor& input) {
      return input.dtype() == DType::float32 && toY.count(input.id()) && fromX.count(input.id());
    };
    std::vector<bool> needed(node.inputs.size());
    for (size_t i = 0; i < needed.size(); ++i) needed[i] = wanted(node.inputs[i]);
    std::vector<Tensor> inGrads =
        fn(dys, GradContext{node.inputs, node.outputs, node.attrs, &needed});
    check(inGrads.size() == node.inputs.size(), "grad", "the gradient of ", node.kernel,
          " returned ", inGrads.size(), " tensors for ", node.inputs.size(), " inputs");
    for (size_t i = 0; i < inGrads.size(); ++i) {
      const Tensor& input = node.inputs[i];
      if (!inGrads[i].defined() || !needed[i]) continue;
      if (inGrads[i].shape() != input.shape())
        fail("grad", "the gradient of ", node.kernel, " for input ", i, " has shape ",
             shapeToString(inGrads[i].shape()), ", expected ", shapeToString(input.shape()));
      auto it = gradOf.find(input.id());
      if (it == gradOf.end()) {
        gradOf[input.id()] = inGrads[i];
      } else {
        it->second = add(it->second, inGrads[i]);
      }
    }
  }
  std::vector<Tensor> result;
  for (const Tensor& x : xs) {
    auto it = gradOf.find(x.id());
    result.push_back(it != gradOf.end() ? it->second : zerosLike(x));
  }
  return result;
}

Tensor checkedResult(const Tensor& y, const Tensor& dy) {
  check(y.defined(), "grad", "the function returned an undefined tensor");
  if (y.dtype() != DType::float32)
    fail("grad", "the function must return a float32 tensor, got ", dtypeName(y.dtype()), " ",
         shapeToString(y.shape()));
  if (!dy.defined()) return onesLike(y);
  if (!(dy.shape() == y.shape() && dy.dtype() == DType::float32))
    fail("grad", "dy is ", dtypeName(dy.dtype()), " ", shapeToString(dy.shape()),
         ", expected float32 ", shapeToString(y.shape()), " like the function's result");
  return dy;
}

/// Records f, then differentiates with respect to the xs that pickXs chooses.
template <class RunF, class PickXs>
ValueAndGrads differentiate(RunF runF, PickXs pickXs, const Tensor& dy,
                            std::vector<Tensor>* chosen) {
  ValueAndGrads out;
  startScope();
  try {
    std::vector<Tensor> xs;
    {
      Tape tape;
      out.value = runF();
      xs = pickXs(tape);
      tape.close();
      out.grads = backprop(tape, out.value, checkedResult(out.value, dy), xs);
    }
    if (chosen) *chosen = xs;
    std::vector<Tensor> keepList = out.grads;
    keepList.push_back(out.value);
    endScope(keepList);
  } catch (...) {
    endScope();
    throw;
  }
  return out;
}

void checkXs(const std::vector<Tensor>& xs) {
  for (size_t i = 0; i < xs.size(); ++i) {
    check(xs[i].defined() && !xs[i].isDisposed(), "grad", "x ", i, " is undefined or disposed");
    if (xs[i].dtype() != DType::float32)
      fail("grad", "x ", i, " is ", dtypeName(xs[i].dtype()), " ", shapeToString(xs[i].shape()),
           ": gradients exist only for float32 tensors");
  }
}

}  // namespace

ValueAndGrads valueAndGrads(const TensorFn& f, const std::vector<Tensor>& xs, const Tensor& dy) {
  checkXs(xs);
  return differentiate([&] { return f(xs); }, [&](const Tape&) { return xs; }, dy, nullptr);
}

std::vector<Tensor> grads(const TensorFn& f, const std::vector<Tensor>& xs, const Tensor& dy) {
  return valueAndGrads(f, xs, dy).grads;
}

Tensor grad(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& dy) {
  return valueAndGrad(f, x, dy).grads[0];
}

ValueAndGrads valueAndGrad(const std::function<Tensor(const Tensor&)>& f, const Tensor& x,
                           const Tensor& dy) {
  return valueAndGrads([&](const std::vector<Tensor>& xs) { return f(xs[0]); }, {x}, dy);
}

VariableGrads variableGrads(const std::function<Tensor()>& f, const std::vector<Variable>& vars) {
  for (const Variable& v : vars)
    check(v.defined() && v.impl()->isVariable, "variableGrads",
          "an entry of vars is not a variable");
  auto pick = [&](const Tape& tape) {
    std::vector<Tensor> xs;
    if (!vars.empty()) {
      for (const Variable& v : vars) xs.push_back(v);
      return xs;
    }
    std::unordered_set<int64_t> seen;
    for (const TapeNode& node : tape.nodes())
      for (const Tensor& t : node.inputs)
        if (t.impl()->isVariable && t.impl()->trainable && seen.insert(t.id()).second)
          xs.push_back(t);
    return xs;
  };
  std::vector<Tensor> chosen;
  ValueAndGrads vg = differentiate(f, pick, Tensor(), &chosen);
  if (vg.value.size() != 1)
    fail("variableGrads", "f must return a scalar, got shape ", shapeToString(vg.value.shape()));
  VariableGrads out;
  out.value = vg.value;
  out.grads = vg.grads;
  for (const Tensor& t : chosen) out.variables.push_back(Variable(t.implPtr()));
  return out;
}

namespace {

Tensor recordCustomGrad(const std::function<CustomGradResult(const std::vector<Tensor>&)>& f,
                        const std::vector<Tensor>& inputs, const std::string& firstOrderOp) {
  Engine& e = Engine::get();
  const int64_t madeFrom = tensorIdWatermark();
  CustomGradResult r;
  Tensor value;
  {
    RecordingPause pause;
    r = f(inputs);
    check(r.value.defined(), "customGrad", "f returned an undefined value");
    check(static_cast<bool>(r.gradFunc), "customGrad", "f returned no gradFunc");
    value = makeView(r.value, r.value.shape());  // a fresh id, never one of the inputs
  }
  if (e.recording()) {
    auto gradFunc = r.gradFunc;
    size_t n = inputs.size();
    GradFn fn = [gradFunc, n, firstOrderOp](const std::vector<Tensor>& dys, const GradContext&) {
      if (!firstOrderOp.empty() && Engine::get().recording())
        fail("grad", "the gradient of ", firstOrderOp,
             " has no gradient (it reads values of the forward pass that no tape recorded): "
             "second-order gradients do not go through it");
      Tensor dy = dys[0];
      if (dys.size() > 1 && dys[1].defined()) dy = dy.defined() ? add(dy, dys[1]) : dys[1];
      std::vector<Tensor> g = gradFunc(dy);  // defined: some output was reached
      check(g.size() == n, "customGrad", "gradFunc returned ", g.size(), " gradients for ", n,
            " inputs");
      return g;
    };
    // f's own result is an output of the node too (the same values as
    // `value`): a gradFunc that uses it (logSumExp's does) is then
    // differentiable through it on the tapes around, for grad of grad.
    // Only when f made it: an input or a tensor f captured from outside
    // would otherwise seem to depend on the inputs.
    std::vector<Tensor> outputs{value};
    if (r.value.id() >= madeFrom) outputs.push_back(r.value);
    e.recordOnTapes("CustomGradient", inputs, outputs, Attrs(), fn);
  }
  return value;
}

}  // namespace

Tensor customGrad(const std::function<CustomGradResult(const std::vector<Tensor>&)>& f,
                  const std::vector<Tensor>& inputs) {
  return recordCustomGrad(f, inputs, "");
}

Tensor firstOrderCustomGrad(const std::string& op,
                            const std::function<CustomGradResult(const std::vector<Tensor>&)>& f,
                            const std::vector<Tensor>& inputs) {
  return recordCustomGrad(f, inputs, op);
}

}  // namespace glint
