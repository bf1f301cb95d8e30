#include "dctwin/models/thermal/server_fans.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/models/quantize.hpp"
#include "message_text.hpp"

namespace dctwin::models::thermal {

using detail::format_celsius;
using detail::format_decimals;

core::ParameterTable ServerFanParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("shutoff_pressure", "Pa", "Pressure rise of the fan wall at zero flow and full speed", 1200.0,
                          "Estimate [U]: 80 mm dual-rotor server fans, ~1-1.5 kPa static pressure at full speed");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("free_delivery_flow", "m3/s", "Air flow of the fan wall at zero pressure and full speed", 0.8,
                     "Estimate [U]: ~12 fans of ~140 CFM free delivery");
  p.display_unit = "m3/h";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rated_power", "W", "Electrical power of all server fans at full speed", 1500.0,
                     "Estimate [U/E]: air power 738 Pa x 0.496 m3/s = 366 W at ~25 % fan efficiency; fans take "
                     "10-15 % of server power (Neudorfer, eWeek 2009), 1-1.5 kW of a ~10 kW 8-GPU server");
  p.display_unit = "kW";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("system_pressure_drop_at_reference_flow", "Pa",
                     "Pressure drop of the chassis (grilles, GPU heatsinks, cables) at the reference flow", 750.0,
                     "Estimate [U], places full-speed flow at ~0.5 m3/s (~1050 CFM), the order of an 8-GPU 10 kW "
                     "server at ~15 K air rise");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("system_reference_flow", "m3/s", "Flow at which the chassis pressure drop is given", 0.5, "");
  p.display_unit = "m3/h";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("system_flow_exponent", "1", "k in dp_sys = dp_ref (V/V_ref)^k", 2.0,
                     "Turbulent losses through grilles and bends");
  at_least(p, 1.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("rotor_time_constant", "s",
                     "Time constant of the fans' speed following a newly written speed (first-order lag; a held speed has none); "
                     "0 = at once",
                     1.0,
                     "Estimate [U]: 80 mm server fans settle at a new PWM duty within a few seconds; Intel's 4-wire "
                     "PWM fan specification (rev. 1.3, 2005) bounds a start-up pulse at 2 s");
  t.push_back(at_least(p, 0.0));
  return t;
}

ServerFanParameters ServerFanParameters::from(const core::ParameterTree& s) {
  ServerFanParameters p;
  p.shutoff_pressure = s.number("shutoff_pressure");
  p.free_delivery_flow = s.number("free_delivery_flow");
  p.rated_power = s.number("rated_power");
  p.system_pressure_drop_at_reference_flow = s.number("system_pressure_drop_at_reference_flow");
  p.system_reference_flow = s.number("system_reference_flow");
  p.system_flow_exponent = s.number("system_flow_exponent");
  p.rotor_time_constant = s.number("rotor_time_constant");
  return p;
}

double ServerFans::pressure_rise(double flow, double speed) const {
  DCTWIN_DEMAND(speed >= 0.0, "fan speed must be >= 0");
  if (speed == 0.0) return 0.0;
  const double x = flow / (p_.free_delivery_flow * speed);
  return p_.shutoff_pressure * speed * speed * (1.0 - x * x);
}

double ServerFans::system_pressure_drop(double flow) const {
  DCTWIN_DEMAND(flow >= 0.0, "chassis pressure drop needs a non-negative flow");
  return p_.system_pressure_drop_at_reference_flow * std::pow(flow / p_.system_reference_flow, p_.system_flow_exponent);
}

FanOperatingPoint ServerFans::operating_point(double speed) const {
  DCTWIN_DEMAND(speed >= 0.0 && speed <= 1.0, "fan speed must be in [0, 1]");
  if (speed == 0.0) return {0.0, 0.0, 0.0};
  // g(V) = dp_fan - dp_sys is decreasing, positive at 0 and negative at free delivery.
  double low = 0.0, high = p_.free_delivery_flow * speed;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (pressure_rise(mid, speed) - system_pressure_drop(mid) > 0.0 ? low : high) = mid;
  }
  const double flow = 0.5 * (low + high);
  return {flow, system_pressure_drop(flow), power(speed)};
}

double ServerFans::lag_remaining(double elapsed) const {
  return p_.rotor_time_constant > 0.0 ? std::exp(-elapsed / p_.rotor_time_constant) : 0.0;
}

