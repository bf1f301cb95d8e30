// Effectiveness-NTU relations against closed forms, limits, monotonicity, inverses and the
// energy balance of the two-stream exchange.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>

#include "dctwin/models/hx/effectiveness.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::relative_equal;

namespace {

constexpr std::array<FlowArrangement, 5> all_arrangements{
    FlowArrangement::counter_flow, FlowArrangement::parallel_flow, FlowArrangement::cross_flow_unmixed,
    FlowArrangement::cross_flow_cmax_mixed, FlowArrangement::cross_flow_cmin_mixed};

constexpr std::array<StreamArrangement, 5> all_stream_arrangements{
    StreamArrangement::counter_flow, StreamArrangement::parallel_flow, StreamArrangement::cross_flow_unmixed,
    StreamArrangement::cross_flow_first_mixed, StreamArrangement::cross_flow_second_mixed};

/// Textbook forms written directly (no expm1), evaluated where they are well conditioned.
double textbook(FlowArrangement a, double ntu, double cr) {
  switch (a) {
    case FlowArrangement::counter_flow:
      return (1 - std::exp(-ntu * (1 - cr))) / (1 - cr * std::exp(-ntu * (1 - cr)));
    case FlowArrangement::parallel_flow: return (1 - std::exp(-ntu * (1 + cr))) / (1 + cr);
    case FlowArrangement::cross_flow_unmixed:
      return 1 - std::exp((1 / cr) * std::pow(ntu, 0.22) * (std::exp(-cr * std::pow(ntu, 0.78)) - 1));
    case FlowArrangement::cross_flow_cmax_mixed: return (1 / cr) * (1 - std::exp(-cr * (1 - std::exp(-ntu))));
    case FlowArrangement::cross_flow_cmin_mixed: return 1 - std::exp(-(1 / cr) * (1 - std::exp(-cr * ntu)));
  }
  return 0.0;
}

}  // namespace

TEST_CASE("eps-NTU relations equal the textbook forms at moderate NTU and C_r", "[hx][effectiveness]") {
  for (FlowArrangement a : all_arrangements)
    for (double cr : {0.2, 0.5, 0.8})
      for (double ntu : {0.3, 1.0, 2.5, 6.0}) {
        INFO(arrangement_name(a) << " C_r " << cr << " NTU " << ntu);
        CHECK(relative_equal(effectiveness(a, ntu, cr), textbook(a, ntu, cr), 1e-13));
      }
  // A value worked by hand: counter flow, NTU = 1, C_r = 0.5:
  // (1 - e^-0.5) / (1 - 0.5 e^-0.5) = 0.3934693403 / 0.6967346701 = 0.5647334...
  CHECK(effectiveness(FlowArrangement::counter_flow, 1.0, 0.5) == Approx(0.5647334).epsilon(1e-6));
}

TEST_CASE("C_r -> 0 gives 1 - exp(-NTU) for every arrangement", "[hx][effectiveness]") {
  for (FlowArrangement a : all_arrangements)
    for (double ntu : {0.05, 0.5, 1.0, 3.0, 10.0}) {
      INFO(arrangement_name(a) << " NTU " << ntu);
      const double single_stream = -std::expm1(-ntu);
      CHECK(relative_equal(effectiveness(a, ntu, 0.0), single_stream, 1e-15));
      // Approaching the limit: the deviation is O(C_r), with no loss of digits from 1 / C_r.
      CHECK(std::fabs(effectiveness(a, ntu, 1e-12) - single_stream) < 1e-10);
      CHECK(std::fabs(effectiveness(a, ntu, 1e-6) - single_stream) < 1e-4);
    }
}

