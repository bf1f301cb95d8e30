// DVFS governor: NVML reason bits, each throttle reason set and cleared with its hysteresis, idle,
// shutdown, the clock floor, a closed loop with a one-node thermal plant, bad parameters and the
// parameter table.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/workload/dvfs_governor.hpp"
#include "dctwin/models/workload/gpu_power.hpp"

using namespace dctwin::models::workload;
namespace reason = dctwin::models::workload::throttle_reason;

using model_test::defaults_tree;
using model_test::input_error;

namespace {

constexpr double kelvin = 273.15;
constexpr double mhz = 1e6;

/// Package leakage used by the facility scenarios: L = 50 W exp(0.02 (T_j - 60 degC)).
double leakage(double junction_celsius) { return 50.0 * std::exp(0.02 * (junction_celsius - 60.0)); }

/// Inputs at junction / HBM temperatures in degC, with the package leakage at that junction.
GovernorInputs at(double junction_celsius, double activity = 0.72, double hbm_celsius = 60.0, bool working = true) {
  GovernorInputs in;
  in.junction_temperature = kelvin + junction_celsius;
  in.hbm_temperature = kelvin + hbm_celsius;
  in.activity = activity;
  in.leakage_power = leakage(junction_celsius);
  in.working = working;
  return in;
}

bool has(const GovernorState& s, std::uint32_t bit) { return (s.reasons & bit) != 0; }

/// Governor parameters with a continuous clock (no 15 MHz ladder), so that clocks can be compared
/// with the control laws exactly; the ladder has its own test.
DvfsGovernorParameters continuous() {
  DvfsGovernorParameters p;
  p.clock_step = 0.0;
  return p;
}

DvfsGovernor default_governor() {
  return DvfsGovernor(continuous(), GpuPowerModel(GpuPowerParameters{}), GpuThermalLimits{});
}

}  // namespace

TEST_CASE("throttle reason bits equal NVML's nvmlClocksEventReason values", "[workload][dvfs]") {
  STATIC_REQUIRE(reason::gpu_idle == 0x1);
  STATIC_REQUIRE(reason::applications_clocks_setting == 0x2);
  STATIC_REQUIRE(reason::sw_power_cap == 0x4);
  STATIC_REQUIRE(reason::hw_slowdown == 0x8);
  STATIC_REQUIRE(reason::sync_boost == 0x10);
  STATIC_REQUIRE(reason::sw_thermal_slowdown == 0x20);
  STATIC_REQUIRE(reason::hw_thermal_slowdown == 0x40);
  STATIC_REQUIRE(reason::hw_power_brake_slowdown == 0x80);
  STATIC_REQUIRE(reason::display_clock_setting == 0x100);
}

TEST_CASE("a cool working GPU runs at f_max with no reasons", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const double f_max = governor.power().parameters().max_clock;
  GovernorState s = governor.initial_state();
  CHECK(s.clock == f_max);
  CHECK(s.thermal_ceiling == f_max);
  CHECK(s.reasons == 0);
  CHECK_FALSE(s.shut_down);
  for (int i = 0; i < 100; ++i) {
    s = governor.update(s, at(65.0));
    REQUIRE(s.clock == f_max);
    REQUIRE(s.reasons == 0);
  }
  // The HBM just below its limit and the junction just below 87 degC change nothing either.
  s = governor.update(s, at(86.99, 0.72, 94.99));
  CHECK(s.clock == f_max);
  CHECK(s.reasons == 0);
}

