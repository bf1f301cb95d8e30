#include "dctwin/models/facility/single_node.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/hydraulic/pump.hpp"
#include "dctwin/models/thermal/air_cooled_server.hpp"

namespace dctwin::models::facility {

using core::ParameterTree;
using core::SectionSchema;

SectionSchema single_node_server_schema() {
  using namespace core;
  SectionSchema s;
  s.doc = "One server: its GPUs on cold plates";
  auto p = integer_parameter("gpu_count", "Number of GPUs in the server", 8.0,
                             "Grand Teton / HGX H100: 8 GPUs per server ([meta-llama3-2024])");
  at_least(p, 1.0);
  s.parameters.push_back(at_most(p, 64.0));
  s.sections["gpu"] = SectionSchema{"GPU package thermal model", thermal::GpuPackageParameters::table(), {}, {}, false};
  s.sections["cold_plate"] = SectionSchema{"Cold plate on each GPU", thermal::ColdPlateParameters::table(), {}, {}, false};
  s.lists["gpus"] = SectionSchema{"Per-GPU spread, one entry per GPU in order (optional)",
                                  thermal::GpuSpread::table(), {}, {}, false};
  s.parameters.push_back(choice_parameter(
      "cooling", {"cold_plate", "air"},
      "How the GPUs are cooled: cold plates on the loop (simulated by dctwin run), or heatsinks in the "
      "server's air stream (section air; replayed by dctwin validate and calibrate only)",
      std::string("cold_plate")));
  s.sections["air"] = thermal::AirCooledServerParameters::schema();
  return s;
}

SectionSchema single_node_loop_schema() {
  using namespace core;
  SectionSchema s;
  s.doc = "The server's coolant loop: pump, plates, piping, supply temperature";
  auto p = real_parameter("supply_temperature", "K", "Coolant supply temperature at the server inlet", 305.15,
                          "ASHRAE W32 class ([ashrae-tc99-2021])");
  p.display_unit = "degC";
  at_least(p, 273.15);
  s.parameters.push_back(at_most(p, 353.15));
  p = integer_parameter("plates_in_series", "Cold plates in series in each branch (1 = all in parallel)", 1.0);
  s.parameters.push_back(at_least(p, 1.0));
  p = real_parameter("piping_pressure_drop", "Pa",
                     "Pressure drop of hoses, manifolds and quick disconnects at the piping nominal flow", 20e3,
                     "Estimate; secondary loops run 0.5-3 bar over CDU and manifolds ([liquid-loop-practice])");
  p.display_unit = "kPa";
  s.parameters.push_back(at_least(p, 0.0));
  p = real_parameter("piping_nominal_flow", "m3/s", "Flow at which the piping pressure drop holds (dp ~ Q^2)",
                     1.4e-4, "8 GPUs x 700 W x 1.5 L/min per kW = 8.4 L/min (OCP guideline)");
  p.display_unit = "L/min";
  s.parameters.push_back(greater_than(p, 0.0));
  s.sections["coolant"] = SectionSchema{"Coolant properties (constant)", thermal::CoolantProperties::table(), {}, {}, false};
  s.sections["pump"] = SectionSchema{"Loop pump", hydraulic::PumpParameters::table(), {}, {}, false};
  return s;
}

SingleNodeSite::SingleNodeSite(const ParameterTree& scenario) : SingleNodeSite(scenario, nullptr) {}

SingleNodeSite::SingleNodeSite(const ParameterTree& scenario, std::shared_ptr<const thermal::GpuPowerSource> power)
    : external_power_(std::move(power)) {
  name_ = scenario.text("name");
  const ParameterTree& sim = scenario.section("simulation");
  settings_ = simulation_settings(sim);
  start_from_steady_state_ = sim.text("initial_state") == "steady_state";

  const ParameterTree& server = scenario.section("server");
  if (server.text("cooling") == "air")
    throw core::InputError(server.key_path("cooling") +
                                 " = air: the air-cooled server is replayed against telemetry by dctwin validate "
                                 "and dctwin calibrate; a run simulates the single node on its cold-plate loop only",
                             server.key_path("cooling"));
  const ParameterTree& loop = scenario.section("loop");
  const auto gpu_count = static_cast<std::size_t>(server.integer("gpu_count"));
  const auto series = static_cast<std::size_t>(loop.integer("plates_in_series"));

  // Topology checks the schema cannot express.
  const auto& gpu_entries = server.list("gpus");
  if (!gpu_entries.empty() && gpu_entries.size() != gpu_count) {
    throw core::InputError(server.key_path("gpus") + " has " + std::to_string(gpu_entries.size()) +
                                 " entries but " + server.key_path("gpu_count") + " = " +
                                 std::to_string(gpu_count) + " (inconsistent topology: one entry per GPU)",
                             server.key_path("gpus"));
  }
  if (gpu_count % series != 0) {
    throw core::InputError(loop.key_path("plates_in_series") + " = " + std::to_string(series) +
                                 " does not divide " + server.key_path("gpu_count") + " = " +
                                 std::to_string(gpu_count) + " (inconsistent topology: equal branches)",
                             loop.key_path("plates_in_series"));
  }

  std::vector<thermal::GpuSpread> spread(gpu_count);
  for (std::size_t i = 0; i < gpu_entries.size(); ++i) spread[i] = thermal::GpuSpread::from(gpu_entries[i]);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < gpu_count; ++i) labels.push_back("server0/gpu" + std::to_string(i));

