#include "dctwin/models/facility/facility_site.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/fluid/coolant.hpp"
#include "dctwin/models/hydraulic/loops.hpp"
#include "dctwin/models/parameter_check.hpp"
#include "dctwin/models/thermal/cold_plate.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::facility {

using core::ParameterTree;
using core::SectionSchema;

namespace {

SectionSchema section(std::string doc, core::ParameterTable table) {
  SectionSchema s;
  s.doc = std::move(doc);
  s.parameters = std::move(table);
  return s;
}

/// A cold plate's pressure drop as a flow-network branch law: dp_nom (Q / Q_nom)^m with the
/// plate's own nominal point and exponent (m = 1.85, OCP data).
hydraulic::FixedResistanceParameters cold_plate_resistance(const thermal::ColdPlateParameters& plate) {
  return {plate.nominal_flow, plate.pressure_drop_at_nominal_flow, plate.pressure_drop_flow_exponent};
}

}  // namespace

SectionSchema facility_schema() {
  using namespace core;
  SectionSchema f;
  f.doc = "A whole site: layout, GPUs, coolant loops, hall air, plant and weather";
  f.parameters.push_back(choice_parameter("cooling", {"air", "liquid-to-air", "liquid-to-liquid"},
                                          "air: heatsinks and server fans (the Llama 3 hall as built); "
                                          "liquid-to-air: cold plates, pod loops and rear doors into the hall's air; "
                                          "liquid-to-liquid: cold plates, pod loops and CDUs into facility water",
                                          std::string("liquid-to-air")));
  auto p = real_parameter("initial_temperature", "K", "Temperature of every node at the start (initial_state: supply_temperature)",
                          303.15);
  p.display_unit = "degC";
  at_least(p, 273.15);
  f.parameters.push_back(at_most(p, 353.15));
  f.sections["layout"] = section("Pods, racks, servers and GPUs, and the hall's geometry", LayoutParameters::table());
  f.sections["spread"] = section("Manufacturing spread of the GPUs, drawn from simulation.seed", SpreadParameters::table());
  f.sections["gpu"] = section("GPU package thermal model", thermal::GpuPackageParameters::table());
  {
    SectionSchema s;
    s.doc = "Heat of each server that goes to its air, and its air flow";
    auto q = real_parameter("air_heat", "W",
                            "DC load of each server's parts besides the GPUs, at its PSU outputs: CPUs, memory, NICs, "
                            "switches (and a liquid-cooled server's fans; an air-cooled server's fans are "
                            "facility.server_fans). Its PSU loss is added from electrical.psu",
                            2350.0,
                            "Estimate: 2.5 kW at the server inlet less its share of a ~94 % PSU; Grand Teton: 2 CPUs "
                            "up to 350 W each; DGX H100 typical 6.5-8.5 kW with the GPUs ~4.4 kW "
                            "(NVIDIA DGX H100 user guide)");
    q.display_unit = "kW";
    s.parameters.push_back(at_least(q, 0.0));
    q = real_parameter("air_flow", "kg/s", "Air mass flow through each liquid-cooled server", 0.35,
                       "Estimate for a liquid-cooled 8-GPU server: 2.5 kW at a 7 K air rise");
    s.parameters.push_back(greater_than(q, 0.0));
    q = real_parameter("chassis_heat_capacity", "J/K", "Heat capacity of the air and chassis parts lumped at an air-cooled server's exhaust",
                       2000.0, "Estimate (uncertain): sets a time constant of a few seconds");
    s.parameters.push_back(greater_than(q, 0.0));
    f.sections["server"] = s;
  }
  f.sections["heatsink"] = section("GPU heatsink (air cooling)", thermal::HeatsinkParameters::table());
  {
    SectionSchema a = section("Air path through an air-cooled server", thermal::ServerAirPathParameters::table());
    a.lists["slots"] = section("GPU positions along the air stream, one per GPU (default: an 8-GPU baseboard)",
                               thermal::GpuAirSlot::table());
    f.sections["air_path"] = a;
  }
  f.sections["server_fans"] = section("Server fans and chassis (air cooling)", thermal::ServerFanParameters::table());
  f.sections["fan_controller"] = thermal::FanControllerParameters::schema();
  {
    SectionSchema r;
    r.doc = "Rack coolant volumes and the rear-door fans";
    auto v = real_parameter("manifold_volume", "m3", "Coolant in each rack's return manifold", 3e-3, "Estimate");
    v.display_unit = "L";
    r.parameters.push_back(greater_than(v, 0.0));
    v = real_parameter("door_water_volume", "m3", "Coolant in each rear-door coil", 10e-3, "Estimate for a 600 x 2200 mm coil");
    v.display_unit = "L";
    r.parameters.push_back(greater_than(v, 0.0));
    v = real_parameter("door_fan_speed", "1", "Rear-door fan speed (active doors)", 1.0, "");
    at_least(v, 0.0);
    r.parameters.push_back(at_most(v, 1.0));
    f.sections["rack"] = r;
  }
  f.sections["rear_door"] = section("Rear-door heat exchanger (liquid-to-air)", hx::RearDoorParameters::table());
  f.sections["pod_loop"] = hydraulic::PodLoopParameters::schema();
  // The cold plates' parameters sit with the rack manifold they are part of; the hydraulic rack
  // takes only their pressure drop from them (cold_plate_resistance).
  f.sections["pod_loop"].sections["rack"].sections["cold_plate"] =
      SectionSchema{"Cold plate (one per GPU)", thermal::ColdPlateParameters::table(), {}, {}, false};
  {
    SectionSchema pod;
    pod.doc = "Pod coolant headers and the CDU supply set-point";
    auto v = real_parameter("header_volume", "m3",
                            "Well-mixed coolant at each pod's pumps (liquid-to-air: the collector; liquid-to-liquid: "
                            "each of the CDU's inlet and outlet volumes); the mains and headers are pod_loop's pipes",
                            0.5, "Estimate: pump skid, strainers, expansion tank and CDU passes");
    pod.parameters.push_back(greater_than(v, 0.0));
    v = real_parameter("transport_cell_time", "s",
                       "Longest residence time of one well-mixed cell of the pod's mains, headers and rack hoses "
                       "(fronts along a path of plug-flow time tau spread by at most sqrt(tau x this))",
                       1.0, "Numerical choice: arrival times within 5 % of V/Q for pipes of 10 s and more");
    at_least(v, 0.01);
    pod.parameters.push_back(at_most(v, 600.0));
    v = real_parameter("supply_setpoint", "K", "Pod coolant supply set-point held by the CDU (liquid-to-liquid)", 305.15,
                       "ASHRAE W32 ([ashrae-tc99-2021])");
    v.display_unit = "degC";
    at_least(v, 273.15);
    pod.parameters.push_back(at_most(v, 333.15));
    f.sections["pod"] = pod;
  }
  f.sections["cdu"] = hx::CduParameters::schema();
  f.sections["room"] = section("Hall air per pod: aisles, recirculation, bypass", thermal::RoomAirParameters::table());
  f.sections["crah"] = section("Air handlers per pod", thermal::CrahParameters::table());
  f.sections["plant"] = PlantParameters::schema();
  {
    SectionSchema w;
    w.doc = "Outdoor weather driving the plant";
    w.parameters.push_back(choice_parameter("source", {"constant", "design_day", "file"},
                                            "constant: the dry and wet bulb below; design_day: the ASHRAE profile; file: a CSV or EPW file",
                                            std::string("design_day")));
    auto t = real_parameter("dry_bulb", "K", "Constant dry-bulb temperature", 298.15);
    t.display_unit = "degC";
    w.parameters.push_back(greater_than(t, 183.15));
    t = real_parameter("wet_bulb", "K", "Constant wet-bulb temperature", 291.15);
    t.display_unit = "degC";
    w.parameters.push_back(greater_than(t, 183.15));
    w.parameters.push_back(text_parameter(
        "file", "Weather file, relative to the scenario file: CSV with time, dry_bulb, wet_bulb, or EnergyPlus EPW (.epw)",
        std::string()));
    auto offset = real_parameter("start_offset", "s",
                                 "Time into the weather file at the run's start (source file): after the CSV's first row, or after "
                                 "1 January 00:00 of an EPW file (e.g. 4800 h = 20 July 00:00)",
                                 0.0);
    offset.display_unit = "h";
    w.parameters.push_back(at_least(offset, 0.0));
    w.sections["design_day"] = section("ASHRAE design-day profile", DesignDayParameters::table());
    f.sections["weather"] = w;
  }
  {
    SectionSchema failure;
    failure.doc = "A pump failure: from `time` on, `failed` pumps of pod `pod` are out";
    auto t = real_parameter("time", "s", "When the pumps fail", std::nullopt);
    failure.parameters.push_back(at_least(t, 0.0));
    auto n = integer_parameter("pod", "Pod index (0-based)", std::nullopt);
    failure.parameters.push_back(at_least(n, 0.0));
    n = integer_parameter("failed", "Number of failed pumps in that pod from then on", 1.0);
    failure.parameters.push_back(at_least(n, 0.0));
    f.lists["pump_failures"] = failure;
  }
  return f;
}

