// The training job coupled to its GPUs: phases, DVFS governors, checkpoints, interruptions, and
// what they cost in throughput and MFU.
//
// The loop it closes: coolant temperature -> junction temperature (thermal::GpuPackageArray) ->
// each GPU's clock (DvfsGovernor, sampled every `governor.update_period`) -> the slowest GPU gates
// the synchronous phase -> the phase ends when its work is done -> next phase's activity -> power
// and heat (this component is the packages' GpuPowerSource).
//
// Phases of a step (StepPlan): compute, pipeline bubble, exposed communication, optimizer; every
// `checkpoint.interval_steps` steps a checkpoint stall. A clock-scaled phase (compute, bubble) of
// nominal length T0 progresses at rate 1 / (c / r + 1 - c) nominal seconds per second, r = the
// least clock ratio f_i / f_max over the job's powered GPUs; its end is predicted from the work
// left and moved when a governor update changes r. GPUs faster than the gate wait at the
// communication activity for the rest of the phase: GPU i's mean activity over the phase is
//   a_i = a_wait + (a_phase - a_wait) d_i,   d_i = (c / r_i + 1 - c) / (c / r + 1 - c)  (<= 1).
// Power of GPU i (without leakage, which the package adds):
//   P_i = P_static + s_i P_dyn(a_i, f_i)     (GpuPowerModel; s_i the GPU's power scale)
//
// Pipeline stagger (StepPlan; off unless `job.pipeline_stagger` is set): the phase machine above
// is stage 0's; GPU g follows the phase of its stage s = s(g) (StepPlan::stage_of), offset from
// stage 0's by the stage's place in the 1F1B schedule. With k = c / r + 1 - c the clock stretch
// of the gate ratio r, u the nominal work done in stage 0's current compute or bubble phase and
// t' = t + s t_b k:
//   stage 0 in compute:  stage s waits in the bubble while u < s t_f (its first forward is late),
//                        then computes;
//   stage 0 in bubble:   stage s still computes while u < s t_f (its last chunks are late);
//   otherwise (bubble, communication, optimizer): stage s is in the phase stage 0 will be in at
//                        t' (its last backward, and so its gradient reduction and optimizer step,
//                        come s t_b k earlier); past the step's end it waits in the bubble.
// Every stage so spends T_c, T_b, T_x and T_o per step (the energy per step is unchanged) and the
// step still ends when stage 0's optimizer ends; the hall's power edges spread over (S - 1) t_f
// (compute) and (S - 1) t_b (communication, optimizer, bubble). Phases outside a step (startup,
// checkpoint, down, reload, idle) are the job's, for every stage.
//
// Interruptions (drawn in advance, InterruptionParameters) and GPU thermal shutdowns (found by the
// governor) stop the job: `down` for detection + restart (GPUs idle), `reload` for checkpoint size
// / read bandwidth (stall activity), then training resumes from the last checkpoint; the steps
// since then are lost. A GPU that shut down stays off until the reload (its node is replaced).
//
// Everything the job remembers is discrete state (constant between updates): the state vector of
// a run holds it, so a snapshot of a run is plain data.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/dvfs_governor.hpp"
#include "dctwin/models/workload/gpu_power.hpp"
#include "dctwin/models/workload/interruptions.hpp"
#include "dctwin/models/workload/power_smoothing.hpp"
#include "dctwin/models/workload/step_plan.hpp"
#include "dctwin/solver/component.hpp"
#include "dctwin/solver/parallel.hpp"
#include "dctwin/solver/types.hpp"

namespace dctwin::models::workload {

/// Phases of the job, as recorded in /job/phase.
enum class JobPhase : int {
  idle = 0,           ///< before the job starts or after it ends: no work
  startup = 1,        ///< launch and initialisation: GPUs busy at stall activity
  compute = 2,        ///< forward and backward passes
  bubble = 3,         ///< pipeline bubble
  communication = 4,  ///< exposed communication
  optimizer = 5,      ///< optimizer step
  checkpoint = 6,     ///< synchronous checkpoint write
  down = 7,           ///< interrupted: detection and restart (GPUs idle)
  reload = 8,         ///< reading the last checkpoint
  averaged = 9,       ///< the step's time-averaged activity: only for the steady-state start
};

/// The `workload:` section: the job, its checkpoints and interruptions, the GPUs' power model and
/// governor, and when the job runs.
struct WorkloadParameters {
  TrainingJobParameters job;
  CheckpointParameters checkpoint;
  InterruptionParameters interruptions;
  GpuPowerParameters power;
  DvfsGovernorParameters governor;
  PowerSmoothingParameters smoothing;  ///< GPU power smoothing and software fill (off by default)
  double start_time = 0.0;    ///< [s] job launch (GPUs idle before)
  double startup_time = 0.0;  ///< [s] initialisation before the first step
  double stop_time = 0.0;     ///< [s] job end (GPUs idle after); 0 = runs to the end
  /// "end_run": a GPU reaching its shutdown temperature ends the run (a protection trip);
  /// "restart_job": the GPU shuts down, the job is interrupted and restarts without it.
  std::string on_gpu_shutdown = "end_run";

