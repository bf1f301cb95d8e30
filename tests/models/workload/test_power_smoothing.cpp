// GPU power smoothing and software fill: the ramp and its energy against hand integrals, the stretch
// of a clock-bound phase against its closed form, and a job on GPU packages that keeps its floor and
// ramp limits, pays for them in step time and energy, and refuses bad settings with located messages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/power_smoothing.hpp"
#include "dctwin/models/workload/training_job.hpp"
#include "dctwin/solver/simulator.hpp"
#include "dctwin/solver/system.hpp"

using namespace dctwin;
using models::workload::PowerSmoothingParameters;
using models::workload::TrainingJob;
using models::workload::WorkloadParameters;

namespace {

constexpr double kelvin = 273.15;

PowerSmoothingParameters profile() {
  PowerSmoothingParameters p;
  p.enabled = true;
  p.floor_fraction = 0.5;
  p.ramp_up_rate = 1000.0;
  p.ramp_down_rate = 500.0;
  p.ramp_down_hysteresis = 0.2;
  return p;
}

/// Midpoint rule with many panels: a reference for the exact piecewise-linear integral.
double numeric_energy(const PowerSmoothingParameters& p, double origin, double target, double a, double b) {
  const int n = 200000;
  const double h = (b - a) / n;
  double sum = 0.0;
  for (int k = 0; k < n; ++k) sum += models::workload::smoothed_power(p, origin, target, a + (k + 0.5) * h);
  return sum * h;
}

/// Coolant at a fixed temperature behind a fixed resistance (an ideal cold plate).
class FixedCoolant final : public solver::Component, public models::thermal::GpuEnvironment {
 public:
  explicit FixedCoolant(double temperature) : Component("coolant"), temperature_(temperature) {
    state_ = declare_state_group({"temperature", "K", "coolant temperature", 1});
  }
  [[nodiscard]] std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t) const override {
    return {{{index(state_), 1.0}, {index(state_), 0.0}}};
  }
  [[nodiscard]] double environment_resistance(std::size_t, const solver::EvalContext&) const override { return 0.03; }
  void initial_state(double* x) const override { x[index(state_)] = temperature_; }
  void derivatives(const solver::EvalContext&, const double*, double*) const override {}
  void jacobian_pattern(solver::PatternSink&) const override {}
  void jacobian(const solver::EvalContext&, const double*, solver::JacobianSink&) const override {}

 private:
  double temperature_;
  int state_ = 0;
};

/// Total GPU power sampled every `interval`, and the final discrete state.
struct Trace final : solver::SimulationObserver {
  std::size_t slot = 0;
  std::vector<double> time, power;
  void on_sample(double t, const std::vector<double>&, const std::vector<double>& out) override {
    time.push_back(t);
    power.push_back(out[slot]);
  }
};

struct Run {
  std::vector<double> time, power, discrete;
  std::vector<core::SummaryFigure> summary;
  double step_time = 0.0;
  bool finished = false;
  [[nodiscard]] double figure(const std::string& name) const {
    for (const auto& f : summary)
      if (f.name == name) return f.value;
    return std::nan("");
  }
};

/// Eight GPUs as one tensor-parallel group of a small job, on cold coolant.
WorkloadParameters small_job() {
  WorkloadParameters w;
  w.job.timing = "given";
  w.job.compute_time = 1.0;
  w.job.exposed_communication_time = 0.5;
  w.job.optimizer_time = 0.2;
  w.job.tensor_parallel = 8;
  w.job.pipeline_parallel = 1;
  w.checkpoint.enabled = false;
  w.interruptions.enabled = false;
  return w;
}

