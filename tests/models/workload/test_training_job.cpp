// The training job coupled to GPU packages: the slowest GPU gates every step, throttle reasons
// appear in the job's state, MFU and lost GPU-hours add up by hand, interruptions cost what the
// restart model says.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/training_job.hpp"
#include "dctwin/solver/simulator.hpp"
#include "dctwin/solver/system.hpp"

using namespace dctwin;
using models::workload::JobPhase;
using models::workload::TrainingJob;
using models::workload::WorkloadParameters;
namespace reason = models::workload::throttle_reason;

namespace {

constexpr double kelvin = 273.15;

/// Coolant at a fixed temperature behind a per-GPU resistance (an ideal cold plate).
class FixedCoolant final : public solver::Component, public models::thermal::GpuEnvironment {
 public:
  FixedCoolant(double temperature, std::vector<double> resistance)
      : Component("coolant"), temperature_(temperature), resistance_(std::move(resistance)) {
    state_ = declare_state_group({"temperature", "K", "coolant temperature", 1});
  }
  [[nodiscard]] std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t) const override {
    return {{{index(state_), 1.0}, {index(state_), 0.0}}};
  }
  [[nodiscard]] double environment_resistance(std::size_t gpu, const solver::EvalContext&) const override {
    return resistance_[gpu];
  }
  void initial_state(double* x) const override { x[index(state_)] = temperature_; }
  void derivatives(const solver::EvalContext&, const double*, double*) const override {}
  void jacobian_pattern(solver::PatternSink&) const override {}
  void jacobian(const solver::EvalContext&, const double*, solver::JacobianSink&) const override {}

 private:
  double temperature_;
  std::vector<double> resistance_;
  int state_ = 0;
};

using SampleFn = std::function<void(const solver::System&, double, const std::vector<double>&)>;
/// At every knot: the job, the time and the discrete state just after the updates there.
using KnotFn = std::function<void(const TrainingJob&, double, const std::vector<double>&)>;

struct Recorder final : solver::SimulationObserver {
  const solver::System* system = nullptr;
  SampleFn fn;
  KnotFn knot;
  const TrainingJob* job = nullptr;
  void on_sample(double t, const std::vector<double>&, const std::vector<double>& out) override {
    if (fn) fn(*system, t, out);
  }
  [[nodiscard]] bool wants_knots() const override { return static_cast<bool>(knot); }
  void on_knot(double t, const std::vector<double>&, const std::vector<double>&,
               const std::vector<double>& after) override {
    knot(*job, t, after);
  }
};

/// GPUs on fixed coolant with a job; returns the final discrete state after `duration`.
struct Rig {
  solver::System system;
  models::thermal::GpuPackageArray* gpus = nullptr;
  FixedCoolant* coolant = nullptr;
  TrainingJob* job = nullptr;
  std::vector<double> discrete;
  std::vector<double> state;
  solver::SimulationStatus status;

  Rig(std::size_t n, const WorkloadParameters& w, const std::vector<double>& resistance, double duration,
      double coolant_temperature = 30.0 + kelvin, std::uint64_t seed = 1, double interval = 0.0,
      SampleFn on_sample = {}, KnotFn on_knot = {}) {
    models::thermal::GpuPackageParameters package;
    package.leakage_power_at_reference = 50.0;
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < n; ++i) labels.push_back("gpu" + std::to_string(i));
    auto g = std::make_unique<models::thermal::GpuPackageArray>(
        "gpus", package, std::vector<models::thermal::GpuSpread>(n), labels, coolant_temperature);
    auto c = std::make_unique<FixedCoolant>(coolant_temperature, resistance);
    auto j = std::make_unique<TrainingJob>("job", w, *g, duration, seed, "workload");
    g->connect(*c);
    g->connect(*j);
    g->stop_on_shutdown(w.on_gpu_shutdown == "end_run");
    gpus = &system.add(std::move(g));
    coolant = &system.add(std::move(c));
    job = &system.add(std::move(j));
    system.assemble();
    solver::SimulationSettings settings;
    settings.end_time = duration;
    settings.output_interval = interval > 0.0 ? interval : duration;
    solver::Simulator simulator(system, settings);
    Recorder recorder;
    recorder.system = &system;
    recorder.fn = std::move(on_sample);
    recorder.knot = std::move(on_knot);
    recorder.job = job;
    status = simulator.run(recorder);
    discrete = simulator.final_discrete();
    state = simulator.final_state();
  }
};

