#include "dctwin/models/workload/training_job.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <limits>
#include <utility>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::workload {

using solver::Index;

namespace {
constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double seconds_per_hour = 3600.0;
/// The most interruptions a run may expect (rates x run length). Drawn up front and kept, each is
/// an entry in memory and an event in the report: the Llama 3 hall expects ~4,000 in a year, and
/// a rate or a duration a million times too large would otherwise fill the memory before the run.
constexpr double max_expected_interruptions = 1e6;
/// Reasons that mean "slower than the work asks for" (power and thermal), for throttled time.
constexpr std::uint32_t throttling_reasons = throttle_reason::sw_power_cap | throttle_reason::hw_slowdown |
                                             throttle_reason::sw_thermal_slowdown |
                                             throttle_reason::hw_thermal_slowdown;

bool training(JobPhase phase) {
  return phase == JobPhase::compute || phase == JobPhase::bubble || phase == JobPhase::communication ||
         phase == JobPhase::optimizer || phase == JobPhase::checkpoint;
}
}  // namespace

// ---- the workload section ---------------------------------------------------------------------------

core::SectionSchema WorkloadParameters::schema() {
  using namespace core;
  SectionSchema s;
  s.doc = "The training job, its checkpoints and interruptions, and the GPUs' power model and DVFS governor";
  auto p = real_parameter("start_time", "s", "When the job is launched; the GPUs idle before", 0.0);
  s.parameters.push_back(at_least(p, 0.0));
  p = real_parameter("startup_time", "s", "Initialisation after launch (GPUs busy at stall activity) before the first step",
                     0.0, "Estimate: loading the model and the first checkpoint takes seconds to minutes");
  s.parameters.push_back(at_least(p, 0.0));
  p = real_parameter("stop_time", "s", "When the job ends (GPUs idle after); 0 = it runs to the end of the run", 0.0);
  s.parameters.push_back(at_least(p, 0.0));
  s.parameters.push_back(choice_parameter(
      "on_gpu_shutdown", {"end_run", "restart_job"},
      "end_run: a GPU at its shutdown temperature ends the run (a protection trip, exit 3); restart_job: "
      "the GPU shuts down, the job is interrupted and restarts once its node is replaced",
      std::string("end_run")));
  s.sections["job"] = SectionSchema{"The training step: model, batch, parallelism, phase activities",
                                    TrainingJobParameters::table(), {}, {}, false};
  s.sections["checkpoint"] = SectionSchema{"Synchronous checkpoints", CheckpointParameters::table(), {}, {}, false};
  s.sections["failures"] = SectionSchema{"Interruptions drawn at the published Llama 3 rates",
                                         InterruptionParameters::table(), {}, {}, false};
  s.sections["gpu_power"] = SectionSchema{"GPU board power: static, dynamic (activity, clock, voltage)",
                                          GpuPowerParameters::table(), {}, {}, false};
  s.sections["governor"] = SectionSchema{"DVFS governor: power cap, thermal slowdown, hardware slowdown",
                                         DvfsGovernorParameters::table(), {}, {}, false};
  s.sections["power_smoothing"] =
      SectionSchema{"GPU power smoothing (floor, ramp limits, hysteresis) and software fill during communication",
                    PowerSmoothingParameters::table(), {}, {}, false};
  return s;
}

WorkloadParameters WorkloadParameters::from(const core::ParameterTree& s) {
  WorkloadParameters p;
  p.job = TrainingJobParameters::from(s.section("job"));
  p.checkpoint = CheckpointParameters::from(s.section("checkpoint"));
  p.interruptions = InterruptionParameters::from(s.section("failures"));
  p.power = GpuPowerParameters::from(s.section("gpu_power"));
  p.governor = DvfsGovernorParameters::from(s.section("governor"));
  p.smoothing = PowerSmoothingParameters::from(s.section("power_smoothing"));
  p.start_time = s.number("start_time");
  p.startup_time = s.number("startup_time");
  p.stop_time = s.number("stop_time");
  p.on_gpu_shutdown = s.text("on_gpu_shutdown");
  return p;
}

// ---- construction -------------------------------------------------------------------------------------

namespace {
GpuThermalLimits limits_of(const thermal::GpuPackageParameters& g) {
  return {g.max_operating_temperature, g.hw_slowdown_temperature, g.shutdown_temperature,
          g.hbm_max_operating_temperature};
}

/// The power model and governor name their errors after their own tables ("gpu_power",
/// "dvfs_governor"); in a scenario they are `<workload>.gpu_power` and `<workload>.governor`.
std::string in_scenario(const std::string& text, const std::string& section_path) {
  for (const auto& [own, key] : {std::pair<std::string, std::string>{"gpu_power", "gpu_power"},
                                 std::pair<std::string, std::string>{"dvfs_governor", "governor"}})
    if (text.rfind(own, 0) == 0) return section_path + "." + key + text.substr(own.size());
  return text;
}

DvfsGovernor make_governor(const WorkloadParameters& p, const thermal::GpuPackageParameters& package,
                           const std::string& section_path) {
  try {
    return DvfsGovernor(p.governor, GpuPowerModel(p.power), limits_of(package));
  } catch (const core::InputError& e) {
    throw core::InputError(in_scenario(e.what(), section_path), in_scenario(e.key_path(), section_path));
  }
}
}  // namespace

