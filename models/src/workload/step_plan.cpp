#include "dctwin/models/workload/step_plan.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"

namespace dctwin::models::workload {

using core::InputError;
using core::ParameterTable;

// ---- parameter tables --------------------------------------------------------------------------

ParameterTable TrainingJobParameters::table() {
  using namespace core;
  const TrainingJobParameters d;
  ParameterTable t;
  auto p = choice_parameter("timing", {"derived", "given"},
                            "derived: step phases from the model size, batch and parallelism; given: "
                            "compute_time, bubble_time, exposed_communication_time and optimizer_time as written",
                            d.timing);
  p.source = "Step model: Kaplan et al. 2020 (6ND), Narayanan et al. 2021 (interleaved 1F1B bubble)";
  t.push_back(p);

  p = real_parameter("model_parameters", "1", "N: trainable parameters of the dense transformer", d.model_parameters,
                     "Llama 3 405B (arXiv 2407.21783)");
  t.push_back(greater_than(p, 0.0));
  p = integer_parameter("sequence_length", "L_seq: tokens per sequence", d.sequence_length,
                        "Llama 3 pre-training, arXiv 2407.21783 Table 4: 8,192");
  t.push_back(at_least(p, 1.0));
  p = integer_parameter("batch_size_per_replica", "b_r: sequences per data-parallel replica per step",
                        d.batch_size_per_replica, "arXiv 2407.21783 Table 4: batch size per DP 16 at 16,384 GPUs");
  t.push_back(at_least(p, 1.0));
  p = integer_parameter("micro_batch_size", "b_micro: sequences per pipeline micro-batch (must divide b_r)",
                        d.micro_batch_size, "Assumed [U]: one sequence per micro-batch, m = b_r = 16 micro-batches");
  t.push_back(at_least(p, 1.0));

  p = integer_parameter("tensor_parallel", "TP: tensor-parallel degree", d.tensor_parallel,
                        "arXiv 2407.21783 Table 4: TP 8 (one 8-GPU server)");
  t.push_back(at_least(p, 1.0));
  p = integer_parameter("pipeline_parallel", "PP: pipeline-parallel stages", d.pipeline_parallel,
                        "arXiv 2407.21783 Table 4: PP 16");
  t.push_back(at_least(p, 1.0));
  p = integer_parameter("context_parallel", "CP: context-parallel degree", d.context_parallel,
                        "arXiv 2407.21783 Table 4: CP 1 at 8,192-token sequences");
  t.push_back(at_least(p, 1.0));
  p = integer_parameter("data_parallel", "DP: data-parallel replicas; 0 = derived as G / (TP PP CP)", d.data_parallel,
                        "arXiv 2407.21783 Table 4: DP 128 at 16,384 GPUs (what 0 derives there)");
  t.push_back(at_least(p, 0.0));
  p = integer_parameter("virtual_pipeline_stages", "v: model chunks per pipeline stage (interleaved 1F1B); 1 = plain 1F1B",
                        d.virtual_pipeline_stages,
                        "Assumed [U]: Llama 3 runs an interleaved pipeline schedule (arXiv 2407.21783) without a "
                        "published v; with eta = 0.51 gives 40.5 % MFU (Table 4: 41 %)");
  t.push_back(at_least(p, 1.0));

  p = boolean_parameter("pipeline_stagger",
                        "Offset each pipeline stage's phase edges: stage s starts its compute s t_f after stage 0 and "
                        "ends its last backward s t_b before it (false: every GPU changes phase at the same instant)",
                        d.pipeline_stagger);
  p.source = "1F1B pipeline schedule, Narayanan et al. 2021 (SC'21); stage of a rank from the order [TP, CP, PP, "
             "DP] of arXiv 2407.21783 sec. 3.3.2";
  t.push_back(p);

  p = real_parameter("peak_flops", "1/s", "P_peak: dense BF16 peak per GPU [FLOP/s]", d.peak_flops,
                     "NVIDIA H100 SXM5 datasheet: 989 TFLOP/s dense BF16 (= 132 SMs x 4096 FLOP/clk x 1.83 GHz)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("compute_efficiency", "1",
                     "eta: share of P_peak the forward/backward compute phase reaches at f_max (derived timing)",
                     d.compute_efficiency,
                     "Fitted [E]: with the bubble, T_x and T_o gives 400.6 TFLOP/s per GPU, 40.5 % MFU at 16,384 "
                     "GPUs (arXiv 2407.21783 Table 4: 400 TFLOP/s, 41 %)");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("exposed_communication_time", "s",
                     "T_x: communication per step not hidden behind compute (derived and given timing)",
                     d.exposed_communication_time,
                     "Estimate [U]: ~8 % of a 6.2 s step (data-parallel gradient reduction tail, pipeline sends)");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("optimizer_time", "s", "T_o: optimizer step per training step (derived and given timing)",
                     d.optimizer_time, "Estimate [U]: sharded AdamW update, ~3 % of the step");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("compute_time", "s", "T_c: forward/backward compute per step at f_max (given timing only)",
                     d.compute_time, "Round figure near the derived 4.93 s of Llama 3 405B at 16,384 GPUs [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("bubble_time", "s", "T_b: pipeline bubble per step at f_max (given timing only)", d.bubble_time,
                     "0 = no pipeline bubble");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("compute_bound_fraction", "1",
                     "c: share of the compute and bubble phases whose length scales as 1 / clock",
                     d.compute_bound_fraction,
                     "Estimate [U]: the rest is bound by HBM bandwidth; a 600 W cap is reported to cost ~10-15 % "
                     "step throughput (unverified)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));

  p = real_parameter("compute_activity", "1", "Switching activity of the GPUs during forward/backward compute",
                     d.compute_activity,
                     "Estimate [E] for the GPU power model; measured 8xH100 training: compute phases 533-547 W median per GPU "
                     "in 1-s averages ([h100-training-trace]), a lower bound for the instantaneous level: a 1-s "
                     "window also holds the step's lower-power sub-second phases");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("bubble_activity", "1", "Switching activity of a GPU idling in the pipeline bubble",
                     d.bubble_activity, "Estimate [U]: waiting on a neighbour stage, clocks up, little arithmetic");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("communication_activity", "1", "Switching activity during exposed communication",
                     d.communication_activity, "Estimate [U]: NCCL kernels use a few SMs and HBM bandwidth");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("optimizer_activity", "1", "Switching activity during the optimizer step",
                     d.optimizer_activity, "Estimate [U]: element-wise, HBM-bandwidth bound");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("stall_activity", "1", "Switching activity during checkpoint writes and restarts",
                     d.stall_activity,
                     "Estimate [E] for the GPU power model; measured 8xH100 training: checkpoint stalls ~140-155 W per GPU");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("power_capped_activity", "1",
                     "Switching activity of work held at the power limit (SwPowerCap samples of a replayed trace)",
                     d.power_capped_activity,
                     "Estimate [E]: a = 1 at f_max is about the 700 W limit; above 1 when dynamic_power_at_max is "
                     "fitted to the compute phase of a trace");
  at_least(p, 0.0);
  t.push_back(at_most(p, 3.0));
  return t;
}

TrainingJobParameters TrainingJobParameters::from(const core::ParameterTree& s) {
  TrainingJobParameters p;
  p.timing = s.text("timing");
  p.model_parameters = s.number("model_parameters");
  p.sequence_length = s.number("sequence_length");
  p.batch_size_per_replica = s.number("batch_size_per_replica");
  p.micro_batch_size = s.number("micro_batch_size");
  p.tensor_parallel = static_cast<int>(s.integer("tensor_parallel"));
  p.pipeline_parallel = static_cast<int>(s.integer("pipeline_parallel"));
  p.context_parallel = static_cast<int>(s.integer("context_parallel"));
  p.data_parallel = static_cast<int>(s.integer("data_parallel"));
  p.virtual_pipeline_stages = static_cast<int>(s.integer("virtual_pipeline_stages"));
  p.pipeline_stagger = s.boolean("pipeline_stagger");
  p.peak_flops = s.number("peak_flops");
  p.compute_efficiency = s.number("compute_efficiency");
  p.exposed_communication_time = s.number("exposed_communication_time");
  p.optimizer_time = s.number("optimizer_time");
  p.compute_time = s.number("compute_time");
  p.bubble_time = s.number("bubble_time");
  p.compute_bound_fraction = s.number("compute_bound_fraction");
  p.compute_activity = s.number("compute_activity");
  p.bubble_activity = s.number("bubble_activity");
  p.communication_activity = s.number("communication_activity");
  p.optimizer_activity = s.number("optimizer_activity");
  p.stall_activity = s.number("stall_activity");
  p.power_capped_activity = s.number("power_capped_activity");
  return p;
}

ParameterTable CheckpointParameters::table() {
  using namespace core;
  const CheckpointParameters d;
  ParameterTable t;
  auto p = boolean_parameter("enabled", "Whether the job stalls every interval_steps steps to write a checkpoint",
                             d.enabled);
  p.source = "Llama 3 pauses the GPUs while each writes its state to Tectonic (arXiv 2407.21783)";
  t.push_back(p);
  p = integer_parameter("interval_steps", "Training steps between two checkpoints", d.interval_steps,
                        "Assumed [U]: every 100 steps, ~10 min at 6.2 s per step");
  t.push_back(at_least(p, 1.0));
  p = real_parameter("bytes_per_parameter", "byte", "Checkpoint bytes per model parameter (used when size = 0)",
                     d.bytes_per_parameter,
                     "Mixed-precision Adam: BF16 weights 2 B + FP32 master weights 4 B + two FP32 moments 8 B [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("size", "byte", "S: checkpoint size of the whole job; 0 = model_parameters x bytes_per_parameter",
                     d.size, "0 = derived: 405e9 x 14 B = 5.67 TB, ~346 MB per GPU at 16,384 GPUs (Llama 3: 1 MB-4 GB per GPU)");
  p.display_unit = "Tbyte";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("write_bandwidth", "byte/s", "Sustained aggregate write bandwidth to checkpoint storage",
                     d.write_bandwidth, "Tectonic: 2 TB/s sustained, 7 TB/s peak (arXiv 2407.21783)");
  p.display_unit = "Tbyte/s";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("overhead", "s", "Fixed time per checkpoint: barrier, metadata, file close", d.overhead,
                     "Estimate [U]");
  t.push_back(at_least(p, 0.0));
  return t;
}

CheckpointParameters CheckpointParameters::from(const core::ParameterTree& s) {
  CheckpointParameters p;
  p.enabled = s.boolean("enabled");
  p.interval_steps = static_cast<int>(s.integer("interval_steps"));
  p.bytes_per_parameter = s.number("bytes_per_parameter");
  p.size = s.number("size");
  p.write_bandwidth = s.number("write_bandwidth");
  p.overhead = s.number("overhead");
  return p;
}

double CheckpointParameters::size_bytes(double model_parameters) const {
  DCTWIN_DEMAND(model_parameters >= 0.0 && size >= 0.0, "checkpoint size needs N >= 0 and size >= 0");
  return size > 0.0 ? size : model_parameters * bytes_per_parameter;
}

double CheckpointParameters::stall_time(double model_parameters) const {
  DCTWIN_DEMAND(write_bandwidth > 0.0, "checkpoint write bandwidth must be > 0");
  return size_bytes(model_parameters) / write_bandwidth + overhead;
}

// ---- the planned step --------------------------------------------------------------------------

double StepPlan::step_time_at(double r) const {
  DCTWIN_DEMAND(std::isfinite(r) && r > 0.0, "clock ratio must be finite and > 0");
  return scaled_time(compute_time + bubble_time, compute_bound_fraction, r) + communication_time + optimizer_time;
}

double StepPlan::mfu(double steps, double span, double peak_flops) const {
  DCTWIN_DEMAND(steps >= 0.0 && span >= 0.0 && peak_flops > 0.0, "MFU needs steps >= 0, span >= 0, peak > 0");
  if (span == 0.0 || gpus == 0) return 0.0;
  return steps * model_flops_per_step / (span * static_cast<double>(gpus) * peak_flops);
}

double StepPlan::throughput(double steps, double span) const {
  DCTWIN_DEMAND(steps >= 0.0 && span >= 0.0, "throughput needs steps >= 0 and span >= 0");
  if (span == 0.0) return 0.0;
  return steps * tokens_per_step / span;
}

namespace {

/// Up to six significant digits ("%g"): 16, 0.51, 4.05e+11.
std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

class JobCheck {
 public:
  explicit JobCheck(const std::string& section) : section_(section) {}

  [[nodiscard]] std::string path(const char* key) const {
    return section_.empty() ? std::string(key) : section_ + "." + key;
  }
  [[noreturn]] void fail(const char* key, const std::string& message) const { throw InputError(message, path(key)); }

  /// "<section>.<key> = <value>[ <unit>] (must be <rule>)".
  void require(bool ok, const char* key, double value, const char* unit, const char* rule) const {
    if (ok) return;
    std::string text = path(key) + " = " + number_text(value);
    if (unit[0] != '\0') text += std::string(" ") + unit;
    fail(key, text + " (must be " + rule + ")");
  }

 private:
  std::string section_;
};

bool whole(double x) { return std::isfinite(x) && std::floor(x) == x; }

}  // namespace

StepPlan plan_step(const TrainingJobParameters& p, std::size_t gpus, const std::string& section_path) {
  const JobCheck check(section_path);
  const bool derived = p.timing == "derived";
  if (!derived && p.timing != "given")
    check.fail("timing", check.path("timing") + " = " + p.timing + " (must be one of: derived, given)");
  if (gpus == 0) throw InputError((section_path.empty() ? std::string("job") : section_path) + ": no GPUs to run on",
                                  section_path);

  check.require(p.tensor_parallel >= 1, "tensor_parallel", p.tensor_parallel, "", ">= 1");
  check.require(p.pipeline_parallel >= 1, "pipeline_parallel", p.pipeline_parallel, "", ">= 1");
  check.require(p.context_parallel >= 1, "context_parallel", p.context_parallel, "", ">= 1");
  check.require(p.data_parallel >= 0, "data_parallel", p.data_parallel, "", ">= 0");
  check.require(p.virtual_pipeline_stages >= 1, "virtual_pipeline_stages", p.virtual_pipeline_stages, "", ">= 1");
  check.require(p.model_parameters > 0.0, "model_parameters", p.model_parameters, "", "> 0");
  check.require(p.sequence_length > 0.0, "sequence_length", p.sequence_length, "", "> 0");
  check.require(p.batch_size_per_replica > 0.0, "batch_size_per_replica", p.batch_size_per_replica, "", "> 0");
  check.require(p.micro_batch_size > 0.0, "micro_batch_size", p.micro_batch_size, "", "> 0");
  check.require(p.compute_bound_fraction >= 0.0 && p.compute_bound_fraction <= 1.0, "compute_bound_fraction",
                p.compute_bound_fraction, "", "in [0, 1]");
  check.require(p.exposed_communication_time >= 0.0, "exposed_communication_time", p.exposed_communication_time,
                "s", ">= 0");
  check.require(p.optimizer_time >= 0.0, "optimizer_time", p.optimizer_time, "s", ">= 0");
  if (derived) {
    check.require(p.peak_flops > 0.0, "peak_flops", p.peak_flops, "1/s", "> 0");
    check.require(p.compute_efficiency > 0.0 && p.compute_efficiency <= 1.0, "compute_efficiency",
                  p.compute_efficiency, "", "in (0, 1]");
  } else {
    check.require(p.compute_time > 0.0, "compute_time", p.compute_time, "s", "> 0");
    check.require(p.bubble_time >= 0.0, "bubble_time", p.bubble_time, "s", ">= 0");
  }

  // Parallelism: G = TP PP CP DP exactly.
  const std::int64_t g = static_cast<std::int64_t>(gpus);
  const std::int64_t model_group =
      std::int64_t{p.tensor_parallel} * std::int64_t{p.pipeline_parallel} * std::int64_t{p.context_parallel};
  const std::string degrees = std::to_string(p.tensor_parallel) + " x " + std::to_string(p.pipeline_parallel) +
                              " x " + std::to_string(p.context_parallel);
  if (g % model_group != 0)
    check.fail("tensor_parallel", check.path("tensor_parallel") + " x " + check.path("pipeline_parallel") + " x " +
                                      check.path("context_parallel") + " = " + degrees + " = " +
                                      std::to_string(model_group) + " does not divide the job's " +
                                      std::to_string(g) + " GPUs");
  const std::int64_t dp = g / model_group;
  if (p.data_parallel != 0 && p.data_parallel != dp)
    check.fail("data_parallel", check.path("data_parallel") + " = " + std::to_string(p.data_parallel) + " but " +
                                    std::to_string(g) + " GPUs / (" + degrees + ") = " + std::to_string(dp) +
                                    " (write " + std::to_string(dp) + ", or 0 to derive it)");

  StepPlan plan;
  plan.gpus = gpus;
  plan.data_parallel = static_cast<int>(dp);
  plan.tokens_per_step = p.batch_size_per_replica * static_cast<double>(dp) * p.sequence_length;
  plan.model_flops_per_step = 6.0 * p.model_parameters * plan.tokens_per_step;
  plan.communication_time = p.exposed_communication_time;
  plan.optimizer_time = p.optimizer_time;
  plan.compute_bound_fraction = p.compute_bound_fraction;

  if (derived) {
    const double micro_batches = p.batch_size_per_replica / p.micro_batch_size;
    if (!whole(p.batch_size_per_replica) || !whole(p.micro_batch_size) || !whole(micro_batches))
      check.fail("micro_batch_size", check.path("micro_batch_size") + " = " + number_text(p.micro_batch_size) +
                                         " does not divide " + check.path("batch_size_per_replica") + " = " +
                                         number_text(p.batch_size_per_replica));
    plan.compute_time =
        plan.model_flops_per_step / (static_cast<double>(gpus) * p.peak_flops * p.compute_efficiency);
    plan.bubble_time = plan.compute_time * static_cast<double>(p.pipeline_parallel - 1) /
                       (static_cast<double>(p.virtual_pipeline_stages) * micro_batches);
  } else {
    plan.compute_time = p.compute_time;
    plan.bubble_time = p.bubble_time;
  }

  // Stagger: t_f + t_b = T_b / (S - 1), t_b = 2 t_f (see the header).
  plan.stage_width = p.tensor_parallel * p.context_parallel;
  if (p.pipeline_stagger && p.pipeline_parallel > 1 && plan.bubble_time > 0.0) {
    const double chunk = plan.bubble_time / static_cast<double>(p.pipeline_parallel - 1);
    plan.staggered_stages = p.pipeline_parallel;
    plan.stage_forward_time = chunk / 3.0;
    plan.stage_backward_time = 2.0 * chunk / 3.0;
  }
  plan.stagger_left_out = !p.pipeline_stagger && p.pipeline_parallel > 1 && plan.bubble_time > 0.0;
  return plan;
}


}  // namespace dctwin::models::workload
