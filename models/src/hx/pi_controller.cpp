#include "dctwin/models/hx/pi_controller.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_check.hpp"
#include "dctwin/models/quantize.hpp"

namespace dctwin::models::hx {

core::ParameterTable PiParameters::table() { return table(PiParameters{}); }

core::ParameterTable PiParameters::table(const PiParameters& d) {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("proportional_gain", "1", "K: output change per unit of control error", d.proportional_gain,
                          "Tuning value [E]; see the owning model");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("integral_time", "s", "T_i: integral time", d.integral_time, "Tuning value [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("sample_period", "s", "h: controller sample period", d.sample_period,
                     "Typical CDU / PLC control cycle [E]; at least 1 ms, far below any PLC cycle (each sample "
                     "is a solver stop: at 1e-14 s a run never ends)");
  t.push_back(at_least(p, 1e-3));
  p = real_parameter("output_min", "1", "Lower output limit", d.output_min, "");
  t.push_back(p);
  p = real_parameter("output_max", "1", "Upper output limit", d.output_max, "");
  t.push_back(p);
  p = choice_parameter("action", {"reverse", "direct"},
                       "reverse: output rises when the measurement is below the setpoint; direct: above",
                       std::string(d.action == ControllerAction::direct ? "direct" : "reverse"));
  t.push_back(p);
  p = choice_parameter("anti_windup", {"back_calculation", "clamping", "none"},
                       "Integrator anti-windup scheme",
                       std::string(d.anti_windup == AntiWindup::clamping ? "clamping"
                                   : d.anti_windup == AntiWindup::none   ? "none"
                                                                         : "back_calculation"));
  p.source = "Astrom & Hagglund, Advanced PID Control (2006), sec. 3.5";
  t.push_back(p);
  p = real_parameter("tracking_time", "s", "T_t: back-calculation tracking time (>= sample period)", d.tracking_time,
                     "T_t = T_i / 2, between T_d and T_i (Astrom & Hagglund 2006)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("output_resolution", "1",
                     "Step of the output as written (the command is rounded to it); 0 = continuous",
                     d.output_resolution, "Resolution of the actuator command [E]; see the owning model");
  t.push_back(at_least(p, 0.0));
  return t;
}

PiParameters PiParameters::from(const core::ParameterTree& s) {
  PiParameters p;
  p.proportional_gain = s.number("proportional_gain");
  p.integral_time = s.number("integral_time");
  p.sample_period = s.number("sample_period");
  p.output_min = s.number("output_min");
  p.output_max = s.number("output_max");
  p.action = s.text("action") == "direct" ? ControllerAction::direct : ControllerAction::reverse;
  const std::string& scheme = s.text("anti_windup");
  p.anti_windup = scheme == "clamping" ? AntiWindup::clamping
                  : scheme == "none"   ? AntiWindup::none
                                       : AntiWindup::back_calculation;
  p.tracking_time = s.number("tracking_time");
  p.output_resolution = s.number("output_resolution");
  return p;
}

PiController::PiController(PiParameters p, std::string section) : p_(p) {
  const ParameterCheck check(std::move(section));
  check.positive("proportional_gain", p_.proportional_gain, "");
  check.positive("integral_time", p_.integral_time, "s");
  check.positive("sample_period", p_.sample_period, "s");
  if (!std::isfinite(p_.output_min)) check.fail("output_min must be a finite number");
  check.greater_than("output_max", p_.output_max, p_.output_min, "");
  if (p_.anti_windup == AntiWindup::back_calculation)
    check.at_least("tracking_time", p_.tracking_time, p_.sample_period, "s");
  check.at_least("output_resolution", p_.output_resolution, 0.0, "");
  check.less_than("output_resolution", p_.output_resolution, p_.output_max - p_.output_min, "");
}

double PiController::quantize(double output) const {
  return quantize_to_step(output, p_.output_resolution, p_.output_min, p_.output_max);
}

double PiController::error(double setpoint, double measurement) const {
  const double e = setpoint - measurement;
  return p_.action == ControllerAction::reverse ? e : -e;
}

double PiController::step(PiState& state, double setpoint, double measurement) const {
  DCTWIN_DEMAND(std::isfinite(setpoint) && std::isfinite(measurement), "PI controller needs finite inputs");
  const double e = error(setpoint, measurement);
  const double v = p_.proportional_gain * e + state.integral;
  const double u = std::clamp(v, p_.output_min, p_.output_max);
  const double integral_increment = p_.proportional_gain * p_.sample_period / p_.integral_time * e;
  switch (p_.anti_windup) {
    case AntiWindup::back_calculation:
      state.integral += integral_increment + p_.sample_period / p_.tracking_time * (u - v);
      break;
    case AntiWindup::clamping: {
      const bool high = v > p_.output_max;
      const bool low = v < p_.output_min;
      if ((!high && !low) || (high && e < 0.0) || (low && e > 0.0)) state.integral += integral_increment;
      break;
    }
    case AntiWindup::none: state.integral += integral_increment; break;
  }
  state.output = quantize(u);
  return state.output;
}

void PiController::initialize(PiState& state, double output, double setpoint, double measurement) const {
  const double u = quantize(output);
  state.integral = u - p_.proportional_gain * error(setpoint, measurement);
  state.output = u;
}

PiState PiController::initial_state(double output, double setpoint, double measurement) const {
  PiState state;
  initialize(state, output, setpoint, measurement);
  return state;
}

}  // namespace dctwin::models::hx
