// The epoch loop (glint/fit_run.h) for model.fit and fitDataset in JS
// (web/package/src/fit.js): JS advances a run one event at a time, reads its
// logged values (awaiting them where the backend cannot block), feeds dataset
// batches, and fires its own callbacks and yields between events.
#include <emscripten/emscripten.h>

#include <cmath>

#include "glint/fit_run.h"
#include "web/bindings/handles.h"

namespace glint::web {
namespace {

struct Run {
  std::shared_ptr<Model> model;  // kept alive while the run refers to it
  std::unique_ptr<FitRun> run;
  int32_t valuesHandle = 0;  // the tensor handle JS reads at kRead
};

HandleTable<Run>& runs() {
  static HandleTable<Run> table;
  return table;
}

Run& runFrom(int32_t id) { return runs().get(id, "fit run"); }

HandleTable<std::shared_ptr<EarlyStopping>>& earlyStoppings() {
  static HandleTable<std::shared_ptr<EarlyStopping>> table;
  return table;
}

/// The engine callbacks named in options.callbacks (earlyStopping handles).
std::vector<CallbackPtr> callbacksFrom(const Json& o) {
  std::vector<CallbackPtr> out;
  if (o.contains("callbacks"))
    for (const Json& id : o["callbacks"])
      out.push_back(earlyStoppings().get(id.get<int32_t>(), "earlyStopping callback"));
  return out;
}

/// Drops the handle JS was given for the values (the run disposes them).
void dropValuesHandle(Run& r) {
  if (r.valuesHandle) tensorHandles().erase(r.valuesHandle);
  r.valuesHandle = 0;
}

std::vector<Tensor> tensorsFromJson(const Json& ids) {
  std::vector<Tensor> out;
  for (const Json& id : ids) out.push_back(tensorHandles().get(id.get<int32_t>(), "tensor"));
  return out;
}

}  // namespace
}  // namespace glint::web

using namespace glint;
using namespace glint::web;