/// A small job: 3,072 GPUs as in one pod, Llama 3 405B steps, no checkpoints or interruptions.
WorkloadParameters pod_job() {
  WorkloadParameters w;
  w.checkpoint.enabled = false;
  w.interruptions.enabled = false;
  return w;
}

}  // namespace

TEST_CASE("Cool GPUs run at the top clock and the job's MFU equals the hand calculation", "[workload][job]") {
  const std::size_t n = 3072;
  const auto w = pod_job();
  Rig rig(n, w, std::vector<double>(n, 0.03), 65.0);
  REQUIRE(rig.status.finished());
  const auto& job = *rig.job;
  const double* d = rig.discrete.data();
  for (std::size_t i = 0; i < n; i += 97) {
    CHECK(job.clock(d, i) == w.power.max_clock);
    CHECK(job.reasons(d, i) == 0u);
  }
  // Hand: 6 N B_tok / (T_step G P_peak), with B_tok = 16 x DP x 8192, DP = 3072 / 128 = 24.
  const double tokens = 16.0 * 24.0 * 8192.0;
  const double flops = 6.0 * 405e9 * tokens;
  const double step = job.plan().step_time();
  CHECK(job.plan().tokens_per_step == tokens);
  const auto accounts = job.accounts(d);
  const double steps = std::floor(65.0 / step);
  CHECK(accounts.steps_completed == steps);
  CHECK(accounts.lost_gpu_hours_throttling == Approx(0.0).margin(1e-9));
  const auto summary = job.summary(d, 65.0);
  auto figure = [&](const std::string& name) {
    for (const auto& f : summary)
      if (f.name == name) return f.value;
    FAIL("no figure " << name);
    return 0.0;
  };
  // The step in progress at 65 s counts with its done share: 65 s - steps x T_step into it,
  // all in phases at the top clock.
  const double partial = (65.0 - steps * step) / step;
  CHECK(job.step_progress(d, 65.0) == Approx(partial).epsilon(1e-9));
  CHECK(figure("mfu_mean") == Approx((steps + partial) * flops / (65.0 * 3072.0 * 989e12)).epsilon(1e-9));
  CHECK(figure("mfu_planned") == Approx(flops / (step * 3072.0 * 989e12)).epsilon(1e-12));
  CHECK(figure("mfu_planned") > 0.38);
  CHECK(figure("mfu_planned") < 0.43);
  CHECK(figure("throughput_mean") == Approx((steps + partial) * tokens / 65.0).epsilon(1e-9));
  // Compute (~540 W) against communication (~250 W) of 3,072 GPUs.
  CHECK(figure("gpu_total_power_peak_to_peak") > 3072.0 * 250.0);
  CHECK(figure("gpu_total_power_peak_to_peak") < 3072.0 * 450.0);
}

