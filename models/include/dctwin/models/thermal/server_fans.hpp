// Server fans of an air-cooled 8-GPU server: fan curve with affinity laws, chassis system curve,
// operating air flow, fan power, and the fan controller (as a baseboard management controller runs
// it).
//
// Fan wall at speed s = n / n_rated in [0, 1] (affinity laws: flow ~ s, pressure ~ s^2, power ~ s^3):
//
//   dp_fan(V, s) = dp_0 s^2 (1 - (V / (V_free s))^2)         quadratic fan curve, no stall region
//   dp_sys(V)    = dp_ref (V / V_ref)^k                       chassis, GPU heatsinks included, k = 2
//   V_op(s)      : dp_fan(V_op, s) = dp_sys(V_op)             unique root on [0, V_free s]
//   P_fan(s)     = P_rated s^3                                electrical power, all of it ends as heat
//                                                             in the server's air stream
//
// For k = 2 the operating point is V_op = s sqrt(dp_0 / (dp_ref / V_ref^2 + dp_0 / V_free^2)): flow
// is proportional to speed, and so P_fan ~ V_op^3 on a fixed chassis.
//
// Rotor lag: a written speed s_w is not reached at once; the rotors' inertia against the motor's
// torque makes the speed follow as a first-order lag with time constant tau,
//
//   s(t) = s_w + (s_0 - s_w) a(t - t_w),   a(dt) = exp(-dt / tau)   (a = 0 when tau = 0),
//
// from the speed s_0 at the write t_w. The air flow is carried on the same lag between the
// operating points of s_0 and s_w (exact for k = 2, where V_op ~ s; a chord of V_op(s) otherwise),
// and the power is P_fan(s(t)).
//
// Fan controller: a discrete-time controller sampled every T_s on the hottest monitored temperature
// (the GPU temperature the BMC reads). Its state is plain data (FanControllerState) that the caller
// stores, so one controller object serves any number of servers:
//
//   PI mode      e_k = T_k - T_target
//                I'  = I_k + K_p (T_s / T_i) e_k
//                u   = K_p e_k + I'                           speed demand
//   curve mode   u   = piecewise-linear curve(T_k) (BMC fan table); when the demand falls below the
//                      current speed it is taken at T_k + hysteresis, so speed only drops once the
//                      temperature has fallen by the hysteresis
//   both         v = clamp(u, s_min, s_max), then |v - s_k| <= r_max T_s (slew limit);
//                s_k+1 = Q(v), the speed written to the fans: v rounded to the nearest multiple of the
//                resolution q (BMCs write a whole-percent duty; hwmon pwm is 0-255), then clamped to
//                [s_min, s_max] again, and moved one step towards s_k if the nearest step would break
//                the slew limit (q = 0: no rounding). A sample whose Q(v) equals s_k changes
//                nothing. PI anti-windup by tracking on the unrounded v: if v differs from u,
//                I_k+1 = v - K_p e_k, else I_k+1 = I'; the integral never sees the rounding, so a
//                slow drift accumulates until it moves the written speed by a step.
//
// Errors (dctwin::core::InputError, exact messages):
//   "fan controller: min_speed 0.8 is above max_speed 0.6"
//   "fan controller: curve needs at least 2 points (1 given)"
//   "fan controller: curve[2].temperature 80 degC is not above curve[1].temperature 80 degC"
//   "fan controller: curve[1].speed 0.4 is below curve[0].speed 0.5 (the curve must not fall)"
//   "fan controller: speed_resolution 0.2 is not in [0, 0.1]"
//   "fan controller: speed_resolution 0.01 is larger than the slew limit per sample (max_slew_rate x
//    sample_period = 0.005): the speed could never change"
#pragma once

#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::thermal {

struct ServerFanParameters {
  double shutoff_pressure = 1200.0;                   ///< dp_0 [Pa] at zero flow and full speed
  double free_delivery_flow = 0.8;                    ///< V_free [m3/s] at zero pressure and full speed
  double rated_power = 1500.0;                        ///< P_rated [W] electrical, full speed
  double system_pressure_drop_at_reference_flow = 750.0;  ///< dp_ref [Pa] of the chassis at V_ref
  double system_reference_flow = 0.5;                 ///< V_ref [m3/s]
  double system_flow_exponent = 2.0;                  ///< k [1]
  double rotor_time_constant = 1.0;                   ///< tau [s] of the speed's lag behind a write

