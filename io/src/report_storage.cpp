#include "dctwin/io/report_storage.hpp"

#include <fnmatch.h>

#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/models/facility/site.hpp"

namespace dctwin::io {

namespace {

/// One entry of `output.variables`, read and checked.
struct StorageRule {
  const core::ParameterTree* entry = nullptr;
  std::string match;  ///< without a leading '/'
  std::string units;  ///< empty: any
  bool write = true;
  std::string float_type;  ///< "default", "float64" or "float32"
  std::string resolution_text;
  Quantity resolution;  ///< number 0 when no resolution is given
  bool used = false;
};

/// A series of the report as the rules see it: its path without the leading '/', units, and
/// where its storage goes.
struct Candidate {
  std::string path;
  std::string units;
  bool categorical = false;
  SeriesStorage* storage = nullptr;
};

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

[[noreturn]] void rule_error(const ScenarioDocument& document, const core::ParameterTree& entry,
                             const std::string& key, const std::string& detail) {
  const std::string path = entry.key_path(key);
  throw core::InputError(locate(document, path) + ": " + path + " " + detail, path);
}

std::vector<StorageRule> read_rules(const ScenarioDocument& document, const core::ParameterTree& output) {
  std::vector<StorageRule> rules;
  for (const auto& entry : output.list("variables")) {
    StorageRule rule;
    rule.entry = &entry;
    rule.match = entry.text("match");
    if (!rule.match.empty() && rule.match.front() == '/') rule.match.erase(0, 1);
    if (rule.match.empty())
      rule_error(document, entry, "match",
                 "= " + in_quotes(entry.text("match")) + " (must name series: a path or a glob such as 'gpu/*')");
    rule.units = entry.text("units");
    if (!rule.units.empty() && !is_known_unit(rule.units))
      rule_error(document, entry, "units", "= " + rule.units + " (unknown unit)");
    rule.write = entry.boolean("write");
    rule.float_type = entry.text("float_type");
    rule.resolution_text = entry.text("resolution");
    if (!rule.resolution_text.empty()) {
      try {
        rule.resolution = parse_quantity(rule.resolution_text);
      } catch (const UnitError& error) {
        rule_error(document, entry, "resolution", "= " + rule.resolution_text + " (" + error.what() + ")");
      }
      if (!(rule.resolution.number > 0.0))
        rule_error(document, entry, "resolution", "= " + rule.resolution_text + " (must be > 0)");
      if (!rule.resolution.unit.empty() && !is_known_unit(rule.resolution.unit))
        rule_error(document, entry, "resolution",
                   "= " + rule.resolution_text + " (unknown unit " + in_quotes(rule.resolution.unit) + ")");
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

bool matches(const StorageRule& rule, const Candidate& candidate) {
  // No FNM_PATHNAME: `*` spans '/' too, so `*temperature` finds every temperature.
  if (fnmatch(rule.match.c_str(), candidate.path.c_str(), 0) != 0) return false;
  return rule.units.empty() || are_convertible(candidate.units, rule.units);
}

/// A resolution in the units of the series: the difference it makes, so that `0.01 degC` is
/// 0.01 K (not 273.16 K). Throws the located error when the units do not convert.
double resolution_in(const ScenarioDocument& document, const StorageRule& rule, const Candidate& candidate) {
  const std::string& from = rule.resolution.unit.empty() ? std::string("1") : rule.resolution.unit;
  if (!are_convertible(from, candidate.units))
    rule_error(document, *rule.entry, "resolution",
               "= " + rule.resolution_text + " does not fit /" + candidate.path + " (units " + candidate.units +
                   "), which " + in_quotes(rule.match) + " matches (give the rule units: " + from +
                   ", or a narrower match)");
  const double step = convert(rule.resolution.number, from, candidate.units) - convert(0.0, from, candidate.units);
  if (!(step > 0.0) || !std::isfinite(step))
    rule_error(document, *rule.entry, "resolution",
               "= " + rule.resolution_text + " (is " + format_number(step) + " " + candidate.units + " for /" +
                   candidate.path + "; must be a positive finite step)");
  return step;
}

/// The share of a series' uncompressed bytes that shuffle and deflate (level 2) leave, by storage.
/// Measured on a minute of scenarios/pod-l2a.yaml sampled every second (docs/reports.md, "Size"):
/// the GPUs' temperatures and powers keep 0.71-0.78 of their bytes in float64 and 0.53-0.61 in
/// float32, rounded to 0.01 K or 1 W 0.10-0.18 in float64 and 0.19-0.33 in float32, while steady
/// series (the clocks, the flows, the storage's state) keep almost nothing; categorical series
/// keep almost nothing. The shares below are the mixture a facility's report has; a report of
/// only steady or only noisy series is smaller or larger than expected.
double deflated_share(const SeriesStorage& storage, bool categorical) {
  if (categorical) return 0.02;
  if (storage.quantization_step > 0.0) return storage.float32 ? 0.3 : 0.15;
  return storage.float32 ? 0.45 : 0.55;
}

double stored_bytes(const SeriesStorage& storage, bool categorical) {
  return categorical || storage.float32 ? 4.0 : 8.0;
}

}  // namespace

void apply_output_section(const ScenarioDocument& document, ReportLayout& layout) {
  if (!document.tree.has_section("output")) return;
  const core::ParameterTree& output = document.tree.section("output");
  const bool float32_by_default = output.text("float_type") == "float32";
  std::vector<StorageRule> rules = read_rules(document, output);

  std::vector<Candidate> candidates;
  for (auto& entry : layout.outputs) {
    const std::string path = entry.spec.group.empty() ? entry.spec.name : entry.spec.group + "/" + entry.spec.name;
    candidates.push_back({path, entry.spec.unit, entry.flags.kind != SeriesFlags::Kind::none, &entry.storage});
  }
  for (auto& group : layout.fine_series) {
    group.storage.resize(group.series.size());
    for (std::size_t k = 0; k < group.series.size(); ++k)
      candidates.push_back({group.group + "/" + group.series[k].name, group.series[k].unit, false, &group.storage[k]});
  }
  for (Candidate& candidate : candidates) {
    SeriesStorage storage;
    storage.float32 = float32_by_default && !candidate.categorical;
    for (StorageRule& rule : rules) {
      if (!matches(rule, candidate)) continue;
      rule.used = true;
      storage.written = rule.write;
      if (rule.write && !candidate.categorical) {  // categorical series stay exact unsigned integers
        if (rule.float_type != "default") storage.float32 = rule.float_type == "float32";
        if (rule.resolution.number > 0.0) {
          storage.resolution = resolution_in(document, rule, candidate);
          storage.quantization_step = quantization_step_for(storage.resolution);
          storage.resolution_as_written = rule.resolution_text;
        }
      }
      break;
    }
    *candidate.storage = storage;
  }
  for (const StorageRule& rule : rules) {
    if (!rule.used)
      rule_error(document, *rule.entry, "match",
                 "= " + in_quotes(rule.match) + " matches no series of this site" +
                     (rule.units.empty() ? "" : " in units convertible to " + rule.units) +
                     " (`dctwin info REPORT` lists a report's series)");
  }
}

ReportSizeEstimate estimate_report_size(const ReportLayout& layout, double samples,
                                        const std::vector<double>& fine_samples) {
  ReportSizeEstimate estimate;
  double once = 0.0;  // static data and labels, uncompressed
  for (const auto& data : layout.static_data) once += 8.0 * static_cast<double>(data.values.size());
  // The labels: /index/<entity>, and again in each group whose written datasets run over the entity.
  std::map<std::string, std::set<std::string>> groups_of;
  for (const auto& output : layout.outputs)
    if (!output.spec.entity.empty() && output.storage.written) groups_of[output.spec.entity].insert(output.spec.group);
  for (const auto& data : layout.static_data)
    if (!data.entity.empty()) groups_of[data.entity].insert(data.group);
  for (const auto& table : layout.entities) {
    const double copies = 1.0 + static_cast<double>(groups_of[table.entity].size());
    for (const auto& label : table.labels) once += copies * (static_cast<double>(label.size()) + 16.0);
  }
  estimate.uncompressed_bytes = once;
  estimate.expected_bytes = once;
  // The time axis: float64, steadily spaced (deflate keeps 0.04 of the grid's 60,001 times).
  constexpr double time_share = 0.1;
  estimate.uncompressed_bytes += 8.0 * samples;
  estimate.expected_bytes += time_share * 8.0 * samples;
  for (const auto& output : layout.outputs) {
    if (!output.storage.written) {
      ++estimate.series_left_out;
      continue;
    }
    ++estimate.series_written;
    const bool categorical = output.flags.kind != SeriesFlags::Kind::none;
    const double bytes = samples * static_cast<double>(output.spec.count) * stored_bytes(output.storage, categorical);
    estimate.uncompressed_bytes += bytes;
    estimate.expected_bytes += bytes * deflated_share(output.storage, categorical);
  }
  for (std::size_t g = 0; g < layout.fine_series.size(); ++g) {
    const auto& group = layout.fine_series[g];
    const double rows = g < fine_samples.size() ? fine_samples[g] : 0.0;
    bool any = false;
    for (std::size_t k = 0; k < group.series.size(); ++k) {
      const SeriesStorage storage = k < group.storage.size() ? group.storage[k] : SeriesStorage{};
      if (!storage.written) {
        ++estimate.series_left_out;
        continue;
      }
      any = true;
      ++estimate.series_written;
      const double bytes = rows * stored_bytes(storage, false);
      estimate.uncompressed_bytes += bytes;
      estimate.expected_bytes += bytes * deflated_share(storage, false);
    }
    if (any) {
      estimate.uncompressed_bytes += 8.0 * rows;
      estimate.expected_bytes += time_share * 8.0 * rows;
    }
  }
  return estimate;
}

std::string describe(const ReportSizeEstimate& estimate) {
  std::string text = "about " + models::facility::format_bytes(estimate.expected_bytes) + " on disk (at most " +
                     models::facility::format_bytes(estimate.uncompressed_bytes) + " uncompressed), " +
                     std::to_string(estimate.series_written) + " series";
  if (estimate.series_left_out > 0) text += " (" + std::to_string(estimate.series_left_out) + " left out)";
  return text;
}

}  // namespace dctwin::io