namespace {

/// A temperature in K as text in degC with one decimal, for the envelopes' long names.
std::string degrees_celsius(double kelvin) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f degC", kelvin - 273.15);
  return text;
}

/// A number with a fixed count of decimals, for messages.
std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

/// The pod loops' flows for every phase of pump states.
FlowPlan plan_flows(const FacilityLayout& layout, const hydraulic::PodLoopParameters& base,
                    const std::vector<ParameterTree>& failures) {
  // Phase boundaries: t = 0 and every distinct failure time.
  std::map<double, std::vector<int>> failed_at;  // time -> failed pumps per pod (cumulative)
  std::vector<int> failed(layout.pods(), base.pumps.failed_count);
  failed_at[0.0] = failed;
  std::vector<std::pair<double, const ParameterTree*>> ordered;
  for (const auto& f : failures) ordered.emplace_back(f.number("time"), &f);
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [time, f] : ordered) {
    const auto pod = static_cast<std::size_t>(f->integer("pod"));
    if (pod >= layout.pods())
      throw core::InputError(f->key_path("pod") + " = " + std::to_string(pod) + " (the site has " +
                                   std::to_string(layout.pods()) + " pods: 0 to " + std::to_string(layout.pods() - 1) + ")",
                               f->key_path("pod"));
    const int n = static_cast<int>(f->integer("failed"));
    if (n > base.pumps.pump_count)
      throw core::InputError(f->key_path("failed") + " = " + std::to_string(n) + " (the pod has " +
                                   std::to_string(base.pumps.pump_count) + " pumps)",
                               f->key_path("failed"));
    failed[pod] = n;
    failed_at[time] = failed;
  }
  // Solve each distinct pump state once (pods are identical).
  std::map<int, hydraulic::PodLoopResult> solved;
  auto solve = [&](int failed_pumps) -> const hydraulic::PodLoopResult& {
    auto it = solved.find(failed_pumps);
    if (it != solved.end()) return it->second;
    hydraulic::PodLoopParameters p = base;
    p.pumps.failed_count = failed_pumps;
    auto result = hydraulic::solve_pod_loop(p);
    if (!result.solve.converged)
      throw core::InputError("pod loop with " + std::to_string(failed_pumps) +
                               " failed pumps: the hydraulic network did not converge (" + result.solve.message + ")");
    return solved.emplace(failed_pumps, std::move(result)).first->second;
  };
  std::vector<FlowPhase> phases;
  for (const auto& [time, pumps_failed] : failed_at) {
    FlowPhase phase;
    phase.start = time;
    for (std::size_t pod = 0; pod < layout.pods(); ++pod) {
      const auto& r = solve(pumps_failed[pod]);
      phase.rack_flow.insert(phase.rack_flow.end(), r.rack_flow.begin(), r.rack_flow.end());
      phase.plate_flow.insert(phase.plate_flow.end(), r.plate_flow.begin(), r.plate_flow.end());
      phase.rack_pressure_drop.insert(phase.rack_pressure_drop.end(), r.rack_pressure_drop.begin(), r.rack_pressure_drop.end());
      phase.pod_pump_power.push_back(r.pumps.shaft_power);
      DCTWIN_DEMAND(r.plate_flow.size() == layout.racks_per_pod() * layout.gpus_per_rack(), "one flow per plate");
      phase.pod_pumps_running.push_back(r.pumps.running);
    }
    // The rack flow is the sum of its plates' flows, exactly, so that the coolant's energy
    // balance closes to round-off (the network conserves mass to 1e-9).
    for (std::size_t rack = 0; rack < layout.racks(); ++rack) {
      double sum = 0.0;
      for (std::size_t g = rack * layout.gpus_per_rack(); g < (rack + 1) * layout.gpus_per_rack(); ++g) sum += phase.plate_flow[g];
      phase.rack_flow[rack] = sum;
    }
    phases.push_back(std::move(phase));
  }
  return FlowPlan(std::move(phases));
}

}  // namespace

namespace {

/// The weather of `facility.weather`: the series io/ read from its file, a design day, or
/// constant conditions.
std::unique_ptr<WeatherSeries> site_weather(const ParameterTree& w, std::optional<WeatherSeries> weather_file) {
  const std::string source = w.text("source");
  if (source == "file") {
    if (!weather_file) throw core::InputError(w.key_path("file") + ": no weather file was read", w.key_path("file"));
    return std::make_unique<WeatherSeries>(std::move(*weather_file));
  }
  if (source == "design_day") {
    return std::make_unique<WeatherSeries>(design_day_series(DesignDayParameters::from(w.section("design_day")),
                                                             WeatherInterpolation::monotone_cubic));
  }
  if (w.number("wet_bulb") > w.number("dry_bulb") + WeatherSeries::wet_bulb_tolerance)
    throw core::InputError(w.key_path("wet_bulb") + " is above " + w.key_path("dry_bulb"), w.key_path("wet_bulb"));
  return std::make_unique<WeatherSeries>(std::vector<double>{0.0, 1.0},
                                         std::vector<double>{w.number("dry_bulb"), w.number("dry_bulb")},
                                         std::vector<double>{w.number("wet_bulb"), w.number("wet_bulb")});
}

/// The plant's water-side economizer: its heat rejection (cooling tower or dry cooler) and chiller.
std::unique_ptr<hx::WaterSideEconomizer> plant_economizer(const ParameterTree& plant_tree, const PlantParameters& plant) {
  hx::HeatRejection rejection =
      plant.heat_rejection == "cooling_tower"
          ? hx::HeatRejection(hx::CoolingTower(hx::CoolingTowerParameters::from(plant_tree.section("cooling_tower")),
                                               "facility.plant.cooling_tower"))
          : hx::HeatRejection(hx::DryCooler(hx::DryCoolerParameters::from(plant_tree.section("dry_cooler")),
                                            "facility.plant.dry_cooler"));
  return std::make_unique<hx::WaterSideEconomizer>(
      hx::EconomizerParameters::from(plant_tree.section("economizer")), std::move(rejection),
      hx::Chiller(hx::ChillerParameters::from(plant_tree.section("chiller")), "facility.plant.chiller"),
      "facility.plant.economizer");
}

/// `facility.pod_loop` as the thermal model takes it: its topology from the layout where the file
/// leaves it out, the cold plates' resistance curve, and the checks the parameter tables cannot
/// make (the topology against the layout, the plate arrangement, a running pump).
hydraulic::PodLoopParameters checked_pod_loop(const ParameterTree& f, const FacilityLayout& layout,
                                              const thermal::ColdPlateParameters& cold_plate) {
  ParameterTree pod_loop_section = f.section("pod_loop");
  derive_pod_loop_topology(f.section("layout"), pod_loop_section);
  hydraulic::PodLoopParameters pod_loop = hydraulic::PodLoopParameters::from(pod_loop_section);
  pod_loop.rack.plate = cold_plate_resistance(cold_plate);
  if (static_cast<std::size_t>(pod_loop.rack_count) != layout.racks_per_pod())
    throw core::InputError(f.section("pod_loop").key_path("rack_count") + " = " + std::to_string(pod_loop.rack_count) +
                                 " but " + f.section("layout").key_path("racks_per_pod") + " = " +
                                 std::to_string(layout.racks_per_pod()) + " (inconsistent topology)",
                             f.section("pod_loop").key_path("rack_count"));
  if (static_cast<std::size_t>(pod_loop.rack.servers * pod_loop.rack.plates_per_server) != layout.gpus_per_rack())
    throw core::InputError(f.section("pod_loop").key_path("rack") + " has " +
                                 std::to_string(pod_loop.rack.servers * pod_loop.rack.plates_per_server) +
                                 " cold plates but a rack holds " + std::to_string(layout.gpus_per_rack()) +
                                 " GPUs (inconsistent topology)",
                             f.section("pod_loop").key_path("rack"));
  pod_loop.validate(f.section("pod_loop").path);
  if (pod_loop.rack.plates != hydraulic::PlateArrangement::parallel) {
    const std::string key = f.section("pod_loop").section("rack").key_path("plates");
    throw core::InputError(key + " = series_pairs is not supported by the facility's thermal model yet "
                             "(each plate is fed from the pod supply; use parallel)", key);
  }
  if (pod_loop.pumps.duty_count == 0) {
    const std::string key = f.section("pod_loop").section("pumps").key_path("duty_count");
    throw core::InputError(key + " = 0 (a pod loop with no running pump moves no coolant)", key);
  }
  return pod_loop;
}

/// The pod coolant's density and heat capacity, constant at its stated temperature.
CoolantConstants pod_coolant(const ParameterTree& loop_tree, const hydraulic::PodLoopParameters& pod_loop) {
  try {
    const auto coolant_model = fluid::Coolant::parse(pod_loop.coolant);
    return {coolant_model.density(pod_loop.coolant_temperature), coolant_model.specific_heat(pod_loop.coolant_temperature)};
  } catch (const core::InputError& e) {
    throw core::InputError(loop_tree.key_path("coolant") + " = " + pod_loop.coolant + " (" + e.what() + ")",
                           loop_tree.key_path("coolant"));
  }
}

/// The volumes of the supply and return mains, the header segments between rack taps and each
/// rack's supply hose, which carry temperature fronts with their plug-flow times
/// (docs/models/hydraulic.md).
PodHeaderTransport::Geometry header_geometry(const ParameterTree& f, const hydraulic::PodLoopParameters& pod_loop) {
  PodHeaderTransport::Geometry geometry;
  const auto coolant_model = fluid::Coolant::parse(pod_loop.coolant);  // checked by pod_coolant
  const auto volume = [&](const hydraulic::PipeParameters& pipe) {
    return hydraulic::Pipe(pipe, coolant_model, pod_loop.coolant_temperature).volume();
  };
  geometry.supply_main_volume = volume(pod_loop.supply_main);
  geometry.return_main_volume = volume(pod_loop.return_main);
  geometry.segment_volume = volume(pod_loop.header_segment);
  geometry.rack_hose_volume = volume(pod_loop.rack.supply_hose);
  geometry.reverse_return = pod_loop.headers == hydraulic::HeaderArrangement::reverse_return;
  geometry.max_cell_time = f.section("pod").number("transport_cell_time");
  return geometry;
}

}  // namespace

