// Centrifugal pump with a quadratic head curve and the affinity laws, and the operating point of a
// pump on a loop.
//
//   dp_pump(Q, s) = dp_0 s^2 (1 - (Q / (Q_max s))^2)     s = speed / rated speed
//
// (affinity laws: flow ~ s, pressure ~ s^2). The operating point is where the pump's rise equals
// the loop's pressure drop, dp_pump(Q, s) = dp_loop(Q), with dp_loop increasing and dp_pump
// decreasing in Q on [0, Q_max s]: a unique root, found by bracketing and bisection to 1e-12.
#pragma once

#include <functional>

#include "dctwin/solver/parameters.hpp"

namespace dctwin::models::hydraulic {

struct PumpParameters {
  double shutoff_pressure = 150e3;  ///< dp_0 [Pa], pressure rise at zero flow and rated speed
  double max_flow = 20.0 / 60000.0;  ///< Q_max [m3/s], free-delivery flow at rated speed (20 L/min)
  double speed = 1.0;               ///< s [1], fraction of rated speed

  static solver::ParameterTable table();
  static PumpParameters from(const solver::ParameterTree& section);
};

class Pump {
 public:
  explicit Pump(PumpParameters p) : p_(p) {}
  /// Pressure rise at flow Q [Pa] (negative beyond free delivery).
  [[nodiscard]] double pressure_rise(double flow) const;
  [[nodiscard]] const PumpParameters& parameters() const { return p_; }

 private:
  PumpParameters p_;
};

/// A pump working against a loop whose pressure drop is `loop_pressure_drop(Q)` (increasing, zero
/// at Q = 0).
struct OperatingPoint {
  double flow = 0.0;             ///< [m3/s]
  double pressure_rise = 0.0;    ///< [Pa]
};
OperatingPoint operating_point(const Pump& pump, const std::function<double(double)>& loop_pressure_drop);

}  // namespace dctwin::models::hydraulic
