#include "commands.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <exception>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/report_probe.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/schema_doc.hpp"
#include "dctwin/models/facility/site.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/solver/integrator.hpp"
#include "dctwin/solver/parallel.hpp"
#include "exit_codes.hpp"
#include "failures.hpp"
#include "progress.hpp"

namespace dctwin::cli {

namespace {

/// Value with its unit, and temperatures also in degC, for the summary table.
std::string show(double value, const std::string& unit) {
  if (unit == "K" && value > 150.0) return fmt::format("{:.3f} K ({:.2f} degC)", value, value - 273.15);
  if (unit == "m3/s") return fmt::format("{:.6g} m3/s ({:.3f} L/min)", value, value * 60000.0);
  if (unit == "J" && std::abs(value) >= 1e6) return fmt::format("{:.6g} J ({:.4g} kWh)", value, value / 3.6e6);
  if (unit == "1") return fmt::format("{:.6g}", value);
  return fmt::format("{:.6g} {}", value, unit);
}

void print_summary(const std::vector<core::SummaryFigure>& summary) {
  std::size_t width = 0;
  for (const auto& f : summary) width = std::max(width, f.name.size());
  // The names and units may come from a report of unknown origin (dctwin info).
  for (const auto& f : summary)
    std::printf("  %-*s  %s\n", static_cast<int>(width), core::printable(f.name).c_str(),
                core::printable(show(f.value, f.unit)).c_str());
}

/// A time given for `simulation.<key>`, checked by that key's rule (a lower bound, for example).
double parse_time_option(const std::string& text, const char* option, const char* key) {
  const double seconds = io::parse_duration(text);
  if (!(seconds > 0.0)) throw core::InputError(std::string(option) + " = " + text + " (must be > 0)");
  io::check_simulation_option(option, text, key, seconds);
  return seconds;
}

}  // namespace

std::string seed_problem(const std::string& text) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) return "must be a whole number >= 0, not '" + core::printable(text) + "'";
  std::uint64_t value = 0;
  if (std::from_chars(text.data(), text.data() + text.size(), value).ec != std::errc{})
    return "must be <= 18446744073709551615, not " + text;
  return {};
}

int run_command(const RunArguments& arguments, const std::atomic<bool>& stop_requested) {
  io::ScenarioOverrides overrides;
  try {
    if (arguments.duration) overrides.duration = parse_time_option(*arguments.duration, "--duration", "duration");
    if (arguments.output_interval)
      overrides.output_interval =
          parse_time_option(*arguments.output_interval, "--output-interval", "output_interval");
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "dctwin run: %s\n", e.what());
    return exit_usage;
  }
  overrides.seed = arguments.seed;
  solver::set_thread_budget(arguments.threads);

  try {
    // A report that cannot be written at that name is found before the scenario is even read.
    io::check_output_path(arguments.report, "report", {{arguments.scenario, "scenario"}});
    const io::ScenarioDocument document = io::load_scenario_file(arguments.scenario, overrides);
    const auto& sim = document.tree.section("simulation");
    ProgressReporter progress(0.0, sim.number("duration"), !arguments.quiet);
    io::RunCallbacks callbacks;
    callbacks.progress = [&](double t) { progress.update(t); };
    callbacks.cancel = &stop_requested;
    callbacks.warning = [](const std::string& w) { std::fprintf(stderr, "warning: %s\n", core::printable(w).c_str()); };
    // Before the run: what the report will take (its series as the scenario's `output` chooses).
    callbacks.report_size = [&](const io::ReportSizeEstimate& estimate) {
      if (arguments.quiet) return;
      std::printf("dctwin run: report %s: %s\n", core::printable(arguments.report).c_str(),
                  io::describe(estimate).c_str());
      std::fflush(stdout);
    };
    const io::RunResult result = io::run_scenario(document, arguments.report, callbacks);
    if (!result.report_written) {
      std::fprintf(stderr, "dctwin run: interrupted before the report was created; no report written\n");
      return exit_interrupted_sigint;  // main() maps SIGTERM to its own code
    }
    progress.finish(result.status.time);

    if (!arguments.quiet) {
      std::printf("dctwin run: %s (%s)\n", core::printable(document.tree.text("name")).c_str(),
                  core::printable(arguments.scenario).c_str());
      std::printf("  status: %s\n", result.status.describe().c_str());
      const double simulated = result.status.time;
      std::printf("  wall time: %.3f s (%.4g x real time), %ld steps, %ld segments (%ld continued), %ld RHS and %ld "
                  "Jacobian evaluations, %ld ticks at rest left out\n",
                  result.wall_time_seconds, result.wall_time_seconds > 0 ? simulated / result.wall_time_seconds : 0.0,
                  result.statistics.steps, result.statistics.segments, result.statistics.continued_segments,
                  result.statistics.rhs_evaluations, result.statistics.jacobian_evaluations,
                  result.statistics.ticks_at_rest);
      // Where the time went (docs/performance.md reads runs this way).
      const solver::RunWallTimes& w = result.statistics.wall_time;
      std::printf("  wall time by part: start %.2f s, integration %.2f s (of which states at requested times "
                  "%.2f s), periodic updates %.2f s, scheduled updates %.2f s, knots %.2f s, continuations %.2f s, "
                  "restarts %.2f s, samples %.2f s\n",
                  std::max(0.0, result.wall_time_seconds - w.total), w.integration, w.interpolation,
                  w.periodic_updates, w.scheduled_updates, w.knots, w.continuations, w.restarts, w.samples);
      print_summary(result.summary);
      std::printf("report: %s%s\n", core::printable(arguments.report).c_str(),
                  result.status.finished() ? "" : " (incomplete)");
    }
    if (result.status.finished()) return exit_ok;
    if (result.status.reason == solver::StopReason::interrupted) {
      std::fprintf(stderr, "dctwin run: interrupted at t = %g s; report %s marked incomplete\n",
                   result.status.time, core::printable(arguments.report).c_str());
      return exit_interrupted_sigint;  // main() maps SIGTERM to its own code
    }
    std::fprintf(stderr, "dctwin run: %s\n", core::printable(result.status.describe()).c_str());
    return exit_run_ended_early;
  } catch (...) {
    return exit_code_of_failure({"dctwin run: "});
  }
}