TEST_CASE("One hot GPU in 3,072 slows every step by what its clock gives", "[workload][job]") {
  const std::size_t n = 3072, hot = 1234;
  const auto w = pod_job();
  std::vector<double> resistance(n, 0.03);
  resistance[hot] = 0.10;  // a bad thermal interface: ~97 degC at the top clock
  // Samples at every governor update: the least clock over the GPUs, the hot GPU's clock and
  // reasons, and each completed step's duration.
  struct Sample {
    double t, gate, hot_clock, hot_reasons, steps, step_time;
  };
  std::vector<Sample> samples;
  const double duration = 120.0;
  Rig rig(n, w, resistance, duration, 30.0 + kelvin, 1, w.governor.update_period,
          [&](const solver::System& system, double t, const std::vector<double>& out) {
            Sample s{t, 1.0, 0.0, 0.0, 0.0, 0.0};
            for (const auto& slot : system.outputs()) {
              const double* v = out.data() + slot.first_value;
              if (slot.spec.group == "gpu" && slot.spec.name == "sm_clock") {
                s.gate = *std::min_element(v, v + n) / w.power.max_clock;
                s.hot_clock = v[hot];
              }
              if (slot.spec.name == "throttle_reasons") s.hot_reasons = v[hot];
              if (slot.spec.name == "steps_completed") s.steps = v[0];
              if (slot.spec.name == "step_time") s.step_time = v[0];
            }
            samples.push_back(s);
          });
  REQUIRE(rig.status.finished());
  const auto& plan = rig.job->plan();
  // The hot GPU gates: it has the least clock whenever it is throttled, and software thermal
  // slowdown is what throttles it.
  const Sample& last = samples.back();
  CHECK(last.hot_clock / w.power.max_clock == last.gate);
  CHECK((static_cast<std::uint32_t>(last.hot_reasons) & reason::sw_thermal_slowdown) != 0u);
  CHECK(last.gate < 0.97);
  // Step ends from the reported step times (steps follow each other: no checkpoints here).
  std::vector<double> ends;
  double end = 0.0;
  for (const auto& s : samples)
    if (s.steps > static_cast<double>(ends.size())) {
      end += s.step_time;
      ends.push_back(end);
    }
  REQUIRE(ends.size() >= 10);
  // Re-integrate the last step from the sampled gate: the clock-scaled work T_c + T_b at rate
  // 1 / (c / r + 1 - c), then the exposed communication and the optimizer.
  const double step_start = ends[ends.size() - 2];
  const double c = plan.compute_bound_fraction;
  double work = plan.compute_time + plan.bubble_time;
  double t = step_start;
  for (std::size_t k = 0; k + 1 < samples.size() && work > 0.0; ++k) {
    const double a = samples[k].t, b = samples[k + 1].t;
    if (b <= t) continue;
    const double rate = 1.0 / (c / samples[k].gate + 1.0 - c);
    const double span = b - std::max(a, t);
    if (span * rate >= work) {
      t = std::max(a, t) + work / rate;
      work = 0.0;
    } else {
      work -= span * rate;
      t = b;
    }
  }
  const double predicted = t + plan.communication_time + plan.optimizer_time;
  CHECK(ends.back() == Approx(predicted).epsilon(1e-9));
  // Every step of the second minute is slower than planned by more than 1 %.
  for (std::size_t k = ends.size() / 2; k < ends.size(); ++k)
    CHECK(ends[k] - ends[k - 1] > 1.01 * plan.step_time());
  const auto accounts = rig.job->accounts(rig.discrete.data());
  double extra = 0.0;
  for (std::size_t k = 0; k < ends.size(); ++k)
    extra += std::max(0.0, ends[k] - (k == 0 ? 0.0 : ends[k - 1]) - plan.step_time());
  CHECK(accounts.lost_gpu_hours_throttling == Approx(extra * 3072.0 / 3600.0).epsilon(1e-9));
  CHECK(accounts.throttled_gpu_seconds > 30.0);
  CHECK(accounts.throttled_gpu_seconds <= duration + 1e-9);  // one GPU at most the whole run
}

TEST_CASE("An interruption loses the steps since the last checkpoint and costs detection, restart and reload",
          "[workload][job]") {
  const std::size_t n = 128;
  auto w = pod_job();
  w.job.pipeline_parallel = 16;
  w.checkpoint.enabled = true;
  w.checkpoint.interval_steps = 5;
  w.interruptions.enabled = true;
  w.interruptions.detection_time = 30.0;
  w.interruptions.restart_time = 60.0;
  // Rates so high that the first interruption comes within the first minutes.
  w.interruptions.rate_scale = 2e4;
  Rig rig(n, w, std::vector<double>(n, 0.03), 300.0);
  REQUIRE(rig.status.finished());
  const auto& job = *rig.job;
  REQUIRE_FALSE(job.interruptions().empty());
  const auto accounts = job.accounts(rig.discrete.data());
  CHECK(accounts.interruptions >= 1.0);
  // Every interruption is counted once, under its class's category; none is thermal here.
  double by_category = 0.0;
  for (double count : accounts.interruptions_by_category) by_category += count;
  CHECK(by_category == accounts.interruptions);
  CHECK(accounts.interruptions_by_category.back() == 0.0);
  CHECK(TrainingJob::interruption_categories().back() == "thermal");
  CHECK(accounts.tokens_trained == (accounts.steps_completed - accounts.steps_lost) * job.plan().tokens_per_step);
  // Every interruption costs at least detection + restart + reload on every GPU.
  const double reload = w.checkpoint.size_bytes(405e9) / w.interruptions.read_bandwidth;
  const double first = job.interruptions().front().time;
  INFO("first interruption at " << first << " s, " << accounts.interruptions << " interruptions");
  if (first < 300.0 - 90.0 - reload)
    CHECK(accounts.lost_gpu_hours_failures >= (90.0 + reload) * 128.0 / 3600.0 * (1.0 - 1e-12));
  CHECK(accounts.lost_gpu_hours_failures <= 300.0 * 128.0 / 3600.0 * (1.0 + 1e-12));
}