FacilitySite::FacilitySite(const ParameterTree& scenario, std::optional<WeatherSeries> weather_file) {
  name_ = scenario.text("name");
  const ParameterTree& sim = scenario.section("simulation");
  settings_ = simulation_settings(sim);
  start_from_steady_state_ = sim.text("initial_state") == "steady_state";
  const ParameterTree& f = scenario.section("facility");
  initial_temperature_ = f.number("initial_temperature");
  layout_ = std::make_unique<FacilityLayout>(LayoutParameters::from(f.section("layout")));
  const FacilityLayout& layout = *layout_;
  weather_ = site_weather(f.section("weather"), std::move(weather_file));

  // GPUs with their seeded spread, and the job that drives them.
  const auto seed = sim.unsigned_integer("seed");
  auto spread = draw_spread(SpreadParameters::from(f.section("spread")), layout.gpus(), seed);
  auto gpus = std::make_unique<thermal::GpuPackageArray>("gpus", thermal::GpuPackageParameters::from(f.section("gpu")),
                                                         std::move(spread), layout.gpu_labels(), initial_temperature_);
  const auto workload_parameters = workload::WorkloadParameters::from(scenario.section("workload"));
  gpus->stop_on_shutdown(workload_parameters.on_gpu_shutdown == "end_run");
  auto job = std::make_unique<workload::TrainingJob>("job", workload_parameters,
                                                     *gpus, settings_.end_time, seed, "workload");
  gpus->connect(*job);
  design_gpus_ = layout.gpus();
  design_servers_ = layout.servers();
  design_power_limit_ = job->power_model().parameters().power_limit;
  design_air_heat_ = f.section("server").number("air_heat");
  design_heat_load_ = static_cast<double>(design_gpus_) * design_power_limit_ +
                      static_cast<double>(design_servers_) * design_air_heat_;
  {
    auto electrical = electrical::ElectricalParameters::from(scenario.section("electrical"));
    psu_ = electrical.psu;  // the servers' supplies exist with or without the feed
    if (electrical.enabled) electrical_ = std::move(electrical);
  }
  thermal::RoomAir room(thermal::RoomAirParameters::from(f.section("room")), thermal::CrahParameters::from(f.section("crah")));
  const PlantParameters plant = PlantParameters::from(f.section("plant"));
  if (f.text("cooling") == "air") {
    assemble_air_cooled(f, std::move(gpus), std::move(job), std::move(room), plant);
  } else {
    assemble_liquid_cooled(f, std::move(gpus), std::move(job), std::move(room), plant);
  }
  finish_assembly();
}

void FacilitySite::assemble_air_cooled(const ParameterTree& f, std::unique_ptr<thermal::GpuPackageArray> gpus,
                                       std::unique_ptr<workload::TrainingJob> job, thermal::RoomAir room,
                                       const PlantParameters& plant_parameters) {
  const FacilityLayout& layout = *layout_;
  if (!f.list("pump_failures").empty())
    throw core::InputError(f.key_path("pump_failures") + ": an air-cooled site has no coolant pumps",
                           f.key_path("pump_failures"));
  std::vector<thermal::GpuAirSlot> slots;
  for (const auto& entry : f.section("air_path").list("slots")) slots.push_back(thermal::GpuAirSlot::from(entry));
  if (slots.empty()) slots = thermal::eight_gpu_baseboard_slots();
  thermal::ServerAirPath path(thermal::ServerAirPathParameters::from(f.section("air_path")),
                              thermal::HeatsinkParameters::from(f.section("heatsink")), std::move(slots));
  const ParameterTree& server = f.section("server");
  auto servers = std::make_unique<AirCooledServers>(
      layout, std::move(path), thermal::ServerFans(thermal::ServerFanParameters::from(f.section("server_fans"))),
      thermal::FanController(thermal::FanControllerParameters::from(f.section("fan_controller"))),
      server.number("air_heat"), server.number("chassis_heat_capacity"), *gpus, initial_temperature_);
  gpus->connect(*servers);
  auto hall = std::make_unique<HallAir>(layout, std::move(room), *servers, initial_temperature_, initial_temperature_);
  auto plant = std::make_unique<FacilityWaterPlant>(plant_parameters, plant_economizer(f.section("plant"), plant_parameters),
                                                    *weather_, *hall, nullptr, layout.pods(), initial_temperature_);
  servers->connect(*hall);
  hall->connect(*plant);
  gpus_ = &system_.add(std::move(gpus));
  servers_ = &system_.add(std::move(servers));
  air_source_ = servers_;
  hall_ = &system_.add(std::move(hall));
  plant_ = &system_.add(std::move(plant));
  job_ = &system_.add(std::move(job));
}

