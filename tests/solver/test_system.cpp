// Assembly, Jacobian structure, steady state and threshold events.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "dctwin/solver/simulator.hpp"
#include "linear_component.hpp"

using namespace dctwin::solver;
using dctwin::test::LinearComponent;
using dctwin::test::Recorder;

namespace {

/// x' = rate, with a threshold event at x = limit that stops the run (a protection trip).
class Ramp final : public Component {
 public:
  Ramp(std::string name, double rate, double limit, EventAction action)
      : Component(std::move(name)), rate_(rate), limit_(limit), action_(action) {
    group_ = declare_state_group({"level", "K", "ramp level", 1});
    declare_event("over_limit");
  }
  void initial_state(double* x) const override { x[index(group_)] = 0.0; }
  void derivatives(const EvalContext&, const double*, double* xdot) const override {
    xdot[index(group_)] += rate_;
  }
  void jacobian_pattern(PatternSink&) const override {}
  void event_functions(const EvalContext&, const double* x, double* g) const override {
    g[0] = x[index(group_)] - limit_;
  }
  EventOutcome on_event(int, bool rising, const EvalContext& ctx, const double*) const override {
    return {action_, std::string(rising ? "rising" : "falling") + " through the limit at " +
                         std::to_string(ctx.t)};
  }

 private:
  double rate_, limit_;
  EventAction action_;
  int group_ = 0;
};

/// A water loop of capacitance C heated by P and cooled by a chiller that brings it towards T_set
/// up to its capacity Q_max: C T' = P - min(G (T - T_set), Q_max). Started far above the set-point
/// the chiller is at capacity, T falls at a constant rate and the residual stays flat.
class SaturatedChiller final : public Component {
 public:
  SaturatedChiller() : Component("loop") { group_ = declare_state_group({"temperature", "K", "loop water", 1}); }
  static constexpr double capacitance = 836e6, conductance = 5.016e6, capacity = 2.08e6, heat = 0.52e6;
  static constexpr double setpoint = 291.15, start = 303.15;
  void initial_state(double* x) const override { x[index(group_)] = start; }
  void derivatives(const EvalContext&, const double* x, double* xdot) const override {
    xdot[index(group_)] += (heat - std::min(conductance * (x[index(group_)] - setpoint), capacity)) / capacitance;
  }
  void jacobian_pattern(PatternSink& pattern) const override { pattern.add(index(group_), index(group_)); }
  void jacobian(const EvalContext&, const double* x, JacobianSink& jac) const override {
    const bool saturated = conductance * (x[index(group_)] - setpoint) >= capacity;
    jac.add(index(group_), index(group_), saturated ? 0.0 : -conductance / capacitance);
  }

 private:
  int group_ = 0;
};

}  // namespace

TEST_CASE("The assembler lays out states and a CSR pattern with the diagonal", "[solver]") {
  Eigen::MatrixXd a(2, 2);
  a << -1.0, 0.5, 0.0, -2.0;
  System system;
  auto& first = system.add(std::make_unique<LinearComponent>(
      a, [](double) { return Eigen::VectorXd::Zero(2); }, Eigen::VectorXd::Zero(2)));
  auto& ramp = system.add(std::make_unique<Ramp>("ramp", 1.0, 10.0, EventAction::stop));
  system.assemble();
  REQUIRE(system.size() == 3);
  CHECK(first.index(0, 0) == 0);
  CHECK(ramp.index(0) == 2);
  CHECK(system.state_name(1) == "linear.x[1]");
  CHECK(system.state_name(2) == "ramp.level");
  const SparsePattern& p = system.jacobian_pattern();
  CHECK(p.nonzeros() == 4);  // (0,0) (0,1) (1,1) and the ramp's diagonal
  CHECK(p.find(0, 1) == 1);
  CHECK(p.find(1, 0) == -1);
  CHECK(p.find(2, 2) == 3);
  CHECK(system.event_count() == 1);
}

