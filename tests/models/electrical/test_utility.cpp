// Utility frequency and torsional dynamics: the exact zero-order-hold discretization against the
// closed forms of the swing equation (without and with governor droop), the frequency nadir, the
// torsional resonator's step response, partial steps, and bad parameters.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "dctwin/models/electrical/utility.hpp"

using namespace dctwin::models::electrical;
using model_test::defaults_tree;
using model_test::input_error;

namespace {

constexpr double dt = 1e-3;

/// df(t) [p.u.] after a load step dP [p.u.] at t = 0 with the governor on (Kundur ch. 11):
/// 2H T_g s^2 + (2H + D T_g) s + (D + 1/R) = 0 has roots -sigma +- j omega (underdamped for the
/// defaults), df = df_inf + e^{-sigma t} (c1 cos omega t + c2 sin omega t) with df(0) = 0 and
/// df'(0) = -dP / (2H) (dPm(0) = 0).
struct GovernedStep {
  double sigma, omega, final_value, c1, c2;
  GovernedStep(const UtilityParameters& p, double dp) {
    const double two_h = 2.0 * p.inertia, tg = p.governor_time_constant;
    const double a = two_h * tg, b = two_h + p.damping * tg, c = p.damping + 1.0 / p.droop;
    sigma = b / (2.0 * a);
    omega = std::sqrt(c / a - sigma * sigma);
    final_value = -dp / c;
    c1 = -final_value;
    c2 = (-dp / two_h + sigma * c1) / omega;
  }
  [[nodiscard]] double at(double t) const {
    return final_value + std::exp(-sigma * t) * (c1 * std::cos(omega * t) + c2 * std::sin(omega * t));
  }
  /// First t > 0 with df'(t) = 0: (-sigma c1 + omega c2) cos + (-sigma c2 - omega c1) sin = 0.
  [[nodiscard]] double nadir_time() const {
    const double p = -sigma * c1 + omega * c2, q = -sigma * c2 - omega * c1;
    double t = std::atan2(-p, q) / omega;  // tan(omega t) = -p / q
    while (t <= 0.0) t += std::numbers::pi / omega;
    return t;
  }
};

}  // namespace

TEST_CASE("Swing equation without governor follows -dP/D (1 - exp(-D t / 2H))", "[electrical][utility]") {
  UtilityParameters p;
  p.governor_enabled = false;
  p.torsional_enabled = false;
  UtilityGrid grid(p, dt);
  const double dp = 0.01;  // p.u. of S_sys
  const double power_change = dp * p.system_base;
  double worst = 0.0;
  for (int k = 1; k <= 20000; ++k) {
    grid.step(dt, power_change);
    const double t = k * dt;
    const double exact = -dp / p.damping * (1.0 - std::exp(-p.damping * t / (2.0 * p.inertia)));
    worst = std::max(worst, std::fabs(grid.frequency_deviation() - exact));
    REQUIRE(grid.mechanical_power_change() == 0.0);
  }
  CHECK(worst <= 1e-9 * dp / p.damping);
  CHECK(grid.frequency() == Approx(p.frequency * (1.0 + grid.frequency_deviation())).epsilon(1e-15));
}

TEST_CASE("Swing equation with governor droop matches its second-order closed form and nadir",
          "[electrical][utility]") {
  UtilityParameters p;
  p.torsional_enabled = false;
  UtilityGrid grid(p, dt);
  const double dp = 0.006;  // 30 MW on 5 GVA
  const GovernedStep exact(p, dp);
  REQUIRE(exact.omega > 0.0);  // underdamped with the defaults (H 4 s, T_g 0.5 s, D 1, R 5 %)
  double worst = 0.0, scale = 0.0;
  double nadir = 0.0, nadir_time = 0.0;
  for (int k = 1; k <= 30000; ++k) {
    grid.step(dt, dp * p.system_base);
    const double t = k * dt;
    worst = std::max(worst, std::fabs(grid.frequency_deviation() - exact.at(t)));
    scale = std::max(scale, std::fabs(exact.at(t)));
    if (grid.frequency_deviation() < nadir) {
      nadir = grid.frequency_deviation();
      nadir_time = t;
    }
  }
  CHECK(worst <= 1e-9 * scale);
  // Steady state: df = -dP / (D + 1/R).
  CHECK(grid.frequency_deviation() == Approx(-dp / (p.damping + 1.0 / p.droop)).epsilon(1e-9));
  // Nadir: the sampled minimum lies within half a step of the closed-form nadir time, and its depth
  // between the true nadir and the closed form half a step away from it.
  const double tn = exact.nadir_time();
  const double depth = exact.at(tn);
  CHECK(std::fabs(nadir_time - tn) <= 0.5 * dt + 1e-12);
  CHECK(nadir >= depth - 1e-9 * std::fabs(depth));
  const double half_step_away = std::max(exact.at(tn - 0.5 * dt), exact.at(tn + 0.5 * dt));
  CHECK(nadir <= half_step_away + 1e-9 * std::fabs(depth));
  // The nadir is deeper than the steady state (overshoot), in hertz a few tens of mHz here.
  CHECK(depth < exact.final_value);
  CHECK(-depth * p.frequency > 0.01);
}

