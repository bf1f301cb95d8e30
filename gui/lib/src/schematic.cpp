#include "dctwin/gui/schematic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dctwin/gui/units.hpp"

namespace dctwin::gui {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// Adds {label, value} when the value is finite.
void add(SchematicBox& box, const std::string& label, double si, const std::string& units) {
  if (std::isfinite(si)) box.items.push_back({label, format_si(si, units)});
}

/// The plant's mode as /plant/mode numbers it.
std::string plant_mode(double mode) {
  if (mode == 0.0) return "free cooling";
  if (mode == 1.0) return "partial free cooling";
  if (mode == 2.0) return "mechanical cooling";
  return format_value(mode, "");
}

}  // namespace

const SchematicBox* SchematicState::box(const std::string& id) const {
  for (const auto* boxes : {&cooling, &electrical})
    for (const auto& b : *boxes)
      if (b.id == id) return &b;
  return nullptr;
}

std::string SchematicState::value(const std::string& box_id, const std::string& label) const {
  const SchematicBox* b = box(box_id);
  if (b == nullptr) return {};
  for (const auto& item : b->items)
    if (item.label == label) return item.value;
  return {};
}

SchematicModel::SchematicModel(const ReportModel& report) : report_(report) {
  pods_ = static_cast<std::size_t>(std::max(1, report.layout().pod_count()));
  for (const auto& s : report.series()) series_[s.path] = report.series_values(s.path);
}

double SchematicModel::series_at(const std::string& path, std::size_t time_index) const {
  if (const auto it = series_.find(path); it != series_.end())
    return time_index < it->second.size() ? it->second[time_index] : nan;
  const FineGroupInfo* group = report_.fine_group_of(path);
  const auto& time = report_.time();
  if (group == nullptr || time_index >= time.size()) return nan;
  auto cached = fine_.find(path);
  if (cached == fine_.end()) cached = fine_.emplace(path, report_.series_values(path)).first;
  const auto& fine_time = report_.fine_time(*group);
  if (fine_time.empty() || cached->second.size() != fine_time.size()) return nan;
  // The sample of the record nearest the time (the record may start later or end earlier).
  const double t = time[time_index];
  auto at = std::lower_bound(fine_time.begin(), fine_time.end(), t);
  if (at == fine_time.end()) at = std::prev(at);
  if (at != fine_time.begin() && t - *std::prev(at) < *at - t) at = std::prev(at);
  if (std::fabs(*at - t) > 1.0) return nan;  // no record within a second of the time
  return cached->second[static_cast<std::size_t>(at - fine_time.begin())];
}

double SchematicModel::entity_at(const std::string& path, std::size_t time_index, std::size_t column) const {
  for (const auto& field : report_.entity_fields()) {
    if (field.path != path) continue;
    const auto row = report_.row(path, time_index);
    return column < row.size() ? row[column] : nan;
  }
  return nan;
}