TEST_CASE("hardware slowdown halves the clock and clears with its hysteresis", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const DvfsGovernorParameters& g = governor.parameters();
  const double f_max = governor.power().parameters().max_clock;
  const double t_hw = governor.limits().hw_slowdown - kelvin;  // 89 degC
  REQUIRE(t_hw == Approx(89.0));

  // Just below the trigger: software slowdown only.
  GovernorState s = governor.update(governor.initial_state(), at(t_hw - 0.01));
  CHECK_FALSE(has(s, reason::hw_slowdown));
  CHECK_FALSE(has(s, reason::hw_thermal_slowdown));
  CHECK(has(s, reason::sw_thermal_slowdown));

  // At the trigger: both HW bits, and the clock is cut to half of f_max; the software ceiling
  // starts its cut from that half (it is above 87 degC as well).
  s = governor.update(governor.initial_state(), at(t_hw));
  CHECK(has(s, reason::hw_slowdown));
  CHECK(has(s, reason::hw_thermal_slowdown));
  CHECK(has(s, reason::sw_thermal_slowdown));
  CHECK(s.clock <= 0.5 * f_max);
  CHECK(s.clock == Approx(0.5 * f_max - g.thermal_gain * 2.0 * g.update_period).margin(1.0));

  // Inside the band [T_hw - dT_hw, T_hw) the latch holds; at its bottom it clears.
  s = governor.update(s, at(t_hw - 0.5 * g.hw_slowdown_hysteresis));
  CHECK(has(s, reason::hw_slowdown));
  CHECK(has(s, reason::hw_thermal_slowdown));
  CHECK(s.clock <= 0.5 * f_max);
  s = governor.update(s, at(t_hw - g.hw_slowdown_hysteresis + 0.01));
  CHECK(has(s, reason::hw_slowdown));
  s = governor.update(s, at(t_hw - g.hw_slowdown_hysteresis));
  CHECK_FALSE(has(s, reason::hw_slowdown));
  CHECK_FALSE(has(s, reason::hw_thermal_slowdown));
  // The software ceiling keeps the clock low after the HW slowdown has cleared (no jump back).
  CHECK(s.clock <= 0.5 * f_max);
  CHECK(has(s, reason::sw_thermal_slowdown));
}

TEST_CASE("hardware slowdown alone sets exactly half of f_max", "[workload][dvfs]") {
  // Isolate the HW ceiling: a software target far above and a GPU that is latched in HW slowdown
  // with the junction inside the HW band (here the software error is negative).
  GpuThermalLimits limits;
  limits.max_operating = kelvin + 80.0;
  limits.hw_slowdown = kelvin + 85.0;
  limits.shutdown = kelvin + 95.0;
  DvfsGovernorParameters p = continuous();
  p.hw_slowdown_hysteresis = 10.0;
  const DvfsGovernor governor(p, GpuPowerModel(GpuPowerParameters{}), limits);
  const double f_max = governor.power().parameters().max_clock;
  GovernorState s = governor.initial_state();
  s.reasons = reason::hw_slowdown | reason::hw_thermal_slowdown;
  s = governor.update(s, at(77.0));  // e = -3 K: the software ceiling recovers, stays at f_max
  CHECK(s.thermal_ceiling == f_max);
  CHECK(has(s, reason::hw_slowdown));
  CHECK(has(s, reason::hw_thermal_slowdown));
  CHECK_FALSE(has(s, reason::sw_thermal_slowdown));
  CHECK(s.clock == 0.5 * f_max);
  s = governor.update(s, at(75.0));  // T_hw - dT_hw: cleared
  CHECK(s.reasons == 0);
  CHECK(s.clock == f_max);
}

TEST_CASE("software thermal slowdown by the junction: set, held in its band, cleared below", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const DvfsGovernorParameters& g = governor.parameters();
  const double f_max = governor.power().parameters().max_clock;
  GovernorState s = governor.initial_state();

  // Above 87 degC the ceiling falls by k_th e dt per update.
  double ceiling = f_max;
  for (int i = 0; i < 20; ++i) {
    s = governor.update(s, at(88.0));
    ceiling -= g.thermal_gain * 1.0 * g.update_period;
    REQUIRE(s.thermal_ceiling == Approx(ceiling).margin(1.0));
    REQUIRE(s.clock == Approx(ceiling).margin(1.0));
    REQUIRE(has(s, reason::sw_thermal_slowdown));
    REQUIRE_FALSE(has(s, reason::hw_slowdown));
  }
  const double cut = s.clock;
  CHECK(cut < f_max - 150 * mhz);

  // Inside the band [85, 87] degC: held, still reported.
  for (const double t : {87.0, 86.0, 85.0}) {
    s = governor.update(s, at(t));
    CHECK(s.thermal_ceiling == cut);
    CHECK(s.clock == cut);
    CHECK(has(s, reason::sw_thermal_slowdown));
  }

  // Below the band: recovery at r_up; the reason stays until the ceiling is back at f_max.
  const double steps = std::ceil((f_max - cut) / (g.thermal_recovery_rate * g.update_period));
  int updates = 0;
  while (has(s, reason::sw_thermal_slowdown) && updates < 10000) {
    const double before = s.thermal_ceiling;
    s = governor.update(s, at(84.0));
    ++updates;
    REQUIRE(s.thermal_ceiling > before);
  }
  CHECK(updates == static_cast<int>(steps));
  CHECK(s.clock == f_max);
  CHECK(s.reasons == 0);
}

