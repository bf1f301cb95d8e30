// Discrete PI controller: step response of a first-order plant, saturation and anti-windup
// recovery, action, bumpless start, plain-data state, bad parameters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dctwin/models/hx/pi_controller.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;

namespace {

/// First-order plant tau dy/dt = K_p u - y, sampled exactly with a zero-order hold:
/// y_{k+1} = a y_k + (1 - a) K_p u_k, a = exp(-h / tau).
struct FirstOrderPlant {
  double gain = 2.0;
  double time_constant = 20.0;
  double y = 0.0;
  void advance(double u, double h) {
    const double a = std::exp(-h / time_constant);
    y = a * y + (1.0 - a) * gain * u;
  }
};

/// Lambda (IMC) tuning for the plant above: T_i = tau, K = tau / (K_p lambda), lambda = 10 s.
PiParameters tuned(double output_min, double output_max, AntiWindup scheme) {
  PiParameters p;
  p.proportional_gain = 20.0 / (2.0 * 10.0);
  p.integral_time = 20.0;
  p.sample_period = 1.0;
  p.output_min = output_min;
  p.output_max = output_max;
  p.anti_windup = scheme;
  p.tracking_time = 10.0;  // T_i / 2
  return p;
}

struct Trace {
  std::vector<double> y;
  std::vector<double> u;
};

/// Runs the loop: setpoint r(k) for k < steps.
template <class Setpoint>
Trace run(const PiController& controller, FirstOrderPlant plant, int steps, Setpoint setpoint) {
  Trace trace;
  PiState state;
  for (int k = 0; k < steps; ++k) {
    const double u = controller.step(state, setpoint(k), plant.y);
    plant.advance(u, controller.parameters().sample_period);
    trace.u.push_back(u);
    trace.y.push_back(plant.y);
  }
  return trace;
}

}  // namespace

TEST_CASE("PI step response of a first-order plant settles without overshoot", "[hx][controller]") {
  const PiController controller(tuned(-100.0, 100.0, AntiWindup::back_calculation));
  const Trace t = run(controller, {}, 300, [](int) { return 1.0; });
  const double peak = *std::max_element(t.y.begin(), t.y.end());
  CHECK(peak <= 1.0 + 0.01);           // overshoot below 1 % of the step
  CHECK(t.y.back() == Approx(1.0).margin(1e-9));
  // Closed loop ~ first order with lambda = 10 s: 63 % of the step after about 10 s.
  CHECK(t.y[9] > 0.55);
  CHECK(t.y[9] < 0.75);
  // Steady state: the controller output is r / K_p, held by the integral term.
  CHECK(t.u.back() == Approx(0.5).margin(1e-9));
}

TEST_CASE("PI anti-windup recovers from saturation, plain integration winds up", "[hx][controller]") {
  // Output limited to [0, 1]: the plant reaches at most y = 2. The setpoint asks for 3 during
  // 200 samples (unreachable), then returns to 1.
  auto setpoint = [](int k) { return k < 200 ? 3.0 : 1.0; };
  struct Recovery {
    int leaves_saturation = -1;  ///< samples after the setpoint change until u < u_max
    int settles = -1;            ///< samples after the change from which |y - 1| < 0.02 for good
    double integral_at_switch = 0.0;
  };
  auto recovery = [&](AntiWindup scheme) {
    const PiController controller(tuned(0.0, 1.0, scheme));
    FirstOrderPlant plant;
    PiState state;
    Recovery r;
    for (int k = 0; k < 800; ++k) {
      if (k == 200) r.integral_at_switch = state.integral;
      const double u = controller.step(state, setpoint(k), plant.y);
      plant.advance(u, 1.0);
      if (k >= 200 && r.leaves_saturation < 0 && u < 1.0) r.leaves_saturation = k - 200;
      if (k >= 200) {
        if (std::fabs(plant.y - 1.0) >= 0.02) r.settles = -1;
        else if (r.settles < 0) r.settles = k - 200;
      }
    }
    CHECK(plant.y == Approx(1.0).margin(1e-6));  // every scheme settles in the end
    return r;
  };
  const Recovery back_calculation = recovery(AntiWindup::back_calculation);
  CHECK(back_calculation.leaves_saturation <= 2);
  CHECK(back_calculation.integral_at_switch < 1.5);  // held near u_max - K e by the tracking
  CHECK(back_calculation.settles >= 0);
  CHECK(back_calculation.settles < 80);
  const Recovery clamping = recovery(AntiWindup::clamping);
  CHECK(clamping.leaves_saturation <= 2);
  CHECK(clamping.integral_at_switch < 1.5);
  CHECK(clamping.settles >= 0);
  CHECK(clamping.settles < 120);  // the frozen integral starts from where saturation began
  // Without anti-windup the integral grows by K h / T_i e ~ 0.05 per sample for 200 samples.
  const Recovery windup = recovery(AntiWindup::none);
  CHECK(windup.integral_at_switch > 8.0);
  CHECK(windup.leaves_saturation > 100);  // stays saturated long after the setpoint came back
  CHECK(windup.settles > back_calculation.settles + 100);
}

