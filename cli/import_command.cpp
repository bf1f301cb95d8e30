#include "import_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/solver/printable.hpp"
#include "exit_codes.hpp"
#include "failures.hpp"

namespace dctwin::cli {

CLI::App* add_import_command(CLI::App& app, ImportArguments& a) {
  auto* cmd = app.add_subcommand(
      "import",
      "Read a GPU telemetry trace (nvidia-smi CSV or dmon, dcgmi dmon, dcgm-exporter Prometheus text,\n"
      "Prometheus query_range JSON, any CSV with a column map) and write it in SI units to an HDF5 telemetry file.\n"
      "See docs/telemetry.md. Exit codes: 0 ok, 64 usage, 65 bad input data, 66 missing input,\n"
      "73 cannot create the output, 74 output error.");
  cmd->add_option("trace", a.trace, "Telemetry file")->required();
  cmd->add_option("-o,--output", a.output, "HDF5 telemetry file to write")->capture_default_str();
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
  cmd->add_option("--gpus", a.gpus,
                  "GPUs per host of an nvidia-smi CSV file without index, uuid or pci.bus_id column: every N\n"
                  "consecutive rows are one tick (default: found from the pauses between ticks)");
  cmd->add_flag("--skip-bad-lines", a.skip_bad_lines, "Skip and count malformed lines instead of stopping");
  cmd->add_flag("-q,--quiet", a.quiet, "No summary");
  return cmd;
}

namespace {

std::string span_text(double seconds) {
  // Timestamps are read to the millisecond; the difference of two of them is shown so too.
  seconds = std::round(seconds * 1000.0) / 1000.0;
  if (seconds < 120.0) return io::format_number(seconds) + " s";
  if (seconds < 7200.0) return io::format_number(seconds / 60.0) + " min";
  return io::format_number(seconds / 3600.0) + " h";
}

}  // namespace

int import_command(const ImportArguments& a) {
  io::TelemetryImportOptions options;
  try {
    const auto format = io::parse_format_name(a.format);
    if (!format) {
      std::fprintf(stderr,
                   "dctwin import: unknown format '%s' (auto, nvidia-smi-csv, nvidia-smi-dmon, dcgmi-dmon, "
                   "prometheus, prometheus-json, csv)\n",
                   solver::printable(a.format).c_str());
      return exit_usage;
    }
    options.format = *format;
    if (options.format == io::TelemetryFormat::generic_csv && a.map.empty()) {
      std::fprintf(stderr, "dctwin import: the csv format needs a column map (--map map.yaml)\n");
      return exit_usage;
    }
    options.timezone = a.timezone;
    (void)io::parse_utc_offset(a.timezone);
    options.interval = io::parse_duration(a.interval);
    if (!(options.interval > 0.0)) {
      std::fprintf(stderr, "dctwin import: invalid interval '%s' (must be > 0)\n", solver::printable(a.interval).c_str());
      return exit_usage;
    }
    if (!a.columns.empty()) {
      std::size_t start = 0;
      while (true) {
        const auto comma = a.columns.find(',', start);
        options.columns.push_back(
            a.columns.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    if (a.gpus < 0) {
      std::fprintf(stderr, "dctwin import: invalid --gpus %d (a number of GPUs, or 0 to find it from the pauses between ticks)\n", a.gpus);
      return exit_usage;
    }
    options.gpus = a.gpus;
    options.skip_bad_lines = a.skip_bad_lines;
    options.map_file = a.map;
  } catch (const solver::InputError& e) {
    std::fprintf(stderr, "dctwin import: %s\n", e.what());
    return exit_usage;
  }

  // The output is checked before the trace is read (a long trace takes a while).
  const std::vector<io::InputFile> inputs{{a.trace, "trace"}, {a.map, "column map"}};
  try {
    io::check_output_path(a.output, "telemetry file", inputs);
  } catch (const io::ReportError& e) {
    std::fprintf(stderr, "dctwin import: %s\n", e.what());
    return exit_cannot_create;
  }

  // Input errors name their file and line themselves.
  const FailureWording wording{"dctwin import: ", false};
  io::TelemetryTrace trace;
  try {
    trace = io::import_telemetry(a.trace, options);
  } catch (...) {
    return exit_code_of_failure(wording);
  }

  try {
    io::write_telemetry_hdf5(trace, a.output, inputs);
  } catch (...) {
    return exit_code_of_failure(wording);
  }

  const auto& p = trace.provenance;
  // Warnings go to stderr even with --quiet: the file was written, but maybe not as intended.
  for (const auto& w : p.warnings)
    std::fprintf(stderr, "dctwin import: warning: %s\n", solver::printable(w).c_str());
  if (!p.skipped.empty()) {
    std::fprintf(stderr, "dctwin import: skipped %zu bad line%s:\n", p.skipped_count, p.skipped_count == 1 ? "" : "s");
    for (const auto& s : p.skipped)
      std::fprintf(stderr, "  %s:%s\n", solver::printable(p.source).c_str(), solver::printable(s).c_str());
    if (p.skipped_count > p.skipped.size())
      std::fprintf(stderr, "  ... and %zu more\n", p.skipped_count - p.skipped.size());
  }
  if (!a.quiet) {
    double first = std::numeric_limits<double>::infinity(), last = -first;
    for (const auto& g : trace.gpus)
      if (!g.time.empty()) {
        first = std::min(first, g.time.front());
        last = std::max(last, g.time.back());
      }
    std::string quantities;
    for (const auto& q : trace.quantities) quantities += (quantities.empty() ? "" : ", ") + q;
    std::printf("%s: %s, %zu GPU%s, %zu samples, %s from %s\n", solver::printable(a.trace).c_str(), p.format.c_str(),
                trace.gpus.size(),
                trace.gpus.size() == 1 ? "" : "s", trace.sample_count(),
                std::isfinite(first) ? span_text(last - first).c_str() : "0 s",
                std::isfinite(first) ? (io::format_utc_time(first) + " to " + io::format_utc_time(last)).c_str() : "-");
    std::printf("quantities: %s\n", quantities.c_str());
    if (p.impossible_count > 0)
      std::printf("skipped lines: %zu (%zu with a physically impossible value)\n", p.skipped_count, p.impossible_count);
    else
      std::printf("skipped lines: %zu\n", p.skipped_count);
    // Notes name the file's columns and metrics.
    for (const auto& n : p.notes) std::printf("note: %s\n", solver::printable(n).c_str());
    std::printf("wrote %s\n", solver::printable(a.output).c_str());
  }
  return exit_ok;
}

}  // namespace dctwin::cli
