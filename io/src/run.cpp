#include "dctwin/io/run.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <utility>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/report_storage.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/io/version.hpp"
#include "dctwin/io/weather_csv.hpp"
#include "dctwin/io/weather_epw.hpp"
#include "dctwin/models/electrical/feed.hpp"
#include "dctwin/models/facility/site.hpp"
#include "dctwin/models/hx/economizer.hpp"
#include "dctwin/models/workload/dvfs_governor.hpp"
#include "dctwin/models/workload/training_job.hpp"
#include "parameter_rules.hpp"

namespace dctwin::io {

namespace {

void override_value(core::ParameterTree& section, const std::string& name, double value, std::string written) {
  core::ParameterValue& v = section.values.at(name);
  v.number = value;
  v.as_written = std::move(written);
  v.from_default = false;
  v.location = {};
}

/// The weather file a facility scenario names (relative to the scenario), if any.
std::optional<std::filesystem::path> weather_path(const ScenarioDocument& document) {
  const auto& tree = document.tree;
  if (tree.text("site") != "facility") return std::nullopt;
  const auto& weather = tree.section("facility").section("weather");
  if (weather.text("source") != "file") return std::nullopt;
  const std::string& name = weather.text("file");
  if (name.empty())
    throw core::InputError(locate(document, weather.key_path("source")) + ": " + weather.key_path("source") +
                             " = file needs " + weather.key_path("file"));
  std::filesystem::path path(name);
  if (path.is_relative()) path = std::filesystem::path(document.file).parent_path() / path;
  return path;
}

/// The weather series of a facility scenario that names a weather file.
std::optional<models::facility::WeatherSeries> weather_file(const ScenarioDocument& document) {
  const auto path = weather_path(document);
  if (!path) return std::nullopt;
  auto series = load_weather_file(*path, models::facility::WeatherInterpolation::monotone_cubic);
  // The run's t = 0 is `start_offset` into the file's own time axis.
  const auto& weather = document.tree.section("facility").section("weather");
  const double offset = weather.number("start_offset");
  if (offset == 0.0) return series;
  if (offset >= series.end_time())
    throw core::InputError(locate(document, weather.key_path("start_offset")) + ": " +
                             weather.key_path("start_offset") + " = " + format_quantity(offset, "s", "h") +
                             " is not before the weather file's last record at " +
                             format_quantity(series.end_time(), "s", "h") + " (" + path->string() + ")");
  std::vector<double> time = series.times();
  for (double& t : time) t -= offset;
  return models::facility::WeatherSeries(std::move(time), series.dry_bulbs(), series.wet_bulbs(),
                                         series.interpolation());
}

/// Memory this process may use [bytes], and what bounds it: the machine's physical memory, or
/// less under `ulimit -v` (RLIMIT_AS).
std::pair<double, std::string> memory_limit() {
  double limit = std::numeric_limits<double>::infinity();
  std::string what;
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    limit = static_cast<double>(pages) * static_cast<double>(page_size);
    what = "this machine's " + models::facility::format_bytes(limit) + " of memory";
  }
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY &&
      static_cast<double>(address_space.rlim_cur) < limit) {
    limit = static_cast<double>(address_space.rlim_cur);
    what = "the " + models::facility::format_bytes(limit) + " this process may use (ulimit -v)";
  }
  return {limit, what};
}

/// Refuses a site whose estimated memory (models::facility::estimate_site_size, from the layout
/// alone) exceeds what this process may use, before anything is built.
void check_site_memory(const ScenarioDocument& document) {
  const models::facility::SiteSize size = models::facility::estimate_site_size(document.tree);
  if (size.gpus > models::facility::max_facility_gpus) return;  // build_site refuses it by its own rule
  const auto [limit, what] = memory_limit();
  if (size.memory <= limit) return;
  throw core::InputError(locate(document, size.key_path) + ": " + size.gpus_text +
                               " (simulating them would take about " + models::facility::format_bytes(size.memory) +
                               " of memory, more than " + what + ")",
                           size.key_path);
}