TEST_CASE("The numerical default Jacobian agrees with the analytic one", "[solver]") {
  Eigen::MatrixXd a(3, 3);
  a << -3.0, 1.0, 0.0, 2.0, -4.0, 2.0, 0.0, 1.5, -1.5;
  auto forcing = [](double) { return Eigen::VectorXd::Constant(3, 0.25); };
  Eigen::VectorXd x0(3);
  x0 << 300.0, 310.0, 320.0;
  System exact, numeric;
  exact.add(std::make_unique<LinearComponent>(a, forcing, x0, std::vector<double>{}, true));
  numeric.add(std::make_unique<LinearComponent>(a, forcing, x0, std::vector<double>{}, false));
  exact.assemble();
  numeric.assemble();
  const auto x = exact.initial_state();
  std::vector<double> j_exact(static_cast<std::size_t>(exact.jacobian_pattern().nonzeros()));
  std::vector<double> j_numeric(j_exact.size());
  exact.jacobian({0.0, 0.0}, x.data(), j_exact.data());
  numeric.jacobian({0.0, 0.0}, x.data(), j_numeric.data());
  for (std::size_t k = 0; k < j_exact.size(); ++k) CHECK(j_numeric[k] == Approx(j_exact[k]).epsilon(1e-6));
}

TEST_CASE("The steady-state solver returns A x + b = 0", "[solver]") {
  Eigen::MatrixXd a(2, 2);
  a << -2.0, 1.0, 1.0, -3.0;
  Eigen::VectorXd b(2);
  b << 4.0, 5.0;
  System system;
  system.add(std::make_unique<LinearComponent>(a, [&](double) { return b; }, Eigen::VectorXd::Zero(2)));
  system.assemble();
  const auto x = solve_steady_state(system, 0.0);
  const Eigen::VectorXd exact = a.fullPivLu().solve(-b);
  CHECK(x[0] == Approx(exact[0]).epsilon(1e-12));
  CHECK(x[1] == Approx(exact[1]).epsilon(1e-12));
}

TEST_CASE("The steady-state solver crosses a flat residual: a loop cooled by a chiller at capacity",
          "[solver]") {
  // 12 K above the set-point the chiller removes its capacity whatever the temperature: the loop
  // cools at 1.9e-3 K/s for ~6,400 s before the chiller's reach, with a residual that does not
  // fall, so the residual's fall alone would not grow the pseudo-time step.
  System system;
  system.add(std::make_unique<SaturatedChiller>());
  system.assemble();
  const double exact = SaturatedChiller::setpoint + SaturatedChiller::heat / SaturatedChiller::conductance;
  CHECK(solve_steady_state(system, 0.0)[0] == Approx(exact).epsilon(1e-12));
  SteadyStateSettings residual_only;
  residual_only.plateau_growth = 1.0;
  // The message names the state with the largest residual, still on the plateau's slope.
  using Catch::Matchers::EndsWith;
  using Catch::Matchers::StartsWith;
  CHECK_THROWS_WITH(solve_steady_state(system, 0.0, residual_only),
                    StartsWith("solve_steady_state failed: no convergence in 200 iterations; largest residual at "
                               "loop.temperature = 302.") &&
                        EndsWith(" K, d/dt = -0.00186603 K/s (is there a steady state? e.g. thermal runaway)"));
}

