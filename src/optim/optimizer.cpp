// Optimizer base: validation, clipping, slot bookkeeping, save/restore.
#include <cmath>
#include <map>
#include <unordered_set>

#include "glint/autograd.h"
#include "glint/backend.h"
#include "glint/engine.h"
#include "glint/ops.h"
#include "glint/optim.h"
#include "src/optim/optim_util.h"

namespace glint {

Optimizer::Optimizer(float learningRate, const std::string& factoryName) : lr_(learningRate) {
  optim::checkPositive(factoryName, "learningRate", learningRate);
}

Optimizer::~Optimizer() = default;

float Optimizer::learningRate() const {
  if (!schedule_) return lr_;
  float lr = schedule_->at(iterations_);
  check(std::isfinite(lr) && lr >= 0, className(), "schedule ", schedule_->className(),
        " gave learning rate ", lr, " at step ", iterations_, ": expected a finite number >= 0");
  return lr;
}

void Optimizer::setLearningRate(float lr) {
  optim::checkPositive(className() + ".setLearningRate", "learningRate", lr);
  lr_ = lr;
  schedule_.reset();
}

void Optimizer::setSchedule(std::shared_ptr<LearningRateSchedule> schedule) {
  check(schedule != nullptr, className() + ".setSchedule", "schedule is null");
  schedule_ = std::move(schedule);
}

Json Optimizer::getConfig() const {
  Json config = Json::object();
  if (schedule_)
    config["learningRate"] = {{"class_name", schedule_->className()},
                              {"config", schedule_->getConfig()}};
  else config["learningRate"] = optim::cleanNumber(lr_);
  const Json hyper = hyperConfig();
  for (auto it = hyper.begin(); it != hyper.end(); ++it) config[it.key()] = it.value();
  if (clip.clipNorm) config["clipnorm"] = optim::cleanNumber(*clip.clipNorm);
  if (clip.clipValue) config["clipvalue"] = optim::cleanNumber(*clip.clipValue);
  if (clip.globalClipNorm) config["global_clipnorm"] = optim::cleanNumber(*clip.globalClipNorm);
  return config;
}

Tensor Optimizer::initialSlot(const Variable& var, size_t) const { return zerosLike(var); }

// One read-back for all of them: x * 0 is 0 for every finite x and NaN otherwise.
static bool allFinite(const std::vector<Tensor>& grads) {
  return tidy([&] {
    Tensor total;
    for (const Tensor& g : grads) {
      if (!g.defined()) continue;
      Tensor s = sum(mul(g, scalar(0.0f)));
      total = total.defined() ? add(total, s) : s;
    }
    return !total.defined() || std::isfinite(total.item());
  });
}

static std::string describeVar(const Variable& v) {
  return "variable '" + v.name() + "' " + shapeToString(v.shape());
}

void Optimizer::applyGradients(const std::vector<Variable>& vars,
                               const std::vector<Tensor>& grads) {
  const std::string op = className() + ".applyGradients";
  check(vars.size() == grads.size(), op, "got ", vars.size(), " variables but ", grads.size(),
        " gradients: expected one gradient per variable");
  auto checkClip = [&](const std::optional<float>& v, const char* name) {
    if (v)
      check(std::isfinite(*v) && *v > 0, op, "clip.", name, " must be a finite number > 0, got ",
            *v);
  };
  checkClip(clip.clipValue, "clipValue");
  checkClip(clip.clipNorm, "clipNorm");
  checkClip(clip.globalClipNorm, "globalClipNorm");
  check(!(clip.clipNorm && clip.globalClipNorm), op,
        "clip.clipNorm and clip.globalClipNorm cannot both be set");

  // Validate everything before changing anything, so a bad entry is harmless.
  std::unordered_set<int64_t> seen;
  std::vector<std::optional<size_t>> restored(vars.size());  // entries_ index
  std::map<std::string, size_t> restoredUsed;  // name -> pending entries claimed in this call
  for (size_t i = 0; i < vars.size(); ++i) {
    const Variable& v = vars[i];
    check(v.defined() && v.impl()->isVariable, op, "vars[", i, "] is not a variable");
    check(!v.isDisposed(), op, "variable '", v.name(), "' was disposed");
    if (v.dtype() != DType::float32)
      fail(op, describeVar(v), " is ", dtypeName(v.dtype()),
           ": only float32 variables can be trained");
    check(seen.insert(v.id()).second, op, "variable '", v.name(), "' appears twice in vars");
    const Tensor& g = grads[i];
    if (g.defined()) {
      check(!g.isDisposed(), op, "the gradient for variable '", v.name(), "' was disposed");
      if (g.dtype() != DType::float32)
        fail(op, "the gradient for ", describeVar(v), " is ", dtypeName(g.dtype()),
             ": expected float32");
      if (g.shape() != v.shape())
        fail(op, "the gradient for variable '", v.name(), "' has shape ", shapeToString(g.shape()),
             " but the variable has shape ", shapeToString(v.shape()));
    }
    if (byVarId_.count(v.id())) continue;
    // A slot restored by setWeights binds to the first unbound entry of this name.
    size_t skip = restoredUsed[v.name()];
    for (size_t index = 0; index < entries_.size(); ++index) {
      const Entry& e = entries_[index];
      if (e.varId != -1 || e.name != v.name()) continue;
      if (skip-- > 0) continue;
      for (size_t s = 0; s < e.slots.size(); ++s)
        if (e.slots[s].shape() != v.shape())
          fail(op, "restored slot '", e.name, "/", slotNames()[s], "' has shape ",
               shapeToString(e.slots[s].shape()), " but ", describeVar(v), " needs ",
               shapeToString(v.shape()));
      restored[i] = index;
      restoredUsed[v.name()] += 1;
      break;
    }
  }

  if (lossScale.enabled) {
    check(std::isfinite(lossScale.scale) && lossScale.scale > 0, op,
          "lossScale.scale must be a finite number > 0, got ", lossScale.scale);
    if (!allFinite(grads)) {
      ++skippedSteps_;
      finiteInARow_ = 0;
      if (lossScale.dynamic) lossScale.scale = std::max(lossScale.minScale, lossScale.scale / 2);
      return;
    }
    if (lossScale.dynamic && ++finiteInARow_ >= lossScale.growthInterval) {
      finiteInARow_ = 0;
      if (std::isfinite(lossScale.scale * 2)) lossScale.scale *= 2;
    }
  }

  const float lr = learningRate();
  const int64_t step = iterations_ + 1;
  const std::vector<std::string> kinds = slotNames();
  tidy([&] {
    std::vector<Tensor> g = grads;
    if (clip.clipNorm)
      for (Tensor& t : g)
        if (t.defined()) t = clipByNorm(t, *clip.clipNorm);
    if (clip.globalClipNorm) g = clipByGlobalNorm(g, *clip.globalClipNorm);
    if (clip.clipValue)
      for (Tensor& t : g)
        if (t.defined()) t = clipByValue(t, -*clip.clipValue, *clip.clipValue);
    for (size_t i = 0; i < vars.size(); ++i) {
      const Variable& v = vars[i];
      Entry* entry;
      auto it = byVarId_.find(v.id());
      if (it != byVarId_.end()) {
        entry = &entries_[it->second];
      } else {
        size_t index = restored[i] ? *restored[i] : entries_.size();
        if (!restored[i]) entries_.push_back(Entry{v.name(), -1, {}});
        entry = &entries_[index];
        entry->varId = v.id();
        byVarId_[v.id()] = index;
      }
      // Slots exist from a variable's first appearance, as in TF.js.
      if (entry->slots.empty())
        for (size_t s = 0; s < kinds.size(); ++s)
          entry->slots.push_back(
              variable(initialSlot(v, s), /*trainable=*/false, entry->name + "/" + kinds[s]));
      if (g[i].defined()) applyOne(v, g[i], entry->slots, lr, step);
    }
  });
  ++iterations_;
}

Tensor Optimizer::minimize(const std::function<Tensor()>& loss,
                           const std::vector<Variable>& varList) {
  check(static_cast<bool>(loss), className() + ".minimize", "loss is an empty function");
  if (!lossScale.enabled)
    return tidy([&] {
      VariableGrads vg = variableGrads(loss, varList);
      applyGradients(vg.variables, vg.grads);
      return vg.value;
    });
  const float scale = lossScale.scale;
  return tidy([&] {
    VariableGrads vg = variableGrads([&] { return mul(loss(), scalar(scale)); }, varList);
    for (Tensor& g : vg.grads)
      if (g.defined()) g = div(g, scalar(scale));
    applyGradients(vg.variables, vg.grads);
    return div(vg.value, scalar(scale));
  });
}

std::vector<std::pair<std::string, Tensor>> Optimizer::getWeights() const {
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back("iter", tensorInt({static_cast<int32_t>(iterations_)}, {}));
  const std::vector<std::string> kinds = slotNames();
  for (size_t s = 0; s < kinds.size(); ++s)
    for (const Entry& e : entries_)
      if (e.slots.size() == kinds.size())
        out.emplace_back(e.name + "/" + kinds[s], makeView(e.slots[s], e.slots[s].shape()));
  return out;
}

void Optimizer::setWeights(const std::vector<std::pair<std::string, Tensor>>& weights) {
  const std::string op = className() + ".setWeights";
  const std::vector<std::string> kinds = slotNames();
  std::optional<int64_t> iter;
  std::vector<Entry> entries;
  // (name, kind) -> how many seen, so repeated names bind in order.
  std::map<std::pair<std::string, size_t>, size_t> occurrences;
  for (const auto& [name, t] : weights) {
    check(t.defined() && !t.isDisposed(), op, "weight '", name, "' is undefined or disposed");
    if (name == "iter" || name == "iteration" || name == "iterations") {
      check(!iter, op, "more than one iteration count ('", name, "')");
      if (t.size() != 1)
        fail(op, "weight '", name, "' must hold one value, got shape ", shapeToString(t.shape()));
      float value = t.item();
      check(std::isfinite(value) && value >= 0, op, "weight '", name,
            "' must be a count >= 0, got ", value);
      iter = static_cast<int64_t>(value);
      continue;
    }
    size_t slash = name.rfind('/');
    std::string kind = slash == std::string::npos ? "" : name.substr(slash + 1);
    size_t k = 0;
    while (k < kinds.size() && kinds[k] != kind) ++k;
    if (k == kinds.size()) {
      std::string known;
      for (const auto& n : kinds) known += (known.empty() ? "'<var>/" : ", '<var>/") + n + "'";
      fail(op, "weight '", name, "' is not state of ", className(), ": expected 'iter'",
           known.empty() ? "" : " or ", known);
    }
    check(t.dtype() == DType::float32, op, "weight '", name, "' must be float32, got ",
          dtypeName(t.dtype()));
    std::string varName = name.substr(0, slash);
    size_t nth = occurrences[{varName, k}]++;
    size_t found = 0, index = entries.size();
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].name == varName && found++ == nth) {
        index = i;
        break;
      }
    if (index == entries.size())
      entries.push_back(Entry{varName, -1, std::vector<Variable>(kinds.size())});
    Entry& e = entries[index];
    check(!e.slots[k].defined(), op, "weight '", name, "' appears twice");
    if (k > 0 && e.slots[0].defined())
      if (t.shape() != e.slots[0].shape())
        fail(op, "weight '", name, "' has shape ", shapeToString(t.shape()), " but '", varName, "/",
             kinds[0], "' has ", shapeToString(e.slots[0].shape()));
    e.slots[k] = variable(t, /*trainable=*/false, name);
  }
  check(iter.has_value(), op,
        "no 'iter' entry: expected the iteration count first, as "
        "getWeights writes it");
  for (const Entry& e : entries)
    for (size_t k = 0; k < kinds.size(); ++k)
      check(e.slots[k].defined(), op, "weight '", e.name, "/", kinds[k], "' is missing");
  dispose();
  entries_ = std::move(entries);
  iterations_ = *iter;
}

void Optimizer::dispose() {
  for (Entry& e : entries_)
    for (const Variable& s : e.slots) s.dispose();
  entries_.clear();
  byVarId_.clear();
}

}  // namespace glint