std::unique_ptr<models::facility::Site> build(const ScenarioDocument& document) {
  check_site_memory(document);
  try {
    return models::facility::build_site(document.tree, weather_file(document));
  } catch (const MissingInputError&) {
    throw;
  } catch (const core::InputError& e) {
    throw core::InputError(describe_error(document, e), e.key_path());
  }
}

/// How a categorical output is stored (CF flags; report.hpp), none for a measured quantity: the
/// GPUs' NVML clock-event reasons (a bit field, nvml.h nvmlClocksEventReason*), the job's phase and
/// the plant's mode (enumerations).
SeriesFlags categorical_flags(const core::OutputSpec& spec) {
  SeriesFlags flags;
  const auto add = [&](auto value, std::string meaning) {
    flags.values.push_back(static_cast<std::uint32_t>(value));
    flags.meanings.push_back(std::move(meaning));
  };
  if (spec.group == "gpu" && spec.name == "throttle_reasons") {
    namespace reason = models::workload::throttle_reason;
    flags.kind = SeriesFlags::Kind::bit_field;
    add(reason::gpu_idle, "gpu_idle");
    add(reason::applications_clocks_setting, "applications_clocks_setting");
    add(reason::sw_power_cap, "sw_power_cap");
    add(reason::hw_slowdown, "hw_slowdown");
    add(reason::sync_boost, "sync_boost");
    add(reason::sw_thermal_slowdown, "sw_thermal_slowdown");
    add(reason::hw_thermal_slowdown, "hw_thermal_slowdown");
    add(reason::hw_power_brake_slowdown, "hw_power_brake_slowdown");
    add(reason::display_clock_setting, "display_clock_setting");
  } else if (spec.group == "job" && spec.name == "phase") {
    using models::workload::JobPhase;
    flags.kind = SeriesFlags::Kind::enumeration;
    add(JobPhase::idle, "idle");
    add(JobPhase::startup, "startup");
    add(JobPhase::compute, "compute");
    add(JobPhase::bubble, "bubble");
    add(JobPhase::communication, "communication");
    add(JobPhase::optimizer, "optimizer");
    add(JobPhase::checkpoint, "checkpoint");
    add(JobPhase::down, "down");
    add(JobPhase::reload, "reload");
    add(JobPhase::averaged, "averaged");
  } else if (spec.group == "plant" && spec.name == "mode") {
    using models::hx::PlantMode;
    flags.kind = SeriesFlags::Kind::enumeration;
    for (const PlantMode mode : {PlantMode::free_cooling, PlantMode::partial_free_cooling, PlantMode::mechanical})
      add(mode, models::hx::plant_mode_name(mode));
  }
  return flags;
}

/// What the report of a run of `site` holds before its first sample.
ReportLayout report_layout(const ScenarioDocument& document, const models::facility::Site& site) {
  const solver::System& system = site.system();
  ReportLayout layout;
  for (const auto& slot : system.outputs())
    layout.outputs.push_back({slot.spec, slot.first_value, categorical_flags(slot.spec)});
  layout.entities = system.entity_tables();
  layout.static_data = site.static_data();
  if (site.has_electrical_feed()) {
    layout.fine_series.push_back({"grid", models::electrical::grid_sample_time_long_name(),
                                  models::electrical::grid_sample_outputs()});
  }
  layout.scenario_name = site.name();
  layout.scenario_file = document.file;
  layout.scenario_source = document.source_text;
  // Every key the site reads, with its default filled in; not the other kind of site's sections,
  // so that the resolved scenario runs again as it is.
  core::ParameterTree resolved = document.tree;
  for (const std::string& name : models::facility::sections_of_other_site_kind(resolved)) resolved.sections.erase(name);
  models::facility::derive_pod_loop_topology(resolved);
  layout.resolved_scenario = emit_resolved_yaml(resolved, models::facility::scenario_schema());
  layout.attributes["dctwin_version"] = version();
  layout.unsigned_attributes["seed"] = document.tree.section("simulation").unsigned_integer("seed");
  layout.attributes["integrator"] = "CVODE BDF + KLU, analytic sparse Jacobian";
  layout.attributes["simulation_mode"] = document.tree.section("simulation").text("mode");
  apply_output_section(document, layout);  // which series are written, and how precisely
  return layout;
}

