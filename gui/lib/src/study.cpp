#include "dctwin/gui/study.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"

namespace dctwin::gui {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string printf_string(const char* format, double value) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

/// The sections of `tree` written in the resolved scenario (not filled in with defaults), in the
/// order they stand there.
std::vector<const core::ParameterTree*> written_sections(const core::ParameterTree& tree) {
  std::vector<const core::ParameterTree*> written;
  for (const auto& [name, section] : tree.sections) {
    if (section.location.line > 0) written.push_back(&section);
  }
  std::sort(written.begin(), written.end(), [](const core::ParameterTree* a, const core::ParameterTree* b) {
    return std::pair(a->location.line, a->location.column) < std::pair(b->location.line, b->location.column);
  });
  return written;
}

/// The first written section whose key is `name`: the direct ones first, then depth first in the
/// order of the file.
const core::ParameterTree* find_section(const core::ParameterTree& tree, const std::string& name) {
  const auto written = written_sections(tree);
  const auto named = tree.sections.find(name);
  if (named != tree.sections.end() && named->second.location.line > 0) return &named->second;
  for (const auto* section : written) {
    if (const auto* found = find_section(*section, name)) return found;
  }
  return nullptr;
}

/// The first non-empty list `name`, depth first in the order of the file, with its key path.
const std::vector<core::ParameterTree>* find_list(const core::ParameterTree& tree, const std::string& name,
                                                    std::string& path) {
  if (const auto it = tree.lists.find(name); it != tree.lists.end() && !it->second.empty()) {
    path = tree.path.empty() ? name : tree.path + "." + name;
    return &it->second;
  }
  for (const auto* section : written_sections(tree)) {
    if (const auto* found = find_list(*section, name, path)) return found;
  }
  return nullptr;
}

/// The SI value of parameter `key` of a section; NaN when the section does not declare it.
double number(const core::ParameterTree& section, const std::string& key) {
  const auto it = section.values.find(key);
  return it == section.values.end() ? nan : it->second.number;
}

}  // namespace

const char* study_event_kind_name(StudyEvent::Kind kind) {
  switch (kind) {
    case StudyEvent::Kind::pump_failure: return "pump failure";
    case StudyEvent::Kind::recorded: return "event";
    case StudyEvent::Kind::throttling_start: return "throttling starts";
    case StudyEvent::Kind::throttling_end: return "throttling ends";
    case StudyEvent::Kind::envelope_left: return "envelope left";
    case StudyEvent::Kind::electrical: return "electrical event";
  }
  return "event";
}

std::array<unsigned char, 3> study_event_colour(StudyEvent::Kind kind) {
  switch (kind) {
    case StudyEvent::Kind::pump_failure: return {140, 0, 160};
    case StudyEvent::Kind::recorded: return {0, 0, 0};
    case StudyEvent::Kind::throttling_start: return {235, 120, 0};
    case StudyEvent::Kind::throttling_end: return {60, 150, 60};
    case StudyEvent::Kind::envelope_left: return {200, 0, 90};
    case StudyEvent::Kind::electrical: return {0, 90, 200};
  }
  return {0, 0, 0};
}

std::vector<StudyLimit> Study::limits_for(const std::string& id) const {
  std::string path = id;
  for (const char* prefix : {"max:", "mean:", "bands:"}) {
    if (id.rfind(prefix, 0) == 0) path = id.substr(std::string(prefix).size());
  }
  std::vector<StudyLimit> result;
  for (const auto& limit : limits) {
    if (limit.target == path || limit.target == id) result.push_back(limit);
  }
  return result;
}

double Study::lowest_upper_limit(const std::string& path, std::string* label) const {
  double lowest = nan;
  for (const auto& limit : limits) {
    if (limit.target != path || !limit.upper || limit.relative_to_first) continue;
    if (std::isnan(lowest) || limit.value < lowest) {
      lowest = limit.value;
      if (label != nullptr) *label = limit.label;
    }
  }
  return lowest;
}

std::vector<StudyEvent> throttling_events(const std::vector<double>& time, const std::vector<double>& flagged) {
  std::vector<StudyEvent> events;
  const std::size_t n = std::min(time.size(), flagged.size());
  std::size_t start = n;  // first sample of the current interval (n: none open)
  double peak = 0.0;
  auto close = [&](std::size_t end) {
    events.push_back({StudyEvent::Kind::throttling_start, time[start],
                      printf_string("GPUs throttled (up to %.0f at once)", peak)});
    if (end < n) events.push_back({StudyEvent::Kind::throttling_end, time[end], "no GPU throttled"});
  };
  for (std::size_t k = 0; k < n; ++k) {
    const bool on = std::isfinite(flagged[k]) && flagged[k] > 0.0;
    if (on && start == n) {
      start = k;
      peak = 0.0;
    }
    if (on) peak = std::max(peak, flagged[k]);
    if (!on && start != n) {
      close(k);
      start = n;
    }
  }
  if (start != n) close(n);
  std::stable_sort(events.begin(), events.end(), [](const StudyEvent& a, const StudyEvent& b) { return a.time < b.time; });
  return events;
}

