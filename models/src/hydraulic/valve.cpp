#include "dctwin/models/hydraulic/valve.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/number_text.hpp"

namespace dctwin::models::hydraulic {

using core::format_general;

namespace {

constexpr double reference_pressure_drop = 1e5;  // 1 bar
constexpr double reference_density = 1000.0;     // water, kg/m3

}  // namespace

const char* to_string(ValveCharacteristic c) noexcept {
  return c == ValveCharacteristic::linear ? "linear" : "equal_percentage";
}

core::ParameterTable ValveParameters::table(const ValveParameters& d, const std::string& sizing_source) {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("flow_coefficient", "m3/s", "Kv: flow of water through the open valve at 1 bar",
                          d.flow_coefficient, sizing_source);
  p.display_unit = "m3/h";
  t.push_back(greater_than(p, 0.0));
  t.push_back(choice_parameter("characteristic", {"linear", "equal_percentage"},
                               "Inherent flow characteristic", std::string(to_string(d.characteristic))));
  p = real_parameter("rangeability", "1", "R: Kv of the open valve over Kv just off its seat (equal percentage)",
                     d.rangeability, "Typical globe and characterised ball valves: 30-100");
  t.push_back(greater_than(p, 1.0));
  p = real_parameter("leakage", "1", "Fraction of Kv that passes when the valve is shut", d.leakage,
                     "ANSI/FCI 70-2 seat leakage Class IV: 0.01 % of rated capacity; 0 = tight shut-off");
  at_least(p, 0.0);
  t.push_back(less_than(p, 1.0));
  p = real_parameter("opening", "1", "Valve opening, 0 = shut, 1 = fully open", d.opening, "");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

ValveParameters ValveParameters::from(const core::ParameterTree& s) {
  ValveParameters p;
  p.flow_coefficient = s.number("flow_coefficient");
  p.characteristic =
      s.text("characteristic") == "linear" ? ValveCharacteristic::linear : ValveCharacteristic::equal_percentage;
  p.rangeability = s.number("rangeability");
  p.leakage = s.number("leakage");
  p.opening = s.number("opening");
  return p;
}

Valve::Valve(ValveParameters p, double density) : p_(p), density_(density) {
  kv_ = p_.flow_coefficient * std::max(relative_flow_coefficient(), p_.leakage);
  k_ = kv_ > 0.0 ? reference_pressure_drop * (density_ / reference_density) / (kv_ * kv_) : 0.0;
}

double Valve::relative_flow_coefficient() const {
  const double x = p_.opening;
  if (x <= 0.0) return 0.0;
  if (p_.characteristic == ValveCharacteristic::linear) return x;
  return std::pow(p_.rangeability, x - 1.0);
}

double Valve::flow_at(double pressure_drop) const {
  const double q = std::sqrt(std::abs(pressure_drop) / k_);
  return pressure_drop < 0.0 ? -q : q;
}

void Valve::evaluate(double flow, double& drop, double& slope) const {
  solver::signed_power(flow, 2.0, 1e-3 * kv_, drop, slope);
  drop *= k_;
  slope *= k_;
}

double Valve::pressure_drop(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return drop;
}

double Valve::derivative(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return slope;
}

std::string Valve::defect() const {
  if (!(p_.flow_coefficient > 0.0))
    return "non-positive flow coefficient Kv = " + format_general(p_.flow_coefficient * 3600.0) + " m3/h";
  if (!(p_.opening >= 0.0 && p_.opening <= 1.0)) return "opening " + format_general(p_.opening) + " is outside 0-1";
  if (!(p_.leakage >= 0.0 && p_.leakage < 1.0)) return "leakage " + format_general(p_.leakage) + " is outside [0, 1)";
  if (p_.characteristic == ValveCharacteristic::equal_percentage && !(p_.rangeability > 1.0))
    return "rangeability " + format_general(p_.rangeability) + " is not above 1";
  if (!(density_ > 0.0)) return "non-positive density " + format_general(density_) + " kg/m3";
  return {};
}

}  // namespace dctwin::models::hydraulic