double ServerFans::power(double speed) const {
  DCTWIN_DEMAND(speed >= 0.0, "fan speed must be >= 0");
  return p_.rated_power * speed * speed * speed;
}

core::ParameterTable FanCurvePoint::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("temperature", "K", "Monitored temperature of this point of the fan table", std::nullopt, "");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("speed", "1", "Fan speed (fraction of full speed) at that temperature", std::nullopt, "");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

FanCurvePoint FanCurvePoint::from(const core::ParameterTree& s) { return {s.number("temperature"), s.number("speed")}; }

std::vector<FanCurvePoint> FanControllerParameters::default_curve() {
  return {{333.15, 0.3}, {348.15, 0.6}, {358.15, 1.0}};
}

core::ParameterTable FanControllerParameters::table() {
  using namespace core;
  ParameterTable t;
  t.push_back(choice_parameter("mode", {"pi", "curve"},
                               "Control law: PI on the hottest temperature, or a BMC fan table (curve)", "pi"));
  auto p = real_parameter("sample_period", "s", "Time between two controller samples", 1.0,
                          "BMC thermal loops read sensors about once a second [U]; at least 1 ms (each sample is a "
                          "solver stop: at 1e-14 s a run never ends)");
  t.push_back(at_least(p, 1e-3));
  p = real_parameter("target_temperature", "K", "Temperature the PI mode holds", 356.15,
                     "Estimate [U]: 4 K below the H100 87 degC slowdown target ([nvidia-smi-h100])");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("proportional_gain", "1/K", "Speed change per kelvin of error (PI mode)", 0.05, "Tuning [U]");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("integral_time", "s", "Integral time of the PI mode", 30.0,
                     "Tuning [U]: a few heatsink time constants");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("min_speed", "1", "Lowest speed the controller commands", 0.3, "Typical BMC floor [U]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("max_speed", "1", "Highest speed the controller commands", 1.0, "");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("max_slew_rate", "1/s", "Largest speed change per second", 0.05,
                     "Estimate [U]: full range in ~15 s, to limit acoustic and power steps");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hysteresis", "K", "Temperature drop needed before the curve mode lowers the speed", 2.0, "");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("speed_resolution", "1",
                     "Step of the speed the controller writes (the command is rounded to it); 0 = continuous", 0.01,
                     "BMC fan commands are a whole-percent PWM duty (IPMI/OEM fan commands; OpenBMC "
                     "phosphor-pid-control writes a percentage scaled to the hwmon pwm range 0-255, 1/255 = 0.4 %) [U]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.1));
  return t;
}

core::SectionSchema FanControllerParameters::schema() {
  core::SectionSchema s;
  s.doc = "Server fan controller (BMC)";
  s.parameters = table();
  core::SectionSchema point;
  point.doc = "Point of the fan table (curve mode)";
  point.parameters = FanCurvePoint::table();
  s.lists["curve"] = point;
  return s;
}

FanControllerParameters FanControllerParameters::from(const core::ParameterTree& s) {
  FanControllerParameters p;
  p.mode = s.text("mode");
  p.sample_period = s.number("sample_period");
  p.target_temperature = s.number("target_temperature");
  p.proportional_gain = s.number("proportional_gain");
  p.integral_time = s.number("integral_time");
  p.min_speed = s.number("min_speed");
  p.max_speed = s.number("max_speed");
  p.max_slew_rate = s.number("max_slew_rate");
  p.hysteresis = s.number("hysteresis");
  p.speed_resolution = s.number("speed_resolution");
  const auto& points = s.list("curve");
  if (!points.empty()) {
    p.curve.clear();
    for (const auto& point : points) p.curve.push_back(FanCurvePoint::from(point));
  }
  return p;
}

