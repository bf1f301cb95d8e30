#include "dctwin/models/hydraulic/resistance.hpp"

#include "dctwin/core/number_text.hpp"

namespace dctwin::models::hydraulic {

using core::format_general;

namespace {

constexpr double relative_transition = 1e-3;

}  // namespace

core::ParameterTable FixedResistanceParameters::table(const FixedResistanceParameters& d,
                                                        const std::string& what, const std::string& source) {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("nominal_flow", "m3/s", "Flow at which the rated pressure drop of the " + what + " holds",
                          d.nominal_flow, source);
  p.display_unit = "m3/h";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("pressure_drop_at_nominal_flow", "Pa", "Pressure drop of the " + what + " at the nominal flow",
                     d.pressure_drop_at_nominal_flow, source);
  p.display_unit = "kPa";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("exponent", "1", "n in dp = dp_nom (Q / Q_nom)^n", d.exponent,
                     "2 for turbulent passages (plate heat exchangers 1.8-2)");
  at_least(p, 1.0);
  t.push_back(less_than(p, 3.0));
  return t;
}

FixedResistanceParameters FixedResistanceParameters::from(const core::ParameterTree& s) {
  FixedResistanceParameters p;
  p.nominal_flow = s.number("nominal_flow");
  p.pressure_drop_at_nominal_flow = s.number("pressure_drop_at_nominal_flow");
  p.exponent = s.number("exponent");
  return p;
}

void FixedResistance::evaluate(double flow, double& drop, double& slope) const {
  solver::signed_power(flow / p_.nominal_flow, p_.exponent, relative_transition, drop, slope);
  drop *= p_.pressure_drop_at_nominal_flow;
  slope *= p_.pressure_drop_at_nominal_flow / p_.nominal_flow;
}

double FixedResistance::pressure_drop(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return drop;
}

double FixedResistance::derivative(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return slope;
}

std::string FixedResistance::defect() const {
  if (!(p_.nominal_flow > 0.0)) return "non-positive nominal flow " + format_general(p_.nominal_flow) + " m3/s";
  if (!(p_.pressure_drop_at_nominal_flow > 0.0))
    return "non-positive resistance coefficient (pressure drop " + format_general(p_.pressure_drop_at_nominal_flow) +
           " Pa at the nominal flow)";
  if (!(p_.exponent >= 1.0 && p_.exponent < 3.0))
    return "flow exponent " + format_general(p_.exponent) + " is outside [1, 3)";
  return {};
}

}  // namespace dctwin::models::hydraulic
