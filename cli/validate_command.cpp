#include "validate_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>

#include "dctwin/core/printable.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/io/validation.hpp"
#include "dctwin/solver/integrator.hpp"
#include "exit_codes.hpp"
#include "failures.hpp"

namespace dctwin::cli {

namespace {

void add_replay_options(CLI::App* cmd, ReplayArguments& a) {
  cmd->add_option("trace", a.trace, "Telemetry file (any format dctwin import reads)")->required();
  cmd->add_option("--scenario", a.scenario, "Single-node scenario (YAML) whose server is replayed")->required();
  add_trace_reading_options(cmd, a.reading);
  cmd->add_option("--gpu-map", a.gpu_map,
                  "Model GPU of each trace GPU, in trace order, e.g. 4,5 (default: trace GPU k -> model GPU k)");
  cmd->add_option("--initial-state", a.initial_state,
                  "steady_state (of the first samples' power) or supply_temperature")
      ->check(CLI::IsMember({"steady_state", "supply_temperature"}))
      ->capture_default_str();
  cmd->add_option("--max-lag", a.max_lag, "Largest lag searched by the cross-correlation [s]")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--power-window", a.power_window,
                  "Averaging of the trace's power.draw [s]: 1 on Hopper and on Ampere but GA100 (A100), whose reading "
                  "NVML documents as instantaneous (0)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a.quiet, "No table");
}

/// What both commands read before they start: the trace, the scenario, the options.
struct Inputs {
  io::TelemetryTrace trace;
  io::ScenarioDocument scenario;
  io::ValidationOptions options;
};

/// Prints a table line by line, each made printable (GPU labels carry the trace's host names).
void print_lines(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::printf("%s\n", core::printable(line).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

/// Reads the inputs; returns an exit code when that failed.
std::optional<int> read_inputs(const char* command, const ReplayArguments& a, Inputs& in) {
  io::TelemetryImportOptions options;
  if (const auto code = read_trace_options(command, a.reading, options)) return *code;
  for (const auto& part : a.gpu_map.empty() ? std::vector<std::string>{} : split_at_commas(a.gpu_map)) {
    std::size_t used = 0;
    long value = -1;
    try {
      value = std::stol(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || value < 0) {
      std::fprintf(stderr, "dctwin %s: invalid --gpu-map '%s' (model GPU indices separated by commas, e.g. 4,5)\n",
                   command, core::printable(a.gpu_map).c_str());
      return exit_usage;
    }
    in.options.gpu_map.push_back(static_cast<std::size_t>(value));
  }
  in.options.initial_state = a.initial_state;
  in.options.max_lag = a.max_lag;
  in.options.averaging_window = a.power_window;

  try {
    in.scenario = io::load_scenario_file(a.scenario);
    io::check_replay_scenario(in.scenario);
    in.trace = io::import_telemetry(a.trace, options);
  } catch (...) {
    // Input errors name their file and line themselves.
    return exit_code_of_failure({"dctwin " + std::string(command) + ": ", false});
  }
  return std::nullopt;
}

/// The files a replay reads, which its output must not replace.
std::vector<io::InputFile> input_files(const ReplayArguments& a) {
  return {{a.trace, "trace"}, {a.scenario, "scenario"}, {a.reading.map, "column map"}};
}

/// Checks the output before anything is read or simulated; returns an exit code when it is bad.
std::optional<int> check_output(const char* command, const std::string& output, const char* kind,
                                const ReplayArguments& a) {
  try {
    io::check_output_path(output, kind, input_files(a));
  } catch (const io::ReportError& e) {
    std::fprintf(stderr, "dctwin %s: %s\n", command, e.what());
    return exit_cannot_create;
  }
  return std::nullopt;
}

/// Runs `work`, mapping its failures to exit codes.
template <typename Work>
std::optional<int> guarded(const char* command, Work&& work) {
  try {
    work();
  } catch (...) {
    return exit_code_of_failure({"dctwin " + std::string(command) + ": ", true, true, true});
  }
  return std::nullopt;
}

}  // namespace

CLI::App* add_validate_command(CLI::App& app, ValidateArguments& a) {
  auto* cmd = app.add_subcommand(
      "validate",
      "Replay a GPU telemetry trace through a single-node scenario's server: temperatures driven by the\n"
      "measured power, power from the phases recognised in it (NVML 1-s average), the governor's clock;\n"
      "print MAE, RMSE, bias, CV(RMSE), NMBE (ASHRAE Guideline 14), max error and lag per GPU and write\n"
      "them with the series to HDF5. See docs/validation.md. Exit codes: 0 ok, 3 the replay stopped\n"
      "early, 64 usage, 65 bad trace or scenario (e.g. more GPUs than the server), 66 missing input,\n"
      "73 cannot create the output, 74 output error.");
  add_replay_options(cmd, a.replay);
  cmd->add_option("-o,--output", a.output, "Validation file (HDF5)")->capture_default_str();
  return cmd;
}

CLI::App* add_calibrate_command(CLI::App& app, CalibrateArguments& a) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit the GPU package's junction-to-base resistance, junction and base capacitances (and with\n"
      "--fit-supply-temperature the coolant supply temperature) and the power model's static power,\n"
      "dynamic power and leakage coefficient to a telemetry trace (Levenberg-\n"
      "Marquardt on the first --train-fraction of the trace), report metrics on the rest, and write the\n"
      "values as a scenario fragment (YAML). See docs/validation.md. Exit codes as dctwin validate.");
  add_replay_options(cmd, a.replay);
  cmd->add_option("--train-fraction", a.train_fraction, "Share of the trace's time used for the fit")
      ->check(CLI::Range(0.05, 0.95))
      ->capture_default_str();
  cmd->add_flag("--fit-supply-temperature", a.fit_supply_temperature,
                "Also fit the coolant supply temperature (loop.supply_temperature) when it was not measured");
  cmd->add_option("-o,--output", a.output, "Scenario fragment to write (YAML)")->capture_default_str();
  cmd->add_option("--metrics", a.metrics,
                  "HDF5 file of the held-out metrics and series (as dctwin validate writes) and the fitted "
                  "parameters (default: the fragment's name with .h5)");
  cmd->add_option("--merged", a.merged,
                  "Also write the scenario with the fitted values merged in (YAML; comments are not kept), ready "
                  "for dctwin run, check and validate");
  return cmd;
}

int validate_command(const ValidateArguments& a) {
  if (const auto code = check_output("validate", a.output, "validation file", a.replay)) return *code;
  Inputs in;
  if (const auto code = read_inputs("validate", a.replay, in)) return *code;
  io::ValidationResult result;
  if (const auto code = guarded("validate", [&] { result = io::validate_trace(in.trace, in.scenario, in.options); }))
    return *code;
  if (const auto code = guarded("validate", [&] { io::write_validation_hdf5(result, a.output, input_files(a.replay)); })) return *code;
  if (!a.replay.quiet) {
    print_lines(io::format_validation_table(result));
    for (const auto& note : result.notes) std::printf("note: %s\n", core::printable(note).c_str());
    std::printf("wrote %s\n", core::printable(a.output).c_str());
  }
  return exit_ok;
}

/// The scenario file's text (it was read once already; a failure now is an I/O error).
std::string scenario_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.is_open() || in.bad()) throw io::ReportError("cannot read " + file + " again to merge the fragment into it");
  return text.str();
}

