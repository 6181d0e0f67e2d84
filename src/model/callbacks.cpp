// Callbacks: lambdas, EarlyStopping (TF.js semantics), and the progress
// logger fit uses for verbose 1 / 2.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>

#include "glint/error.h"
#include "glint/ops.h"
#include "src/model/model_internal.h"

namespace glint {

namespace {

class LambdaCallback : public Callback {
 public:
  explicit LambdaCallback(LambdaCallbackFns fns) : fns_(std::move(fns)) {}
  void onTrainBegin(const Logs& l) override {
    if (fns_.onTrainBegin) fns_.onTrainBegin(l);
  }
  void onTrainEnd(const Logs& l) override {
    if (fns_.onTrainEnd) fns_.onTrainEnd(l);
  }
  void onEpochBegin(int e, const Logs& l) override {
    if (fns_.onEpochBegin) fns_.onEpochBegin(e, l);
  }
  void onEpochEnd(int e, const Logs& l) override {
    if (fns_.onEpochEnd) fns_.onEpochEnd(e, l);
  }
  void onBatchBegin(int b, const Logs& l) override {
    if (fns_.onBatchBegin) fns_.onBatchBegin(b, l);
  }
  void onBatchEnd(int b, const Logs& l) override {
    if (fns_.onBatchEnd) fns_.onBatchEnd(b, l);
  }

 private:
  LambdaCallbackFns fns_;
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string duration(double seconds) {
  char buf[32];
  if (seconds < 1) std::snprintf(buf, sizeof buf, "%.0fms", seconds * 1000);
  else if (seconds < 60) std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  else
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(seconds) / 60,
                  static_cast<int>(seconds) % 60);
  return buf;
}

/// Keras's progress output on stderr.
class ProgressLogger : public Callback {
  using Clock = std::chrono::steady_clock;

 public:
  ProgressLogger(int verbose, int epochs, std::optional<int64_t> steps)
      : verbose_(verbose), epochs_(epochs), steps_(steps) {}

  void onEpochBegin(int epoch, const Logs&) override {
    epoch_ = epoch;
    start_ = lastDraw_ = Clock::now();
    samples_ = 0;
    batches_ = 0;
    sums_.clear();
    if (verbose_ == 1) std::cerr << "Epoch " << epoch + 1 << "/" << epochs_ << "\n";
  }

  void onBatchEnd(int batch, const Logs& logs) override {
    auto size = logs.find("size");
    int64_t n = size != logs.end() ? static_cast<int64_t>(size->second) : 0;
    samples_ += n;
    batches_ = batch + 1;
    for (const auto& [k, v] : logs) sums_[k] += v * static_cast<double>(n);
    if (verbose_ != 1) return;
    auto now = Clock::now();
    // Redraw at most ~10 times a second.
    if (now - lastDraw_ < std::chrono::milliseconds(100) && !(steps_ && batches_ == *steps_))
      return;
    lastDraw_ = now;
    Logs running;
    for (const auto& [k, v] : sums_) running[k] = samples_ ? v / static_cast<double>(samples_) : v;
    double elapsed = seconds(now);
    std::string eta;
    if (steps_ && batches_ < *steps_)
      eta = " - ETA: " + duration(elapsed / batches_ * static_cast<double>(*steps_ - batches_));
    std::cerr << "\r" << bar() << eta << " - " << rate(elapsed) << " - " << formatLogs(running)
              << "\033[K" << std::flush;
  }

  void onEpochEnd(int epoch, const Logs& logs) override {
    double elapsed = seconds(Clock::now());
    std::string perStep = batches_ ? " " + duration(elapsed / batches_) + "/step" : "";
    if (verbose_ == 1)
      std::cerr << "\r" << bar() << " - " << duration(elapsed) << perStep << " - " << rate(elapsed)
                << " - " << formatLogs(logs) << "\033[K\n";
    else
      std::cerr << "Epoch " << epoch + 1 << "/" << epochs_ << " - " << duration(elapsed) << " - "
                << rate(elapsed) << " - " << formatLogs(logs) << "\n";
  }

 private:
  static std::string formatLogs(const Logs& logs) { return model_internal::formatLogs(logs); }
  double seconds(Clock::time_point now) const {
    return std::chrono::duration<double>(now - start_).count();
  }
  std::string rate(double elapsed) const {
    return number(elapsed > 0 ? static_cast<double>(samples_) / elapsed : 0) + " samples/s";
  }
  std::string bar() const {
    std::ostringstream os;
    if (!steps_) {
      os << batches_ << "/?";
      return os.str();
    }
    const int width = 30;
    int64_t total = std::max<int64_t>(*steps_, 1);
    int filled = static_cast<int>(width * std::min(batches_, total) / total);
    std::string digits = std::to_string(total);
    std::string done = std::to_string(batches_);
    os << std::string(digits.size() > done.size() ? digits.size() - done.size() : 0, ' ') << done
       << "/" << total << " [" << std::string(filled, '=')
       << (filled < width ? ">" + std::string(width - filled - 1, '.') : "") << "]";
    return os.str();
  }