TEST_CASE("NTU -> infinity reaches the closed-form limits", "[hx][effectiveness]") {
  const double inf = std::numeric_limits<double>::infinity();
  for (double cr : {0.0, 0.25, 0.5, 1.0}) {
    INFO("C_r " << cr);
    CHECK(effectiveness(FlowArrangement::counter_flow, inf, cr) == 1.0);
    CHECK(effectiveness(FlowArrangement::cross_flow_unmixed, inf, cr) == 1.0);
    CHECK(effectiveness(FlowArrangement::parallel_flow, inf, cr) == Approx(1.0 / (1.0 + cr)).epsilon(1e-15));
    const double cmax_mixed = cr > 0.0 ? (1.0 - std::exp(-cr)) / cr : 1.0;
    const double cmin_mixed = cr > 0.0 ? 1.0 - std::exp(-1.0 / cr) : 1.0;
    CHECK(effectiveness(FlowArrangement::cross_flow_cmax_mixed, inf, cr) == Approx(cmax_mixed).epsilon(1e-15));
    CHECK(effectiveness(FlowArrangement::cross_flow_cmin_mixed, inf, cr) == Approx(cmin_mixed).epsilon(1e-15));
    // A very large finite NTU converges to the same limit (balanced counter flow only
    // algebraically: 1 - eps = 1 / (1 + NTU)).
    for (FlowArrangement a : all_arrangements) {
      INFO(arrangement_name(a));
      CHECK(std::fabs(effectiveness(a, 1e7, cr) - effectiveness_limit(a, cr)) <= 1.0 / (1.0 + 1e7));
    }
  }
}

TEST_CASE("Balanced counter flow: eps = NTU / (1 + NTU) without cancellation near C_r = 1", "[hx][effectiveness]") {
  for (double ntu : {1e-6, 0.1, 1.0, 5.3, 40.0}) {
    INFO("NTU " << ntu);
    CHECK(effectiveness(FlowArrangement::counter_flow, ntu, 1.0) == ntu / (1.0 + ntu));
    // Just below C_r = 1 the relation tends to NTU / (1 + C_r NTU) to first order in (1 - C_r);
    // the textbook form loses most digits here (0/0), the implemented form none.
    for (double delta : {1e-13, 1e-10, 1e-7}) {
      const double cr = 1.0 - delta;
      const double expected = ntu / (1.0 + cr * ntu);
      CHECK(std::fabs(effectiveness(FlowArrangement::counter_flow, ntu, cr) - expected) <= 2.0 * delta * ntu * ntu + 1e-15);
    }
  }
}

TEST_CASE("Effectiveness is within [0, 1] and non-decreasing in NTU", "[hx][effectiveness]") {
  for (FlowArrangement a : all_arrangements)
    for (double cr : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      INFO(arrangement_name(a) << " C_r " << cr);
      double previous = 0.0;
      bool monotone = true;
      bool bounded = true;
      const double limit = effectiveness_limit(a, cr);
      for (int i = 0; i <= 2000; ++i) {
        const double ntu = 0.025 * i;
        const double eps = effectiveness(a, ntu, cr);
        if (eps < previous) monotone = false;
        if (eps < 0.0 || eps > limit || eps > 1.0) bounded = false;
        previous = eps;
      }
      CHECK(monotone);
      CHECK(bounded);
      CHECK(effectiveness(a, 0.0, cr) == 0.0);
    }
}

TEST_CASE("Inverse relations recover NTU", "[hx][effectiveness]") {
  for (FlowArrangement a : all_arrangements)
    for (double cr : {0.0, 0.3, 0.7, 1.0})
      for (double ntu : {0.01, 0.4, 1.0, 2.0, 4.0}) {
        INFO(arrangement_name(a) << " C_r " << cr << " NTU " << ntu);
        const double eps = effectiveness(a, ntu, cr);
        CHECK(relative_equal(ntu_from_effectiveness(a, eps, cr), ntu, 1e-9));
      }
  // Closed-form counter-flow sizing: ln((1 - eps C_r) / (1 - eps)) / (1 - C_r).
  CHECK(counter_flow_ntu(0.8, 0.5) == Approx(std::log((1 - 0.4) / 0.2) / 0.5).epsilon(1e-14));
  CHECK(counter_flow_ntu(0.75, 1.0) == Approx(3.0).epsilon(1e-15));
  CHECK(ntu_from_effectiveness(FlowArrangement::counter_flow, 0.0, 0.5) == 0.0);
}

TEST_CASE("An unreachable effectiveness is refused with a clear message", "[hx][effectiveness]") {
  CHECK(input_error([] { (void)ntu_from_effectiveness(FlowArrangement::counter_flow, 1.2, 0.5); }) ==
        "counter-flow effectiveness 1.2 is not reachable at capacity ratio 0.5 (must be in [0, 1))");
  CHECK(input_error([] { (void)ntu_from_effectiveness(FlowArrangement::parallel_flow, 0.7, 1.0); }) ==
        "parallel-flow effectiveness 0.7 is not reachable at capacity ratio 1 (must be in [0, 0.5))");
  CHECK(input_error([] { (void)counter_flow_ntu(1.0, 1.0); }) ==
        "counter-flow effectiveness 1 is not reachable at capacity ratio 1 (must be in [0, 1))");
  CHECK(input_error([] { (void)parse_stream_arrangement("shell_and_tube"); }) ==
        "unknown flow arrangement 'shell_and_tube': expected counter_flow, parallel_flow, cross_flow_unmixed, "
        "cross_flow_first_mixed or cross_flow_second_mixed");
}

