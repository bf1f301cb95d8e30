// Error metrics against values computed by hand, the phase derivation, and the trace power source.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "dctwin/io/validation.hpp"
#include "dctwin/models/workload/trace_power.hpp"

using namespace dctwin::io;

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

// simulated {2, 4, 6, 9}, measured {1, 5, 6, 7}: errors s - m = {1, -1, 0, 2}, n = 4, mean m = 4.75.
TEST_CASE("metrics: MAE, RMSE, bias, max error, CV(RMSE) and NMBE by hand", "[validation][metrics]") {
  const std::vector<double> s{2, 4, 6, 9}, m{1, 5, 6, 7};
  CHECK(mean_absolute_error(s, m) == Approx(1.0).epsilon(1e-12));
  CHECK(root_mean_square_error(s, m) == Approx(std::sqrt(1.5)).epsilon(1e-12));
  CHECK(mean_bias_error(s, m) == Approx(0.5).epsilon(1e-12));
  CHECK(max_absolute_error(s, m) == Approx(2.0).epsilon(1e-12));
  // ASHRAE Guideline 14, p = 1: sqrt(sum e^2 / (n - 1)) / mean m = sqrt(6 / 3) / 4.75.
  CHECK(cv_rmse(s, m) == Approx(std::sqrt(2.0) / 4.75).epsilon(1e-12));
  // sum (m - s) / ((n - 1) mean m) = -2 / (3 x 4.75): the model over-predicts, NMBE < 0.
  CHECK(nmbe(s, m) == Approx(-2.0 / 14.25).epsilon(1e-12));
  // p = 0: n degrees of freedom.
  CHECK(cv_rmse(s, m, 0) == Approx(std::sqrt(1.5) / 4.75).epsilon(1e-12));
  CHECK(nmbe(s, m, 0) == Approx(-2.0 / 19.0).epsilon(1e-12));
  const ErrorMetrics all = compute_metrics(s, m, 1.0, 0.0);
  CHECK(all.count == 4);
  CHECK(all.mae == Approx(1.0).epsilon(1e-12));
  CHECK(all.rmse == Approx(std::sqrt(1.5)).epsilon(1e-12));
  CHECK(all.bias == Approx(0.5).epsilon(1e-12));
  CHECK(all.cv_rmse == Approx(std::sqrt(2.0) / 4.75).epsilon(1e-12));
  CHECK(all.nmbe == Approx(-2.0 / 14.25).epsilon(1e-12));
  CHECK(all.max_error == Approx(2.0).epsilon(1e-12));
  CHECK(all.measured_mean == Approx(4.75).epsilon(1e-12));
  CHECK(all.lag == 0.0);
}

TEST_CASE("metrics: pairs with a NaN are left out", "[validation][metrics]") {
  const std::vector<double> s{2, 4, nan_value, 6, 9, 100}, m{1, 5, 3, 6, 7, nan_value};
  CHECK(mean_absolute_error(s, m) == Approx(1.0).epsilon(1e-12));
  CHECK(cv_rmse(s, m) == Approx(std::sqrt(2.0) / 4.75).epsilon(1e-12));
  CHECK(compute_metrics(s, m, 1.0, 0.0).count == 4);
}

TEST_CASE("metrics: pooled series count every pair once", "[validation][metrics]") {
  const std::vector<std::vector<double>> s{{2, 4}, {6, 9}}, m{{1, 5}, {6, 7}};
  const ErrorMetrics pooled = compute_pooled_metrics(s, m, 1.0, 0.0);
  CHECK(pooled.count == 4);
  CHECK(pooled.rmse == Approx(std::sqrt(1.5)).epsilon(1e-12));
  CHECK(pooled.nmbe == Approx(-2.0 / 14.25).epsilon(1e-12));
}

// A pulse at sample 2 measured, at sample 4 simulated: the simulation is 2 samples late. With
// means 1/7 removed, r(2) = (36/49 + 4/49) / 5 = 8/49 is the largest mean product.
TEST_CASE("metrics: lag of the cross-correlation peak and its sign", "[validation][metrics]") {
  const std::vector<double> measured{0, 0, 1, 0, 0, 0, 0}, late{0, 0, 0, 0, 1, 0, 0};
  CHECK(cross_correlation_lag(late, measured, 0.5, 3.0) == Approx(1.0).epsilon(1e-12));
  CHECK(cross_correlation_lag(measured, late, 0.5, 3.0) == Approx(-1.0).epsilon(1e-12));
  // Lags beyond max_lag are not searched: within +-0.5 s, r(0) = -1/49 beats r(+-1) = -8/294.
  CHECK(cross_correlation_lag(late, measured, 0.5, 0.5) == 0.0);
  // A constant series correlates with nothing.
  const std::vector<double> flat{3, 3, 3, 3, 3, 3, 3};
  CHECK(cross_correlation_lag(flat, measured, 1.0, 3.0) == 0.0);
}

