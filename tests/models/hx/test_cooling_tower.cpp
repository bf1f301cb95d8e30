// Cooling tower: the published YorkCalc and CoolTools correlations (reference condition and
// polynomial points), calibration to the design point, energy, fan speed, free convection,
// make-up water, bad parameters.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/models/hx/cooling_tower.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::kelvin;
using hx_test::relative_equal;

TEST_CASE("Tower correlations reproduce the published reference condition", "[hx][tower]") {
  // EnergyPlus Engineering Reference: both correlations were fitted to a model tower with
  // 78 F (25.56 degC) wet bulb, 95 -> 85 F (35 -> 29.4 degC) water: approach 7 F = 3.889 K,
  // range 10 F = 5.556 K, at design air and water flow (FR = 1).
  const double wet_bulb = kelvin + (78.0 - 32.0) / 1.8;
  const double range = 10.0 / 1.8;
  const double approach = 7.0 / 1.8;
  CHECK(correlation_approach(TowerCorrelation::cooltools_cross_flow, wet_bulb, range, 1.0, 1.0) ==
        Approx(approach).margin(1e-3));
  CHECK(correlation_approach(TowerCorrelation::yorkcalc, wet_bulb, range, 1.0, 1.0) == Approx(approach).margin(0.05));
}

TEST_CASE("Tower correlations match the published polynomials term by term", "[hx][tower]") {
  // Reference values: the EnergyPlus Table 63 coefficients evaluated term by term in Python
  // (double precision), in the term order of the Engineering Reference's equations.
  struct YorkPoint {
    double wet_bulb_celsius, range, liquid_to_gas, approach;
  };
  for (const YorkPoint& p : {YorkPoint{25.5556, 5.5556, 1.0, 3.8410174344684287},
                             YorkPoint{10.0, 3.0, 0.8, 3.792785867709332},
                             YorkPoint{-5.0, 12.0, 2.5, 43.11515543075155},
                             YorkPoint{20.0, 8.0, 1.2, 8.3008256830285},
                             YorkPoint{26.7, 22.2, 4.0, 28.69146374571076}}) {
    INFO("YorkCalc at " << p.wet_bulb_celsius << " degC, " << p.range << " K, LG " << p.liquid_to_gas);
    // LG = FR_water / FR_air: split it differently to check that only the ratio matters.
    CHECK(relative_equal(correlation_approach(TowerCorrelation::yorkcalc, kelvin + p.wet_bulb_celsius, p.range,
                                              p.liquid_to_gas, 1.0),
                         p.approach, 1e-11));
    CHECK(relative_equal(correlation_approach(TowerCorrelation::yorkcalc, kelvin + p.wet_bulb_celsius, p.range,
                                              0.5 * p.liquid_to_gas, 0.5),
                         p.approach, 1e-11));
  }
  struct CoolToolsPoint {
    double air, water, wet_bulb_celsius, range, approach;
  };
  for (const CoolToolsPoint& p : {CoolToolsPoint{1.0, 1.0, 25.5556, 5.5556, 3.888905477521574},
                                  CoolToolsPoint{0.5, 0.9, 15.0, 4.0, 6.220972887092903},
                                  CoolToolsPoint{0.3, 1.2, 5.0, 10.0, 23.978044234433604},
                                  CoolToolsPoint{0.8, 0.75, 26.0, 2.0, 0.6440776959858384}}) {
    INFO("CoolTools at FR_air " << p.air << ", FR_water " << p.water << ", " << p.wet_bulb_celsius << " degC");
    CHECK(relative_equal(correlation_approach(TowerCorrelation::cooltools_cross_flow, kelvin + p.wet_bulb_celsius,
                                              p.range, p.water, p.air),
                         p.approach, 1e-11));
  }
}

