#include "dctwin/models/workload/gpu_power.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::workload {

namespace {

constexpr double hertz_per_megahertz = 1e6;

/// Highest board power limit a scenario may set: the rack-scale boards, GB200 at ~1.2 kW and GB300
/// at up to ~1.4 kW per GPU ([gb200-nvl72-reports]).
constexpr double max_power_limit = 1400.0;

/// "1980 MHz".
std::string megahertz(double hertz) { return format_number(hertz / hertz_per_megahertz) + " MHz"; }

/// "1 V".
std::string volts(double value) { return format_number(value) + " V"; }

/// value > 0 and finite; a clock is checked (and printed) in MHz, as the table displays it.
void positive_finite(const ParameterCheck& check, const char* key, double value, const char* unit) {
  check.positive(key, value, unit);
  if (!std::isfinite(value)) check.fail(std::string(key) + " must be a finite number");
}

}  // namespace

core::ParameterTable GpuPowerParameters::table() {
  using namespace core;
  const GpuPowerParameters d;
  ParameterTable t;
  auto p = real_parameter("max_clock", "Hz", "f_max: highest SM clock, the clock of unthrottled work", d.max_clock,
                          "H100 SXM5 max SM clock 1980 MHz ([nvidia-smi-h100])");
  p.display_unit = "MHz";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("min_clock", "Hz", "Lowest SM clock the governor may set while the GPU runs", d.min_clock,
                     "Estimate (uncertain): bottom of the H100's supported SM clock list, ~210 MHz [unsourced]; [nvidia-smi-h100] gives "
                     "no minimum");
  p.display_unit = "MHz";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("idle_clock", "Hz", "SM clock with no work (the governor's demand while idle)", d.idle_clock,
                     "H100 SXM5 idle SM clock 345 MHz ([nvidia-smi-h100])");
  p.display_unit = "MHz";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("voltage_at_max_clock", "V", "V_max: core voltage at f_max", d.voltage_at_max_clock,
                     "Estimate (uncertain): no public H100 voltage-frequency curve; only V_floor / V_max enters the "
                     "power");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("voltage_floor", "V", "V_floor: core voltage at and below the knee clock", d.voltage_floor,
                     "Estimate (uncertain): usual minimum operating voltage of a 4-5 nm class process, ~0.7 V");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("voltage_knee_clock", "Hz", "f_knee: clock below which the voltage stays at its floor",
                     d.voltage_knee_clock,
                     "Estimate (uncertain): about 60 % of f_max, where boost tables usually leave their voltage floor");
  p.display_unit = "MHz";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("dynamic_power_at_max", "W", "P_dyn,max: switching power at activity 1, f_max and V_max",
                     d.dynamic_power_at_max,
                     "Calibrated [E]: compute activity 0.72 then gives ~540 W at f_max and 65 degC, in the measured "
                     "533-547 W compute-phase median ([h100-training-trace])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("static_power", "W", "P_static: board, HBM refresh and regulator losses that do not scale "
                     "with clock or temperature", d.static_power,
                     "Calibrated [E]: with ~30 W of package leakage at 35 degC the idle board draws ~85 W, inside "
                     "the 69-100 W idle range ([nvidia-smi-h100])");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("power_limit", "W", "Board power limit the governor caps to (nvidia-smi -pl)", d.power_limit,
                     "H100 SXM5: default and maximum 700 W, lowest settable 200 W ([nvidia-smi-h100]); the "
                     "range admits the rack-scale boards up to 1400 W: GB200 ~1.2 kW, GB300 up to ~1.4 kW per GPU "
                     "([gb200-nvl72-reports])");
  greater_than(p, 0.0);
  t.push_back(at_most(p, max_power_limit));
  return t;
}

GpuPowerParameters GpuPowerParameters::from(const core::ParameterTree& s) {
  GpuPowerParameters p;
  p.max_clock = s.number("max_clock");
  p.min_clock = s.number("min_clock");
  p.idle_clock = s.number("idle_clock");
  p.voltage_at_max_clock = s.number("voltage_at_max_clock");
  p.voltage_floor = s.number("voltage_floor");
  p.voltage_knee_clock = s.number("voltage_knee_clock");
  p.dynamic_power_at_max = s.number("dynamic_power_at_max");
  p.static_power = s.number("static_power");
  p.power_limit = s.number("power_limit");
  return p;
}