void FacilitySite::assemble_liquid_cooled(const ParameterTree& f, std::unique_ptr<thermal::GpuPackageArray> gpus,
                                          std::unique_ptr<workload::TrainingJob> job, thermal::RoomAir room,
                                          const PlantParameters& plant_parameters) {
  const FacilityLayout& layout = *layout_;
  const bool liquid_to_air = f.text("cooling") == "liquid-to-air";
  // Hydraulics: the pod loop must match the layout; its flows in each phase of pump failures.
  const thermal::ColdPlateParameters cold_plate =
      thermal::ColdPlateParameters::from(f.section("pod_loop").section("rack").section("cold_plate"));
  const hydraulic::PodLoopParameters pod_loop = checked_pod_loop(f, layout, cold_plate);
  flows_ = std::make_unique<FlowPlan>(plan_flows(layout, pod_loop, f.list("pump_failures")));
  {
    const auto& first = flows_->phases().front();
    const auto labels = layout.rack_labels();
    for (std::size_t r = 0; r < layout.racks(); ++r) {
      if (first.rack_flow[r] > 0.0) continue;
      const std::string key = f.key_path("pod_loop");
      throw core::InputError(key + ": rack " + labels[r] + " gets no coolant (disconnected: its valve is shut or it has no path)",
                               key);
    }
  }
  if (flows_->phases().size() > 1) first_failure_time_ = flows_->phases()[1].start;
  const CoolantConstants coolant = pod_coolant(f.section("pod_loop"), pod_loop);

  auto plates = std::make_unique<RackPlateCoolant>(layout, thermal::ColdPlate(cold_plate), coolant,
                                                   *flows_, *gpus, initial_temperature_);
  gpus->connect(*plates);

  const ParameterTree& server = f.section("server");
  RackCoolantLoop::Air air;
  air.server_air_flow = static_cast<double>(layout.servers_per_rack()) * server.number("air_flow");
  air.server_air_heat = static_cast<double>(layout.servers_per_rack()) * server.number("air_heat");
  server_air_heat_per_rack_ = air.server_air_heat;
  std::unique_ptr<hx::RearDoor> door;
  if (liquid_to_air) door = std::make_unique<hx::RearDoor>(hx::RearDoorParameters::from(f.section("rear_door")), "facility.rear_door");
  const ParameterTree& rack = f.section("rack");
  auto racks = std::make_unique<RackCoolantLoop>(layout, coolant, *flows_, *plates, rack.number("manifold_volume"),
                                                 std::move(door), rack.number("door_water_volume"),
                                                 rack.number("door_fan_speed"), air, initial_temperature_);
  std::unique_ptr<hx::Cdu> cdu;
  if (!liquid_to_air) cdu = std::make_unique<hx::Cdu>(hx::CduParameters::from(f.section("cdu")), "facility.cdu");
  auto headers = std::make_unique<PodHeaderTransport>(layout, coolant, *flows_, header_geometry(f, pod_loop),
                                                      initial_temperature_);
  auto pods = std::make_unique<PodCoolantLoop>(layout, coolant, *flows_, *headers, f.section("pod").number("header_volume"),
                                               std::move(cdu), f.section("pod").number("supply_setpoint"),
                                               initial_temperature_);
  auto hall = std::make_unique<HallAir>(layout, std::move(room), *racks, initial_temperature_, initial_temperature_);
  auto plant = std::make_unique<FacilityWaterPlant>(plant_parameters, plant_economizer(f.section("plant"), plant_parameters),
                                                    *weather_, *hall, pods.get(), layout.pods(), initial_temperature_);
  plates->connect(*headers);
  headers->connect([loop = pods.get()](std::size_t pod) { return loop->supply_index(pod); },
                   [rack_loop = racks.get()](std::size_t r) { return rack_loop->outlet_index(r); });
  racks->connect(*hall);
  pods->connect(*plant);
  hall->connect(*plant);

  gpus_ = &system_.add(std::move(gpus));
  plates_ = &system_.add(std::move(plates));
  racks_ = &system_.add(std::move(racks));
  air_source_ = racks_;
  headers_ = &system_.add(std::move(headers));
  pods_ = &system_.add(std::move(pods));
  hall_ = &system_.add(std::move(hall));
  plant_ = &system_.add(std::move(plant));
  job_ = &system_.add(std::move(job));
}

void FacilitySite::finish_assembly() {
  // The feed's lineups are the pods: the job sums its GPUs' power per pod at every update.
  if (job_ != nullptr) job_->sum_power_by_group(layout_->gpus() / layout_->pods());
  system_.assemble();
  // Where the outputs the site reads at each sample sit in the output buffer.
  for (const auto& slot : system_.outputs()) {
    if (slot.spec.group == "gpu" && slot.spec.name == "power") gpu_power_slot_ = slot.first_value;
    if (slot.spec.group == "rack" && slot.spec.name == "coolant_flow") rack_flow_slot_ = slot.first_value;
    if (slot.spec.group == "server" && slot.spec.name == "fan_speed_written") fan_speed_slot_ = slot.first_value;
  }
  set_psu_loss();

  // ASHRAE TC 9.9, Thermal Guidelines for Data Processing Environments, 5th ed. (2021): class A1
  // allowable server inlet dry bulb 15-32 degC (recommended 18-27 degC for all A classes).
  cold_aisle_check_ = envelope_.add({"cold_aisle_ashrae_a1", "cold-aisle (server inlet) air temperature",
                                     "ASHRAE class A1 allowable 15-32 degC", "K", 288.15, 305.15});
  const double hbm_limit = gpus_->parameters().hbm_max_operating_temperature;
  hbm_check_ = envelope_.add({"gpu_hbm_max_operating", "hottest HBM temperature",
                              "the HBM's max operating temperature (" + degrees_celsius(hbm_limit) + ")",
                              "K", -std::numeric_limits<double>::infinity(), hbm_limit});
  if (const auto* tower = std::get_if<hx::CoolingTower>(&plant_->economizer().heat_rejection())) {
    // The approach correlation holds for this wet-bulb range only (EnergyPlus Engineering
    // Reference, cooling tower correlation limits); outside it the tower is evaluated at the
    // nearer edge, which the report counts here.
    const hx::TowerCorrelationData& data = hx::correlation_data(tower->parameters().correlation);
    wet_bulb_check_ = envelope_.add({"cooling_tower_wet_bulb", "outdoor wet bulb",
                                     "the cooling tower correlation's range (" + degrees_celsius(data.min_wet_bulb + 273.15) +
                                         " to " + degrees_celsius(data.max_wet_bulb + 273.15) +
                                         "; the tower is evaluated at the nearer edge outside it)",
                                     "K", data.min_wet_bulb + 273.15, data.max_wet_bulb + 273.15});
    // The other inputs of the correlation, used as they are outside their ranges (the same
    // EnergyPlus limits): the range, the model tower's water flow ratio, and for YorkCalc the
    // liquid-to-gas ratio FR_water / FR_air, where the air flow ratio is raised so that L/G <= 8
    // (a clamp: the tower then moves more air than its fan speed gives).
    const std::string correlation = std::string(hx::correlation_name(tower->parameters().correlation));
    tower_range_check_ = envelope_.add({"cooling_tower_range", "cooling tower range (full-fan range with the fan off)",
                                        "the " + correlation + " correlation's range " + format_number(data.min_range) +
                                            " to " + format_number(data.max_range) + " K",
                                        "K", data.min_range, data.max_range});
    tower_flow_check_ = envelope_.add({"cooling_tower_water_flow_ratio", "cooling tower water flow ratio",
                                       "the " + correlation + " correlation's range " +
                                           format_number(data.min_water_flow_ratio) + " to " +
                                           format_number(data.max_water_flow_ratio),
                                       "1", data.min_water_flow_ratio, data.max_water_flow_ratio});
    // The approach the polynomial gives, before the model floors it at 0 K (a polynomial can
    // dip below zero at small ranges and cold wet bulbs; a tower cannot cool below the wet bulb).
    tower_approach_check_ =
        envelope_.add({"cooling_tower_approach", "cooling tower approach (the correlation's, before the floor at 0 K)",
                       "the " + correlation + " correlation's range " + format_number(data.min_approach) + " to " +
                           format_number(data.max_approach) + " K",
                       "K", data.min_approach, data.max_approach});
    if (std::isfinite(data.max_liquid_to_gas_ratio))
      tower_lg_check_ = envelope_.add({"cooling_tower_liquid_to_gas", "cooling tower liquid-to-gas ratio",
                                       "the " + correlation + " correlation's limit " +
                                           format_number(data.max_liquid_to_gas_ratio) +
                                           " (the air flow ratio is raised to meet it above)",
                                       "1", 0.0, data.max_liquid_to_gas_ratio});
  }
  // ASHRAE liquid-cooling classes (TC 9.9, Thermal Guidelines, 5th ed., 2021): W17, W27, W32,
  // W40, W45 name the highest facility water supply temperature [degC] the IT equipment of that
  // class is built for (W+: above 45 degC). The plant is held to the lowest class that holds its
  // set-point: a supply above it (unmet load, a plant that cannot reach its set-point) is counted.
  const double setpoint = plant_->parameters().supply_setpoint;
  for (const int w : {17, 27, 32, 40, 45}) {
    const double limit = 273.15 + w;
    if (setpoint > limit) continue;
    facility_water_check_ = envelope_.add(
        {"facility_water_ashrae_class", "facility water supply temperature",
         "ASHRAE class W" + std::to_string(w) + " (<= " + std::to_string(w) + " degC), the class of the plant's set-point " +
             degrees_celsius(setpoint),
         "K", -std::numeric_limits<double>::infinity(), limit});
    break;
  }
  if (servers_ != nullptr && fan_speed_slot_) {
    // Server fans at the controller's highest speed: the air path has no cooling left to add,
    // the next degree of heat goes into the GPUs (a clamp of the fan controller's output).
    fans_full_check_ = envelope_.add({"server_fans_at_full_speed", "number of servers with fans at full speed",
                                      "none at the fan controller's max_speed " + format_number(servers_->max_fan_speed()),
                                      "1", 0.0, 0.0});
  }
  // The chiller's performance curves end at a highest entering condenser temperature (the DOE-2
  // centrifugal set: 35 degC, EnergyPlus' curve limits, docs/models/hx.md); above it the chiller
  // is evaluated at that edge, which makes it look better than it would be, so the report counts
  // it while the chiller carries load. Below the curves' lowest condenser temperature and above
  // their highest chilled-water temperature the edge makes it look worse (less capacity, a lower
  // COP): model ranges, reported but not limits (every warm-water plant sits above the curves'
  // 10 degC). A set-point below their lowest chilled water (5 degC) is evaluated at that edge,
  // which overstates the chiller: a limit, as the high condenser water is.
  const hx::ChillerCurves& curves = plant_->economizer().chiller().parameters().curves;
  condenser_check_ = envelope_.add(
      {"chiller_condenser_water", "condenser water entering the chiller while it carries load",
       "the chiller curves' highest entering condenser temperature (" +
           degrees_celsius(curves.max_entering_condenser_temperature) +
           "; the chiller is evaluated at that edge above it)",
       "K", -std::numeric_limits<double>::infinity(), curves.max_entering_condenser_temperature});
  condenser_low_check_ = envelope_.add(
      {"chiller_condenser_water_low", "condenser water entering the chiller while it carries load",
       "the chiller curves' lowest entering condenser temperature (" +
           degrees_celsius(curves.min_entering_condenser_temperature) +
           "; the chiller is evaluated at that edge below it, which understates its COP)",
       "K", curves.min_entering_condenser_temperature, std::numeric_limits<double>::infinity(), false});
  chilled_water_check_ = envelope_.add(
      {"chiller_chilled_water", "chilled water leaving the chiller (the plant's set-point) while it carries load",
       "the chiller curves' highest leaving chilled water temperature (" +
           degrees_celsius(curves.max_leaving_chilled_water_temperature) +
           "; the chiller is evaluated at that edge above it, which understates its capacity and COP)",
       "K", -std::numeric_limits<double>::infinity(), curves.max_leaving_chilled_water_temperature, false});
  chilled_water_low_check_ = envelope_.add(
      {"chiller_chilled_water_low", "chilled water leaving the chiller (the plant's set-point) while it carries load",
       "the chiller curves' lowest leaving chilled water temperature (" +
           degrees_celsius(curves.min_leaving_chilled_water_temperature) +
           "; the chiller is evaluated at that edge below it, which overstates its capacity and COP)",
       "K", curves.min_leaving_chilled_water_temperature, std::numeric_limits<double>::infinity()});
  // The chillers at their capacity (times the largest part-load ratio) leave the rest of the
  // facility water's load unmet and the supply floats above its set-point.
  chiller_capacity_check_ = envelope_.add({"plant_unmet_load", "facility water load the plant leaves unmet",
                                           "none (the chillers at their capacity leave the rest; the supply rises "
                                           "above its set-point)",
                                           "W", -std::numeric_limits<double>::infinity(), 0.0});
}

