#include "dctwin/models/hx/cdu.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/hx/effectiveness.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

/// Checks the CDU's own parameters and returns UA_0 sized from the nominal approach.
double sized_ua(const CduParameters& p, const std::string& section) {
  const ParameterCheck check(section);
  check.positive("nominal_heat_flow", p.nominal_heat_flow, "W");
  check.positive("nominal_approach", p.nominal_approach, "K");
  check.positive("nominal_it_flow", p.nominal_it_flow, "kg/s");
  check.positive("nominal_facility_flow", p.nominal_facility_flow, "kg/s");
  check.positive("it_specific_heat", p.it_specific_heat, "J/(kg K)");
  check.positive("facility_specific_heat", p.facility_specific_heat, "J/(kg K)");
  check.positive("conductance_ratio", p.conductance_ratio, "");
  check.in_range("it_flow_exponent", p.it_flow_exponent, 0.0, 2.0, "");
  check.in_range("facility_flow_exponent", p.facility_flow_exponent, 0.0, 2.0, "");
  const double c_it = p.nominal_it_flow * p.it_specific_heat;
  const double c_facility = p.nominal_facility_flow * p.facility_specific_heat;
  const double it_drop = p.nominal_heat_flow / c_it;
  const double facility_rise = p.nominal_heat_flow / c_facility;
  const double max_difference = it_drop + p.nominal_approach;  // IT return minus facility supply
  if (!(facility_rise < max_difference))
    check.fail("nominal approach " + format_number(p.nominal_approach) +
               " K cannot be reached: the facility water would warm by " + format_number(facility_rise) +
               " K, more than the " + format_number(max_difference) +
               " K between IT return and facility supply (raise nominal_facility_flow or nominal_approach)");
  const double c_min = std::min(c_it, c_facility);
  const double c_max = std::max(c_it, c_facility);
  const double eps = p.nominal_heat_flow / (c_min * max_difference);
  return counter_flow_ntu(eps, c_min / c_max) * c_min;
}

UaScalingParameters scaling_parameters(const CduParameters& p, const std::string& section) {
  return {sized_ua(p, section), p.conductance_ratio, p.nominal_it_flow, p.nominal_facility_flow,
          p.it_flow_exponent, p.facility_flow_exponent};
}

}  // namespace

PiParameters CduParameters::default_controller() {
  PiParameters c;
  c.proportional_gain = 0.03;
  c.integral_time = 20.0;
  c.sample_period = 1.0;
  c.output_min = 0.05;
  c.output_max = 1.0;
  c.action = ControllerAction::direct;
  c.anti_windup = AntiWindup::back_calculation;
  c.tracking_time = 10.0;
  c.output_resolution = 0.005;
  return c;
}

core::ParameterTable CduParameters::table() {
  using namespace core;
  const CduParameters d;
  ParameterTable t;
  auto p = real_parameter("nominal_heat_flow", "W", "Heat transferred at the rating point", d.nominal_heat_flow,
                          "Google Deschutes CDU, 2 MW (Modelica Buildings data record [modelica-buildings-deschutes-cdu])");
  p.display_unit = "kW";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_approach", "K", "IT supply minus facility supply at the rating point", d.nominal_approach,
                     "Deschutes 3 K; ASHRAE/OCP CDU approach 3-5 K ([modelica-buildings-deschutes-cdu]; [liquid-loop-practice])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_it_flow", "kg/s", "IT (secondary) loop flow at the rating point", d.nominal_it_flow,
                     "Deschutes 31.48 kg/s PG25 ([modelica-buildings-deschutes-cdu])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_facility_flow", "kg/s", "Facility (primary) water flow with the valve fully open",
                     d.nominal_facility_flow, "Not published; balances the capacity rates of the rating point [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("it_specific_heat", "J/(kg K)", "IT coolant specific heat at the rating point", d.it_specific_heat,
                     "PG25 at 40 degC, Melinder tables ([coolprop-2014])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("facility_specific_heat", "J/(kg K)", "Facility water specific heat at the rating point",
                     d.facility_specific_heat, "Water at 25-30 degC, IAPWS-IF97 (4180-4181 J/(kg K))");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("conductance_ratio", "1", "IT-side over facility-side convective conductance hA at nominal flows",
                     d.conductance_ratio, "PG25 vs water film coefficients at equal flow [E] (docs/models/hx.md)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("it_flow_exponent", "1", "n in hA_it ~ m_it^n", d.it_flow_exponent,
                     "Chevron plates, Nu ~ Re^0.70-0.78 (Muley & Manglik 1999)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("facility_flow_exponent", "1", "n in hA_fac ~ m_fac^n", d.facility_flow_exponent,
                     "Chevron plates, Nu ~ Re^0.70-0.78 (Muley & Manglik 1999)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("valve_stroke_time", "s", "Time of the facility-water valve's actuator for its full stroke; 0 = at once",
                     d.valve_stroke_time,
                     "Estimate [U]: electric valve actuators run their full stroke in ~15 s (quarter-turn) to a few minutes "
                     "(linear globe-valve actuators)");
  t.push_back(at_least(p, 0.0));
  return t;
}

