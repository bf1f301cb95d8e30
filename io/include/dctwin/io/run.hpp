// Running a scenario end to end: load and check it, build the site, simulate, stream the report.
// Shared by the `dctwin` command, the GUI's worker thread and sweeps.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/report_storage.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/solver/status.hpp"

namespace dctwin::io {

/// Values given on the command line that replace the scenario's.
struct ScenarioOverrides {
  std::optional<double> duration;         ///< [s]
  std::optional<double> output_interval;  ///< [s]
  std::optional<std::uint64_t> seed;
};

/// Checks a command-line value (SI) for the key `simulation.<name>` against that key's rule in the
/// scenario schema, as a value in the file would be; throws core::InputError
/// `OPTION = TEXT (RULE)`, e.g. `--output-interval = 1e-14 (must be >= 0.001 s)`.
void check_simulation_option(const std::string& option, const std::string& text, const std::string& name, double value);

/// Loads a scenario file against dctwin's scenario schema and applies the overrides. Throws
/// MissingInputError, core::InputError (located messages).
ScenarioDocument load_scenario_file(const std::filesystem::path& file, const ScenarioOverrides& overrides = {});

/// The largest report a run may write [bytes]: 1 TiB, estimated uncompressed (docs/reports.md,
/// "Size"). A run also needs that much free space where the report goes.
inline constexpr double max_report_bytes = 1024.0 * 1024.0 * 1024.0 * 1024.0;

/// Checks that the site of a loaded scenario can be built (topology and cross-field rules), that
/// its estimated memory fits in what this process may use, and that its report would not exceed
/// max_report_bytes. Returns a one-line description of the site; throws core::InputError with a
/// located message. Problems of the design that do not stop a run (an undersized plant) go to
/// `warnings` when given; the estimated size of its report (output section applied) to
/// `report_size` when given.
std::string check_site(const ScenarioDocument& document, std::vector<std::string>* warnings = nullptr,
                       ReportSizeEstimate* report_size = nullptr);

struct RunCallbacks {
  std::function<void(double)> progress;  ///< simulated time reached [s]
  const std::atomic<bool>* cancel = nullptr;
  /// Called on the run's thread with the report's layout before the first sample, then with every
  /// sample written to the report (all output values, laid out as `layout.outputs` says) and every
  /// sample of a fine series group (`layout.fine_series[group]`), e.g. for a live view of the run.
  std::function<void(const ReportLayout&)> layout;
  std::function<void(double t, std::span<const double> outputs)> sample;
  std::function<void(std::size_t group, double t, std::span<const double> values)> fine_sample;
  /// Each problem of the design that does not stop the run (an undersized plant), before it starts;
  /// the report keeps them in its `design_warnings` attribute.
  std::function<void(const std::string&)> warning;
  /// The report's estimated size (report_storage.hpp), once, before the report is created.
  std::function<void(const ReportSizeEstimate&)> report_size;
};

struct RunResult {
  solver::SimulationStatus status;
  solver::SolverStatistics statistics;
  std::vector<core::SummaryFigure> summary;
  double wall_time_seconds = 0.0;
  std::filesystem::path report;
  /// False when the run was stopped (`cancel`) before the report was created: no file was written.
  bool report_written = true;
};

/// Simulates the scenario and writes the report at `report` (streamed to a temporary next to it,
/// renamed when complete, see output_file.hpp; a run that ends early leaves a report marked
/// incomplete). The report's path is checked first (check_output_path; it must not be the
/// scenario or its weather file). Before creating the report it refuses a site too large for
/// memory and a report larger than max_report_bytes or than the free space of its file system;
/// stopped (`cancel`) before that, it writes nothing and returns `report_written = false`. Throws
/// core::InputError for a bad scenario and ReportError when the report cannot be created or
/// written.
RunResult run_scenario(const ScenarioDocument& document, const std::filesystem::path& report,
                       const RunCallbacks& callbacks = {});

}  // namespace dctwin::io