void FacilitySite::set_psu_loss() {
  // The servers' heat is what they draw at their inlets (the IT power boundary): their parts' DC
  // load P_dc plus their PSUs' conversion loss P_dc (1 / eta(x) - 1), eta the PSU curve
  // (electrical.psu) at the load fraction x of the active supplies. The thermal model takes that
  // loss at the step-mean load: each GPU at its power averaged over the training step (the
  // discrete state the steady start uses) with its leakage at the reference temperature, plus
  // facility.server.air_heat (air-cooled: plus the server's fan power). The electrical feed
  // converts the actual load at every step; the difference between the two over a run is
  // server_heat_boundary_error in the summary.
  std::vector<double> discrete = system_.initial_discrete();
  job_->averaged_discrete(discrete.data());
  const solver::EvalContext ctx{settings_.start_time, settings_.start_time, discrete.data()};
  const auto& gp = gpus_->parameters();
  double gpu_power = 0.0;
  gpus_->for_each_power(0, gpus_->count(), ctx, [&](std::size_t g, bool on, double power) {
    if (on) gpu_power += power + gpus_->spread(g).leakage_scale * gp.leakage_power_at_reference;
  });
  const double servers = static_cast<double>(layout_->servers());
  const double other = servers_ != nullptr
                           ? servers_->other_heat()
                           : server_air_heat_per_rack_ / static_cast<double>(layout_->servers_per_rack());
  psu_design_load_ = gpu_power / servers + other;
  const electrical::PsuBank psu(psu_, 1);
  psu_loss_per_server_ = psu_design_load_ * (1.0 / psu.efficiency(psu_design_load_) - 1.0);
  // Air cooling: each server's fan power (at its rotors' speed at the time) joins the DC load
  // the loss is taken at.
  if (servers_ != nullptr) servers_->set_psu(psu_, psu_design_load_);
  if (racks_ != nullptr)
    racks_->add_server_air_heat(static_cast<double>(layout_->servers_per_rack()) * psu_loss_per_server_);
}

std::vector<double> FacilitySite::pod_gpu_power(double t, const double* d, const std::vector<double>& leakage) const {
  const solver::EvalContext ctx{t, t, d};
  const std::size_t per_pod = layout_->gpus() / layout_->pods();
  // Each pod's GPUs, summed per block of GPUs (and then over the blocks in order).
  workload::TrainingJob::GroupPowerSums pod_sums;
  solver::for_each_block(gpus_->count(), [&](const solver::BlockRange& block) {
    std::vector<double>& sums = pod_sums[block.block];
    sums.assign(layout_->pods(), 0.0);
    gpus_->for_each_power(block.first, block.last, ctx, [&](std::size_t g, bool on, double power) {
      sums[g / per_pod] += on ? power + leakage[g] : 0.0;
    });
  });
  return pod_gpu_power(pod_sums);
}

std::vector<double> FacilitySite::pod_gpu_power(const workload::TrainingJob::GroupPowerSums& pod_sums) const {
  std::vector<double> power(layout_->pods(), 0.0);
  for (const auto& sums : pod_sums)
    for (std::size_t pod = 0; pod < sums.size(); ++pod) power[pod] += sums[pod];
  return power;
}

double FacilitySite::stepped_cooling_power(double t, bool before) const {
  if (pods_ == nullptr) return 0.0;  // air-cooled: no pod pumps, no doors
  const auto& phases = flows_->phases();
  std::size_t k = flows_->phase_index(t);
  if (before && k > 0 && phases[k].start >= t) --k;  // the phase that ends at t
  double power = static_cast<double>(layout_->racks()) * racks_->door_fan_power();
  for (double p : phases[k].pod_pump_power) power += p;
  return power;
}

