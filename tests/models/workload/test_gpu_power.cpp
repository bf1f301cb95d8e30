// GPU power model: calibration against the H100 SXM5 measurements, the voltage curve, the
// monotone dynamic power and its inverse, bad parameters and the parameter table.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <cmath>
#include <set>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"
#include "dctwin/models/workload/gpu_power.hpp"
#include "dctwin/models/workload/step_plan.hpp"

using namespace dctwin::models::workload;

using model_test::defaults_tree;
using model_test::input_error;

namespace {

/// Package leakage used by the facility scenarios: L = 50 W exp(0.02 (T_j - 60 degC)).
double leakage(double junction_celsius) { return 50.0 * std::exp(0.02 * (junction_celsius - 60.0)); }

constexpr double mhz = 1e6;

}  // namespace

TEST_CASE("GPU power matches the H100 SXM5 calibration points", "[workload][gpu_power]") {
  const GpuPowerModel model{GpuPowerParameters{}};
  const GpuPowerParameters& p = model.parameters();
  const TrainingJobParameters job;  // the phase activities the facility scenarios run
  REQUIRE(job.compute_activity == 0.72);
  REQUIRE(job.stall_activity == 0.10);

  SECTION("idle: no switching at 35 degC is 70-100 W, at any clock") {
    const double idle = model.board_power(0.0, p.idle_clock, leakage(35.0));
    CHECK(idle >= 70.0);
    CHECK(idle <= 100.0);
    CHECK(model.board_power(0.0, p.max_clock, leakage(35.0)) == Approx(idle));
    CHECK(idle == Approx(55.0 + 50.0 * std::exp(-0.5)).epsilon(1e-12));
  }
  SECTION("compute phases at f_max and 65 degC draw ~540 W") {
    const double compute = model.board_power(job.compute_activity, p.max_clock, leakage(65.0));
    CHECK(compute >= 530.0);
    CHECK(compute <= 550.0);
  }
  SECTION("checkpoint stalls at f_max and 45 degC draw 140-155 W") {
    const double stall = model.board_power(job.stall_activity, p.max_clock, leakage(45.0));
    CHECK(stall >= 140.0);
    CHECK(stall <= 155.0);
  }
  SECTION("full activity at f_max and 65 degC exceeds the 700 W limit, so the cap engages") {
    CHECK(p.power_limit == 700.0);
    CHECK(model.board_power(1.0, p.max_clock, leakage(65.0)) > p.power_limit);
  }
  SECTION("the dynamic power at a = 1, f_max, V_max is P_dyn,max") {
    CHECK(model.dynamic_power(1.0, p.max_clock) == Approx(p.dynamic_power_at_max).epsilon(1e-14));
    CHECK(model.dynamic_power(0.0, p.max_clock) == 0.0);
  }
}

TEST_CASE("GPU voltage is flat below the knee, linear above and continuous at it", "[workload][gpu_power]") {
  const GpuPowerModel model{GpuPowerParameters{}};
  const GpuPowerParameters& p = model.parameters();
  CHECK(model.voltage(p.min_clock) == p.voltage_floor);
  CHECK(model.voltage(p.voltage_knee_clock) == p.voltage_floor);
  CHECK(model.voltage(p.voltage_knee_clock + 1.0) == Approx(p.voltage_floor).margin(1e-9));
  CHECK(model.voltage(p.voltage_knee_clock + 1.0) > p.voltage_floor);
  CHECK(model.voltage(p.voltage_knee_clock - 1.0) == p.voltage_floor);
  CHECK(model.voltage(p.max_clock) == Approx(p.voltage_at_max_clock).epsilon(1e-14));
  const double middle = 0.5 * (p.voltage_knee_clock + p.max_clock);
  CHECK(model.voltage(middle) == Approx(0.5 * (p.voltage_floor + p.voltage_at_max_clock)).epsilon(1e-14));
  // Below the knee the dynamic power falls linearly with the clock.
  CHECK(model.dynamic_power(0.5, 0.5 * p.voltage_knee_clock) ==
        Approx(0.5 * model.dynamic_power(0.5, p.voltage_knee_clock)).epsilon(1e-14));
}