  static core::SectionSchema schema();
  static WorkloadParameters from(const core::ParameterTree& section);
};

/// Figures of a finished (or interrupted) run, from the final discrete state.
struct JobAccounts {
  double steps_completed = 0.0;
  double steps_lost = 0.0;                  ///< completed, then lost to an interruption
  double tokens_trained = 0.0;              ///< tokens of the steps that count
  double model_flops = 0.0;                 ///< FLOPs of the steps that count
  double checkpoints = 0.0;
  double interruptions = 0.0;
  std::vector<double> interruptions_by_category;  ///< in the order of interruption_categories()
  double throttled_gpu_seconds = 0.0;       ///< GPU-seconds with a thermal or power reason set
  double lost_gpu_hours_throttling = 0.0;
  double lost_gpu_hours_checkpoints = 0.0;
  double lost_gpu_hours_failures = 0.0;
  double gpu_power_min = 0.0;               ///< least total GPU power at an update [W]
  double gpu_power_max = 0.0;               ///< largest total GPU power at an update [W]
  /// Energy the GPUs drew above what their work asked for: power floor, ramp-down hold, software
  /// fill, less what a rising ramp held back [J].
  double smoothing_energy = 0.0;
};

class TrainingJob final : public solver::Component, public thermal::GpuPowerSource {
 public:
  /// `horizon`: the end of the run [s], for the interruption draws. `section_path`: the key path
  /// of the workload section, for errors.
  TrainingJob(std::string name, const WorkloadParameters& parameters, const thermal::GpuPackageArray& gpus,
              double horizon, std::uint64_t seed, const std::string& section_path);

  [[nodiscard]] const StepPlan& plan() const { return plan_; }
  [[nodiscard]] const GpuPowerModel& power_model() const { return governor_.power(); }
  [[nodiscard]] const DvfsGovernor& governor() const { return governor_; }
  [[nodiscard]] const std::vector<Interruption>& interruptions() const { return interruptions_; }
  [[nodiscard]] const std::vector<InterruptionClass>& interruption_classes() const { return classes_; }
  [[nodiscard]] const WorkloadParameters& parameters() const { return p_; }
  /// The categories interruptions are counted by (InterruptionClass::category, plus "thermal"
  /// for GPU thermal shutdowns).
  static const std::vector<std::string>& interruption_categories();

  /// Writes into d (the system's initial discrete state) the state a steady-state start should
  /// hold: every phase of a step (and its share of a checkpoint) averaged over time, at the top
  /// clock. The steady state of the first phase alone would start the GPUs at compute-phase
  /// temperatures, several K above the cycle's mean.
  void averaged_discrete(double* d) const;
  /// a_mean = sum_k T_k a_k / sum_k T_k over the step's phases and T_stall / interval.
  [[nodiscard]] double mean_activity() const;

  // Reading the discrete state.
  [[nodiscard]] JobPhase phase(const double* d) const;
  [[nodiscard]] double clock(const double* d, std::size_t gpu) const;
  [[nodiscard]] std::uint32_t reasons(const double* d, std::size_t gpu) const;
  [[nodiscard]] JobAccounts accounts(const double* d) const;
  /// The phase GPU `gpu` is in (its pipeline stage's).
  [[nodiscard]] JobPhase gpu_phase(const double* d, std::size_t gpu) const {
    return static_cast<JobPhase>(static_cast<int>(stage_phase_value(d, gpu)));
  }
  /// The next time a stage changes phase other than at stage 0's phase edges (infinity if none).
  [[nodiscard]] double next_stage_edge(const double* d) const { return value(d, stage_next_); }
  /// Share of the step in progress at time t that is done (0 outside a step).
  [[nodiscard]] double step_progress(const double* d, double t) const;
  /// Summary figures of a run that lasted `duration` seconds (from the final discrete state).
  [[nodiscard]] std::vector<core::SummaryFigure> summary(const double* d, double duration) const;

