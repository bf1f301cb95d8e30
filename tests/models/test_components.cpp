// Closed-form checks of the small models: pump operating point, cold plate.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/models/hydraulic/pump.hpp"
#include "dctwin/models/thermal/cold_plate.hpp"

using namespace dctwin::models;

TEST_CASE("Pump against a quadratic system curve: closed-form operating point", "[models][hydraulic]") {
  // dp_0 s^2 (1 - (Q/(Q_max s))^2) = k Q^2  =>  Q = sqrt(dp_0 s^2 / (k + dp_0 / Q_max^2)).
  const hydraulic::Pump pump({150e3, 3.0e-4, 0.8});
  const double k = 2.0e12;  // Pa/(m3/s)^2
  const auto op = hydraulic::operating_point(pump, [&](double q) { return k * q * q; });
  const double s = 0.8, dp0 = 150e3, qmax = 3.0e-4;
  const double exact = std::sqrt(dp0 * s * s / (k + dp0 / (qmax * qmax)));
  CHECK(op.flow == Approx(exact).epsilon(1e-10));
  CHECK(op.pressure_rise == Approx(k * exact * exact).epsilon(1e-9));
}

TEST_CASE("Pump affinity laws: flow scales with speed, pressure with speed squared", "[models][hydraulic]") {
  const hydraulic::Pump full({100e3, 2e-4, 1.0}), half({100e3, 2e-4, 0.5});
  CHECK(half.pressure_rise(0.0) == Approx(0.25 * full.pressure_rise(0.0)));
  CHECK(half.pressure_rise(0.5 * 1.2e-4) == Approx(0.25 * full.pressure_rise(1.2e-4)));
  CHECK(full.pressure_rise(2e-4) == Approx(0.0).margin(1e-9));
}

TEST_CASE("Cold plate follows its power laws and the OCP pressure exponent", "[models][thermal]") {
  thermal::ColdPlateParameters p;
  const thermal::ColdPlate plate(p);
  CHECK(plate.resistance(p.nominal_flow) == Approx(p.resistance_at_nominal_flow));
  CHECK(plate.resistance(2.0 * p.nominal_flow) == Approx(p.resistance_at_nominal_flow * std::pow(2.0, -0.8)));
  // OCP: Q/Q_nom = (dp/dp_nom)^(1/1.85).
  const double dp = plate.pressure_drop(0.6 * p.nominal_flow);
  CHECK(std::pow(dp / p.pressure_drop_at_nominal_flow, 1.0 / 1.85) == Approx(0.6));
}
