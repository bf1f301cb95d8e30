// Dry cooler: rating point reproduced, energy balance, leaving temperature vs dry bulb, fan
// speed control, bad parameters.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/models/hx/dry_cooler.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::kelvin;
using hx_test::relative_equal;

TEST_CASE("Dry cooler reproduces its rating point", "[hx][dry_cooler]") {
  const DryCoolerParameters p;
  const DryCooler cooler(p);
  CHECK(cooler.nominal_fluid_flow() == Approx(500e3 / (3980.0 * 5.0)).epsilon(1e-14));
  const auto op = cooler.evaluate(kelvin + 25.0, kelvin + 40.0, cooler.nominal_fluid_flow(), 1.0, 3980.0);
  CHECK(op.heat_flow == Approx(500e3).epsilon(1e-9));
  CHECK(op.fluid_outlet_temperature == Approx(kelvin + 35.0).epsilon(1e-12));
  CHECK(op.air_outlet_temperature - (kelvin + 25.0) == Approx(500e3 / (62.1 * 1006.0)).epsilon(1e-9));
  CHECK(op.fan_power == Approx(10e3));
  CHECK(cooler.nominal_ua() == Approx(64.5e3).epsilon(2e-3));  // value quoted in the docs
}

TEST_CASE("Dry cooler conserves energy", "[hx][dry_cooler]") {
  const DryCooler cooler({});
  for (double speed : {0.2, 0.6, 1.0})
    for (double flow : {5.0, 25.0, 40.0}) {
      const auto op = cooler.evaluate(kelvin + 12.0, kelvin + 38.0, flow, speed, 3980.0);
      const double q_fluid = flow * 3980.0 * (kelvin + 38.0 - op.fluid_outlet_temperature);
      const double q_air = op.air_flow * 1006.0 * (op.air_outlet_temperature - (kelvin + 12.0));
      CHECK(relative_equal(q_fluid, op.heat_flow, 1e-12));
      CHECK(relative_equal(q_air, op.heat_flow, 1e-12));
    }
}

TEST_CASE("Dry cooler leaving temperature follows the dry bulb one for one at a given load", "[hx][dry_cooler]") {
  const DryCooler cooler({});
  const double flow = cooler.nominal_fluid_flow();
  const auto at_25 = cooler.evaluate_for_load(kelvin + 25.0, 400e3, flow, 1.0, 3980.0);
  const auto at_5 = cooler.evaluate_for_load(kelvin + 5.0, 400e3, flow, 1.0, 3980.0);
  CHECK(at_25.fluid_outlet_temperature - at_5.fluid_outlet_temperature == Approx(20.0).epsilon(1e-12));
  // evaluate_for_load is the inverse of evaluate.
  const auto check = cooler.evaluate(kelvin + 25.0, at_25.fluid_inlet_temperature, flow, 1.0, 3980.0);
  CHECK(check.heat_flow == Approx(400e3).epsilon(1e-12));
  CHECK(check.fluid_outlet_temperature == Approx(at_25.fluid_outlet_temperature).epsilon(1e-13));
  // Closed form: T_out = T_db + Q / (eps C_min) - Q / C_f.
  const double c_air = 62.1 * 1006.0;
  const double c_fluid = flow * 3980.0;
  const double c_min = std::min(c_air, c_fluid);
  CHECK(at_25.fluid_outlet_temperature ==
        Approx(kelvin + 25.0 + 400e3 / (at_25.effectiveness * c_min) - 400e3 / c_fluid).epsilon(1e-14));
}

TEST_CASE("Dry cooler fan speed control: cubic power, lowest speed that meets the target", "[hx][dry_cooler]") {
  const DryCooler cooler({});
  const double flow = cooler.nominal_fluid_flow();
  CHECK(cooler.fan_power(0.5) == Approx(10e3 / 8.0));
  CHECK(cooler.air_flow(0.5) == Approx(31.05));
  const double target = kelvin + 30.0;
  const double speed = cooler.fan_speed_for_outlet(kelvin + 15.0, 400e3, flow, target, 3980.0);
  CHECK(speed > 0.2);
  CHECK(speed < 1.0);
  CHECK(cooler.evaluate_for_load(kelvin + 15.0, 400e3, flow, speed, 3980.0).fluid_outlet_temperature ==
        Approx(target).margin(1e-6));
  // Cold day: the minimum speed is enough; hot day: full speed is not.
  CHECK(cooler.fan_speed_for_outlet(kelvin - 10.0, 400e3, flow, target, 3980.0) == 0.2);
  CHECK(cooler.fan_speed_for_outlet(kelvin + 29.0, 400e3, flow, target, 3980.0) == 1.0);
}

TEST_CASE("Dry cooler refuses bad ratings with exact messages", "[hx][dry_cooler]") {
  DryCoolerParameters p;
  p.rating_heat_flow = -1.0;
  CHECK(input_error([&] { DryCooler c(p); }) == "dry_cooler.rating_heat_flow = -1 W (must be > 0)");
  p = {};
  p.rating_fluid_outlet_temperature = kelvin + 45.0;
  CHECK(input_error([&] { DryCooler c(p); }) ==
        "dry_cooler: rating fluid outlet 45 degC must be below the rating fluid inlet 40 degC");
  p = {};
  p.nominal_air_flow = 10.0;  // the air would have to warm by 49.7 K, above the 40 degC fluid
  CHECK(input_error([&] { DryCooler c(p); }) ==
        "dry_cooler: rating point is not reachable: cross-flow (both unmixed) effectiveness 3.31345 is not "
        "reachable at capacity ratio 0.1006 (must be in [0, 1))");
}
