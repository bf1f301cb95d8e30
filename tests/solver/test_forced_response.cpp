// Forced responses (forced_response.hpp): the integrator follows y = x - r(t) and goes on across
// forcing steps that r absorbs, without restarting; checked against the closed form.
#include <catch2/catch.hpp>

#include <unsupported/Eigen/MatrixFunctions>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "dctwin/solver/simulator.hpp"
#include "linear_component.hpp"

using dctwin::solver::EvalContext;
using dctwin::solver::ForcedResponse;
using dctwin::solver::Index;
using dctwin::solver::IntegratorSettings;
using dctwin::solver::SimulationSettings;
using dctwin::solver::Simulator;
using dctwin::solver::System;
using dctwin::test::Recorder;

namespace {

constexpr double kC[3] = {50.0, 400.0, 80.0};  // junction, base, coolant volume [J/K]
constexpr double kR01 = 0.03, kR12 = 0.02, kR2a = 0.005;  // [K/W]
constexpr double kAmbient = 305.15;                        // [K]
constexpr double kSwitchPeriod = 1.7;                      // [s]
constexpr double kPower[2] = {700.0, 150.0};               // [W], alternating

/// A three-node RC ladder whose junction power alternates between two levels at self-scheduled
/// updates every 1.7 s (discrete state: the level), with the heat generated as an accumulator.
/// `ambient_steps`: the updates also move the ambient temperature (a jump nothing absorbs).
class SwitchedLadder final : public dctwin::solver::Component {
 public:
  explicit SwitchedLadder(bool ambient_steps) : Component("ladder"), ambient_steps_(ambient_steps) {
    t_ = declare_state_group({"temperature", "K", "node temperature", 3});
    heat_ = declare_state_group({"heat", "J", "heat generated", 1, true});
    level_ = declare_discrete_group({"level", "1", "power level", 1});
  }

  [[nodiscard]] double power(const double* d) const { return kPower[static_cast<int>(d[discrete_index(level_)])]; }
  [[nodiscard]] double ambient(const double* d) const {
    return ambient_steps_ && d[discrete_index(level_)] != 0.0 ? kAmbient + 2.0 : kAmbient;
  }
  [[nodiscard]] Index node(int i) const { return index(t_, i); }

  void initial_state(double* x) const override {
    for (int i = 0; i < 3; ++i) x[node(i)] = kAmbient;
    x[index(heat_)] = 0.0;
  }
  void initial_discrete(double* d) const override { d[discrete_index(level_)] = 0.0; }
  void derivatives(const EvalContext& ctx, const double* x, double* xdot) const override {
    const double q01 = (x[node(0)] - x[node(1)]) / kR01, q12 = (x[node(1)] - x[node(2)]) / kR12;
    const double q2a = (x[node(2)] - ambient(ctx.discrete)) / kR2a;
    xdot[node(0)] += (power(ctx.discrete) - q01) / kC[0];
    xdot[node(1)] += (q01 - q12) / kC[1];
    xdot[node(2)] += (q12 - q2a) / kC[2];
    xdot[index(heat_)] += power(ctx.discrete);
  }
  void jacobian_pattern(dctwin::solver::PatternSink& p) const override {
    for (int i = 0; i < 3; ++i)
      for (int j = std::max(0, i - 1); j <= std::min(2, i + 1); ++j) p.add(node(i), node(j));
  }
  void jacobian(const EvalContext&, const double*, dctwin::solver::JacobianSink& jac) const override {
    jac.add(node(0), node(0), -1.0 / (kR01 * kC[0]));
    jac.add(node(0), node(1), 1.0 / (kR01 * kC[0]));
    jac.add(node(1), node(0), 1.0 / (kR01 * kC[1]));
    jac.add(node(1), node(1), -(1.0 / kR01 + 1.0 / kR12) / kC[1]);
    jac.add(node(1), node(2), 1.0 / (kR12 * kC[1]));
    jac.add(node(2), node(1), 1.0 / (kR12 * kC[2]));
    jac.add(node(2), node(2), -(1.0 / kR12 + 1.0 / kR2a) / kC[2]);
  }
  [[nodiscard]] double next_scheduled_update(double t, const double*) const override {
    return kSwitchPeriod * (std::floor(t / kSwitchPeriod + 1e-9) + 1.0);
  }
  bool scheduled_update(const EvalContext&, const double*, double* d_next) const override {
    double& level = d_next[discrete_index(level_)];
    level = level == 0.0 ? 1.0 : 0.0;
    return true;
  }
  [[nodiscard]] std::unique_ptr<ForcedResponse> make_forced_response() const override;

