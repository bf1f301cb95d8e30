#include "dctwin/models/hydraulic/pump.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/core/number_text.hpp"

namespace dctwin::models::hydraulic {

using core::format_general;

namespace {

core::ParameterSpec shutoff_spec(double value, const std::string& source) {
  auto p = core::real_parameter("shutoff_pressure", "Pa", "Pressure rise at zero flow and rated speed", value,
                                  source);
  p.display_unit = "kPa";
  return core::greater_than(p, 0.0);
}

core::ParameterSpec max_flow_spec(double value, const std::string& source) {
  auto p = core::real_parameter("max_flow", "m3/s", "Free-delivery flow at rated speed", value, source);
  p.display_unit = "L/min";
  return core::greater_than(p, 0.0);
}

core::ParameterSpec speed_spec(double value) {
  auto p = core::real_parameter("speed", "1", "Pump speed as a fraction of rated speed", value, "");
  core::greater_than(p, 0.0);
  return core::at_most(p, 1.2);
}

}  // namespace

core::ParameterTable PumpParameters::table() {
  core::ParameterTable t;
  t.push_back(shutoff_spec(150e3, "Typical small in-rack coolant pump; the loop runs at 0.5-3 bar over CDU and manifolds ([liquid-loop-practice])"));
  t.push_back(max_flow_spec(20.0 / 60000.0, "Sized for ~1.5 L/min per GPU with margin (OCP guideline)"));
  t.push_back(speed_spec(1.0));
  return t;
}

core::ParameterTable PumpParameters::table(const PumpParameters& d, const std::string& sizing_source) {
  using namespace core;
  ParameterTable t;
  t.push_back(shutoff_spec(d.shutoff_pressure, sizing_source));
  t.push_back(max_flow_spec(d.max_flow, sizing_source));
  t.push_back(speed_spec(d.speed));
  auto p = real_parameter("best_efficiency_flow_fraction", "1",
                          "Best-efficiency flow as a fraction of the free-delivery flow",
                          d.best_efficiency_flow_fraction,
                          "Estimate: centrifugal pumps peak at 55-70 % of free delivery");
  greater_than(p, 0.0);
  t.push_back(less_than(p, 1.0));
  p = real_parameter("best_efficiency", "1", "Pump efficiency at the best-efficiency point", d.best_efficiency,
                     "Estimate for the pump size (small canned pumps ~0.5, end-suction pumps of 100-600 m3/h 0.75-0.85)");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("drive_efficiency", "1", "Efficiency of motor and variable-speed drive together",
                     d.drive_efficiency, "Estimate: IE3/IE4 motor 0.93-0.96 times drive 0.97");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

PumpParameters PumpParameters::from(const core::ParameterTree& s) {
  PumpParameters p;
  p.shutoff_pressure = s.number("shutoff_pressure");
  p.max_flow = s.number("max_flow");
  p.speed = s.number("speed");
  if (s.values.count("best_efficiency_flow_fraction") != 0)
    p.best_efficiency_flow_fraction = s.number("best_efficiency_flow_fraction");
  if (s.values.count("best_efficiency") != 0) p.best_efficiency = s.number("best_efficiency");
  if (s.values.count("drive_efficiency") != 0) p.drive_efficiency = s.number("drive_efficiency");
  return p;
}

double Pump::pressure_rise(double flow) const {
  const double s = running_speed();
  return p_.shutoff_pressure * s * s - resistance() * flow * std::abs(flow);
}

double Pump::efficiency(double flow) const {
  const double s = running_speed();
  if (s <= 0.0) return 0.0;
  const double q = flow / s, qm = p_.max_flow, qb = p_.best_efficiency_flow_fraction * qm;
  if (q <= 0.0 || q >= qm) return 0.0;
  if (q <= qb) return p_.best_efficiency * (q / qb) * (2.0 - q / qb);
  return p_.best_efficiency * (qm - q) * (qm + q - 2.0 * qb) / ((qm - qb) * (qm - qb));
}

double Pump::hydraulic_power(double flow) const { return stopped() ? 0.0 : flow * pressure_rise(flow); }

double Pump::shaft_power(double flow) const {
  // P(Q, s) = s^3 P1(Q / s); P1 = q dp1(q) / eta(q) with the common factors cancelled, so that
  // the limits at shut-off and at free delivery are exact.
  const double s = running_speed();
  if (s <= 0.0) return 0.0;
  const double qm = p_.max_flow, qb = p_.best_efficiency_flow_fraction * qm, r = resistance();
  const double q = std::clamp(flow / s, 0.0, qm);
  double p1 = 0.0;
  if (q <= qb) p1 = r * (qm - q) * (qm + q) * qb * qb / (p_.best_efficiency * (2.0 * qb - q));
  else p1 = q * r * (qm + q) * (qm - qb) * (qm - qb) / (p_.best_efficiency * (qm + q - 2.0 * qb));
  return s * s * s * p1;
}

std::string Pump::defect() const {
  if (!(p_.shutoff_pressure > 0.0))
    return "non-positive shut-off pressure " + format_general(p_.shutoff_pressure) + " Pa";
  if (!(p_.max_flow > 0.0)) return "non-positive free-delivery flow " + format_general(p_.max_flow) + " m3/s";
  if (!(p_.speed >= 0.0)) return "negative speed " + format_general(p_.speed);
  if (!(p_.best_efficiency_flow_fraction > 0.0 && p_.best_efficiency_flow_fraction < 1.0))
    return "best-efficiency flow fraction " + format_general(p_.best_efficiency_flow_fraction) +
           " is outside (0, 1)";
  if (!(p_.best_efficiency > 0.0 && p_.best_efficiency <= 1.0))
    return "best efficiency " + format_general(p_.best_efficiency) + " is outside (0, 1]";
  if (!(p_.drive_efficiency > 0.0 && p_.drive_efficiency <= 1.0))
    return "drive efficiency " + format_general(p_.drive_efficiency) + " is outside (0, 1]";
  return {};
}

void PumpBranch::evaluate(double flow, double& drop, double& slope) const {
  const PumpParameters& p = pump_.parameters();
  const double s = pump_.running_speed();
  const double r = pump_.resistance();
  solver::signed_power(flow, 2.0, 1e-3 * p.max_flow, drop, slope);
  drop = r * drop - p.shutoff_pressure * s * s;
  slope *= r;
}

double PumpBranch::pressure_drop(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return drop;
}

double PumpBranch::derivative(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return slope;
}

OperatingPoint operating_point(const Pump& pump, const std::function<double(double)>& loop_pressure_drop) {
  if (pump.stopped()) return {0.0, 0.0};
  // Residual r(Q) = dp_pump(Q) - dp_loop(Q): r(0) = dp_0 s^2 > 0, r(Q_max s) = -dp_loop < 0.
  double low = 0.0;
  double high = pump.parameters().max_flow * pump.running_speed();
  auto residual = [&](double q) { return pump.pressure_rise(q) - loop_pressure_drop(q); };
  DCTWIN_DEMAND(residual(low) > 0.0 && residual(high) <= 0.0, "pump operating point is not bracketed");
  for (int i = 0; i < 200 && (high - low) > 1e-15 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (residual(mid) > 0.0 ? low : high) = mid;
  }
  const double flow = 0.5 * (low + high);
  return {flow, pump.pressure_rise(flow)};
}

}  // namespace dctwin::models::hydraulic
