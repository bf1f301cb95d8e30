#include "dctwin/models/hx/rear_door.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

const std::vector<std::string>& arrangement_choices() {
  static const std::vector<std::string> choices{"cross_flow_unmixed", "cross_flow_first_mixed",
                                                "cross_flow_second_mixed", "counter_flow", "parallel_flow"};
  return choices;
}

UaScalingParameters scaling_parameters(const RearDoorParameters& p) {
  return {p.nominal_ua, p.conductance_ratio, p.nominal_air_flow, p.nominal_water_flow, p.air_flow_exponent,
          p.water_flow_exponent};
}

/// Checks every parameter; UaScaling repeats the UA checks under the same section name.
const RearDoorParameters& checked(const RearDoorParameters& p, const std::string& section) {
  const ParameterCheck check(section);
  check.positive("nominal_ua", p.nominal_ua, "W/K");
  check.positive("nominal_air_flow", p.nominal_air_flow, "kg/s");
  check.positive("nominal_water_flow", p.nominal_water_flow, "kg/s");
  check.positive("conductance_ratio", p.conductance_ratio, "");
  check.in_range("air_flow_exponent", p.air_flow_exponent, 0.0, 2.0, "");
  check.in_range("water_flow_exponent", p.water_flow_exponent, 0.0, 2.0, "");
  check.at_least("fan_power_at_full_speed", p.fan_power_at_full_speed, 0.0, "W");
  check.at_least("fan_air_flow_at_full_speed", p.fan_air_flow_at_full_speed, 0.0, "kg/s");
  check.at_least("air_pressure_drop_at_nominal_flow", p.air_pressure_drop_at_nominal_flow, 0.0, "Pa");
  check.in_range("air_pressure_drop_exponent", p.air_pressure_drop_exponent, 1.0, 2.0, "");
  return p;
}

}  // namespace

core::ParameterTable RearDoorParameters::table() {
  using namespace core;
  const RearDoorParameters d;
  ParameterTable t;
  auto p = choice_parameter("flow_arrangement", arrangement_choices(),
                            "Flow arrangement of the coil; first stream = air, second = water",
                            std::string("cross_flow_unmixed"));
  p.source = "Finned-tube coil: cross flow, both streams unmixed (Incropera 6th ed. eq. 11.32)";
  t.push_back(p);
  p = real_parameter("nominal_ua", "W/K", "Conductance UA at the nominal air and water flows", d.nominal_ua,
                     "Derived [U]: IBM passive door, 26 kW cabinet, 70 % removed, 20 K server rise, 44 degC air, "
                     "18 degC water at 0.5 kg/s ([ibm-rdhx]; docs/models/hx.md)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_air_flow", "kg/s", "Air flow through the coil at which nominal_ua holds", d.nominal_air_flow,
                     "26 kW cabinet at 20 K server air rise, cp 1006 J/(kg K) [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_water_flow", "kg/s", "Water flow at which nominal_ua holds", d.nominal_water_flow,
                     "Assumed 30 L/min per door [U]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("conductance_ratio", "1", "Air-side over water-side convective conductance hA at nominal flows",
                     d.conductance_ratio,
                     "Modelica Buildings DryCoilEffectivenessNTU, r_nominal = 2/3");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("air_flow_exponent", "1", "n_a in hA_a ~ m_a^n_a", d.air_flow_exponent,
                     "Modelica Buildings dry coil [modelica-buildings-dry-coil]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("water_flow_exponent", "1", "n_w in hA_w ~ m_w^n_w", d.water_flow_exponent,
                     "Modelica Buildings dry coil [modelica-buildings-dry-coil]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = choice_parameter("door_type", {"passive", "active"},
                       "passive: the servers' fans move the air; active: door fans add airflow",
                       std::string("passive"));
  p.source = "[rdhx-capacity-ranges]: passive to ~35 kW per rack, active (fans) to ~60 kW per rack";
  t.push_back(p);
  p = real_parameter("fan_power_at_full_speed", "W", "Door fan power at full speed (active door)",
                     d.fan_power_at_full_speed, "[rdhx-capacity-ranges]: 0.5-2 kW per door");
  p.display_unit = "kW";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("fan_air_flow_at_full_speed", "kg/s", "Air flow the door fans move at full speed (active door)",
                     d.fan_air_flow_at_full_speed, "60 kW rack at 20 K air rise [E]");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("air_pressure_drop_at_nominal_flow", "Pa", "Air-side pressure drop across the coil at the nominal air flow",
                     d.air_pressure_drop_at_nominal_flow,
                     "Estimate [U]; IBM: impedance equivalent to its acoustic rear door");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("air_pressure_drop_exponent", "1", "k in dp = dp_0 (m / m_0)^k", d.air_pressure_drop_exponent,
                     "Quadratic law of turbulent flow resistances");
  at_least(p, 1.0);
  t.push_back(at_most(p, 2.0));
  return t;
}