 private:
  bool ambient_steps_;
  int t_ = 0, heat_ = 0, level_ = 0;
};

/// The junction alone against a base held at 0 K: r' = -r / (R01 C0) + P / C0.
class JunctionResponse final : public ForcedResponse {
 public:
  explicit JunctionResponse(const SwitchedLadder& ladder) : ladder_(ladder) {}
  void reset(const EvalContext& ctx, const double*) override { start(ctx, std::nullopt); }
  void reanchor(const EvalContext& ctx, const double*) override {
    double r = 0.0, r_dot = 0.0;
    value(ctx.t, r, r_dot);
    start(ctx, r);
  }
  void evaluate(double t, double* r, double* r_dot) const override {
    double rate = 0.0;
    value(t, r[ladder_.node(0)], rate);
    if (r_dot != nullptr) r_dot[ladder_.node(0)] = rate;
  }
  [[nodiscard]] std::vector<Index> covered_states() const override { return {ladder_.node(0)}; }

 private:
  void start(const EvalContext& ctx, std::optional<double> r) {
    anchor_ = ctx.t;
    steady_ = ladder_.power(ctx.discrete) * kR01;
    start_ = r.value_or(steady_);
  }
  void value(double t, double& r, double& r_dot) const {
    const double rate = 1.0 / (kR01 * kC[0]), e = std::exp(-rate * (t - anchor_));
    r = steady_ + (start_ - steady_) * e;
    r_dot = -rate * (start_ - steady_) * e;
  }
  const SwitchedLadder& ladder_;
  double anchor_ = 0.0, steady_ = 0.0, start_ = 0.0;
};

std::unique_ptr<ForcedResponse> SwitchedLadder::make_forced_response() const {
  return std::make_unique<JunctionResponse>(*this);
}

struct Run {
  Recorder recorder;
  dctwin::solver::SolverStatistics statistics;
  std::vector<double> final_state;
};

Run run(bool forced_responses, bool ambient_steps) {
  System system;
  system.add(std::make_unique<SwitchedLadder>(ambient_steps));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 20.0;
  settings.output_interval = 0.5;
  settings.integrator = IntegratorSettings::reference();
  settings.integrator.forced_responses = forced_responses;
  Simulator simulator(system, settings);
  Run r;
  REQUIRE(simulator.run(r.recorder).finished());
  r.statistics = simulator.statistics();
  r.final_state = simulator.final_state();
  return r;
}

/// The ladder's exact temperatures at t (no ambient steps): piecewise e^{A dt}.
Eigen::Vector3d exact_temperatures(double t) {
  Eigen::Matrix3d a = Eigen::Matrix3d::Zero();
  a(0, 0) = -1.0 / (kR01 * kC[0]), a(0, 1) = 1.0 / (kR01 * kC[0]);
  a(1, 0) = 1.0 / (kR01 * kC[1]), a(1, 1) = -(1.0 / kR01 + 1.0 / kR12) / kC[1], a(1, 2) = 1.0 / (kR12 * kC[1]);
  a(2, 1) = 1.0 / (kR12 * kC[2]), a(2, 2) = -(1.0 / kR12 + 1.0 / kR2a) / kC[2];
  Eigen::Vector3d x = Eigen::Vector3d::Constant(kAmbient);
  double now = 0.0;
  for (int k = 0; now < t; ++k) {
    const double until = std::min(t, kSwitchPeriod * (k + 1));
    const Eigen::Vector3d b(kPower[k % 2] / kC[0], 0.0, kAmbient / (kR2a * kC[2]));
    const Eigen::Matrix3d phi = (a * (until - now)).exp();
    x = phi * x + a.fullPivLu().solve((phi - Eigen::Matrix3d::Identity()) * b);
    now = until;
  }
  return x;
}

}  // namespace