core::SectionSchema CduParameters::schema() {
  core::SectionSchema s;
  s.doc = "Coolant distribution unit: counter-flow plate heat exchanger and its valve controller";
  s.parameters = table();
  s.sections["controller"] =
      core::SectionSchema{"PI controller of the facility-side valve (holds the IT supply temperature)",
                            PiParameters::table(default_controller()), {}, {}, false};
  return s;
}

CduParameters CduParameters::from(const core::ParameterTree& s) {
  CduParameters p;
  p.nominal_heat_flow = s.number("nominal_heat_flow");
  p.nominal_approach = s.number("nominal_approach");
  p.nominal_it_flow = s.number("nominal_it_flow");
  p.nominal_facility_flow = s.number("nominal_facility_flow");
  p.it_specific_heat = s.number("it_specific_heat");
  p.facility_specific_heat = s.number("facility_specific_heat");
  p.conductance_ratio = s.number("conductance_ratio");
  p.it_flow_exponent = s.number("it_flow_exponent");
  p.facility_flow_exponent = s.number("facility_flow_exponent");
  p.valve_stroke_time = s.number("valve_stroke_time");
  if (s.has_section("controller")) p.controller = PiParameters::from(s.section("controller"));
  return p;
}

Cdu::Cdu(CduParameters p, std::string section)
    : p_(p), scaling_(scaling_parameters(p_, section), section.c_str()), controller_(p_.controller, section + ".controller") {
  ParameterCheck(section).at_least("valve_stroke_time", p_.valve_stroke_time, 0.0, "s");
  const ParameterCheck check(section + ".controller");
  check.at_least("output_min", p_.controller.output_min, 0.0, "");
  check.at_most("output_max", p_.controller.output_max, 1.0, "");
}

CduOperatingPoint Cdu::evaluate(double it_return_temperature, double it_flow, double facility_supply_temperature,
                                double facility_flow_rate, double it_specific_heat,
                                double facility_specific_heat) const {
  DCTWIN_DEMAND(it_specific_heat > 0.0 && facility_specific_heat > 0.0, "CDU needs positive specific heats");
  CduOperatingPoint result;
  result.ua = scaling_.ua(it_flow, facility_flow_rate);
  const Exchange x = exchange(StreamArrangement::counter_flow, result.ua,
                              {it_return_temperature, it_flow * it_specific_heat},
                              {facility_supply_temperature, facility_flow_rate * facility_specific_heat});
  result.heat_flow = x.heat_flow;
  result.it_supply_temperature = x.first_outlet_temperature;
  result.facility_return_temperature = x.second_outlet_temperature;
  result.approach = result.it_supply_temperature - facility_supply_temperature;
  result.effectiveness = x.effectiveness;
  result.ntu = x.ntu;
  return result;
}

double Cdu::travel(double from, double command, double elapsed) const {
  if (p_.valve_stroke_time <= 0.0) return command;
  if (!(elapsed > 0.0)) return from;
  const double moved = elapsed / p_.valve_stroke_time;
  // Never past the command (the arrival and the distance moved round apart by an ulp).
  return command > from ? std::min(from + moved, command) : std::max(from - moved, command);
}

double Cdu::facility_flow(double valve_position) const {
  DCTWIN_DEMAND(valve_position >= 0.0 && valve_position <= 1.0, "CDU valve position must be in [0, 1]");
  return valve_position * p_.nominal_facility_flow;
}

}  // namespace dctwin::models::hx
