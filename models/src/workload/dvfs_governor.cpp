#include "dctwin/models/workload/dvfs_governor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::workload {

namespace {

constexpr double hertz_per_megahertz = 1e6;

void finite(const ParameterCheck& check, const char* key, double value) {
  if (!std::isfinite(value)) check.fail(std::string(key) + " must be a finite number");
}

}  // namespace

core::ParameterTable DvfsGovernorParameters::table() {
  using namespace core;
  const DvfsGovernorParameters d;
  ParameterTable t;
  auto p = real_parameter("update_period", "s", "dt: time between two clock decisions", d.update_period,
                          "Estimate (uncertain): GPU firmware re-decides clocks every few to tens of ms; 0.1 s "
                          "resolves the thermal time constants (~1 s and up) at a cost the 24k-GPU site affords; "
                          "at least 1 ms (each decision is a solver stop: at 1e-14 s a run never ends)");
  at_least(p, 1e-3);
  t.push_back(at_most(p, 10.0));
  p = real_parameter("thermal_gain", "Hz/(K s)", "k_th: rate at which the thermal clock ceiling falls per kelvin "
                     "of overshoot", d.thermal_gain,
                     "Estimate (uncertain): tuned so a one-node package (0.04-0.12 K/W, 1-30 s) settles in the "
                     "hysteresis band without limit cycles (docs/models/workload-gpu.md)");
  p.display_unit = "MHz/(K s)";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("thermal_recovery_rate", "Hz/s", "r_up: rate at which the thermal clock ceiling recovers "
                     "once the junction is below the hysteresis band", d.thermal_recovery_rate,
                     "Estimate (uncertain): slow enough that the junction's lag does not carry it past the limit "
                     "again (docs/models/workload-gpu.md)");
  p.display_unit = "MHz/s";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("thermal_hysteresis", "K", "dT_sw: band below the limit in which the thermal ceiling is held",
                     d.thermal_hysteresis,
                     "Estimate (uncertain): throttled H100s hold a few K below the 87 degC target ([nvidia-smi-h100], H100 "
                     "SXM5 thermal limits)");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("hw_slowdown_hysteresis", "K", "dT_hw: hardware slowdown clears once the junction is this far "
                     "below its trigger", d.hw_slowdown_hysteresis,
                     "Estimate (uncertain): below T_hw - T_max,op = 89 - 87 = 2 K ([nvidia-smi-h100], H100 SXM5), so it "
                     "clears while the software slowdown holds the junction");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("hw_slowdown_factor", "1", "Clock ceiling during hardware slowdown as a share of f_max",
                     d.hw_slowdown_factor,
                     "NVML HwSlowdown: clocks cut by a factor of 2 or more ([nvml-api])");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("power_cap_hysteresis", "W", "dP: the power-cap reason clears only below P_limit - dP",
                     d.power_cap_hysteresis,
                     "Estimate (uncertain): about 1 % of the 700 W limit, the order of the 1-s power reading's "
                     "jitter ([nvidia-smi-h100], H100 SXM5)");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("clock_step", "Hz", "Clocks are multiples of this step (rounded down); 0 = any clock", d.clock_step,
                     "Estimate (uncertain): H100 lists its supported SM clocks in steps of about 15 MHz "
                     "(nvidia-smi -q -d SUPPORTED_CLOCKS); 1980, 345 and 210 MHz are multiples of 15 MHz");
  p.display_unit = "MHz";
  t.push_back(at_least(p, 0.0));
  return t;
}

DvfsGovernorParameters DvfsGovernorParameters::from(const core::ParameterTree& s) {
  DvfsGovernorParameters p;
  p.update_period = s.number("update_period");
  p.thermal_gain = s.number("thermal_gain");
  p.thermal_recovery_rate = s.number("thermal_recovery_rate");
  p.thermal_hysteresis = s.number("thermal_hysteresis");
  p.hw_slowdown_hysteresis = s.number("hw_slowdown_hysteresis");
  p.hw_slowdown_factor = s.number("hw_slowdown_factor");
  p.power_cap_hysteresis = s.number("power_cap_hysteresis");
  p.clock_step = s.number("clock_step");
  return p;
}