TrainingJob::TrainingJob(std::string name, const WorkloadParameters& parameters, const thermal::GpuPackageArray& gpus,
                         double horizon, std::uint64_t seed, const std::string& section_path)
    : Component(std::move(name)),
      p_(parameters),
      gpus_(gpus),
      plan_(plan_step(parameters.job, gpus.count(), section_path + ".job")),
      governor_(make_governor(parameters, gpus.parameters(), section_path)) {
  if (p_.stop_time > 0.0 && p_.stop_time <= p_.start_time)
    throw core::InputError(section_path + ".stop_time must be later than " + section_path + ".start_time",
                             section_path + ".stop_time");
  p_.smoothing.check(section_path + ".power_smoothing");
  commanded_memo_.assign(2 * gpus.count(), CommandedPower{});
  stall_time_ = p_.checkpoint.stall_time(p_.job.model_parameters);
  reload_time_ = p_.checkpoint.size_bytes(p_.job.model_parameters) / p_.interruptions.read_bandwidth;
  classes_ = workload::interruption_classes(p_.interruptions);
  if (p_.interruptions.enabled) {
    const auto rates = interruption_rates(p_.interruptions, classes_, gpus.count());
    double per_second = 0.0;
    for (const double rate : rates) per_second += rate;
    if (per_second * horizon > max_expected_interruptions) {
      const std::string key = section_path + ".failures.rate_scale";
      char text[512];
      std::snprintf(text, sizeof text,
                    "%s = %g (%.3g interruptions expected in %g s of run; must be at most %.0f: lower it or the "
                    "run's duration)",
                    key.c_str(), p_.interruptions.rate_scale, per_second * horizon, horizon,
                    max_expected_interruptions);
      throw core::InputError(text, key);
    }
    interruptions_ = draw_interruptions(rates, gpus.count(), horizon, seed);
  }
  if (p_.interruptions.crash_time > 0.0) {
    // The injected crash, in time order among the drawn ones.
    classes_.push_back({"injected_crash", "software", 0.0});
    const Interruption crash{p_.interruptions.crash_time, classes_.size() - 1, 0};
    interruptions_.insert(std::upper_bound(interruptions_.begin(), interruptions_.end(), crash,
                                           [](const Interruption& a, const Interruption& b) { return a.time < b.time; }),
                          crash);
  }
  classes_.push_back({"gpu_thermal_shutdown", "thermal", 0.0});

  const auto n = static_cast<Index>(gpus.count());
  stages_ = plan_.staggered_stages;
  gpu_stage_.resize(gpus.count());
  for (std::size_t i = 0; i < gpus.count(); ++i) gpu_stage_[i] = static_cast<std::uint32_t>(plan_.stage_of(i));
  clock_ = declare_discrete_group({"sm_clock", "Hz", "GPU SM clock", n});
  reasons_ = declare_discrete_group({"throttle_reasons", "1", "NVML clock-event reasons", n});
  ceiling_ = declare_discrete_group({"thermal_ceiling", "Hz", "software thermal clock ceiling", n});
  off_ = declare_discrete_group({"shut_down", "1", "1 while the GPU is shut down", n});
  phase_ = declare_discrete_group({"phase", "1", "job phase", 1});
  phase_end_ = declare_discrete_group({"phase_end", "s", "predicted end of the phase", 1});
  work_left_ = declare_discrete_group({"work_left", "s", "nominal time left in the phase at the last regate", 1});
  last_regate_ = declare_discrete_group({"last_regate", "s", "time of the last gate change", 1});
  gate_ = declare_discrete_group({"gate_ratio", "1", "least clock ratio of the powered GPUs", 1});
  phase_work_ = declare_discrete_group({"phase_work", "s", "nominal work of the phase when it began", 1});
  stage_phase_ = declare_discrete_group({"stage_phase", "1", "phase of each pipeline stage", stages_});
  stage_next_ = declare_discrete_group({"stage_next_edge", "s", "next phase change of a stage between the job's", 1});
  step_start_ = declare_discrete_group({"step_start", "s", "start of the current step", 1});
  last_step_time_ = declare_discrete_group({"last_step_time", "s", "duration of the last completed step", 1});
  steps_ = declare_discrete_group({"steps_completed", "1", "steps completed", 1});
  steps_since_checkpoint_ = declare_discrete_group({"steps_since_checkpoint", "1", "steps since the last checkpoint", 1});
  steps_lost_ = declare_discrete_group({"steps_lost", "1", "completed steps lost to interruptions", 1});
  commit_time_ = declare_discrete_group({"commit_time", "s", "end of the last checkpoint (or resume)", 1});
  throttle_since_commit_ = declare_discrete_group({"throttle_since_commit", "h", "throttling loss since the commit", 1});
  outage_mark_ = declare_discrete_group({"outage_mark", "s", "start of the current down or reload phase", 1});
  next_interruption_ = declare_discrete_group({"next_interruption", "1", "index of the next drawn interruption", 1});
  interruptions_count_ = declare_discrete_group({"interruptions", "1", "interruptions so far", 1});
  checkpoints_ = declare_discrete_group({"checkpoints", "1", "checkpoints completed", 1});
  throttled_gpu_seconds_ = declare_discrete_group({"throttled_gpu_seconds", "s", "GPU-seconds throttled", 1});
  lost_throttle_ = declare_discrete_group({"lost_throttling", "h", "GPU-hours lost to throttling", 1});
  lost_checkpoint_ = declare_discrete_group({"lost_checkpoints", "h", "GPU-hours lost to checkpoints", 1});
  lost_failure_ = declare_discrete_group({"lost_failures", "h", "GPU-hours lost to interruptions", 1});
  power_min_ = declare_discrete_group({"gpu_power_min", "W", "least total GPU power at an update", 1});
  power_max_ = declare_discrete_group({"gpu_power_max", "W", "largest total GPU power at an update", 1});
  ramp_origin_ = declare_discrete_group({"ramp_origin", "W", "GPU power where its smoothing ramp started", n});
  ramp_start_ = declare_discrete_group({"ramp_start", "s", "time the GPU's smoothing ramp started", n});
  smoothing_energy_ = declare_discrete_group({"smoothing_energy", "J", "energy above the work's demand", 1});
  energy_mark_ = declare_discrete_group({"smoothing_energy_mark", "s", "time the smoothing energy is booked to", 1});
  by_category_ = declare_discrete_group({"interruptions_by_category", "1", "interruptions by category",
                                         static_cast<Index>(interruption_categories().size())});
  for (std::size_t k = 0; k < classes_.size(); ++k) (void)category_of(k);  // every class has a known category

  out_clock_ = declare_output({"gpu", "sm_clock", "Hz", "GPU SM clock", "gpu", n});
  out_reasons_ = declare_output({"gpu", "throttle_reasons", "1",
                                 "NVML clock-event reason bits (0x4 SwPowerCap, 0x8 HwSlowdown, 0x20 SwThermalSlowdown, "
                                 "0x40 HwThermalSlowdown, 0x1 GpuIdle)",
                                 "gpu", n});
  out_phase_ = declare_output({"job", "phase", "1",
                               "job phase: 0 idle, 1 startup, 2 compute, 3 bubble, 4 communication, 5 optimizer, "
                               "6 checkpoint, 7 down, 8 reload",
                               "", 1});
  out_step_time_ = declare_output({"job", "step_time", "s", "duration of the last completed step (NaN before the first)", "", 1});
  out_throughput_ = declare_output({"job", "throughput", "1/s",
                                    "training throughput of the last completed step [tokens/s]; 0 while the job is not training",
                                    "", 1});
  out_mfu_ = declare_output({"job", "mfu", "1", "model FLOPs utilisation of the last completed step; 0 while not training", "", 1});
  out_tflops_ = declare_output({"job", "achieved_flops_per_gpu", "1/s",
                                "model FLOP/s per GPU of the last completed step; 0 while not training", "", 1});
  out_gate_ = declare_output({"job", "gate_clock_ratio", "1", "least SM clock of the job's GPUs relative to the top clock", "", 1});
  out_steps_ = declare_output({"job", "steps_completed", "1", "steps completed (including those later lost)", "", 1});
  out_tokens_ = declare_output({"job", "tokens_trained", "1", "tokens of the steps that count (lost steps excluded)", "", 1});
  labels_ = gpus.labels();
}

// ---- discrete-state access ------------------------------------------------------------------------------

double& TrainingJob::slot(double* d, int group, std::size_t i) const {
  return d[discrete_index(group, static_cast<Index>(i))];
}

double TrainingJob::value(const double* d, int group, std::size_t i) const {
  return d[discrete_index(group, static_cast<Index>(i))];
}

JobPhase TrainingJob::phase(const double* d) const { return static_cast<JobPhase>(static_cast<int>(value(d, phase_))); }

double TrainingJob::clock(const double* d, std::size_t gpu) const { return value(d, clock_, gpu); }

std::uint32_t TrainingJob::reasons(const double* d, std::size_t gpu) const {
  return static_cast<std::uint32_t>(value(d, reasons_, gpu));
}

TrainingJob::PhaseSpec TrainingJob::phase_spec(JobPhase phase, bool mitigated) const {
  const auto& j = p_.job;
  const bool fill = mitigated && p_.smoothing.fill_enabled;
  switch (phase) {
    case JobPhase::idle: return {0.0, 0.0, 0.0, false};
    case JobPhase::startup: return {p_.startup_time, 0.0, j.stall_activity, true};
    case JobPhase::compute: return {plan_.compute_time, plan_.compute_bound_fraction, j.compute_activity, true};
    case JobPhase::bubble: return {plan_.bubble_time, plan_.compute_bound_fraction, j.bubble_activity, true};
    case JobPhase::communication:
      return {plan_.communication_time, 0.0,
              fill ? std::max(j.communication_activity, p_.smoothing.fill_activity) : j.communication_activity, true};
    case JobPhase::optimizer: return {plan_.optimizer_time, 0.0, j.optimizer_activity, true};
    case JobPhase::checkpoint: return {stall_time_, 0.0, j.stall_activity, true};
    case JobPhase::down: return {p_.interruptions.detection_time + p_.interruptions.restart_time, 0.0, 0.0, false};
    case JobPhase::reload: return {reload_time_, 0.0, j.stall_activity, true};
    case JobPhase::averaged: return {0.0, 0.0, mean_activity(), true};
  }
  return {};
}

double TrainingJob::mean_activity() const {
  const auto& j = p_.job;
  double time = plan_.step_time(), integral = plan_.compute_time * j.compute_activity +
                                              plan_.bubble_time * j.bubble_activity +
                                              plan_.communication_time * j.communication_activity +
                                              plan_.optimizer_time * j.optimizer_activity;
  if (p_.checkpoint.enabled) {
    const double share = 1.0 / static_cast<double>(p_.checkpoint.interval_steps);
    time += share * stall_time_;
    integral += share * stall_time_ * j.stall_activity;
  }
  return time > 0.0 ? integral / time : j.compute_activity;
}