TEST_CASE("software thermal slowdown by the HBM alone", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const DvfsGovernorParameters& g = governor.parameters();
  const double f_max = governor.power().parameters().max_clock;
  REQUIRE(governor.limits().hbm_max_operating - kelvin == Approx(95.0));
  GovernorState s = governor.initial_state();

  s = governor.update(s, at(60.0, 0.72, 94.9));
  CHECK(s.reasons == 0);
  for (int i = 0; i < 10; ++i) s = governor.update(s, at(60.0, 0.72, 97.0));  // e = 2 K from the HBM
  CHECK(has(s, reason::sw_thermal_slowdown));
  CHECK_FALSE(has(s, reason::hw_slowdown));
  CHECK(s.thermal_ceiling == Approx(f_max - 10 * g.thermal_gain * 2.0 * g.update_period).margin(1.0));
  const double cut = s.clock;
  CHECK(cut < f_max);

  s = governor.update(s, at(60.0, 0.72, 94.0));  // inside [93, 95] degC: held
  CHECK(s.clock == cut);
  CHECK(has(s, reason::sw_thermal_slowdown));

  int updates = 0;
  while (has(s, reason::sw_thermal_slowdown) && updates < 10000) {
    s = governor.update(s, at(60.0, 0.72, 92.0));
    ++updates;
  }
  CHECK(updates > 1);
  CHECK(updates < 10000);
  CHECK(s.clock == f_max);
  CHECK(s.reasons == 0);
}

TEST_CASE("power cap: set at full activity, clear at compute activity, hysteresis in between", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const GpuPowerModel& power = governor.power();
  const GpuPowerParameters& pp = power.parameters();
  const double dp = governor.parameters().power_cap_hysteresis;
  const double t = 65.0;
  const double l = leakage(t);

  // a = 1 at f_max would draw ~710 W: capped to the clock that draws exactly the limit.
  GovernorState capped = governor.update(governor.initial_state(), at(t, 1.0));
  CHECK(has(capped, reason::sw_power_cap));
  CHECK(capped.reasons == reason::sw_power_cap);
  CHECK(capped.clock < pp.max_clock);
  CHECK(power.board_power(1.0, capped.clock, l) == Approx(pp.power_limit).margin(1e-3));

  // a = 0.72 draws ~542 W: clear.
  GovernorState clear = governor.update(capped, at(t, 0.72));
  CHECK(clear.reasons == 0);
  CHECK(clear.clock == pp.max_clock);

  // An activity whose power at f_max sits inside (P_limit - dP, P_limit]: the reason keeps its
  // previous value, and the clock is f_max either way (it fits).
  const double a_band = (pp.power_limit - 0.5 * dp - pp.static_power - l) / pp.dynamic_power_at_max;
  REQUIRE(power.board_power(a_band, pp.max_clock, l) < pp.power_limit);
  REQUIRE(power.board_power(a_band, pp.max_clock, l) > pp.power_limit - dp);
  const GovernorState held = governor.update(capped, at(t, a_band));
  CHECK(has(held, reason::sw_power_cap));
  CHECK(held.clock == pp.max_clock);
  const GovernorState still_clear = governor.update(clear, at(t, a_band));
  CHECK_FALSE(has(still_clear, reason::sw_power_cap));
  CHECK(still_clear.clock == pp.max_clock);

  // Below P_limit - dP the reason clears.
  const double a_below = (pp.power_limit - 1.5 * dp - pp.static_power - l) / pp.dynamic_power_at_max;
  const GovernorState cleared = governor.update(held, at(t, a_below));
  CHECK_FALSE(has(cleared, reason::sw_power_cap));

  // A lower limit caps compute work too.
  GpuPowerParameters limited;
  limited.power_limit = 400.0;
  const DvfsGovernor governor400(continuous(), GpuPowerModel(limited), GpuThermalLimits{});
  const GovernorState s400 = governor400.update(governor400.initial_state(), at(t, 0.72));
  CHECK(has(s400, reason::sw_power_cap));
  CHECK(governor400.power().board_power(0.72, s400.clock, l) == Approx(400.0).margin(1e-3));
}

