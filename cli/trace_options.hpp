// How a GPU telemetry trace is read: the options `dctwin import`, `validate` and `calibrate` share.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace dctwin::io {
struct TelemetryImportOptions;
}

namespace dctwin::cli {

struct TraceReading {
  std::string format = "auto";
  std::string timezone = "UTC";
  std::string columns;         ///< comma-separated field list (nvidia-smi CSV without header)
  std::string map;             ///< column map (YAML) of a generic CSV file
  std::string interval = "1";  ///< duration text, e.g. `1`, `500 ms`, `2 s`
  bool skip_bad_lines = false;
};

/// Adds --format, --timezone, --columns, --map, --interval and --skip-bad-lines to `command`.
void add_trace_reading_options(CLI::App* command, TraceReading& reading);

/// "a,b,,c" -> {"a", "b", "", "c"}.
[[nodiscard]] std::vector<std::string> split_at_commas(const std::string& text);

/// Fills `options` from the command line. On a bad value writes "dctwin <command>: <problem>" on
/// stderr and returns exit_usage.
[[nodiscard]] std::optional<int> read_trace_options(const char* command, const TraceReading& reading,
                                                    io::TelemetryImportOptions& options);

}  // namespace dctwin::cli
