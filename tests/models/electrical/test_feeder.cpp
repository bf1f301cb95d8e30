// MV feeder in the synchronous frame: the step response of the exact discretization against the
// closed form of the same RLC equations (complex eigenvalues), the steady state against the phasor
// solution V = V_s - Z I, constant-power loads, and bad parameters.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "dctwin/models/electrical/feeder.hpp"

using namespace dctwin::models::electrical;
using model_test::defaults_tree;
using model_test::input_error;

namespace {

constexpr double dt = 1e-3;
constexpr std::complex<double> j{0.0, 1.0};

/// Deviation from the new steady state after t, by the closed form: with z = (i, v) complex,
/// z' = (N - j w I) z + input, N = [[-R/L, -1/L], [1/C, 0]] real with eigenvalues -alpha +- j w_d,
/// alpha = R / 2L, w_d = sqrt(1/LC - alpha^2), so the deviation is
/// e^{-j w t} e^{-alpha t} [cos(w_d t) I + sin(w_d t) / w_d (N + alpha I)] z_0.
std::pair<std::complex<double>, std::complex<double>> closed_form(const Feeder& f, std::complex<double> i0,
                                                                  std::complex<double> v0, double t) {
  const double r = f.resistance(), l = f.inductance(), c = f.capacitance(), w = f.angular_frequency();
  const double alpha = r / (2.0 * l);
  const double wd = std::sqrt(1.0 / (l * c) - alpha * alpha);
  const double co = std::cos(wd * t), si = std::sin(wd * t) / wd;
  // (N + alpha I) = [[-R/L + alpha, -1/L], [1/C, alpha]].
  const std::complex<double> i = co * i0 + si * ((-r / l + alpha) * i0 - v0 / l);
  const std::complex<double> v = co * v0 + si * (i0 / c + alpha * v0);
  const std::complex<double> rotation = std::exp(-j * w * t) * std::exp(-alpha * t);
  return {rotation * i, rotation * v};
}

}  // namespace

TEST_CASE("Feeder load step matches the RLC closed form and settles at the phasor solution",
          "[electrical][feeder]") {
  const FeederParameters p;
  const UtilityParameters u;
  Feeder feeder(p, u, dt);
  // Underdamped: the series R-L with the bank resonates at ~1 kHz.
  REQUIRE(1.0 / (feeder.inductance() * feeder.capacitance()) >
          std::pow(feeder.resistance() / (2.0 * feeder.inductance()), 2));
  const std::complex<double> before{400.0, -60.0}, after{900.0, -150.0};  // A per phase
  feeder.settle_current(before);
  const std::complex<double> v_after = feeder.steady_voltage(after);
  const std::complex<double> i_after = after + j * feeder.angular_frequency() * feeder.capacitance() * v_after;
  const std::complex<double> di0 = feeder.current() - i_after, dv0 = feeder.voltage() - v_after;
  double worst_v = 0.0, worst_i = 0.0;
  for (int k = 1; k <= 200; ++k) {
    feeder.step_current(dt, after);
    const auto [di, dv] = closed_form(feeder, di0, dv0, k * dt);
    worst_v = std::max(worst_v, std::abs(feeder.voltage() - (v_after + dv)));
    worst_i = std::max(worst_i, std::abs(feeder.current() - (i_after + di)));
  }
  CHECK(worst_v <= 1e-9 * std::abs(dv0));
  CHECK(worst_i <= 1e-9 * std::abs(di0));
  // Damping R / 2L ~ 40 1/s: after 1 s more the deviation is e^-40 of the step.
  for (int k = 0; k < 1000; ++k) feeder.step_current(dt, after);
  const std::complex<double> z{feeder.resistance(), feeder.angular_frequency() * feeder.inductance()};
  const std::complex<double> i_line = after + j * feeder.angular_frequency() * feeder.capacitance() * v_after;
  CHECK(std::abs(v_after - (feeder.source_voltage() - z * i_line)) <= 1e-12 * std::abs(v_after));  // V = V_s - Z I
  CHECK(std::abs(feeder.voltage() - v_after) <= 1e-9 * std::abs(dv0));
  CHECK(std::abs(feeder.current() - i_line) <= 1e-9 * std::abs(di0));
  CHECK(feeder.loss() == Approx(3.0 * feeder.resistance() * std::norm(i_line)).epsilon(1e-9));
}

