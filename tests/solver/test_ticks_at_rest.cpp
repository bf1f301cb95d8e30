// Ticks at rest (IntegratorSettings::skip_ticks_at_rest): a periodic update that a component proves
// idle over an integrator step is left out, with the states it reads bounded over the step from
// CVODE's Nordsieck array. Checked: the bounds hold at every time of every step, and the decisions
// of a run that leaves ticks out are those of a run that takes every tick, to the bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "dctwin/solver/simulator.hpp"
#include "linear_component.hpp"

using dctwin::solver::EvalContext;
using dctwin::solver::Index;
using dctwin::solver::IntegratorSettings;
using dctwin::solver::SimulationSettings;
using dctwin::solver::Simulator;
using dctwin::solver::StateRanges;
using dctwin::solver::System;

namespace {

constexpr double kOmega = 2.0 * 3.141592653589793 / 20.0;  // [rad/s]: a 20-s period
constexpr double kDamping = 0.05;                           // damping ratio
constexpr double kThreshold = 0.92;                         // the alarm's level

/// A damped oscillator u'' + 2 zeta omega u' + omega^2 u = 0 from u = 0 with u' = omega, with an
/// alarm ticking every 0.1 s that latches (and records the tick's time) the first time u > 0.92.
/// u peaks once above that level (0.9267 at t = 4.85 s, above 0.92 for ~0.75 s) and stays below
/// it afterwards, so the alarm's tick is decided by the bounds over the steps around a peak,
/// where the step's ends lie below the level. `proves_rest`: whether it implements rests_over().
class Oscillator final : public dctwin::solver::Component {
 public:
  explicit Oscillator(bool proves_rest) : Component("oscillator"), proves_rest_(proves_rest) {
    x_ = declare_state_group({"x", "1", "position and velocity", 2});
    alarm_ = declare_discrete_group({"alarm", "1", "latched alarm", 1});
    alarm_time_ = declare_discrete_group({"alarm_time", "s", "time the alarm latched", 1});
    ticks_ = declare_discrete_group({"ticks", "1", "updates run", 1});
  }
  [[nodiscard]] Index position() const { return index(x_, 0); }
  [[nodiscard]] double alarm_time(const std::vector<double>& d) const { return d[discrete_index(alarm_time_)]; }
  [[nodiscard]] double ticks(const std::vector<double>& d) const { return d[discrete_index(ticks_)]; }

  void initial_state(double* x) const override {
    x[index(x_, 0)] = 0.0;
    x[index(x_, 1)] = kOmega;
  }
  void initial_discrete(double* d) const override {
    d[discrete_index(alarm_)] = 0.0;
    d[discrete_index(alarm_time_)] = -1.0;
    d[discrete_index(ticks_)] = 0.0;
  }
  void derivatives(const EvalContext&, const double* x, double* xdot) const override {
    xdot[index(x_, 0)] += x[index(x_, 1)];
    xdot[index(x_, 1)] += -kOmega * kOmega * x[index(x_, 0)] - 2.0 * kDamping * kOmega * x[index(x_, 1)];
  }
  void jacobian_pattern(dctwin::solver::PatternSink& p) const override {
    p.add(index(x_, 0), index(x_, 1));
    p.add(index(x_, 1), index(x_, 0));
    p.add(index(x_, 1), index(x_, 1));
  }
  void jacobian(const EvalContext&, const double*, dctwin::solver::JacobianSink& jac) const override {
    jac.add(index(x_, 0), index(x_, 1), 1.0);
    jac.add(index(x_, 1), index(x_, 0), -kOmega * kOmega);
    jac.add(index(x_, 1), index(x_, 1), -2.0 * kDamping * kOmega);
  }
  [[nodiscard]] double update_period() const override { return 0.1; }
  bool update_discrete(const EvalContext& ctx, const double* x, double* d_next) const override {
    d_next[discrete_index(ticks_)] += 1.0;  // bookkeeping a left-out tick does not do
    if (ctx.discrete[discrete_index(alarm_)] == 0.0 && x[position()] > kThreshold) {
      d_next[discrete_index(alarm_)] = 1.0;
      d_next[discrete_index(alarm_time_)] = ctx.t;
    }
    return false;
  }
  [[nodiscard]] std::optional<StateRanges> states_read_by_update() const override {
    return StateRanges{{position(), 1}};
  }
  [[nodiscard]] bool rests_over(const EvalContext& ctx, const double* upper) const override {
    if (!proves_rest_) return false;
    return ctx.discrete[discrete_index(alarm_)] != 0.0 || upper[position()] <= kThreshold;
  }

 private:
  bool proves_rest_;
  int x_ = 0, alarm_ = 0, alarm_time_ = 0, ticks_ = 0;
};

/// A controller ticking every 0.7 s that counts its ticks and does not declare what it reads: its
/// ticks cannot be proved idle and are always taken.
class Counter final : public dctwin::solver::Component {
 public:
  Counter() : Component("counter") { count_ = declare_discrete_group({"count", "1", "ticks taken", 1}); }
  void initial_state(double*) const override {}
  void initial_discrete(double* d) const override { d[discrete_index(count_)] = 0.0; }
  void derivatives(const EvalContext&, const double*, double*) const override {}
  void jacobian_pattern(dctwin::solver::PatternSink&) const override {}
  [[nodiscard]] double update_period() const override { return 0.7; }
  bool update_discrete(const EvalContext&, const double*, double* d_next) const override {
    d_next[discrete_index(count_)] += 1.0;
    return false;
  }

