#include "fuzz_entries.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/validation_model.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/sweep.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/weather_csv.hpp"
#include "dctwin/models/facility/site.hpp"

namespace dctwin::fuzz {

namespace {

std::string_view as_text(Bytes data) {
  return {reinterpret_cast<const char*>(data.data()), data.size()};
}

/// A file in the temporary directory holding given bytes, removed when this goes out of scope.
class ScratchFile {
 public:
  ScratchFile(std::string_view stem, std::string_view content) {
    path_ = std::filesystem::temp_directory_path() /
            ("dctwin-fuzz-" + std::to_string(::getpid()) + "-" + std::string(stem));
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) throw std::runtime_error("cannot write the scratch file " + path_.string());
  }
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A property every accepted input must have; its failure is a defect, not a refusal.
void require(bool condition, const std::string& what) {
  if (!condition) throw std::logic_error("fuzz invariant violated: " + what);
}

/// The column map used for `csv` inputs that bring none (the one of data/telemetry/generic.csv).
constexpr std::string_view default_map =
    "delimiter: \";\"\n"
    "time: {column: ts_ms, unit: ms}\n"
    "hostname: {column: host}\n"
    "gpu: {column: gpu_id}\n"
    "power: {column: P_kW, unit: kW}\n"
    "gpu_temperature: {column: T_core_degF, unit: degF}\n"
    "sm_clock: {column: f_sm_GHz, unit: GHz}\n";

/// Larger datasets are not read: a few hundred bytes of HDF5 can declare terabytes of fill values,
/// which is a valid file, not a malformed one.
constexpr std::size_t max_elements_read = std::size_t{1} << 22;

}  // namespace

namespace {

/// parse_scenario and the resolved-YAML round trip; nullopt when the scenario is refused.
std::optional<io::ScenarioDocument> load_and_round_trip(Bytes data) {
  static const core::SectionSchema schema = models::facility::scenario_schema();
  io::ScenarioDocument document;
  try {
    document = io::parse_scenario(as_text(data), "fuzz.yaml", schema);
  } catch (const core::InputError&) {
    return std::nullopt;
  }
  // The resolved scenario, as written into every report, must read back to the same tree.
  const std::string resolved = io::emit_resolved_yaml(document.tree, schema);
  try {
    const io::ScenarioDocument again = io::parse_scenario(resolved, "resolved.yaml", schema);
    require(io::emit_resolved_yaml(again.tree, schema) == resolved, "resolved scenario round trip");
  } catch (const core::InputError& e) {
    throw std::logic_error(std::string("fuzz invariant violated: the resolved scenario does not load: ") +
                           e.what());
  }
  return document;
}

}  // namespace

void scenario(Bytes data) { (void)load_and_round_trip(data); }

void scenario_site(Bytes data) {
  const auto document = load_and_round_trip(data);
  if (!document) return;
  try {
    (void)io::check_site(*document);
  } catch (const core::InputError&) {
  }
}

void weather(Bytes data) {
  try {
    const auto series = io::parse_weather_csv(std::string(as_text(data)), "fuzz.csv");
    for (std::size_t k = 0; k < series.size(); ++k) {
      require(std::isfinite(series.times()[k]) && std::isfinite(series.dry_bulbs()[k]) &&
                  std::isfinite(series.wet_bulbs()[k]),
              "weather sample is not finite");
    }
  } catch (const core::InputError&) {
  }
}

void telemetry(std::string_view format, Bytes data) {
  const auto parsed = io::parse_format_name(format);
  if (!parsed) throw std::invalid_argument("unknown telemetry format " + std::string(format));
  io::TelemetryImportOptions options;
  options.format = *parsed;
  std::string_view text = as_text(data);
  std::string_view map = default_map;
  if (*parsed == io::TelemetryFormat::generic_csv) {
    const std::size_t split = text.find("\n%%\n");
    if (split != std::string_view::npos) {
      map = text.substr(0, split + 1);
      text.remove_prefix(split + 4);
    }
  }
  const ScratchFile map_file("map.yaml", *parsed == io::TelemetryFormat::generic_csv ? map : "");
  if (*parsed == io::TelemetryFormat::generic_csv) options.map_file = map_file.path().string();
  const ScratchFile file("telemetry", text);
  try {
    const io::TelemetryTrace trace = io::import_telemetry(file.path(), options);
    for (const auto& gpu : trace.gpus) {
      require(gpu.values.size() == trace.quantities.size(), "one series per quantity");
      for (std::size_t k = 0; k < gpu.time.size(); ++k) {
        require(std::isfinite(gpu.time[k]), "sample time is not finite");
        require(k == 0 || gpu.time[k] > gpu.time[k - 1], "sample times strictly increase");
      }
      for (const auto& series : gpu.values) {
        require(series.size() == gpu.time.size(), "one value per sample time");
        for (double v : series) require(!std::isinf(v), "telemetry value is infinite");
      }
    }
  } catch (const core::InputError&) {
  }
}

void report(Bytes data) {
  const ScratchFile file("report.h5", as_text(data));
  try {
    const io::ReportReader reader(file.path());
    (void)reader.status();
    (void)reader.status_reason();
    (void)reader.string_attributes();
    (void)reader.integer_attributes();
    (void)reader.end_time();
    (void)reader.summary();
    (void)reader.time();
    for (const auto& info : reader.datasets()) {
      std::size_t elements = 1;
      for (std::size_t n : info.shape) elements = n != 0 && elements > max_elements_read / n ? max_elements_read + 1 : elements * n;
      if (elements > max_elements_read) continue;
      try {
        (void)reader.read(info.path);
      } catch (const io::ReportError&) {
      }
      try {
        (void)reader.read_strings(info.path);
      } catch (const io::ReportError&) {
      }
      if (info.shape.size() == 2 && info.shape[0] > 0) {
        try {
          (void)reader.read_row(info.path, info.shape[0] - 1);
        } catch (const io::ReportError&) {
        }
      }
    }
  } catch (const io::ReportError&) {
  }
}

namespace {

/// The base scenario of sweep inputs that bring none.
constexpr std::string_view default_sweep_base =
    "name: fuzz-base\n"
    "simulation: {duration: 60 s, output_interval: 1 s}\n"
    "server:\n"
    "  gpu_count: 8\n"
    "loop:\n"
    "  supply_temperature: 32 degC\n"
    "  pump: {speed: 1.0}\n";

/// Members looked at in an accepted sweep: the first, the middle and the last one (each is a full
/// scenario check, the bulk of the time of an input).
constexpr std::size_t members_checked = 3;

}  // namespace

void sweep(Bytes data) {
  static const core::SectionSchema schema = models::facility::scenario_schema();
  std::string_view text = as_text(data);
  std::string_view base = default_sweep_base;
  if (const std::size_t split = text.find("\n%%\n"); split != std::string_view::npos) {
    base = text.substr(split + 4);
    text = text.substr(0, split + 1);
  }
  io::SweepPlan plan;
  try {
    plan = io::parse_sweep(text, "fuzz-sweep.yaml", schema, io::SweepBase{std::string(base), "base.yaml"});
  } catch (const core::InputError&) {
    return;
  }
  (void)plan.design_text();
  const std::size_t count = plan.members.size();
  const std::size_t picks = std::min(count, members_checked);
  for (std::size_t k = 0; k < picks; ++k) {
    const std::size_t index = picks == 1 ? 0 : k * (count - 1) / (picks - 1);
    (void)io::member_scenario_text(plan, index);
    (void)io::member_label(plan, index);
    try {
      (void)io::load_sweep_member(plan, index, schema);
    } catch (const core::InputError&) {
    }
  }
}

void gui_report(Bytes data) {
  const ScratchFile file("gui-report.h5", as_text(data));
  try {
    const gui::ReportModel model(file.path());
    (void)model.status();
    (void)model.status_reason();
    (void)model.scenario_name();
    const std::size_t samples = model.time().size();
    (void)model.time_index(0.0);
    (void)model.default_field();
    for (const auto& field : model.hall_fields()) {
      if (field.count == 0 || samples > max_elements_read / field.count) continue;
      for (const auto reduction : {gui::Reduction::max, gui::Reduction::mean, gui::Reduction::count_nonzero}) {
        try {
          (void)model.rack_value_range(field, reduction);
          if (samples > 0) (void)model.rack_values(field, reduction, samples - 1);
          (void)model.aggregate_series(field, reduction);
        } catch (const io::ReportError&) {
        }
      }
      try {
        if (samples > 0) (void)model.entity_row(field, 0);
        const std::size_t entities[] = {0, field.count - 1};
        (void)model.entity_series(field, entities);
      } catch (const io::ReportError&) {
      }
    }
    for (const auto& series : model.series()) {
      try {
        (void)model.series_values(series.path);
      } catch (const io::ReportError&) {
      }
    }
    for (const auto& group : model.fine_groups()) {
      if (group.samples > max_elements_read) continue;
      try {
        (void)model.fine_time(group);
        for (const auto& series : group.series) (void)model.series_values(series.path);
      } catch (const io::ReportError&) {
      }
    }
  } catch (const io::ReportError&) {
  }
  if (!gui::ValidationModel::is_validation_report(file.path())) return;
  try {
    const gui::ValidationModel validation(file.path());
    for (const auto& quantity : validation.quantities()) {
      for (std::size_t gpu = 0; gpu < std::min<std::size_t>(validation.gpu_labels().size(), 4); ++gpu) {
        (void)validation.series(quantity.name, gpu);
      }
    }
  } catch (const std::runtime_error&) {
  }
}

std::vector<std::string> target_names() {
  std::vector<std::string> names{"scenario", "scenario-site", "weather", "report", "sweep", "gui-report"};
  for (auto f : {io::TelemetryFormat::automatic, io::TelemetryFormat::nvidia_smi_csv,
                 io::TelemetryFormat::nvidia_smi_dmon, io::TelemetryFormat::dcgmi_dmon,
                 io::TelemetryFormat::prometheus_text, io::TelemetryFormat::prometheus_json,
                 io::TelemetryFormat::generic_csv}) {
    names.push_back("telemetry-" + std::string(io::format_name(f)));
  }
  return names;
}

void run_target(std::string_view name, Bytes data) {
  if (name == "scenario") return scenario(data);
  if (name == "scenario-site") return scenario_site(data);
  if (name == "weather") return weather(data);
  if (name == "report") return report(data);
  if (name == "sweep") return sweep(data);
  if (name == "gui-report") return gui_report(data);
  if (name.starts_with("telemetry-")) return telemetry(name.substr(10), data);
  throw std::invalid_argument("unknown fuzz target " + std::string(name));
}

}  // namespace dctwin::fuzz