TEST_CASE("A GPU at its shutdown temperature interrupts the job when the run goes on", "[workload][job]") {
  const std::size_t n = 128;
  auto w = pod_job();
  w.on_gpu_shutdown = "restart_job";
  w.interruptions.detection_time = 1000.0;  // once down, the job stays down for the rest of the run
  std::vector<double> resistance(n, 0.03);
  resistance[7] = 0.5;  // even the lowest clock cannot hold it below 92 degC
  Rig rig(n, w, resistance, 400.0);
  REQUIRE(rig.status.finished());
  const double* d = rig.discrete.data();
  CHECK(rig.job->phase(d) == JobPhase::down);
  CHECK(rig.job->accounts(d).interruptions == 1.0);
  CHECK(rig.job->accounts(d).interruptions_by_category.back() == 1.0);  // "thermal"
  CHECK(rig.job->clock(d, 7) == 0.0);  // off
  for (std::size_t i = 0; i < n; i += 13)
    if (i != 7) CHECK((rig.job->reasons(d, i) & reason::gpu_idle) != 0u);
}

TEST_CASE("An injected crash interrupts the job at its time even with drawn interruptions off", "[workload][job]") {
  auto w = pod_job();
  w.interruptions.crash_time = 20.0;
  w.interruptions.detection_time = 5.0;
  w.interruptions.restart_time = 5.0;
  const std::size_t n = 128;
  std::vector<double> phases, times;
  Rig rig(n, w, std::vector<double>(n, 0.03), 30.0, 30.0 + kelvin, 1, 0.5,
          [&](const solver::System& system, double t, const std::vector<double>& out) {
            for (const auto& s : system.outputs())
              if (s.spec.group == "job" && s.spec.name == "phase") phases.push_back(out[s.first_value]);
            times.push_back(t);
          });
  REQUIRE(rig.status.finished());
  const auto a = rig.job->accounts(rig.discrete.data());
  CHECK(a.interruptions == 1.0);
  CHECK(a.interruptions_by_category[2] == 1.0);  // "software"
  // Down (GPUs idle) from 20 s for detection + restart, then the reload.
  for (std::size_t k = 0; k < times.size(); ++k) {
    if (times[k] < 20.0) CHECK(phases[k] != static_cast<double>(JobPhase::down));
    if (times[k] >= 20.0 && times[k] < 30.0) CHECK(phases[k] == static_cast<double>(JobPhase::down));
  }
}