TEST_CASE("an idle GPU runs at the idle clock and reports GpuIdle", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const GpuPowerParameters& pp = governor.power().parameters();
  GovernorState s = governor.update(governor.initial_state(), at(35.0, 0.0, 35.0, false));
  CHECK(s.clock == pp.idle_clock);
  CHECK(s.reasons == reason::gpu_idle);
  s = governor.update(s, at(35.0, 0.72, 35.0, true));
  CHECK(s.clock == pp.max_clock);
  CHECK(s.reasons == 0);

  // The thermal logic runs while idle: HW slowdown and the software ceiling are reported, and a
  // software ceiling below the idle clock applies to it.
  s = governor.update(governor.initial_state(), at(89.5, 0.0, 60.0, false));
  CHECK(s.reasons == (reason::gpu_idle | reason::hw_slowdown | reason::hw_thermal_slowdown |
                      reason::sw_thermal_slowdown));
  CHECK(s.clock == pp.idle_clock);
  GovernorState low = governor.initial_state();
  low.thermal_ceiling = 250 * mhz;
  low = governor.update(low, at(86.0, 0.0, 60.0, false));  // in the band: ceiling held
  CHECK(low.clock == 250 * mhz);
  CHECK(low.reasons == (reason::gpu_idle | reason::sw_thermal_slowdown));
}

TEST_CASE("the GPU shuts down at 92 degC and stays down", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  REQUIRE(governor.limits().shutdown - kelvin == Approx(92.0));
  GovernorState s = governor.update(governor.initial_state(), at(91.99));
  CHECK_FALSE(s.shut_down);
  CHECK(s.clock > 0.0);
  s = governor.update(s, at(92.0));
  CHECK(s.shut_down);
  CHECK(s.clock == 0.0);
  CHECK(s.reasons == 0);
  s = governor.update(s, at(40.0));
  CHECK(s.shut_down);
  CHECK(s.clock == 0.0);
  CHECK(s.reasons == 0);
  const GovernorState restarted = governor.update(governor.initial_state(), at(40.0));
  CHECK_FALSE(restarted.shut_down);
  CHECK(restarted.clock == governor.power().parameters().max_clock);
}

TEST_CASE("the clock never falls below min_clock while the GPU runs", "[workload][dvfs]") {
  const DvfsGovernor governor = default_governor();
  const double f_min = governor.power().parameters().min_clock;
  // A long overshoot drives the software ceiling to its floor.
  GovernorState s = governor.initial_state();
  for (int i = 0; i < 2000; ++i) s = governor.update(s, at(88.5));
  CHECK(s.thermal_ceiling == f_min);
  CHECK(s.clock == f_min);
  // A limit that not even f_min fits.
  GpuPowerParameters tight;
  tight.power_limit = 200.0;
  const DvfsGovernor capped(continuous(), GpuPowerModel(tight), GpuThermalLimits{});
  GovernorInputs in = at(65.0, 1.0);
  in.leakage_power = 150.0;
  const GovernorState c = capped.update(capped.initial_state(), in);
  CHECK(c.clock == f_min);
  CHECK(has(c, reason::sw_power_cap));
  // HW slowdown with a factor that would go below f_min.
  DvfsGovernorParameters deep = continuous();
  deep.hw_slowdown_factor = 0.05;
  const DvfsGovernor slow(deep, GpuPowerModel(GpuPowerParameters{}), GpuThermalLimits{});
  GovernorState h = slow.initial_state();
  h.reasons = reason::hw_slowdown | reason::hw_thermal_slowdown;
  h = slow.update(h, at(88.5));
  CHECK(has(h, reason::hw_slowdown));
  CHECK(h.clock == f_min);
}

