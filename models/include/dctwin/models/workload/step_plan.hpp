// A synchronous training step, planned from the model, the batch and the parallelism (or given
// directly), and the arithmetic of throughput and model FLOPs utilisation (MFU).
//
// Derived timing (all at the GPUs' top clock f_max):
//   G      = GPUs in the job;  DP = G / (TP PP CP)          (must divide exactly)
//   B_tok  = b_r DP L_seq                                  tokens per step (b_r sequences per replica)
//   F      = 6 N B_tok                                     model FLOPs per step (dense transformer,
//                                                          forward + backward; Kaplan et al. 2020,
//                                                          the convention of Llama 3's MFU)
//   T_c    = F / (G P_peak eta)                            forward/backward compute time
//   m      = b_r / b_micro                                 micro-batches per replica
//   T_b    = T_c (PP - 1) / (v m)                          pipeline bubble (interleaved 1F1B with v
//                                                          virtual stages; Narayanan et al. 2021)
//   T_x    = exposed communication time (not hidden behind compute)
//   T_o    = optimizer step time
//   T_step = T_c + T_b + T_x + T_o
// Given timing: T_c, T_x, T_o written directly; T_b = 0 unless given.
//
// Clock scaling: a phase of nominal length T0 whose share c is compute-bound takes
//   T(r) = T0 (c / r + 1 - c),   r = f / f_max
// at clock ratio r. Compute and bubble phases use the job's compute-bound fraction; communication
// and the optimizer do not scale with the SM clock.
//
// MFU over a time span:  MFU = F_done / (span G P_peak);  throughput = tokens_done / span.
//
// Pipeline stagger (1F1B, plain or interleaved; Narayanan et al. 2021, "Efficient Large-Scale
// Language Model Training on GPU Clusters Using Megatron-LM", SC'21): a micro-batch's model chunk
// passes the S = PP stages one after another, so stage s starts its first forward s t_f after
// stage 0 and ends its last backward s t_b before stage 0; each stage idles (S - 1)(t_f + t_b)
// per step, the bubble:
//   t_f + t_b = T_b / (S - 1)                 forward + backward of one chunk on one stage
//   t_b = 2 t_f                               backward 4N, forward 2N FLOPs per token (6ND)
//   t_f = T_b / (3 (S - 1)),  t_b = 2 T_b / (3 (S - 1))
// GPU g of the job (rank g) is in stage s(g) = floor(g / (TP CP)) mod PP: Llama 3 orders its
// parallel dimensions [TP, CP, PP, DP] from the innermost (arXiv 2407.21783, sec. 3.3.2).
#pragma once

#include <cstddef>
#include <string>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::workload {

struct TrainingJobParameters {
  std::string timing = "derived";        ///< "derived" from the model and parallelism, or "given"
  double model_parameters = 405e9;       ///< N [1]
  double sequence_length = 8192;         ///< L_seq [tokens]
  double batch_size_per_replica = 16;    ///< b_r [sequences per data-parallel replica per step]
  double micro_batch_size = 1;           ///< b_micro [sequences]
  int tensor_parallel = 8;               ///< TP
  int pipeline_parallel = 16;            ///< PP
  int context_parallel = 1;              ///< CP
  int data_parallel = 0;                 ///< DP; 0 = G / (TP PP CP)
  int virtual_pipeline_stages = 8;       ///< v (interleaving); 1 = plain 1F1B
  bool pipeline_stagger = false;         ///< offset each stage's phase edges (t_f, t_b above)
  double peak_flops = 989e12;            ///< P_peak [FLOP/s] per GPU, dense BF16
  double compute_efficiency = 0.51;      ///< eta: share of peak the compute phase reaches at f_max
  double exposed_communication_time = 0.5;  ///< T_x [s]
  double optimizer_time = 0.2;           ///< T_o [s]
  double compute_time = 5.0;             ///< T_c [s] (given timing)
  double bubble_time = 0.0;              ///< T_b [s] (given timing)
  double compute_bound_fraction = 0.85;  ///< c [1]
  // Switching activity per phase (see gpu_power.hpp) [1].
  double compute_activity = 0.72;
  double bubble_activity = 0.2;
  double communication_activity = 0.25;
  double optimizer_activity = 0.35;
  double stall_activity = 0.10;          ///< checkpoint writes and reloads
  /// Work that holds a GPU at its power limit (NVML SwPowerCap): read by the replay of measured
  /// telemetry (dctwin validate) for samples with that reason, where the measured power says only
  /// that the GPU is capped, not how hard it works; the governor's clock follows from it.
  double power_capped_activity = 1.0;