void TrainingJob::averaged_discrete(double* d) const {
  if (phase(d) != JobPhase::compute) return;  // a job that starts later starts from idle GPUs
  slot(d, phase_) = static_cast<double>(static_cast<int>(JobPhase::averaged));
  slot(d, gate_) = 1.0;
  update_stage_phases(0.0, d);
  start_ramps_settled(d);
}

double TrainingJob::gate_ratio(const double* d) const {
  // min_i (f_i / f_max) over the powered GPUs, as (min_i f_i) / f_max: dividing by a positive
  // number keeps the order (rounding included), so the least quotient is the quotient of the
  // least clock, with one division instead of one per GPU; the minimum in a pass without
  // branches, block by block.
  const double* off = d + discrete_index(off_);
  const double* clock = d + discrete_index(clock_);
  constexpr double none = std::numeric_limits<double>::infinity();
  solver::BlockSums block_least{};
  solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
    double least = none;
    for (std::size_t i = block.first; i < block.last; ++i) least = std::min(least, off[i] == 0.0 ? clock[i] : none);
    block_least[block.block] = least;
  });
  const double least = *std::min_element(block_least.begin(), block_least.end());
  return least == none ? 1.0 : std::min(1.0, least / p_.power.max_clock);
}

double TrainingJob::activity(const double* d, std::size_t gpu, bool mitigated) const {
  const PhaseSpec spec = phase_spec(gpu_phase(d, gpu), mitigated);
  if (spec.clock_scaled == 0.0) return spec.activity;
  // GPUs faster than the gate finish early and wait (at the communication activity).
  const double c = spec.clock_scaled;
  const double r = value(d, gate_);
  const double r_i = std::max(value(d, clock_, gpu) / p_.power.max_clock, r);
  const double duty = (c / r_i + 1.0 - c) / (c / r + 1.0 - c);
  const double wait = p_.job.communication_activity;
  return wait + (spec.activity - wait) * duty;
}

// ---- power source -----------------------------------------------------------------------------------------

double TrainingJob::commanded_power(const double* d, std::size_t gpu, bool mitigated) const {
  return commanded_power(d, gpu, mitigated, stage_phase_value(d, gpu), value(d, gate_), value(d, clock_, gpu));
}

double TrainingJob::commanded_power(const double* d, std::size_t gpu, bool mitigated, double phase, double gate,
                                    double clock, DynamicPowerCache* cache) const {
  // The result depends on the discrete state only through the GPU's phase, the gate ratio and its
  // clock; the last result per GPU is kept with them and reused while they stay equal
  // (every derivative evaluation asks for every GPU's power).
  CommandedPower& memo = commanded_memo_[(mitigated ? gpus_.count() : 0) + gpu];
  if (memo.phase == phase && memo.gate == gate && memo.clock == clock) return memo.power;
  double dynamic = 0.0;
  if (cache != nullptr && cache->phase == phase && cache->clock == clock) {
    dynamic = cache->dynamic;
  } else {
    dynamic = governor_.power().dynamic_power(activity(d, gpu, mitigated), clock);
    if (cache != nullptr) *cache = {phase, clock, dynamic};
  }
  double power = p_.power.static_power + gpus_.spread(gpu).power_scale * dynamic;
  if (mitigated && p_.smoothing.enabled) power = std::max(power, p_.smoothing.floor_fraction * p_.power.power_limit);
  memo = {phase, gate, clock, power};
  return power;
}

double TrainingJob::smoothed(const double* d, std::size_t gpu, double t) const {
  const double target = commanded_power(d, gpu);
  if (!p_.smoothing.enabled) return target;
  return smoothed_power(p_.smoothing, value(d, ramp_origin_, gpu), target, t - value(d, ramp_start_, gpu));
}

void TrainingJob::powers(std::size_t first, std::size_t last, const solver::EvalContext& ctx, double* power,
                         bool* on) const {
  // power() and powered() for a run of GPUs, with the discrete state's groups located once.
  const double* d = ctx.discrete;
  const double gate = value(d, gate_);
  const double* stage_phase = &d[discrete_index(stage_phase_)];
  const double* off = &d[discrete_index(off_)];
  const double* clock = &d[discrete_index(clock_)];
  const double* origin = &d[discrete_index(ramp_origin_)];
  const double* start = &d[discrete_index(ramp_start_)];
  DynamicPowerCache cache;
  for (std::size_t i = first; i < last; ++i) {
    const std::size_t k = i - first;
    on[k] = off[i] == 0.0;
    if (!on[k]) {
      power[k] = 0.0;
      continue;
    }
    const double target = commanded_power(d, i, true, stage_phase[gpu_stage_[i]], gate, clock[i], &cache);
    power[k] = p_.smoothing.enabled ? smoothed_power(p_.smoothing, origin[i], target, ctx.t - start[i]) : target;
  }
}

double TrainingJob::mean_smoothed(const double* d, double t) const {
  double sum = 0.0;
  std::size_t on = 0;
  for (std::size_t i = 0; i < gpus_.count(); ++i) {
    if (value(d, off_, i) != 0.0) continue;
    sum += smoothed(d, i, t);
    ++on;
  }
  return on > 0 ? sum / static_cast<double>(on) : 0.0;
}

double TrainingJob::mean_commanded(const double* d) const {
  double sum = 0.0;
  std::size_t on = 0;
  for (std::size_t i = 0; i < gpus_.count(); ++i) {
    if (value(d, off_, i) != 0.0) continue;
    sum += commanded_power(d, i);
    ++on;
  }
  return on > 0 ? sum / static_cast<double>(on) : 0.0;
}

double TrainingJob::power(std::size_t gpu, const solver::EvalContext& ctx) const {
  double p = 0.0;
  bool on = false;
  powers(gpu, gpu + 1, ctx, &p, &on);
  return p;
}

bool TrainingJob::rebase_ramps(double t, const double* d, double* d_next) const {
  const bool smoothing = p_.smoothing.enabled;
  if (!smoothing && !p_.smoothing.fill_enabled) return false;
  const double mark = value(d, energy_mark_);
  std::array<bool, solver::parallel_blocks> block_rebased{};
  solver::BlockSums energy{};
  solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
    double block_energy = 0.0;
    bool any_rebased = false;
    for (std::size_t i = block.first; i < block.last; ++i) {
      const bool was_on = value(d, off_, i) == 0.0;
      const double origin = value(d, ramp_origin_, i), start = value(d, ramp_start_, i);
      const double old_target = was_on ? commanded_power(d, i) : 0.0;
      // Energy since the last update: what the GPU drew less what its work asked for (constant).
      if (was_on && std::isfinite(mark) && t > mark) {
        const double drawn = smoothing ? smoothed_energy(p_.smoothing, origin, old_target, mark - start, t - start)
                                       : old_target * (t - mark);
        block_energy += drawn - commanded_power(d, i, false) * (t - mark);
      }
      if (!smoothing) continue;
      if (value(d_next, off_, i) != 0.0) continue;
      const double now = was_on ? smoothed_power(p_.smoothing, origin, old_target, t - start) : 0.0;
      const double new_target = commanded_power(d_next, i);
      // A ramp goes on toward a target that moved on the same side of the power drawn now; a phase
      // edge, a reversal or a GPU coming back starts a new ramp from the power drawn now.
      const bool phase_changed = stage_phase_value(d, i) != stage_phase_value(d_next, i);
      if (!was_on || phase_changed || (new_target - now) * (old_target - now) < 0.0) {
        slot(d_next, ramp_origin_, i) = now;
        slot(d_next, ramp_start_, i) = t;
        any_rebased = true;
      }
    }
    energy[block.block] = block_energy;
    block_rebased[block.block] = any_rebased;
  });
  const bool rebased = std::find(block_rebased.begin(), block_rebased.end(), true) != block_rebased.end();
  slot(d_next, smoothing_energy_) += solver::ordered_sum(energy);
  slot(d_next, energy_mark_) = t;
  return rebased;
}