Study read_study(const ReportModel& report) {
  Study study;
  // Recorded events.
  for (const auto& e : report.events()) {
    std::string text = e.component.empty() ? e.event : e.component + " " + e.event;
    if (!e.message.empty()) text += ": " + e.message;
    study.events.push_back({StudyEvent::Kind::recorded, e.time, text});
  }
  // Throttling: the GPUs flagged in the throttle-reason bit field.
  for (const auto& field : report.hall_fields()) {
    if (field.entity != "gpu" || !field.bitmask || field.path.find("throttle") == std::string::npos) continue;
    const auto events = throttling_events(report.time(), report.aggregate_series(field, Reduction::count_nonzero));
    study.events.insert(study.events.end(), events.begin(), events.end());
    break;
  }
  // Operating envelopes left, from the summary.
  std::map<std::string, SummaryValue> summary;
  for (auto& figure : report.summary()) summary[figure.name] = figure;
  for (const auto& [name, figure] : summary) {
    const std::string prefix = "envelope_", suffix = "_first";
    if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 || figure.value < 0.0) {
      continue;
    }
    const std::string check = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    std::string text = "outside the " + check + " envelope";
    if (const auto worst = summary.find(prefix + check + "_worst"); worst != summary.end()) {
      text += " (worst " + format_si(worst->second.value, worst->second.units) + ")";
    }
    study.events.push_back({StudyEvent::Kind::envelope_left, figure.value, text});
  }

  // The electrical chain's firsts (docs/models/electrical.md): the utility sagging or out, a UPS
  // battery or a lineup's BBUs run out, servers dropped.
  struct ElectricalFirst {
    const char* first;   // summary figure: when (-1: never)
    const char* total;   // summary figure added in brackets, or null
    const char* text;
  };
  for (const ElectricalFirst& e : {ElectricalFirst{"utility_disturbance_first", "utility_disturbance_time",
                                                   "utility input sags or is lost"},
                                   ElectricalFirst{"ups_battery_exhausted_first", nullptr, "a UPS battery runs out"},
                                   ElectricalFirst{"bbu_exhausted_first", nullptr, "a lineup's rack batteries run out"},
                                   ElectricalFirst{"it_load_lost_first", "it_load_lost",
                                                   "servers drop: IT load lost"}}) {
    const auto first = summary.find(e.first);
    if (first == summary.end() || !(first->second.value >= 0.0)) continue;
    std::string text = e.text;
    if (e.total != nullptr) {
      if (const auto total = summary.find(e.total); total != summary.end())
        text += " (" + format_si(total->second.value, total->second.units) + " in all)";
    }
    study.events.push_back({StudyEvent::Kind::electrical, first->second.value, text});
  }

  // The resolved scenario: pump failures and limits.
  const std::string resolved = report.resolved_scenario();
  std::optional<io::ScenarioDocument> scenario;
  if (!resolved.empty()) {
    try {
      scenario = io::parse_scenario(resolved, report.path().string() + " (/scenario/resolved)",
                                    models::facility::scenario_schema());
    } catch (const core::InputError& e) {
      study.notes.push_back(std::string("the resolved scenario cannot be read: ") + e.what());
    }
  }
  if (scenario) {
    const core::ParameterTree& root = scenario->tree;
    double first_failure = nan;
    std::string failures_path;
    if (const auto* failures = find_list(root, "pump_failures", failures_path)) {
      for (const auto& failure : *failures) {
        const double t = number(failure, "time");
        if (std::isnan(t)) {
          study.notes.push_back(failures_path + ": a failure without a time in s");
          continue;
        }
        const double pod = number(failure, "pod");
        const double failed = number(failure, "failed");
        char text[160];
        std::snprintf(text, sizeof text, "pod %.0f: %.0f pump%s failed", pod, failed, failed == 1.0 ? "" : "s");
        study.events.push_back({StudyEvent::Kind::pump_failure, t, text});
        if (std::isnan(first_failure) || t < first_failure) first_failure = t;
      }
    }
    // The first GPU over its max operating temperature after the first failure.
    if (const auto it = summary.find("time_to_first_gpu_thermal_limit");
        it != summary.end() && it->second.value >= 0.0 && !std::isnan(first_failure)) {
      study.events.push_back({StudyEvent::Kind::envelope_left, first_failure + it->second.value,
                              "first GPU junction over its max operating temperature"});
    }
    if (const auto* gpu = find_section(root, "gpu")) {
      struct Key {
        const char* key;
        const char* target;
        const char* label;
      };
      for (const Key& k : {Key{"max_operating_temperature", "/gpu/junction_temperature",
                               "GPU max operating temperature"},
                           Key{"hw_slowdown_temperature", "/gpu/junction_temperature", "GPU hardware slowdown"},
                           Key{"shutdown_temperature", "/gpu/junction_temperature", "GPU shutdown"},
                           Key{"hbm_max_operating_temperature", "/gpu/hbm_temperature", "HBM max operating temperature"}}) {
        const double value = number(*gpu, k.key);
        if (!std::isnan(value)) study.limits.push_back({k.target, value, true, false, k.label, gpu->key_path(k.key)});
      }
    }
    const auto electrical = root.sections.find("electrical");
    const bool feed = electrical != root.sections.end() && electrical->second.location.line > 0 &&
                      electrical->second.values.contains("enabled") && electrical->second.boolean("enabled");
    if (feed && electrical->second.has_section("limits")) {
      const core::ParameterTree& limits = electrical->second.section("limits");
      const std::string base = "electrical.limits.";
      const double ramp = number(limits, "ramp_rate_max");
      const double window = number(limits, "ramp_window");
      if (ramp > 0.0 && window == 1.0) {
        study.limits.push_back({"ramp:/grid/power", ramp, true, false, "utility ramp-rate limit", base + "ramp_rate_max"});
        study.limits.push_back({"ramp:/grid/power", -ramp, false, false, "utility ramp-rate limit", base + "ramp_rate_max"});
      } else if (ramp > 0.0) {
        study.notes.push_back("the ramp-rate limit holds over " + printf_string("%g", window) +
                              "-s windows; the charts' ramp rate is over 1-s windows, so it is not drawn");
      }
      const double frequency = number(limits, "frequency_deviation_max");
      if (frequency > 0.0) {
        study.limits.push_back({"/grid/frequency", frequency, true, true, "utility frequency deviation limit",
                                base + "frequency_deviation_max"});
        study.limits.push_back({"/grid/frequency", -frequency, false, true, "utility frequency deviation limit",
                                base + "frequency_deviation_max"});
      }
      const double voltage = number(limits, "voltage_change_max");
      if (voltage > 0.0) {
        study.limits.push_back({"/grid/voltage", voltage, true, true, "utility voltage change limit", base + "voltage_change_max"});
        study.limits.push_back({"/grid/voltage", -voltage, false, true, "utility voltage change limit", base + "voltage_change_max"});
      }
      const double hot_spot = number(limits, "transformer_hot_spot_max");
      if (hot_spot > 0.0) {
        study.limits.push_back({"/grid/transformer_hot_spot", hot_spot, true, false, "transformer hot-spot limit",
                                base + "transformer_hot_spot_max"});
      }
    }
  }
  std::stable_sort(study.events.begin(), study.events.end(),
                   [](const StudyEvent& a, const StudyEvent& b) { return a.time < b.time; });
  return study;
}