FanController::FanController(FanControllerParameters p) : p_(std::move(p)), pi_mode_(p_.mode != "curve") {
  if (p_.mode != "pi" && p_.mode != "curve")
    throw core::InputError("fan controller: mode '" + p_.mode + "' is not 'pi' or 'curve'");
  if (p_.min_speed > p_.max_speed)
    throw core::InputError("fan controller: min_speed " + format_decimals(p_.min_speed) + " is above max_speed " +
                             format_decimals(p_.max_speed));
  if (!(p_.sample_period > 0.0) || !(p_.max_slew_rate > 0.0) || !(p_.integral_time > 0.0))
    throw core::InputError("fan controller: sample_period, integral_time and max_slew_rate must be > 0");
  if (!(p_.speed_resolution >= 0.0 && p_.speed_resolution <= 0.1))
    throw core::InputError("fan controller: speed_resolution " + format_decimals(p_.speed_resolution) +
                             " is not in [0, 0.1]");
  // The slew limit allows r_max T_s per sample; a step larger than that could never be taken
  // (rounding to the nearest step and the slew correction would put the speed back every sample).
  if (p_.speed_resolution > p_.max_slew_rate * p_.sample_period * (1.0 + 1e-9))
    throw core::InputError("fan controller: speed_resolution " + format_decimals(p_.speed_resolution) +
                           " is larger than the slew limit per sample (max_slew_rate x sample_period = " +
                           format_decimals(p_.max_slew_rate * p_.sample_period) + "): the speed could never change");
  if (p_.curve.size() < 2)
    throw core::InputError("fan controller: curve needs at least 2 points (" + std::to_string(p_.curve.size()) +
                             " given)");
  for (std::size_t i = 1; i < p_.curve.size(); ++i) {
    const std::string here = "curve[" + std::to_string(i) + "]", before = "curve[" + std::to_string(i - 1) + "]";
    if (!(p_.curve[i].temperature > p_.curve[i - 1].temperature))
      throw core::InputError("fan controller: " + here + ".temperature " + format_celsius(p_.curve[i].temperature) +
                               " is not above " + before + ".temperature " +
                               format_celsius(p_.curve[i - 1].temperature));
    if (p_.curve[i].speed < p_.curve[i - 1].speed)
      throw core::InputError("fan controller: " + here + ".speed " + format_decimals(p_.curve[i].speed) +
                               " is below " + before + ".speed " + format_decimals(p_.curve[i - 1].speed) +
                               " (the curve must not fall)");
  }
}

FanControllerState FanController::initial_state(double speed) const {
  const double s = quantize(std::clamp(speed, p_.min_speed, p_.max_speed));
  return {s, s};
}

double FanController::quantize(double speed) const {
  return quantize_to_step(speed, p_.speed_resolution, p_.min_speed, p_.max_speed);
}

double FanController::curve_speed(double temperature) const {
  const auto& c = p_.curve;
  if (temperature <= c.front().temperature) return c.front().speed;
  if (temperature >= c.back().temperature) return c.back().speed;
  std::size_t i = 1;
  while (c[i].temperature < temperature) ++i;
  const double w = (temperature - c[i - 1].temperature) / (c[i].temperature - c[i - 1].temperature);
  return c[i - 1].speed + w * (c[i].speed - c[i - 1].speed);
}

double FanController::step(FanControllerState& state, const FanControllerInputs& inputs) const {
  DCTWIN_DEMAND(std::isfinite(inputs.temperature), "fan controller input temperature must be finite");
  double demand = 0.0, error = 0.0, integral = state.integral;
  if (pi_mode_) {
    error = inputs.temperature - p_.target_temperature;
    integral += p_.proportional_gain * (p_.sample_period / p_.integral_time) * error;
    demand = p_.proportional_gain * error + integral;
  } else {
    demand = curve_speed(inputs.temperature);
    if (demand < state.speed) demand = std::min(state.speed, curve_speed(inputs.temperature + p_.hysteresis));
  }
  const double step_limit = p_.max_slew_rate * p_.sample_period;
  double speed = std::clamp(demand, p_.min_speed, p_.max_speed);
  speed = std::clamp(speed, state.speed - step_limit, state.speed + step_limit);
  if (pi_mode_) state.integral = speed != demand ? speed - p_.proportional_gain * error : integral;
  // The written speed: the nearest step, or the next one towards s_k where the nearest would break
  // the slew limit (s_k is itself a step).
  double written = quantize(speed);
  const double r = p_.speed_resolution, slack = 1e-9 * r;
  if (written > state.speed + step_limit + slack && written - r >= p_.min_speed) written -= r;
  if (written < state.speed - step_limit - slack && written + r <= p_.max_speed) written += r;
  state.speed = written;
  return written;
}

}  // namespace dctwin::models::thermal