namespace {

struct LoopResult {
  double peak_temperature = 0.0;          ///< over the whole run [degC]
  double settled_min_temperature = 1e9;   ///< over the last `window` [degC]
  double settled_max_temperature = -1e9;
  double settled_min_clock = 1e30;        ///< [Hz]
  double settled_max_clock = 0.0;
  std::uint32_t settled_reasons_or = 0;
  bool shut_down = false;
};

/// One-node plant T' = (P R + T_cool(t) - T) / tau, Euler steps of 1 ms, the governor updated
/// every dt with the junction temperature and the leakage at it; the plant starts at T_cool(0).
template <class Coolant>
LoopResult run_loop(const DvfsGovernor& governor, double resistance, double tau, Coolant coolant_at, double activity,
                    double duration, double window) {
  const GpuPowerModel& power = governor.power();
  const double dt = governor.parameters().update_period;
  constexpr double h = 1e-3;
  const int substeps = static_cast<int>(std::lround(dt / h));
  const int updates = static_cast<int>(std::lround(duration / dt));
  const int settled_from = static_cast<int>(std::lround((duration - window) / dt));
  double t = coolant_at(0.0);
  GovernorState s = governor.initial_state();
  LoopResult r;
  for (int k = 0; k < updates; ++k) {
    s = governor.update(s, at(t, activity));
    if (s.shut_down) {
      r.shut_down = true;
      break;
    }
    const double coolant = coolant_at(k * dt);
    for (int i = 0; i < substeps; ++i) {
      const double p = power.board_power(activity, s.clock, leakage(t));
      t += h * (p * resistance + coolant - t) / tau;
    }
    r.peak_temperature = std::max(r.peak_temperature, t);
    if (k >= settled_from) {
      r.settled_min_temperature = std::min(r.settled_min_temperature, t);
      r.settled_max_temperature = std::max(r.settled_max_temperature, t);
      r.settled_min_clock = std::min(r.settled_min_clock, s.clock);
      r.settled_max_clock = std::max(r.settled_max_clock, s.clock);
      r.settled_reasons_or |= s.reasons;
    }
  }
  return r;
}

/// The coolant temperature at which the junction would settle at `junction_celsius` at f_max.
double coolant_for(const GpuPowerModel& power, double resistance, double activity, double junction_celsius) {
  const double p = power.board_power(activity, power.parameters().max_clock, leakage(junction_celsius));
  return junction_celsius - p * resistance;
}

}  // namespace

TEST_CASE("closed loop: a too-hot coolant settles the junction in the band below 87 degC", "[workload][dvfs][loop]") {
  const DvfsGovernor governor = default_governor();
  const double f_max = governor.power().parameters().max_clock;
  const double band = governor.parameters().thermal_hysteresis;
  struct Plant {
    double resistance, tau, junction_at_f_max;
  };
  // Liquid (0.06 K/W, 3 s) and air (0.12 K/W, 20 s) packages, 3-15 K too hot at f_max.
  for (const Plant plant : {Plant{0.06, 3.0, 90.0}, Plant{0.06, 3.0, 97.0}, Plant{0.06, 10.0, 102.0},
                            Plant{0.12, 20.0, 97.0}, Plant{0.04, 1.0, 95.0}}) {
    const double coolant = coolant_for(governor.power(), plant.resistance, 0.72, plant.junction_at_f_max);
    const LoopResult r =
        run_loop(governor, plant.resistance, plant.tau, [=](double) { return coolant; }, 0.72, 900.0, 120.0);
    INFO("R = " << plant.resistance << " K/W, tau = " << plant.tau << " s, T_j at f_max "
                << plant.junction_at_f_max << " degC, coolant " << coolant << " degC; settled T in ["
                << r.settled_min_temperature << ", " << r.settled_max_temperature << "] degC, clock in ["
                << r.settled_min_clock / mhz << ", " << r.settled_max_clock / mhz << "] MHz, peak "
                << r.peak_temperature << " degC");
    REQUIRE_FALSE(r.shut_down);
    CHECK(r.peak_temperature < 90.0);  // at most a brief touch of the HW slowdown at start-up
    CHECK(r.settled_max_temperature <= 87.0 + 0.25);
    CHECK(r.settled_min_temperature >= 87.0 - band - 0.25);
    CHECK(r.settled_max_clock < 0.99 * f_max);
    CHECK((r.settled_max_clock - r.settled_min_clock) <= 0.02 * r.settled_max_clock);
    CHECK(r.settled_reasons_or == reason::sw_thermal_slowdown);
  }
}

