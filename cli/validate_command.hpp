// `dctwin validate` and `dctwin calibrate`: replay a measured GPU telemetry trace through the
// single-node server model, report error metrics, and fit the model's parameters to the trace.
#pragma once

#include <string>

#include "trace_options.hpp"

namespace CLI {
class App;
}

namespace dctwin::cli {

/// Options shared by both commands: the trace and how to import it, the scenario, the replay.
struct ReplayArguments {
  std::string trace;
  std::string scenario;
  TraceReading reading;
  std::string gpu_map;  ///< `0,1,...`: trace GPU k drives model GPU gpu_map[k]
  std::string initial_state = "steady_state";
  double max_lag = 10.0;
  double power_window = 1.0;  ///< NVML's power.draw averaging [s]; 0: instantaneous
  bool quiet = false;
};

struct ValidateArguments {
  ReplayArguments replay;
  std::string output = "validation.h5";
};

struct CalibrateArguments {
  ReplayArguments replay;
  std::string output = "calibrated.yaml";
  double train_fraction = 0.7;
  bool fit_supply_temperature = false;
  /// HDF5 metrics file; empty: the fragment's name with the extension `.h5`.
  std::string metrics;
  /// When set, also the scenario with the fragment merged in (what dctwin run and check read).
  std::string merged;
};

CLI::App* add_validate_command(CLI::App& app, ValidateArguments& arguments);
CLI::App* add_calibrate_command(CLI::App& app, CalibrateArguments& arguments);

/// Run the commands; return the exit code.
int validate_command(const ValidateArguments& arguments);
int calibrate_command(const CalibrateArguments& arguments);

}  // namespace dctwin::cli