TEST_CASE("metrics: bad arguments are errors with exact messages", "[validation][metrics]") {
  const std::vector<double> three{1, 2, 3}, two{1, 2}, one{1}, zero{0, 0, 0};
  CHECK(message_of([&] { (void)mean_absolute_error(three, two); }) ==
        "simulated and measured series differ in length (3 and 2 values)");
  CHECK(message_of([&] { (void)cv_rmse(one, one); }) ==
        "CV(RMSE) needs more valid pairs (1) than model parameters (1)");
  CHECK(message_of([&] { (void)nmbe(three, zero); }) == "NMBE is undefined: the measured mean is zero");
  const std::vector<double> gaps{nan_value, nan_value};
  CHECK(message_of([&] { (void)root_mean_square_error(gaps, two); }) == "RMSE needs at least one valid pair, got none");
  CHECK(std::isnan(compute_metrics(one, one, 1.0, 0.0).cv_rmse));
  CHECK(metric_unit("cv_rmse", "W") == "1");
  CHECK(metric_unit("lag", "W") == "s");
  CHECK(metric_unit("rmse", "K") == "K");
}

// Levels 100 / 200 / 300 / 500 W (no power-capped level): a change needs the power past the
// midpoint by 10 % of the gap.
TEST_CASE("phases: nearest level with hysteresis", "[validation][phases]") {
  const std::vector<double> power{110, 240, 260, 480, 390, 420, 140, nan_value};
  const std::vector<std::array<double, replay_phase_count>> levels(power.size(), {100, 200, 300, 500, nan_value});
  const auto phases = derive_phases(power, levels, 0.1);
  using P = ReplayPhase;
  // 260 W is only 10 W past the stall/communication midpoint (not more than 10 W): stays stall;
  // 390 W is 10 W past the compute/communication midpoint (needs 20 W): stays compute.
  const std::vector<P> expected{P::idle, P::stall, P::stall, P::compute, P::compute, P::compute, P::idle, P::idle};
  CHECK(phases == expected);
  const auto no_hysteresis = derive_phases(power, levels, 0.0);
  CHECK(no_hysteresis[2] == P::communication);
  CHECK(no_hysteresis[4] == P::communication);
  // With a power-capped level at 700 W, 690 W is capped.
  const std::vector<double> capped_power{480, 690, 520};
  const std::vector<std::array<double, replay_phase_count>> with_cap(3, {100, 200, 300, 500, 700});
  const std::vector<P> capped_expected{P::compute, P::power_capped, P::compute};
  CHECK(derive_phases(capped_power, with_cap, 0.1) == capped_expected);
}

TEST_CASE("trace power source: each sample holds over the interval before it", "[validation][trace_power]") {
  using dctwin::models::workload::TracePowerSource;
  const TracePowerSource source({{1.0, 2.0, 4.0}}, {{100.0, 200.0, 400.0}});
  CHECK(source.power_at(0, 0.0) == 100.0);
  CHECK(source.power_at(0, 1.0) == 100.0);
  CHECK(source.power_at(0, 1.5) == 200.0);
  CHECK(source.power_at(0, 2.0) == 200.0);
  CHECK(source.power_at(0, 3.0) == 400.0);
  CHECK(source.power_at(0, 9.0) == 400.0);
  // A segment starting at a sample time lies in the next interval.
  CHECK(source.power(0, {1.2, 1.0, nullptr}) == 200.0);
  CHECK(source.power(0, {2.5, 2.0, nullptr}) == 400.0);
  CHECK(source.next_change(0.0) == 1.0);
  CHECK(source.next_change(1.0) == 2.0);
  CHECK(std::isinf(source.next_change(4.0)));
  CHECK(message_of([] { TracePowerSource bad({{1.0, 1.0}}, {{1.0, 2.0}}); }) ==
        "power trace: GPU 0 sample 1: times must increase");
}