KpiModel::KpiModel(const ReportModel& report) : report_(report) {
  std::map<std::string, SummaryValue> summary;
  for (auto& figure : report.summary()) summary[figure.name] = figure;
  auto figure = [&](const std::string& name) -> const SummaryValue* {
    const auto it = summary.find(name);
    return it == summary.end() ? nullptr : &it->second;
  };
  auto add = [&](std::string name, std::string value, KpiRow::State state, std::string tooltip) {
    run_rows_.push_back({"Run", std::move(name), std::move(value), state, std::move(tooltip)});
  };
  if (const auto* pue = figure("pue")) {
    // With a chiller held at its curves' edge the PUE is an upper bound ("Model ranges" below).
    const auto* clamps = figure("model_range_clamps");
    const bool bound = clamps != nullptr && clamps->value > 0.0;
    add("PUE", (bound ? "<= " : "") + printf_string("%.3f", pue->value), KpiRow::State::none,
        "/summary/pue: " + pue->long_name);
  }
  if (const auto* mfu = figure("mfu_mean")) {
    std::string value = printf_string("%.1f %%", 100.0 * mfu->value);
    if (const auto* planned = figure("mfu_planned")) value += printf_string(" (planned %.1f %%)", 100.0 * planned->value);
    add("MFU, mean", value, KpiRow::State::none, "/summary/mfu_mean and /summary/mfu_planned");
  }
  {
    double total = 0.0;
    std::string parts;
    bool any = false;
    for (const char* cause : {"throttling", "checkpoints", "failures"}) {
      if (const auto* lost = figure(std::string("lost_gpu_hours_") + cause)) {
        any = true;
        total += lost->value;
        parts += (parts.empty() ? "" : ", ") + std::string(cause) + " " + printf_string("%.4g", lost->value);
      }
    }
    if (any) add("Lost GPU-hours", printf_string("%.4g h", total) + " (" + parts + ")", KpiRow::State::none,
                 "/summary/lost_gpu_hours_{throttling,checkpoints,failures}");
  }
  if (const auto* throttled = figure("throttled_gpu_seconds")) {
    add("Throttled GPU-seconds", printf_string("%.4g s", throttled->value), KpiRow::State::none, "/summary/throttled_gpu_seconds");
  }
  if (const auto* grid = figure("grid_limit_violations")) {
    std::string failed;
    for (const auto& [name, f] : summary) {
      if (name.rfind("grid_limit_", 0) != 0 || name == "grid_limit_violations" || f.value != 0.0) continue;
      failed += (failed.empty() ? "" : ", ") + name.substr(11);
    }
    const bool pass = grid->value == 0.0;
    add("Grid limits", pass ? "pass" : "fail: " + (failed.empty() ? printf_string("%.0f exceeded", grid->value) : failed),
        pass ? KpiRow::State::pass : KpiRow::State::fail, "/summary/grid_limit_*: the utility's limits at the grid connection");
  }
  if (const auto* all = figure("limit_violations")) {
    const bool pass = all->value == 0.0;
    add("Limits exceeded", printf_string("%.0f", all->value), pass ? KpiRow::State::pass : KpiRow::State::fail,
        "/summary/limit_violations: checks outside their limit at least once (GPU junction, grid, envelopes)");
  }
  if (const auto* clamps = figure("model_range_clamps")) {
    // Models evaluated at the edge of their data (docs/models/facility.md, "Model ranges"): not
    // limits, but the figures that depend on them are conservative bounds.
    const std::string prefix = "model_range_", suffix = "_first";
    std::string left;
    for (const auto& [name, f] : summary) {
      if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 || f.value < 0.0)
        continue;
      left += (left.empty() ? "" : ", ") + name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    }
    add("Models at their data's edge", printf_string("%.0f", clamps->value) + (left.empty() ? "" : ": " + left),
        KpiRow::State::none,
        "/summary/model_range_*: models evaluated at the edge of their data, which understates them (the chiller's "
        "curves: its power, and so PUE, are upper bounds)");
  }
  // The series on /time, by group; [time x pod] fields.
  auto section_of = [](const std::string& path) {
    std::string group = path.substr(1, path.find('/', 1) == std::string::npos ? std::string::npos : path.find('/', 1) - 1);
    // Group names are lower case; the acronyms among them are shown in capitals.
    const bool acronym = group == "gpu" || group == "cdu" || group == "crah" || group == "hbm";
    for (std::size_t k = 0; k < group.size(); ++k) {
      if (k == 0 || acronym) group[k] = static_cast<char>(std::toupper(static_cast<unsigned char>(group[k])));
    }
    return group;
  };
  for (const auto& s : report.series()) {
    series_.push_back({section_of(s.path), s.long_name, s.units, s.path, report.series_values(s.path)});
  }
  std::stable_sort(series_.begin(), series_.end(), [](const Series& a, const Series& b) { return a.section < b.section; });
}

