#include "dctwin/models/hx/ua_scaling.hpp"

#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

UaScaling::UaScaling(UaScalingParameters p, const char* section) : p_(p) {
  const ParameterCheck check(section);
  check.positive("nominal_ua", p_.nominal_ua, "W/K");
  check.positive("conductance_ratio", p_.conductance_ratio, "");
  check.positive("first_nominal_flow", p_.first_nominal_flow, "kg/s");
  check.positive("second_nominal_flow", p_.second_nominal_flow, "kg/s");
  check.in_range("first_flow_exponent", p_.first_flow_exponent, 0.0, 2.0, "");
  check.in_range("second_flow_exponent", p_.second_flow_exponent, 0.0, 2.0, "");
  first_nominal_conductance_ = p_.nominal_ua * (1.0 + p_.conductance_ratio);
  second_nominal_conductance_ = first_nominal_conductance_ / p_.conductance_ratio;
}

double UaScaling::first_conductance(double first_flow) const {
  DCTWIN_DEMAND(first_flow >= 0.0, "UA scaling needs a non-negative flow");
  return first_nominal_conductance_ * std::pow(first_flow / p_.first_nominal_flow, p_.first_flow_exponent);
}

double UaScaling::second_conductance(double second_flow) const {
  DCTWIN_DEMAND(second_flow >= 0.0, "UA scaling needs a non-negative flow");
  return second_nominal_conductance_ * std::pow(second_flow / p_.second_nominal_flow, p_.second_flow_exponent);
}

double UaScaling::ua(double first_flow, double second_flow) const {
  const double h1 = first_conductance(first_flow);
  const double h2 = second_conductance(second_flow);
  if (h1 == 0.0 || h2 == 0.0) return 0.0;
  return h1 * h2 / (h1 + h2);
}

double UaScaling::ua_ratio(double first_flow, double second_flow) const {
  return ua(first_flow, second_flow) / p_.nominal_ua;
}

}  // namespace dctwin::models::hx