/// "86401", or "8.64e+10" for counts too long to read.
std::string format_count(double count) {
  char text[64];
  std::snprintf(text, sizeof text, count < 1e9 ? "%.0f" : "%.3g", count);
  return text;
}

/// Estimates the report's size (report_storage.hpp) and refuses a report whose uncompressed size
/// exceeds max_report_bytes or, when `free_space` is given, the free space of the file system it
/// goes to (docs/reports.md, "Size"); the message is located at the sampling interval of the
/// larger part (the samples or the grid series).
ReportSizeEstimate check_report_size(const ScenarioDocument& document, const ReportLayout& layout,
                                     const std::optional<std::pair<double, std::string>>& free_space) {
  const auto& simulation = document.tree.section("simulation");
  const double duration = simulation.number("duration");
  // start + k * interval before the end, then the end: at most duration / interval + 2.
  const auto samples_in = [&](double interval) { return std::floor(duration / interval) + 2.0; };
  // A row: the time (float64) and each written series' values, 4 bytes (float32, categorical
  // uint32) or 8 (float64) each.
  const auto value_bytes = [](const SeriesStorage& storage, bool categorical) {
    return storage.float32 || categorical ? 4.0 : 8.0;
  };
  double values = 1.0, row_bytes = 8.0;
  for (const auto& output : layout.outputs) {
    if (!output.storage.written) continue;
    values += static_cast<double>(output.spec.count);
    row_bytes += static_cast<double>(output.spec.count) *
                 value_bytes(output.storage, output.flags.kind != SeriesFlags::Kind::none);
  }
  struct Part {
    const core::ParameterTree* section;
    std::string key;
    double samples, values, row_bytes;
  };
  std::vector<Part> parts{
      {&simulation, "output_interval", samples_in(simulation.number("output_interval")), values, row_bytes}};
  for (const auto& group : layout.fine_series) {
    const auto& electrical = document.tree.section("electrical");  // the only fine series: the grid's
    double fine_values = 1.0, fine_bytes = 8.0;
    for (std::size_t k = 0; k < group.series.size(); ++k) {
      const SeriesStorage storage = k < group.storage.size() ? group.storage[k] : SeriesStorage{};
      if (!storage.written) continue;
      fine_values += 1.0;
      fine_bytes += value_bytes(storage, false);
    }
    parts.push_back({&electrical, "output_interval", samples_in(electrical.number("output_interval")), fine_values,
                     fine_bytes});
  }
  std::vector<double> fine_samples;
  for (std::size_t g = 1; g < parts.size(); ++g) fine_samples.push_back(parts[g].samples);
  const ReportSizeEstimate estimate = estimate_report_size(layout, parts.front().samples, fine_samples);
  const double bytes = estimate.uncompressed_bytes;
  const Part* largest = &parts.front();
  for (const Part& part : parts)
    if (part.samples * part.row_bytes > largest->samples * largest->row_bytes) largest = &part;
  std::string limit;
  if (bytes > max_report_bytes) limit = "the limit of " + models::facility::format_bytes(max_report_bytes);
  else if (free_space && bytes > free_space->first)
    limit = "the " + models::facility::format_bytes(free_space->first) + " free on " + free_space->second;
  if (limit.empty()) return estimate;
  const std::string key = largest->section->key_path(largest->key);
  const core::ParameterValue& value = largest->section->values.at(largest->key);
  const std::string written =
      value.as_written.empty() ? format_number(value.number) + " s" : value.as_written;
  throw core::InputError(locate(document, key) + ": " + key + " = " + written + " (the report would take about " +
                               models::facility::format_bytes(bytes) + ", " + format_count(largest->samples) +
                               " samples x " + format_count(largest->values) +
                               " values (" + format_count(largest->row_bytes) +
                               " bytes a sample) at this interval; more than " + limit + ": raise " + key +
                               " or shorten " + simulation.key_path("duration") + ")",
                           key);
}