void FacilitySite::knot(double t, const std::vector<double>& x, const std::vector<double>& before,
                        const std::vector<double>& after) {
  if (!feed_ || t <= held_until_) return;  // not started yet (it starts at the first sample)
  // Both sides are the same load unless the update changed some GPU's power (most ticks do not).
  // (The job knows whether its updates at t touched those inputs; only then are they compared.)
  const bool same = &before == &after || (job_ != nullptr && (!job_->power_inputs_changed_at(t) ||
                                                              job_->same_power(before.data(), after.data())));
  // After the job's update at t its per-pod sums are this side's load, summed in the same order
  // from the same leakage (the same x): no second pass over the GPUs.
  const workload::TrainingJob::GroupPowerSums* after_sums = job_ != nullptr ? job_->power_by_group(t) : nullptr;
  HeldKnot held;
  held.t = t;
  held.smooth_cooling = plant_->operating_point(t, x.data()).total_power + crah_fan_power();
  // The fans' speed is continuous at a write when their rotors lag (tau > 0): then the two sides
  // are the same; with tau = 0 it steps at the knot, as the GPUs' power does.
  held.other_before = pod_other_it_power(t, before.data());
  const bool fans_step = servers_ != nullptr && !servers_->updates_are_continuous();
  held.other_after = &before != &after && fans_step ? pod_other_it_power(t, after.data()) : held.other_before;
  if (after_sums != nullptr && same) {
    held.gpu_before = pod_gpu_power(*after_sums);
    held.gpu_after = held.gpu_before;
  } else {
    // The leakage depends on x only: once for both sides of the knot.
    gpus_->leakage_powers(x.data(), knot_leakage_);
    held.gpu_before = pod_gpu_power(t, before.data(), knot_leakage_);
    if (same) held.gpu_after = held.gpu_before;
    else held.gpu_after = after_sums != nullptr ? pod_gpu_power(*after_sums) : pod_gpu_power(t, after.data(), knot_leakage_);
  }
  held_knots_.push_back(std::move(held));
  held_until_ = t;
}

double FacilitySite::crah_fan_power() const {
  const auto& crah = hall_->room().crah_parameters();
  return static_cast<double>(layout_->pods()) * crah.count * crah.rated_fan_power;
}

std::vector<double> FacilitySite::pod_other_it_power(double t, const double* d) const {
  const std::size_t pods = layout_->pods();
  std::vector<double> power(pods, 0.0);
  if (servers_ != nullptr) {
    const double other = static_cast<double>(layout_->servers() / pods) * servers_->other_heat();
    servers_->add_pod_fan_power(solver::EvalContext{t, t, d}, power);
    for (double& p : power) p += other;
  } else {
    for (double& p : power) p = static_cast<double>(layout_->racks_per_pod()) * server_air_heat_per_rack_;
  }
  return power;
}

void FacilitySite::advance_feed_to_sample() {
  // The plant's power and the CRAH fans from the thermal state at each knot (the plant follows
  // the facility water's return), the servers' fans from the discrete state there (their speed in
  // closed form); pumps and door fans step at their flow phases, taken at each knot's own time.
  const std::size_t pods = layout_->pods();
  for (const HeldKnot& k : held_knots_) {
    electrical::FeedLoad left;
    left.it.resize(pods);
    for (std::size_t p = 0; p < pods; ++p) left.it[p] = k.other_before[p] + k.gpu_before[p];
    left.mechanical = k.smooth_cooling + stepped_cooling_power(k.t, true);
    feed_->advance(k.t, feed_right_, left);
    feed_right_ = left;
    for (std::size_t p = 0; p < pods; ++p)
      feed_right_.it[p] += (k.gpu_after[p] - k.gpu_before[p]) + (k.other_after[p] - k.other_before[p]);
    feed_right_.mechanical = k.smooth_cooling + stepped_cooling_power(k.t, false);
  }
  held_knots_.clear();
}

std::vector<electrical::GridSample> FacilitySite::take_grid_samples() {
  if (!feed_) return {};
  std::vector<electrical::GridSample> samples = feed_->samples();
  feed_->clear_samples();
  return samples;
}

std::vector<double> FacilitySite::initial_state() const {
  if (start_from_steady_state_) {
    // The steady state of the step's mean power, not of its first phase (see TrainingJob).
    std::vector<double> discrete = system_.initial_discrete();
    job_->averaged_discrete(discrete.data());
    try {
      return solver::solve_steady_state(system_, settings_.start_time, discrete);
    } catch (const solver::SolverError& e) {
      // The steady start holds every GPU at its top clock, without the board power cap and the
      // thermal slowdown the governors enforce once the run starts, so a GPU whose leakage
      // L = L_ref exp(k (T_j - T_ref)) outgrows what its cooling removes runs away here; in the
      // run the governors may hold it (a lower clock) or not (leakage alone can outgrow the sink).
      const solver::StateRange junctions = gpus_->junction_states();
      if (e.state() < junctions.first || e.state() >= junctions.first + junctions.count) throw;
      const auto gpu = static_cast<std::size_t>(e.state() - junctions.first);
      solver::SolverError explained(
          e.function(), e.detail() + ". GPU " + layout_->gpu_labels()[gpu] +
                            " has no steady state at its top clock: the steady start holds every GPU there, at the "
                            "step's mean activity, without the power cap and thermal slowdown the governors apply in "
                            "the run, and this GPU's leakage grows faster with temperature than its cooling removes "
                            "heat; start from simulation.initial_state: supply_temperature to see whether the "
                            "governors hold it in the run");
      explained.set_state(e.state());
      throw explained;
    }
  }
  return system_.initial_state();
}

double FacilitySite::stored_energy(const std::vector<double>& x) const {
  const double* v = x.data();
  double e = gpus_->stored_energy(v) + hall_->stored_energy(v) + plant_->stored_energy(v);
  if (servers_ != nullptr) e += servers_->stored_energy(v);
  if (plates_ != nullptr)
    e += plates_->stored_energy(v) + racks_->stored_energy(v) + headers_->stored_energy(v) + pods_->stored_energy(v);
  return e;
}

double FacilitySite::heat_generated(const std::vector<double>& x) const {
  auto at = [&](solver::Index i) { return x[static_cast<std::size_t>(i)]; };
  double e = at(gpus_->heat_generated_index()) + air_source_->heat_generated(x.data()) + at(hall_->fan_heat_index());
  if (pods_ != nullptr) e += at(pods_->pump_heat_index());
  return e;
}