TEST_CASE("Forced responses carry power steps without restarts and match the closed form", "[solver][verification]") {
  const Run shifted = run(true, false);
  const Run plain = run(false, false);
  const long switches = static_cast<long>(std::floor(20.0 / kSwitchPeriod));  // 11 steps of power
  // Every power step absorbed: one segment; without forced responses each step restarts CVODE.
  CHECK(shifted.statistics.segments == 1);
  CHECK(shifted.statistics.continued_segments == switches);
  CHECK(plain.statistics.segments == 1 + switches);
  CHECK(plain.statistics.continued_segments == 0);
  double worst = 0.0;
  for (std::size_t k = 0; k < shifted.recorder.times.size(); ++k) {
    const Eigen::Vector3d exact = exact_temperatures(shifted.recorder.times[k]);
    for (int i = 0; i < 3; ++i) {
      const double rise_exact = exact[i] - kAmbient;
      const double rise = shifted.recorder.states[k][static_cast<std::size_t>(i)] - kAmbient;
      worst = std::max(worst, std::abs(rise - rise_exact) / std::max(std::abs(rise_exact), 1.0));
    }
  }
  INFO("worst relative error of the temperature rise " << worst);
  CHECK(worst <= 1e-6);
  // The heat accumulator took each step's jump in a ramp: the generated heat is exact.
  double heat = 0.0;
  for (double t = 0.0; t < 20.0; t += kSwitchPeriod) {
    const int k = static_cast<int>(std::lround(t / kSwitchPeriod));
    heat += kPower[k % 2] * (std::min(20.0, t + kSwitchPeriod) - t);
  }
  CHECK(shifted.final_state[3] == Approx(heat).epsilon(1e-9));
}

TEST_CASE("A forcing step the responses do not absorb restarts the integrator", "[solver]") {
  // The ambient temperature steps with the power: the coolant node's slope jumps and nothing takes
  // the jump, so every update restarts CVODE, as without forced responses.
  const Run shifted = run(true, true);
  const long switches = static_cast<long>(std::floor(20.0 / kSwitchPeriod));
  CHECK(shifted.statistics.segments == 1 + switches);
  CHECK(shifted.statistics.continued_segments == 0);
}

TEST_CASE("An advance that forms some states gives them the bits of the whole state, the rest on request", "[solver]") {
  // At a governors' tick only the states the updates read are formed (advance with `only`): the
  // interpolation and x = y + r on those states alone; complete_state() forms the others.
  System system;
  const auto& ladder = system.add(std::make_unique<SwitchedLadder>(false));
  system.assemble();
  const std::vector<double> discrete = system.initial_discrete(), x0 = system.initial_state();
  const IntegratorSettings settings;  // forced responses on: node 0 is carried as y + r
  dctwin::solver::CvodeIntegrator whole(system, settings), part(system, settings);
  whole.restart(0.0, x0, 2.0, discrete.data());
  part.restart(0.0, x0, 2.0, discrete.data());
  const dctwin::solver::StateRanges only{{ladder.node(0), 2}};  // the carried junction and the base
  int step = 0;
  for (const double t : {0.1, 0.2, 0.35, 0.9, 1.25, 1.3, 1.95}) {
    INFO("t = " << t);
    const std::vector<double> before = part.state();
    CHECK(whole.advance(t) == dctwin::solver::AdvanceResult::reached);
    CHECK(part.advance(t, &only) == dctwin::solver::AdvanceResult::reached);
    CHECK_FALSE(part.state_complete());
    const auto& a = whole.state();
    const auto& b = part.state();
    CHECK(std::memcmp(&a[0], &b[0], 2 * sizeof(double)) == 0);  // formed: the same bits
    CHECK(b[2] == before[2]);                                    // not formed: as it was
    CHECK(b[3] == before[3]);
    CHECK(a[2] != before[2]);  // (the coolant node does move)
    if (++step % 2 == 0) {  // every other time the rest too
      part.complete_state();
      CHECK(part.state_complete());
      CHECK(std::memcmp(a.data(), part.state().data(), a.size() * sizeof(double)) == 0);
    }
  }
}