/// The free space of the file system a report goes to, and the directory it was asked of; none
/// when it cannot be known (the report's creation then reports the problem).
std::optional<std::pair<double, std::string>> free_space_for(const std::filesystem::path& report) {
  std::error_code error;
  std::filesystem::path directory = std::filesystem::absolute(report, error).parent_path();
  if (error || directory.empty()) return std::nullopt;
  const std::filesystem::space_info space = std::filesystem::space(directory, error);
  if (error || space.available == static_cast<std::uintmax_t>(-1)) return std::nullopt;
  return std::make_pair(static_cast<double>(space.available), directory.string());
}

/// Forwards samples to the report and the site's bookkeeping.
class ReportingObserver final : public solver::SimulationObserver {
 public:
  ReportingObserver(ReportWriter& writer, models::facility::Site& site, const RunCallbacks& callbacks)
      : writer_(writer), site_(site), callbacks_(callbacks) {}
  void on_sample(double t, const std::vector<double>& x, const std::vector<double>& outputs) override {
    writer_.append_sample(t, std::span<const double>(outputs));
    if (callbacks_.sample) callbacks_.sample(t, std::span<const double>(outputs));
    site_.observe(t, x, outputs);
    write_grid_samples();
  }
  [[nodiscard]] bool wants_knots() const override { return site_.has_electrical_feed(); }
  void on_knot(double t, const std::vector<double>& x, const std::vector<double>& before,
               const std::vector<double>& after) override {
    site_.knot(t, x, before, after);
  }
  [[nodiscard]] std::optional<solver::StateRanges> states_read_by_knots() const override {
    return site_.states_read_by_knots();
  }
  /// Streams the grid-connection samples the feed produced into /grid.
  void write_grid_samples() {
    for (const auto& g : site_.take_grid_samples()) {
      grid_values_.resize(models::electrical::grid_sample_outputs().size());
      models::electrical::grid_sample_values(g, grid_values_);
      const std::span<const double> values(grid_values_);
      writer_.append_fine_sample(0, g.time, values);
      if (callbacks_.fine_sample) callbacks_.fine_sample(0, g.time, values);
    }
  }
  void on_event(double t, const std::string& component, const std::string& event, const std::string& message) override {
    writer_.add_event(t, component, event, message);
  }
  void on_progress(double t) override {
    if (callbacks_.progress) callbacks_.progress(t);
  }

 private:
  ReportWriter& writer_;
  models::facility::Site& site_;
  const RunCallbacks& callbacks_;
  std::vector<double> grid_values_;  // one grid sample's values, in grid_sample_outputs() order
};

}  // namespace

void check_simulation_option(const std::string& option, const std::string& text, const std::string& name,
                             double value) {
  const core::SectionSchema schema = models::facility::simulation_schema();
  for (const auto& spec : schema.parameters)
    if (spec.name == name && !rules::in_range(spec, value))
      throw core::InputError(option + " = " + text + " (" + rules::range_rule(spec) + ")");
}

ScenarioDocument load_scenario_file(const std::filesystem::path& file, const ScenarioOverrides& overrides) {
  ScenarioDocument document = load_scenario(file, models::facility::scenario_schema());
  core::ParameterTree& simulation = document.tree.sections.at("simulation");
  if (overrides.duration)
    override_value(simulation, "duration", *overrides.duration, format_number(*overrides.duration) + " s (--duration)");
  if (overrides.output_interval)
    override_value(simulation, "output_interval", *overrides.output_interval,
                   format_number(*overrides.output_interval) + " s (--output-interval)");
  if (overrides.seed) {
    override_value(simulation, "seed", static_cast<double>(*overrides.seed),
                   std::to_string(*overrides.seed) + " (--seed)");
    simulation.values.at("seed").unsigned_number = *overrides.seed;
  }
  return document;
}