/// JSON text of a value for programs: invalid UTF-8 replaced, never an exception.
std::string json_text(const nlohmann::ordered_json& value) {
  return value.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

/// A finite number, or null (JSON has no NaN or infinity).
nlohmann::ordered_json json_number(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

int check_command(const std::string& scenario, bool json) {
  // JSON for editors: {"file", "valid", "site"} or {"file", "valid": false, "errors": [{"message",
  // "file", "line", "column", "path"}]}; the exit codes are those of the text form.
  auto failed = [&](const std::string& message, const core::SourceLocation* location,
                    const std::string& path, int code) {
    if (!json) {
      std::fprintf(stderr, "%s\n", message.c_str());
      return code;
    }
    nlohmann::ordered_json error = {{"message", message}};
    if (location != nullptr && location->line > 0) {
      error["file"] = location->file;
      error["line"] = location->line;
      error["column"] = location->column;
    }
    if (!path.empty()) error["path"] = path;
    std::fputs(json_text({{"file", scenario}, {"valid", false}, {"errors", {error}}}).c_str(), stdout);
    return code;
  };
  try {
    const io::ScenarioDocument document = io::load_scenario_file(scenario);
    std::vector<std::string> warnings;
    io::ReportSizeEstimate report_size;
    const std::string site = io::check_site(document, &warnings, &report_size);
    if (json) {
      const nlohmann::ordered_json report = {{"expected_bytes", json_number(report_size.expected_bytes)},
                                             {"uncompressed_bytes", json_number(report_size.uncompressed_bytes)},
                                             {"series_written", report_size.series_written},
                                             {"series_left_out", report_size.series_left_out},
                                             {"text", io::describe(report_size)}};
      std::fputs(json_text({{"file", scenario},
                            {"valid", true},
                            {"site", site},
                            {"report", report},
                            {"warnings", warnings}})
                     .c_str(),
                 stdout);
    } else {
      std::printf("%s: OK, %s\n", core::printable(scenario).c_str(), core::printable(site).c_str());
      std::printf("report: %s\n", io::describe(report_size).c_str());
      for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", core::printable(w).c_str());
    }
    return exit_ok;
  } catch (const io::MissingInputError& e) {
    return failed(e.what(), nullptr, e.key_path(), exit_no_input);
  } catch (const io::ScenarioError& e) {
    return failed(e.what(), &e.location(), e.path(), exit_data_error);
  } catch (const core::InputError& e) {
    return failed(e.what(), nullptr, e.key_path(), exit_data_error);
  } catch (const std::exception& e) {
    return failed("dctwin check: internal error: " + core::printable(e.what()), nullptr, "", exit_internal);
  }
}

int info_command(const std::string& path, bool all_attributes, bool json) {
  try {
    if (!std::filesystem::exists(path)) {
      std::fprintf(stderr, "%s: no such report file\n", core::printable(path).c_str());
      return exit_no_input;
    }
    // A damaged report can crash or hang libhdf5, which no exception handler survives: a child
    // process reads everything this command reads first (dctwin/io/report_probe.hpp). A forked copy
    // of this process is safe here: `info` starts no threads before it.
    io::ReportProbeOptions probe;
    probe.datasets = {"/time"};
    probe.read_strings = false;  // info shows no string dataset
    if (const auto checked = io::probe_report(path, probe); checked.damaged()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), checked.message.c_str());
      return exit_data_error;
    }
    const io::ReportReader report(path);
    const auto strings = report.string_attributes();
    auto raw_attribute = [&](const char* key) {
      auto it = strings.find(key);
      return it == strings.end() ? std::string() : it->second;
    };
    const auto time = report.time();
    if (json) {
      // The same facts for programs; strings as stored (invalid UTF-8 replaced), numbers in the
      // units given beside them, non-finite numbers as null.
      nlohmann::ordered_json out;
      out["report"] = path;
      out["scenario"] = {{"name", raw_attribute("scenario_name")}, {"file", raw_attribute("scenario_file")}};
      out["status"] = report.status();
      out["status_reason"] = report.status_reason();
      out["time"] = {{"samples", time.size()},
                     {"start", time.empty() ? nlohmann::ordered_json(nullptr) : json_number(time.front())},
                     {"end", time.empty() ? nlohmann::ordered_json(nullptr) : json_number(time.back())},
                     {"unit", "s"}};
      if (all_attributes) {
        nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
        for (const auto& [key, value] : strings) attributes[key] = value;
        for (const auto& [key, value] : report.integer_attributes()) attributes[key] = value;
        for (const auto& [key, value] : report.unsigned_attributes()) attributes[key] = value;
        for (const auto& [key, value] : report.double_attributes()) attributes[key] = json_number(value);
        out["attributes"] = attributes;
      }
      nlohmann::ordered_json datasets = nlohmann::ordered_json::array();
      for (const auto& d : report.datasets())
        datasets.push_back({{"path", d.path}, {"shape", d.shape}, {"units", d.units}});
      out["datasets"] = datasets;
      nlohmann::ordered_json summary = nlohmann::ordered_json::array();
      for (const auto& f : report.summary())
        summary.push_back({{"name", f.name}, {"value", json_number(f.value)}, {"unit", f.unit},
                           {"long_name", f.long_name}});
      out["summary"] = summary;
      std::fputs(json_text(out).c_str(), stdout);
      return exit_ok;
    }
    // Everything read from the file is made printable: a report may come from anywhere.
    auto attribute = [&](const char* key) { return core::printable(raw_attribute(key)); };
    std::printf("report: %s\n", core::printable(path).c_str());
    std::printf("  scenario: %s (%s)\n", attribute("scenario_name").c_str(), attribute("scenario_file").c_str());
    std::printf("  status: %s%s\n", core::printable(report.status()).c_str(),
                report.status_reason().empty() ? "" : (" - " + core::printable(report.status_reason())).c_str());
    std::printf("  time: %zu samples, %g s to %g s\n", time.size(), time.empty() ? 0.0 : time.front(),
                time.empty() ? 0.0 : time.back());
    if (all_attributes) {
      std::printf("attributes:\n");
      for (const auto& [key, value] : strings)
        std::printf("  %s = %s\n", core::printable(key).c_str(), core::printable(value).c_str());
      for (const auto& [key, value] : report.integer_attributes())
        std::printf("  %s = %lld\n", core::printable(key).c_str(), value);
      for (const auto& [key, value] : report.unsigned_attributes())
        std::printf("  %s = %llu\n", core::printable(key).c_str(), static_cast<unsigned long long>(value));
      for (const auto& [key, value] : report.double_attributes())
        std::printf("  %s = %.9g\n", core::printable(key).c_str(), value);
    }
    std::printf("datasets:\n");
    for (const auto& d : report.datasets()) {
      std::string shape;
      for (std::size_t k = 0; k < d.shape.size(); ++k) shape += (k ? " x " : "") + std::to_string(d.shape[k]);
      if (shape.empty()) shape = "scalar";
      std::printf("  %-44s [%s] %s\n", core::printable(d.path).c_str(), shape.c_str(),
                  core::printable(d.units).c_str());
    }
    std::printf("summary:\n");
    print_summary(report.summary());
    return exit_ok;
  } catch (const io::ReportError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return exit_data_error;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dctwin info: internal error: %s\n", core::printable(e.what()).c_str());
    return exit_internal;
  }
}

int schema_command(bool json) {
  const auto schema = models::facility::scenario_schema();
  std::fputs(json ? io::schema_json(schema, "dctwin scenario").c_str()
                  : io::schema_markdown(schema, "Scenario reference").c_str(),
             stdout);
  return exit_ok;
}

}  // namespace dctwin::cli