void FacilitySite::observe(double t, const std::vector<double>& x, const std::vector<double>& outputs) {
  const double* v = x.data();
  double hottest = v[gpus_->junction_index(0)], coolest = hottest, hbm = v[gpus_->hbm_index(0)];
  for (std::size_t g = 0; g < gpus_->count(); ++g) {
    const double tj = v[gpus_->junction_index(g)];
    hottest = std::max(hottest, tj);
    coolest = std::min(coolest, tj);
    hbm = std::max(hbm, v[gpus_->hbm_index(g)]);
  }
  double cold = v[hall_->cold_index(0)], coldest = cold;
  for (std::size_t p = 1; p < layout_->pods(); ++p) {
    cold = std::max(cold, v[hall_->cold_index(p)]);
    coldest = std::min(coldest, v[hall_->cold_index(p)]);
  }
  // The coolant supplied to the IT equipment: pod coolant (liquid) or facility water (air).
  double supply = v[plant_->supply_index()];
  if (pods_ != nullptr) {
    supply = v[pods_->supply_index(0)];
    for (std::size_t p = 1; p < layout_->pods(); ++p) supply = std::max(supply, v[pods_->supply_index(p)]);
  }
  const auto plant = plant_->operating_point(t, v);
  const double cooling_power = plant.total_power + crah_fan_power() + stepped_cooling_power(t, false);
  // The non-GPU IT power per pod (the electrical feed's lineups are the pods).
  const std::size_t pods = layout_->pods(), servers_per_pod = layout_->servers() / pods;
  pod_other_it_power_.assign(pods, 0.0);
  if (servers_ != nullptr) {
    // Server fans are part of the servers' (IT) power.
    for (double& p : pod_other_it_power_) p = static_cast<double>(servers_per_pod) * servers_->other_heat();
    const auto& slots = system_.outputs();
    for (const auto& slot : slots) {
      if (slot.spec.group != "server" || slot.spec.name != "fan_power") continue;
      for (std::size_t s = 0; s < layout_->servers(); ++s)
        pod_other_it_power_[s / servers_per_pod] += outputs[slot.first_value + s];
    }
  } else {
    for (double& p : pod_other_it_power_) p = static_cast<double>(layout_->racks_per_pod()) * server_air_heat_per_rack_;
  }
  if (feed_) {
    advance_feed_to_sample();
    feed_->set_ambient_temperature(weather_->dry_bulb_at(t));
  }
  if (electrical_ && !feed_) {
    // The feed starts at the first sample, in steady state at the load then.
    electrical::FeedLoad load;
    load.it = pod_other_it_power_;
    load.mechanical = cooling_power;
    const std::size_t per_pod = layout_->gpus() / pods;
    for (std::size_t g = 0; g < gpus_->count(); ++g) load.it[g / per_pod] += outputs[gpu_power_slot_ + g];
    feed_ = std::make_unique<electrical::ElectricalFeed>(*electrical_, pods, servers_per_pod, layout_->racks_per_pod(),
                                                         weather_->dry_bulb_at(t), t, load);
    feed_right_ = load;
    held_until_ = t;
  }
  {
    // The aisle furthest outside the band: the coolest when it is further below than the hottest is above.
    const EnvelopeCheck& aisles = envelope_.check(cold_aisle_check_);
    envelope_.observe(cold_aisle_check_, t, aisles.low - coldest > cold - aisles.high ? coldest : cold);
    envelope_.observe(hbm_check_, t, hbm);
    if (wet_bulb_check_) envelope_.observe(*wet_bulb_check_, t, weather_->wet_bulb_at(t));
    // With the chiller off its curves are not used: the outdoor wet bulb, below any condenser
    // water temperature a tower or dry cooler reaches, stands for that sample.
    envelope_.observe(condenser_check_, t,
                      plant.chiller_heat_flow > 0.0 ? plant.condenser_water_temperature : weather_->wet_bulb_at(t));
    if (plant.chiller_heat_flow > 0.0) {
      envelope_.observe(condenser_low_check_, t, plant.condenser_water_temperature);
      envelope_.observe(chilled_water_check_, t, plant_->parameters().supply_setpoint);
      envelope_.observe(chilled_water_low_check_, t, plant_->parameters().supply_setpoint);
    } else {
      envelope_.not_applicable(condenser_low_check_, t);
      envelope_.not_applicable(chilled_water_check_, t);
      envelope_.not_applicable(chilled_water_low_check_, t);
    }
    if (tower_range_check_) {
      const auto& economizer = plant_->economizer();
      const auto& tower = std::get<hx::CoolingTower>(economizer.heat_rejection());
      const auto point = tower.evaluate_for_load(weather_->wet_bulb_at(t), plant.heat_rejected,
                                                 economizer.parameters().condenser_water_flow, plant.fan_speed);
      envelope_.observe(*tower_range_check_, t, point.correlation_range);
      envelope_.observe(*tower_flow_check_, t, point.water_flow_ratio);
      if (tower_lg_check_) envelope_.observe(*tower_lg_check_, t, point.correlation_liquid_to_gas);
      envelope_.observe(*tower_approach_check_, t, point.correlation_approach);
    }
    envelope_.observe(chiller_capacity_check_, t, plant.unmet_heat_flow);
    if (facility_water_check_) envelope_.observe(*facility_water_check_, t, x[plant_->supply_index()]);
    if (fans_full_check_) {
      const double full = servers_->max_fan_speed();
      const auto first = outputs.begin() + static_cast<std::ptrdiff_t>(*fan_speed_slot_);
      const auto at_full = std::count_if(first, first + static_cast<std::ptrdiff_t>(layout_->servers()),
                                         [full](double speed) { return speed >= full - 1e-12; });
      envelope_.observe(*fans_full_check_, t, static_cast<double>(at_full));
    }
  }
  double flow_min = 0.0, flow_max = 0.0;
  if (rack_flow_slot_) {
    const auto first = outputs.begin() + static_cast<std::ptrdiff_t>(*rack_flow_slot_);
    const auto [low, high] = std::minmax_element(first, first + static_cast<std::ptrdiff_t>(layout_->racks()));
    flow_min = *low;
    flow_max = *high;
  }
  if (first_sample_) {
    rack_flow_min_ = flow_min;
    rack_flow_max_ = flow_max;
    junction_max_ = hottest;
    hbm_max_ = hbm;
    supply_max_ = supply;
    cold_aisle_max_ = cold;
    first_sample_ = false;
  } else {
    const double dt = t - last_t_;
    plant_energy_ += 0.5 * dt * (cooling_power + last_cooling_power_);
    junction_max_ = std::max(junction_max_, hottest);
    hbm_max_ = std::max(hbm_max_, hbm);
    supply_max_ = std::max(supply_max_, supply);
    cold_aisle_max_ = std::max(cold_aisle_max_, cold);
    rack_flow_min_ = std::min(rack_flow_min_, flow_min);
    rack_flow_max_ = std::max(rack_flow_max_, flow_max);
  }
  if (time_to_limit_ < 0.0 && first_failure_time_ >= 0.0 && t >= first_failure_time_ &&
      hottest > gpus_->parameters().max_operating_temperature)
    time_to_limit_ = t - first_failure_time_;
  junction_spread_ = hottest - coolest;
  last_t_ = t;
  last_cooling_power_ = cooling_power;
}