/// The metrics file of `dctwin calibrate`: --metrics, else the fragment's name with `.h5`.
std::string calibration_metrics_file(const CalibrateArguments& a) {
  if (!a.metrics.empty()) return a.metrics;
  return std::filesystem::path(a.output).replace_extension(".h5").string();
}

int calibrate_command(const CalibrateArguments& a) {
  if (const auto code = check_output("calibrate", a.output, "", a.replay)) return *code;
  const std::string metrics = calibration_metrics_file(a);
  if (std::filesystem::path(metrics).lexically_normal() == std::filesystem::path(a.output).lexically_normal()) {
    std::fprintf(stderr, "dctwin calibrate: the metrics file and the fragment are the same file (%s)\n",
                 core::printable(metrics).c_str());
    return exit_usage;
  }
  if (const auto code = check_output("calibrate", metrics, "calibration metrics file", a.replay)) return *code;
  if (!a.merged.empty()) {
    const auto merged = std::filesystem::path(a.merged).lexically_normal();
    if (merged == std::filesystem::path(a.output).lexically_normal() ||
        merged == std::filesystem::path(metrics).lexically_normal()) {
      std::fprintf(stderr, "dctwin calibrate: --merged names the fragment or the metrics file (%s)\n",
                   core::printable(a.merged).c_str());
      return exit_usage;
    }
    if (const auto code = check_output("calibrate", a.merged, "merged scenario", a.replay)) return *code;
  }
  Inputs in;
  if (const auto code = read_inputs("calibrate", a.replay, in)) return *code;
  io::CalibrationResult result;
  io::CalibrationOptions options;
  options.train_fraction = a.train_fraction;
  options.validation = in.options;
  options.fit_supply_temperature = a.fit_supply_temperature;
  if (const auto code = guarded("calibrate", [&] { result = io::calibrate_trace(in.trace, in.scenario, options); }))
    return *code;
  const std::string text = fmt::format(
      "# Calibrated by dctwin calibrate from {} against {} (fit on the first {:g} % of the trace).\n"
      "# Merge into the scenario: every key keeps its section.\n{}",
      // Names as escapes: a line break in a file name must not end the comment.
      core::printable(a.replay.trace), core::printable(a.replay.scenario), 100.0 * a.train_fraction,
      result.fragment);
  if (const auto code =
          guarded("calibrate", [&] { io::write_output_text(a.output, text, "", input_files(a.replay)); }))
    return *code;
  if (const auto code =
          guarded("calibrate", [&] { io::write_calibration_hdf5(result, metrics, input_files(a.replay)); }))
    return *code;
  if (!a.merged.empty()) {
    if (const auto code = guarded("calibrate", [&] {
          const std::string merged = io::merge_scenario_fragment(scenario_text(a.replay.scenario), result.fragment);
          io::write_output_text(a.merged,
                                "# " + core::printable(a.replay.scenario) + " with the values calibrated by dctwin "
                                "calibrate from " + core::printable(a.replay.trace) + ".\n" + merged,
                                "", input_files(a.replay));
        }))
      return *code;
  }
  if (!a.replay.quiet) {
    std::printf("%-56s %14s %14s %10s %s\n", "parameter", "initial", "calibrated", "unit", "bound");
    for (const auto& p : result.parameters)
      std::printf("%-56s %14.6g %14.6g %10s %s\n", (p.section + "." + p.key).c_str(), p.initial, p.value,
                  p.unit.c_str(), p.at_bound ? (std::abs(p.value - p.lower) <= std::abs(p.upper - p.value) ? "lower" : "upper") : "-");
    std::printf("fit on the first %g s of the trace (%d thermal replays); held-out metrics:\n", result.split_time,
                result.evaluations);
    print_lines(io::format_validation_table(result.held_out));
    for (const auto& note : result.notes) std::printf("note: %s\n", core::printable(note).c_str());
    std::printf("wrote %s and %s\n", core::printable(a.output).c_str(), core::printable(metrics).c_str());
  } else {
    // Warnings are printed even when quiet: a parameter on its bound was not determined by the trace.
    for (const auto& p : result.parameters)
      if (p.at_bound)
        std::fprintf(stderr, "dctwin calibrate: warning: %s.%s ended at a bound (%g %s)\n", p.section.c_str(),
                     p.key.c_str(), p.value, p.unit.c_str());
  }
  return exit_ok;
}

}  // namespace dctwin::cli
