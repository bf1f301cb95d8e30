// Water-side economizer plant: mode switching at the expected wet bulb (tower) and dry bulb
// (dry cooler), hysteresis, heat and power balances, weather and parameter errors.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/models/hx/economizer.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::kelvin;
using hx_test::relative_equal;

namespace {

PlantDemand demand(double heat_flow = 2.0e6, double setpoint_celsius = 24.0, double flow = 30.0) {
  PlantDemand d;
  d.heat_flow = heat_flow;
  d.supply_setpoint = kelvin + setpoint_celsius;
  d.facility_water_flow = flow;
  d.facility_water_specific_heat = 4180.0;
  d.pump_power = 30e3;
  return d;
}

Weather wet(double wet_bulb_celsius) { return {kelvin + wet_bulb_celsius + 6.0, kelvin + wet_bulb_celsius}; }

/// Wet bulb [K] at which the tower at full fan speed, rejecting Q at 100 kg/s, delivers `target`
/// (bisection on the tower's own leaving-water temperature, increasing with the wet bulb).
double wet_bulb_for(const CoolingTower& tower, double heat_flow, double target) {
  double low = kelvin;
  double high = kelvin + 26.7;
  for (int i = 0; i < 200; ++i) {
    const double middle = 0.5 * (low + high);
    if (tower.evaluate_for_load(middle, heat_flow, 100.0, 1.0).water_outlet_temperature < target) low = middle;
    else high = middle;
  }
  return 0.5 * (low + high);
}

void check_balances(const PlantOperatingPoint& r, const PlantDemand& d, const Chiller& chiller) {
  CHECK(relative_equal(r.economizer_heat_flow + r.chiller_heat_flow + r.unmet_heat_flow, d.heat_flow, 1e-12));
  const double f_cond = chiller.parameters().condenser_heat_fraction;
  CHECK(relative_equal(r.heat_rejected, r.economizer_heat_flow + r.chiller_heat_flow + f_cond * r.chiller_power, 1e-12));
  CHECK(r.total_power == Approx(r.fan_power + r.chiller_power + r.pump_power).epsilon(1e-14));
  CHECK(r.return_temperature == Approx(d.supply_setpoint + d.heat_flow / (d.facility_water_flow * 4180.0)).epsilon(1e-14));
}

}  // namespace

TEST_CASE("Economizer switches from free to partial cooling at the expected wet bulb", "[hx][economizer]") {
  const EconomizerParameters p;  // approach 1.5 K, margin 1 K, 100 kg/s condenser water
  const CoolingTower tower({});
  const WaterSideEconomizer plant(p, tower, Chiller({}));
  const PlantDemand d = demand();
  // Free cooling while T_cw(full fan) + approach <= T_set - margin.
  const double switch_wet_bulb = wet_bulb_for(tower, d.heat_flow, d.supply_setpoint - 1.0 - 1.5);
  INFO("switch at " << switch_wet_bulb - kelvin << " degC wet bulb");
  CHECK(switch_wet_bulb > kelvin + 10.0);  // a 24 degC supply runs free well into the summer
  CHECK(switch_wet_bulb < kelvin + 20.0);
  const Weather below{switch_wet_bulb + 6.0, switch_wet_bulb - 0.01};
  const Weather above{switch_wet_bulb + 6.0, switch_wet_bulb + 0.01};
  const auto free = plant.evaluate(below, d);
  const auto partial = plant.evaluate(above, d);
  CHECK(free.mode == PlantMode::free_cooling);
  CHECK(partial.mode == PlantMode::partial_free_cooling);
  // Free cooling: chiller off, fans just fast enough for the set-point (the margin lets them slow).
  CHECK(free.chiller_power == 0.0);
  CHECK(free.economizer_heat_flow == d.heat_flow);
  CHECK(free.condenser_water_temperature + 1.5 == Approx(d.supply_setpoint).margin(1e-6));
  CHECK(free.fan_speed > 0.2);
  CHECK(free.fan_speed < 1.0);
  check_balances(free, d, plant.chiller());
  check_balances(partial, d, plant.chiller());
}

TEST_CASE("Economizer change-over has a hysteresis of one margin", "[hx][economizer]") {
  const CoolingTower tower({});
  const WaterSideEconomizer plant({}, tower, Chiller({}));
  PlantDemand d = demand();
  const double enter = wet_bulb_for(tower, d.heat_flow, d.supply_setpoint - 1.0 - 1.5);
  const double leave = wet_bulb_for(tower, d.heat_flow, d.supply_setpoint - 1.5);
  CHECK(leave > enter + 0.5);
  d.previous_mode = PlantMode::free_cooling;
  CHECK(plant.evaluate({enter + 6.5, enter + 0.5}, d).mode == PlantMode::free_cooling);
  CHECK(plant.evaluate({leave + 6.0, leave - 0.01}, d).mode == PlantMode::free_cooling);
  CHECK(plant.evaluate({leave + 6.0, leave + 0.01}, d).mode == PlantMode::partial_free_cooling);
  d.previous_mode = PlantMode::partial_free_cooling;
  CHECK(plant.evaluate({enter + 6.5, enter + 0.5}, d).mode == PlantMode::partial_free_cooling);
}