TEST_CASE("Calibrated tower returns its design approach at the design point", "[hx][tower]") {
  for (TowerCorrelation c : {TowerCorrelation::yorkcalc, TowerCorrelation::cooltools_cross_flow}) {
    for (auto [wet_bulb, approach, range] : {std::tuple{25.5556, 3.8889, 5.5556}, std::tuple{20.0, 5.0, 8.0},
                                             std::tuple{24.0, 3.0, 4.0}}) {
      CoolingTowerParameters p;
      p.correlation = c;
      p.design_wet_bulb_temperature = kelvin + wet_bulb;
      p.design_approach = approach;
      p.design_range = range;
      const CoolingTower tower(p);
      INFO("design " << wet_bulb << " degC, approach " << approach << " K, range " << range << " K");
      const double design_heat = p.design_water_flow * p.water_specific_heat * range;
      const auto op = tower.evaluate_for_load(kelvin + wet_bulb, design_heat, p.design_water_flow, 1.0);
      CHECK(op.approach == Approx(approach).epsilon(1e-9));
      CHECK(op.range == Approx(range).epsilon(1e-14));
      CHECK(op.water_outlet_temperature == Approx(kelvin + wet_bulb + approach).epsilon(1e-12));
    }
  }
  // The default (EnergyPlus) design point is the correlations' own reference: FR_0 close to 1.
  CHECK(CoolingTower({}).design_water_flow_ratio() == Approx(1.0).margin(0.02));
}

TEST_CASE("Tower: energy, inverse form, and trends with fan speed and wet bulb", "[hx][tower]") {
  const CoolingTower tower({});
  const double flow = 100.0;
  const auto load = tower.evaluate_for_load(kelvin + 20.0, 2.0e6, flow, 1.0);
  CHECK(load.heat_flow == Approx(flow * 4180.0 * load.range).epsilon(1e-14));
  CHECK(load.water_inlet_temperature - load.water_outlet_temperature == Approx(load.range).epsilon(1e-12));
  // evaluate() with that inlet temperature finds the same state.
  const auto inlet = tower.evaluate(kelvin + 20.0, load.water_inlet_temperature, flow, 1.0);
  CHECK(inlet.heat_flow == Approx(2.0e6).epsilon(1e-9));
  CHECK(inlet.water_outlet_temperature == Approx(load.water_outlet_temperature).epsilon(1e-12));
  // A slower fan raises the approach; a warmer wet bulb raises the leaving water.
  double previous = 0.0;
  for (double speed : {1.0, 0.8, 0.6, 0.4, 0.2}) {
    const double approach = tower.evaluate_for_load(kelvin + 20.0, 2.0e6, flow, speed).approach;
    CHECK(approach > previous);
    previous = approach;
  }
  CHECK(tower.evaluate_for_load(kelvin + 22.0, 2.0e6, flow, 1.0).water_outlet_temperature >
        load.water_outlet_temperature);
  // Fan speed for a leaving-water target.
  const double target = kelvin + 25.0;
  const double speed = tower.fan_speed_for_outlet(kelvin + 20.0, 2.0e6, flow, target);
  CHECK(speed > 0.2);
  CHECK(speed < 1.0);
  CHECK(tower.evaluate_for_load(kelvin + 20.0, 2.0e6, flow, speed).water_outlet_temperature ==
        Approx(target).margin(1e-6));
}

TEST_CASE("Tower keeps the correlation's approach before its floor at 0 K", "[hx][tower]") {
  const CoolingTower tower({});
  const double flow = 100.0;  // the design water flow
  auto polynomial = [&](double wet_bulb, double range, double water_flow) {
    const double water_ratio = tower.design_water_flow_ratio() * water_flow / flow;
    return correlation_approach(TowerCorrelation::yorkcalc, wet_bulb, range, water_ratio, 1.0);
  };
  // At the design point the polynomial is positive and the floor leaves it as it is.
  const auto design = tower.evaluate_for_load(kelvin + 25.56, flow * 4180.0 * 5.556, flow, 1.0);
  CHECK(design.correlation_approach == design.approach);
  CHECK(design.correlation_approach == Approx(polynomial(kelvin + 25.56, 5.556, flow)).epsilon(1e-12));
  CHECK(design.approach > 3.0);
  // A small range with the fan at full speed: positive, but below the correlation's 1.1 K.
  const auto small = tower.evaluate_for_load(kelvin + 20.0, flow * 4180.0 * 0.1, flow, 1.0);
  CHECK(small.correlation_approach == Approx(polynomial(kelvin + 20.0, 0.1, flow)).epsilon(1e-12));
  CHECK(small.correlation_approach > 0.0);
  CHECK(small.correlation_approach < 1.1);
  CHECK(small.approach == small.correlation_approach);
  CHECK(small.outside_correlation_bounds);
  // A cold wet bulb, a 22 K range and 7.9x the design water flow (L/G ~ 8): the polynomial is
  // below zero; the tower's leaving water is the wet bulb and the polynomial's value is kept.
  const auto cold = tower.evaluate_for_load(kelvin - 14.0, 7.9 * flow * 4180.0 * 22.0, 7.9 * flow, 1.0);
  CHECK(cold.correlation_approach == Approx(polynomial(kelvin - 14.0, 22.0, 7.9 * flow)).epsilon(1e-12));
  CHECK(cold.correlation_approach < -10.0);
  CHECK(cold.approach == 0.0);
  CHECK(cold.water_outlet_temperature == kelvin - 14.0);
  CHECK(cold.outside_correlation_bounds);
}

