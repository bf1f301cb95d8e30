// Conversion stages: efficiency curves through the 80 PLUS Titanium points, the PSU hold-up model
// (energy conservation on a load step, the closed-form bulk sag, recovery to the nominal voltage),
// BBU, PDU, UPS and switchboard losses, and bad input with the key path.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <cmath>
#include <numbers>

#include "dctwin/models/electrical/conversion.hpp"

using namespace dctwin::models::electrical;
using model_test::defaults_tree;
using model_test::input_error;

TEST_CASE("Efficiency curves interpolate linearly through the Titanium points", "[electrical][conversion]") {
  const auto curve = PsuParameters::default_efficiency();
  CHECK(interpolate_efficiency(curve, 0.1) == 0.90);
  CHECK(interpolate_efficiency(curve, 0.2) == 0.94);
  CHECK(interpolate_efficiency(curve, 0.5) == 0.96);
  CHECK(interpolate_efficiency(curve, 1.0) == 0.91);
  CHECK(interpolate_efficiency(curve, 0.15) == Approx(0.92).epsilon(1e-15));
  CHECK(interpolate_efficiency(curve, 0.35) == Approx(0.95).epsilon(1e-15));
  CHECK(interpolate_efficiency(curve, 0.75) == Approx(0.935).epsilon(1e-15));
  // Held at the end points outside the curve.
  CHECK(interpolate_efficiency(curve, 0.0) == 0.90);
  CHECK(interpolate_efficiency(curve, 0.05) == 0.90);
  CHECK(interpolate_efficiency(curve, 1.3) == 0.91);

  // A PSU bank uses the load fraction of one active supply: 100 servers x 3 x 3.3 kW.
  const PsuBank bank(PsuParameters{}, 100);
  CHECK(bank.load_fraction(0.5 * 100 * 3 * 3300.0) == Approx(0.5).epsilon(1e-15));
  CHECK(bank.efficiency(0.5 * 100 * 3 * 3300.0) == Approx(0.96).epsilon(1e-14));
}

TEST_CASE("PSU hold-up conserves energy and sags by the closed form on a load step", "[electrical][conversion]") {
  const PsuParameters p;
  const std::size_t servers = 384;
  const PsuBank bank(p, servers);
  const double p1 = 2.0e6, p2 = 3.2e6;  // W at the PSU outputs of the lineup
  PsuState state = bank.steady_state(p1);
  CHECK(state.input_power == Approx(p1 / bank.efficiency(p1)).epsilon(1e-15));
  CHECK(bank.bulk_voltage(state.bulk_energy) == Approx(p.bulk_voltage_nominal).epsilon(1e-14));
  const double e_nominal = state.bulk_energy;
  const double dt = 1e-3, tau = p.pfc_time_constant;
  double in = 0.0, out = 0.0, loss = 0.0, worst_sag = 0.0, least_energy = e_nominal;
  for (int k = 1; k <= 1000; ++k) {
    const PsuStep s = bank.step(state, dt, p2, p2);
    // Per step: W_in = W_out + loss + dE.
    CHECK(std::fabs(s.input_energy - (s.output_energy + s.loss + s.bulk_energy_change)) <= 1e-12 * s.input_energy);
    CHECK(s.loss >= 0.0);
    in += s.input_energy;
    out += s.output_energy;
    loss += s.loss;
    // With eta constant after the step: e(t) = -dP t e^{-t/(2 tau)} in terms of eta P_in; the bulk
    // sees the jump of P_out from p1 to p2 while eta P_in starts at eta(p2) p1 / eta(p1).
    const double t = k * dt;
    const double jump = p2 - bank.efficiency(p2) * p1 / bank.efficiency(p1);
    const double exact = -jump * t * std::exp(-t / (2.0 * tau));
    worst_sag = std::max(worst_sag, std::fabs(state.bulk_energy - e_nominal - exact));
    least_energy = std::min(least_energy, state.bulk_energy);
  }
  CHECK(std::fabs(in - (out + loss + (state.bulk_energy - e_nominal))) <= 1e-12 * in);
  CHECK(worst_sag <= 1e-9 * (p2 - p1) * tau);
  // Deepest sag 2 tau dP / e at t = 2 tau; back at the nominal voltage after 100 tau.
  const double jump = p2 - bank.efficiency(p2) * p1 / bank.efficiency(p1);
  CHECK(e_nominal - least_energy == Approx(2.0 * tau * jump / std::numbers::e).epsilon(1e-6));
  CHECK(bank.bulk_voltage(state.bulk_energy) == Approx(p.bulk_voltage_nominal).epsilon(1e-12));
  CHECK(bank.bulk_voltage(least_energy) > p.bulk_voltage_min);
  CHECK(state.input_power == Approx(p2 / bank.efficiency(p2)).epsilon(1e-12));
}