DvfsGovernor::DvfsGovernor(DvfsGovernorParameters p, GpuPowerModel power, GpuThermalLimits limits)
    : p_(p), power_(power), limits_(limits) {
  const ParameterCheck check("dvfs_governor");
  check.in_half_open_range("update_period", p_.update_period, 0.0, 10.0, "s");
  check.positive("thermal_gain", p_.thermal_gain / hertz_per_megahertz, "MHz/(K s)");
  finite(check, "thermal_gain", p_.thermal_gain);
  check.positive("thermal_recovery_rate", p_.thermal_recovery_rate / hertz_per_megahertz, "MHz/s");
  finite(check, "thermal_recovery_rate", p_.thermal_recovery_rate);
  check.at_least("thermal_hysteresis", p_.thermal_hysteresis, 0.0, "K");
  finite(check, "thermal_hysteresis", p_.thermal_hysteresis);
  check.at_least("hw_slowdown_hysteresis", p_.hw_slowdown_hysteresis, 0.0, "K");
  finite(check, "hw_slowdown_hysteresis", p_.hw_slowdown_hysteresis);
  check.in_half_open_range("hw_slowdown_factor", p_.hw_slowdown_factor, 0.0, 1.0, "");
  check.at_least("power_cap_hysteresis", p_.power_cap_hysteresis, 0.0, "W");
  finite(check, "power_cap_hysteresis", p_.power_cap_hysteresis);
  check.at_least("clock_step", p_.clock_step / hertz_per_megahertz, 0.0, "MHz");
  finite(check, "clock_step", p_.clock_step);

  const GpuThermalLimits& l = limits_;
  for (const double t : {l.max_operating, l.hw_slowdown, l.shutdown, l.hbm_max_operating})
    if (!std::isfinite(t) || t <= 0.0) check.fail("temperature limits must be finite absolute temperatures");
  if (l.hw_slowdown <= l.max_operating)
    check.fail("hardware slowdown temperature " + format_celsius(l.hw_slowdown) +
               " is not above the maximum operating temperature " + format_celsius(l.max_operating));
  if (l.shutdown <= l.hw_slowdown)
    check.fail("shutdown temperature " + format_celsius(l.shutdown) +
               " is not above the hardware slowdown temperature " + format_celsius(l.hw_slowdown));
}

GovernorState DvfsGovernor::initial_state() const {
  const double f_max = power_.parameters().max_clock;
  return GovernorState{f_max, f_max, 0, false};
}

GovernorState DvfsGovernor::update(const GovernorState& previous, const GovernorInputs& in) const {
  return advance(previous, in, p_.update_period);
}

GovernorState DvfsGovernor::reclock(const GovernorState& previous, const GovernorInputs& in) const {
  return advance(previous, in, 0.0);
}

double DvfsGovernor::ladder_clock(double clock) const {
  if (p_.clock_step > 0.0) clock = std::floor((clock + 1.0) / p_.clock_step) * p_.clock_step;
  return std::max(clock, power_.parameters().min_clock);
}

double DvfsGovernor::rest_demand(bool working) const {
  // advance()'s f_other with neither slowdown: the demand under f_max.
  const GpuPowerParameters& pp = power_.parameters();
  return std::min(working ? pp.max_clock : pp.idle_clock, pp.max_clock);
}

GovernorState DvfsGovernor::rest_state(bool working) const {
  return GovernorState{ladder_clock(rest_demand(working)), power_.parameters().max_clock,
                       working ? 0 : throttle_reason::gpu_idle, false};
}

double DvfsGovernor::rest_leakage_limit(double activity, bool working) const {
  // The power-cap reason sets only when P_static + L + P_dyn(a, f_other) > P_limit.
  const GpuPowerParameters& pp = power_.parameters();
  return pp.power_limit - pp.static_power - power_.dynamic_power(activity, rest_demand(working));
}

bool DvfsGovernor::stays_at_rest(const GovernorState& previous, const GovernorInputs& in) const {
  // Each condition as advance() evaluates it: e <= 0 (the ceiling holds at f_max or recovers to
  // it), T_j below T_hw (T_max,op < T_hw), and the board power at the demand within the limit
  // (the cap reason is clear before, so only P > P_limit would set it).
  const GovernorState rest = rest_state(in.working);
  return !previous.shut_down && previous.clock == rest.clock && previous.thermal_ceiling == rest.thermal_ceiling &&
         previous.reasons == rest.reasons && in.junction_temperature <= limits_.max_operating &&
         in.hbm_temperature <= limits_.hbm_max_operating &&
         power_.board_power(in.activity, rest_demand(in.working), in.leakage_power) <= power_.parameters().power_limit;
}