TEST_CASE("PI output respects its limits at every step", "[hx][controller]") {
  const PiController controller(tuned(0.05, 1.0, AntiWindup::back_calculation));
  const Trace t = run(controller, {}, 400, [](int k) { return k < 100 ? 5.0 : (k < 250 ? -5.0 : 1.0); });
  CHECK(*std::min_element(t.u.begin(), t.u.end()) >= 0.05);
  CHECK(*std::max_element(t.u.begin(), t.u.end()) <= 1.0);
}

TEST_CASE("Direct action raises the output when the measurement is above the setpoint", "[hx][controller]") {
  PiParameters p = tuned(0.0, 1.0, AntiWindup::back_calculation);
  p.action = ControllerAction::direct;
  const PiController direct(p);
  PiState state = direct.initial_state(0.5, 30.0, 30.0);
  const double warmer = direct.step(state, 30.0, 31.0);
  CHECK(warmer > 0.5);
  p.action = ControllerAction::reverse;
  const PiController reverse(p);
  state = reverse.initial_state(0.5, 30.0, 30.0);
  CHECK(reverse.step(state, 30.0, 31.0) < 0.5);
}

TEST_CASE("PI bumpless start and plain-data state", "[hx][controller]") {
  const PiController controller(tuned(0.0, 1.0, AntiWindup::back_calculation));
  PiState state;
  controller.initialize(state, 0.37, 1.0, 0.8);
  CHECK(controller.step(state, 1.0, 0.8) == Approx(0.37).epsilon(1e-15));
  controller.initialize(state, 1.7, 1.0, 0.8);  // clamped to the limits
  CHECK(state.output == 1.0);
  CHECK(controller.step(state, 1.0, 0.8) == Approx(1.0).epsilon(1e-15));
  // The state is a value: a copy replays the same outputs.
  PiState a = controller.initial_state(0.2, 1.0, 0.0);
  PiState b = a;
  for (int k = 0; k < 20; ++k) {
    const double y = 0.05 * k;
    CHECK(controller.step(a, 1.0, y) == controller.step(b, 1.0, y));
  }
  CHECK(a.integral == b.integral);
}

TEST_CASE("PI output rounded to its resolution, the integral unrounded", "[hx][controller]") {
  // K = 0.03, T_i = 20 s, h = 1 s, T_t = 10 s, direct acting: the CDU's gains, with steps of 0.01
  // (the CDU itself writes steps of 0.005).
  PiParameters p;
  p.proportional_gain = 0.03;
  p.integral_time = 20.0;
  p.sample_period = 1.0;
  p.output_min = 0.05;
  p.output_max = 1.0;
  p.action = ControllerAction::direct;
  p.tracking_time = 10.0;
  p.output_resolution = 0.01;
  const PiController controller(p);
  PiState state = controller.initial_state(0.5, 32.0, 32.0);
  CHECK(state.output == 0.5);
  // 0.1 K warm: at the k-th sample u = 0.5 + 0.003 + (k - 1) 0.03 (1/20) 0.1 stays below 0.505
  // for 14 samples; the written output holds at 0.50 while the integral grows unrounded.
  const double increment = 0.03 / 20.0 * 0.1;
  for (int k = 1; k <= 14; ++k) {
    CHECK(controller.step(state, 32.0, 32.1) == 0.5);
    CHECK(state.output == 0.5);
    CHECK(state.integral == Approx(0.5 + k * increment).epsilon(1e-14));
  }
  CHECK(controller.step(state, 32.0, 32.1) == Approx(0.51).epsilon(1e-15));
  CHECK(state.integral == Approx(0.5 + 15 * increment).epsilon(1e-14));
  // Saturated: the limit itself is written, and back-calculation sees the unrounded u = 1.
  const double before = state.integral;
  CHECK(controller.step(state, 32.0, 82.0) == 1.0);
  const double v = 0.03 * 50.0 + before;
  CHECK(state.integral == Approx(before + 0.03 / 20.0 * 50.0 + (1.0 - v) / 10.0).epsilon(1e-14));
  // Resolution 0: the output is u itself.
  p.output_resolution = 0.0;
  const PiController continuous(p);
  PiState c = continuous.initial_state(0.5, 32.0, 32.0);
  CHECK(continuous.step(c, 32.0, 32.1) == Approx(0.503).epsilon(1e-14));
}

TEST_CASE("PI controller refuses bad parameters with exact messages", "[hx][controller]") {
  PiParameters p;
  p.sample_period = 0.0;
  CHECK(input_error([&] { PiController c(p); }) == "controller.sample_period = 0 s (must be > 0)");
  p = {};
  p.tracking_time = 0.5;
  p.sample_period = 1.0;
  CHECK(input_error([&] { PiController c(p); }) == "controller.tracking_time = 0.5 s (must be >= 1 s)");
  p = {};
  p.output_min = 1.0;
  p.output_max = 1.0;
  CHECK(input_error([&] { PiController c(p); }) == "controller.output_max = 1 (must be > 1)");
  p = {};
  p.proportional_gain = -0.1;
  CHECK(input_error([&] { PiController c(p, "cdu.controller"); }) ==
        "cdu.controller.proportional_gain = -0.1 (must be > 0)");
  p = {};
  p.output_resolution = -0.01;
  CHECK(input_error([&] { PiController c(p); }) == "controller.output_resolution = -0.01 (must be >= 0)");
  p.output_resolution = 1.0;  // one step as large as the whole range [0, 1]
  CHECK(input_error([&] { PiController c(p); }) == "controller.output_resolution = 1 (must be < 1)");
}