  int verbose_, epochs_;
  std::optional<int64_t> steps_;
  int epoch_ = 0;
  Clock::time_point start_, lastDraw_;
  int64_t samples_ = 0, batches_ = 0;
  std::map<std::string, double> sums_;
};

}  // namespace

CallbackPtr lambdaCallback(LambdaCallbackFns fns) {
  return std::make_shared<LambdaCallback>(std::move(fns));
}

EarlyStopping::EarlyStopping(EarlyStoppingOptions o) : o_(std::move(o)) {
  const char* op = "earlyStopping";
  check(!o_.monitor.empty(), op, "monitor is empty");
  check(o_.patience >= 0, op, "patience must be >= 0, got ", o_.patience);
  check(std::isfinite(o_.minDelta), op, "minDelta must be finite, got ", o_.minDelta);
  o_.minDelta = std::abs(o_.minDelta);  // as TF.js and Keras take it
  check(o_.mode == "auto" || o_.mode == "min" || o_.mode == "max", op,
        "mode must be auto, min or max, got '", o_.mode, "'");
  // 'auto': accuracies (and AUC) grow, everything else (losses) shrinks.
  if (o_.mode == "auto")
    maximize_ =
        o_.monitor.find("acc") != std::string::npos || o_.monitor.find("auc") != std::string::npos;
  else maximize_ = o_.mode == "max";
}

void EarlyStopping::onTrainBegin(const Logs&) {
  wait_ = 0;
  stoppedEpoch_ = 0;
  best_ = o_.baseline ? *o_.baseline
          : maximize_ ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
  bestWeights_.clear();
}

void EarlyStopping::onEpochEnd(int epoch, const Logs& logs) {
  auto it = logs.find(o_.monitor);
  if (it == logs.end()) {
    std::string have;
    for (const auto& [k, v] : logs) have += (have.empty() ? "" : ", ") + k;
    std::string why = "monitor '" + o_.monitor + "' is not in the epoch logs (" + have + ")" +
                      (o_.monitor.rfind("val_", 0) == 0 ? "; give validation data" : "");
    if (!o_.warnIfMissing) fail("earlyStopping", why);
    std::fprintf(stderr, "[earlyStopping] %s: nothing to watch\n", why.c_str());
    return;
  }
  const double current = it->second;
  if (improves(current, best_)) {
    best_ = current;
    wait_ = 0;
    if (o_.restoreBestWeights) {
      bestWeights_.clear();
      // Variables swap buffers on assign, so a view keeps this epoch's values.
      for (const Tensor& w : model->getWeights()) bestWeights_.push_back(reshape(w, w.shape()));
    }
    return;
  }
  if (++wait_ >= o_.patience) {
    stoppedEpoch_ = epoch;
    model->stopTraining = true;
    if (o_.restoreBestWeights && !bestWeights_.empty()) model->setWeights(bestWeights_);
  }
}

bool EarlyStopping::improves(double value, double reference) const {
  return maximize_ ? value - o_.minDelta > reference : value + o_.minDelta < reference;
}

std::shared_ptr<EarlyStopping> earlyStopping(EarlyStoppingOptions options) {
  return std::make_shared<EarlyStopping>(std::move(options));
}

namespace model_internal {

CallbackPtr progressLogger(int verbose, int epochs, std::optional<int64_t> stepsPerEpoch) {
  return std::make_shared<ProgressLogger>(verbose, epochs, stepsPerEpoch);
}

std::string formatLogs(const Logs& logs) {
  std::string out;
  auto add = [&](const std::string& k, double v) {
    out += (out.empty() ? "" : " - ") + k + ": " + number(v);
  };
  if (auto it = logs.find("loss"); it != logs.end()) add("loss", it->second);
  for (const auto& [k, v] : logs)
    if (k != "loss" && k != "batch" && k != "size" && k.rfind("val_", 0) != 0) add(k, v);
  if (auto it = logs.find("val_loss"); it != logs.end()) add("val_loss", it->second);
  for (const auto& [k, v] : logs)
    if (k != "val_loss" && k.rfind("val_", 0) == 0) add(k, v);
  return out;
}

}  // namespace model_internal
}  // namespace glint