namespace {
/// 600 pairs (a_i, b_i) heated by P_i, each pair cooled through one shared node s, which loses
/// heat to a fixed sink; an accumulator integrates the heat. Its steady state has a closed form:
///   a' = g (b - a) + P_i,  b' = g (a - b) + h (s - b),  s' = sum_i h (b_i - s) - k s
///   => s = sum P / k,  b_i = s + P_i / h,  a_i = b_i + P_i / g.
class PairsOnOneNode final : public Component {
 public:
  static constexpr Index pairs = 600;
  static constexpr double g = 2.0, h = 0.5, k = 40.0;
  PairsOnOneNode() : Component("pairs") {
    a_ = declare_state_group({"a", "K", "first of a pair", pairs});
    b_ = declare_state_group({"b", "K", "second of a pair", pairs});
    s_ = declare_state_group({"s", "K", "shared node", 1});
    e_ = declare_state_group({"e", "J", "heat generated", 1, true});
  }
  [[nodiscard]] static double power(Index i) { return 1.0 + 0.01 * static_cast<double>(i); }
  void initial_state(double* x) const override {
    for (Index i = 0; i < pairs; ++i) x[index(a_, i)] = x[index(b_, i)] = 0.0;
    x[index(s_)] = 0.0;
    x[index(e_)] = 123.0;
  }
  void derivatives(const EvalContext&, const double* x, double* xdot) const override {
    const double s = x[index(s_)];
    for (Index i = 0; i < pairs; ++i) {
      const double a = x[index(a_, i)], b = x[index(b_, i)];
      xdot[index(a_, i)] += g * (b - a) + power(i);
      xdot[index(b_, i)] += g * (a - b) + h * (s - b);
      xdot[index(s_)] += h * (b - s);
      xdot[index(e_)] += power(i);
    }
    xdot[index(s_)] -= k * s;
  }
  void jacobian_pattern(PatternSink& p) const override {
    for (Index i = 0; i < pairs; ++i) {
      const Index a = index(a_, i), b = index(b_, i);
      p.add(a, a), p.add(a, b), p.add(b, a), p.add(b, b), p.add(b, index(s_)), p.add(index(s_), b);
    }
    p.add(index(s_), index(s_));
  }
  void jacobian(const EvalContext&, const double*, JacobianSink& j) const override {
    for (Index i = 0; i < pairs; ++i) {
      const Index a = index(a_, i), b = index(b_, i);
      j.add(a, a, -g), j.add(a, b, g), j.add(b, a, g), j.add(b, b, -g - h), j.add(b, index(s_), h);
      j.add(index(s_), b, h);
    }
    j.add(index(s_), index(s_), -k - h * static_cast<double>(pairs));
  }
  int a_ = 0, b_ = 0, s_ = 0, e_ = 0;
};
}  // namespace

TEST_CASE("The steady state of a system of small groups on a shared node, by both linear solvers", "[solver]") {
  // 1,202 states, 1,200 of them in groups of two: the structured solver's case (as a facility's
  // GPUs on their coolant), and Eigen's sparse LU when told so; both against the closed form.
  System system;
  const auto& pairs = system.add(std::make_unique<PairsOnOneNode>());
  system.assemble();
  SteadyStateSettings lu_only;
  lu_only.structured_linear_solver = false;
  const std::vector<double> structured = solve_steady_state(system, 0.0);
  const std::vector<double> lu = solve_steady_state(system, 0.0, lu_only);
  double total = 0.0;
  for (Index i = 0; i < PairsOnOneNode::pairs; ++i) total += PairsOnOneNode::power(i);
  const double s = total / PairsOnOneNode::k;
  CHECK(structured[static_cast<std::size_t>(pairs.index(pairs.s_))] == Approx(s).epsilon(1e-12));
  for (Index i = 0; i < PairsOnOneNode::pairs; i += 37) {
    const double b = s + PairsOnOneNode::power(i) / PairsOnOneNode::h;
    const double a = b + PairsOnOneNode::power(i) / PairsOnOneNode::g;
    for (const auto* x : {&structured, &lu}) {
      CHECK((*x)[static_cast<std::size_t>(pairs.index(pairs.a_, i))] == Approx(a).epsilon(1e-12));
      CHECK((*x)[static_cast<std::size_t>(pairs.index(pairs.b_, i))] == Approx(b).epsilon(1e-12));
    }
  }
  // The accumulator has no steady state: it keeps its initial value.
  CHECK(structured[static_cast<std::size_t>(pairs.index(pairs.e_))] == 123.0);
  CHECK(lu[static_cast<std::size_t>(pairs.index(pairs.e_))] == 123.0);
}

TEST_CASE("A stopping threshold event ends the run at the crossing", "[solver][events]") {
  System system;
  system.add(std::make_unique<Ramp>("breaker", 2.0, 7.0, EventAction::stop));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 10.0;
  Simulator simulator(system, settings);
  Recorder recorder;
  const auto status = simulator.run(recorder);
  CHECK(status.reason == StopReason::event);
  CHECK(status.component == "breaker");
  CHECK(status.time == Approx(3.5).epsilon(1e-8));
  CHECK(status.message.rfind("rising through the limit at 3.5", 0) == 0);
  CHECK(recorder.times.back() == Approx(3.5).epsilon(1e-8));
  REQUIRE(recorder.events.size() == 1);
  CHECK(simulator.statistics().events == 1);
}