bool TrainingJob::same_power(const double* a, const double* b) const {
  for (const int group : {phase_, gate_}) {
    const auto k = static_cast<std::size_t>(discrete_index(group));
    if (std::memcmp(a + k, b + k, sizeof(double)) != 0) return false;
  }
  const auto stage = static_cast<std::size_t>(discrete_index(stage_phase_));
  if (std::memcmp(a + stage, b + stage, static_cast<std::size_t>(stages_) * sizeof(double)) != 0) return false;
  // The per-GPU groups (~0.8 MB for the 24k hall, compared at every update) in blocks.
  std::array<bool, solver::parallel_blocks> block_same{};
  solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
    bool same = true;
    for (const int group : {clock_, off_, ramp_origin_, ramp_start_}) {
      const auto first = static_cast<std::size_t>(discrete_index(group)) + block.first;
      same = same && std::memcmp(a + first, b + first, (block.last - block.first) * sizeof(double)) == 0;
    }
    block_same[block.block] = same;
  });
  return std::all_of(block_same.begin(), block_same.end(), [](bool same) { return same; });
}

bool TrainingJob::powered(std::size_t gpu, const solver::EvalContext& ctx) const {
  return value(ctx.discrete, off_, gpu) == 0.0;
}

namespace {

/// Sums the board powers p_i of a block's GPUs in GPU order, in total and per group of `size`
/// consecutive GPUs into by_group (sized for every group, zeros). GPU i belongs to group
/// i / size; the GPUs come in order, so the group moves on at each group's end instead of a
/// division per GPU, and the group's running sum stays in a register until then (the same
/// additions in the same order as adding into by_group element by element).
class BlockGroupSums {
 public:
  BlockGroupSums(std::vector<double>& by_group, std::size_t size, std::size_t first)
      : by_group_(by_group), size_(by_group.empty() ? 0 : size) {
    if (size_ == 0) return;
    group_ = first / size_;
    group_end_ = (group_ + 1) * size_;
  }
  void add(std::size_t i, double p) {
    total_ += p;
    if (size_ == 0) return;
    if (i == group_end_) {
      by_group_[group_] = running_;
      ++group_;
      group_end_ += size_;
      running_ = 0.0;
    }
    running_ += p;
  }
  /// Stores the last group's sum; returns the total.
  double finish() {
    if (size_ > 0) by_group_[group_] = running_;
    return total_;
  }

 private:
  std::vector<double>& by_group_;
  std::size_t size_;
  std::size_t group_ = 0, group_end_ = std::numeric_limits<std::size_t>::max();
  double running_ = 0.0, total_ = 0.0;
};

}  // namespace

double TrainingJob::power_sums(const solver::EvalContext& ctx, const solver::BlockRange& block) const {
  const std::size_t groups = group_size_ > 0 ? (gpus_.count() + group_size_ - 1) / group_size_ : 0;
  std::vector<double>& by_group = group_sums_[block.block];
  by_group.assign(groups, 0.0);
  BlockGroupSums sums(by_group, group_size_, block.first);
  gpus_.for_each_power(block.first, block.last, ctx,
                       [&](std::size_t i, bool on, double power) { sums.add(i, on ? power + leakage_[i] : 0.0); });
  return sums.finish();
}

double TrainingJob::power_sums_at_rest(const double* d, const solver::BlockRange& block, double rest_clock) const {
  // power_sums() term by term: p = P_i + L_i for a powered GPU (0 otherwise), P_i the commanded
  // power at the rest clock (what the power source gives without ramps), in the same order.
  const std::size_t groups = group_size_ > 0 ? (gpus_.count() + group_size_ - 1) / group_size_ : 0;
  std::vector<double>& by_group = group_sums_[block.block];
  by_group.assign(groups, 0.0);
  BlockGroupSums sums(by_group, group_size_, block.first);
  const double gate = value(d, gate_);
  const double* off = &d[discrete_index(off_)];
  DynamicPowerCache cache;
  for (std::size_t i = block.first; i < block.last; ++i) {
    double p = 0.0;
    if (off[i] == 0.0) {
      double& power = rest_power_[i];
      if (std::isnan(power)) power = commanded_power(d, i, true, stage_phase_value(d, i), gate, rest_clock, &cache);
      p = power + leakage_[i];
    }
    sums.add(i, p);
  }
  return sums.finish();
}

void TrainingJob::track_power(double* d, double t) const {
  const solver::EvalContext ctx{t, t, d};
  solver::BlockSums sums{};
  solver::for_each_block(gpus_.count(),
                         [&](const solver::BlockRange& block) { sums[block.block] = power_sums(ctx, block); });
  finish_power_tracking(d, t, sums);
}

void TrainingJob::finish_power_tracking(double* d, double t, const solver::BlockSums& sums) const {
  group_sums_time_ = t;
  const double total = solver::ordered_sum(sums);
  slot(d, power_min_) = std::min(value(d, power_min_), total);
  slot(d, power_max_) = std::max(value(d, power_max_), total);
}

// ---- phases -----------------------------------------------------------------------------------------------

void TrainingJob::begin_phase(JobPhase phase, double t, double* d, bool settled) const {
  const PhaseSpec spec = phase_spec(phase);
  // A rising power ramp holds a clock-bound phase back (power_smoothing.hpp).
  const bool ramps = !settled && p_.smoothing.enabled && spec.clock_scaled > 0.0 && spec.nominal > 0.0;
  const double from = ramps ? mean_smoothed(d, t) : 0.0;
  slot(d, phase_) = static_cast<double>(static_cast<int>(phase));
  slot(d, last_regate_) = t;
  slot(d, gate_) = gate_ratio(d);
  const double c = spec.clock_scaled;
  const double r = value(d, gate_);
  auto set_work = [&](double work) {
    slot(d, work_left_) = work;
    slot(d, phase_work_) = work;
    if (phase == JobPhase::idle) slot(d, phase_end_) = t < p_.start_time ? p_.start_time : infinity;
    else slot(d, phase_end_) = t + work * (c / r + 1.0 - c);
    update_stage_phases(t, d);
  };
  set_work(spec.nominal);
  // The ramp's target is the mean power the stages command in their new phases.
  if (ramps) set_work(stretched_phase_time(p_.smoothing, spec.nominal, from, mean_commanded(d), p_.power.static_power));
}

bool TrainingJob::stages_uniform(const double* d) const {
  const double job = value(d, phase_);
  for (int s = 0; s < stages_; ++s)
    if (value(d, stage_phase_, static_cast<std::size_t>(s)) != job) return false;
  return true;
}