Run simulate(const WorkloadParameters& w, double duration) {
  const std::size_t n = 8;
  models::thermal::GpuPackageParameters package;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < n; ++i) labels.push_back("gpu" + std::to_string(i));
  solver::System system;
  auto g = std::make_unique<models::thermal::GpuPackageArray>("gpus", package, std::vector<models::thermal::GpuSpread>(n),
                                                              labels, 30.0 + kelvin);
  auto c = std::make_unique<FixedCoolant>(30.0 + kelvin);
  auto j = std::make_unique<TrainingJob>("job", w, *g, duration, 1, "workload");
  g->connect(*c);
  g->connect(*j);
  system.add(std::move(g));
  system.add(std::move(c));
  auto& job = system.add(std::move(j));
  system.assemble();
  solver::SimulationSettings settings;
  settings.end_time = duration;
  settings.output_interval = 0.005;
  solver::Simulator simulator(system, settings);
  Trace trace;
  for (const auto& s : system.outputs())
    if (s.spec.group == "gpu" && s.spec.name == "total_power") trace.slot = s.first_value;
  Run run;
  const auto status = simulator.run(trace);
  run.finished = status.finished();
  if (!run.finished) WARN(status.describe());
  run.time = trace.time;
  run.power = trace.power;
  run.discrete = simulator.final_discrete();
  run.summary = job.summary(run.discrete.data(), duration);
  const double steps = job.accounts(run.discrete.data()).steps_completed;
  run.step_time = steps > 0.0 ? job.plan().step_time() : 0.0;
  return run;
}

}  // namespace

TEST_CASE("A smoothing ramp rises and falls at its rates, after the hold, and its energy is exact",
          "[workload][smoothing]") {
  const auto p = profile();
  using models::workload::smoothed_power;
  // Rising from 200 W to 600 W at 1000 W/s: 0.4 s.
  CHECK(smoothed_power(p, 200.0, 600.0, 0.0) == 200.0);
  CHECK(smoothed_power(p, 200.0, 600.0, 0.1) == Approx(300.0).epsilon(1e-12));
  CHECK(smoothed_power(p, 200.0, 600.0, 0.5) == 600.0);
  // Falling from 600 W to 300 W: held 0.2 s, then 500 W/s for 0.6 s.
  CHECK(smoothed_power(p, 600.0, 300.0, 0.19) == 600.0);
  CHECK(smoothed_power(p, 600.0, 300.0, 0.4) == Approx(500.0).epsilon(1e-12));
  CHECK(smoothed_power(p, 600.0, 300.0, 1.0) == 300.0);
  // Energy over windows that start and end on either side of the kinks.
  for (const auto& [origin, target] : {std::pair{200.0, 600.0}, std::pair{600.0, 300.0}, std::pair{400.0, 400.0}})
    for (const auto& [a, b] : {std::pair{0.0, 2.0}, std::pair{0.05, 0.3}, std::pair{0.3, 0.7}, std::pair{0.9, 1.3}}) {
      CAPTURE(origin, target, a, b);
      CHECK(models::workload::smoothed_energy(p, origin, target, a, b) ==
            Approx(numeric_energy(p, origin, target, a, b)).epsilon(1e-9));
    }
  // Closed form: falling 600 -> 300 over [0, 2]: 600 x 0.2 + (600 + 300) / 2 x 0.6 + 300 x 1.2.
  CHECK(models::workload::smoothed_energy(p, 600.0, 300.0, 0.0, 2.0) == Approx(120.0 + 270.0 + 360.0).epsilon(1e-12));
}

TEST_CASE("A rising ramp stretches a clock-bound phase by tau (1 - phi0) / 2", "[workload][smoothing]") {
  const auto p = profile();
  const double p_static = 55.0;
  // From 255 W to 655 W: tau = 0.4 s, phi0 = 200 / 600 = 1/3; stretch 0.4 x (2/3) / 2.
  CHECK(models::workload::stretched_phase_time(p, 3.0, 255.0, 655.0, p_static) ==
        Approx(3.0 + 0.4 / 3.0).epsilon(1e-12));
  // A phase shorter than the ramp: phi0 T' + (1 - phi0) T'^2 / (2 tau) = T.
  const double t = 0.05;
  const double stretched = models::workload::stretched_phase_time(p, t, 255.0, 655.0, p_static);
  CHECK(stretched / 3.0 + (2.0 / 3.0) * stretched * stretched / (2.0 * 0.4) == Approx(t).epsilon(1e-12));
  CHECK(stretched < 0.4);
  // Falling power, or smoothing off: no stretch.
  CHECK(models::workload::stretched_phase_time(p, 3.0, 655.0, 255.0, p_static) == 3.0);
  auto off = p;
  off.enabled = false;
  CHECK(models::workload::stretched_phase_time(off, 3.0, 255.0, 655.0, p_static) == 3.0);
}

