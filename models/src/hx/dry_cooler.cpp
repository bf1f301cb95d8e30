#include "dctwin/models/hx/dry_cooler.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/models/hx/fan_speed.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

const std::vector<std::string>& arrangement_choices() {
  static const std::vector<std::string> choices{"cross_flow_unmixed", "cross_flow_first_mixed",
                                                "cross_flow_second_mixed", "counter_flow", "parallel_flow"};
  return choices;
}

/// Checks the parameters and sizes UA_0 at the nominal flows from the rating point.
UaScalingParameters sized(const DryCoolerParameters& p, const std::string& section) {
  const ParameterCheck check(section);
  check.positive("rating_heat_flow", p.rating_heat_flow, "W");
  check.positive("nominal_air_flow", p.nominal_air_flow, "kg/s");
  check.positive("fluid_specific_heat", p.fluid_specific_heat, "J/(kg K)");
  check.positive("air_specific_heat", p.air_specific_heat, "J/(kg K)");
  check.positive("conductance_ratio", p.conductance_ratio, "");
  check.in_range("air_flow_exponent", p.air_flow_exponent, 0.0, 2.0, "");
  check.in_range("fluid_flow_exponent", p.fluid_flow_exponent, 0.0, 2.0, "");
  check.at_least("fan_power_at_full_speed", p.fan_power_at_full_speed, 0.0, "W");
  check.in_half_open_range("minimum_fan_speed", p.minimum_fan_speed, 0.0, 1.0, "");
  if (!(p.rating_fluid_outlet_temperature < p.rating_fluid_inlet_temperature))
    check.fail("rating fluid outlet " + format_celsius(p.rating_fluid_outlet_temperature) +
               " must be below the rating fluid inlet " + format_celsius(p.rating_fluid_inlet_temperature));
  if (!(p.rating_air_temperature < p.rating_fluid_outlet_temperature))
    check.fail("rating air temperature " + format_celsius(p.rating_air_temperature) +
               " must be below the rating fluid outlet " + format_celsius(p.rating_fluid_outlet_temperature));
  const double fluid_flow =
      p.rating_heat_flow / (p.fluid_specific_heat * (p.rating_fluid_inlet_temperature - p.rating_fluid_outlet_temperature));
  const double c_air = p.nominal_air_flow * p.air_specific_heat;
  const double c_fluid = fluid_flow * p.fluid_specific_heat;
  const double c_min = std::min(c_air, c_fluid);
  const double eps = p.rating_heat_flow / (c_min * (p.rating_fluid_inlet_temperature - p.rating_air_temperature));
  double ntu = 0.0;
  try {
    ntu = ntu_from_effectiveness(flow_arrangement(p.arrangement, c_air, c_fluid), eps,
                                 c_min / std::max(c_air, c_fluid));
  } catch (const core::InputError& error) {
    check.fail(std::string("rating point is not reachable: ") + error.what());
  }
  return {ntu * c_min, p.conductance_ratio, p.nominal_air_flow, fluid_flow, p.air_flow_exponent, p.fluid_flow_exponent};
}

}  // namespace

core::ParameterTable DryCoolerParameters::table() {
  using namespace core;
  const DryCoolerParameters d;
  ParameterTable t;
  auto p = choice_parameter("flow_arrangement", arrangement_choices(),
                            "Flow arrangement of the coil; first stream = air, second = fluid",
                            std::string("cross_flow_unmixed"));
  p.source = "Finned-tube coil: cross flow, both streams unmixed (Incropera 6th ed. eq. 11.32)";
  t.push_back(p);
  p = real_parameter("rating_heat_flow", "W", "Heat rejected at the rating point", d.rating_heat_flow,
                     "Catalogue-size unit [E]");
  p.display_unit = "kW";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rating_fluid_inlet_temperature", "K", "Fluid inlet temperature at the rating point",
                     d.rating_fluid_inlet_temperature, "Common catalogue rating 40/35 degC at 25 degC air [U]");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rating_fluid_outlet_temperature", "K", "Fluid outlet temperature at the rating point",
                     d.rating_fluid_outlet_temperature, "Common catalogue rating 40/35 degC at 25 degC air [U]");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rating_air_temperature", "K", "Air (dry-bulb) inlet temperature at the rating point",
                     d.rating_air_temperature, "Common catalogue rating 40/35 degC at 25 degC air [U]");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_air_flow", "kg/s", "Air flow at full fan speed", d.nominal_air_flow,
                     "8 K air rise at the rating point [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("fluid_specific_heat", "J/(kg K)", "Fluid specific heat at the rating point", d.fluid_specific_heat,
                     "PG25 at 35-40 degC, Melinder tables ([coolprop-2014])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("air_specific_heat", "J/(kg K)", "Air specific heat", d.air_specific_heat,
                     "Dry air at 300 K, 1.006-1.007 kJ/(kg K) (Incropera Table A.4)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("conductance_ratio", "1", "Air-side over fluid-side convective conductance hA at nominal flows",
                     d.conductance_ratio, "Modelica Buildings DryCoilEffectivenessNTU, r_nominal = 2/3");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("air_flow_exponent", "1", "n_a in hA_a ~ m_a^n_a", d.air_flow_exponent,
                     "Modelica Buildings dry coil [modelica-buildings-dry-coil]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("fluid_flow_exponent", "1", "n_f in hA_f ~ m_f^n_f", d.fluid_flow_exponent,
                     "Modelica Buildings dry coil [modelica-buildings-dry-coil]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("fan_power_at_full_speed", "W", "Fan power at full speed", d.fan_power_at_full_speed,
                     "2 % of rated capacity [U]");
  p.display_unit = "kW";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("minimum_fan_speed", "1", "Lowest fan speed used in control", d.minimum_fan_speed,
                     "EC fan turndown; same as the EnergyPlus tower default minimum air flow ratio 0.2");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