TEST_CASE("Feeder at a constant-power load stays at its settled state", "[electrical][feeder]") {
  Feeder feeder(FeederParameters{}, UtilityParameters{}, dt);
  const std::complex<double> s{40e6, 8e6};
  feeder.settle(s);
  const std::complex<double> v = feeder.voltage();
  CHECK(std::abs(3.0 * v * std::conj(feeder.current() - j * feeder.angular_frequency() * feeder.capacitance() * v) -
                 s) <= 1e-9 * std::abs(s));
  // The discrete map's fixed point is the continuous steady state; what is left is round-off of the
  // propagator (its input block carries dt / C ~ 200 ohm against a ~1 ohm source impedance).
  for (int k = 0; k < 1000; ++k) feeder.step_power(dt, s);
  CHECK(std::abs(feeder.voltage() - v) <= 1e-8 * std::abs(v));
  // A 40 MW load at power factor 0.98 lowers the 34.5 kV bus by a little over a percent.
  CHECK(feeder.voltage_relative() < 1.0);
  CHECK(feeder.voltage_relative() > 0.97);

  // A step of the constant-power load settles (the load current follows the filtered voltage, so the
  // feeder's LC ring stays damped) at the settled state of the new power.
  const std::complex<double> s2{55e6, 11e6};
  Feeder reference(FeederParameters{}, UtilityParameters{}, dt);
  reference.settle(s2);
  double largest = 0.0;
  for (int k = 0; k < 2000; ++k) {
    feeder.step_power(dt, s2);
    largest = std::max(largest, std::abs(feeder.voltage() - reference.voltage()));
  }
  INFO("largest deviation " << largest << " V, step of the settled voltage " << std::abs(v - reference.voltage()) << " V");
  CHECK(largest <= 1.02 * std::abs(v - reference.voltage()));
  CHECK(std::abs(feeder.voltage() - reference.voltage()) <= 1e-8 * std::abs(reference.voltage()));
}

TEST_CASE("Capacitor bank rating sets the shunt capacitance", "[electrical][feeder]") {
  FeederParameters p;
  const UtilityParameters u;
  p.capacitor_bank_rating = 3.0e6;
  const Feeder feeder(p, u, dt);
  const double w = 2.0 * std::numbers::pi * u.frequency;
  CHECK(feeder.capacitance() ==
        Approx(p.cable_capacitance + 3.0e6 / (w * u.nominal_voltage * u.nominal_voltage)).epsilon(1e-14));
}

TEST_CASE("Bad feeder parameters name the key", "[electrical][feeder]") {
  const auto tree = defaults_tree(FeederParameters::table(), "electrical.feeder");
  CHECK(input_error([&] { FeederParameters::from(tree); }).empty());
  auto bad = tree;
  bad.values["capacitor_bank_rating"].number = -1000.0;
  CHECK(input_error([&] { FeederParameters::from(bad); }) ==
        "electrical.feeder.capacitor_bank_rating = -1000 VA (must be >= 0)");
  bad = tree;
  bad.values["cable_capacitance"].number = -1e-6;
  CHECK(input_error([&] { FeederParameters::from(bad); }) ==
        "electrical.feeder.cable_capacitance = -1e-06 F (must be > 0)");
  bad = tree;
  bad.values["resistance"].number = -0.1;
  CHECK(input_error([&] { FeederParameters::from(bad); }) == "electrical.feeder.resistance = -0.1 ohm (must be >= 0)");
  FeederParameters fast;
  fast.load_time_constant = 2e-3;
  CHECK(input_error([&] { Feeder(fast, UtilityParameters{}, dt); }) ==
        "electrical.feeder: load_time_constant 0.002 s is shorter than 5 time steps (0.005 s); the constant-power "
        "load would undamp the feeder");
}