GpuPowerModel::GpuPowerModel(GpuPowerParameters p) : p_(p) {
  const ParameterCheck check("gpu_power");
  positive_finite(check, "max_clock", p_.max_clock / hertz_per_megahertz, "MHz");
  positive_finite(check, "min_clock", p_.min_clock / hertz_per_megahertz, "MHz");
  positive_finite(check, "idle_clock", p_.idle_clock / hertz_per_megahertz, "MHz");
  positive_finite(check, "voltage_at_max_clock", p_.voltage_at_max_clock, "V");
  positive_finite(check, "voltage_floor", p_.voltage_floor, "V");
  positive_finite(check, "voltage_knee_clock", p_.voltage_knee_clock / hertz_per_megahertz, "MHz");
  positive_finite(check, "dynamic_power_at_max", p_.dynamic_power_at_max, "W");
  check.at_least("static_power", p_.static_power, 0.0, "W");
  if (!std::isfinite(p_.static_power)) check.fail("static_power must be a finite number");
  check.in_half_open_range("power_limit", p_.power_limit, 0.0, max_power_limit, "W");

  if (p_.min_clock > p_.max_clock)
    check.fail("min_clock " + megahertz(p_.min_clock) + " is above max_clock " + megahertz(p_.max_clock));
  if (p_.min_clock == p_.max_clock)
    check.fail("min_clock " + megahertz(p_.min_clock) + " equals max_clock; the governor needs a clock range");
  if (p_.voltage_knee_clock < p_.min_clock || p_.voltage_knee_clock >= p_.max_clock)
    check.fail("voltage_knee_clock " + megahertz(p_.voltage_knee_clock) + " is not in [min_clock, max_clock) = [" +
               format_number(p_.min_clock / hertz_per_megahertz) + ", " +
               format_number(p_.max_clock / hertz_per_megahertz) + ") MHz");
  if (p_.idle_clock < p_.min_clock || p_.idle_clock > p_.max_clock)
    check.fail("idle_clock " + megahertz(p_.idle_clock) + " is not in [min_clock, max_clock] = [" +
               format_number(p_.min_clock / hertz_per_megahertz) + ", " +
               format_number(p_.max_clock / hertz_per_megahertz) + "] MHz");
  if (p_.voltage_floor > p_.voltage_at_max_clock)
    check.fail("voltage_floor " + volts(p_.voltage_floor) + " is above voltage_at_max_clock " +
               volts(p_.voltage_at_max_clock));
}

double GpuPowerModel::voltage(double clock) const {
  if (clock <= p_.voltage_knee_clock) return p_.voltage_floor;
  const double slope = (p_.voltage_at_max_clock - p_.voltage_floor) / (p_.max_clock - p_.voltage_knee_clock);
  return p_.voltage_floor + slope * (clock - p_.voltage_knee_clock);
}

double GpuPowerModel::dynamic_power(double activity, double clock) const {
  const double v = voltage(clock) / p_.voltage_at_max_clock;
  return activity * p_.dynamic_power_at_max * (clock / p_.max_clock) * v * v;
}

double GpuPowerModel::board_power(double activity, double clock, double leakage) const {
  return p_.static_power + leakage + dynamic_power(activity, clock);
}

double GpuPowerModel::clock_for_dynamic_power(double activity, double budget) const {
  DCTWIN_DEMAND(std::isfinite(activity) && activity >= 0.0, "GPU activity must be a finite number >= 0");
  DCTWIN_DEMAND(!std::isnan(budget), "GPU dynamic power budget must be a number");
  // No switching: every clock costs nothing, so f_max fits unless the budget itself is negative.
  if (activity == 0.0) return budget >= 0.0 ? p_.max_clock : p_.min_clock;
  if (budget >= dynamic_power(activity, p_.max_clock)) return p_.max_clock;
  if (budget <= dynamic_power(activity, p_.min_clock)) return p_.min_clock;

  // Solve g(f) = f (V(f) / V_max)^2 = c with c = budget f_max / (a P_dyn,max); g is increasing.
  const double c = budget * p_.max_clock / (activity * p_.dynamic_power_at_max);
  const double floor_ratio = p_.voltage_floor / p_.voltage_at_max_clock;
  const double g_knee = p_.voltage_knee_clock * floor_ratio * floor_ratio;
  // Below the knee g is linear in f: closed form.
  if (c <= g_knee) return std::clamp(c / (floor_ratio * floor_ratio), p_.min_clock, p_.max_clock);

  // Above it g(f) = f u(f)^2 with u linear and positive, so g is increasing and convex: Newton's
  // method started from f_max (where g > c) approaches the root from above, monotonically and
  // quadratically; a handful of steps reach far below 1 kHz.
  const double slope =
      (1.0 - floor_ratio) / (p_.max_clock - p_.voltage_knee_clock);  // du/df, u = V / V_max
  double f = p_.max_clock;
  constexpr int max_iterations = 60;
  constexpr double tolerance = 1e-3;  // [Hz]
  for (int i = 0; i < max_iterations; ++i) {
    const double u = floor_ratio + slope * (f - p_.voltage_knee_clock);
    const double g = f * u * u - c;
    const double dg = u * u + 2.0 * f * u * slope;
    const double step = g / dg;
    f -= step;
    if (std::fabs(step) <= tolerance) break;
  }
  return std::clamp(f, std::max(p_.min_clock, p_.voltage_knee_clock), p_.max_clock);
}

}  // namespace dctwin::models::workload