 private:
  int count_ = 0;
};

struct Outcome {
  std::vector<double> final_state, final_discrete;
  long ticks_at_rest = 0;
  long steps = 0;
};

Outcome run_oscillator(bool proves_rest, bool skip, bool counter = false) {
  System system;
  system.add(std::make_unique<Oscillator>(proves_rest));
  if (counter) system.add(std::make_unique<Counter>());
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 60.0;
  settings.output_interval = 7.0;
  settings.integrator.skip_ticks_at_rest = skip;
  settings.integrator.relative_tolerance = 1e-4;  // long steps: several span the peak
  settings.integrator.absolute_tolerance = 1e-4;
  Simulator simulator(system, settings);
  dctwin::test::Recorder recorder;
  REQUIRE(simulator.run(recorder).finished());
  return {simulator.final_state(), simulator.final_discrete(), simulator.statistics().ticks_at_rest,
          simulator.statistics().steps};
}

}  // namespace

TEST_CASE("Bounds over an integrator step hold at every time of the step", "[solver][verification]") {
  System system;
  const auto& oscillator = system.add(std::make_unique<Oscillator>(true));
  system.assemble();
  const std::vector<double> d = system.initial_discrete();
  IntegratorSettings settings;
  dctwin::solver::CvodeIntegrator integrator(system, settings), probe(system, settings);
  integrator.restart(0.0, system.initial_state(), 60.0, d.data());
  const StateRanges ranges{{oscillator.position(), 2}};
  std::vector<double> upper(2);
  // Before any step there is no step to bound.
  CHECK_FALSE(integrator.upper_bounds_since(0.0, ranges, upper.data()));
  double t = 0.0, loosest = 0.0;
  int steps = 0;
  while (t < 59.0) {
    REQUIRE(integrator.step_past(t + 1e-9));
    const double end = integrator.step_time(), start = integrator.last_step_start();
    REQUIRE(start < end);
    // Not from before the step: the interpolant does not reach there.
    CHECK_FALSE(integrator.upper_bounds_since(start - 1e-3 * (end - start), ranges, upper.data()));
    REQUIRE(integrator.upper_bounds_since(start, ranges, upper.data()));
    double highest[2] = {-1e300, -1e300};
    for (int k = 0; k <= 40; ++k) {
      const double at = start + (end - start) * k / 40.0;
      if (!(at > t)) continue;  // advance() goes forward only
      REQUIRE(integrator.advance(at) == dctwin::solver::AdvanceResult::reached);
      for (int i = 0; i < 2; ++i) {
        const double v = integrator.state()[static_cast<std::size_t>(oscillator.position() + i)];
        INFO("t = " << at << ", state " << i);
        CHECK(v <= upper[static_cast<std::size_t>(i)]);
        highest[i] = std::max(highest[i], v);
      }
      t = at;
    }
    // And not far above: the swing of one step (a few percent of the amplitude at most).
    for (int i = 0; i < 2; ++i) loosest = std::max(loosest, upper[static_cast<std::size_t>(i)] - highest[i]);
    ++steps;
  }
  INFO(steps << " steps, loosest bound " << loosest << " above the step's highest value");
  CHECK(steps > 20);
  CHECK(loosest < 0.2);
}

TEST_CASE("Ticks left out at rest change no decision and no state", "[solver]") {
  const Outcome every = run_oscillator(true, false);
  const Outcome rested = run_oscillator(true, true);
  const Outcome unproved = run_oscillator(false, true);
  // The alarm latched at the same tick (on the first peak's rise, 0.38 s before it) ...
  CHECK(every.final_discrete[1] == Approx(4.5).margin(1e-9));
  CHECK(rested.final_discrete[1] == every.final_discrete[1]);
  // ... with the same steps and states to the bit.
  CHECK(rested.steps == every.steps);
  CHECK(std::memcmp(rested.final_state.data(), every.final_state.data(), every.final_state.size() * sizeof(double)) == 0);
  // Most of the 600 ticks were left out (only the updates taken count themselves).
  INFO(rested.ticks_at_rest << " ticks left out, " << rested.steps << " steps");
  CHECK(rested.ticks_at_rest > 300);
  CHECK(rested.final_discrete[2] + static_cast<double>(rested.ticks_at_rest) == every.final_discrete[2]);
  CHECK(every.ticks_at_rest == 0);
  // A component that does not prove its rest keeps every tick.
  CHECK(unproved.ticks_at_rest == 0);
  CHECK(unproved.final_discrete == every.final_discrete);
}

TEST_CASE("Ticks of a component that does not declare its reads are always taken", "[solver]") {
  const Outcome every = run_oscillator(true, false, true);
  const Outcome rested = run_oscillator(true, true, true);
  // The counter ticked at 0, 0.7, ..., 59.5 s in both runs; the oscillator's ticks between its
  // ticks were still left out, with the same decisions and states.
  CHECK(every.final_discrete[3] == 86.0);
  CHECK(rested.final_discrete[3] == 86.0);
  CHECK(rested.ticks_at_rest > 200);
  CHECK(rested.final_discrete[1] == every.final_discrete[1]);
  CHECK(std::memcmp(rested.final_state.data(), every.final_state.data(), every.final_state.size() * sizeof(double)) == 0);
}