void TrainingJob::update_stage_phases(double t, double* d) const {
  const JobPhase now = phase(d);
  slot(d, stage_next_) = infinity;
  const bool in_step = now == JobPhase::compute || now == JobPhase::bubble || now == JobPhase::communication ||
                       now == JobPhase::optimizer;
  if (stages_ == 1 || !in_step) {
    for (int s = 0; s < stages_; ++s) slot(d, stage_phase_, static_cast<std::size_t>(s)) = value(d, phase_);
    return;
  }
  // k = c / r + 1 - c: wall seconds per nominal second of the compute-bound work (the offsets
  // t_f, t_b are compute, as are the compute and bubble phases).
  const double c = plan_.compute_bound_fraction;
  const double k = c / value(d, gate_) + 1.0 - c;
  const double end = value(d, phase_end_);
  // Stage 0 from t on: the current phase until `end`, then the step's later phases at the gate
  // ratio of now, up to the step's end (the optimizer's).
  struct Piece {
    JobPhase phase;
    double end;
  };
  std::array<Piece, 4> ahead{};
  std::size_t pieces = 0;
  ahead[pieces++] = {now, end};
  double edge = end;
  const std::array<std::pair<JobPhase, double>, 4> step = {
      std::pair{JobPhase::compute, plan_.compute_time * k}, std::pair{JobPhase::bubble, plan_.bubble_time * k},
      std::pair{JobPhase::communication, plan_.communication_time},
      std::pair{JobPhase::optimizer, plan_.optimizer_time}};
  bool after = false;
  for (const auto& [later, length] : step) {
    if (after) {
      edge += length;
      ahead[pieces++] = {later, edge};
    }
    after = after || later == now;
  }
  // Nominal work done in a clock-scaled phase (compute, bubble) of stage 0.
  const double done = value(d, phase_work_) - (value(d, work_left_) - (t - value(d, last_regate_)) / k);
  // An edge within a nanosecond of t counts as passed: the time of a stage's edge planned at an
  // earlier update and the same edge formed again now may differ by rounding.
  constexpr double tolerance = 1e-9;
  double next = infinity;
  for (int s = 0; s < stages_; ++s) {
    const double sd = static_cast<double>(s);
    JobPhase stage_phase = JobPhase::bubble;  // past the step's end: waiting for the next one
    double change = infinity;
    const double head_left = (sd * plan_.stage_forward_time - done) * k;  // wall time to s t_f of work
    if ((now == JobPhase::compute || now == JobPhase::bubble) && head_left > tolerance) {
      stage_phase = now == JobPhase::compute ? JobPhase::bubble : JobPhase::compute;
      change = t + head_left;
    } else if (now == JobPhase::compute) {
      stage_phase = JobPhase::compute;  // changes again only at stage 0's next edge
    } else {
      const double lead = sd * plan_.stage_backward_time * k;  // s t_b k ahead of stage 0
      const double ahead_time = t + lead + tolerance;
      for (std::size_t q = 0; q < pieces; ++q) {
        if (ahead[q].end > ahead_time) {
          stage_phase = ahead[q].phase;
          change = ahead[q].end - lead;
          break;
        }
      }
    }
    slot(d, stage_phase_, static_cast<std::size_t>(s)) = static_cast<double>(static_cast<int>(stage_phase));
    // Stage 0's own edge (`end`) is the phase machine's scheduled update already.
    if (change < end) next = std::min(next, change);
  }
  slot(d, stage_next_) = next;
}

void TrainingJob::finish_phase(double t, double* d) const {
  const bool stopping = p_.stop_time > 0.0 && t >= p_.stop_time;
  auto next_step = [&] {
    if (stopping) {
      begin_phase(JobPhase::idle, t, d);
      return;
    }
    slot(d, step_start_) = t;
    begin_phase(JobPhase::compute, t, d);
  };
  const double gpus = static_cast<double>(gpus_.count());
  switch (phase(d)) {
    case JobPhase::idle:
      if (p_.startup_time > 0.0) {
        begin_phase(JobPhase::startup, t, d);
      } else {
        slot(d, commit_time_) = t;
        next_step();
      }
      return;
    case JobPhase::startup:
      slot(d, commit_time_) = t;
      next_step();
      return;
    case JobPhase::compute: begin_phase(JobPhase::bubble, t, d); return;
    case JobPhase::bubble: begin_phase(JobPhase::communication, t, d); return;
    case JobPhase::communication: begin_phase(JobPhase::optimizer, t, d); return;
    case JobPhase::optimizer: {
      // The step is complete.
      const double step_time = t - value(d, step_start_);
      slot(d, last_step_time_) = step_time;
      slot(d, steps_) += 1.0;
      slot(d, steps_since_checkpoint_) += 1.0;
      // Rounding in the phase-end arithmetic is not throttling: only a step slower than planned
      // by more than a part in 1e9 counts.
      const double excess = step_time - plan_.step_time();
      const double lost = excess > 1e-9 * plan_.step_time() ? excess * gpus / seconds_per_hour : 0.0;
      slot(d, lost_throttle_) += lost;
      slot(d, throttle_since_commit_) += lost;
      if (p_.checkpoint.enabled && value(d, steps_since_checkpoint_) >= p_.checkpoint.interval_steps && !stopping) {
        begin_phase(JobPhase::checkpoint, t, d);
      } else {
        next_step();
      }
      return;
    }
    case JobPhase::checkpoint:
      slot(d, checkpoints_) += 1.0;
      slot(d, lost_checkpoint_) += stall_time_ * gpus / seconds_per_hour;
      slot(d, steps_since_checkpoint_) = 0.0;
      slot(d, throttle_since_commit_) = 0.0;
      slot(d, commit_time_) = t;
      next_step();
      return;
    case JobPhase::down:
      slot(d, lost_failure_) += (t - value(d, outage_mark_)) * gpus / seconds_per_hour;
      // Failed nodes have been replaced: every GPU is back, cool and at its top clock.
      for (std::size_t i = 0; i < gpus_.count(); ++i) {
        if (value(d, off_, i) == 0.0) continue;
        const GovernorState s = governor_.initial_state();
        slot(d, off_, i) = 0.0;
        slot(d, clock_, i) = s.clock;
        slot(d, ceiling_, i) = s.thermal_ceiling;
        slot(d, reasons_, i) = static_cast<double>(s.reasons);
      }
      slot(d, outage_mark_) = t;
      begin_phase(JobPhase::reload, t, d);
      return;
    case JobPhase::reload:
      slot(d, lost_failure_) += (t - value(d, outage_mark_)) * gpus / seconds_per_hour;
      slot(d, commit_time_) = t;
      next_step();
      return;
    case JobPhase::averaged:
      DCTWIN_DEMAND(false, "the averaged phase is for the steady-state start only and never ends");
      return;
  }
}

const std::vector<std::string>& TrainingJob::interruption_categories() {
  static const std::vector<std::string> categories = {"gpu",  "hardware", "software", "network",
                                                      "host", "unknown",  "planned",  "thermal"};
  return categories;
}

std::size_t TrainingJob::category_of(std::size_t cause) const {
  const auto& categories = interruption_categories();
  const auto it = std::find(categories.begin(), categories.end(), classes_[cause].category);
  DCTWIN_DEMAND(it != categories.end(), "an interruption class with an unknown category");
  return static_cast<std::size_t>(it - categories.begin());
}

void TrainingJob::interrupt(double t, std::size_t cause, double* d) const {
  const JobPhase now = phase(d);
  if (now == JobPhase::idle) return;  // no job to interrupt
  slot(d, interruptions_count_) += 1.0;
  slot(d, by_category_, category_of(cause)) += 1.0;
  const double gpus = static_cast<double>(gpus_.count());
  if (training(now)) {
    // Everything since the last checkpoint is lost: its time counts as failure, not throttling.
    slot(d, steps_lost_) += value(d, steps_since_checkpoint_);
    slot(d, steps_since_checkpoint_) = 0.0;
    slot(d, lost_throttle_) -= value(d, throttle_since_commit_);
    slot(d, throttle_since_commit_) = 0.0;
    slot(d, lost_failure_) += (t - value(d, commit_time_)) * gpus / seconds_per_hour;
  } else if (now == JobPhase::down || now == JobPhase::reload) {
    slot(d, lost_failure_) += (t - value(d, outage_mark_)) * gpus / seconds_per_hour;
  }
  slot(d, outage_mark_) = t;
  begin_phase(JobPhase::down, t, d);
}

void TrainingJob::regate(double t, double* d) const {
  const double r_old = value(d, gate_);
  const double r_new = gate_ratio(d);
  if (r_new == r_old) return;
  const PhaseSpec spec = phase_spec(phase(d));
  const double c = spec.clock_scaled;
  if (c > 0.0 && std::isfinite(value(d, phase_end_))) {
    const double done = (t - value(d, last_regate_)) / (c / r_old + 1.0 - c);
    const double left = std::max(0.0, value(d, work_left_) - done);
    slot(d, work_left_) = left;
    slot(d, phase_end_) = std::max(t + left * (c / r_new + 1.0 - c), std::nextafter(t, infinity));
  }
  slot(d, last_regate_) = t;
  slot(d, gate_) = r_new;
  update_stage_phases(t, d);
}

// ---- discrete updates -----------------------------------------------------------------------------------