TEST_CASE("Torsional resonator step response matches its closed form", "[electrical][utility]") {
  UtilityParameters p;
  UtilityGrid grid(p, dt);
  const double power_change = 30e6;
  const double u = p.torsional_share * power_change / p.torsional_unit_rating;
  const double w = 2.0 * std::numbers::pi * p.torsional_frequency, z = p.torsional_damping_ratio;
  const double wd = w * std::sqrt(1.0 - z * z);
  double worst = 0.0, sampled_max = 0.0;
  for (int k = 1; k <= 2000; ++k) {
    grid.step(dt, power_change);
    const double t = k * dt;
    // x(t) = u (1 - e^{-zeta w t} (cos w_d t + zeta / sqrt(1 - zeta^2) sin w_d t)).
    const double exact =
        u * (1.0 - std::exp(-z * w * t) * (std::cos(wd * t) + z / std::sqrt(1.0 - z * z) * std::sin(wd * t)));
    worst = std::max(worst, std::fabs(grid.torsional_twist() - exact));
    sampled_max = std::max(sampled_max, std::fabs(exact));
  }
  CHECK(worst <= 1e-9 * u);
  CHECK(grid.torsional_amplitude_max() == Approx(sampled_max).epsilon(1e-9));
  // The first overshoot peak u (1 + e^{-zeta pi / sqrt(1 - zeta^2)}) bounds the sampled maximum.
  const double peak = u * (1.0 + std::exp(-z * std::numbers::pi / std::sqrt(1.0 - z * z)));
  CHECK(grid.torsional_amplitude_max() <= peak * (1.0 + 1e-12));
  CHECK(grid.torsional_amplitude_max() >= 0.99 * peak);
}

TEST_CASE("Partial steps compose to a full step", "[electrical][utility]") {
  UtilityParameters p;
  UtilityGrid whole(p, dt), split(p, dt);
  for (int k = 0; k < 100; ++k) {
    whole.step(dt, 20e6);
    split.step(0.37 * dt, 20e6);
    split.step(dt - 0.37 * dt, 20e6);
  }
  CHECK(split.frequency_deviation() == Approx(whole.frequency_deviation()).epsilon(1e-12));
  CHECK(split.mechanical_power_change() == Approx(whole.mechanical_power_change()).epsilon(1e-12));
  CHECK(split.torsional_twist() == Approx(whole.torsional_twist()).epsilon(1e-10));
}

TEST_CASE("Thevenin impedance from short-circuit power and X/R", "[electrical][utility]") {
  UtilityParameters p;
  const auto z = p.source_impedance();
  CHECK(std::abs(z) == Approx(p.nominal_voltage * p.nominal_voltage / p.short_circuit_power).epsilon(1e-14));
  CHECK(z.imag() / z.real() == Approx(p.x_over_r).epsilon(1e-14));
}

TEST_CASE("Bad utility parameters name the key", "[electrical][utility]") {
  auto tree = defaults_tree(UtilityParameters::table(), "electrical.utility");
  CHECK(input_error([&] { UtilityParameters::from(tree); }).empty());
  auto bad = tree;
  bad.values["short_circuit_power"].number = -1e9;
  CHECK(input_error([&] { UtilityParameters::from(bad); }) ==
        "electrical.utility.short_circuit_power = -1000000000 VA (must be > 0)");
  bad = tree;
  bad.values["torsional_damping_ratio"].number = 1.5;
  CHECK(input_error([&] { UtilityParameters::from(bad); }) ==
        "electrical.utility.torsional_damping_ratio = 1.5 (must be in (0, 1))");
  bad = tree;
  bad.values["governor_enabled"].number = 0.0;
  bad.values["damping"].number = 0.0;
  CHECK(input_error([&] { UtilityParameters::from(bad); }) ==
        "electrical.utility: damping must be > 0 when the governor is disabled (else the frequency has no "
        "equilibrium)");
}
