// Job interruptions: when training stops, why, and what it costs.
//
// Rates: Llama 3 (arXiv 2407.21783, Table 5) counts 419 unexpected interruptions in a 54-day
// snapshot of 405B pre-training on 16,384 GPUs, by root-cause class. Each class k is a Poisson
// process with rate
//   lambda_k = s n_k / (54 d) * (G / 16,384)
// for a job of G GPUs (interruptions scale with the hardware in the job) and a user scale s. The
// arrivals of all classes together form one Poisson process of rate sum_k lambda_k; each arrival's
// class is drawn with probability lambda_k / sum lambda, and the GPU it hits uniformly.
//
// Cost of an interruption at time t_f: the job stops (GPUs idle) for detection + restart, reloads
// its last checkpoint (GPUs at stall power) for size / read bandwidth, and resumes from the last
// checkpoint: the steps since then are lost and are trained again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::workload {

/// One root-cause class with its count in the reference snapshot.
struct InterruptionClass {
  std::string name;      ///< e.g. "faulty_gpu"
  std::string category;  ///< "gpu", "hardware" (other), "software", "network", "host", "unknown", "planned"
  double count = 0.0;    ///< interruptions in the reference snapshot
};

/// The Llama 3 unexpected-interruption table (Table 5), 419 in 54 days at 16,384 GPUs.
std::vector<InterruptionClass> llama3_unexpected_interruptions();

struct InterruptionParameters {
  bool enabled = true;
  double rate_scale = 1.0;           ///< s [1]
  bool include_planned = false;      ///< add the 47 planned interruptions of the snapshot
  double reference_gpus = 16384;     ///< GPUs of the reference snapshot
  double reference_period = 54 * 86400.0;  ///< [s]
  double detection_time = 120.0;     ///< [s] from the fault to the job noticing it (uncertain)
  double restart_time = 300.0;       ///< [s] to replace the node and relaunch (uncertain)
  double read_bandwidth = 7e12;      ///< [B/s] checkpoint read (Tectonic peak 7 TB/s)
  /// [s] a job crash injected at this time whether or not interruptions are drawn (category
  /// "software"); 0 = none. For what-if runs: what did the crash do to the grid?
  double crash_time = 0.0;

  static core::ParameterTable table();
  static InterruptionParameters from(const core::ParameterTree& section);
};

/// One drawn interruption.
struct Interruption {
  double time = 0.0;          ///< [s] after the start of the run
  std::size_t cause = 0;      ///< index into the class table
  std::size_t gpu = 0;        ///< the GPU it hits (for the report)
};

/// The class table the parameters select (unexpected, plus planned when asked).
std::vector<InterruptionClass> interruption_classes(const InterruptionParameters& p);
/// lambda_k [1/s] for each class, for a job of `gpus` GPUs.
std::vector<double> interruption_rates(const InterruptionParameters& p, const std::vector<InterruptionClass>& classes,
                                       std::size_t gpus);
/// Interruptions on [0, horizon), in time order: a seeded Poisson process as above. Identical on
/// every platform for the same arguments (models::SplitMix64).
std::vector<Interruption> draw_interruptions(const std::vector<double>& rates, std::size_t gpus, double horizon,
                                             std::uint64_t seed);

/// Checkpoint reload after a restart [s]: checkpoint_bytes / read_bandwidth.
double reload_time(const InterruptionParameters& p, double checkpoint_bytes);
/// Time one interruption keeps the job from training, lost work aside [s]: detection + restart + reload.
double interruption_downtime(const InterruptionParameters& p, double checkpoint_bytes);
/// Expected effective training time [1] (kept training time over wall-clock time) of a job whose
/// faults arrive at `total_rate` [1/s] while it runs, each costing `downtime` [s] plus the work since
/// the last checkpoint, with a checkpoint every `checkpoint_period` [s] of running time:
///   E = lambda tau / ((1 + lambda D) (exp(lambda tau) - 1))       (1 when lambda = 0)
double expected_effective_training_fraction(double total_rate, double downtime, double checkpoint_period);

}  // namespace dctwin::models::workload
