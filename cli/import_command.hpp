// `dctwin import`: read measured GPU telemetry (nvidia-smi, DCGM, Prometheus) and write it as an
// HDF5 telemetry file in SI units.
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace dctwin::cli {

struct ImportArguments {
  std::string trace;  ///< input file
  std::string output = "telemetry.h5";
  std::string format = "auto";
  std::string timezone = "UTC";
  std::string columns;         ///< comma-separated field list (nvidia-smi CSV without header)
  std::string map;             ///< column map (YAML) of a generic CSV file
  std::string interval = "1";  ///< duration text, e.g. `1`, `500 ms`, `2 s`
  int gpus = 0;                ///< GPUs per host of an nvidia-smi CSV without index, uuid or pci.bus_id
  bool skip_bad_lines = false;
  bool quiet = false;
};

/// Adds the `import` subcommand to `app`, filling `arguments`.
CLI::App* add_import_command(CLI::App& app, ImportArguments& arguments);

/// Runs `dctwin import`; returns the exit code.
int import_command(const ImportArguments& arguments);

}  // namespace dctwin::cli
