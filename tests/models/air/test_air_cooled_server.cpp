// The air-cooled server of the telemetry replay (thermal/air_cooled_server.hpp) against closed
// forms: local air by hand, the steady state's balance, a long run landing on it, the junction's
// first-order response when the heatsink is held, and a leakage runaway without a steady state.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "dctwin/models/thermal/air.hpp"
#include "dctwin/models/thermal/air_cooled_server.hpp"
#include "dctwin/solver/integrator.hpp"

using namespace dctwin::models::thermal;

namespace {

GpuPackageParameters package(double leakage) {
  GpuPackageParameters p;
  p.leakage_power_at_reference = leakage;
  p.leakage_temperature_coefficient = 0.02;
  p.base_capacitance = 800.0;
  return p;
}

AirCooledServer server(double leakage, double heatsink_scale = 1.0) {
  std::vector<AirCooledSlot> slots(2);
  slots[1].position_fraction = 0.45;
  slots[1].inlet_offset = 2.0;
  slots[1].heatsink_resistance_scale = heatsink_scale;
  return AirCooledServer(AirCooledServerParameters{}, HeatsinkParameters{}, ServerAirPathParameters{},
                         ServerFanParameters{}, package(leakage), std::vector<GpuSpread>(2), slots);
}

}  // namespace

TEST_CASE("air-cooled server: local air and heatsink resistance by hand", "[air][air_cooled_server]") {
  const auto s = server(0.0, 1.2);
  // Fans at 0.8 on the default chassis: V = 0.8 sqrt(1200 / (750 / 0.5^2 + 1200 / 0.8^2)) m3/s.
  const double flow = 0.8 * std::sqrt(1200.0 / (750.0 / 0.25 + 1200.0 / 0.64));
  CHECK(s.server_air_flow() == Approx(flow).epsilon(1e-9));
  CHECK(s.fan_power() == Approx(1500.0 * 0.512).epsilon(1e-9));
  const double r = 0.015 + 0.035 * std::pow(0.175 * flow / 0.0875, -0.7);
  CHECK(s.heatsink_resistance(0) == Approx(r).epsilon(1e-12));
  CHECK(s.heatsink_resistance(1) == Approx(1.2 * r).epsilon(1e-12));
  const Air air(AirParameters{});
  const double rise = (4000.0 + 1500.0 + s.fan_power()) / (air.volumetric_heat_capacity(298.15) * flow);
  CHECK(s.local_air_temperature(0, 4000.0) == Approx(298.15).epsilon(1e-12));
  CHECK(s.local_air_temperature(1, 4000.0) == Approx(298.15 + 2.0 + 0.45 * rise).epsilon(1e-12));
}

TEST_CASE("air-cooled server: the steady state balances and a long run lands on it", "[air][air_cooled_server]") {
  const auto s = server(50.0);
  const double power = 500.0, air = 305.0;
  const auto x = s.steady_state(1, power, air);
  const double leak = s.leakage(1, x[0]);
  const double r_jb = 0.025, r_hb = 0.15, f_h = 0.12;
  // Heat through each resistance equals what flows into it.
  CHECK((x[2] - air) / s.heatsink_resistance(1) == Approx(power + leak).epsilon(1e-9));
  CHECK((x[0] - x[2]) / r_jb == Approx((1.0 - f_h) * power + leak).epsilon(1e-9));
  CHECK((x[1] - x[2]) / r_hb == Approx(f_h * power).epsilon(1e-9));
  // From the inlet temperature, 20 heatsink time constants at the same power.
  const double tau = 800.0 * s.heatsink_resistance(1);
  const auto y = s.advance(1, {air, air, air}, power, air, 20.0 * tau);
  for (std::size_t i = 0; i < 3; ++i) CHECK(y[i] == Approx(x[i]).margin(1e-5));
}

TEST_CASE("air-cooled server: the junction's step response with a heavy heatsink", "[air][air_cooled_server]") {
  // Base capacitance 1e9 J/K holds the base; HBM at zero power: T_j relaxes on C_j R_jb.
  GpuPackageParameters p = package(0.0);
  p.base_capacitance = 1e9;
  p.hbm_power_fraction = 0.0;
  const AirCooledServer s(AirCooledServerParameters{}, HeatsinkParameters{}, ServerAirPathParameters{},
                          ServerFanParameters{}, p, std::vector<GpuSpread>(1), {});
  const double tau = 30.0 * 0.025, power = 400.0, base = 320.0;
  for (const double t : {0.25, 0.75, 2.0}) {
    const auto x = s.advance(0, {base, base, base}, power, base, t, 0.005);
    const double exact = base + power * 0.025 * (1.0 - std::exp(-t / tau));
    // Trapezoidal rule, h = 0.005 s: error O((h / tau)^2) of the rise.
    CHECK(x[0] == Approx(exact).margin(1e-3));
  }
}

TEST_CASE("air-cooled server: a leakage runaway has no steady state", "[air][air_cooled_server]") {
  GpuPackageParameters p = package(200.0);
  p.leakage_temperature_coefficient = 0.2;
  const AirCooledServer s(AirCooledServerParameters{}, HeatsinkParameters{}, ServerAirPathParameters{},
                          ServerFanParameters{}, p, std::vector<GpuSpread>(1), {});
  CHECK_THROWS_AS(s.steady_state(0, 600.0, 310.0), dctwin::solver::SolverError);
  // The transient runs away past any physical temperature without overflowing.
  const auto x = s.advance(0, {310.0, 310.0, 310.0}, 600.0, 310.0, 60.0);
  CHECK((!std::isfinite(x[0]) || x[0] > 473.15));
}