SchematicState SchematicModel::at(std::size_t time_index, std::size_t pod) const {
  SchematicState state;
  const auto& layout = report_.layout();
  const std::string pod_name = "Pod " + std::to_string(pod);

  // Cooling loop.
  SchematicBox outdoor{"outdoor", "Outdoor air", {}};
  add(outdoor, "dry bulb", series_at("/weather/dry_bulb_temperature", time_index), "K");
  add(outdoor, "wet bulb", series_at("/weather/wet_bulb_temperature", time_index), "K");

  SchematicBox plant{"plant", "Plant: economizer, chillers, heat rejection", {}};
  if (const double mode = series_at("/plant/mode", time_index); std::isfinite(mode))
    plant.items.push_back({"mode", plant_mode(mode)});
  add(plant, "heat removed", series_at("/plant/heat_removed", time_index), "W");
  add(plant, "electrical power", series_at("/plant/power", time_index), "W");

  SchematicBox pod_box{"pod", pod_name + ": CDU, pumps, CRAH", {}};
  add(pod_box, "CDU heat", entity_at("/pod/cdu_heat", time_index, pod), "W");
  add(pod_box, "CDU valve opening", entity_at("/pod/cdu_valve_opening", time_index, pod), "1");
  add(pod_box, "pump power", entity_at("/pod/pump_power", time_index, pod), "W");
  add(pod_box, "CRAH coil heat", entity_at("/pod/crah_coil_heat", time_index, pod), "W");
  add(pod_box, "CRAH supply air", entity_at("/pod/crah_supply_temperature", time_index, pod), "K");
  add(pod_box, "cold aisle", entity_at("/pod/cold_aisle_temperature", time_index, pod), "K");
  add(pod_box, "hot aisle", entity_at("/pod/hot_aisle_temperature", time_index, pod), "K");

  // The pod's racks and GPUs: extremes and sums over them.
  std::vector<std::size_t> racks;
  for (std::size_t r = 0; r < layout.rack_pod.size(); ++r)
    if (layout.rack_pod[r] == static_cast<int>(pod)) racks.push_back(r);
  SchematicBox racks_box{"racks", std::to_string(racks.size()) + " racks of " + pod_name, {}};
  SchematicBox gpus_box{"gpus", "GPUs of " + pod_name, {}};
  auto over_racks = [&](const FieldInfo& field, Reduction reduction) {
    const auto& values = report_.rack_values(field, reduction, time_index);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0.0;
    for (const std::size_t r : racks) {
      if (r >= values.size() || !std::isfinite(values[r])) continue;
      lo = std::min(lo, values[r]);
      hi = std::max(hi, values[r]);
      sum += values[r];
    }
    struct {
      double lo, hi, sum;
    } out{lo <= hi ? lo : nan, lo <= hi ? hi : nan, sum};
    return out;
  };
  if (const auto* flow = report_.find_field("/rack/coolant_flow")) {
    const auto v = over_racks(*flow, Reduction::max);
    add(racks_box, "coolant flow, all racks", v.sum, "m3/s");
    add(racks_box, "least rack flow", v.lo, "m3/s");
  }
  if (const auto* supply = report_.find_field("/rack/coolant_supply_temperature"))
    add(racks_box, "warmest coolant supply", over_racks(*supply, Reduction::max).hi, "K");
  if (const auto* ret = report_.find_field("/rack/coolant_return_temperature"))
    add(racks_box, "warmest coolant return", over_racks(*ret, Reduction::max).hi, "K");
  if (const auto* junction = report_.find_field("/gpu/junction_temperature")) {
    add(gpus_box, "hottest junction", over_racks(*junction, Reduction::max).hi, "K");
    const auto mean = over_racks(*junction, Reduction::mean);
    add(gpus_box, "mean junction", racks.empty() ? nan : mean.sum / static_cast<double>(racks.size()), "K");
  }
  if (const auto* power = report_.find_field("/gpu/power")) {
    const auto& values = report_.entity_row(*power, time_index);
    double sum = 0.0;
    for (const std::size_t r : racks)
      for (const std::size_t g : layout.rack_gpus[r])
        if (g < values.size() && std::isfinite(values[g])) sum += values[g];
    add(gpus_box, "board power, all GPUs", racks.empty() ? nan : sum, "W");
  }
  if (const auto* throttle = report_.find_field("/gpu/throttle_reasons"); throttle != nullptr && throttle->bitmask) {
    const double count = over_racks(*throttle, Reduction::count_nonzero).sum;
    gpus_box.items.push_back({"throttled", format_value(count, "GPUs")});
  }

  for (auto* b : {&outdoor, &plant, &pod_box, &racks_box, &gpus_box})
    if (!b->items.empty()) state.cooling.push_back(std::move(*b));
  auto pipe = [&](const std::string& from, const std::string& to, bool supply, double temperature, const std::string& name) {
    if (state.box(from) == nullptr || state.box(to) == nullptr || !std::isfinite(temperature)) return;
    state.pipes.push_back({from, to, supply, temperature, name + (supply ? " supply " : " return ") + format_si(temperature, "K")});
  };
  pipe("plant", "pod", true, series_at("/plant/water_supply_temperature", time_index), "facility water");
  pipe("plant", "pod", false, series_at("/plant/water_return_temperature", time_index), "facility water");
  pipe("pod", "racks", true, entity_at("/pod/coolant_supply_temperature", time_index, pod), "pod coolant");
  pipe("pod", "racks", false, entity_at("/pod/coolant_return_temperature", time_index, pod), "pod coolant");

  // Electrical single line (the whole facility).
  const double grid = series_at("/grid/power", time_index);
  SchematicBox utility{"utility", "Utility (point of connection)", {}};
  add(utility, "power drawn", grid, "W");
  add(utility, "frequency", series_at("/grid/frequency", time_index), "Hz");
  if (const double v = series_at("/grid/voltage", time_index); std::isfinite(v))
    utility.items.push_back({"MV bus voltage", format_value(v, "pu")});
  SchematicBox transformers{"transformers", "MV transformers", {}};
  add(transformers, "hottest hot spot", series_at("/grid/transformer_hot_spot", time_index), "K");
  SchematicBox ups{"ups", "UPS and rack BBUs", {}};
  add(ups, "UPS batteries", series_at("/grid/ups_energy", time_index), "J");
  add(ups, "BBUs", series_at("/grid/bbu_energy", time_index), "J");
  add(ups, "IT load not supplied", series_at("/grid/it_power_lost", time_index), "W");
  SchematicBox storage{"storage", "Storage on the MV bus", {}};
  if (const double soc = series_at("/grid/battery_soc", time_index); std::isfinite(soc) && soc > 0.0)
    storage.items.push_back({"battery state of charge", format_value(100.0 * soc, "%")});
  if (const double e = series_at("/grid/capacitor_energy", time_index); std::isfinite(e) && e > 0.0)
    add(storage, "capacitor bank", e, "J");
  const double gpu_total = series_at("/gpu/total_power", time_index);
  SchematicBox it{"it", "IT load", {}};
  add(it, "GPUs (board power)", gpu_total, "W");
  // Every pod's pumps, from one read of the row.
  double pumps = 0.0;
  bool any_pump = false;
  if (std::any_of(report_.entity_fields().begin(), report_.entity_fields().end(),
                  [](const FieldInfo& f) { return f.path == "/pod/pump_power"; })) {
    for (const double w : report_.row("/pod/pump_power", time_index)) {
      if (!std::isfinite(w)) continue;
      pumps += w;
      any_pump = true;
    }
  }
  const double plant_power = series_at("/plant/power", time_index);
  SchematicBox cooling_load{"cooling_load", "Cooling load", {}};
  add(cooling_load, "plant", plant_power, "W");
  add(cooling_load, "pod pumps", any_pump ? pumps : nan, "W");
  if (!utility.items.empty()) {
    for (auto* b : {&utility, &transformers, &ups, &it, &cooling_load, &storage})
      if (!b->items.empty()) state.electrical.push_back(std::move(*b));
    auto feeder = [&](const std::string& from, const std::string& to, double power) {
      if (state.box(from) == nullptr || state.box(to) == nullptr) return;
      state.feeders.push_back({from, to, power, std::isfinite(power) ? format_si(power, "W") : std::string()});
    };
    const std::string bus = state.box("transformers") != nullptr ? "transformers" : "utility";
    if (bus != "utility") feeder("utility", bus, grid);
    feeder(bus, state.box("ups") != nullptr ? "ups" : "it", nan);
    if (state.box("ups") != nullptr) feeder("ups", "it", gpu_total);
    feeder(bus, "cooling_load", std::isfinite(plant_power) ? plant_power + (any_pump ? pumps : 0.0) : nan);
    feeder("storage", bus, nan);
  }
  return state;
}

}  // namespace dctwin::gui