std::vector<core::SummaryFigure> FacilitySite::summary(const std::vector<double>& x0, const std::vector<double>& x,
                                                         const std::vector<double>& discrete) const {
  const double generated = heat_generated(x);
  const double rejected = x[static_cast<std::size_t>(plant_->heat_rejected_index())];
  const double stored_change = stored_energy(x) - stored_energy(x0);
  const double imbalance = generated - rejected - stored_change;
  const double duration = last_t_ - settings_.start_time;
  // IT energy as the thermal model has it, at the server inlets: the GPUs' heat and the rest of the
  // servers' (parts, fans and PSU loss), from the accumulators (exact integrals, not the samples).
  auto at = [](const std::vector<double>& v, solver::Index i) { return v[static_cast<std::size_t>(i)]; };
  double server_heat = at(x, gpus_->heat_generated_index()) - at(x0, gpus_->heat_generated_index());
  if (servers_ != nullptr) server_heat += servers_->heat_generated(x.data()) - servers_->heat_generated(x0.data());
  else server_heat += static_cast<double>(layout_->racks()) * racks_->server_air_heat() * duration;
  // With the feed: the energies at its 1-ms steps; PUE = total facility energy (the utility's) /
  // IT energy (at the server inlets), The Green Grid, White Paper #49 (2012), PUE category 3.
  // (Only when the feed covers the run: it advances at the knots an observer forwards.)
  std::optional<electrical::FeedEnergy> fed;
  if (feed_ && feed_->time() >= last_t_ - 1e-9 * std::max(1.0, std::abs(last_t_))) fed = feed_->energy();
  const double it_energy = fed ? fed->server_input : server_heat;
  const double cooling_energy = fed ? fed->mechanical : plant_energy_;
  const double facility_energy = fed ? fed->grid : it_energy + cooling_energy;
  std::vector<core::SummaryFigure> s = {
      {"gpu_junction_temperature_max", junction_max_, "K", "hottest GPU junction over the run (samples)"},
      {"gpu_hbm_temperature_max", hbm_max_, "K", "hottest HBM over the run (samples)"},
      {"gpu_junction_temperature_spread", junction_spread_, "K", "hottest minus coolest GPU junction at the end"},
      {"coolant_supply_temperature_max", supply_max_, "K",
       "highest coolant supply to the IT equipment: pod coolant (liquid cooling) or facility water (air cooling)"},
      {"cold_aisle_temperature_max", cold_aisle_max_, "K", "highest cold-aisle (server inlet) air temperature"},
      {"it_power_mean", duration > 0.0 ? it_energy / duration : 0.0, "W",
       "mean IT power at the server inlets: GPUs, the servers' other parts and fans, and their PSU losses"},
      {"cooling_power_mean", duration > 0.0 ? cooling_energy / duration : 0.0, "W",
       "mean cooling power: plant, pod pumps, CRAH and door fans"},
      {"it_energy", it_energy, "J",
       "IT energy: what the servers drew at their inlets (PSU inputs), PSU losses and server fans included"},
      {"cooling_energy", cooling_energy, "J", "cooling energy: plant, pod pumps, CRAH and door fans"},
      {"facility_energy", facility_energy, "J",
       fed ? "total facility energy drawn from the utility: IT, cooling and the electrical chain's losses"
           : "total facility energy: IT and cooling (no electrical feed simulated: its losses are left out)"},
      {"pue", it_energy > 0.0 ? facility_energy / it_energy : 0.0, "1",
       fed ? "power usage effectiveness, total facility energy / IT energy at the server inlets (The Green Grid)"
           : "power usage effectiveness without the electrical chain's losses (no feed simulated), "
             "(IT + cooling) / IT"},
      {"server_heat_boundary_error", it_energy > 0.0 ? (server_heat - it_energy) / it_energy : 0.0, "1",
       "(server heat in the thermal model - IT energy at the server inlets) / IT energy; the thermal model "
       "takes the PSU loss at the step-mean load"},
      {"heat_generated", generated, "J", "heat of GPUs, other server parts, pumps and fans"},
      {"heat_rejected", rejected, "J", "heat rejected outdoors by the plant"},
      {"stored_energy_change", stored_change, "J", "change of thermal energy stored in the site"},
      {"energy_balance_relative_error", generated > 0.0 ? std::abs(imbalance) / generated : std::abs(imbalance), "1",
       "|generated - rejected - stored change| / generated"},
      {"limit_violations",
       (junction_max_ > gpus_->parameters().max_operating_temperature ? 1.0 : 0.0) +
           static_cast<double>(envelope_.violated()),
       "1", "limit checks failed: GPU max operating temperature and the operating envelopes (envelope_*)"},
      {"model_range_clamps", static_cast<double>(envelope_.model_ranges_left()), "1",
       "models evaluated at the edge of their data, which understates them (model_range_*): checks left"},
  };
  if (envelope_.model_ranges_left() > 0) {
    // The model ranges are the chiller curves' edges; held there, the chiller's COP is understated
    // (docs/models/facility.md, "Model ranges"), so the cooling figures overstate the plant's power.
    for (auto& figure : s)
      if (figure.name == "pue" || figure.name == "cooling_energy" || figure.name == "cooling_power_mean" ||
          figure.name == "facility_energy")
        figure.long_name += "; an upper bound: the chiller ran outside its curves' data and was evaluated at "
                            "their edge (model_range_*)";
  }
  for (auto& figure : envelope_.summary()) s.push_back(std::move(figure));
  if (rack_flow_slot_) {
    // Over the samples, as the series /rack/coolant_flow: maldistribution and pump failures alike.
    s.push_back({"rack_coolant_flow_min", rack_flow_min_, "m3/s",
                 "lowest coolant flow of any rack over the run (samples; maldistribution and pump failures)"});
    s.push_back({"rack_coolant_flow_max", rack_flow_max_, "m3/s", "highest coolant flow of any rack over the run (samples)"});
  }
  if (first_failure_time_ >= 0.0)
    s.push_back({"time_to_first_gpu_thermal_limit", time_to_limit_, "s",
                 "time from the first pump failure to the first GPU above its max operating temperature (-1: never)"});
  for (auto& figure : job_->summary(discrete.data(), duration)) s.push_back(std::move(figure));
  if (feed_) {
    // The utility's limits count with the GPUs' in limit_violations.
    double grid_violations = 0.0;
    // Without the pipeline stagger every GPU changes phase at one instant: the windows shorter than
    // the stage staircase ((S - 1) t_f, about 0.2 s) see a single edge, steeper than the schedule's
    // (docs/models/electrical-metrics.md, "The stagger sets the edges").
    const bool edges_unstaggered = job_->plan().stagger_left_out;
    for (auto& figure : feed_->summary()) {
      if (figure.name == "grid_limit_violations") grid_violations = figure.value;
      if (edges_unstaggered && (figure.name == "grid_ramp_rate_max_10ms" || figure.name == "grid_ramp_rate_max_100ms"))
        figure.long_name += "; an upper bound: the pipeline stagger is off (workload.job.pipeline_stagger), so "
                            "every GPU changes phase at the same instant";
      s.push_back(std::move(figure));
    }
    for (auto& figure : s)
      if (figure.name == "limit_violations") {
        figure.value += grid_violations;
        figure.long_name =
            "limit checks failed: GPU max operating temperature, the operating envelopes (envelope_*) and the "
            "utility's limits (grid_limit_*)";
      }
    double storage_losses = 0.0;
    for (const auto& [stage, loss] : feed_->energy().loss_by_stage)
      if (stage == "capacitor_storage" || stage == "battery_storage") storage_losses += loss;
    const double overhead = job_->accounts(discrete.data()).smoothing_energy + storage_losses;
    s.push_back({"mitigation_energy_overhead", overhead, "J",
                 "energy the swing mitigations cost: GPU smoothing and fill above the work's demand plus storage losses"});
  }
  return s;
}

std::vector<std::string> FacilitySite::design_warnings() const {
  // The facility water carries all of the IT heat (liquid to the CDUs, air to the CRAH coils);
  // at the design flow the return sits at T_set + Q / (m c_p), and the plant must bring it back to
  // the set-point in every weather of the run.
  const double load = design_heat_load_;
  const double setpoint = plant_->parameters().supply_setpoint;
  const auto points = plant_->design_points(load, 0.0, settings_.end_time);
  const auto most_unmet = std::max_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return a.operating.unmet_heat_flow < b.operating.unmet_heat_flow;
  });
  const auto hottest_condenser = std::max_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return a.operating.condenser_water_temperature < b.operating.condenser_water_temperature;
  });
  const auto megawatts = [](double watts) { return fixed(watts / 1e6, 2) + " MW"; };
  const auto conditions = [&](double t) {
    const auto w = weather_->at(t);
    return "in the weather at t = " + fixed(t / 3600.0, 2) + " h (dry bulb " + degrees_celsius(w.dry_bulb) +
           ", wet bulb " + degrees_celsius(w.wet_bulb) + ")";
  };
  const std::string design_load = std::to_string(design_gpus_) + " GPUs at their " + fixed(design_power_limit_, 0) +
                                  " W limit and " + std::to_string(design_servers_) + " servers' other DC load of " +
                                  fixed(design_air_heat_, 0) + " W (" + megawatts(load) + ")";
  std::vector<std::string> warnings;

  const double tolerance = 0.005 * load;
  if (most_unmet->operating.unmet_heat_flow > tolerance) {
    const auto& op = most_unmet->operating;
    // The lowest supply temperature the plant holds in that weather (bisection to 0.05 K; the
    // return rises with it, so the economizer carries more): where the supply floats to.
    const double ceiling = setpoint + 60.0;
    const auto holds = [&](double supply) {
      return plant_->steady_operation(most_unmet->time, load, supply).unmet_heat_flow <= tolerance;
    };
    std::string floats = "it holds no supply up to " + degrees_celsius(ceiling);
    if (holds(ceiling)) {
      double low = setpoint, high = ceiling;
      while (high - low > 0.05) {
        const double mid = 0.5 * (low + high);
        (holds(mid) ? high : low) = mid;
      }
      floats = "the lowest supply it holds there is " + degrees_celsius(high);
    }
    warnings.push_back("facility.plant cannot hold the " + degrees_celsius(setpoint) +
                       " supply set-point at the design load: " + design_load + ", " +
                       conditions(most_unmet->time) + ", leave " + megawatts(op.unmet_heat_flow) +
                       " unmet (economizer " + megawatts(op.economizer_heat_flow) + ", chiller " +
                       megawatts(op.chiller_heat_flow) + "); " + floats);
  }

  // The chiller's curves end at their highest entering condenser temperature; beyond it the model
  // holds the curves' edge, so a heat-rejection unit too small for the chiller's condenser heat
  // would go unnoticed. More than 5 K beyond the edge is reported.
  const double curve_limit = plant_->economizer().chiller().parameters().curves.max_entering_condenser_temperature;
  const auto& hot = hottest_condenser->operating;
  if (hot.chiller_heat_flow > tolerance && hot.condenser_water_temperature > curve_limit + 5.0) {
    const std::string unit = plant_->parameters().heat_rejection == "dry_cooler" ? "facility.plant.dry_cooler"
                                                                                 : "facility.plant.cooling_tower";
    warnings.push_back(unit + " is too small for the plant at the design load: " + design_load + ", " +
                       conditions(hottest_condenser->time) + ", need " + megawatts(hot.heat_rejected) +
                       " rejected, which takes its condenser water to " +
                       degrees_celsius(hot.condenser_water_temperature) + ", above the " +
                       degrees_celsius(curve_limit) +
                       " at which the chiller's performance curves end (the chiller is modelled as at " +
                       degrees_celsius(curve_limit) + ")");
  }
  return warnings;
}

}  // namespace dctwin::models::facility