TEST_CASE("A proceeding event is recorded and the run goes on", "[solver][events]") {
  System system;
  system.add(std::make_unique<Ramp>("alarm", 1.0, 2.5, EventAction::proceed));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 5.0;
  Simulator simulator(system, settings);
  Recorder recorder;
  REQUIRE(simulator.run(recorder).finished());
  REQUIRE(recorder.events.size() == 1);
  CHECK(recorder.events[0].rfind("alarm/over_limit: rising through the limit at 2.5", 0) == 0);
  CHECK(recorder.times.size() == 6);
  CHECK(recorder.states.back()[0] == Approx(5.0));
}

namespace {

/// A first-order plant x' = (u - x) / tau under a sampled proportional controller
/// u_k = K (r - x(t_k)), updated every h seconds: the controller's command is discrete state.
class SampledLoop final : public Component {
 public:
  SampledLoop(double tau, double gain, double setpoint, double period)
      : Component("loop"), tau_(tau), gain_(gain), setpoint_(setpoint), period_(period) {
    x_ = declare_state_group({"x", "K", "plant output", 1});
    u_ = declare_discrete_group({"u", "K", "controller command", 1});
  }
  void initial_state(double* x) const override { x[index(x_)] = 0.0; }
  void initial_discrete(double* d) const override { d[discrete_index(u_)] = 0.0; }
  double update_period() const override { return period_; }
  bool update_discrete(const EvalContext& ctx, const double* x, double* d_next) const override {
    // The old command is readable through ctx.discrete; the new one depends on x only.
    const double old = ctx.discrete[discrete_index(u_)];
    d_next[discrete_index(u_)] = gain_ * (setpoint_ - x[index(x_)]);
    return d_next[discrete_index(u_)] != old;
  }
  void derivatives(const EvalContext& ctx, const double* x, double* xdot) const override {
    xdot[index(x_)] += (ctx.discrete[discrete_index(u_)] - x[index(x_)]) / tau_;
  }
  void jacobian_pattern(PatternSink& p) const override { p.add(index(x_), index(x_)); }
  void jacobian(const EvalContext&, const double*, JacobianSink& j) const override {
    j.add(index(x_), index(x_), -1.0 / tau_);
  }

 private:
  double tau_, gain_, setpoint_, period_;
  int x_ = 0, u_ = 0;
};

}  // namespace

TEST_CASE("A sampled controller updates its discrete state exactly on its clock", "[solver][discrete]") {
  const double tau = 2.0, gain = 3.0, setpoint = 1.0, h = 0.5;
  System system;
  system.add(std::make_unique<SampledLoop>(tau, gain, setpoint, h));
  system.assemble();
  REQUIRE(system.discrete_size() == 1);
  SimulationSettings settings;
  settings.end_time = 10.0;
  settings.output_interval = 0.5;
  settings.integrator = IntegratorSettings::reference();
  Simulator simulator(system, settings);
  Recorder recorder;
  REQUIRE(simulator.run(recorder).finished());
  // Exact recursion: u_k = K (r - x_k), x_{k+1} = u_k + (x_k - u_k) exp(-h / tau).
  double x = 0.0;
  for (std::size_t k = 0; k < recorder.times.size(); ++k) {
    CHECK(recorder.states[k][0] == Approx(x).margin(1e-8));
    const double u = gain * (setpoint - x);
    x = u + (x - u) * std::exp(-h / tau);
  }
  CHECK(simulator.statistics().segments == 20);
  CHECK(simulator.final_discrete()[0] == Approx(gain * (setpoint - recorder.states.back()[0])).margin(1e-12));
}