TEST_CASE("An update sums the GPUs' power per group as the feed would, and only for its own time",
          "[workload][job][groups]") {
  // 128 GPUs (one model replica) in groups of 48 (the last holds 32), one hot enough to throttle,
  // 60 s into the job. An update at the final state sums P + L(T_j) per block and group; the
  // sums over the blocks must equal each group's GPUs summed one by one, and they are offered
  // only at the update's own time.
  const std::size_t n = 128, size = 48;
  std::vector<double> resistance(n, 0.03);
  resistance[60] = 0.20;
  Rig rig(n, pod_job(), resistance, 60.0);
  REQUIRE(rig.status.finished());
  TrainingJob& job = *rig.job;
  const double t = 60.0;
  CHECK(job.power_by_group(t) == nullptr);  // no groups asked for
  job.sum_power_by_group(size);
  std::vector<double> next = rig.discrete;
  job.update_discrete(solver::EvalContext{t, t, rig.discrete.data()}, rig.state.data(), next.data());
  const TrainingJob::GroupPowerSums* sums = job.power_by_group(t);
  REQUIRE(sums != nullptr);
  CHECK(job.power_by_group(t + 0.1) == nullptr);
  std::vector<double> by_group(3, 0.0);
  for (const auto& block : *sums) {
    if (block.empty()) continue;  // blocks without GPUs
    REQUIRE(block.size() == 3);
    for (std::size_t g = 0; g < 3; ++g) by_group[g] += block[g];
  }
  const solver::EvalContext ctx{t, t, next.data()};
  std::vector<double> expected(3, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double tj = rig.state[static_cast<std::size_t>(rig.gpus->junction_index(i))];
    expected[i / size] += job.power(i, ctx) + rig.gpus->leakage_power(i, tj);
  }
  for (std::size_t g = 0; g < 3; ++g) CHECK(by_group[g] == Approx(expected[g]).epsilon(1e-12));
  CHECK(expected[0] > 48 * 100.0);  // working GPUs, not idle ones
  CHECK(job.reasons(next.data(), 60) != 0u);  // the hot GPU throttles: not every GPU at rest
}

TEST_CASE("An update's power sums hold whether its governors stay at rest or move a clock", "[workload][job][groups]") {
  // 128 cool GPUs 60 s into the job: every governor is at rest and the update keeps the sums its
  // pass formed; then one junction is put above T_max,op, its governor lowers the clock, the gate
  // ratio moves and the sums are formed again. Both times they must equal the GPUs one by one.
  const std::size_t n = 128, size = 32;
  Rig rig(n, pod_job(), std::vector<double>(n, 0.03), 60.0);
  REQUIRE(rig.status.finished());
  TrainingJob& job = *rig.job;
  job.sum_power_by_group(size);
  const double t = 60.0;
  auto check_sums = [&](const std::vector<double>& state, const std::vector<double>& next) {
    const TrainingJob::GroupPowerSums* sums = job.power_by_group(t);
    REQUIRE(sums != nullptr);
    std::vector<double> by_group(n / size, 0.0), expected(n / size, 0.0);
    for (const auto& block : *sums)
      for (std::size_t g = 0; g < block.size(); ++g) by_group[g] += block[g];
    const solver::EvalContext ctx{t, t, next.data()};
    for (std::size_t i = 0; i < n; ++i) {
      const double tj = state[static_cast<std::size_t>(rig.gpus->junction_index(i))];
      if (job.powered(i, ctx)) expected[i / size] += job.power(i, ctx) + rig.gpus->leakage_power(i, tj);
    }
    for (std::size_t g = 0; g < by_group.size(); ++g) CHECK(by_group[g] == Approx(expected[g]).epsilon(1e-12));
    return expected;
  };

  std::vector<double> next = rig.discrete;
  CHECK_FALSE(job.update_discrete(solver::EvalContext{t, t, rig.discrete.data()}, rig.state.data(), next.data()));
  const std::vector<double> at_rest = check_sums(rig.state, next);
  CHECK(job.same_power(rig.discrete.data(), next.data()));
  CHECK_FALSE(job.power_inputs_changed_at(t));  // the feed's knot may skip the comparison

  std::vector<double> hot = rig.state;
  hot[static_cast<std::size_t>(rig.gpus->junction_index(100))] = 89.0 + kelvin;  // above 87 degC, below shutdown
  next = rig.discrete;
  CHECK(job.update_discrete(solver::EvalContext{t, t, rig.discrete.data()}, hot.data(), next.data()));
  CHECK(job.clock(next.data(), 100) < job.clock(rig.discrete.data(), 100));
  CHECK(job.powered(100, solver::EvalContext{t, t, next.data()}));
  CHECK_FALSE(job.same_power(rig.discrete.data(), next.data()));
  CHECK(job.power_inputs_changed_at(t));
  CHECK_FALSE(job.power_inputs_changed_at(t + 0.1));
  const std::vector<double> moved = check_sums(hot, next);
  CHECK(moved[100 / size] < at_rest[100 / size]);  // the hot GPU draws less at its lower clock
}