GovernorState DvfsGovernor::advance(const GovernorState& previous, const GovernorInputs& in, double dt) const {
  if (previous.shut_down) return previous;
  DCTWIN_DEMAND(std::isfinite(in.junction_temperature) && std::isfinite(in.hbm_temperature),
                "DVFS governor needs finite temperatures");
  DCTWIN_DEMAND(std::isfinite(in.activity) && in.activity >= 0.0, "DVFS governor needs a finite activity >= 0");
  DCTWIN_DEMAND(std::isfinite(in.leakage_power), "DVFS governor needs a finite leakage power");

  const GpuPowerParameters& pp = power_.parameters();
  const double f_max = pp.max_clock;
  const double f_min = pp.min_clock;
  const double tj = in.junction_temperature;

  GovernorState next;
  if (tj >= limits_.shutdown) {
    next.clock = 0.0;
    next.thermal_ceiling = previous.thermal_ceiling;
    next.reasons = 0;
    next.shut_down = true;
    return next;
  }

  // 1. Hardware thermal slowdown, latched between T_hw - dT_hw and T_hw.
  bool hw = (previous.reasons & throttle_reason::hw_thermal_slowdown) != 0;
  if (tj >= limits_.hw_slowdown)
    hw = true;
  else if (tj <= limits_.hw_slowdown - p_.hw_slowdown_hysteresis)
    hw = false;
  const double hw_ceiling = hw ? std::max(f_min, p_.hw_slowdown_factor * f_max) : f_max;

  // 3 (needed by 2 and 4, computed only when one of them reads it). The highest clock whose
  //   board power fits the limit. The solve costs a few Newton steps, and at most updates the
  //   thermal ceiling holds and the power is under the cap, so nothing reads it.
  auto f_cap = [&] {
    const double budget = pp.power_limit - pp.static_power - in.leakage_power;
    return power_.clock_for_dynamic_power(in.activity, budget);
  };

  // 2. Software thermal slowdown: integral law on the ceiling f_th with a hold band. While
  //    cutting, the integration starts from the clock the other limits already impose on work
  //    (anti-windup): a ceiling above the running clock would cut nothing.
  const double e = std::max(tj - limits_.max_operating, in.hbm_temperature - limits_.hbm_max_operating);
  double f_th = previous.thermal_ceiling;
  if (e > 0.0 && dt > 0.0)
    f_th = std::min({f_th, hw_ceiling, f_cap()}) - p_.thermal_gain * e * dt;
  else if (e < -p_.thermal_hysteresis && dt > 0.0)
    f_th += p_.thermal_recovery_rate * dt;
  f_th = std::clamp(f_th, f_min, f_max);
  const bool sw_thermal = f_th < f_max;

  // 4 with the power cap reason's hysteresis.
  const double demand = in.working ? f_max : pp.idle_clock;
  const double f_other = std::min({demand, hw_ceiling, f_th});
  const double p_other = power_.board_power(in.activity, f_other, in.leakage_power);
  bool capped = (previous.reasons & throttle_reason::sw_power_cap) != 0;
  if (p_other > pp.power_limit)
    capped = true;
  else if (p_other < pp.power_limit - p_.power_cap_hysteresis)
    capped = false;
  const double clock = ladder_clock(capped ? std::min(f_other, f_cap()) : f_other);

  std::uint32_t reasons = 0;
  if (!in.working) reasons |= throttle_reason::gpu_idle;
  if (capped) reasons |= throttle_reason::sw_power_cap;
  if (sw_thermal) reasons |= throttle_reason::sw_thermal_slowdown;
  if (hw) reasons |= throttle_reason::hw_slowdown | throttle_reason::hw_thermal_slowdown;

  next.clock = clock;
  next.thermal_ceiling = f_th;
  next.reasons = reasons;
  next.shut_down = false;
  return next;
}

}  // namespace dctwin::models::workload