  // Hydraulics: the pump against B parallel branches of S plates and the piping.
  const thermal::ColdPlate plate(thermal::ColdPlateParameters::from(server.section("cold_plate")));
  const hydraulic::Pump pump(hydraulic::PumpParameters::from(loop.section("pump")));
  const double branches = static_cast<double>(gpu_count / series);
  const double piping_dp = loop.number("piping_pressure_drop");
  const double piping_flow = loop.number("piping_nominal_flow");
  auto loop_dp = [&](double q) {
    return static_cast<double>(series) * plate.pressure_drop(q / branches) +
           piping_dp * (q / piping_flow) * (q / piping_flow);
  };
  const hydraulic::OperatingPoint op = hydraulic::operating_point(pump, loop_dp);
  pump_pressure_rise_ = op.pressure_rise;

  const double supply = loop.number("supply_temperature");
  auto gpus = std::make_unique<thermal::GpuPackageArray>(
      "gpus", thermal::GpuPackageParameters::from(server.section("gpu")), spread, labels, supply);
  const auto workload_parameters = workload::WorkloadParameters::from(scenario.section("workload"));
  std::unique_ptr<workload::TrainingJob> job;
  if (external_power_) {
    gpus->stop_on_shutdown(false);
    gpus->connect(*external_power_);
  } else {
    gpus->stop_on_shutdown(workload_parameters.on_gpu_shutdown == "end_run");
    job = std::make_unique<workload::TrainingJob>("job", workload_parameters, *gpus, settings_.end_time,
                                                  sim.unsigned_integer("seed"), "workload");
    gpus->connect(*job);
  }
  auto coolant = std::make_unique<thermal::CoolantChannel>(
      "coolant", *gpus, plate, thermal::CoolantProperties::from(loop.section("coolant")), series, op.flow,
      supply, supply);
  gpus->connect(*coolant);  // each GPU's base rejects heat to its plate's coolant
  gpus_ = &system_.add(std::move(gpus));
  coolant_ = &system_.add(std::move(coolant));
  if (job) job_ = &system_.add(std::move(job));
  system_.assemble();
}

const thermal::GpuPowerSource& SingleNodeSite::power_source() const {
  if (job_ != nullptr) return *job_;
  return *external_power_;
}

std::vector<double> SingleNodeSite::initial_state() const {
  if (start_from_steady_state_) {
    // The steady state of the step's mean power, not of its first phase (see TrainingJob); with a
    // power source, of its power at the start.
    std::vector<double> discrete = system_.initial_discrete();
    if (job_ == nullptr) return solver::solve_steady_state(system_, settings_.start_time, discrete);
    job_->averaged_discrete(discrete.data());
    return solver::solve_steady_state(system_, settings_.start_time, discrete);
  }
  return system_.initial_state();
}

double SingleNodeSite::stored_energy(const std::vector<double>& x) const {
  return gpus_->stored_energy(x.data()) + coolant_->stored_energy(x.data());
}