TEST_CASE("Economizer on a dry cooler switches at the closed-form dry bulb", "[hx][economizer]") {
  EconomizerParameters p;
  const DryCooler cooler({});
  p.condenser_water_flow = cooler.nominal_fluid_flow();
  p.condenser_water_specific_heat = 3980.0;  // PG25 in the dry-cooler loop
  const WaterSideEconomizer plant(p, cooler, Chiller({}));
  const PlantDemand d = demand(400e3, 30.0, 10.0);
  // T_out = T_db + Q / (eps C_min) - Q / C_f does not depend on temperature otherwise:
  const double offset =
      cooler.evaluate_for_load(kelvin, d.heat_flow, p.condenser_water_flow, 1.0, 3980.0).fluid_outlet_temperature - kelvin;
  const double switch_dry_bulb = d.supply_setpoint - p.changeover_margin - p.heat_exchanger_approach - offset;
  CHECK(plant.evaluate({switch_dry_bulb - 0.01, switch_dry_bulb - 5.0}, d).mode == PlantMode::free_cooling);
  CHECK(plant.evaluate({switch_dry_bulb + 0.01, switch_dry_bulb - 5.0}, d).mode == PlantMode::partial_free_cooling);
  // The wet bulb does not matter to a dry cooler.
  CHECK(plant.evaluate({switch_dry_bulb - 0.01, switch_dry_bulb - 15.0}, d).mode == PlantMode::free_cooling);
}

TEST_CASE("Economizer modes over the year: heat split and power", "[hx][economizer]") {
  const WaterSideEconomizer plant({}, CoolingTower({}), Chiller({}));
  const PlantDemand d = demand();
  // Cold: free cooling at part fan speed, plant power = fans + pumps only.
  const auto cold = plant.evaluate(wet(5.0), d);
  CHECK(cold.mode == PlantMode::free_cooling);
  CHECK(cold.fan_speed < 0.8);
  CHECK(cold.total_power == Approx(cold.fan_power + 30e3));
  // Warm: the economizer pre-cools, the chiller trims.
  const auto warm = plant.evaluate(wet(22.0), d);
  CHECK(warm.mode == PlantMode::partial_free_cooling);
  CHECK(warm.economizer_heat_flow > 0.0);
  CHECK(warm.economizer_heat_flow < d.heat_flow);
  CHECK(warm.chiller_power > 0.0);
  CHECK(warm.precooled_temperature > d.supply_setpoint);
  CHECK(warm.precooled_temperature == Approx(warm.condenser_water_temperature + 1.5).epsilon(1e-12));
  CHECK(warm.fan_speed == 1.0);
  check_balances(warm, d, plant.chiller());
  // Hot day with a small facility-water rise: no economizer benefit, mechanical cooling.
  const PlantDemand narrow = demand(2.0e6, 24.0, 400.0);  // return only 1.2 K above supply
  const auto hot = plant.evaluate(wet(25.0), narrow);
  CHECK(hot.mode == PlantMode::mechanical);
  CHECK(hot.economizer_heat_flow == 0.0);
  CHECK(hot.chiller_heat_flow == Approx(2.0e6));
  check_balances(hot, narrow, plant.chiller());
  // Power rises with the wet bulb.
  CHECK(plant.evaluate(wet(26.0), d).total_power > warm.total_power);
  CHECK(warm.total_power > cold.total_power);
}

TEST_CASE("Economizer checks the weather and its parameters", "[hx][economizer]") {
  const WaterSideEconomizer plant({}, CoolingTower({}), Chiller({}));
  CHECK(input_error([&] { (void)plant.evaluate({kelvin + 20.0, kelvin + 25.0}, demand()); }) ==
        "weather: wet-bulb temperature 25 degC is above the dry-bulb temperature 20 degC");
  CHECK(input_error([] { check_weather({kelvin + 20.0, kelvin + 20.0}); }).empty());  // saturated air is fine
  EconomizerParameters p;
  p.heat_exchanger_approach = 0.0;
  CHECK(input_error([&] { WaterSideEconomizer e(p, CoolingTower({}), Chiller({})); }) ==
        "economizer.heat_exchanger_approach = 0 K (must be > 0)");
  p = {};
  p.changeover_margin = -1.0;
  CHECK(input_error([&] { WaterSideEconomizer e(p, CoolingTower({}), Chiller({}), "plant.economizer"); }) ==
        "plant.economizer.changeover_margin = -1 K (must be >= 0)");
}