TEST_CASE("GPU dynamic power rises strictly with the clock", "[workload][gpu_power]") {
  const GpuPowerModel model{GpuPowerParameters{}};
  const GpuPowerParameters& p = model.parameters();
  for (const double a : {0.05, 0.72, 1.0}) {
    double previous = model.dynamic_power(a, p.min_clock);
    for (double f = p.min_clock + mhz; f <= p.max_clock; f += mhz) {
      const double power = model.dynamic_power(a, f);
      INFO("a = " << a << ", f = " << f / mhz << " MHz");
      REQUIRE(power > previous);
      previous = power;
    }
  }
}

TEST_CASE("clock_for_dynamic_power inverts dynamic_power to 1 kHz", "[workload][gpu_power]") {
  const GpuPowerModel model{GpuPowerParameters{}};
  const GpuPowerParameters& p = model.parameters();
  for (const double a : {0.1, 0.72, 1.0, 2.5}) {
    for (double f = p.min_clock + 0.37 * mhz; f < p.max_clock; f += 7.3 * mhz) {
      const double budget = model.dynamic_power(a, f);
      const double found = model.clock_for_dynamic_power(a, budget);
      INFO("a = " << a << ", f = " << f / mhz << " MHz");
      REQUIRE(found == Approx(f).margin(1e3));
      REQUIRE(model.dynamic_power(a, found) == Approx(budget).epsilon(1e-9));
    }
    // At the knee and just around it.
    for (const double f : {p.voltage_knee_clock - 1e4, p.voltage_knee_clock, p.voltage_knee_clock + 1e4}) {
      INFO("a = " << a << ", f = " << f / mhz << " MHz");
      CHECK(model.clock_for_dynamic_power(a, model.dynamic_power(a, f)) == Approx(f).margin(1e3));
    }
  }
}

TEST_CASE("clock_for_dynamic_power edge cases", "[workload][gpu_power]") {
  const GpuPowerModel model{GpuPowerParameters{}};
  const GpuPowerParameters& p = model.parameters();
  const double top = model.dynamic_power(0.72, p.max_clock);
  CHECK(model.clock_for_dynamic_power(0.72, top) == p.max_clock);
  CHECK(model.clock_for_dynamic_power(0.72, top + 1.0) == p.max_clock);
  CHECK(model.clock_for_dynamic_power(0.72, 1e6) == p.max_clock);
  CHECK(model.clock_for_dynamic_power(0.72, 0.0) == p.min_clock);
  CHECK(model.clock_for_dynamic_power(0.72, -50.0) == p.min_clock);
  CHECK(model.clock_for_dynamic_power(0.72, 0.5 * model.dynamic_power(0.72, p.min_clock)) == p.min_clock);
  // No switching costs nothing at any clock.
  CHECK(model.clock_for_dynamic_power(0.0, 0.0) == p.max_clock);
  CHECK(model.clock_for_dynamic_power(0.0, 10.0) == p.max_clock);
  CHECK(model.clock_for_dynamic_power(0.0, -1.0) == p.min_clock);
  // A flat voltage curve (V_floor = V_max) makes the power linear in the clock everywhere.
  GpuPowerParameters flat;
  flat.voltage_floor = flat.voltage_at_max_clock;
  const GpuPowerModel linear(flat);
  CHECK(linear.clock_for_dynamic_power(1.0, 0.75 * flat.dynamic_power_at_max) ==
        Approx(0.75 * flat.max_clock).margin(1e3));
}