TEST_CASE("Tower fan: cubic power above the minimum speed, free convection below", "[hx][tower]") {
  const CoolingTower tower({});
  CHECK(tower.fan_power(1.0) == Approx(24.4e3));
  CHECK(tower.fan_power(0.5) == Approx(24.4e3 / 8.0));
  CHECK(tower.fan_power(0.1) == 0.0);  // below 0.2: fan off
  const double inlet = kelvin + 32.0;
  const auto full = tower.evaluate(kelvin + 20.0, inlet, 100.0, 1.0);
  const auto off = tower.evaluate(kelvin + 20.0, inlet, 100.0, 0.0);
  CHECK(off.free_convection);
  CHECK(off.fan_power == 0.0);
  CHECK(off.range == Approx(0.125 * full.range).epsilon(1e-12));
  // The load form with the fan off is consistent with the inlet form.
  const auto off_load = tower.evaluate_for_load(kelvin + 20.0, off.heat_flow, 100.0, 0.0);
  CHECK(off_load.water_inlet_temperature == Approx(inlet).epsilon(1e-9));
}

TEST_CASE("Tower make-up water: evaporation from the heat, drift and blowdown", "[hx][tower]") {
  const CoolingTower tower({});
  const auto m = tower.makeup_water(2.32e6, 100.0);
  CHECK(m.evaporation == Approx(2.32e6 / 2.43e6).epsilon(1e-14));  // ~0.95 kg/s
  CHECK(m.drift == Approx(100.0 * 8e-5).epsilon(1e-14));
  CHECK(m.blowdown == Approx(m.evaporation / 2.0 - m.drift).epsilon(1e-14));
  CHECK(m.total == Approx(m.evaporation + m.drift + m.blowdown).epsilon(1e-14));
  // Rule of thumb check: evaporation ~ 1 % of the flow per 5.6 K (10 F) of range.
  CHECK(m.evaporation / 100.0 == Approx(0.01 * (2.32e6 / (100.0 * 4180.0)) / 5.56).epsilon(0.15));
  CHECK(tower.makeup_water(0.0, 100.0).blowdown == 0.0);
}

TEST_CASE("Tower refuses bad parameters with exact messages", "[hx][tower]") {
  CoolingTowerParameters p;
  p.design_approach = 0.0;
  CHECK(input_error([&] { CoolingTower t(p); }) == "cooling_tower.design_approach = 0 K (must be > 0)");
  p = {};
  p.design_wet_bulb_temperature = kelvin + 30.0;
  CHECK(input_error([&] { CoolingTower t(p); }) ==
        "cooling_tower.design_wet_bulb_temperature = 30 degC (must be in [-34.4, 26.7] degC)");
  p = {};
  p.concentration_ratio = 1.0;
  CHECK(input_error([&] { CoolingTower t(p); }) == "cooling_tower.concentration_ratio = 1 (must be > 1)");
  p = {};
  p.design_approach = 0.05;
  CHECK(input_error([&] { CoolingTower t(p); }) ==
        "cooling_tower: the YorkCalc correlation cannot reach the design approach 0.05 K at wet bulb 25.5556 degC "
        "and range 5.5556 K with water flow ratios 0.25 to 4");
}