extern "C" {

/// tf.callbacks.earlyStopping: {monitor, minDelta, patience, mode,
/// baseline, restoreBestWeights}; warns (as TF.js) when the monitor is missing.
EMSCRIPTEN_KEEPALIVE int32_t glint_early_stopping(const char* optionsJson) {
  return guarded(-1, [&] {
    Json o = Json::parse(optionsJson);
    EarlyStoppingOptions options;
    options.monitor = o.value("monitor", std::string("val_loss"));
    options.minDelta = o.value("minDelta", 0.0);
    options.patience = o.value("patience", 0);
    options.mode = o.value("mode", std::string("auto"));
    if (o.contains("baseline") && !o["baseline"].is_null())
      options.baseline = o["baseline"].get<double>();
    options.restoreBestWeights = o.value("restoreBestWeights", false);
    options.warnIfMissing = true;
    return earlyStoppings().put(earlyStopping(options));
  });
}

/// {wait, best, stoppedEpoch} (best as jsonNumber writes it).
EMSCRIPTEN_KEEPALIVE const char* glint_early_stopping_state(int32_t id) {
  return guarded<const char*>(nullptr, [&] {
    const EarlyStopping& e = *earlyStoppings().get(id, "earlyStopping callback");
    return returnString("{\"wait\":" + std::to_string(e.wait()) +
                        ",\"best\":" + jsonNumber(e.best()) +
                        ",\"stoppedEpoch\":" + std::to_string(e.stoppedEpoch()) + "}");
  });
}

EMSCRIPTEN_KEEPALIVE void glint_early_stopping_dispose(int32_t id) { earlyStoppings().erase(id); }

/// A run of fit over tensors. options: {epochs, batchSize, shuffle,
/// validationSplit, validationX: [ids], validationY: [ids], classWeight:
/// {class: weight}, initialEpoch, seed, sliceValidation, callbacks: [ids]}.
EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_tensors(int32_t modelId, const int32_t* xs, int32_t nx,
                                                   const int32_t* ys, int32_t ny,
                                                   const char* optionsJson) {
  return guarded(-1, [&] {
    Json o = Json::parse(optionsJson);
    FitOptions options;
    options.epochs = o.value("epochs", 1);
    options.batchSize = o.value("batchSize", 32);
    options.shuffle = o.value("shuffle", true);
    options.validationSplit = o.value("validationSplit", 0.0f);
    options.initialEpoch = o.value("initialEpoch", 0);
    options.calibrate = false;  // JS calibrates, awaiting the steps it times
    options.callbacks = callbacksFrom(o);
    if (o.contains("validationX")) {
      options.validationX = tensorsFromJson(o["validationX"]);
      options.validationY = tensorsFromJson(o["validationY"]);
    }
    if (o.contains("classWeight"))
      for (const auto& [k, v] : o["classWeight"].items())
        options.classWeight[std::stoi(k)] = v.get<float>();
    if (o.contains("seed") && !o["seed"].is_null()) {
      const double seed = o["seed"].get<double>();
      check(std::isfinite(seed) && seed >= 0 && std::floor(seed) == seed, "fit",
            "seed must be a non-negative integer, got ", seed);
      options.seed = static_cast<uint64_t>(seed);
    }
    std::shared_ptr<Model> model = modelFrom(modelId);
    auto run = std::make_unique<FitRun>(*model, tensorsFrom(xs, nx), tensorsFrom(ys, ny), options);
    run->sliceValidation(o.value("sliceValidation", false));
    return runs().put(Run{model, std::move(run)});
  });
}

/// A run of fitDataset: options {epochs, batchesPerEpoch, initialEpoch, callbacks};
/// validate: whether validation batches will be fed.
EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_dataset(int32_t modelId, const char* optionsJson,
                                                   int32_t validate) {
  return guarded(-1, [&] {
    Json o = Json::parse(optionsJson);
    FitDatasetOptions options;
    options.epochs = o.value("epochs", 1);
    options.initialEpoch = o.value("initialEpoch", 0);
    options.callbacks = callbacksFrom(o);
    if (o.contains("batchesPerEpoch") && !o["batchesPerEpoch"].is_null())
      options.batchesPerEpoch = o["batchesPerEpoch"].get<int64_t>();
    std::shared_ptr<Model> model = modelFrom(modelId);
    auto run = std::make_unique<FitRun>(*model, options, validate != 0);
    return runs().put(Run{model, std::move(run)});
  });
}

/// The next event (FitRun::Event's order), or -1 with the error recorded.
EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_next(int32_t id) {
  return guarded(-1, [&] {
    Run& r = runFrom(id);
    dropValuesHandle(r);
    return static_cast<int32_t>(r.run->next());
  });
}

/// {epoch, batch, validating, samples, steps, logs} for the
/// last event (written by hand: this runs a few times a batch).
EMSCRIPTEN_KEEPALIVE const char* glint_fit_run_state(int32_t id) {
  return guarded<const char*>(nullptr, [&] {
    const FitRun& run = *runFrom(id).run;
    std::string j = "{\"epoch\":" + std::to_string(run.epoch()) +
                    ",\"batch\":" + std::to_string(run.batch()) +
                    ",\"validating\":" + (run.validating() ? "true" : "false") +
                    ",\"samples\":" + std::to_string(run.samples());
    if (run.stepsPerEpoch()) j += ",\"steps\":" + std::to_string(*run.stepsPerEpoch());
    return returnString(j + ",\"logs\":" + logsJson(run.logs()) + "}");
  });
}

/// kRead: a handle to the values to read (valid until the next call on the run).
EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_values(int32_t id) {
  return guarded(-1, [&] {
    Run& r = runFrom(id);
    dropValuesHandle(r);
    r.valuesHandle = tensorHandles().put(r.run->values());
    return r.valuesHandle;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_provide(int32_t id, const float* values, int32_t n) {
  return guarded(-1, [&] {
    Run& r = runFrom(id);
    dropValuesHandle(r);
    r.run->provide(std::vector<float>(values, values + std::max(0, n)));
    return 0;
  });
}

EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_lost(int32_t id) {
  return guarded(-1, [&] {
    Run& r = runFrom(id);
    dropValuesHandle(r);
    r.run->lost();
    return 0;
  });
}

/// kNeedBatch: a batch {x..., y...} (batchSize: validation rows per
/// evaluation, 0 all), or n = 0 for none.
EMSCRIPTEN_KEEPALIVE int32_t glint_fit_run_feed(int32_t id, const int32_t* xs, int32_t nx,
                                                const int32_t* ys, int32_t ny, int32_t batchSize) {
  return guarded(-1, [&] {
    Run& r = runFrom(id);
    if (nx == 0) r.run->feedEnd();
    else r.run->feed(tensorsFrom(xs, nx), tensorsFrom(ys, ny), batchSize);
    return 0;
  });
}

/// {epoch: [...], history: {name: [...]}, deviceLosses}.
EMSCRIPTEN_KEEPALIVE const char* glint_fit_run_history(int32_t id) {
  return guarded<const char*>(nullptr, [&] {
    const FitRun& run = *runFrom(id).run;
    std::string j = "{\"epoch\":[";
    for (size_t i = 0; i < run.history().epoch.size(); ++i)
      j += (i ? "," : "") + std::to_string(run.history().epoch[i]);
    j += "],\"history\":{";
    const char* comma = "";
    for (const auto& [name, values] : run.history().history) {
      j += comma + Json(name).dump() + ":[";
      for (size_t e = 0; e < values.size(); ++e) j += (e ? "," : "") + jsonNumber(values[e]);
      j += "]";
      comma = ",";
    }
    return returnString(j + "},\"deviceLosses\":" + std::to_string(run.deviceLosses()) + "}");
  });
}

EMSCRIPTEN_KEEPALIVE void glint_fit_run_dispose(int32_t id) {
  guarded(0, [&] {
    // A run dropped before its end (an exception in a JS callback) lets go
    // of the model here.
    if (Run* r = runs().find(id)) dropValuesHandle(*r);
    runs().erase(id);
    return 0;
  });
}

}  // extern "C"
