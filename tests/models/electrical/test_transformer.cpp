// Transformer: IEEE C57.91 clause 7 hot-spot response to a load step against its exponential
// formulas, the ageing acceleration factor at 110 and 120 degC, equivalent ageing at a constant hot
// spot, losses, voltage drop, and bad parameters.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <cmath>

#include "dctwin/models/electrical/transformer.hpp"

using namespace dctwin::models::electrical;
using model_test::defaults_tree;
using model_test::input_error;

namespace {
constexpr double celsius = 273.15;
}

TEST_CASE("Hot spot after a load step follows the C57.91 exponentials", "[electrical][transformer]") {
  const TransformerParameters p;
  const Transformer t(p);
  const double k1 = 0.5, k2 = 1.1, ambient = 30.0 + celsius;
  const double r = p.load_loss / p.no_load_loss;
  // Ultimate rises by hand from the clause 7 formulas.
  const double to1 = p.top_oil_rise * std::pow((k1 * k1 * r + 1.0) / (r + 1.0), p.oil_exponent);
  const double to2 = p.top_oil_rise * std::pow((k2 * k2 * r + 1.0) / (r + 1.0), p.oil_exponent);
  const double h1 = p.hot_spot_rise * std::pow(k1, 2.0 * p.winding_exponent);
  const double h2 = p.hot_spot_rise * std::pow(k2, 2.0 * p.winding_exponent);
  CHECK(t.ultimate_top_oil_rise(k1) == Approx(to1).epsilon(1e-14));
  CHECK(t.ultimate_hot_spot_rise(k2) == Approx(h2).epsilon(1e-14));
  TransformerThermalState s = t.steady_state(k1);
  double worst = 0.0;
  double time = 0.0;
  // Steps of mixed lengths: the exact exponential does not depend on how the interval is cut.
  const double lengths[] = {1.0, 0.25, 7.0, 60.0};
  for (int k = 0; k < 400; ++k) {
    const double h = lengths[k % 4];
    t.step(s, h, k2, ambient);
    time += h;
    const double top_oil = to2 + (to1 - to2) * std::exp(-time / p.top_oil_time_constant);
    const double hot_spot = h2 + (h1 - h2) * std::exp(-time / p.winding_time_constant);
    worst = std::max(worst, std::fabs(t.hot_spot(s, ambient) - (ambient + top_oil + hot_spot)));
  }
  CHECK(worst <= 1e-9);
  // Rated load at 30 degC ambient reaches the 110 degC reference hot spot.
  CHECK(t.hot_spot(t.steady_state(1.0), ambient) == Approx(110.0 + celsius).epsilon(1e-14));
}

TEST_CASE("Ageing acceleration factor and equivalent ageing", "[electrical][transformer]") {
  // F_AA = exp(15000/383 - 15000/(theta_H + 273)) is 1 at the 110 degC reference.
  CHECK(ageing_acceleration(110.0 + celsius) == Approx(1.0).epsilon(1e-15));
  // At 120 degC: 15000/383 - 15000/393 = 150000/150519 = 0.996552, e^0.996552 = 2.70892.
  CHECK(ageing_acceleration(120.0 + celsius) == Approx(2.70892).epsilon(1e-5));
  // At 98 degC ageing is about a quarter as fast (the usual "halving every ~6-7 K").
  CHECK(ageing_acceleration(98.0 + celsius) < 0.3);

  // A constant hot spot ages F_AA hours per hour.
  const TransformerParameters p;
  const Transformer t(p);
  const double ambient = 35.0 + celsius, k = 0.9;
  TransformerThermalState s = t.steady_state(k);
  const double theta = t.hot_spot(s, ambient);
  for (int step = 0; step < 36000; ++step) t.step(s, 1.0, k, ambient);
  CHECK(t.hot_spot(s, ambient) == Approx(theta).epsilon(1e-14));
  CHECK(s.ageing_hours == Approx(ageing_acceleration(theta) * 10.0).epsilon(1e-9));
}

