// Centrifugal pump: quadratic head curve with the affinity laws, efficiency and power curves, a
// failed state, and its branch law for flow networks; the operating point of one pump on a loop.
//
// Head curve (s = speed / rated speed, r = dp_0 / Q_max^2):
//
//   dp_pump(Q, s) = dp_0 s^2 - r Q|Q|  = dp_0 s^2 (1 - (Q / (Q_max s))^2)  for Q >= 0
//
// (affinity laws: flow ~ s, pressure ~ s^2, power ~ s^3). Beyond free delivery (Q > Q_max s) the
// rise is negative: the pump is overrun and acts as a resistance. Under reverse flow the rise grows
// (dp_0 s^2 + r Q^2). A stopped or failed pump (s = 0) is the resistance r Q|Q| of its impeller.
//
// Efficiency at rated speed, with q the flow and q_b the best-efficiency flow (q_b = f_b Q_max),
// a parabola on each side of the best point, zero at shut-off and at free delivery:
//
//   eta(q) = eta_b (q / q_b) (2 - q / q_b)                                  0 <= q <= q_b
//   eta(q) = eta_b (Q_max - q) (Q_max + q - 2 q_b) / (Q_max - q_b)^2        q_b < q <= Q_max
//
// and eta(Q, s) = eta(Q / s) (similar operating points). Shaft power P = Q dp_pump / eta has the
// finite limits dp_0 s^3 q_b / (2 eta_b) at shut-off and dp_0 s^3 (Q_max - q_b) / eta_b at free
// delivery; it is evaluated in the cancelled forms (see pump.cpp). Electrical power = P / eta_drive
// (motor and variable-speed drive). Outside [0, Q_max s] the efficiency is reported as 0 and the
// shaft power is held at its value at the nearer end (0 or Q_max s).
//
// The operating point is where the pump's rise equals the loop's pressure drop,
// dp_pump(Q, s) = dp_loop(Q), with dp_loop increasing and dp_pump decreasing in Q on [0, Q_max s]:
// a unique root, found by bracketing and bisection to 1e-15 relative. A stopped pump gives Q = 0.
#pragma once

#include <functional>
#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/solver/network.hpp"

namespace dctwin::models::hydraulic {

struct PumpParameters {
  double shutoff_pressure = 150e3;  ///< dp_0 [Pa], pressure rise at zero flow and rated speed
  double max_flow = 20.0 / 60000.0;  ///< Q_max [m3/s], free-delivery flow at rated speed (20 L/min)
  double speed = 1.0;               ///< s [1], fraction of rated speed
  double best_efficiency_flow_fraction = 0.6;  ///< f_b = q_b / Q_max [1]
  double best_efficiency = 0.5;                ///< eta_b [1], pump (hydraulic) efficiency at q_b
  double drive_efficiency = 0.9;               ///< eta_drive [1], motor and drive
  bool failed = false;                         ///< a failed pump is stopped whatever its speed

  /// The head-curve and speed table (shutoff_pressure, max_flow, speed) with the defaults of the
  /// small in-rack pump.
  static core::ParameterTable table();
  /// All parameters (head curve, speed, efficiencies) with the given defaults; `sizing_source`
  /// is the source given for the head-curve defaults.
  static core::ParameterTable table(const PumpParameters& defaults, const std::string& sizing_source);
  /// Reads the head curve and speed, and the efficiencies when the section declares them.
  static PumpParameters from(const core::ParameterTree& section);
};

class Pump {
 public:
  explicit Pump(PumpParameters p) : p_(p) {}
  /// Pressure rise at flow Q [Pa] (negative beyond free delivery).
  [[nodiscard]] double pressure_rise(double flow) const;
  [[nodiscard]] const PumpParameters& parameters() const { return p_; }

  /// Speed actually turning: 0 when failed, else the set speed [1].
  [[nodiscard]] double running_speed() const { return p_.failed ? 0.0 : p_.speed; }
  [[nodiscard]] bool stopped() const { return running_speed() <= 0.0; }
  /// Impeller resistance r = dp_0 / Q_max^2 [Pa/(m3/s)^2].
  [[nodiscard]] double resistance() const { return p_.shutoff_pressure / (p_.max_flow * p_.max_flow); }
  /// Pump efficiency at flow Q (0 outside [0, Q_max s] and when stopped) [1].
  [[nodiscard]] double efficiency(double flow) const;
  /// Q dp_pump [W] (0 when stopped).
  [[nodiscard]] double hydraulic_power(double flow) const;
  /// Power at the shaft [W] (0 when stopped).
  [[nodiscard]] double shaft_power(double flow) const;
  /// Power drawn by motor and drive [W].
  [[nodiscard]] double electrical_power(double flow) const { return shaft_power(flow) / p_.drive_efficiency; }
  /// Empty when the parameters make a pump, otherwise what is wrong.
  [[nodiscard]] std::string defect() const;

 private:
  PumpParameters p_;
};

/// A pump as a network branch from its suction to its discharge node:
///   dp(Q) = -dp_0 s^2 + r signed_power(Q, 2, Q_t),   Q_t = 1e-3 Q_max
/// (the regularised head curve; identical to `Pump::pressure_rise` for |Q| >= Q_t). It always
/// counts as a driving branch. With a check valve, a stopped pump is closed (passes no flow).
class PumpBranch final : public solver::BranchLaw {
 public:
  explicit PumpBranch(PumpParameters p, bool check_valve = true) : pump_(p), check_valve_(check_valve) {}
  [[nodiscard]] double pressure_drop(double flow) const override;
  [[nodiscard]] double derivative(double flow) const override;
  void evaluate(double flow, double& drop, double& slope) const override;
  [[nodiscard]] double flow_scale() const override { return pump_.parameters().max_flow; }
  [[nodiscard]] bool drives_flow() const override { return true; }
  [[nodiscard]] bool closed() const override { return check_valve_ && pump_.stopped(); }
  [[nodiscard]] std::string defect() const override { return pump_.defect(); }
  [[nodiscard]] const Pump& pump() const { return pump_; }
  [[nodiscard]] bool check_valve() const { return check_valve_; }

 private:
  Pump pump_;
  bool check_valve_;
};

/// A pump working against a loop whose pressure drop is `loop_pressure_drop(Q)` (increasing, zero
/// at Q = 0).
struct OperatingPoint {
  double flow = 0.0;             ///< [m3/s]
  double pressure_rise = 0.0;    ///< [Pa]
};
OperatingPoint operating_point(const Pump& pump, const std::function<double(double)>& loop_pressure_drop);

}  // namespace dctwin::models::hydraulic