TEST_CASE("PSU steps may be split without changing the result for a linear load", "[electrical][conversion]") {
  const PsuBank bank(PsuParameters{}, 384);
  PsuState whole = bank.steady_state(2.0e6), split = whole;
  // A ramp at constant efficiency (between 0.2 and 0.5 load fraction the curve is linear but the
  // efficiency is frozen per step, so keep the load fraction on one point's plateau: above 1.0).
  const double high = 1.2 * 384 * 3 * 3300.0, higher = 1.25 * 384 * 3 * 3300.0;
  whole = bank.steady_state(high);
  split = whole;
  const PsuStep a = bank.step(whole, 1e-3, high, higher);
  const double mid = high + 0.3 * (higher - high);
  const PsuStep b1 = bank.step(split, 0.3e-3, high, mid);
  const PsuStep b2 = bank.step(split, 0.7e-3, mid, higher);
  CHECK(b1.input_energy + b2.input_energy == Approx(a.input_energy).epsilon(1e-12));
  CHECK(split.bulk_energy == Approx(whole.bulk_energy).epsilon(1e-14));
  CHECK(split.input_power == Approx(whole.input_power).epsilon(1e-12));
}

TEST_CASE("BBU, PDU, UPS and switchboard losses", "[electrical][conversion]") {
  const BbuParameters bbu;
  CHECK(bbu.loss(192) == Approx(192 * 2 * 30.0).epsilon(1e-15));
  PduParameters pdu;
  pdu.no_load_loss = 1000.0;
  CHECK(pdu.loss(pdu.rated_power) == Approx(1000.0 + 0.01 * pdu.rated_power).epsilon(1e-15));
  CHECK(pdu.loss(0.5 * pdu.rated_power) == Approx(1000.0 + 0.25 * 0.01 * pdu.rated_power).epsilon(1e-15));
  UpsParameters ups;
  CHECK(ups.input_power(0.5 * ups.rated_power) == Approx(0.5 * ups.rated_power / 0.965).epsilon(1e-15));
  ups.mode = "eco";
  CHECK(ups.input_power(0.5 * ups.rated_power) == Approx(0.5 * ups.rated_power / 0.99).epsilon(1e-15));
  const SwitchboardParameters sb;
  CHECK(sb.loss(sb.rated_power) == Approx(0.0025 * sb.rated_power).epsilon(1e-15));
}

namespace {

/// A UPS section with its defaults and the given double-conversion curve.
dctwin::core::ParameterTree ups_tree(const std::vector<std::pair<double, double>>& points) {
  auto tree = defaults_tree(UpsParameters::table(), "electrical.ups");
  auto& list = tree.lists["double_conversion_efficiency"];
  for (std::size_t i = 0; i < points.size(); ++i) {
    auto entry = defaults_tree(EfficiencyPoint::table(), "electrical.ups.double_conversion_efficiency[" +
                                                             std::to_string(i) + "]");
    entry.values["load_fraction"].number = points[i].first;
    entry.values["efficiency"].number = points[i].second;
    list.push_back(entry);
  }
  return tree;
}

}  // namespace

TEST_CASE("Bad conversion parameters name the key", "[electrical][conversion]") {
  auto psu = defaults_tree(PsuParameters::table(), "electrical.psu");
  CHECK(input_error([&] { PsuParameters::from(psu); }).empty());
  psu.values["bulk_capacitance"].number = -1e-3;
  CHECK(input_error([&] { PsuParameters::from(psu); }) == "electrical.psu.bulk_capacitance = -0.001 F (must be > 0)");
  psu = defaults_tree(PsuParameters::table(), "electrical.psu");
  psu.values["active_supplies"].number = 7;
  CHECK(input_error([&] { PsuParameters::from(psu); }) == "electrical.psu: active_supplies 7 is more than supplies 6");

  CHECK(input_error([&] { UpsParameters::from(ups_tree({{0.25, 0.95}, {0.5, 0.96}, {1.0, 0.96}})); }).empty());
  CHECK(input_error([&] { UpsParameters::from(ups_tree({{0.25, 0.95}, {0.5, 0.96}, {0.4, 0.96}})); }) ==
        "electrical.ups.double_conversion_efficiency[2].load_fraction = 0.4 (must be > 0.5)");
  CHECK(input_error([&] { UpsParameters::from(ups_tree({{0.25, 0.95}, {0.25, 0.96}})); }) ==
        "electrical.ups.double_conversion_efficiency[1].load_fraction = 0.25 (must be > 0.25)");
  CHECK(input_error([&] { UpsParameters::from(ups_tree({{0.25, 0.95}, {0.5, 1.02}})); }) ==
        "electrical.ups.double_conversion_efficiency[1].efficiency = 1.02 (must be in (0, 1])");
  CHECK(input_error([&] { UpsParameters::from(ups_tree({{0.5, 0.95}})); }) ==
        "electrical.ups.double_conversion_efficiency: an efficiency curve needs at least 2 points (1 given)");
  auto ups = defaults_tree(UpsParameters::table(), "electrical.ups");
  ups.values["mode"].text = "bypass";
  CHECK(input_error([&] { UpsParameters::from(ups); }) ==
        "electrical.ups.mode = bypass (must be double_conversion or eco)");

  auto pdu = defaults_tree(PduParameters::table(), "electrical.pdu");
  pdu.values["loss_fraction_at_rated"].number = 1.0;
  CHECK(input_error([&] { PduParameters::from(pdu); }) ==
        "electrical.pdu.loss_fraction_at_rated = 1 (must be in [0, 1))");
  auto bbu = defaults_tree(BbuParameters::table(), "electrical.bbu");
  bbu.values["standby_loss"].number = -5.0;
  CHECK(input_error([&] { BbuParameters::from(bbu); }) == "electrical.bbu.standby_loss = -5 W (must be >= 0)");
}