  static core::ParameterTable table();
  static ServerFanParameters from(const core::ParameterTree& section);
};

/// Operating point of the fans on the chassis.
struct FanOperatingPoint {
  double flow = 0.0;            ///< [m3/s]
  double pressure_rise = 0.0;   ///< [Pa]
  double power = 0.0;           ///< electrical [W]
};

class ServerFans {
 public:
  explicit ServerFans(ServerFanParameters p) : p_(p) {}
  /// Fan pressure rise at flow V and speed s [Pa] (negative beyond free delivery).
  [[nodiscard]] double pressure_rise(double flow, double speed) const;
  /// Chassis pressure drop at flow V >= 0 [Pa].
  [[nodiscard]] double system_pressure_drop(double flow) const;
  /// Where the fan curve at speed s in [0, 1] meets the chassis curve (bisection to 1e-12 relative).
  [[nodiscard]] FanOperatingPoint operating_point(double speed) const;
  /// Electrical fan power at speed s [W] = P_rated s^3.
  [[nodiscard]] double power(double speed) const;
  /// a(dt) = exp(-dt / tau): the part of a speed change still to come dt [s] after the write (0
  /// when tau = 0: the speed is reached at once).
  [[nodiscard]] double lag_remaining(double elapsed) const;
  [[nodiscard]] const ServerFanParameters& parameters() const { return p_; }

 private:
  ServerFanParameters p_;
};

/// One point of a BMC fan table: at `temperature` the fans run at `speed`.
struct FanCurvePoint {
  double temperature = 0.0;  ///< [K]
  double speed = 0.0;        ///< [1]

  static core::ParameterTable table();
  static FanCurvePoint from(const core::ParameterTree& section);
};

struct FanControllerParameters {
  std::string mode = "pi";                 ///< "pi" or "curve"
  double sample_period = 1.0;              ///< T_s [s]
  double target_temperature = 356.15;      ///< T_target [K] (83 degC), PI mode
  double proportional_gain = 0.05;         ///< K_p [1/K]: speed fraction per kelvin of error
  double integral_time = 30.0;             ///< T_i [s]
  double min_speed = 0.3;                  ///< s_min [1]
  double max_speed = 1.0;                  ///< s_max [1]
  double max_slew_rate = 0.05;             ///< r_max [1/s]: speed change per second
  double hysteresis = 2.0;                 ///< [K], curve mode
  double speed_resolution = 0.01;          ///< q [1]: step of the written speed (1 % duty); 0 = none
  std::vector<FanCurvePoint> curve = default_curve();  ///< curve mode, temperatures increasing

  /// 30 % below 60 degC, 60 % at 75 degC, 100 % from 85 degC.
  static std::vector<FanCurvePoint> default_curve();
  static core::ParameterTable table();
  /// The parameters plus the list `curve` of FanCurvePoint.
  static core::SectionSchema schema();
  /// Reads the parameters and, if given, the list `curve` (else the default curve).
  static FanControllerParameters from(const core::ParameterTree& section);
};

/// What the controller remembers between samples. Plain data: copy it, store it per server.
struct FanControllerState {
  double speed = 1.0;     ///< last applied speed s_k [1]
  double integral = 1.0;  ///< PI integral term I_k [1]
};

/// What the controller reads at a sample.
struct FanControllerInputs {
  double temperature = 0.0;  ///< hottest monitored temperature [K]
};

class FanController {
 public:
  /// Throws the documented core::InputError for inconsistent parameters.
  explicit FanController(FanControllerParameters p);
  /// State that holds `speed` (clamped to [s_min, s_max]) while the error is zero.
  [[nodiscard]] FanControllerState initial_state(double speed) const;
  /// One sample: updates `state` and returns the new speed.
  double step(FanControllerState& state, const FanControllerInputs& inputs) const;
  /// The speed as written: rounded to the nearest multiple of speed_resolution, within the limits.
  [[nodiscard]] double quantize(double speed) const;
  /// The curve-mode demand at temperature T (before limits) [1].
  [[nodiscard]] double curve_speed(double temperature) const;
  [[nodiscard]] const FanControllerParameters& parameters() const { return p_; }

 private:
  FanControllerParameters p_;
  bool pi_mode_;
};

}  // namespace dctwin::models::thermal