std::vector<double> SingleNodeSite::hand_steady_junction_temperatures(const std::vector<double>& d) const {
  const solver::EvalContext ctx{0.0, 0.0, d.data()};
  const std::size_t series = coolant_->count() / coolant_->branches();
  const double capacity_rate =
      coolant_->coolant().density * coolant_->branch_flow() * coolant_->coolant().specific_heat;
  const auto& gp = gpus_->parameters();
  std::vector<double> junction(gpus_->count());
  double inlet = coolant_->supply_temperature();
  for (std::size_t i = 0; i < gpus_->count(); ++i) {
    if (i % series == 0) inlet = coolant_->supply_temperature();
    const double p = power_source().power(i, ctx);
    const double r_jb = gpus_->spread(i).resistance_scale * gp.junction_to_base_resistance;
    const double r_down = 1.0 / capacity_rate + coolant_->plate_resistance(i);
    double tj = inlet + p * (r_down + r_jb);
    for (int iteration = 0; iteration < 100; ++iteration) {
      const double leak = gpus_->leakage_power(i, tj);
      const double residual = tj - inlet - (p + leak) * r_down - ((1.0 - gp.hbm_power_fraction) * p + leak) * r_jb;
      const double slope = 1.0 - gp.leakage_temperature_coefficient * leak * (r_down + r_jb);
      const double step = residual / slope;
      tj -= step;
      if (std::abs(step) < 1e-13 * tj) break;
    }
    junction[i] = tj;
    inlet += (p + gpus_->leakage_power(i, tj)) / capacity_rate;
  }
  return junction;
}

void SingleNodeSite::observe(double t, const std::vector<double>& x, const std::vector<double>&) {
  double hottest = x[static_cast<std::size_t>(gpus_->junction_index(0))];
  for (std::size_t i = 1; i < gpus_->count(); ++i)
    hottest = std::max(hottest, x[static_cast<std::size_t>(gpus_->junction_index(i))]);
  const double ret = coolant_->return_temperature(x.data());
  const bool above = hottest > gpus_->parameters().max_operating_temperature;
  if (first_sample_) {
    junction_max_ = hottest;
    return_max_ = ret;
    first_sample_ = false;
  } else {
    // Time above the limit from the samples: an interval counts fully when both of its ends are
    // above, half when one end is.
    if (above || last_above_) time_above_max_operating_ += (above && last_above_ ? 1.0 : 0.5) * (t - last_sample_time_);
    junction_max_ = std::max(junction_max_, hottest);
    return_max_ = std::max(return_max_, ret);
  }
  last_above_ = above;
  last_sample_time_ = t;
}

std::vector<core::SummaryFigure> SingleNodeSite::summary(const std::vector<double>& x0, const std::vector<double>& x,
                                                           const std::vector<double>& discrete) const {
  const double generated = x[static_cast<std::size_t>(gpus_->heat_generated_index())];
  const double removed = x[static_cast<std::size_t>(coolant_->heat_removed_index())];
  const double stored_change = stored_energy(x) - stored_energy(x0);
  const double imbalance = generated - removed - stored_change;
  const double relative = generated > 0.0 ? std::abs(imbalance) / generated : std::abs(imbalance);
  const double limit = gpus_->parameters().max_operating_temperature;
  const double duration = last_sample_time_ - settings_.start_time;
  std::vector<core::SummaryFigure> figures = {
      {"gpu_junction_temperature_max", junction_max_, "K", "hottest GPU junction temperature over the run (samples)"},
      {"gpu_junction_temperature_margin", limit - junction_max_, "K", "max operating temperature minus the hottest junction"},
      {"time_above_max_operating_temperature", time_above_max_operating_, "s", "time any GPU junction was above its max operating temperature (samples)"},
      {"coolant_supply_temperature_max", coolant_->supply_temperature(), "K", "highest coolant supply temperature"},
      {"coolant_return_temperature_max", return_max_, "K", "highest mixed coolant return temperature (samples)"},
      {"coolant_flow", coolant_->total_flow(), "m3/s", "coolant flow through the server (pump operating point)"},
      {"pump_pressure_rise", pump_pressure_rise_, "Pa", "pump pressure rise at the operating point"},
      {"gpu_power_mean", duration > 0.0 ? generated / duration : 0.0, "W", "mean total GPU power of the server (static, dynamic and leakage)"},
      {"heat_generated", generated, "J", "heat generated by the GPUs"},
      {"heat_removed", removed, "J", "heat carried away by the coolant"},
      {"stored_energy_change", stored_change, "J", "change of thermal energy stored in packages, plates and coolant"},
      {"energy_balance_relative_error", relative, "1", "|generated - removed - stored change| / generated"},
      {"limit_violations", junction_max_ > limit ? 1.0 : 0.0, "1", "limit checks failed (GPU max operating temperature)"},
  };
  if (job_ != nullptr)
    for (auto& figure : job_->summary(discrete.data(), duration)) figures.push_back(std::move(figure));
  return figures;
}

}  // namespace dctwin::models::facility
