#include "dctwin/gui/report_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "dctwin/io/report.hpp"

namespace dctwin::gui {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

bool is_bitmask_field(const std::string& path, const std::string& units) {
  if (units != "1" && !units.empty()) return false;
  return path.find("throttle") != std::string::npos || path.find("reasons") != std::string::npos ||
         path.find("flags") != std::string::npos;
}

std::string last_component(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

const char* reduction_name(Reduction reduction) {
  switch (reduction) {
    case Reduction::max: return "max";
    case Reduction::mean: return "mean";
    case Reduction::count_nonzero: return "count";
  }
  return "max";
}

Reduction effective_reduction(const FieldInfo& field, Reduction requested) {
  if (field.entity == "rack") return Reduction::max;
  return field.bitmask ? Reduction::count_nonzero : requested;
}

FieldPresentation present_field(const FieldInfo& field, Reduction reduction, double typical_magnitude) {
  FieldPresentation result;
  const Reduction applied = effective_reduction(field, reduction);
  if (field.entity == "gpu" && applied == Reduction::count_nonzero) {
    result.unit = {"GPUs", 1.0, 0.0};
    const std::string what = field.bitmask ? "GPUs flagged" : "GPUs nonzero";
    result.title = field.long_name + "\n" + what + " per rack";
    result.short_title = field.long_name + ", " + what + " per rack";
    return result;
  }
  result.unit = display_unit_for(field.units, typical_magnitude);
  const std::string unit_suffix = result.unit.unit == "1" ? std::string() : " [" + result.unit.unit + "]";
  if (field.entity == "gpu") {
    const std::string how = std::string(reduction_name(applied)) + " per rack";
    result.title = field.long_name + "\n" + how + unit_suffix;
    result.short_title = field.long_name + ", " + how;
  } else {
    result.title = field.long_name + "\n" + "per rack" + unit_suffix;
    result.short_title = field.long_name;
  }
  return result;
}

int HallLayout::pod_count() const {
  int pods = 0;
  for (const int pod : rack_pod) pods = std::max(pods, pod + 1);
  return pods;
}

std::vector<double> reduce_per_rack(std::span<const double> gpu_values, const HallLayout& layout,
                                    Reduction reduction) {
  std::vector<double> result(layout.rack_count(), nan);
  for (std::size_t rack = 0; rack < layout.rack_count(); ++rack) {
    const auto& gpus = layout.rack_gpus[rack];
    if (gpus.empty()) continue;
    double accumulated = reduction == Reduction::max ? -std::numeric_limits<double>::infinity() : 0.0;
    std::size_t finite = 0;
    for (const std::size_t gpu : gpus) {
      if (gpu >= gpu_values.size()) continue;
      const double value = gpu_values[gpu];
      if (!std::isfinite(value)) continue;
      ++finite;
      switch (reduction) {
        case Reduction::max: accumulated = std::max(accumulated, value); break;
        case Reduction::mean: accumulated += value; break;
        case Reduction::count_nonzero: accumulated += value != 0.0 ? 1.0 : 0.0; break;
      }
    }
    if (finite == 0) continue;
    result[rack] = reduction == Reduction::mean ? accumulated / static_cast<double>(finite) : accumulated;
  }
  return result;
}

struct ReportModel::Impl {
  io::ReportReader reader;
  std::vector<double> time;
  HallLayout layout;
  std::vector<FieldInfo> fields;
  std::vector<FieldInfo> entity_fields;  // [time x entity] over other entities (pods)
  std::vector<SeriesInfo> series;
  std::vector<FineGroupInfo> fine_groups;
  mutable std::map<std::string, std::vector<double>> fine_times;
  std::map<std::string, std::size_t> index_sizes;
  mutable std::map<std::tuple<std::string, int, std::size_t>, std::vector<double>> cache;
  mutable std::map<std::pair<std::string, int>, std::pair<double, double>> ranges;
  mutable std::map<std::pair<std::string, int>, std::vector<double>> aggregates;

  explicit Impl(const std::filesystem::path& path) : reader(path) {
    time = reader.time();
    discover();
    build_layout();
  }

  void discover() {
    const auto datasets = reader.datasets();
    for (const auto& info : datasets) {
      if (info.path.rfind("/index/", 0) == 0 && info.shape.size() == 1) {
        index_sizes[info.path.substr(7)] = info.shape[0];
      }
    }
    // Fine groups: /<group>/time (1-D) and the group's 1-D datasets of the same length.
    std::set<std::string> fine_paths;
    for (const auto& info : datasets) {
      const auto slash = info.path.rfind('/');
      if (slash == 0 || slash == std::string::npos || info.path.substr(slash) != "/time" ||
          info.shape.size() != 1 || info.shape[0] < 2) {
        continue;
      }
      FineGroupInfo group{info.path.substr(0, slash), info.path, info.shape[0], {}};
      for (const auto& member : datasets) {
        if (member.path == info.path || !member.numeric || member.shape.size() != 1 || member.shape[0] != group.samples ||
            member.path.rfind(group.group + "/", 0) != 0 ||
            member.path.find('/', group.group.size() + 1) != std::string::npos) {
          continue;
        }
        group.series.push_back({member.path, member.units,
                                member.long_name.empty() ? last_component(member.path) : member.long_name});
      }
      if (group.series.empty()) continue;
      fine_paths.insert(info.path);
      for (const auto& s : group.series) fine_paths.insert(s.path);
      fine_groups.push_back(std::move(group));
    }
    for (const auto& info : datasets) {
      if (fine_paths.contains(info.path)) continue;
      const bool special = info.path == "/time" || info.path.rfind("/index/", 0) == 0 ||
                           info.path.rfind("/layout/", 0) == 0 ||
                           info.path.rfind("/summary/", 0) == 0 ||
                           info.path.rfind("/events/", 0) == 0 ||
                           info.path.rfind("/scenario/", 0) == 0;
      // Not numeric: the labels that are the coordinate variables of a group (/gpu/gpu).
      if (special || !info.numeric || info.shape.empty() || info.shape[0] != time.size() || time.empty()) continue;
      const std::string long_name = info.long_name.empty() ? last_component(info.path) : info.long_name;
      if (info.shape.size() == 1) {
        series.push_back({info.path, info.units, long_name});
        continue;
      }
      if (info.shape.size() != 2) continue;
      std::string entity = reader.string_attribute(info.path, "entity");
      if (entity.empty()) {  // no attribute: the entity whose index table has the right size
        for (const auto& [name, size] : index_sizes) {
          if (size == info.shape[1]) entity = name;
        }
      }
      if (entity.empty()) continue;
      if (entity != "gpu" && entity != "rack") {
        entity_fields.push_back({info.path, entity, info.units, long_name, info.shape[1], false});
        continue;
      }
      fields.push_back({info.path, entity, info.units, long_name, info.shape[1],
                        is_bitmask_field(info.path, info.units)});
    }
  }

  [[nodiscard]] bool has_dataset(const std::string& path) const {
    return reader.contains("/layout") && reader.contains(path);
  }

  std::vector<std::string> labels(const std::string& entity) const {
    if (!index_sizes.contains(entity)) return {};
    return reader.read_strings("/index/" + entity);
  }

  void build_layout() {
    layout.gpu_labels = labels("gpu");
    layout.rack_labels = labels("rack");
    const std::size_t gpu_count = layout.gpu_labels.size();
    if (has_dataset("/layout/rack_position")) {
      layout.from_report = true;
      const auto position = reader.read("/layout/rack_position");
      const std::size_t racks = position.size() / 3;
      layout.rack_position.resize(racks);
      for (std::size_t r = 0; r < racks; ++r) {
        layout.rack_position[r] = {position[3 * r], position[3 * r + 1], position[3 * r + 2]};
      }
      if (has_dataset("/layout/rack_size")) {
        const auto size = reader.read("/layout/rack_size");
        if (size.size() >= 3) layout.rack_size = {size[0], size[1], size[2]};
      }
      layout.rack_pod.assign(racks, 0);
      if (has_dataset("/layout/rack_pod")) {
        const auto pods = reader.read("/layout/rack_pod");
        for (std::size_t r = 0; r < std::min(racks, pods.size()); ++r) {
          layout.rack_pod[r] = static_cast<int>(pods[r]);
        }
      }
      layout.gpu_rack.assign(gpu_count, 0);
      if (has_dataset("/layout/gpu_rack")) {
        const auto map = reader.read("/layout/gpu_rack");
        for (std::size_t g = 0; g < std::min(gpu_count, map.size()); ++g) {
          const double rack = map[g];
          layout.gpu_rack[g] = rack >= 0 && rack < static_cast<double>(racks)
                                   ? static_cast<std::size_t>(rack)
                                   : std::numeric_limits<std::size_t>::max();
        }
      }
      if (layout.rack_labels.size() != racks) {
        layout.rack_labels.clear();
        for (std::size_t r = 0; r < racks; ++r) layout.rack_labels.push_back("rack" + std::to_string(r));
      }
    } else {
      // No layout: one rack holding every GPU, or the report's racks in one row with the GPUs
      // whose labels start with the rack's label.
      std::size_t racks = layout.rack_labels.empty() ? 1 : layout.rack_labels.size();
      if (layout.rack_labels.empty()) {
        const std::string name = reader.string_attributes().contains("scenario_name")
                                     ? reader.string_attributes().at("scenario_name")
                                     : std::string("rack");
        layout.rack_labels.push_back(name.empty() ? std::string("rack") : name);
      }
      layout.rack_position.resize(racks);
      for (std::size_t r = 0; r < racks; ++r) {
        layout.rack_position[r] = {static_cast<double>(r) * layout.rack_size.x, 0.0, 0.0};
      }
      layout.rack_pod.assign(racks, 0);
      layout.gpu_rack.assign(gpu_count, 0);
      if (racks > 1) {
        for (std::size_t g = 0; g < gpu_count; ++g) {
          for (std::size_t r = 0; r < racks; ++r) {
            if (layout.gpu_labels[g].rfind(layout.rack_labels[r] + "/", 0) == 0) layout.gpu_rack[g] = r;
          }
        }
      }
    }
    layout.rack_gpus.assign(layout.rack_count(), {});
    for (std::size_t g = 0; g < layout.gpu_rack.size(); ++g) {
      if (layout.gpu_rack[g] < layout.rack_count()) layout.rack_gpus[layout.gpu_rack[g]].push_back(g);
    }
    // Fields whose entity count does not match the layout cannot colour it.
    std::erase_if(fields, [&](const FieldInfo& field) {
      return field.entity == "rack" ? field.count != layout.rack_count() : field.count != gpu_count;
    });
  }

  std::vector<double> rack_row(const FieldInfo& field, Reduction reduction, std::size_t t) const {
    const auto row = reader.read_row(field.path, t);
    if (field.entity == "rack") return row;
    return reduce_per_rack(row, layout, effective_reduction(field, reduction));
  }
};

ReportModel::ReportModel(const std::filesystem::path& path) : impl_(std::make_unique<Impl>(path)) {}
ReportModel::~ReportModel() = default;

const std::filesystem::path& ReportModel::path() const { return impl_->reader.path(); }
std::string ReportModel::status() const { return impl_->reader.status(); }
std::string ReportModel::status_reason() const { return impl_->reader.status_reason(); }
std::string ReportModel::scenario_name() const {
  const auto attributes = impl_->reader.string_attributes();
  const auto it = attributes.find("scenario_name");
  return it == attributes.end() ? std::string() : it->second;
}
const std::vector<double>& ReportModel::time() const { return impl_->time; }
const HallLayout& ReportModel::layout() const { return impl_->layout; }
const std::vector<FieldInfo>& ReportModel::hall_fields() const { return impl_->fields; }
const std::vector<SeriesInfo>& ReportModel::series() const { return impl_->series; }
const std::vector<FieldInfo>& ReportModel::entity_fields() const { return impl_->entity_fields; }

std::vector<double> ReportModel::row(const std::string& path, std::size_t time_index) const {
  return impl_->reader.read_row(path, time_index);
}

std::vector<ReportEvent> ReportModel::events() const {
  std::vector<ReportEvent> result;
  if (!impl_->reader.contains("/events/time")) return result;
  const auto times = impl_->reader.read("/events/time");
  if (times.empty()) return result;
  auto strings = [&](const char* path) {
    auto values = impl_->reader.contains(path) ? impl_->reader.read_strings(path) : std::vector<std::string>{};
    values.resize(times.size());
    return values;
  };
  const auto component = strings("/events/component");
  const auto event = strings("/events/event");
  const auto message = strings("/events/message");
  for (std::size_t k = 0; k < times.size(); ++k) result.push_back({times[k], component[k], event[k], message[k]});
  std::stable_sort(result.begin(), result.end(),
                   [](const ReportEvent& a, const ReportEvent& b) { return a.time < b.time; });
  return result;
}

std::vector<SummaryValue> ReportModel::summary() const {
  std::vector<SummaryValue> result;
  for (auto& figure : impl_->reader.summary()) {
    result.push_back({std::move(figure.name), figure.value, std::move(figure.unit), std::move(figure.long_name)});
  }
  return result;
}

std::string ReportModel::resolved_scenario() const {
  if (!impl_->reader.contains("/scenario/resolved")) return {};
  const auto text = impl_->reader.read_strings("/scenario/resolved");
  return text.empty() ? std::string() : text.front();
}

const FieldInfo* ReportModel::find_field(const std::string& path) const {
  for (const auto& field : impl_->fields) {
    if (field.path == path || last_component(field.path) == path) return &field;
  }
  return nullptr;
}

const SeriesInfo* ReportModel::find_series(const std::string& path) const {
  for (const auto& series : impl_->series) {
    if (series.path == path) return &series;
  }
  return nullptr;
}

const std::vector<FineGroupInfo>& ReportModel::fine_groups() const { return impl_->fine_groups; }

const FineGroupInfo* ReportModel::fine_group_of(const std::string& path) const {
  for (const auto& group : impl_->fine_groups) {
    for (const auto& s : group.series) {
      if (s.path == path) return &group;
    }
  }
  return nullptr;
}

const SeriesInfo* ReportModel::find_fine_series(const std::string& path) const {
  for (const auto& group : impl_->fine_groups) {
    for (const auto& s : group.series) {
      if (s.path == path) return &s;
    }
  }
  return nullptr;
}

const std::vector<double>& ReportModel::fine_time(const FineGroupInfo& group) const {
  auto& times = impl_->fine_times;
  if (const auto it = times.find(group.time_path); it != times.end()) return it->second;
  return times.emplace(group.time_path, impl_->reader.read(group.time_path)).first->second;
}

const FieldInfo* ReportModel::default_field() const {
  if (const auto* field = find_field("/gpu/junction_temperature")) return field;
  return impl_->fields.empty() ? nullptr : &impl_->fields.front();
}

std::size_t ReportModel::time_index(double t) const {
  const auto& time = impl_->time;
  if (time.empty()) return 0;
  const auto it = std::lower_bound(time.begin(), time.end(), t);
  if (it == time.end()) return time.size() - 1;
  const auto index = static_cast<std::size_t>(it - time.begin());
  if (index > 0 && t - time[index - 1] < *it - t) return index - 1;
  return index;
}

const std::vector<double>& ReportModel::rack_values(const FieldInfo& field, Reduction reduction,
                                                    std::size_t time_index) const {
  auto key = std::make_tuple(field.path, static_cast<int>(reduction), time_index);
  auto& cache = impl_->cache;
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() > 1024) cache.clear();
  return cache.emplace(std::move(key), impl_->rack_row(field, reduction, time_index)).first->second;
}

std::pair<double, double> ReportModel::rack_value_range(const FieldInfo& field, Reduction reduction) const {
  const auto key = std::make_pair(field.path, static_cast<int>(reduction));
  if (const auto it = impl_->ranges.find(key); it != impl_->ranges.end()) return it->second;
  const std::size_t samples = impl_->time.size();
  constexpr std::size_t max_samples = 64;
  std::set<std::size_t> rows;
  if (samples <= max_samples) {
    for (std::size_t t = 0; t < samples; ++t) rows.insert(t);
  } else {
    for (std::size_t k = 0; k < max_samples; ++k) rows.insert(k * (samples - 1) / (max_samples - 1));
  }
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const std::size_t t : rows) {
    for (const double value : rack_values(field, reduction, t)) {
      if (!std::isfinite(value)) continue;
      lo = std::min(lo, value);
      hi = std::max(hi, value);
    }
  }
  std::pair<double, double> range{0.0, 1.0};
  if (lo <= hi) range = {lo, hi > lo ? hi : lo + 1.0};
  impl_->ranges.emplace(key, range);
  return range;
}

