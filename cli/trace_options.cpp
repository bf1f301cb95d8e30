#include "trace_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/units.hpp"
#include "exit_codes.hpp"

namespace dctwin::cli {

void add_trace_reading_options(CLI::App* cmd, TraceReading& a) {
  cmd->add_option("--format", a.format,
                  "auto, nvidia-smi-csv, nvidia-smi-dmon, dcgmi-dmon, prometheus, prometheus-json or csv")
      ->capture_default_str();
  cmd->add_option("--timezone", a.timezone, "Zone of timestamps written without one: UTC or an offset such as +02:00")
      ->capture_default_str();
  cmd->add_option("--columns", a.columns,
                  "Fields of an nvidia-smi CSV file without header, in order, e.g. timestamp,index,power.draw");
  cmd->add_option("--map", a.map, "Column map (YAML) of a generic CSV file; selects the csv format");
  cmd->add_option("--interval", a.interval, "Sampling interval of sources without timestamps, e.g. 1, '500 ms'")
      ->capture_default_str();
  cmd->add_flag("--skip-bad-lines", a.skip_bad_lines, "Skip and count malformed lines instead of stopping");
}

std::vector<std::string> split_at_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::optional<int> read_trace_options(const char* command, const TraceReading& a, io::TelemetryImportOptions& options) {
  try {
    const auto format = io::parse_format_name(a.format);
    if (!format) {
      std::fprintf(stderr,
                   "dctwin %s: unknown format '%s' (auto, nvidia-smi-csv, nvidia-smi-dmon, dcgmi-dmon, prometheus, "
                   "prometheus-json, csv)\n",
                   command, core::printable(a.format).c_str());
      return exit_usage;
    }
    options.format = *format;
    if (options.format == io::TelemetryFormat::generic_csv && a.map.empty()) {
      std::fprintf(stderr, "dctwin %s: the csv format needs a column map (--map map.yaml)\n", command);
      return exit_usage;
    }
    options.timezone = a.timezone;
    (void)io::parse_utc_offset(a.timezone);
    options.interval = io::parse_duration(a.interval);
    if (!(options.interval > 0.0)) {
      std::fprintf(stderr, "dctwin %s: invalid interval '%s' (must be > 0)\n", command,
                   core::printable(a.interval).c_str());
      return exit_usage;
    }
    if (!a.columns.empty()) options.columns = split_at_commas(a.columns);
    options.skip_bad_lines = a.skip_bad_lines;
    options.map_file = a.map;
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "dctwin %s: %s\n", command, e.what());
    return exit_usage;
  }
  return std::nullopt;
}

}  // namespace dctwin::cli