TEST_CASE("Two-stream exchange conserves energy: Q = C_1 dT_1 = C_2 dT_2", "[hx][effectiveness]") {
  for (StreamArrangement a : all_stream_arrangements)
    for (double c1 : {150.0, 1300.0, 125637.0})
      for (double c2 : {90.0, 2090.0, 125400.0})
        for (double ua : {10.0, 1365.0, 670000.0}) {
          const Stream hot{318.15, c1};
          const Stream cold{299.23, c2};
          for (bool hot_first : {true, false}) {
            const Exchange x = hot_first ? exchange(a, ua, hot, cold) : exchange(a, ua, cold, hot);
            const Stream first = hot_first ? hot : cold;
            const Stream second = hot_first ? cold : hot;
            INFO("C1 " << first.capacity_rate << " C2 " << second.capacity_rate << " UA " << ua);
            const double q1 = first.capacity_rate * (first.inlet_temperature - x.first_outlet_temperature);
            const double q2 = second.capacity_rate * (x.second_outlet_temperature - second.inlet_temperature);
            // Outlet temperatures are stored in K: a stream's change is known to ~1e-13 K, so the
            // 1e-12 relative balance is asserted where the change exceeds 0.05 K, and the outlet
            // itself to 2e-13 K everywhere.
            const double d1 = std::fabs(first.inlet_temperature - x.first_outlet_temperature);
            const double d2 = std::fabs(x.second_outlet_temperature - second.inlet_temperature);
            if (d1 > 0.05) CHECK(relative_equal(q1, x.heat_flow, 1e-12));
            if (d2 > 0.05) CHECK(relative_equal(q2, x.heat_flow, 1e-12));
            CHECK(std::fabs(x.first_outlet_temperature - (first.inlet_temperature - x.heat_flow / first.capacity_rate)) <= 2e-13);
            CHECK(std::fabs(x.second_outlet_temperature - (second.inlet_temperature + x.heat_flow / second.capacity_rate)) <= 2e-13);
            CHECK((x.heat_flow > 0.0) == hot_first);
            // Neither outlet crosses the other stream's inlet.
            CHECK(x.first_outlet_temperature >= std::min(hot.inlet_temperature, cold.inlet_temperature) - 1e-12);
            CHECK(x.first_outlet_temperature <= std::max(hot.inlet_temperature, cold.inlet_temperature) + 1e-12);
          }
        }
}

TEST_CASE("Mixed-stream arrangements follow the stream, not the capacity rate", "[hx][effectiveness]") {
  // Stream 1 mixed: "C_min mixed" while it has the smaller capacity rate, "C_max mixed" otherwise.
  CHECK(flow_arrangement(StreamArrangement::cross_flow_first_mixed, 1.0, 2.0) == FlowArrangement::cross_flow_cmin_mixed);
  CHECK(flow_arrangement(StreamArrangement::cross_flow_first_mixed, 3.0, 2.0) == FlowArrangement::cross_flow_cmax_mixed);
  CHECK(flow_arrangement(StreamArrangement::cross_flow_second_mixed, 1.0, 2.0) == FlowArrangement::cross_flow_cmax_mixed);
  CHECK(flow_arrangement(StreamArrangement::cross_flow_second_mixed, 3.0, 2.0) == FlowArrangement::cross_flow_cmin_mixed);
}

TEST_CASE("A stream without flow exchanges no heat", "[hx][effectiveness]") {
  const Exchange x = exchange(StreamArrangement::counter_flow, 500.0, {320.0, 0.0}, {290.0, 1000.0});
  CHECK(x.heat_flow == 0.0);
  CHECK(x.first_outlet_temperature == 290.0);  // stagnant stream takes the other's temperature
  CHECK(x.second_outlet_temperature == 290.0);
  const Exchange none = exchange(StreamArrangement::counter_flow, 0.0, {320.0, 10.0}, {290.0, 10.0});
  CHECK(none.heat_flow == 0.0);
  CHECK(none.first_outlet_temperature == 320.0);
}