void TrainingJob::initial_discrete(double* d) const {
  group_sums_time_ = std::numeric_limits<double>::quiet_NaN();  // a new run: no sums taken yet
  power_inputs_changed_time_ = std::numeric_limits<double>::quiet_NaN();
  const GovernorState cool = governor_.initial_state();
  for (std::size_t i = 0; i < gpus_.count(); ++i) {
    slot(d, clock_, i) = cool.clock;
    slot(d, ceiling_, i) = cool.thermal_ceiling;
    slot(d, reasons_, i) = static_cast<double>(cool.reasons);
    slot(d, off_, i) = 0.0;
  }
  for (int g : {steps_, steps_since_checkpoint_, steps_lost_, throttle_since_commit_, next_interruption_,
                interruptions_count_, checkpoints_, throttled_gpu_seconds_, lost_throttle_, lost_checkpoint_,
                lost_failure_, commit_time_, step_start_, outage_mark_})
    slot(d, g) = 0.0;
  for (std::size_t k = 0; k < interruption_categories().size(); ++k) slot(d, by_category_, k) = 0.0;
  slot(d, last_step_time_) = std::numeric_limits<double>::quiet_NaN();
  slot(d, power_min_) = infinity;
  slot(d, power_max_) = 0.0;
  if (p_.start_time > 0.0) {
    for (std::size_t i = 0; i < gpus_.count(); ++i) {
      slot(d, clock_, i) = p_.power.idle_clock;
      slot(d, reasons_, i) = static_cast<double>(throttle_reason::gpu_idle);
    }
    begin_phase(JobPhase::idle, 0.0, d, true);
  } else if (p_.startup_time > 0.0) {
    begin_phase(JobPhase::startup, 0.0, d, true);
  } else {
    begin_phase(JobPhase::compute, 0.0, d, true);
  }
  start_ramps_settled(d);
}

void TrainingJob::start_ramps_settled(double* d) const {
  for (std::size_t i = 0; i < gpus_.count(); ++i) {
    slot(d, ramp_origin_, i) = commanded_power(d, i);
    slot(d, ramp_start_, i) = 0.0;
  }
  slot(d, smoothing_energy_) = 0.0;
  slot(d, energy_mark_) = std::numeric_limits<double>::quiet_NaN();
}

double TrainingJob::governor_activity(std::size_t gpu, const PhaseSpec& spec) const {
  // The power cap acts on this GPU's own dynamic power: its power scale multiplies the activity.
  return spec.activity * gpus_.spread(gpu).power_scale;
}

GovernorInputs TrainingJob::governor_inputs(std::size_t gpu, const double* x, const PhaseSpec& spec,
                                            double leakage) const {
  GovernorInputs in;
  in.junction_temperature = x[gpus_.junction_index(gpu)];
  in.hbm_temperature = x[gpus_.hbm_index(gpu)];
  in.activity = governor_activity(gpu, spec);
  in.leakage_power = leakage;
  in.working = spec.working;
  return in;
}

const std::vector<double>& TrainingJob::rest_leakage(JobPhase phase) const {
  std::vector<double>& limits = rest_leakage_[static_cast<std::size_t>(phase)];
  if (limits.empty()) {
    const PhaseSpec spec = phase_spec(phase);
    limits.resize(gpus_.count());
    // The margin (1e-9 of the power limit, ~1 uW) covers the rounding of the board power's sum
    // (~1e-13 W) many times over: a GPU this close to the limit just takes the full update.
    const double margin = 1e-9 * governor_.power().parameters().power_limit;
    for (std::size_t i = 0; i < gpus_.count(); ++i) {
      limits[i] = governor_.rest_leakage_limit(governor_activity(i, spec), spec.working) - margin;
    }
  }
  return limits;
}

bool TrainingJob::update_discrete(const solver::EvalContext& ctx, const double* x, double* d_next) const {
  const double* d = ctx.discrete;
  const JobPhase now = phase(d);
  const PhaseSpec spec = phase_spec(now);
  // Each stage's phase, what its governors read, and the leakage up to which they rest (the
  // stages' phases are all working phases, or all the job's: one rest state).
  const std::size_t stage_group = static_cast<std::size_t>(discrete_index(stage_phase_));
  std::vector<PhaseSpec> stage_spec(static_cast<std::size_t>(stages_));
  std::vector<const double*> stage_rest_leakage(static_cast<std::size_t>(stages_));
  for (std::size_t s = 0; s < stage_spec.size(); ++s) {
    const auto stage_phase = static_cast<JobPhase>(static_cast<int>(d[stage_group + s]));
    stage_spec[s] = phase_spec(stage_phase);
    stage_rest_leakage[s] = rest_leakage(stage_phase).data();
  }
  const std::uint32_t* gpu_stage = gpu_stage_.data();
  leakage_.resize(gpus_.count());
  // A GPU whose governor is at rest with its temperatures and leakage within the rest limits
  // keeps its state (DvfsGovernor::stays_at_rest, checked here without calling the governor):
  // in most updates of a run without throttling that is every GPU.
  const GovernorState rest = governor_.rest_state(spec.working);
  const auto rest_reasons = static_cast<double>(rest.reasons);
  const GpuThermalLimits& limits = governor_.limits();
  const double* tj = x + gpus_.junction_index(0);
  const double* thbm = x + gpus_.hbm_index(0);
  // Per block of GPUs: clocks changed, a GPU shut down, GPUs throttled.
  std::array<bool, solver::parallel_blocks> block_changed{}, block_shutdown{};
  std::array<std::size_t, solver::parallel_blocks> block_throttled{};
  // The power sums at d_next, formed in the same pass (with each block's leakage); they hold
  // unless something after the pass changes what the powers read (then track_power again).
  solver::BlockSums power_sum{};
  const solver::EvalContext after{ctx.t, ctx.t, d_next};
  // A block whose powered GPUs all rest takes its sums from rest_power_ (power_sums_at_rest); that
  // needs the job to be the GPUs' power source and no smoothing ramps (P_i then depends on the
  // phase, the gate ratio and the clock alone). rest_power_ holds for one phase, gate and clock.
  const bool sums_at_rest = !p_.smoothing.enabled && gpus_.power_source() == this && stages_uniform(d);
  if (sums_at_rest) {
    const std::array<double, 3> key{value(d, phase_), value(d, gate_), rest.clock};
    if (key != rest_power_key_) {
      rest_power_.assign(gpus_.count(), std::numeric_limits<double>::quiet_NaN());
      rest_power_key_ = key;
    }
  }
  // Each GPU's governor state, located once (the groups are contiguous).
  const auto off = static_cast<std::size_t>(discrete_index(off_)), clock = static_cast<std::size_t>(discrete_index(clock_)),
             ceiling = static_cast<std::size_t>(discrete_index(ceiling_)),
             reasons = static_cast<std::size_t>(discrete_index(reasons_));
  solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
    bool any_changed = false, any_shutdown = false, all_rest = true;
    std::size_t count_throttled = 0;
    gpus_.leakage_powers(block.first, block.last, x, leakage_.data() + block.first);
    // First the rest check alone, without branches (the comparisons stay in vector registers);
    // the loop below, which updates the governors that do not rest, runs only where there is one.
    std::size_t not_resting = 0;
    for (std::size_t i = block.first; i < block.last; ++i) {
      const bool rests = (d[off + i] != 0.0) |
                         ((d[clock + i] == rest.clock) & (d[ceiling + i] == rest.thermal_ceiling) &
                          (d[reasons + i] == rest_reasons) & (tj[i] <= limits.max_operating) &
                          (thbm[i] <= limits.hbm_max_operating) &
                          (leakage_[i] <= stage_rest_leakage[gpu_stage[i]][i]));
      not_resting += rests ? 0 : 1;
    }
    for (std::size_t i = not_resting > 0 ? block.first : block.last; i < block.last; ++i) {
      if (d[off + i] != 0.0) continue;
      // d_next holds d's values on entry (Component::update_discrete): a GPU at rest keeps them.
      if (d[clock + i] == rest.clock && d[ceiling + i] == rest.thermal_ceiling && d[reasons + i] == rest_reasons &&
          tj[i] <= limits.max_operating && thbm[i] <= limits.hbm_max_operating &&
          leakage_[i] <= stage_rest_leakage[gpu_stage[i]][i])
        continue;
      all_rest = false;
      const GovernorState s{d[clock + i], d[ceiling + i], static_cast<std::uint32_t>(d[reasons + i]), false};
      const GovernorState next = governor_.update(s, governor_inputs(i, x, stage_spec[gpu_stage[i]], leakage_[i]));
      if (next.shut_down) {
        d_next[off + i] = 1.0;
        d_next[clock + i] = 0.0;
        d_next[reasons + i] = 0.0;
        any_shutdown = true;
        any_changed = true;
        continue;
      }
      any_changed = any_changed || next.clock != s.clock;
      d_next[clock + i] = next.clock;
      d_next[ceiling + i] = next.thermal_ceiling;
      d_next[reasons + i] = static_cast<double>(next.reasons);
      if ((next.reasons & throttling_reasons) != 0) ++count_throttled;
    }
    block_changed[block.block] = any_changed;
    block_shutdown[block.block] = any_shutdown;
    block_throttled[block.block] = count_throttled;
    power_sum[block.block] =
        sums_at_rest && all_rest ? power_sums_at_rest(d_next, block, rest.clock) : power_sums(after, block);
  });
  bool changed = std::find(block_changed.begin(), block_changed.end(), true) != block_changed.end();
  const bool shutdown = std::find(block_shutdown.begin(), block_shutdown.end(), true) != block_shutdown.end();
  std::size_t throttled = 0;
  for (const std::size_t n : block_throttled) throttled += n;
  slot(d_next, throttled_gpu_seconds_) += static_cast<double>(throttled) * p_.governor.update_period;
  if (shutdown && phase(d) != JobPhase::idle && phase(d) != JobPhase::down) {
    interrupt(ctx.t, classes_.size() - 1, d_next);
  } else if (changed) {
    regate(ctx.t, d_next);
  }
  changed |= rebase_ramps(ctx.t, d, d_next);
  // No clock moved, no GPU shut down and no ramp started over: the phase, gate ratio, clocks and
  // ramps the powers read are those the pass saw, and so are its sums.
  if (changed || shutdown) {
    power_inputs_changed_time_ = ctx.t;
    track_power(d_next, ctx.t);
  } else {
    finish_power_tracking(d_next, ctx.t, power_sum);
  }
  return changed;
}