TEST_CASE("A smoothed job keeps its floor and ramp limits and pays in step time and energy", "[workload][smoothing]") {
  auto plain = small_job();
  const double duration = 20.0;
  const Run base = simulate(plain, duration);
  REQUIRE(base.finished);
  auto smooth = plain;
  smooth.smoothing = profile();
  const Run run = simulate(smooth, duration);
  REQUIRE(run.finished);
  const double n = 8.0;
  const double floor = n * 0.5 * smooth.power.power_limit;
  // Leakage comes on top of the smoothed power, so the total never drops below the floor.
  CHECK(*std::min_element(run.power.begin(), run.power.end()) >= floor);
  CHECK(*std::min_element(base.power.begin(), base.power.end()) < floor);
  // Rates between samples: the ramp limits plus the leakage drift (a few W/s).
  double up = 0.0, down = 0.0, base_up = 0.0;
  for (std::size_t k = 1; k < run.power.size(); ++k) {
    const double rate = (run.power[k] - run.power[k - 1]) / (run.time[k] - run.time[k - 1]);
    up = std::max(up, rate);
    down = std::max(down, -rate);
  }
  for (std::size_t k = 1; k < base.power.size(); ++k)
    base_up = std::max(base_up, (base.power[k] - base.power[k - 1]) / (base.time[k] - base.time[k - 1]));
  CHECK(up <= n * 1000.0 * 1.02);
  CHECK(down <= n * 500.0 * 1.02);
  CHECK(base_up > n * 10000.0);  // without smoothing the edges are steps
  // The ramp holds the compute phase back: fewer steps in the same time, and a lower MFU.
  CHECK(run.figure("steps_completed") <= base.figure("steps_completed"));
  CHECK(run.figure("mfu_mean") < base.figure("mfu_mean"));
  // The peak-to-peak power the job tracks at its updates is the smoothed one.
  CHECK(run.figure("gpu_total_power_peak_to_peak") > 0.0);
  CHECK(run.figure("gpu_total_power_peak_to_peak") < base.figure("gpu_total_power_peak_to_peak"));
  // The floor and the hold burn energy above the work's demand.
  CHECK(run.figure("gpu_smoothing_energy") > 0.0);
  CHECK(base.figure("gpu_smoothing_energy") == 0.0);
}

TEST_CASE("Software fill raises the communication power and costs energy, not time", "[workload][smoothing]") {
  auto plain = small_job();
  const double duration = 20.0;
  const Run base = simulate(plain, duration);
  auto fill = plain;
  fill.smoothing.fill_enabled = true;
  fill.smoothing.fill_activity = 0.6;
  const Run run = simulate(fill, duration);
  REQUIRE(run.finished);
  // The dip is now the optimizer phase (activity 0.35), not communication (0.25).
  CHECK(*std::min_element(run.power.begin(), run.power.end()) >
        *std::min_element(base.power.begin(), base.power.end()) + 8.0 * 50.0);
  CHECK(run.figure("steps_completed") == base.figure("steps_completed"));
  CHECK(run.figure("gpu_smoothing_energy") > 0.0);
}

TEST_CASE("Bad smoothing settings are refused with located messages", "[workload][smoothing]") {
  auto expect = [](PowerSmoothingParameters p, const std::string& message) {
    auto w = small_job();
    w.smoothing = p;
    std::vector<std::string> labels(8, "gpu");
    models::thermal::GpuPackageArray gpus("gpus", {}, std::vector<models::thermal::GpuSpread>(8), labels, 300.0);
    try {
      TrainingJob job("job", w, gpus, 10.0, 1, "workload");
      FAIL("accepted");
    } catch (const core::InputError& e) {
      CHECK(std::string(e.what()) == message);
    }
  };
  auto p = profile();
  p.ramp_up_rate = 0.0;
  expect(p, "workload.power_smoothing.ramp_up_rate = 0 W/s (must be > 0)");
  p = profile();
  p.floor_fraction = 1.2;
  expect(p, "workload.power_smoothing.floor_fraction = 1.2 (must be in [0, 1])");
  p = profile();
  p.ramp_down_hysteresis = -0.1;
  expect(p, "workload.power_smoothing.ramp_down_hysteresis = -0.1 s (must be >= 0)");
}