TEST_CASE("The job rests over bounds exactly where its update would rest at those temperatures", "[workload][job]") {
  // 128 cool GPUs 60 s into the job. rests_over() takes upper bounds of T_j and T_hbm over an
  // interval; it may say true only where the update, at any temperatures up to the bounds, would
  // keep every governor at rest. One GPU's junction is swept through the limits: wherever
  // rests_over says true, the update at that temperature changes nothing; and it says false from
  // the first temperature at which the update acts.
  const std::size_t n = 128;
  Rig rig(n, pod_job(), std::vector<double>(n, 0.03), 60.0);
  REQUIRE(rig.status.finished());
  const TrainingJob& job = *rig.job;
  const double t = 60.0;
  const solver::EvalContext ctx{t, t, rig.discrete.data()};
  CHECK(job.rests_over(ctx, rig.state.data()));
  const auto j = static_cast<std::size_t>(rig.gpus->junction_index(17));
  double first_acting = std::numeric_limits<double>::quiet_NaN(), last_resting = -1.0;
  for (double tj = 70.0 + kelvin; tj < 95.0 + kelvin; tj += 0.005) {
    std::vector<double> x = rig.state;
    x[j] = tj;
    std::vector<double> next = rig.discrete;
    const bool changed = job.update_discrete(ctx, x.data(), next.data());
    const bool acted = changed || job.clock(next.data(), 17) != job.clock(rig.discrete.data(), 17) ||
                       job.reasons(next.data(), 17) != job.reasons(rig.discrete.data(), 17);
    if (acted && std::isnan(first_acting)) first_acting = tj;
    if (job.rests_over(ctx, x.data())) {
      INFO("T_j = " << tj - kelvin << " degC");
      CHECK_FALSE(acted);
      last_resting = tj;
    }
  }
  REQUIRE(std::isfinite(first_acting));
  INFO("rests up to " << last_resting - kelvin << " degC; the update acts from " << first_acting - kelvin << " degC");
  CHECK(last_resting < first_acting);
  CHECK(first_acting - last_resting < 0.02);  // not far below: the same limits
  // HBM above its limit, or a bound that is not a number: no rest.
  std::vector<double> x = rig.state;
  x[static_cast<std::size_t>(rig.gpus->hbm_index(3))] = 120.0 + kelvin;
  CHECK_FALSE(job.rests_over(ctx, x.data()));
  x = rig.state;
  x[j] = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(job.rests_over(ctx, x.data()));
  // With power smoothing the ticks rebase ramps: never at rest.
  WorkloadParameters smoothed = pod_job();
  smoothed.smoothing.enabled = true;
  Rig ramps(n, smoothed, std::vector<double>(n, 0.03), 20.0);
  REQUIRE(ramps.status.finished());
  CHECK_FALSE(ramps.job->rests_over(solver::EvalContext{20.0, 20.0, ramps.discrete.data()}, ramps.state.data()));
}

TEST_CASE("same_power compares the phase, gate ratio and every GPU's clock, state and ramp", "[workload][job]") {
  const std::size_t n = 2048;  // long enough for the comparison to run in blocks
  WorkloadParameters w = pod_job();
  w.smoothing.enabled = true;
  Rig rig(n, w, std::vector<double>(n, 0.03), 1.0);
  REQUIRE(rig.status.finished());
  const TrainingJob& job = *rig.job;
  auto slot = [&](const std::string& name, std::size_t i) {
    const auto& groups = job.discrete_groups();
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (groups[g].name == name)
        return static_cast<std::size_t>(job.discrete_index(static_cast<int>(g), static_cast<solver::Index>(i)));
    FAIL("no discrete group " << name);
    return std::size_t{0};
  };
  const std::vector<double>& d = rig.discrete;
  std::vector<double> e = d;
  CHECK(job.same_power(d.data(), e.data()));
  // One entry at a time, of the first, a middle and the last GPU: each makes the powers differ.
  for (const std::size_t gpu : {std::size_t{0}, n / 2 + 3, n - 1}) {
    for (const std::string group : {"sm_clock", "shut_down", "ramp_origin", "ramp_start"}) {
      e = d;
      e[slot(group, gpu)] += 1.0;
      CHECK_FALSE(job.same_power(d.data(), e.data()));
    }
  }
  for (const std::string group : {"phase", "gate_ratio"}) {
    e = d;
    e[slot(group, 0)] += 1.0;
    CHECK_FALSE(job.same_power(d.data(), e.data()));
  }
}