  /// True when every GPU draws the same power at any time under discrete states a and b: the
  /// inputs of power() and powered() (phase, gate, clocks, shutdowns, ramps) are bit for bit equal.
  [[nodiscard]] bool same_power(const double* a, const double* b) const;
  /// False when none of this job's updates at time t (periodic or scheduled) may have changed
  /// those inputs: then same_power(before, after) holds for the discrete states around them
  /// without comparing them. True when one may have (same_power then tells).
  [[nodiscard]] bool power_inputs_changed_at(double t) const { return power_inputs_changed_time_ == t; }

  // thermal::GpuPowerSource
  [[nodiscard]] double power(std::size_t gpu, const solver::EvalContext& ctx) const override;
  [[nodiscard]] bool powered(std::size_t gpu, const solver::EvalContext& ctx) const override;
  void powers(std::size_t first, std::size_t last, const solver::EvalContext& ctx, double* power,
              bool* on) const override;

  // solver::Component (no continuous states of its own)
  void initial_state(double*) const override {}
  void derivatives(const solver::EvalContext&, const double*, double*) const override {}
  void jacobian_pattern(solver::PatternSink&) const override {}
  void jacobian(const solver::EvalContext&, const double*, solver::JacobianSink&) const override {}
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;
  void initial_discrete(double* d) const override;
  [[nodiscard]] double update_period() const override { return p_.governor.update_period; }

  /// Per block of GPUs (solver::parallel_blocks) and per group of `gpus_per_group` consecutive
  /// GPUs, the board power of the powered GPUs, P + L(T_j) [W], as summed at an update.
  using GroupPowerSums = std::array<std::vector<double>, solver::parallel_blocks>;
  /// Has every update also sum the GPUs' power per group of `gpus_per_group` consecutive GPUs (the
  /// pods, for the electrical feed's lineups), in the same pass and order as its power extremes;
  /// 0 = no groups.
  void sum_power_by_group(std::size_t gpus_per_group) { group_size_ = gpus_per_group; }
  /// The group sums of the last update if it ran at t (with the discrete state it left), else
  /// nullptr. A caller that sums the same powers at the same state and time (the feed's knot right
  /// after the updates) takes these instead of a second pass over the GPUs.
  [[nodiscard]] const GroupPowerSums* power_by_group(double t) const {
    return group_size_ > 0 && group_sums_time_ == t ? &group_sums_ : nullptr;
  }
  bool update_discrete(const solver::EvalContext& ctx, const double* x, double* d_next) const override;
  /// The GPUs' junction and HBM temperatures: all the governors and the leakage read.
  [[nodiscard]] std::optional<solver::StateRanges> states_read_by_update() const override {
    return solver::merge_state_ranges({gpus_.junction_states(), gpus_.hbm_states()});
  }
  /// True when every powered GPU's governor is at rest and stays there for temperatures up to
  /// `upper` (its junction and HBM at or below the operating limits, its leakage at the junction's
  /// bound within the rest limit: the leakage rises with T_j), and no smoothing or fill ramps are
  /// rebased at ticks. The updates left out would then change nothing but the power extremes and
  /// the group sums, which the ticks taken record.
  [[nodiscard]] bool rests_over(const solver::EvalContext& ctx, const double* upper) const override;
  [[nodiscard]] double next_scheduled_update(double t, const double* d) const override;
  bool scheduled_update(const solver::EvalContext& ctx, const double* x, double* d_next) const override;

