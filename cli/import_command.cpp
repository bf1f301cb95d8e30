#include "import_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "dctwin/core/printable.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/units.hpp"
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
  add_trace_reading_options(cmd, a.reading);
  cmd->add_option("--gpus", a.gpus,
                  "GPUs per host of an nvidia-smi CSV file without index, uuid or pci.bus_id column: every N\n"
                  "consecutive rows are one tick (default: found from the pauses between ticks)");
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
  if (const auto code = read_trace_options("import", a.reading, options)) return *code;
  if (a.gpus < 0) {
    std::fprintf(stderr, "dctwin import: invalid --gpus %d (a number of GPUs, or 0 to find it from the pauses between ticks)\n", a.gpus);
    return exit_usage;
  }
  options.gpus = a.gpus;

  // The output is checked before the trace is read (a long trace takes a while).
  const std::vector<io::InputFile> inputs{{a.trace, "trace"}, {a.reading.map, "column map"}};
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
    std::fprintf(stderr, "dctwin import: warning: %s\n", core::printable(w).c_str());
  if (!p.skipped.empty()) {
    std::fprintf(stderr, "dctwin import: skipped %zu bad line%s:\n", p.skipped_count, p.skipped_count == 1 ? "" : "s");
    for (const auto& s : p.skipped)
      std::fprintf(stderr, "  %s:%s\n", core::printable(p.source).c_str(), core::printable(s).c_str());
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
    std::printf("%s: %s, %zu GPU%s, %zu samples, %s from %s\n", core::printable(a.trace).c_str(), p.format.c_str(),
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
    for (const auto& n : p.notes) std::printf("note: %s\n", core::printable(n).c_str());
    std::printf("wrote %s\n", core::printable(a.output).c_str());
  }
  return exit_ok;
}

}  // namespace dctwin::cli