const std::vector<double>& TrainingJob::rest_junction(JobPhase phase) const {
  std::vector<double>& limits = rest_junction_[static_cast<std::size_t>(phase)];
  if (limits.empty()) {
    const std::vector<double>& leakage_limit = rest_leakage(phase);
    const auto& p = gpus_.parameters();
    const double k = p.leakage_temperature_coefficient;
    constexpr double infinity = std::numeric_limits<double>::infinity();
    limits.resize(gpus_.count());
    for (std::size_t i = 0; i < gpus_.count(); ++i) {
      // L_i(T) = c_i exp(k (T - T_ref)) <= limit for T <= T_ref + ln(limit / c_i) / k; 1 uK below
      // that the leakage is 2e-8 of itself below the limit (k = 0.02/K), far beyond the rounding
      // of L_i's evaluation.
      const double c = gpus_.leakage_power(i, p.leakage_reference_temperature);
      double t_leak = infinity;
      if (c > 0.0) {
        const double exponent = leakage_limit[i] > 0.0 ? std::log(leakage_limit[i] / c) : -infinity;
        if (k > 0.0) t_leak = exponent < 600.0 ? p.leakage_reference_temperature + exponent / k - 1e-6 : infinity;
        else t_leak = exponent >= 0.0 ? infinity : -infinity;  // constant leakage: within the limit or not
      } else if (!(leakage_limit[i] >= 0.0)) {
        t_leak = -infinity;
      }
      limits[i] = std::min(governor_.limits().max_operating, t_leak);
    }
  }
  return limits;
}

bool TrainingJob::rests_over(const solver::EvalContext& ctx, const double* upper) const {
  if (p_.smoothing.enabled || p_.smoothing.fill_enabled) return false;
  // The leakage rises with T_j (k >= 0), so a junction bound bounds it (rest_junction).
  if (gpus_.parameters().leakage_temperature_coefficient < 0.0) return false;
  const double* d = ctx.discrete;
  const JobPhase now = phase(d);
  const PhaseSpec spec = phase_spec(now);
  const GovernorState rest = governor_.rest_state(spec.working);
  const auto rest_reasons = static_cast<double>(rest.reasons);
  const std::size_t stage_group = static_cast<std::size_t>(discrete_index(stage_phase_));
  std::vector<const double*> stage_junction_limit(static_cast<std::size_t>(stages_));
  for (std::size_t s = 0; s < stage_junction_limit.size(); ++s)
    stage_junction_limit[s] = rest_junction(static_cast<JobPhase>(static_cast<int>(d[stage_group + s]))).data();
  const std::uint32_t* gpu_stage = gpu_stage_.data();
  const double hbm_limit = governor_.limits().hbm_max_operating;
  const double* tj = upper + gpus_.junction_index(0);
  const double* thbm = upper + gpus_.hbm_index(0);
  const auto off = static_cast<std::size_t>(discrete_index(off_)), clock = static_cast<std::size_t>(discrete_index(clock_)),
             ceiling = static_cast<std::size_t>(discrete_index(ceiling_)),
             reasons = static_cast<std::size_t>(discrete_index(reasons_));
  std::array<std::size_t, solver::parallel_blocks> block_not_resting{};
  solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
    // update_discrete's rest check on the bounds, without branches.
    std::size_t not_resting = 0;
    for (std::size_t i = block.first; i < block.last; ++i) {
      const bool rests = (d[off + i] != 0.0) |
                         ((d[clock + i] == rest.clock) & (d[ceiling + i] == rest.thermal_ceiling) &
                          (d[reasons + i] == rest_reasons) & (tj[i] <= stage_junction_limit[gpu_stage[i]][i]) &
                          (thbm[i] <= hbm_limit));
      not_resting += rests ? 0 : 1;
    }
    block_not_resting[block.block] = not_resting;
  });
  for (const std::size_t n : block_not_resting)
    if (n > 0) return false;
  return true;
}

double TrainingJob::next_scheduled_update(double, const double* d) const {
  double next = std::min(value(d, phase_end_), value(d, stage_next_));
  const auto k = static_cast<std::size_t>(value(d, next_interruption_));
  if (k < interruptions_.size()) next = std::min(next, interruptions_[k].time);
  return next;
}

bool TrainingJob::scheduled_update(const solver::EvalContext& ctx, const double* x, double* d_next) const {
  const double t = ctx.t;
  const auto first_interruption = static_cast<std::size_t>(value(d_next, next_interruption_));
  auto k = first_interruption;
  while (k < interruptions_.size() && interruptions_[k].time <= t) {
    interrupt(t, interruptions_[k].cause, d_next);
    ++k;
  }
  slot(d_next, next_interruption_) = static_cast<double>(k);
  // Phases that end now (a zero-length phase ends as it begins).
  for (int guard = 0; value(d_next, phase_end_) <= t; ++guard) {
    DCTWIN_DEMAND(guard < 32, "the job's phases do not advance");
    finish_phase(t, d_next);
  }
  // Stages whose own edge is now.
  if (value(d_next, stage_next_) <= t) update_stage_phases(t, d_next);
  // Clocks follow the new phase at once, as the firmware's fast power control does: idle when
  // there is no work, the power cap for the new activity, the thermal ceilings as they are (the
  // thermal controller moves only at its own updates). Every GPU when the job's phase moved or
  // it was interrupted; else (a stage's own edge) the GPUs whose stage changed phase.
  const bool every_gpu = stages_ == 1 || k != first_interruption || phase(ctx.discrete) != phase(d_next);
  const std::size_t stage_group = static_cast<std::size_t>(discrete_index(stage_phase_));
  std::vector<PhaseSpec> stage_spec(static_cast<std::size_t>(stages_));
  std::vector<char> stage_moved(static_cast<std::size_t>(stages_));
  for (std::size_t s = 0; s < stage_spec.size(); ++s) {
    const double now = d_next[stage_group + s];
    stage_spec[s] = phase_spec(static_cast<JobPhase>(static_cast<int>(now)));
    stage_moved[s] = every_gpu || ctx.discrete[stage_group + s] != now ? 1 : 0;
  }
  gpus_.leakage_powers(x, leakage_);
  const auto off = static_cast<std::size_t>(discrete_index(off_)), clock = static_cast<std::size_t>(discrete_index(clock_)),
             ceiling = static_cast<std::size_t>(discrete_index(ceiling_)),
             reasons = static_cast<std::size_t>(discrete_index(reasons_));
  solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
    for (std::size_t i = block.first; i < block.last; ++i) {
      if (d_next[off + i] != 0.0 || stage_moved[gpu_stage_[i]] == 0) continue;
      const GovernorState s{d_next[clock + i], d_next[ceiling + i], static_cast<std::uint32_t>(d_next[reasons + i]), false};
      const GovernorState next = governor_.reclock(s, governor_inputs(i, x, stage_spec[gpu_stage_[i]], leakage_[i]));
      if (next.shut_down) continue;  // the next periodic update shuts it down
      d_next[clock + i] = next.clock;
      d_next[reasons + i] = static_cast<double>(next.reasons);
    }
  });
  regate(t, d_next);
  rebase_ramps(t, ctx.discrete, d_next);
  power_inputs_changed_time_ = t;
  track_power(d_next, t);
  return true;
}