RearDoorParameters RearDoorParameters::from(const core::ParameterTree& s) {
  RearDoorParameters p;
  p.arrangement = parse_stream_arrangement(s.text("flow_arrangement"));
  p.nominal_ua = s.number("nominal_ua");
  p.nominal_air_flow = s.number("nominal_air_flow");
  p.nominal_water_flow = s.number("nominal_water_flow");
  p.conductance_ratio = s.number("conductance_ratio");
  p.air_flow_exponent = s.number("air_flow_exponent");
  p.water_flow_exponent = s.number("water_flow_exponent");
  p.active = s.text("door_type") == "active";
  p.fan_power_at_full_speed = s.number("fan_power_at_full_speed");
  p.fan_air_flow_at_full_speed = s.number("fan_air_flow_at_full_speed");
  p.air_pressure_drop_at_nominal_flow = s.number("air_pressure_drop_at_nominal_flow");
  p.air_pressure_drop_exponent = s.number("air_pressure_drop_exponent");
  return p;
}

RearDoor::RearDoor(RearDoorParameters p, std::string section)
    : p_(checked(p, section)), scaling_(scaling_parameters(p_), section.c_str()) {}

RearDoorOperatingPoint RearDoor::evaluate(double air_inlet_temperature, double air_flow_rate,
                                          double water_inlet_temperature, double water_flow,
                                          double air_specific_heat, double water_specific_heat) const {
  DCTWIN_DEMAND(air_specific_heat > 0.0 && water_specific_heat > 0.0, "rear door needs positive specific heats");
  RearDoorOperatingPoint result;
  result.ua = scaling_.ua(air_flow_rate, water_flow);
  const Exchange x = exchange(p_.arrangement, result.ua, {air_inlet_temperature, air_flow_rate * air_specific_heat},
                              {water_inlet_temperature, water_flow * water_specific_heat});
  result.heat_flow = x.heat_flow;
  result.air_outlet_temperature = x.first_outlet_temperature;
  result.water_outlet_temperature = x.second_outlet_temperature;
  result.effectiveness = x.effectiveness;
  result.ntu = x.ntu;
  return result;
}

double RearDoor::air_flow(double server_air_flow, double fan_speed) const {
  DCTWIN_DEMAND(server_air_flow >= 0.0, "rear door needs a non-negative server air flow");
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "rear door fan speed must be in [0, 1]");
  if (!p_.active) return server_air_flow;
  return std::max(server_air_flow, fan_speed * p_.fan_air_flow_at_full_speed);
}

double RearDoor::fan_power(double fan_speed) const {
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "rear door fan speed must be in [0, 1]");
  if (!p_.active) return 0.0;
  return p_.fan_power_at_full_speed * fan_speed * fan_speed * fan_speed;
}

double RearDoor::air_pressure_drop(double air_flow_rate) const {
  DCTWIN_DEMAND(air_flow_rate >= 0.0, "rear door pressure drop needs a non-negative air flow");
  return p_.air_pressure_drop_at_nominal_flow *
         std::pow(air_flow_rate / p_.nominal_air_flow, p_.air_pressure_drop_exponent);
}

double RearDoor::nominal_ua_from_rating(const RearDoorRating& r, const RearDoorParameters& p) {
  const ParameterCheck check("rear_door_rating");
  check.positive("air_flow", r.air_flow, "kg/s");
  check.positive("water_flow", r.water_flow, "kg/s");
  check.positive("air_specific_heat", r.air_specific_heat, "J/(kg K)");
  check.positive("water_specific_heat", r.water_specific_heat, "J/(kg K)");
  check.greater_than("air_inlet_temperature", r.air_inlet_temperature, r.water_inlet_temperature, "K");
  check.positive("heat_flow", r.heat_flow, "W");
  const double c_air = r.air_flow * r.air_specific_heat;
  const double c_water = r.water_flow * r.water_specific_heat;
  const double c_min = std::min(c_air, c_water);
  const double c_max = std::max(c_air, c_water);
  const double eps = r.heat_flow / (c_min * (r.air_inlet_temperature - r.water_inlet_temperature));
  const double ntu = ntu_from_effectiveness(flow_arrangement(p.arrangement, c_air, c_water), eps, c_min / c_max);
  RearDoorParameters unit = p;
  unit.nominal_ua = 1.0;  // g(m_a, m_w) does not depend on UA_0
  const UaScaling scaling(scaling_parameters(unit), "rear_door");
  return ntu * c_min / scaling.ua_ratio(r.air_flow, r.water_flow);
}

}  // namespace dctwin::models::hx