 private:
  struct PhaseSpec {
    double nominal = 0.0;        ///< T0 [s]
    double clock_scaled = 0.0;   ///< c of this phase
    double activity = 0.0;
    bool working = true;
  };
  [[nodiscard]] PhaseSpec phase_spec(JobPhase phase, bool mitigated = true) const;
  /// The activity GPU i's governor reads in a phase: the phase's, scaled by the GPU's power scale.
  [[nodiscard]] double governor_activity(std::size_t gpu, const PhaseSpec& spec) const;
  /// What GPU i's governor reads; its leakage (at its junction temperature in x) is given.
  [[nodiscard]] GovernorInputs governor_inputs(std::size_t gpu, const double* x, const PhaseSpec& spec, double leakage) const;
  /// Activity of GPU i in the phase (with the wait of GPUs faster than the gate).
  /// `mitigated`: with software fill (false: the activity the work itself asks for).
  [[nodiscard]] double activity(const double* d, std::size_t gpu, bool mitigated = true) const;
  /// Power GPU i's work asks for, without leakage: P_static + s_i P_dyn(a_i, f_i) [W]; with
  /// `mitigated`, software fill and the power floor included (the ramp's target).
  [[nodiscard]] double commanded_power(const double* d, std::size_t gpu, bool mitigated = true) const;
  /// A pass's last dynamic power P_dyn(a, f) with the clock it was formed at: the activity depends
  /// on the GPU only through its clock, so GPUs with equal clocks (at one phase, gate ratio and
  /// `mitigated`) share it.
  struct DynamicPowerCache {
    double phase = std::numeric_limits<double>::quiet_NaN();
    double clock = std::numeric_limits<double>::quiet_NaN();
    double dynamic = 0.0;
  };
  /// The same with the phase, the gate ratio and the GPU's clock already read from d; `cache`, when
  /// given, is a pass's (the same phase, gate ratio and `mitigated` for every call).
  [[nodiscard]] double commanded_power(const double* d, std::size_t gpu, bool mitigated, double phase, double gate,
                                       double clock, DynamicPowerCache* cache = nullptr) const;
  /// The smoothed power of GPU i at time t with discrete state d [W].
  [[nodiscard]] double smoothed(const double* d, std::size_t gpu, double t) const;
  /// Mean smoothed power of the powered GPUs at t [W].
  [[nodiscard]] double mean_smoothed(const double* d, double t) const;
  /// At an update at t (d: state before, d_next: after): books the smoothing energy since the last
  /// update and starts new ramps where the commanded power changed direction or the phase changed.
  /// Returns whether a ramp started (the power changes differently from now on).
  bool rebase_ramps(double t, const double* d, double* d_next) const;
  /// Mean commanded power of the powered GPUs [W].
  [[nodiscard]] double mean_commanded(const double* d) const;
  /// Every GPU at its commanded power with no ramp running; the smoothing energy reset.
  void start_ramps_settled(double* d) const;
  /// Writes the start of `phase` at time t into d (phase, end time, work). `settled`: no power ramp
  /// into the phase (the start of a run).
  void begin_phase(JobPhase phase, double t, double* d, bool settled = false) const;
  /// The phase after the current one ends at t (step bookkeeping included).
  void finish_phase(double t, double* d) const;
  /// Stops the job at t for an interruption of class `cause` (index into classes_, or the
  /// thermal-shutdown class).
  void interrupt(double t, std::size_t cause, double* d) const;
  /// Index of a class's category in interruption_categories().
  [[nodiscard]] std::size_t category_of(std::size_t cause) const;
  /// Sets every stage's phase at t from stage 0's phase machine, and the next time one changes
  /// other than at stage 0's phase end (the rule in the header comment).
  void update_stage_phases(double t, double* d) const;
  /// True when every stage is in the job's phase.
  [[nodiscard]] bool stages_uniform(const double* d) const;
  [[nodiscard]] double stage_phase_value(const double* d, std::size_t gpu) const {
    return d[discrete_index(stage_phase_, static_cast<solver::Index>(gpu_stage_[gpu]))];
  }
  /// Re-predicts the phase end after the gate ratio changed at t.
  void regate(double t, double* d) const;
  [[nodiscard]] double gate_ratio(const double* d) const;
  [[nodiscard]] double& slot(double* d, int group, std::size_t i = 0) const;
  [[nodiscard]] double value(const double* d, int group, std::size_t i = 0) const;
  /// Power extremes: the total board power at d and t, with the leakage taken into leakage_ at this update.
  void track_power(double* d, double t) const;
  /// track_power's part for one block of GPUs: their board power summed (returned) and per group
  /// (into group_sums_), at the discrete state of ctx.
  double power_sums(const solver::EvalContext& ctx, const solver::BlockRange& block) const;
  /// power_sums for a block in which every powered GPU's governor rests at `rest_clock` (no
  /// smoothing ramps): the same sums, each P_i from rest_power_ instead of the power source.
  double power_sums_at_rest(const double* d, const solver::BlockRange& block, double rest_clock) const;
  /// track_power's end: the blocks' sums in block order into the extremes at d, the groups' time.
  void finish_power_tracking(double* d, double t, const solver::BlockSums& sums) const;

