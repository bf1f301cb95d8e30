#include "dctwin/models/workload/power_smoothing.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::workload {

core::ParameterTable PowerSmoothingParameters::table() {
  using namespace core;
  const PowerSmoothingParameters d;
  ParameterTable t;
  t.push_back(boolean_parameter("enabled", "Smooth each GPU's power: floor, ramp-up and ramp-down limits", d.enabled));
  auto p = real_parameter("floor_fraction", "1", "Least board power as a share of the power limit (filler work below it)",
                          d.floor_fraction, "NVML power smoothing profile: percent floor 0-100 % ([nvml-api])");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("ramp_up_rate", "W/s", "Fastest rise of a GPU's power (the work runs slower while it ramps)",
                     d.ramp_up_rate,
                     "NVML power smoothing profile: ramp-up rate in W/s ([nvml-api]); value an estimate: a 700 W "
                     "swing in about 0.35 s");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("ramp_down_rate", "W/s", "Fastest fall of a GPU's power (filler work burns the rest)",
                     d.ramp_down_rate, "NVML power smoothing profile: ramp-down rate in W/s ([nvml-api]); value an estimate");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("ramp_down_hysteresis", "s", "Time the power is held before a ramp-down starts",
                     d.ramp_down_hysteresis, "NVML power smoothing profile: ramp-down hysteresis in ms ([nvml-api])");
  t.push_back(at_least(p, 0.0));
  t.push_back(boolean_parameter("fill_enabled", "Run filler work during exposed communication (software fill)",
                                d.fill_enabled));
  p = real_parameter("fill_activity", "1", "Switching activity of the filler work during communication",
                     d.fill_activity, "Estimate: filler kernels as busy as the optimizer to half the compute activity");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

PowerSmoothingParameters PowerSmoothingParameters::from(const core::ParameterTree& s) {
  PowerSmoothingParameters p;
  p.enabled = s.boolean("enabled");
  p.floor_fraction = s.number("floor_fraction");
  p.ramp_up_rate = s.number("ramp_up_rate");
  p.ramp_down_rate = s.number("ramp_down_rate");
  p.ramp_down_hysteresis = s.number("ramp_down_hysteresis");
  p.fill_enabled = s.boolean("fill_enabled");
  p.fill_activity = s.number("fill_activity");
  return p;
}

void PowerSmoothingParameters::check(const std::string& section_path) const {
  const ParameterCheck check(section_path);
  check.in_range("floor_fraction", floor_fraction, 0.0, 1.0, "");
  check.positive("ramp_up_rate", ramp_up_rate, "W/s");
  check.positive("ramp_down_rate", ramp_down_rate, "W/s");
  check.at_least("ramp_down_hysteresis", ramp_down_hysteresis, 0.0, "s");
  check.in_range("fill_activity", fill_activity, 0.0, 1.0, "");
}

double smoothed_power(const PowerSmoothingParameters& p, double origin, double target, double elapsed) {
  if (target >= origin) return std::min(target, origin + p.ramp_up_rate * elapsed);
  const double falling = elapsed - p.ramp_down_hysteresis;
  return falling <= 0.0 ? origin : std::max(target, origin - p.ramp_down_rate * falling);
}

double smoothed_energy(const PowerSmoothingParameters& p, double origin, double target, double from, double to) {
  if (!(to > from)) return 0.0;
  // Kinks of the piecewise-linear ramp: end of the hold (falling) and end of the ramp.
  double kinks[2];
  int n = 0;
  if (target >= origin) {
    kinks[n++] = (target - origin) / p.ramp_up_rate;
  } else {
    kinks[n++] = p.ramp_down_hysteresis;
    kinks[n++] = p.ramp_down_hysteresis + (origin - target) / p.ramp_down_rate;
  }
  double energy = 0.0, a = from;
  for (int k = 0; k <= n; ++k) {
    const double b = k < n ? std::clamp(kinks[k], from, to) : to;
    if (b > a) {
      energy += 0.5 * (b - a) * (smoothed_power(p, origin, target, a) + smoothed_power(p, origin, target, b));
      a = b;
    }
  }
  return energy;
}

double stretched_phase_time(const PowerSmoothingParameters& p, double nominal, double origin, double target,
                            double static_power) {
  if (!p.enabled || !(target > origin) || !(target > static_power) || !(nominal > 0.0)) return nominal;
  const double tau = (target - origin) / p.ramp_up_rate;
  const double phi0 = std::clamp((origin - static_power) / (target - static_power), 0.0, 1.0);
  // Work done by the end of the ramp: tau (1 + phi0) / 2.
  if (nominal >= 0.5 * tau * (1.0 + phi0)) return nominal + 0.5 * tau * (1.0 - phi0);
  // The phase ends during the ramp: phi0 T' + (1 - phi0) T'^2 / (2 tau) = T.
  const double a = 0.5 * (1.0 - phi0) / tau;
  if (a <= 0.0) return nominal / phi0;
  return (-phi0 + std::sqrt(phi0 * phi0 + 4.0 * a * nominal)) / (2.0 * a);
}

}  // namespace dctwin::models::workload