TEST_CASE("closed loop: a coolant cool enough for f_max never throttles", "[workload][dvfs][loop]") {
  const DvfsGovernor governor = default_governor();
  const double f_max = governor.power().parameters().max_clock;
  const double coolant = coolant_for(governor.power(), 0.06, 0.72, 80.0);
  const LoopResult r = run_loop(governor, 0.06, 3.0, [=](double) { return coolant; }, 0.72, 300.0, 300.0);
  CHECK(r.settled_reasons_or == 0);
  CHECK(r.settled_min_clock == f_max);
  CHECK(r.peak_temperature == Approx(80.0).margin(0.05));
}

TEST_CASE("closed loop: a coolant that warms and cools slowly is followed without overshoot or cycling",
          "[workload][dvfs][loop]") {
  // A diurnal-like swing, compressed: the coolant rises from "f_max at 80 degC" to "f_max at
  // 97 degC" over 300 s, holds 300 s, and falls back over 300 s; 300 s more at the cool end.
  const DvfsGovernor governor = default_governor();
  const double f_max = governor.power().parameters().max_clock;
  for (const double tau : {3.0, 20.0}) {
    const double cool = coolant_for(governor.power(), 0.06, 0.72, 80.0);
    const double hot = coolant_for(governor.power(), 0.06, 0.72, 97.0);
    const auto coolant = [=](double t) {
      if (t < 300.0) return cool + (hot - cool) * t / 300.0;
      if (t < 600.0) return hot;
      if (t < 900.0) return hot - (hot - cool) * (t - 600.0) / 300.0;
      return cool;
    };
    const LoopResult hold = run_loop(governor, 0.06, tau, coolant, 0.72, 600.0, 120.0);
    INFO("tau = " << tau << " s; held T in [" << hold.settled_min_temperature << ", "
                  << hold.settled_max_temperature << "] degC, clock in [" << hold.settled_min_clock / mhz << ", "
                  << hold.settled_max_clock / mhz << "] MHz, peak " << hold.peak_temperature << " degC");
    CHECK(hold.peak_temperature <= 87.0 + 0.5);
    CHECK(hold.settled_max_temperature <= 87.0 + 0.25);
    CHECK(hold.settled_min_temperature >= 85.0 - 0.25);
    CHECK(hold.settled_max_clock < 0.99 * f_max);
    CHECK((hold.settled_max_clock - hold.settled_min_clock) <= 0.02 * hold.settled_max_clock);
    CHECK(hold.settled_reasons_or == reason::sw_thermal_slowdown);
    const LoopResult full = run_loop(governor, 0.06, tau, coolant, 0.72, 1200.0, 60.0);
    CHECK(full.peak_temperature <= 87.0 + 0.5);
    CHECK(full.settled_min_clock == f_max);
    CHECK(full.settled_reasons_or == 0);
  }
}