namespace {

/// The GPUs' commanded power (without leakage) after each knot of a run of `duration` seconds:
/// a staircase, constant from each knot to the next.
struct PowerStaircase {
  std::vector<double> times, power, compute_gpus, communication_gpus;
  std::vector<JobPhase> job_phase;
};

PowerStaircase power_staircase(std::size_t n, const WorkloadParameters& w, double duration) {
  PowerStaircase out;
  auto knot = [&](const TrainingJob& job, double t, const std::vector<double>& d) {
    const solver::EvalContext ctx{t, t, d.data()};
    double total = 0.0, computing = 0.0, communicating = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      total += job.power(i, ctx);
      computing += job.gpu_phase(d.data(), i) == JobPhase::compute ? 1.0 : 0.0;
      communicating += job.gpu_phase(d.data(), i) == JobPhase::communication ? 1.0 : 0.0;
    }
    if (out.times.empty() || out.times.back() != t) {
      out.times.push_back(t);
      out.power.push_back(0.0);
      out.compute_gpus.push_back(0.0);
      out.communication_gpus.push_back(0.0);
      out.job_phase.push_back(JobPhase::idle);
    }
    out.power.back() = total;
    out.compute_gpus.back() = computing;
    out.communication_gpus.back() = communicating;
    out.job_phase.back() = job.phase(d.data());
  };
  const Rig rig(n, w, std::vector<double>(n, 0.03), duration, 30.0 + kelvin, 1, 0.0, SampleFn{}, knot);
  REQUIRE(rig.status.finished());
  return out;
}

/// The times stage 0 (the job's phase) enters compute: the step starts.
std::vector<double> step_starts(const PowerStaircase& s) {
  std::vector<double> starts;
  for (std::size_t k = 1; k < s.times.size(); ++k)
    if (s.job_phase[k] == JobPhase::compute && s.job_phase[k - 1] != JobPhase::compute) starts.push_back(s.times[k]);
  return starts;
}

/// The integral of the staircase over [a, b] [J].
double energy_between(const PowerStaircase& s, double a, double b) {
  double e = 0.0;
  for (std::size_t k = 0; k < s.times.size(); ++k) {
    const double from = std::max(a, s.times[k]);
    const double to = std::min(b, k + 1 < s.times.size() ? s.times[k + 1] : b);
    if (to > from) e += s.power[k] * (to - from);
  }
  return e;
}

}  // namespace

TEST_CASE("Staggered stages keep the step time and the energy per step of the unstaggered plan",
          "[workload][job][stagger]") {
  // 256 GPUs: TP 8, PP 16, DP 2; cool GPUs at the top clock. Stage 0's phase machine is the job's
  // either way, so the step edges are bit for bit those of the unstaggered run; every stage spends
  // T_c, T_b, T_x and T_o per step, so the energy of a step (from one step start to the next)
  // agrees to rounding (1e-9 relative: sums over ~100 pieces of the staircase).
  const std::size_t n = 256;
  WorkloadParameters on = pod_job();
  on.job.pipeline_stagger = true;
  WorkloadParameters off = pod_job();
  off.job.pipeline_stagger = false;
  const double duration = 20.0;
  const PowerStaircase staggered = power_staircase(n, on, duration);
  const PowerStaircase together = power_staircase(n, off, duration);
  const auto starts_on = step_starts(staggered), starts_off = step_starts(together);
  REQUIRE(starts_on.size() >= 2);
  REQUIRE(starts_on == starts_off);
  const models::workload::StepPlan plan = models::workload::plan_step(on.job, n, "job");
  CHECK(starts_on[1] - starts_on[0] == Approx(plan.step_time()).epsilon(1e-12));
  for (std::size_t k = 0; k + 1 < starts_on.size(); ++k) {
    const double a = starts_on[k], b = starts_on[k + 1];
    CHECK(energy_between(staggered, a, b) == Approx(energy_between(together, a, b)).epsilon(1e-9));
  }
  // The stagger adds edges: each stage but stage 0 changes phase five times per step on its own.
  CHECK(staggered.times.size() > together.times.size() + 5 * 15);
}