  WorkloadParameters p_;
  const thermal::GpuPackageArray& gpus_;
  StepPlan plan_;
  DvfsGovernor governor_;
  double stall_time_ = 0.0;   ///< checkpoint write [s]
  double reload_time_ = 0.0;  ///< checkpoint read [s]
  std::vector<InterruptionClass> classes_;  ///< drawn classes, then "gpu_thermal_shutdown"
  std::vector<Interruption> interruptions_;
  std::vector<std::string> labels_;
  int stages_ = 1;                       ///< staggered pipeline stages (1: none)
  std::vector<std::uint32_t> gpu_stage_;  ///< each GPU's stage (StepPlan::stage_of)
  /// commanded_power's last result per GPU with the discrete values it was computed from; NaN
  /// keys never match, so the first call computes. Two halves: without mitigation (GPU i at i),
  /// then with it (at count + i), the one every power() call reads, contiguous.
  struct CommandedPower {
    double phase = std::numeric_limits<double>::quiet_NaN();
    double gate = 0.0, clock = 0.0, power = 0.0;
  };
  mutable std::vector<CommandedPower> commanded_memo_;
  /// commanded_power(d, i, true, phase, gate, rest clock) of GPUs at rest, for the power sums of
  /// updates in which they rest (NaN until first needed), with the phase, gate ratio and rest
  /// clock they hold for: one read per GPU instead of the memo's four.
  mutable std::vector<double> rest_power_;
  mutable std::array<double, 3> rest_power_key_{std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0};
  /// Each GPU's leakage at the update in progress (shared by its governor and the power tracking).
  mutable std::vector<double> leakage_;
  /// Per phase (filled when first needed), each GPU's leakage up to which its governor stays at
  /// rest (DvfsGovernor::stays_at_rest), less a margin far above rounding [W].
  mutable std::array<std::vector<double>, static_cast<std::size_t>(JobPhase::averaged) + 1> rest_leakage_;
  /// Per phase, the junction temperature up to which GPU i stays within both its rest leakage
  /// limit and the operating limit (rests_over), formed on first use.
  mutable std::array<std::vector<double>, static_cast<std::size_t>(JobPhase::averaged) + 1> rest_junction_;
  std::size_t group_size_ = 0;                 ///< GPUs per group for the power sums (0 = none)
  mutable GroupPowerSums group_sums_;           ///< the last update's sums per block and group [W]
  mutable double group_sums_time_ = std::numeric_limits<double>::quiet_NaN();  ///< when they were taken
  /// The last time an update may have changed what the powers read (power_inputs_changed_at).
  mutable double power_inputs_changed_time_ = std::numeric_limits<double>::quiet_NaN();
  [[nodiscard]] const std::vector<double>& rest_leakage(JobPhase phase) const;
  /// rest_junction_ of the phase (formed on first use).
  [[nodiscard]] const std::vector<double>& rest_junction(JobPhase phase) const;
  // Discrete groups.
  int clock_ = 0, reasons_ = 0, ceiling_ = 0, off_ = 0;
  int phase_ = 0, phase_end_ = 0, work_left_ = 0, last_regate_ = 0, gate_ = 0;
  int step_start_ = 0, last_step_time_ = 0, steps_ = 0, steps_since_checkpoint_ = 0, steps_lost_ = 0;
  int commit_time_ = 0, throttle_since_commit_ = 0, outage_mark_ = 0;
  int next_interruption_ = 0, interruptions_count_ = 0, checkpoints_ = 0;
  int throttled_gpu_seconds_ = 0, lost_throttle_ = 0, lost_checkpoint_ = 0, lost_failure_ = 0;
  int power_min_ = 0, power_max_ = 0, by_category_ = 0;
  int ramp_origin_ = 0, ramp_start_ = 0, smoothing_energy_ = 0, energy_mark_ = 0;
  int stage_phase_ = 0, stage_next_ = 0, phase_work_ = 0;
  // Outputs.
  int out_clock_ = 0, out_reasons_ = 0, out_phase_ = 0, out_step_time_ = 0, out_throughput_ = 0, out_mfu_ = 0;
  int out_gate_ = 0, out_steps_ = 0, out_tokens_ = 0, out_tflops_ = 0;
};

}  // namespace dctwin::models::workload