TEST_CASE("DVFS governor rejects bad parameters with exact messages", "[workload][dvfs]") {
  const auto message = [](auto change) {
    DvfsGovernorParameters p = continuous();
    GpuThermalLimits l;
    change(p, l);
    return input_error([&] { (void)DvfsGovernor(p, GpuPowerModel(GpuPowerParameters{}), l); });
  };
  using P = DvfsGovernorParameters;
  using L = GpuThermalLimits;
  CHECK(message([](P& p, L&) { p.update_period = 20.0; }) == "dvfs_governor.update_period = 20 s (must be in (0, 10] s)");
  CHECK(message([](P& p, L&) { p.update_period = 0.0; }) == "dvfs_governor.update_period = 0 s (must be in (0, 10] s)");
  CHECK(message([](P& p, L&) { p.thermal_gain = -1e6; }) ==
        "dvfs_governor.thermal_gain = -1 MHz/(K s) (must be > 0)");
  CHECK(message([](P& p, L&) { p.thermal_recovery_rate = 0.0; }) ==
        "dvfs_governor.thermal_recovery_rate = 0 MHz/s (must be > 0)");
  CHECK(message([](P& p, L&) { p.thermal_hysteresis = -1.0; }) ==
        "dvfs_governor.thermal_hysteresis = -1 K (must be >= 0)");
  CHECK(message([](P& p, L&) { p.hw_slowdown_factor = 0.0; }) ==
        "dvfs_governor.hw_slowdown_factor = 0 (must be in (0, 1])");
  CHECK(message([](P& p, L&) { p.hw_slowdown_factor = 1.5; }) ==
        "dvfs_governor.hw_slowdown_factor = 1.5 (must be in (0, 1])");
  CHECK(message([](P& p, L&) { p.power_cap_hysteresis = -5.0; }) ==
        "dvfs_governor.power_cap_hysteresis = -5 W (must be >= 0)");
  CHECK(message([](P&, L& l) { l.hw_slowdown = kelvin + 86.0; }) ==
        "dvfs_governor: hardware slowdown temperature 86 degC is not above the maximum operating "
        "temperature 87 degC");
  CHECK(message([](P&, L& l) { l.shutdown = kelvin + 88.0; }) ==
        "dvfs_governor: shutdown temperature 88 degC is not above the hardware slowdown temperature 89 degC");
  CHECK(message([](P& p, L&) { p.update_period = 10.0; }).empty());
  CHECK(message([](P& p, L&) { p.hw_slowdown_factor = 1.0; }).empty());
}