TEST_CASE("The hall's compute edges rise and fall over (S - 1) t_f", "[workload][job][stagger]") {
  // Stage s starts its compute s t_f after stage 0 and ends it s t_f after it: the number of GPUs
  // in compute rises from 0 to all of them in (S - 1) t_f, one stage (TP CP = 8 GPUs per pipeline,
  // DP = 2 pipelines: 16 GPUs) every t_f, and falls the same way T_c later. The total power is
  // monotone over each edge; without the stagger it jumps at one instant.
  const std::size_t n = 256;
  WorkloadParameters w = pod_job();
  w.job.pipeline_stagger = true;
  const models::workload::StepPlan plan = models::workload::plan_step(w.job, n, "job");
  const double tf = plan.stage_forward_time, tb = plan.stage_backward_time;
  const PowerStaircase s = power_staircase(n, w, 14.0);
  const auto starts = step_starts(s);
  REQUIRE(starts.size() >= 1);
  const double t0 = starts[0];
  // Compute starts: the first knot with any compute GPU is t0; all of them at t0 + 15 t_f.
  double first_all = -1.0, first_fall = -1.0, last_fall = -1.0;
  for (std::size_t k = 0; k < s.times.size(); ++k) {
    if (s.times[k] < t0) continue;
    if (first_all < 0.0 && s.compute_gpus[k] == static_cast<double>(n)) first_all = s.times[k];
    if (first_all >= 0.0 && first_fall < 0.0 && s.compute_gpus[k] < static_cast<double>(n)) first_fall = s.times[k];
    if (first_fall >= 0.0 && last_fall < 0.0 && s.compute_gpus[k] == 0.0) last_fall = s.times[k];
  }
  CHECK(first_all - t0 == Approx(15.0 * tf).margin(1e-9));
  CHECK(first_fall - t0 == Approx(plan.compute_time).margin(1e-9));
  CHECK(last_fall - first_fall == Approx(15.0 * tf).margin(1e-9));
  // One stage per t_f: 16 GPUs each time.
  for (std::size_t k = 0; k < s.times.size(); ++k) {
    if (s.times[k] < t0 || s.times[k] > first_all) continue;
    const double stages_started = std::floor((s.times[k] - t0) / tf + 1e-6) + 1.0;
    CHECK(s.compute_gpus[k] == 16.0 * std::min(stages_started, 16.0));
  }
  // The gradient reduction of stage s starts s t_b before stage 0's: the first GPUs leave the
  // bubble for communication 15 t_b before the job's communication phase.
  double job_communication = -1.0;
  for (std::size_t k = 0; k < s.times.size(); ++k)
    if (s.times[k] > t0 && job_communication < 0.0 && s.job_phase[k] == JobPhase::communication)
      job_communication = s.times[k];
  REQUIRE(job_communication > 0.0);
  CHECK(job_communication - t0 == Approx(plan.compute_time + plan.bubble_time).margin(1e-9));
  double first_communication = -1.0;
  for (std::size_t k = 0; k < s.times.size(); ++k)
    if (s.times[k] > t0 && first_communication < 0.0 && s.communication_gpus[k] > 0.0)
      first_communication = s.times[k];
  CHECK(job_communication - first_communication == Approx(15.0 * tb).margin(1e-9));
  // Over the rise the total power only grows.
  for (std::size_t k = 1; k < s.times.size(); ++k)
    if (s.times[k] > t0 && s.times[k] <= first_all) CHECK(s.power[k] >= s.power[k - 1]);
}