std::vector<KpiRow> KpiModel::rows(std::size_t time_index) const {
  std::vector<KpiRow> result = run_rows_;
  const auto& time = report_.time();
  if (time.empty()) return result;
  time_index = std::min(time_index, time.size() - 1);
  for (const auto& s : series_) {
    if (time_index >= s.values.size()) continue;
    result.push_back({s.section, s.name, format_si(s.values[time_index], s.units), KpiRow::State::none, s.path});
  }
  for (const auto& field : report_.entity_fields()) {
    const auto row = report_.row(field.path, time_index);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const double v : row) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    std::string value = "no data";
    std::vector<std::pair<std::string, std::string>> parts;
    if (lo <= hi) {
      const DisplayUnit unit = display_unit_for(field.units, std::max(std::fabs(lo), std::fabs(hi)));
      value = row.size() == 1 || lo == hi ? format_value(unit.from_si(hi), unit.unit)
                                          : format_value(unit.from_si(lo), "") + " to " + format_value(unit.from_si(hi), unit.unit) +
                                                " over " + std::to_string(row.size()) + " " + field.entity + "s";
      // Each entity's own value, labelled as in the hall's labels ("pod0").
      if (row.size() > 1) {
        for (std::size_t k = 0; k < row.size(); ++k)
          parts.emplace_back(field.entity + std::to_string(k),
                             std::isfinite(row[k]) ? format_value(unit.from_si(row[k]), unit.unit) : "no data");
      }
    }
    std::string section = field.entity;
    if (!section.empty()) section[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(section[0])));
    result.push_back({section + "s", field.long_name, value, KpiRow::State::none, field.path, std::move(parts)});
  }
  return result;
}

}  // namespace dctwin::gui