namespace {

/// The RC ladder at a constant 700 W whose ambient steps by +2 K at the first tick (period 0.1 s)
/// at or after `step_time` once the junction has warmed: the tick reads the junction alone and
/// declares it when `declare` (states_read_by_update). Nothing absorbs the step, so the
/// integrator restarts from the state at that tick, which must then be whole although the tick
/// formed only the junction.
class TickedLadder final : public dctwin::solver::Component {
 public:
  TickedLadder(bool declare, double step_time) : Component("ticked"), declare_(declare), step_time_(step_time) {
    t_ = declare_state_group({"temperature", "K", "node temperature", 3});
    offset_ = declare_discrete_group({"ambient_offset", "K", "ambient temperature step", 1});
  }
  [[nodiscard]] Index node(int i) const { return index(t_, i); }
  void initial_state(double* x) const override {
    for (int i = 0; i < 3; ++i) x[node(i)] = kAmbient;
  }
  void initial_discrete(double* d) const override { d[discrete_index(offset_)] = 0.0; }
  void derivatives(const EvalContext& ctx, const double* x, double* xdot) const override {
    const double ambient = kAmbient + ctx.discrete[discrete_index(offset_)];
    const double q01 = (x[node(0)] - x[node(1)]) / kR01, q12 = (x[node(1)] - x[node(2)]) / kR12;
    xdot[node(0)] += (kPower[0] - q01) / kC[0];
    xdot[node(1)] += (q01 - q12) / kC[1];
    xdot[node(2)] += (q12 - (x[node(2)] - ambient) / kR2a) / kC[2];
  }
  void jacobian_pattern(dctwin::solver::PatternSink& p) const override {
    for (int i = 0; i < 3; ++i)
      for (int j = std::max(0, i - 1); j <= std::min(2, i + 1); ++j) p.add(node(i), node(j));
  }
  [[nodiscard]] double update_period() const override { return 0.1; }
  bool update_discrete(const EvalContext& ctx, const double* x, double* d_next) const override {
    double& offset = d_next[discrete_index(offset_)];
    if (ctx.t < step_time_ || offset != 0.0 || !(x[node(0)] > kAmbient)) return false;
    offset = 2.0;
    return true;
  }
  [[nodiscard]] std::optional<dctwin::solver::StateRanges> states_read_by_update() const override {
    if (!declare_) return std::nullopt;
    return dctwin::solver::StateRanges{{node(0), 1}};
  }

 private:
  bool declare_;
  double step_time_;
  int t_ = 0, offset_ = 0;
};

}  // namespace

TEST_CASE("A tick that formed part of the state and restarts the integrator restarts from the whole state", "[solver]") {
  auto run_declaring = [](bool declare, double step_time = 3.04) {  // the tick at 3.1 s, between samples
    System system;
    system.add(std::make_unique<TickedLadder>(declare, step_time));
    system.assemble();
    SimulationSettings settings;
    settings.end_time = 6.0;
    settings.output_interval = 0.5;
    Simulator simulator(system, settings);
    Recorder recorder;
    REQUIRE(simulator.run(recorder).finished());
    return std::pair{simulator.final_state(), recorder.states};
  };
  const auto [part_final, part_samples] = run_declaring(true);
  const auto [whole_final, whole_samples] = run_declaring(false);
  CHECK(std::memcmp(part_final.data(), whole_final.data(), part_final.size() * sizeof(double)) == 0);
  REQUIRE(part_samples.size() == whole_samples.size());
  for (std::size_t k = 0; k < part_samples.size(); ++k) {
    INFO("sample " << k);
    CHECK(std::memcmp(part_samples[k].data(), whole_samples[k].data(), part_samples[k].size() * sizeof(double)) == 0);
  }
  // The step happened: the coolant node ends ~2 K warmer than without it.
  const auto [unstepped_final, unstepped_samples] = run_declaring(true, 100.0);
  CHECK(part_final[2] - unstepped_final[2] > 1.5);
}