TEST_CASE("DVFS governor parameter table is complete and matches the defaults", "[workload][dvfs][parameters]") {
  using dctwin::core::ParameterKind;
  const auto table = DvfsGovernorParameters::table();
  const std::set<std::string> expected{"update_period",          "thermal_gain",       "thermal_recovery_rate",
                                       "thermal_hysteresis",     "hw_slowdown_hysteresis", "hw_slowdown_factor",
                                       "power_cap_hysteresis", "clock_step"};
  std::set<std::string> names;
  for (const auto& spec : table) {
    INFO("parameter " << spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK_FALSE(spec.doc.empty());
    CHECK_FALSE(spec.unit.empty());
    CHECK_FALSE(spec.source.empty());
    CHECK(spec.kind == ParameterKind::real);
    REQUIRE_FALSE(spec.required());
    const double v = *spec.default_value;
    CHECK((spec.min_inclusive ? v >= spec.min : v > spec.min));
    CHECK((spec.max_inclusive ? v <= spec.max : v < spec.max));
  }
  CHECK(names == expected);
  for (const auto& spec : table) {
    if (spec.name == "update_period") CHECK(spec.max == 10.0);
    if (spec.name == "hw_slowdown_factor") {
      CHECK(spec.min == 0.0);
      CHECK_FALSE(spec.min_inclusive);
      CHECK(spec.max == 1.0);
    }
  }

  const DvfsGovernorParameters d;
  const DvfsGovernorParameters read = DvfsGovernorParameters::from(defaults_tree(table, "dvfs_governor"));
  CHECK(read.update_period == d.update_period);
  CHECK(read.thermal_gain == d.thermal_gain);
  CHECK(read.thermal_recovery_rate == d.thermal_recovery_rate);
  CHECK(read.thermal_hysteresis == d.thermal_hysteresis);
  CHECK(read.hw_slowdown_hysteresis == d.hw_slowdown_hysteresis);
  CHECK(read.hw_slowdown_factor == d.hw_slowdown_factor);
  CHECK(read.power_cap_hysteresis == d.power_cap_hysteresis);
  // The HW slowdown clears above the software target, so the latch does not outlive the event.
  const GpuThermalLimits limits;
  CHECK(limits.hw_slowdown - d.hw_slowdown_hysteresis > limits.max_operating);
}

TEST_CASE("clocks step down the 15 MHz ladder", "[workload][dvfs]") {
  const DvfsGovernor governor(DvfsGovernorParameters{}, GpuPowerModel(GpuPowerParameters{}), GpuThermalLimits{});
  GovernorState s = governor.initial_state();
  CHECK(s.clock == 1980e6);
  // Full activity at 65 degC needs a cap near 1966.5 MHz: the ladder gives 1965 MHz.
  const double leakage = 50.0 * std::exp(0.02 * 5.0);
  GovernorInputs in;
  in.junction_temperature = 65.0 + 273.15;
  in.hbm_temperature = 60.0 + 273.15;
  in.activity = 1.0;
  in.leakage_power = leakage;
  s = governor.update(s, in);
  CHECK(s.clock == 1965e6);
  CHECK(governor.power().board_power(1.0, s.clock, leakage) <= 700.0);
  CHECK(governor.power().board_power(1.0, s.clock + 15e6, leakage) > 700.0);
  // Software thermal slowdown moves the ceiling continuously, the clock by whole rungs.
  in.activity = 0.72;
  in.junction_temperature = 88.0 + 273.15;
  in.leakage_power = 50.0 * std::exp(0.02 * 28.0);
  for (int k = 0; k < 7; ++k) {
    s = governor.update(s, in);
    CHECK(std::fmod(s.clock, 15e6) == 0.0);
  }
  CHECK(s.clock < 1980e6);
  CHECK(s.thermal_ceiling - s.clock < 15e6);
}

TEST_CASE("a governor at rest stays at rest exactly when stays_at_rest says so", "[workload][dvfs][rest]") {
  // The training job skips update() for GPUs that stays_at_rest() accepts, so the claim must hold
  // to the last bit: over a grid of temperatures, activities and leakages around every limit,
  // with the ladder and without, an accepted state comes back unchanged from update(), and a
  // rejected rest state (not shut down) changes or throttles; states not at rest are never accepted.
  const GpuThermalLimits limits{};
  for (const double step : {0.0, 15e6}) {
    DvfsGovernorParameters p;
    p.clock_step = step;
    const DvfsGovernor governor(p, GpuPowerModel(GpuPowerParameters{}), limits);
    const double p_limit = governor.power().parameters().power_limit;
    for (const bool working : {true, false}) {
      const GovernorState rest = governor.rest_state(working);
      CHECK(rest.thermal_ceiling == governor.power().parameters().max_clock);
      CHECK(rest.reasons == (working ? 0u : reason::gpu_idle));
      long accepted = 0, rejected = 0;
      for (const double activity : {0.0, 0.3, 0.72, 0.9, 1.0}) {
        const double leakage_limit = governor.rest_leakage_limit(activity, working);
        for (const double dl : {-50.0, -1e-6, 0.0, 1e-6, 50.0}) {
          for (const double tj : {limits.max_operating - 10.0, limits.max_operating - 1e-9, limits.max_operating,
                                  limits.max_operating + 1e-9, limits.hw_slowdown + 0.5}) {
            for (const double thbm : {limits.hbm_max_operating - 1.0, limits.hbm_max_operating,
                                      limits.hbm_max_operating + 1e-9}) {
              GovernorInputs in;
              in.junction_temperature = tj;
              in.hbm_temperature = thbm;
              in.activity = activity;
              in.leakage_power = std::max(0.0, leakage_limit + dl);
              in.working = working;
              const GovernorState next = governor.update(rest, in);
              const bool unchanged = next.clock == rest.clock && next.thermal_ceiling == rest.thermal_ceiling &&
                                     next.reasons == rest.reasons && !next.shut_down;
              if (governor.stays_at_rest(rest, in)) {
                ++accepted;
                REQUIRE(unchanged);
                CHECK(governor.power().board_power(activity, governor.rest_demand(working), in.leakage_power) <= p_limit);
              } else {
                ++rejected;
                CHECK_FALSE(unchanged);
              }
              GovernorState throttled = rest;
              throttled.reasons |= reason::sw_thermal_slowdown;
              CHECK_FALSE(governor.stays_at_rest(throttled, in));
              GovernorState lowered = rest;
              lowered.thermal_ceiling -= 15e6;
              CHECK_FALSE(governor.stays_at_rest(lowered, in));
              GovernorState other_clock = rest;
              other_clock.clock -= 15e6;
              CHECK_FALSE(governor.stays_at_rest(other_clock, in));
            }
          }
        }
      }
      CHECK(accepted > 0);
      CHECK(rejected > 0);
    }
  }
}
