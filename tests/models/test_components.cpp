// Closed-form checks of the small models: pump operating point, cold plate.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>

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

TEST_CASE("Cold plate: power laws, effectiveness-NTU and the OCP pressure exponent", "[models][thermal]") {
  thermal::ColdPlateParameters p;
  p.resistance_flow_exponent = 0.8;
  const thermal::ColdPlate plate(p);
  CHECK(plate.convective_resistance(p.nominal_flow) == Approx(p.resistance_at_nominal_flow));
  CHECK(plate.convective_resistance(2.0 * p.nominal_flow) ==
        Approx(p.resistance_at_nominal_flow * std::pow(2.0, -0.8)));
  // eps = 1 - exp(-NTU), R_ci = 1/(eps C), R_cp = R_ci - 1/C, at C = 40 W/K and Q = Q_nom.
  const double c = 40.0, ntu = 1.0 / (p.resistance_at_nominal_flow * c), eps = 1.0 - std::exp(-ntu);
  CHECK(plate.case_to_inlet_resistance(p.nominal_flow, c) == Approx(1.0 / (eps * c)).epsilon(1e-13));
  CHECK(plate.resistance(p.nominal_flow, c) == Approx(1.0 / (eps * c) - 1.0 / c).epsilon(1e-12));
  // Limits: a large capacity rate leaves R_conv - 1/(2C) (the linearised exchanger); a small one
  // saturates (outlet at the base temperature, R_cp -> 0, held at NTU = 14).
  const double big = 1e6;
  CHECK(plate.resistance(p.nominal_flow, big) ==
        Approx(p.resistance_at_nominal_flow - 0.5 / big).epsilon(1e-9));
  const double small = 1.0 / (100.0 * p.resistance_at_nominal_flow);
  CHECK(plate.resistance(p.nominal_flow, small) ==
        Approx(1.0 / (small * std::expm1(thermal::ColdPlate::max_transfer_units))).epsilon(1e-13));
  // OCP: Q/Q_nom = (dp/dp_nom)^(1/1.85).
  const double dp = plate.pressure_drop(0.6 * p.nominal_flow);
  CHECK(std::pow(dp / p.pressure_drop_at_nominal_flow, 1.0 / 1.85) == Approx(0.6));
}

TEST_CASE("Cold plate defaults reproduce the OCP 1 kW OAM case-to-inlet curve within 8.5 percent",
          "[models][thermal]") {
  // OCP OAI System Liquid Cooling Guidelines (Chen et al., 2023), Fig. 7: one cold plate of a 1 kW
  // OAM with PG25, case-to-inlet resistance R_ci = (T_case - T_inlet) / q against the plate's flow,
  // as transcribed in the Modelica Buildings record OCP_1kW_OAM_PG25.
  const double flow_l_min[] = {0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4};
  const double source[] = {0.0389, 0.0325, 0.0300, 0.0280, 0.0265, 0.0255, 0.0245,
                           0.0230, 0.0220, 0.0214, 0.0209, 0.0204, 0.0200, 0.0197};
  // Model deviations (docs/models/single-node.md): +5.9 % at 0.4 L/min, +8.3 % at 0.5, within
  // +-2.1 % from 0.9 to 2.4 L/min. PG25 at 30 degC, the model's default coolant.
  const double rho_cp = 1015.2 * 3979.0;
  const thermal::ColdPlate plate{thermal::ColdPlateParameters{}};
  double worst = 0.0, worst_above_0_9 = 0.0;
  for (std::size_t k = 0; k < std::size(source); ++k) {
    const double q = flow_l_min[k] / 60000.0;
    const double deviation = plate.case_to_inlet_resistance(q, rho_cp * q) / source[k] - 1.0;
    CAPTURE(flow_l_min[k], deviation);
    CHECK(std::abs(deviation) <= 0.085);
    worst = std::max(worst, std::abs(deviation));
    if (flow_l_min[k] >= 0.9) worst_above_0_9 = std::max(worst_above_0_9, std::abs(deviation));
  }
  CHECK(worst == Approx(0.0832).margin(0.0005));
  CHECK(worst_above_0_9 <= 0.022);
  // The former law (n = 0.8 on a base-to-outlet resistance of 0.020 K/W) was 74 % high at 1 L/min.
  thermal::ColdPlateParameters former;
  former.resistance_at_nominal_flow = 0.020;
  former.resistance_flow_exponent = 0.8;
  const double q1 = 1.0 / 60000.0;
  const double former_rci =
      former.resistance_at_nominal_flow * std::pow(q1 / former.nominal_flow, -0.8) + 1.0 / (rho_cp * q1);
  CHECK(former_rci / 0.0245 - 1.0 == Approx(0.735).margin(0.005));
}
