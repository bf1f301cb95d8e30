#include "dctwin/models/hydraulic/pump_group.hpp"

#include <algorithm>
#include <memory>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"

namespace dctwin::models::hydraulic {

const char* to_string(PumpState state) noexcept {
  switch (state) {
    case PumpState::running: return "running";
    case PumpState::standby: return "standby";
    case PumpState::failed: return "failed";
  }
  return "?";
}

std::vector<PumpState> PumpGroupParameters::states() const {
  std::vector<PumpState> s(static_cast<std::size_t>(std::max(pump_count, 0)), PumpState::standby);
  int lost = 0;
  for (int i = 0; i < pump_count; ++i) {
    if (i < failed_count) {
      s[static_cast<std::size_t>(i)] = PumpState::failed;
      if (i < duty_count) ++lost;
    } else if (i < duty_count) {
      s[static_cast<std::size_t>(i)] = PumpState::running;
    }
  }
  if (standby_takeover) {
    for (int i = duty_count; i < pump_count && lost > 0; ++i) {
      if (s[static_cast<std::size_t>(i)] == PumpState::standby) {
        s[static_cast<std::size_t>(i)] = PumpState::running;
        --lost;
      }
    }
  }
  return s;
}

void PumpGroupParameters::validate(const std::string& path) const {
  const std::string p = path.empty() ? std::string() : path + ".";
  if (pump_count < 1)
    throw core::InputError(p + "pump_count = " + std::to_string(pump_count) + " (must be >= 1)", p + "pump_count");
  if (duty_count < 0 || duty_count > pump_count)
    throw core::InputError(p + "duty_count = " + std::to_string(duty_count) + " exceeds " + p +
                                 "pump_count = " + std::to_string(pump_count),
                             p + "duty_count");
  if (failed_count < 0 || failed_count > pump_count)
    throw core::InputError(p + "failed_count = " + std::to_string(failed_count) + " exceeds " + p +
                                 "pump_count = " + std::to_string(pump_count),
                             p + "failed_count");
}

core::SectionSchema PumpGroupParameters::schema(const PumpGroupParameters& d, const std::string& sizing_source) {
  using namespace core;
  SectionSchema s;
  s.doc = "Group of identical pumps in parallel with N+1 redundancy and check valves";
  auto p = integer_parameter("pump_count", "Pumps installed", d.pump_count, "N+1: one more than the duty");
  s.parameters.push_back(at_least(p, 1.0));
  p = integer_parameter("duty_count", "Pumps commanded to run", d.duty_count, "N+1 redundancy");
  s.parameters.push_back(at_least(p, 0.0));
  p = integer_parameter("failed_count", "Pumps that have failed (the first ones)", d.failed_count, "");
  s.parameters.push_back(at_least(p, 0.0));
  s.parameters.push_back(boolean_parameter("standby_takeover", "Standby pumps start in place of failed duty pumps",
                                           d.standby_takeover));
  s.parameters.push_back(boolean_parameter("check_valves", "A check valve behind every pump", d.check_valves));
  s.sections["pump"] = SectionSchema{"One pump of the group", PumpParameters::table(d.pump, sizing_source), {}, {}, false};
  return s;
}

PumpGroupParameters PumpGroupParameters::from(const core::ParameterTree& s) {
  PumpGroupParameters p;
  p.pump = PumpParameters::from(s.section("pump"));
  p.pump_count = static_cast<int>(s.integer("pump_count"));
  p.duty_count = static_cast<int>(s.integer("duty_count"));
  p.failed_count = static_cast<int>(s.integer("failed_count"));
  p.standby_takeover = s.boolean("standby_takeover");
  p.check_valves = s.boolean("check_valves");
  p.validate(s.path);
  return p;
}

PumpGroup::PumpGroup(solver::Network& network, const std::string& prefix, solver::Index suction,
                     solver::Index discharge, const PumpGroupParameters& parameters)
    : p_(parameters), suction_(suction), discharge_(discharge) {
  p_.validate("");
  for (int i = 0; i < p_.pump_count; ++i) {
    branches_.push_back(network.add_branch(prefix + "/pump" + std::to_string(i), suction, discharge,
                                           std::make_shared<solver::ClosedLaw>()));
  }
  update(network, p_);
}

void PumpGroup::update(solver::Network& network, const PumpGroupParameters& parameters) {
  DCTWIN_DEMAND(parameters.pump_count == p_.pump_count, "a pump group keeps its pump count");
  p_ = parameters;
  p_.validate("");
  states_ = p_.states();
  auto running = std::make_shared<PumpBranch>(p_.pump, p_.check_valves);
  PumpParameters stopped_pump = p_.pump;
  stopped_pump.speed = 0.0;
  auto stopped = std::make_shared<PumpBranch>(stopped_pump, p_.check_valves);
  PumpParameters failed_pump = p_.pump;
  failed_pump.failed = true;
  auto failed = std::make_shared<PumpBranch>(failed_pump, p_.check_valves);
  for (std::size_t i = 0; i < branches_.size(); ++i) {
    switch (states_[i]) {
      case PumpState::running: network.set_law(branches_[i], running); break;
      case PumpState::standby: network.set_law(branches_[i], stopped); break;
      case PumpState::failed: network.set_law(branches_[i], failed); break;
    }
  }
}

PumpGroupResult PumpGroup::result(const solver::Network& network, const solver::NetworkSolution& solution) const {
  PumpGroupResult r;
  r.pressure_rise = solution.pressure[static_cast<std::size_t>(discharge_)] -
                    solution.pressure[static_cast<std::size_t>(suction_)];
  for (std::size_t i = 0; i < branches_.size(); ++i) {
    const auto& law = dynamic_cast<const PumpBranch&>(network.law(branches_[i]));
    const Pump& pump = law.pump();
    PumpOperatingPoint op;
    op.state = states_[i];
    op.speed = pump.running_speed();
    op.flow = solution.flow[static_cast<std::size_t>(branches_[i])];
    op.pressure_rise = r.pressure_rise;
    op.hydraulic_power = pump.hydraulic_power(op.flow);
    op.shaft_power = pump.shaft_power(op.flow);
    op.electrical_power = pump.electrical_power(op.flow);
    op.efficiency = pump.efficiency(op.flow);
    r.labels.push_back(network.branch_label(branches_[i]));
    r.pumps.push_back(op);
    if (op.state == PumpState::running) ++r.running;
    r.flow += op.flow;
    r.hydraulic_power += op.hydraulic_power;
    r.shaft_power += op.shaft_power;
    r.electrical_power += op.electrical_power;
  }
  return r;
}

}  // namespace dctwin::models::hydraulic
