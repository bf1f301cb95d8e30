// Rear-door heat exchanger: the derivation of the default UA, IBM's published ranges, energy
// balance, door fans, pressure drop, bad parameters.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/models/hx/rear_door.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::kelvin;
using hx_test::relative_equal;

namespace {
constexpr double cp_air = 1006.0;
constexpr double cp_water = 4180.0;
}  // namespace

TEST_CASE("Default door UA is the one derived from IBM's passive-door statements", "[hx][rear_door]") {
  const RearDoorParameters defaults;
  const RearDoorRating rating;  // 26 kW cabinet, 70 % removed, 20 K server rise, 44 / 18 degC
  CHECK(rating.heat_flow == Approx(0.70 * 26e3));
  const double derived = RearDoor::nominal_ua_from_rating(rating, defaults);
  CHECK(derived == Approx(defaults.nominal_ua).epsilon(1e-3));
  // Hand check of the derivation: eps = 18200 / (1300 * 26) = 0.53846 at C_r = 0.622.
  const RearDoor door(defaults);
  const auto op = door.evaluate(rating.air_inlet_temperature, rating.air_flow, rating.water_inlet_temperature,
                                rating.water_flow, cp_air, cp_water);
  CHECK(op.effectiveness == Approx(18200.0 / (1300.0 * 26.0)).epsilon(2e-3));
  CHECK(op.heat_flow == Approx(18.2e3).epsilon(2e-3));
  CHECK(rating.air_inlet_temperature - op.air_outlet_temperature == Approx(14.0).epsilon(2e-3));
}

TEST_CASE("Default door stays inside IBM's ranges for 20-32 kW cabinets", "[hx][rear_door]") {
  // IBM: a 20-32 kW cabinet gets 55-85 % heat removal; air drop up to 25 K. Room 24 degC,
  // water 18 degC at the nominal flow, server air rise 15-30 K.
  const RearDoor door({});
  for (double power : {20e3, 26e3, 32e3})
    for (double rise : {15.0, 20.0, 30.0}) {
      const double air_flow = power / (rise * cp_air);
      const auto op = door.evaluate(kelvin + 24.0 + rise, air_flow, kelvin + 18.0, 0.5, cp_air, cp_water);
      const double removed = op.heat_flow / power;
      const double drop = kelvin + 24.0 + rise - op.air_outlet_temperature;
      INFO(power << " W at " << rise << " K: removes " << removed << ", air drop " << drop << " K");
      CHECK(removed >= 0.55);
      CHECK(removed <= 0.85);
      CHECK(drop <= 25.0);
    }
}

TEST_CASE("Rear door conserves energy on both streams", "[hx][rear_door]") {
  const RearDoor door({});
  for (double air_flow : {0.3, 1.292, 3.0})
    for (double water_flow : {0.1, 0.5, 1.2})
      for (double water_in : {kelvin + 18.0, kelvin + 50.0}) {  // the second case heats the air
        const auto op = door.evaluate(kelvin + 44.0, air_flow, water_in, water_flow, cp_air, cp_water);
        const double q_air = air_flow * cp_air * (kelvin + 44.0 - op.air_outlet_temperature);
        const double q_water = water_flow * cp_water * (op.water_outlet_temperature - water_in);
        CHECK(relative_equal(q_air, op.heat_flow, 1e-12));
        CHECK(relative_equal(q_water, op.heat_flow, 1e-12));
        CHECK((op.heat_flow < 0.0) == (water_in > kelvin + 44.0));
        CHECK(op.ua == Approx(door.ua(air_flow, water_flow)));
      }
}

TEST_CASE("Door fans: affinity-law power and extra airflow, none on a passive door", "[hx][rear_door]") {
  RearDoorParameters p;
  const RearDoor passive(p);
  CHECK(passive.fan_power(1.0) == 0.0);
  CHECK(passive.air_flow(1.2, 1.0) == 1.2);
  p.active = true;
  const RearDoor active(p);
  CHECK(active.fan_power(1.0) == Approx(1000.0));
  CHECK(active.fan_power(0.5) == Approx(1000.0 / 8.0));
  CHECK(active.air_flow(1.2, 1.0) == Approx(3.0));   // fans pull more than the servers push
  CHECK(active.air_flow(1.2, 0.2) == Approx(1.2));   // slow fans: the servers' flow passes
  // More air through the coil removes more heat from the same exhaust temperature.
  const auto slow = active.evaluate(kelvin + 44.0, active.air_flow(1.292, 0.0), kelvin + 18.0, 0.5, cp_air, cp_water);
  const auto fast = active.evaluate(kelvin + 44.0, active.air_flow(1.292, 1.0), kelvin + 18.0, 0.5, cp_air, cp_water);
  CHECK(fast.heat_flow > slow.heat_flow);
}

TEST_CASE("Door air-side pressure drop is quadratic through the nominal point", "[hx][rear_door]") {
  const RearDoor door({});
  CHECK(door.air_pressure_drop(1.292) == Approx(25.0));
  CHECK(door.air_pressure_drop(2.0 * 1.292) == Approx(100.0));
  CHECK(door.air_pressure_drop(0.0) == 0.0);
}

TEST_CASE("Rear door refuses bad parameters with exact messages", "[hx][rear_door]") {
  RearDoorParameters p;
  p.nominal_ua = -100.0;
  CHECK(input_error([&] { RearDoor door(p); }) == "rear_door.nominal_ua = -100 W/K (must be > 0)");
  p = {};
  p.nominal_water_flow = 0.0;
  CHECK(input_error([&] { RearDoor door(p, "racks[3].door"); }) ==
        "racks[3].door.nominal_water_flow = 0 kg/s (must be > 0)");
  p = {};
  p.air_pressure_drop_exponent = 3.0;
  CHECK(input_error([&] { RearDoor door(p); }) == "rear_door.air_pressure_drop_exponent = 3 (must be in [1, 2])");
  // A rating the door cannot reach: removing more than C_min (T_a,in - T_w,in).
  RearDoorRating rating;
  rating.heat_flow = 40e3;
  CHECK(input_error([&] { (void)RearDoor::nominal_ua_from_rating(rating, {}); }) ==
        "cross-flow (both unmixed) effectiveness 1.18343 is not reachable at capacity ratio 0.62201 "
        "(must be in [0, 1))");
}
