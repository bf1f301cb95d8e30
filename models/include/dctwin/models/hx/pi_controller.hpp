// Discrete-time PI controller with output limits, anti-windup and bumpless start, as firmware of a
// CDU, pump or valve runs it: sampled every h seconds, output held between samples.
//
// Positional form with a forward-Euler integral (Astrom & Hagglund, "Advanced PID Control", ISA
// 2006, sec. 3.5 and 13.3; Astrom & Wittenmark, "Computer-Controlled Systems", 3rd ed. 1997, sec. 8.5):
//
//   e_k   = sigma (r_k - y_k)         sigma = +1 reverse acting (output rises when y < r, e.g. heating)
//                                     sigma = -1 direct acting  (output rises when y > r, e.g. a
//                                                                cooling valve)
//   v_k   = K e_k + I_k               unsaturated output
//   u_k   = min(max(v_k, u_min), u_max)
//   I_k+1 = I_k + (K h / T_i) e_k + (h / T_t) (u_k - v_k)     back-calculation (tracking time T_t)
//         = I_k + (K h / T_i) e_k   only while not saturated   clamping (conditional integration):
//                                   or while e_k drives the output back inside the limits
//         = I_k + (K h / T_i) e_k                              none (windup, for comparison only)
//
//   y_k   = Q(u_k)                    the output as written: u_k rounded to the nearest multiple
//                                     of the resolution q, kept within the limits (q = 0: y = u).
//                                     The integral and the anti-windup above use the unrounded u_k,
//                                     so a slow drift accumulates until it moves y by a step; a
//                                     sample whose y equals the last one changes nothing.
//
// With back-calculation the integral is pulled towards the value that makes v = u with time
// constant T_t; h <= T_t is required (h / T_t > 1 would over-correct). Astrom & Hagglund advise
// T_t between the derivative and the integral time; for a PI controller T_t = T_i / 2 is used here.
//
// State lives outside the controller (plain data, copyable, checkpointable):
//   PiState { integral I_k, output y_{k-1} (as written) }.
// Bumpless start / transfer from manual: initialize() sets I so that the next step with the same
// setpoint and measurement returns the given output (clamped to the limits): I = u - K e.
// To change gains without a bump, construct the new controller and call its initialize() with
// the last output before the next step.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::hx {

enum class ControllerAction {
  reverse,  ///< output rises when the measurement is below the setpoint
  direct,   ///< output rises when the measurement is above the setpoint
};

enum class AntiWindup {
  back_calculation,  ///< tracking with time constant T_t
  clamping,          ///< conditional integration
  none,              ///< plain integration (windup), for comparison
};

struct PiParameters {
  double proportional_gain = 1.0;   ///< K [output unit per measurement unit], > 0
  double integral_time = 60.0;      ///< T_i [s], > 0
  double sample_period = 1.0;       ///< h [s], > 0
  double output_min = 0.0;          ///< u_min
  double output_max = 1.0;          ///< u_max > u_min
  ControllerAction action = ControllerAction::reverse;
  AntiWindup anti_windup = AntiWindup::back_calculation;
  double tracking_time = 30.0;      ///< T_t [s], >= h (back-calculation only)
  double output_resolution = 0.0;   ///< q [output unit], >= 0: step of the written output; 0 = none

  /// Table with the defaults above.
  static core::ParameterTable table();
  /// Table with the given defaults (each user of a controller has its own tuning).
  static core::ParameterTable table(const PiParameters& defaults);
  static PiParameters from(const core::ParameterTree& section);
};

/// The controller's memory between samples: plain data, stored by the caller.
struct PiState {
  double integral = 0.0;  ///< I_k, in output units
  double output = 0.0;    ///< y of the last step (after saturation and rounding)
};

class PiController {
 public:
  /// Checks the parameters; throws core::InputError, e.g.
  /// "controller.sample_period = 0 s (must be > 0)".
  explicit PiController(PiParameters p, std::string section = "controller");

  /// One sample: returns u_k and advances `state` to k + 1.
  double step(PiState& state, double setpoint, double measurement) const;

  /// Bumpless start: makes the next step(state, setpoint, measurement) return `output` clamped
  /// to [u_min, u_max].
  void initialize(PiState& state, double output, double setpoint, double measurement) const;
  /// A fresh state initialized as above.
  [[nodiscard]] PiState initial_state(double output, double setpoint, double measurement) const;

  /// u rounded to the nearest multiple of output_resolution, within [u_min, u_max].
  [[nodiscard]] double quantize(double output) const;
  /// sigma (r - y).
  [[nodiscard]] double error(double setpoint, double measurement) const;
  [[nodiscard]] const PiParameters& parameters() const { return p_; }

 private:
  PiParameters p_;
};

}  // namespace dctwin::models::hx