const std::vector<double>& ReportModel::aggregate_series(const FieldInfo& field,
                                                        Reduction reduction) const {
  const auto key = std::make_pair(field.path, static_cast<int>(reduction));
  if (const auto it = impl_->aggregates.find(key); it != impl_->aggregates.end()) return it->second;
  std::vector<double> result(impl_->time.size(), nan);
  for (std::size_t t = 0; t < result.size(); ++t) {
    const auto row = impl_->reader.read_row(field.path, t);
    double accumulated = reduction == Reduction::max ? -std::numeric_limits<double>::infinity() : 0.0;
    std::size_t finite = 0;
    for (const double value : row) {
      if (!std::isfinite(value)) continue;
      ++finite;
      if (reduction == Reduction::max) accumulated = std::max(accumulated, value);
      if (reduction == Reduction::mean) accumulated += value;
      if (reduction == Reduction::count_nonzero) accumulated += value != 0.0 ? 1.0 : 0.0;
    }
    if (finite > 0) result[t] = reduction == Reduction::mean ? accumulated / static_cast<double>(finite) : accumulated;
  }
  return impl_->aggregates.emplace(key, std::move(result)).first->second;
}

std::vector<double> ReportModel::series_values(const std::string& path) const {
  return impl_->reader.read(path);
}

std::vector<double> ReportModel::entity_row(const FieldInfo& field, std::size_t time_index) const {
  return impl_->reader.read_row(field.path, time_index);
}

std::vector<std::vector<double>> ReportModel::entity_series(const FieldInfo& field,
                                                            std::span<const std::size_t> entities) const {
  std::vector<std::vector<double>> result(entities.size());
  if (entities.empty() || impl_->time.empty()) return result;
  // One block of columns [first, last] read at once, then picked (a rack's GPUs are contiguous).
  const auto [first_it, last_it] = std::minmax_element(entities.begin(), entities.end());
  const std::size_t first = *first_it;
  const std::size_t width = *last_it - first + 1;
  const auto block = impl_->reader.read_columns(field.path, first, width);
  const std::size_t rows = block.size() / width;
  for (std::size_t k = 0; k < entities.size(); ++k) {
    const std::size_t column = entities[k] - first;
    result[k].resize(rows);
    for (std::size_t t = 0; t < rows; ++t) result[k][t] = block[t * width + column];
  }
  return result;
}

}  // namespace dctwin::gui