TEST_CASE("A step's decay formed once and its ageing rate carried over give the bits of fresh exponentials",
          "[electrical][transformer]") {
  // The feed steps nine units at one h every millisecond: it forms exp(-h / tau) once (decay())
  // and each unit takes the F_AA its last step ended with. Against the clause 7 step written out
  // with fresh exponentials, bit for bit, through load changes, an ambient change (the carried
  // F_AA no longer fits and is formed again), partial steps and a zero step.
  const TransformerParameters p;
  const Transformer t(p);
  double ambient = 30.0 + celsius;
  TransformerThermalState s = t.steady_state(0.7);
  double top_oil = s.top_oil_rise, hot_spot = s.hot_spot_rise, ageing = 0.0;
  const TransformerDecay full = t.decay(1e-3);
  CHECK(full.h == 1e-3);
  CHECK(full.top_oil == std::exp(-1e-3 / p.top_oil_time_constant));
  CHECK(full.winding == std::exp(-1e-3 / p.winding_time_constant));
  for (int k = 0; k < 3000; ++k) {
    if (k == 1500) ambient += 2.5;
    const double h = k % 7 == 3 ? 4e-4 : (k % 11 == 5 ? 0.0 : 1e-3);
    const double load = 0.6 + 0.5 * std::sin(1e-2 * k);
    if (h == 1e-3) t.step(s, full, load, ambient);
    else t.step(s, t.decay(h), load, ambient);
    if (h == 0.0) continue;
    const double before = ageing_acceleration(ambient + p.ambient_rise + top_oil + hot_spot);
    const double to = t.ultimate_top_oil_rise(load), hs = t.ultimate_hot_spot_rise(load);
    top_oil = to + (top_oil - to) * std::exp(-h / p.top_oil_time_constant);
    hot_spot = hs + (hot_spot - hs) * std::exp(-h / p.winding_time_constant);
    const double after = ageing_acceleration(ambient + p.ambient_rise + top_oil + hot_spot);
    ageing += 0.5 * (before + after) * h / 3600.0;
  }
  CHECK(s.top_oil_rise == top_oil);
  CHECK(s.hot_spot_rise == hot_spot);
  CHECK(s.ageing_hours == ageing);
  CHECK(s.ageing_hours > 0.0);
  CHECK(s.ageing_rate == ageing_acceleration(t.hot_spot(s, ambient)));
}

TEST_CASE("Transformer losses, reactive loss and voltage drop", "[electrical][transformer]") {
  const TransformerParameters p;
  const Transformer t(p);
  CHECK(t.loss(0.0) == p.no_load_loss);
  CHECK(t.loss(1.0) == Approx(p.no_load_loss + p.load_loss).epsilon(1e-15));
  CHECK(t.loss(0.5) == Approx(p.no_load_loss + 0.25 * p.load_loss).epsilon(1e-15));
  const double r = p.resistance_pu(), x = p.reactance_pu();
  CHECK(std::hypot(r, x) == Approx(p.impedance).epsilon(1e-14));
  CHECK(x / r == Approx(p.x_over_r).epsilon(1e-14));
  // dV/V ~ r p + x q: at rated power and unity power factor it is r.
  CHECK(t.voltage_drop(p.rated_power, 0.0) == Approx(r).epsilon(1e-14));
  CHECK(t.voltage_drop(0.6 * p.rated_power, 0.8 * p.rated_power) == Approx(0.6 * r + 0.8 * x).epsilon(1e-14));
  CHECK(t.reactive_loss(1.0) == Approx(x * p.rated_power).epsilon(1e-14));
  // Efficiency at half load: the defaults meet the 99.53 % quoted in the table's source.
  const double half = 0.5 * p.rated_power;
  CHECK(half / (half + t.loss(0.5)) > 0.9953);
}

TEST_CASE("Bad transformer parameters name the key", "[electrical][transformer]") {
  const auto tree = defaults_tree(TransformerParameters::table(), "electrical.transformer");
  CHECK(input_error([&] { TransformerParameters::from(tree); }).empty());
  auto bad = tree;
  bad.values["no_load_loss"].number = 0.0;
  CHECK(input_error([&] { TransformerParameters::from(bad); }) ==
        "electrical.transformer.no_load_loss = 0 W (must be > 0)");
  bad = tree;
  bad.values["oil_exponent"].number = 2.5;
  CHECK(input_error([&] { TransformerParameters::from(bad); }) ==
        "electrical.transformer.oil_exponent = 2.5 (must be in (0, 2])");
  bad = tree;
  bad.values["units_per_lineup"].number = 0.0;
  CHECK(input_error([&] { TransformerParameters::from(bad); }) ==
        "electrical.transformer.units_per_lineup = 0 (must be >= 1)");
}
