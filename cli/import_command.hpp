// `dctwin import`: read measured GPU telemetry (nvidia-smi, DCGM, Prometheus) and write it as an
// HDF5 telemetry file in SI units.
#pragma once

#include <optional>
#include <string>

#include "trace_options.hpp"

namespace CLI {
class App;
}

namespace dctwin::cli {

struct ImportArguments {
  std::string trace;  ///< input file
  std::string output = "telemetry.h5";
  TraceReading reading;
  int gpus = 0;                ///< GPUs per host of an nvidia-smi CSV without index, uuid or pci.bus_id
  bool quiet = false;
};

/// Adds the `import` subcommand to `app`, filling `arguments`.
CLI::App* add_import_command(CLI::App& app, ImportArguments& arguments);

/// Runs `dctwin import`; returns the exit code.
int import_command(const ImportArguments& arguments);

}  // namespace dctwin::cli