  static core::ParameterTable table();
  /// Reads `job:`; `section` is kept for the key paths of later errors.
  static TrainingJobParameters from(const core::ParameterTree& section);
};

/// The step as planned at f_max.
struct StepPlan {
  std::size_t gpus = 0;                 ///< G
  int data_parallel = 0;                ///< DP
  double tokens_per_step = 0.0;         ///< B_tok
  double model_flops_per_step = 0.0;    ///< F [FLOP]
  double compute_time = 0.0;            ///< T_c [s]
  double bubble_time = 0.0;             ///< T_b [s]
  double communication_time = 0.0;      ///< T_x [s]
  double optimizer_time = 0.0;          ///< T_o [s]
  double compute_bound_fraction = 0.0;  ///< c
  /// Stages whose phase edges are offset (S = PP with the stagger on and a bubble; else 1).
  int staggered_stages = 1;
  /// PP > 1 and a bubble, but `pipeline_stagger` off: every stage changes phase at stage 0's edges,
  /// so the hall's power edges are steeper than the schedule's (an upper bound on fast ramps).
  bool stagger_left_out = false;
  int stage_width = 1;                  ///< TP CP: consecutive GPUs (ranks) of one stage
  double stage_forward_time = 0.0;      ///< t_f [s] at f_max: stage s starts s t_f after stage 0
  double stage_backward_time = 0.0;     ///< t_b [s] at f_max: stage s ends s t_b before stage 0

  /// s(g) = floor(g / (TP CP)) mod S; 0 without stagger.
  [[nodiscard]] int stage_of(std::size_t gpu) const {
    return static_cast<int>((gpu / static_cast<std::size_t>(stage_width)) % static_cast<std::size_t>(staggered_stages));
  }
  [[nodiscard]] double step_time() const { return compute_time + bubble_time + communication_time + optimizer_time; }
  /// T(r) of a phase of nominal length t0 whose compute-bound share is c, at clock ratio r.
  [[nodiscard]] static double scaled_time(double t0, double c, double r) { return t0 * (c / r + 1.0 - c); }
  /// The step time when the slowest GPU runs at clock ratio r throughout [s].
  [[nodiscard]] double step_time_at(double r) const;
  /// MFU of `steps` steps done in `span` seconds [1].
  [[nodiscard]] double mfu(double steps, double span, double peak_flops) const;
  /// Throughput of `steps` steps done in `span` seconds [tokens/s].
  [[nodiscard]] double throughput(double steps, double span) const;
};

/// Synchronous checkpoints: every `interval_steps` steps all GPUs stall while the state is written.
///   S       = size, or N bytes_per_parameter when size = 0 (BF16 weights 2 B + FP32 master
///             weights 4 B + Adam moments 8 B = 14 B per parameter)
///   T_stall = S / write_bandwidth + overhead
struct CheckpointParameters {
  bool enabled = true;
  int interval_steps = 100;
  double bytes_per_parameter = 14.0;  ///< [B]
  double size = 0.0;                  ///< S [B]; 0 = derived
  double write_bandwidth = 2e12;      ///< [B/s] (Tectonic, 2 TB/s sustained)
  double overhead = 1.0;              ///< [s] barrier and metadata

  static core::ParameterTable table();
  static CheckpointParameters from(const core::ParameterTree& section);
  /// S [B] for a model of N parameters.
  [[nodiscard]] double size_bytes(double model_parameters) const;
  /// T_stall [s].
  [[nodiscard]] double stall_time(double model_parameters) const;
};

/// Plans the step of a job on `gpus` GPUs. Throws core::InputError, naming the key under
/// `section_path` (for example "job.tensor_parallel"), when the parallelism does not divide the
/// GPU count, a given data_parallel disagrees with it, or the micro-batch does not divide the
/// replica's batch.
StepPlan plan_step(const TrainingJobParameters& p, std::size_t gpus, const std::string& section_path);

}  // namespace dctwin::models::workload
