#include "dctwin/models/hydraulic/pump.hpp"

#include <cmath>

#include "dctwin/solver/check.hpp"

namespace dctwin::models::hydraulic {

solver::ParameterTable PumpParameters::table() {
  using namespace solver;
  ParameterTable t;
  auto p = real_parameter("shutoff_pressure", "Pa", "Pressure rise at zero flow and rated speed", 150e3,
                          "Typical small in-rack coolant pump; the loop runs at 0.5-3 bar over CDU and manifolds (FACTS.md)");
  p.display_unit = "kPa";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("max_flow", "m3/s", "Free-delivery flow at rated speed", 20.0 / 60000.0,
                     "Sized for ~1.5 L/min per GPU with margin (OCP guideline)");
  p.display_unit = "L/min";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("speed", "1", "Pump speed as a fraction of rated speed", 1.0, "");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.2));
  return t;
}

PumpParameters PumpParameters::from(const solver::ParameterTree& s) {
  return {s.number("shutoff_pressure"), s.number("max_flow"), s.number("speed")};
}

double Pump::pressure_rise(double flow) const {
  const double q = flow / (p_.max_flow * p_.speed);
  return p_.shutoff_pressure * p_.speed * p_.speed * (1.0 - q * q);
}

OperatingPoint operating_point(const Pump& pump, const std::function<double(double)>& loop_pressure_drop) {
  // Residual r(Q) = dp_pump(Q) - dp_loop(Q): r(0) = dp_0 s^2 > 0, r(Q_max s) = -dp_loop < 0.
  double low = 0.0;
  double high = pump.parameters().max_flow * pump.parameters().speed;
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