std::string check_site(const ScenarioDocument& document, std::vector<std::string>* warnings,
                       ReportSizeEstimate* report_size) {
  const auto site = build(document);
  if (warnings != nullptr) *warnings = site->design_warnings();
  const auto& system = site->system();
  const ReportSizeEstimate estimate = check_report_size(document, report_layout(document, *site), std::nullopt);
  if (report_size != nullptr) *report_size = estimate;
  std::size_t entities = 0;
  std::string entity_text;
  for (const auto& table : system.entity_tables()) {
    entity_text += (entities++ ? ", " : "") + std::to_string(table.labels.size()) + " " + table.entity +
                   (table.labels.size() == 1 ? "" : "s");
  }
  return "site '" + site->name() + "': " + std::to_string(system.components().size()) + " components, " +
         std::to_string(system.size()) + " states, " + std::to_string(system.jacobian_pattern().nonzeros()) +
         " Jacobian entries" + (entity_text.empty() ? "" : ", " + entity_text);
}

RunResult run_scenario(const ScenarioDocument& document, const std::filesystem::path& report,
                       const RunCallbacks& callbacks) {
  // Stopped before the report exists: no file (a run stopped later leaves an incomplete report).
  const auto stopped_early = [&] { return callbacks.cancel != nullptr && callbacks.cancel->load(); };
  const auto nothing_written = [] {
    RunResult stopped;
    stopped.status = {solver::StopReason::interrupted, 0.0, "", "stopped on request before the report was created"};
    stopped.report_written = false;
    return stopped;
  };
  // The report's place is checked before the site is built and run, not when the run is over.
  std::vector<InputFile> inputs{{document.file, "scenario"}};
  try {
    if (const auto weather = weather_path(document)) inputs.push_back({*weather, "weather"});
  } catch (const core::InputError&) {
    // build() reports it with its place.
  }
  check_output_path(report, "report", inputs);
  if (stopped_early()) return nothing_written();
  const auto site = build(document);
  const solver::System& system = site->system();
  ReportLayout layout = report_layout(document, *site);
  if (const auto warnings = site->design_warnings(); !warnings.empty()) {
    std::string joined;
    for (const auto& w : warnings) {
      if (callbacks.warning) callbacks.warning(w);
      joined += (joined.empty() ? "" : "\n") + w;
    }
    layout.attributes["design_warnings"] = joined;
  }
  const ReportSizeEstimate estimate = check_report_size(document, layout, free_space_for(report));
  if (callbacks.report_size) callbacks.report_size(estimate);
  if (stopped_early()) return nothing_written();
  ReportWriter writer(report, layout, inputs);
  if (callbacks.layout) callbacks.layout(layout);
  const auto wall_start = std::chrono::steady_clock::now();
  RunResult result;
  result.report = report;
  std::vector<double> x0;
  try {
    x0 = site->initial_state();
  } catch (const solver::SolverError& e) {
    result.status = {solver::StopReason::solver_failure, site->settings().start_time, "",
                     std::string("initial steady state: ") + e.what()};
    writer.finish({result.status, {}, 0.0}, {});
    return result;
  }
  solver::Simulator simulator(system, site->settings());
  ReportingObserver observer(writer, *site, callbacks);
  result.status = simulator.run(x0, observer, callbacks.cancel);
  result.statistics = simulator.statistics();
  result.wall_time_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  observer.write_grid_samples();
  result.summary = site->summary(x0, simulator.final_state(), simulator.final_discrete());
  writer.finish({result.status, result.statistics, result.wall_time_seconds}, result.summary);
  return result;
}

}  // namespace dctwin::io