// ---- outputs and accounts --------------------------------------------------------------------------------

void TrainingJob::compute_outputs(const solver::EvalContext& ctx, const double*, double* const* values) const {
  const double* d = ctx.discrete;
  for (std::size_t i = 0; i < gpus_.count(); ++i) {
    values[out_clock_][i] = value(d, clock_, i);
    values[out_reasons_][i] = value(d, reasons_, i);
  }
  const JobPhase now = phase(d);
  const double step_time = value(d, last_step_time_);
  const bool rate = training(now) && std::isfinite(step_time) && step_time > 0.0;
  const double gpus = static_cast<double>(gpus_.count());
  values[out_phase_][0] = static_cast<double>(static_cast<int>(now));
  values[out_step_time_][0] = step_time;
  values[out_throughput_][0] = rate ? plan_.tokens_per_step / step_time : 0.0;
  values[out_mfu_][0] = rate ? plan_.mfu(1.0, step_time, p_.job.peak_flops) : 0.0;
  values[out_tflops_][0] = rate ? plan_.model_flops_per_step / (step_time * gpus) : 0.0;
  values[out_gate_][0] = value(d, gate_);
  values[out_steps_][0] = value(d, steps_);
  values[out_tokens_][0] = (value(d, steps_) - value(d, steps_lost_)) * plan_.tokens_per_step;
}

JobAccounts TrainingJob::accounts(const double* d) const {
  JobAccounts a;
  a.steps_completed = value(d, steps_);
  a.steps_lost = value(d, steps_lost_);
  a.tokens_trained = (a.steps_completed - a.steps_lost) * plan_.tokens_per_step;
  a.model_flops = (a.steps_completed - a.steps_lost) * plan_.model_flops_per_step;
  a.checkpoints = value(d, checkpoints_);
  a.interruptions = value(d, interruptions_count_);
  for (std::size_t k = 0; k < interruption_categories().size(); ++k)
    a.interruptions_by_category.push_back(value(d, by_category_, k));
  a.throttled_gpu_seconds = value(d, throttled_gpu_seconds_);
  a.lost_gpu_hours_throttling = value(d, lost_throttle_);
  a.lost_gpu_hours_checkpoints = value(d, lost_checkpoint_);
  a.lost_gpu_hours_failures = value(d, lost_failure_);
  a.gpu_power_min = std::isfinite(value(d, power_min_)) ? value(d, power_min_) : 0.0;
  a.gpu_power_max = value(d, power_max_);
  a.smoothing_energy = value(d, smoothing_energy_);
  return a;
}

double TrainingJob::step_progress(const double* d, double t) const {
  const JobPhase now = phase(d);
  const JobPhase order[] = {JobPhase::compute, JobPhase::bubble, JobPhase::communication, JobPhase::optimizer};
  double done = 0.0;
  for (JobPhase p : order) {
    const PhaseSpec spec = phase_spec(p);
    if (p != now) {
      done += spec.nominal;
      continue;
    }
    const double c = spec.clock_scaled;
    const double left = c > 0.0 ? value(d, work_left_) - (t - value(d, last_regate_)) / (c / value(d, gate_) + 1.0 - c)
                                : value(d, phase_end_) - t;
    done += spec.nominal - std::clamp(left, 0.0, spec.nominal);
    return plan_.step_time() > 0.0 ? done / plan_.step_time() : 0.0;
  }
  return 0.0;  // not inside a step
}

std::vector<core::SummaryFigure> TrainingJob::summary(const double* d, double duration) const {
  JobAccounts a = accounts(d);
  // The step in progress at the end counts with the share of it done, so that a mean over a
  // window of a few steps is not biased low.
  const double partial = step_progress(d, duration);
  a.tokens_trained += partial * plan_.tokens_per_step;
  a.model_flops += partial * plan_.model_flops_per_step;
  const double gpus = static_cast<double>(gpus_.count());
  const double span = duration > 0.0 ? duration : 1.0;
  const double gpu_hours = gpus * span / seconds_per_hour;
  std::vector<core::SummaryFigure> figures = {
      // Both means run from t = 0 and so include the start transient (the governors and fan tables
      // settle in about a minute: docs/models/workload.md); the descriptions say so in the report.
      {"mfu_mean", a.model_flops / (span * gpus * p_.job.peak_flops), "1",
       "model FLOPs of the steps that count (with the done share of the step in progress at the end) / (run time x "
       "GPUs x peak), from t = 0: includes the start transient"},
      {"throughput_mean", a.tokens_trained / span, "1/s",
       "tokens of the steps that count (with the done share of the last step) per second of run time [tokens/s], "
       "from t = 0: includes the start transient"},
      {"mfu_planned", plan_.mfu(1.0, plan_.step_time(), p_.job.peak_flops), "1",
       "MFU of a step at the top clock, without checkpoints or interruptions"},
      {"step_time_planned", plan_.step_time(), "s", "step time at the top clock"},
      {"steps_completed", a.steps_completed, "1", "steps completed (including those later lost)"},
      {"steps_lost", a.steps_lost, "1", "completed steps lost to interruptions"},
      {"checkpoints", a.checkpoints, "1", "checkpoints completed"},
      {"interruptions", a.interruptions, "1", "job interruptions (drawn failures and GPU thermal shutdowns)"},
      {"throttled_gpu_seconds", a.throttled_gpu_seconds, "s",
       "GPU-seconds with a power or thermal throttle reason set (sampled at the governor's updates)"},
      {"lost_gpu_hours_throttling", a.lost_gpu_hours_throttling, "h", "GPU-hours lost to steps slower than planned"},
      {"lost_gpu_hours_checkpoints", a.lost_gpu_hours_checkpoints, "h", "GPU-hours spent in checkpoint stalls"},
      {"lost_gpu_hours_failures", a.lost_gpu_hours_failures, "h",
       "GPU-hours lost to interruptions: work since the last checkpoint, detection, restart, reload"},
      {"effective_training_time_fraction", std::clamp(1.0 - a.lost_gpu_hours_failures / gpu_hours, 0.0, 1.0), "1",
       "share of the run not lost to interruptions"},
      {"gpu_total_power_peak_to_peak", a.gpu_power_max - a.gpu_power_min, "W",
       "largest minus least total GPU power at every governor update and phase edge (finer than the report's "
       "samples of /gpu/total_power)"},
      {"gpu_smoothing_energy", a.smoothing_energy, "J",
       "energy the GPUs drew above what their work asked for: power floor, ramp-down hold and software fill, less "
       "what rising ramps held back (0 without power smoothing or fill)"},
  };
  for (std::size_t k = 0; k < interruption_categories().size(); ++k)
    figures.push_back({"interruptions_" + interruption_categories()[k], a.interruptions_by_category[k], "1",
                       "job interruptions of category " + interruption_categories()[k]});
  return figures;
}

}  // namespace dctwin::models::workload