DryCoolerParameters DryCoolerParameters::from(const core::ParameterTree& s) {
  DryCoolerParameters p;
  p.arrangement = parse_stream_arrangement(s.text("flow_arrangement"));
  p.rating_heat_flow = s.number("rating_heat_flow");
  p.rating_fluid_inlet_temperature = s.number("rating_fluid_inlet_temperature");
  p.rating_fluid_outlet_temperature = s.number("rating_fluid_outlet_temperature");
  p.rating_air_temperature = s.number("rating_air_temperature");
  p.nominal_air_flow = s.number("nominal_air_flow");
  p.fluid_specific_heat = s.number("fluid_specific_heat");
  p.air_specific_heat = s.number("air_specific_heat");
  p.conductance_ratio = s.number("conductance_ratio");
  p.air_flow_exponent = s.number("air_flow_exponent");
  p.fluid_flow_exponent = s.number("fluid_flow_exponent");
  p.fan_power_at_full_speed = s.number("fan_power_at_full_speed");
  p.minimum_fan_speed = s.number("minimum_fan_speed");
  return p;
}

DryCooler::DryCooler(DryCoolerParameters p, std::string section)
    : p_(p), scaling_(sized(p_, section), section.c_str()) {}

double DryCooler::air_flow(double fan_speed) const {
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "dry cooler fan speed must be in [0, 1]");
  return fan_speed * p_.nominal_air_flow;
}

double DryCooler::fan_power(double fan_speed) const {
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "dry cooler fan speed must be in [0, 1]");
  return p_.fan_power_at_full_speed * fan_speed * fan_speed * fan_speed;
}

DryCoolerOperatingPoint DryCooler::evaluate(double dry_bulb, double fluid_inlet_temperature, double fluid_flow,
                                            double fan_speed, double fluid_specific_heat) const {
  DCTWIN_DEMAND(fluid_specific_heat > 0.0, "dry cooler needs a positive fluid specific heat");
  DryCoolerOperatingPoint r;
  r.fan_speed = fan_speed;
  r.air_flow = air_flow(fan_speed);
  r.fan_power = fan_power(fan_speed);
  r.ua = scaling_.ua(r.air_flow, fluid_flow);
  const Exchange x = exchange(p_.arrangement, r.ua, {dry_bulb, r.air_flow * p_.air_specific_heat},
                              {fluid_inlet_temperature, fluid_flow * fluid_specific_heat});
  r.heat_flow = -x.heat_flow;  // exchange() counts heat from the air (first) to the fluid
  r.fluid_inlet_temperature = fluid_inlet_temperature;
  r.fluid_outlet_temperature = x.second_outlet_temperature;
  r.air_outlet_temperature = x.first_outlet_temperature;
  r.effectiveness = x.effectiveness;
  return r;
}

DryCoolerOperatingPoint DryCooler::evaluate_for_load(double dry_bulb, double heat_flow, double fluid_flow,
                                                     double fan_speed, double fluid_specific_heat) const {
  DCTWIN_DEMAND(heat_flow >= 0.0, "dry cooler load must be non-negative");
  DCTWIN_DEMAND(fluid_specific_heat > 0.0, "dry cooler needs a positive fluid specific heat");
  DryCoolerOperatingPoint r;
  r.fan_speed = fan_speed;
  r.air_flow = air_flow(fan_speed);
  r.fan_power = fan_power(fan_speed);
  r.ua = scaling_.ua(r.air_flow, fluid_flow);
  r.heat_flow = heat_flow;
  if (heat_flow == 0.0) {
    r.fluid_inlet_temperature = r.fluid_outlet_temperature = r.air_outlet_temperature = dry_bulb;
    return r;
  }
  DCTWIN_DEMAND(r.air_flow > 0.0 && fluid_flow > 0.0, "dry cooler cannot reject heat without air and fluid flow");
  const double c_air = r.air_flow * p_.air_specific_heat;
  const double c_fluid = fluid_flow * fluid_specific_heat;
  const double c_min = std::min(c_air, c_fluid);
  r.effectiveness =
      effectiveness(flow_arrangement(p_.arrangement, c_air, c_fluid), r.ua / c_min, c_min / std::max(c_air, c_fluid));
  r.fluid_inlet_temperature = dry_bulb + heat_flow / (r.effectiveness * c_min);
  r.fluid_outlet_temperature = r.fluid_inlet_temperature - heat_flow / c_fluid;
  r.air_outlet_temperature = dry_bulb + heat_flow / c_air;
  return r;
}

double DryCooler::fan_speed_for_outlet(double dry_bulb, double heat_flow, double fluid_flow, double target,
                                       double fluid_specific_heat) const {
  return lowest_fan_speed_meeting(p_.minimum_fan_speed, target, [&](double s) {
    return evaluate_for_load(dry_bulb, heat_flow, fluid_flow, s, fluid_specific_heat).fluid_outlet_temperature;
  });
}

}  // namespace dctwin::models::hx