TEST_CASE("Knots come in time order at every update with the discrete state before and after",
          "[solver][discrete]") {
  const double h = 0.3;
  System system;
  system.add(std::make_unique<SampledLoop>(2.0, 3.0, 1.0, h));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 1.0;
  settings.output_interval = 0.25;
  Simulator simulator(system, settings);
  struct Knots final : SimulationObserver {
    std::vector<double> times, before, after;
    void on_sample(double, const std::vector<double>&, const std::vector<double>&) override {}
    [[nodiscard]] bool wants_knots() const override { return true; }
    void on_knot(double t, const std::vector<double>&, const std::vector<double>& b,
                 const std::vector<double>& a) override {
      times.push_back(t);
      before.push_back(b[0]);
      after.push_back(a[0]);
    }
  } knots;
  REQUIRE(simulator.run(knots).finished());
  REQUIRE(!knots.times.empty());
  CHECK(std::is_sorted(knots.times.begin(), knots.times.end()));
  // Updates at 0, 0.3, 0.6, 0.9 (the command changes there), samples at 0, 0.25, ..., 1.
  const std::vector<double> updates = {0.0, 0.3, 0.6, 0.9};
  for (double u : updates) {
    const auto it = std::find_if(knots.times.begin(), knots.times.end(),
                                 [&](double t) { return std::abs(t - u) < 1e-12; });
    REQUIRE(it != knots.times.end());
    const auto k = static_cast<std::size_t>(it - knots.times.begin());
    if (u > 0.0) CHECK(knots.before[k] != knots.after[k]);
  }
  for (double s : {0.25, 0.5, 0.75, 1.0}) {
    const auto it = std::find_if(knots.times.begin(), knots.times.end(),
                                 [&](double t) { return std::abs(t - s) < 1e-12; });
    REQUIRE(it != knots.times.end());
    const auto k = static_cast<std::size_t>(it - knots.times.begin());
    CHECK(knots.before[k] == knots.after[k]);
  }
  // A plain observer is not asked for knots.
  Recorder recorder;
  CHECK_FALSE(recorder.wants_knots());
}

TEST_CASE("A run's wall time is told by part", "[solver][discrete]") {
  // An observer whose knots and samples each sleep 2 ms: their time must show up in those parts
  // (at least the sleeps), the parts must not overlap (their sum is at most the run's), and the
  // states at requested times are a part of the integration.
  System system;
  system.add(std::make_unique<SampledLoop>(2.0, 3.0, 1.0, 0.3));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 1.0;
  settings.output_interval = 0.25;
  Simulator simulator(system, settings);
  struct Slow final : SimulationObserver {
    int knots = 0, samples = 0;
    void on_sample(double, const std::vector<double>&, const std::vector<double>&) override {
      ++samples;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    [[nodiscard]] bool wants_knots() const override { return true; }
    void on_knot(double, const std::vector<double>&, const std::vector<double>&, const std::vector<double>&) override {
      ++knots;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  } slow;
  REQUIRE(simulator.run(slow).finished());
  const RunWallTimes& w = simulator.statistics().wall_time;
  REQUIRE(slow.samples == 5);
  REQUIRE(slow.knots >= 9);  // the updates at 0, 0.3, 0.6, 0.9 and one before each sample
  CHECK(w.knots >= 0.002 * slow.knots);
  CHECK(w.samples >= 0.002 * slow.samples);
  for (const double part : {w.integration, w.interpolation, w.periodic_updates, w.scheduled_updates, w.continuations,
                            w.restarts})
    CHECK(part >= 0.0);
  CHECK(w.interpolation <= w.integration);
  CHECK(w.integration + w.periodic_updates + w.scheduled_updates + w.knots + w.continuations + w.restarts +
            w.samples <=
        w.total);
}

TEST_CASE("A sample a few ulps from an update is taken at the update, not integrated to", "[solver][discrete]") {
  // Updates every 0.1 s and samples every 0.005 s: 0.1 * 17 and 0.005 * 340 differ in the last bits.
  System system;
  system.add(std::make_unique<SampledLoop>(2.0, 3.0, 1.0, 0.1));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 3.0;
  settings.output_interval = 0.005;
  Simulator simulator(system, settings);
  Recorder recorder;
  const auto status = simulator.run(recorder);
  CHECK(status.finished());
  CHECK(recorder.times.size() == 601);
}