TEST_CASE("GPU power model rejects bad parameters with exact messages", "[workload][gpu_power]") {
  const auto message = [](auto change) {
    GpuPowerParameters p;
    change(p);
    return input_error([&] { (void)GpuPowerModel(p); });
  };
  CHECK(message([](GpuPowerParameters& p) {
          p.min_clock = 500 * mhz;
          p.max_clock = 400 * mhz;
        }) == "gpu_power: min_clock 500 MHz is above max_clock 400 MHz");
  CHECK(message([](GpuPowerParameters& p) { p.voltage_knee_clock = 2000 * mhz; }) ==
        "gpu_power: voltage_knee_clock 2000 MHz is not in [min_clock, max_clock) = [210, 1980) MHz");
  CHECK(message([](GpuPowerParameters& p) { p.voltage_knee_clock = 1980 * mhz; }) ==
        "gpu_power: voltage_knee_clock 1980 MHz is not in [min_clock, max_clock) = [210, 1980) MHz");
  CHECK(message([](GpuPowerParameters& p) { p.voltage_knee_clock = 100 * mhz; }) ==
        "gpu_power: voltage_knee_clock 100 MHz is not in [min_clock, max_clock) = [210, 1980) MHz");
  CHECK(message([](GpuPowerParameters& p) { p.idle_clock = 100 * mhz; }) ==
        "gpu_power: idle_clock 100 MHz is not in [min_clock, max_clock] = [210, 1980] MHz");
  CHECK(message([](GpuPowerParameters& p) { p.idle_clock = 2100 * mhz; }) ==
        "gpu_power: idle_clock 2100 MHz is not in [min_clock, max_clock] = [210, 1980] MHz");
  CHECK(message([](GpuPowerParameters& p) { p.voltage_floor = 1.1; }) ==
        "gpu_power: voltage_floor 1.1 V is above voltage_at_max_clock 1 V");
  CHECK(message([](GpuPowerParameters& p) { p.max_clock = -1 * mhz; }) ==
        "gpu_power.max_clock = -1 MHz (must be > 0)");
  CHECK(message([](GpuPowerParameters& p) { p.voltage_floor = 0.0; }) ==
        "gpu_power.voltage_floor = 0 V (must be > 0)");
  CHECK(message([](GpuPowerParameters& p) { p.power_limit = 1500.0; }) ==
        "gpu_power.power_limit = 1500 W (must be in (0, 1400] W)");
  // Just above the bound (rack-scale boards: GB200 ~1.2 kW, GB300 up to ~1.4 kW per GPU).
  CHECK(message([](GpuPowerParameters& p) { p.power_limit = 1401.0; }) ==
        "gpu_power.power_limit = 1401 W (must be in (0, 1400] W)");
  CHECK(message([](GpuPowerParameters& p) { p.static_power = -1.0; }) ==
        "gpu_power.static_power = -1 W (must be >= 0)");
  // Edge values that are allowed.
  CHECK(message([](GpuPowerParameters& p) { p.voltage_knee_clock = p.min_clock; }).empty());
  CHECK(message([](GpuPowerParameters& p) { p.idle_clock = p.max_clock; }).empty());
  CHECK(message([](GpuPowerParameters& p) { p.voltage_floor = p.voltage_at_max_clock; }).empty());
  CHECK(message([](GpuPowerParameters& p) { p.power_limit = 200.0; }).empty());
  CHECK(message([](GpuPowerParameters& p) { p.power_limit = 1400.0; }).empty());

  try {
    GpuPowerParameters p;
    p.max_clock = 0.0;
    (void)GpuPowerModel(p);
    FAIL("no error");
  } catch (const dctwin::core::InputError& error) {
    CHECK(error.key_path() == "gpu_power.max_clock");
  }
}

TEST_CASE("GPU power parameter table is complete and matches the defaults", "[workload][gpu_power][parameters]") {
  using dctwin::core::ParameterKind;
  const auto table = GpuPowerParameters::table();
  const std::set<std::string> expected{"max_clock",          "min_clock",     "idle_clock",
                                       "voltage_at_max_clock", "voltage_floor", "voltage_knee_clock",
                                       "dynamic_power_at_max", "static_power",  "power_limit"};
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
    if (spec.unit == "Hz") CHECK(spec.display_unit == "MHz");
  }
  CHECK(names == expected);

  const GpuPowerParameters d;
  const GpuPowerParameters read = GpuPowerParameters::from(defaults_tree(table, "gpu_power"));
  CHECK(read.max_clock == d.max_clock);
  CHECK(read.min_clock == d.min_clock);
  CHECK(read.idle_clock == d.idle_clock);
  CHECK(read.voltage_at_max_clock == d.voltage_at_max_clock);
  CHECK(read.voltage_floor == d.voltage_floor);
  CHECK(read.voltage_knee_clock == d.voltage_knee_clock);
  CHECK(read.dynamic_power_at_max == d.dynamic_power_at_max);
  CHECK(read.static_power == d.static_power);
  CHECK(read.power_limit == d.power_limit);
  // The table's range for the limit covers H100's settable 200-700 W.
  for (const auto& spec : table)
    if (spec.name == "power_limit") {
      CHECK(spec.min < 200.0);
      CHECK(spec.max >= 700.0);
    }
}