namespace {

/// One state that relaxes to 300 K and one that its own response turns into NaN from `bad_from`
/// on (r = NaN, r' = 0: y stays finite, so CVODE never sees it); with `ticking`, a 0.1-s update
/// that reads that state alone (declared), so that a tick forms it in part.
class PoisonedState final : public dctwin::solver::Component {
 public:
  PoisonedState(double bad_from, bool ticking) : Component("poison"), bad_from_(bad_from), ticking_(ticking) {
    relaxing_ = declare_state_group({"relaxing", "K", "a state relaxing to 300 K", 1});
    value_ = declare_state_group({"value", "K", "the state that turns NaN", 1});
  }
  [[nodiscard]] Index value() const { return index(value_); }
  [[nodiscard]] double bad_from() const { return bad_from_; }
  void initial_state(double* x) const override {
    x[index(relaxing_)] = 310.0;
    x[value()] = 300.0;
  }
  void derivatives(const EvalContext&, const double* x, double* xdot) const override {
    xdot[index(relaxing_)] += -0.1 * (x[index(relaxing_)] - 300.0);
  }
  void jacobian_pattern(dctwin::solver::PatternSink& p) const override {
    p.add(index(relaxing_), index(relaxing_));
    p.add(value(), value());
  }
  void jacobian(const EvalContext&, const double*, dctwin::solver::JacobianSink& jac) const override {
    jac.add(index(relaxing_), index(relaxing_), -0.1);
  }
  [[nodiscard]] double update_period() const override { return ticking_ ? 0.1 : 0.0; }
  bool update_discrete(const EvalContext&, const double*, double*) const override { return false; }
  [[nodiscard]] std::optional<dctwin::solver::StateRanges> states_read_by_update() const override {
    return dctwin::solver::StateRanges{{value(), 1}};
  }
  [[nodiscard]] std::unique_ptr<ForcedResponse> make_forced_response() const override;

 private:
  double bad_from_;
  bool ticking_;
  int relaxing_ = 0, value_ = 0;
};

class PoisonResponse final : public ForcedResponse {
 public:
  explicit PoisonResponse(const PoisonedState& c) : c_(c) {}
  void reset(const EvalContext&, const double*) override {}
  void reanchor(const EvalContext&, const double*) override {}
  void evaluate(double t, double* r, double* r_dot) const override {
    r[c_.value()] = t < c_.bad_from() ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    if (r_dot != nullptr) r_dot[c_.value()] = 0.0;
  }
  [[nodiscard]] std::vector<Index> covered_states() const override { return {c_.value()}; }

 private:
  const PoisonedState& c_;
};

std::unique_ptr<ForcedResponse> PoisonedState::make_forced_response() const {
  return std::make_unique<PoisonResponse>(*this);
}

}  // namespace

TEST_CASE("A state formed not finite ends the run, whether formed whole or in part", "[solver]") {
  auto run = [](bool ticking) {
    System system;
    system.add(std::make_unique<PoisonedState>(2.05, ticking));
    system.assemble();
    SimulationSettings settings;
    settings.end_time = 5.0;
    settings.output_interval = 0.5;
    Simulator simulator(system, settings);
    Recorder recorder;
    const auto status = simulator.run(recorder);
    return std::pair{status, recorder.times};
  };
  SECTION("at a sample, where the whole state is formed") {
    const auto [status, samples] = run(false);
    CHECK(status.reason == dctwin::solver::StopReason::solver_failure);
    CHECK(status.message == "state poison.value is not finite");
    CHECK(status.time == 2.5);
    CHECK(samples.back() == 2.0);
  }
  SECTION("at a tick whose update reads that state alone") {
    const auto [status, samples] = run(true);
    CHECK(status.reason == dctwin::solver::StopReason::solver_failure);
    CHECK(status.message == "state poison.value is not finite");
    CHECK(status.time == Approx(2.1).margin(1e-12));
    CHECK(samples.back() == 2.0);
  }
}
